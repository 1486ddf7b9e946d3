from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from favakit.inference.polarity_check import (
    closed_clause,
    denied_words,
    denying_clause,
    exception_clause,
    list_members,
    no_effect_clause,
    none_clause,
    polarity_conflict,
    statement_denial,
)

WARRANTY = (
    "All furniture comes with a two-year warranty against manufacturing defects. The warranty "
    "does not cover damage caused by misuse, normal wear and tear, or items bought from the "
    "clearance section."
)


def test_a_statement_the_evidence_denies_in_its_own_words_is_contradicted() -> None:
    found = polarity_conflict("The warranty covers damage caused by normal wear and tear.",
                              [WARRANTY])  # fmt: skip
    assert found is not None
    assert found.clause.startswith("The warranty does not cover damage caused by misuse")
    assert found.note().startswith(
        "statement denied: the text says 'The warranty covers damage caused by normal wear and "
        "tear.' where the evidence says 'The warranty does not cover"
    )
    # the words may come in another order and form: "covered" is "cover"
    assert polarity_conflict("Items bought from the clearance section are covered by the warranty.",
                             [WARRANTY]) is not None  # fmt: skip
    assert polarity_conflict("Humans are the preferred prey of the great white shark.",
                             ["Humans are not the preferred prey of the great white shark."])  # fmt: skip


def test_what_the_evidence_does_not_deny_is_left_to_the_model() -> None:
    # the evidence's own statement, and one its denial does not govern
    assert polarity_conflict(
        "All furniture comes with a two-year warranty against manufacturing defects.", [WARRANTY]
    ) is None  # fmt: skip
    winter = ["Winter is the coldest season of the year in polar and temperate zones (winter does "
              "not occur in the tropical zone)."]  # fmt: skip
    assert polarity_conflict("Winter is the coldest season in temperate zones.", winter) is None
    # a text that is negated or denies by its words is the model's to read
    assert (
        polarity_conflict("The warranty does not cover normal wear and tear.", [WARRANTY]) is None
    )
    assert polarity_conflict(
        "The Home Library Service is for residents who cannot visit a branch.",
        ["The library runs a Home Library Service for residents who cannot visit a branch "
         "because of illness."]) is None  # fmt: skip
    assert polarity_conflict("The authorities have found no evidence of poison.",
                             ["The authorities have not found any evidence of poison."]) is None  # fmt: skip
    # "not only", "no longer": not a denial of the statement
    assert denying_clause("She wrote novels and poems.",
                          "She wrote not only novels but also poems.") is None  # fmt: skip
    assert denying_clause("Yugoslavia was part of the group.",
                          "Yugoslavia is no longer part of the group.") is None  # fmt: skip
    # a denial that leaves two of the text's words out says something else, unless they are
    # the text's own restriction and the denial has none (the next test)
    assert denying_clause("The warranty covers damage caused by manufacturing defects.",
                          WARRANTY.split(". ")[1]) is None  # fmt: skip
    # a denial restricted by words of its own ("in Japan") does not deny another restriction
    assert denying_clause("The new model was released in the United States in 2010.",
                          "The new model was not released in Japan.") is None  # fmt: skip
    assert denying_clause("The new model was released in the United States in 2010.",
                          "The new model was not released.") is not None  # fmt: skip
    # a denial inside a relative clause is that clause's
    assert polarity_conflict("An all-seater stadium is a stadium.",
                             ["A stadium that is not an all-seater has areas for attendees to "
                              "stand."]) is None  # fmt: skip
    # a clause, not a list: "In 1990, he moved to Paris and London"
    assert denying_clause("In 1990, the band moved to Paris and London.",
                          "The band did not move to Paris.") is None  # fmt: skip


