from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from favakit.contracts import EditSpan
from favakit.inference.swap_check import _may_swap, _read_swap, swap_conflict, swap_fix
from favakit.text import undo_ptb

PAGES = [
    "Encryption is off by default; turn it on with --encrypt.",
    "The gym is closed on Sundays from 8am. Backups are compressed with zstd at level 3.",
]


def test_an_opposite_in_the_evidence_s_same_words_is_caught() -> None:
    text = "Tidewater is simple. Encryption is on by default; you can turn it off with a flag."
    found = swap_conflict(text, PAGES)
    assert found is not None
    assert (found.written, found.right) == ("on", "off")
    assert text[found.start : found.end] == "on" and found.start == text.index("on by")
    assert found.evidence == "Encryption is off by default"
    assert found.note().startswith("opposite: the text says 'on' where the evidence says 'off'")
    found = swap_conflict("The gym is open on Sundays from 8am.", PAGES)
    assert found is not None and (found.written, found.right) == ("open", "closed")


def test_a_word_that_is_no_opposite_or_a_statement_the_evidence_also_makes_is_left_alone() -> None:
    # a synonym or a more general word is as often supported ("movie" / "film"): not read
    assert swap_conflict("Backups are compressed with gzip at level 3.", PAGES) is None
    assert swap_conflict("Down with Love is a 2003 comedy movie.",
                         ["Down with Love is a 2003 comedy film."]) is None  # fmt: skip
    # the same statement as written elsewhere in the evidence; a short one; two words changed
    both = [*PAGES, "Encryption is on by default in the cloud edition."]
    assert swap_conflict("Encryption is on by default in the cloud edition.", both) is None
    assert swap_conflict("It is on.", ["It is off."]) is None
    assert swap_conflict("Encryption is always on by default.", PAGES) is None


def test_the_fix_writes_the_evidence_s_word() -> None:
    text = "Encryption is on by default. Backups are compressed with zstd at level 3."
    at = text.index("on by")
    flag: EditSpan = {"type": "unverifiable", "start": 0, "end": 27, "wrong": text[:27],
                      "right": text[:27], "flagged": True}  # fmt: skip
    fixed = swap_fix(flag, text, (0, 28), [{"text": p} for p in PAGES])
    assert fixed is not None and "flagged" not in fixed
    assert (fixed["start"], fixed["end"], fixed["wrong"], fixed["right"]) == (at, at + 2, "on",
                                                                              "off")  # fmt: skip
    assert fixed["type"] == "relation"
    # an edit elsewhere in the sentence is not this rule's to fix
    other: EditSpan = {**flag, "start": 0, "end": 10, "wrong": "Encryption"}
    assert swap_fix(other, text, (0, 28), [{"text": p} for p in PAGES]) is None
    capital = "Open on Sundays from 8am, the gym is."
    assert swap_fix({**flag, "start": 0, "end": 4}, capital, (0, len(capital)),
                    [{"text": "Closed on Sundays from 8am, the gym is."}])["right"] == "Closed"  # type: ignore[index]  # fmt: skip


def test_two_of_a_closed_set_of_alternatives_are_read_as_opposites() -> None:
    prices = ["Students get the yearly plan for £60. Over-65s get the monthly plan half price.",
              "The pool is closed on Mondays for cleaning."]  # fmt: skip
    text = "Students pay £60 a year, and over-65s get the yearly plan half price."
    found = swap_conflict(text, prices)
    assert found is not None and (found.written, found.right) == ("yearly", "monthly")
    assert text[found.start : found.end] == "yearly" and found.start == text.index("yearly plan")
    found = swap_conflict("The pool is closed on Fridays for cleaning.", prices)
    assert found is not None and (found.written, found.right) == ("Fridays", "Mondays")
    # words of two different sets, or a word outside every set, are not read
    assert swap_conflict("The pool is closed on weekly for cleaning.", prices) is None
    assert swap_conflict("The pool is closed on holidays for cleaning.", prices) is None


def test_an_opposite_between_the_evidence_s_words_is_caught_where_no_statement_matches() -> None:
    """A summary's sentence joins two of the evidence's and matches neither word for word: the
    opposite is read between the same two words either side (swap_check.WINDOW)."""
    report = ["Chief executive Rosa Delacroix said customers were buying fewer cakes and "
              "sandwiches but more drinks, and that the app had 1.3 million users.",
              "An earlier version, with 180 homes and no social housing, was rejected in 2024."]  # fmt: skip
    text = ("Rosa Delacroix said customers were buying more cakes and sandwiches, and the app "
            "had 1.3 million users.")  # fmt: skip
    found = swap_conflict(text, report)
    assert found is not None and (found.written, found.right) == ("more", "fewer")
    assert found.start == text.index("more cakes")
    found = swap_conflict(
        "A plan with no social housing was approved in 2024, then withdrawn.", report
    )
    assert found is not None and (found.written, found.right) == ("approved", "rejected")
    # the evidence writing the text's words so elsewhere keeps the rule out; so does a word
    # whose neighbours differ ("more drinks" is the evidence's own)
    assert swap_conflict(text, [*report, "Customers were buying more cakes and tea."]) is None
    assert swap_conflict("They sold more drinks and cakes in the summer.", report) is None


def test_an_opposite_with_one_word_of_the_evidence_s_on_one_side_is_caught() -> None:
    """A summary joins two clauses: "..., and have *risen* by about 12%" against "They have
    fallen by about 12% ...": one word the same on the left, two on the right. With one word on
    a side only opposites are read, not two of a closed set (two dates share "on" and a day)."""
    report = ["Shares in Corvana rose 3% in early trading after the results. They have fallen by "
              "about 12% since the start of the year.",
              "It launched worldwide on February 6, 2019."]  # fmt: skip
    text = ("Shares in Corvana rose 3% in early trading, and have risen by about 12% since the "
            "start of the year.")  # fmt: skip
    found = swap_conflict(text, report)
    assert found is not None and (found.written, found.right) == ("risen", "fallen")
    assert found.start == text.index("risen")
    assert swap_conflict("It aired in Australia and launched on March 6, 2019.", report) is None
    # the evidence's own words as the text writes them keep the rule out
    assert swap_conflict(text, [*report, "Shares have risen by about 12% this year."]) is None


# words with opposites or alternatives, written as texts write them (capitals, a possessive, a
# hyphen, a trailing comma, an apostrophe, a FEVER bracket), among words with none
_WORDS = st.sampled_from([
    "on", "off", "On", "OFF", "off-peak", "on,", "off's", "off'", "open", "closed", "Closed.",
    "Monday", "Friday", "fridays", "March", "may", "more", "fewer", "less", "won", "lost",
    "the", "gym", "is", "by", "default", "every", "week", "-LRB-", "-RRB-", "and", ";", ",",
    "at", "8am", "\uff18", "wee\u212aly", "weekly", "nothing", "said", "so",
])  # fmt: skip
_SENTENCE = st.lists(_WORDS, min_size=4, max_size=12)


@st.composite
def _texts_and_evidence(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A text, and evidence holding other sentences and the text's own with one word replaced
    (so that the rule has something to find about as often as not)."""
    text = draw(st.lists(_SENTENCE, min_size=1, max_size=3))
    evidence = [" ".join(s) + "." for s in draw(st.lists(_SENTENCE, max_size=3))]
    mine = list(draw(st.sampled_from(text)))
    mine[draw(st.integers(0, len(mine) - 1))] = draw(_WORDS)
    evidence.insert(draw(st.integers(0, len(evidence))), " ".join(mine) + ".")
    return " ".join(" ".join(s) + "." for s in text), evidence


@settings(max_examples=500, deadline=None)
@given(_texts_and_evidence())
def test_skipping_texts_with_no_word_said_otherwise_changes_no_finding(
    case: tuple[str, list[str]],
) -> None:
    # the pre-check only skips texts in which the full reading finds nothing
    text, evidence = case
    plain = undo_ptb(text)
    if not _may_swap(plain, evidence):
        assert _read_swap(plain, evidence) is None
        assert swap_conflict(text, evidence) is None


def test_the_pre_check_lets_through_each_pair_the_rule_reads() -> None:
    assert _may_swap("The gym is open on Sundays.", ["The gym is CLOSED on Sundays."])
    assert _may_swap("It runs weekly.", ["It runs monthly."])
    assert not _may_swap("The gym is open on Sundays.", ["The gym opens at 8am on Sundays."])
    assert not _may_swap("The film was released in 2003.", PAGES)