def test_a_denial_covers_the_text_s_restriction_and_each_member_of_its_list() -> None:
    # the denial is read in any evidence sentence, not only the one sharing the most words
    returns = ("Customers may return most items within 30 days of delivery for a full refund. "
               "Gift cards, perishable food and personalised items cannot be returned. Return "
               "shipping is free for members of the Plus programme.")  # fmt: skip
    # "cannot be returned" denies "can be returned within 30 days" as well
    found = polarity_conflict("Perishable food can be returned within 30 days.", [returns])
    assert found is not None and found.clause.startswith("Gift cards, perishable food")
    assert polarity_conflict("Gift cards and personalised items can't be returned.",
                             [returns]) is None  # fmt: skip
    delivery = ("We deliver to England, Scotland and Wales. We do not deliver to Northern Ireland, "
                "the Channel Islands or outside the UK.")  # fmt: skip
    # one member of the text's list is denied; the clause a sentence negates is left alone
    found = polarity_conflict(
        "We deliver to England, Scotland, Wales and Northern Ireland, but not to the Channel "
        "Islands.", [delivery])  # fmt: skip
    assert found is not None and found.clause.startswith("We do not deliver to Northern Ireland")
    assert polarity_conflict("We deliver to England, Scotland and Wales, but not to the Channel "
                             "Islands.", [delivery]) is None  # fmt: skip


FINES = ("Adult books returned late are charged 25p a day. There are no late charges on "
         "children's books or on items borrowed with a Silver card.")  # fmt: skip


def test_a_thing_the_evidence_says_there_is_none_of_is_denied() -> None:
    found = polarity_conflict("Children's books are charged 10p a day when they are returned late.",
                              [FINES])  # fmt: skip
    assert found is not None
    assert found.clause == ("There are no late charges on children's books or on items borrowed "
                            "with a Silver card")  # fmt: skip
    # each member of what it is denied for
    assert none_clause("Items borrowed with a Silver card are charged late fees.", FINES)
    # another member, a claim that says it is free, or a thing the claim does not name
    assert none_clause("Adult books are charged 25p a day when returned late.", FINES) is None
    assert none_clause("Children's books are free of late charges.", FINES) is None
    assert none_clause("Children's books can be borrowed for three weeks.", FINES) is None
    assert none_clause("He had two children with his second wife.",
                       "He had no children with his first wife.") is None  # fmt: skip


HOURS = [
    "Branch: Central; Weekdays: 9am to 8pm; Sunday: 11am to 4pm. Branch: Millbrook; Weekdays: "
    "1pm to 6pm; Saturday: 10am to 1pm; Sunday: closed. Millbrook is closed on Wednesdays."
]


def test_open_on_a_day_the_evidence_says_closed_is_denied() -> None:
    found = polarity_conflict(
        "Millbrook is open from 1pm to 6pm on weekdays, and it is also open on Sundays.", HOURS
    )
    assert found is not None and found.clause.endswith("Sunday: closed")
    assert closed_clause("Millbrook is open on Wednesdays.", HOURS[0]) is not None
    # a day it is open, another branch's row, a text that says closed: left to the model
    assert closed_clause("Millbrook is open on Saturdays from 10am to 1pm.", HOURS[0]) is None
    assert closed_clause("Central is open on Sundays from 11am.",
                         "Branch: Millbrook; Sunday: closed.") is None  # fmt: skip
    assert closed_clause("Millbrook is not open on Sundays.", HOURS[0]) is None


def test_an_exception_the_evidence_refuses_with_even_is_denied() -> None:
    page = ("If you cancel less than two hours before a class, you are charged £4, even with full "
            "membership.")  # fmt: skip
    text = ("If you cancel a class less than two hours before it starts, you are charged £4, "
            "unless you have full membership.")  # fmt: skip
    found = polarity_conflict(text, [page])
    assert found is not None and found.clause.endswith("even with full membership")
    # another exception, or an "even" about another statement
    assert exception_clause(text.replace("full membership", "a student card"), page) is None
    assert exception_clause("Parking is free unless you have full membership.", page) is None


def test_a_lists_members_and_the_ones_a_denial_names() -> None:
    from favakit.inference.polarity_check import denied_members, list_members

    text = "Larkspur Bikes has stations, with docks in the city centre, the harbour district and Old Town."
    assert [[text[a:b] for a, b in m] for m in list_members(text)] == [
        ["city centre", "the harbour district", "Old Town"]
    ]
    found = denied_members(text, "There are no stations in Old Town, where cycling is not allowed")
    assert [text[a:b] for a, b in found] == ["Old Town"]
    deliver = "We deliver to England, Scotland, Wales and Northern Ireland."
    denial = "We do not deliver to Northern Ireland, the Channel Islands or outside the UK"
    assert [deliver[a:b] for a, b in denied_members(deliver, denial)] == ["Northern Ireland"]
    # a denial of every member, or of none, locates nothing; nor does a sentence without a list
    assert (
        denied_members("It sells apples, pears and plums.", "It sells no apples, pears or plums")
        == []
    )
    assert denied_members(deliver, "We do not deliver to the Channel Islands") == []
    assert denied_members("We deliver to England.", denial) == []


def test_a_list_member_the_evidence_says_is_not_supported_is_denied() -> None:
    from favakit.inference.polarity_check import unoffered_member_clause

    page = "Tidewater is a command-line backup tool. It runs on Linux and macOS. Windows is not supported."
    text = "Tidewater is a command-line backup tool that runs on Linux, macOS and Windows."
    found = polarity_conflict(text, [page])
    assert found is not None and found.clause == "Windows is not supported"
    assert (
        unoffered_member_clause(text, "Windows isn't supported.", page) == "Windows isn't supported"
    )
    # the list as the page gives it; a passage that names no other member; a negated text
    assert (
        polarity_conflict(
            "Tidewater is a command-line backup tool that runs on Linux and macOS.", [page]
        )
        is None
    )
    assert (
        unoffered_member_clause(text, "Windows is not supported.", "Windows is not supported.")
        is None
    )
    assert (
        unoffered_member_clause(
            "It does not run on Linux, macOS or Windows.", "Windows is not supported.", page
        )
        is None
    )


def test_a_purpose_the_text_opens_with_and_one_modifier_do_not_keep_a_denial_out() -> None:
    pages = ["Only snapshots older than the keep limit are deleted. Tidewater never deletes files "
             "from the source."]  # fmt: skip
    text = "To save space, Tidewater deletes old files from the source after each backup."
    found = polarity_conflict(text, pages)
    assert found is not None and found.clause == "Tidewater never deletes files from the source"
    assert polarity_conflict("Tidewater deletes old files from the source.", pages) is not None
    # two words of its own before the restriction, or the statement made the other way: no denial
    assert polarity_conflict("Tidewater deletes large old files from the source.", pages) is None
    assert (
        polarity_conflict("To save space, Tidewater keeps old files in the source.", pages) is None
    )


def test_a_denial_of_any_place_denies_a_claim_of_one_place() -> None:
    rules = ["No. Smoking, including e-cigarettes, is not allowed anywhere on the ships."]
    found = polarity_conflict("Smoking is allowed on the outside decks.", rules)
    assert found is not None and found.clause.endswith("is not allowed anywhere on the ships")
    assert polarity_conflict("Smoking is allowed in the bar, but not in the cabins.", rules)
    # another statement, or a denial of one place only, is not denied so
    assert polarity_conflict("Dogs are allowed on the outside decks.", rules) is None
    assert polarity_conflict("Smoking is allowed on the outside decks.",
                             ["Smoking is not allowed in the cabins."]) is None  # fmt: skip


def test_a_statement_before_its_with_adjunct_is_read_alone() -> None:
    """The adjunct ", with 61% of patients seen ..." adds detail the denial does not hold: the statement
    before it is read on its own against "did not improve"."""
    report = ["Waiting times in emergency care did not improve. Only 61% of patients were seen "
              "within four hours in August, against a national target of 78%."]  # fmt: skip
    text = ("Emergency waiting times also improved, with 61% of patients seen within four hours "
            "in August against a national target of 78%.")  # fmt: skip
    found = polarity_conflict(text, report)
    assert found is not None and found.clause.startswith("Waiting times in emergency care")
    assert polarity_conflict(text.replace("also improved", "did not improve"), report) is None


def test_a_change_the_evidence_finds_no_effect_on_is_denied() -> None:
    study = ["The researchers did not find any effect on the survival of worker bees. Exposed "
             "colonies produced 27% fewer new queens, and the fungicide may disturb the bees' "
             "gut bacteria."]  # fmt: skip
    text = "The fungicide disturbs the bees' gut bacteria, which also reduced the survival of worker bees."
    found = polarity_conflict(text, study)
    assert (
        found is not None and found.clause == "not find any effect on the survival of worker bees"
    )
    assert no_effect_clause("Exposure reduced the survival of worker bees.", study[0]) is not None
    # a change of something else, or a denied change, is not read
    assert no_effect_clause("Exposure reduced the number of new queens.", study[0]) is None
    assert (
        no_effect_clause("Exposure did not reduce the survival of worker bees.", study[0]) is None
    )


def test_no_effect_of_a_named_cause_on_a_thing_is_read() -> None:
    """ "no effect *of the nap* on how well volunteers slept": the cause between "effect" and
    "on" (up to four words) does not hide what the evidence finds no effect on."""
    sentence = ("The study did not find any effect of the nap on how well volunteers slept the "
                "following night.")  # fmt: skip
    claim = "The nap also improved how well volunteers slept the following night."
    assert no_effect_clause(claim, sentence) == (
        "not find any effect of the nap on how well volunteers slept the following night"
    )
    assert no_effect_clause("The nap improved recall of the word pairs.", sentence) is None


def test_an_instruction_the_evidence_forbids_is_denied_at_its_words() -> None:
    """ "You should take a double dose if you have missed one." against "Do not take a double
    dose to make up for a forgotten one.": whom an instruction is told to ("you") and the "if"
    of its condition are not words the denial must repeat; the flag goes at the words the
    denial negates, with the auxiliary that says them."""
    leaflet = ["If you forget a dose, take it as soon as you remember. Do not take a double dose "
               "to make up for a forgotten one."]  # fmt: skip
    text = "You should take a double dose if you have missed one."
    found = polarity_conflict(text, leaflet)
    assert found is not None and found.clause.startswith("Do not take a double dose")
    assert polarity_conflict("You should not take a double dose.", leaflet) is None
    span = denied_words(text, found.clause)
    assert span is not None and text[span[0] : span[1]] == "should take a double dose"
    # fewer than three words in a row in common, or words the negation does not govern: none
    assert denied_words("You should take two tablets.", found.clause) is None
    study = "The study did not find any effect of the nap on how well volunteers slept"
    assert denied_words("The nap improved how well volunteers slept.", study) is None


def test_a_list_member_the_evidence_says_is_not_affected_is_denied() -> None:
    """ "kettles in black, silver and white with batch numbers ..." against "Kettles in white
    are not affected": the list's last member ends before the stopword after it ("white", not
    "white with")."""
    notice = ["The recall covers kettles in black and silver with batch numbers from 2503 to "
              "2601. Kettles in white are not affected, as they use a different handle."]  # fmt: skip
    text = (
        "The recall covers kettles in black, silver and white with batch numbers from 2503 to 2601."
    )
    found = polarity_conflict(text, notice)
    assert found is not None and found.clause == "Kettles in white are not affected"
    assert [[text[a:b] for a, b in m] for m in list_members(text)] == [["black", "silver", "white"]]
    assert polarity_conflict(text.replace(", silver and white", " and silver"), notice) is None


def test_a_bare_denial_denies_the_thing_or_state_it_names() -> None:
    """A record's false value said as a statement ("No lift.", "Not in stock.", "Pets not
    allowed.": favakit.json_evidence) shares too few words with a sentence to be its match; it
    denies a sentence that says the thing or state in its words (session 53)."""
    record = ["Type: flat.\nNo lift.\nNot in stock.\nBills not included.\nFurnished.\nNo food."]
    lift = polarity_conflict("The flat is on the third floor of a building with a lift.", record)
    assert lift is not None and (lift.clause, lift.bare) == ("No lift", True)
    assert statement_denial("It is in stock now", "Not in stock.") == "Not in stock"
    assert statement_denial("with bills included in the rent", "Bills not included.") == (
        "Bills not included")  # fmt: skip
    assert statement_denial("the flat comes unfurnished", "Furnished.") == "Furnished"
    # what the sentence says itself negated, in the future or under a condition, is the model's
    assert polarity_conflict("Bills are not included.", record) is None
    assert (
        statement_denial("The drill is expected back in stock in January", "Not in stock.") is None
    )
    assert statement_denial("It will be in stock soon", "Not in stock.") is None
    # a denial that is no bare statement of a thing: "Poetry will not be judged."
    assert statement_denial("Poetry is judged by a panel", "Poetry will not be.") is None
    assert statement_denial("The flat has a garden", "No lift.") is None
    # where the sentence says it: the denied thing's words
    sentence = "It costs £129 and is in stock now."
    at = denied_words(sentence, "Not in stock")
    assert at is not None and sentence[at[0] : at[1]] == "stock"
    comes = "The flat comes unfurnished."
    at = denied_words(comes, "Furnished")
    assert at is not None and comes[at[0] : at[1]] == "unfurnished"


_STEM_WORDS = ["cove", "cover", "covers", "covered", "cov", "coverage", "cat", "cats", "catalog",
               "return", "returns", "returne", "retu", "preferr", "prefer", "zone", "zones"]  # fmt: skip


@given(st.sets(st.sampled_from(_STEM_WORDS), max_size=12),
       st.lists(st.sampled_from(_STEM_WORDS), max_size=20))  # fmt: skip
def test_covered_looks_up_what_comparing_every_pair_finds(
    words: set[str], theirs: list[str]
) -> None:
    """:func:`_covered` (looked up) agrees with comparing each pair (:func:`_same`)."""
    from favakit.inference.polarity_check import _covered, _same

    assert _covered(words, theirs) == {w for w in words if any(_same(w, t) for t in theirs)}


@given(st.lists(st.sampled_from(["Bags ", "aren't ", "not", "'ll ", "allowed", " on ", "deck",
                                 "s ", "x", "'", " ", "never-", "cannot ", "ships."]),
                max_size=14).map("".join))  # fmt: skip
def test_a_clauses_stems_after_any_character_are_those_of_its_rest(clause: str) -> None:
    from favakit.inference.polarity_check import _ClauseStems, _stems

    read = _ClauseStems(clause)
    assert read.stems == _stems(clause)
    for at in range(len(clause) + 1):
        assert read.after(at) == _stems(clause[at:])


def test_a_negation_with_a_curly_apostrophe_is_a_negation() -> None:
    """Text written by language models often has "wasn’t" (U+2019): the rule read it as no
    negation and denied the same statement the evidence makes with "wasn't" or "did not"."""
    from favakit.inference.year_check import negated

    for text, evidence in [
        ("The board said the search wasn\u2019t inclusive enough.",
         "The board said the search wasn't inclusive enough."),
        ("The board said the search didn\u2019t go far enough.",
         "The board said the search did not go far enough."),
    ]:  # fmt: skip
        assert polarity_conflict(text, [evidence]) is None, text
    assert negated("It wasn\u2019t built in 1990.") and negated("It wasn't built in 1990.")
    denied = polarity_conflict("The board said the search went far enough.",
                               ["The board said the search didn\u2019t go far enough."])  # fmt: skip
    assert denied is not None  # and the evidence's curly negation still denies
