"""Checker-gated editing: the gate's rule on explicit scores (pure), and end to end with a real
checker over the shipped encoder detector in tests/training/test_checker.py."""

from __future__ import annotations

import pytest

from favakit.contracts import EditResult, EditSpan
from favakit.inference.gate import gate_result
from favakit.inference.gate_words import unsupported_words
from favakit.text import sentence_spans

TEXT = "Curie was born in Warsaw in 1867. She won the Nobel Prize in 1921, and a medal."


def _result() -> EditResult:
    return {
        "original": TEXT,
        "corrected": "(the editor's own)",
        "edits": [
            {"type": "entity", "start": 18, "end": 24, "wrong": "Warsaw", "right": "Paris"},
            {"type": "entity", "start": 61, "end": 65, "wrong": "1921", "right": "1911"},
            {"type": "invented", "start": 65, "end": 78, "wrong": ", and a medal", "right": ""},
        ],
        "warnings": ["from the editor"],
    }


def test_edits_in_supported_sentences_are_dropped_and_the_text_made_again() -> None:
    sentences = sentence_spans(TEXT)
    assert len(sentences) == 2
    gated = gate_result(_result(), sentences, [0.9, 0.2], threshold=0.5)
    # the first sentence is supported: it comes back exactly as it was
    assert (
        gated["corrected"] == "Curie was born in Warsaw in 1867. She won the Nobel Prize in 1911."
    )
    assert [e["wrong"] for e in gated["edits"]] == ["1921", ", and a medal"]
    assert all(e["checker_score"] == 0.2 for e in gated["edits"])
    assert gated["warnings"] == [
        "from the editor",
        "1 of 2 sentence(s) supported by the evidence were left as they are (1 proposed edit(s) "
        "dropped)",
    ]


def test_nothing_supported_keeps_every_edit_and_everything_supported_keeps_none() -> None:
    sentences = sentence_spans(TEXT)
    kept = gate_result(_result(), sentences, [0.1, 0.2], threshold=0.5)
    assert len(kept["edits"]) == 3 and kept["warnings"] == ["from the editor"]
    assert kept["corrected"] == "Curie was born in Paris in 1867. She won the Nobel Prize in 1911."
    none = gate_result(_result(), sentences, [0.8, 0.7], threshold=0.5)
    assert none["edits"] == [] and none["corrected"] == TEXT


EVIDENCE = [
    {"title": "Marie Curie", "text": "Marie Curie was born in Warsaw in 1867. She died in 1934."},
    {"title": "Nobel Prize", "text": "In 1911 Curie won the Nobel Prize in Chemistry, alone."},
]


def test_an_unsupported_sentence_without_edits_is_flagged_and_left_unchanged() -> None:
    text = "Curie was born in Warsaw in 1867. She won the Nobel Prize in Chemistry in Oslo."
    result: EditResult = {"original": text, "corrected": text, "edits": [], "evidence": EVIDENCE}
    sentences = sentence_spans(text)
    # by default at the words the evidence never uses: here the year
    gated = gate_result(result, sentences, [0.9, 0.1], threshold=0.5)
    assert gated["corrected"] == text  # a flag changes nothing
    [flag] = gated["edits"]
    assert (
        flag["flagged"]
        and flag["wrong"] == flag["right"] == "Oslo" == text[flag["start"] : flag["end"]]
    )
    # it cites what its sentence rests on, as a whole-sentence flag does
    assert flag["cites"]["sentence"] == "In 1911 Curie won the Nobel Prize in Chemistry, alone."
    assert gated["warnings"][-1] == (
        "1 sentence(s) the evidence does not support were flagged with no fix (1 at the words the "
        "evidence does not back)"
    )
    gated = gate_result(result, sentences, [0.9, 0.1], threshold=0.5, flags="sentences")
    assert gated["corrected"] == text
    [flag] = gated["edits"]
    assert flag["flagged"] and flag["type"] == "unverifiable" and flag["checker_score"] == 0.1
    assert text[flag["start"] : flag["end"]] == flag["wrong"] == flag["right"]
    assert flag["wrong"].startswith("She won") and flag["wrong"].endswith("Oslo.")
    assert flag["cites"] == {"passage": 1, "title": "Nobel Prize",
                             "sentence": "In 1911 Curie won the Nobel Prize in Chemistry, alone."}  # fmt: skip
    assert (
        gated["warnings"][-1]
        == "1 sentence(s) the evidence does not support were flagged with no fix"
    )
    assert gate_result(result, sentences, [0.9, 0.1], 0.5, flag_unsupported=False)["edits"] == []
    with pytest.raises(ValueError, match="words, sentences"):
        gate_result(result, sentences, [0.9, 0.1], 0.5, flags="tokens")


def test_unsupported_words_are_the_content_words_the_evidence_never_uses() -> None:
    evidence = [{"text": "Marie Curie's members moved to Paris. She studied physics."}]

    def words(sentence: str) -> list[str]:
        return [sentence[a:b] for a, b in unsupported_words(sentence, (0, len(sentence)), evidence)]

    # compared without case, a possessive 's or a plural, past or -ing ending: "Curie" is
    # "Curie's", "study" is "studied", "moving" is "moved"; stop words never count ("the", "in")
    assert words("The member Curie was moving to study in Paris.") == []
    # neighbours join into one span; words apart stay apart
    assert words("Curie moved to Lisbon, Portugal in 1950.") == ["Lisbon, Portugal", "1950"]
    assert words("Curie studied chemistry and biology.") == ["chemistry", "biology"]
    # a number is one word with its separators: "9,000" is not "9" beside the evidence's "000"
    counted = [{"text": "Curie had 1,000 members in 1.5 days."}]
    said = "Curie had 9,000 members in 1.5 days."
    assert [said[a:b] for a, b in unsupported_words(said, (0, len(said)), counted)] == ["9,000"]
    # an ordinal from "third" on is its number: "the fifth year" uses "five years"
    rowing = [{"text": "Her crew have won the event five years in a row."}]
    row = "Her crew won the event for the fifth year in a row."
    assert [row[a:b] for a, b in unsupported_words(row, (0, len(row)), rowing)] == []
    sixth = row.replace("fifth", "sixth")
    assert [sixth[a:b] for a, b in unsupported_words(sixth, (0, len(sixth)), rowing)] == ["sixth"]
    # a negation or a swapped relation uses only the evidence's words: nothing to narrow to
    assert words("Curie has not studied physics.") == []
    assert words("She studied physics before Paris.") == []
    # a citation mark's number is not a word of the sentence: no flag at "[1]"
    assert words("Curie studied physics [1][2].") == []
    assert words("Curie moved to Lisbon [1][2] in Portugal [3].") == ["Lisbon", "Portugal"]
    # only the sentence asked about is read
    text = "Curie moved to Lisbon. She studied physics in Rome."
    b = text.index("She")
    assert [text[s:e] for s, e in unsupported_words(text, (b, len(text)), evidence)] == ["Rome"]


def test_a_flag_is_never_placed_at_a_citation_mark() -> None:
    from favakit.inference.gate_words import narrowed_flag

    text = "Apollo 11 launched from Cape Kennedy in Texas [1][2]."
    evidence = [{"text": "Apollo 11 launched from Kennedy Space Center in Florida."}]
    flag = {"type": "relation", "start": 0, "end": len(text), "wrong": text, "right": text}
    marked = [(text.index("Texas"), text.index("[2]") + 2)]  # a token head's "Texas [1][2"
    got = narrowed_flag(flag, text, evidence, marked)  # type: ignore[arg-type]
    assert [e["wrong"] for e in got] == ["Cape", "Texas"]


def test_an_edit_cites_the_evidence_sentence_that_holds_its_fix() -> None:
    from favakit.inference.gate import cite

    # the fix "1934" is in the first passage's second sentence, though the closest sentence by
    # words is the first one
    assert cite("Marie Curie was born in Warsaw and died in 1930.", "1934", EVIDENCE) == {
        "passage": 0, "title": "Marie Curie", "sentence": "She died in 1934."}  # fmt: skip
    # no fix (a deletion, a flag): the evidence sentence sharing the most content words
    assert cite("Curie won the Nobel Prize in Physics.", "", EVIDENCE)["passage"] == 1  # type: ignore[index]
    # a fragment of a number is not the number: "14" is not in "1934"
    assert cite("She died in 14.", "14", EVIDENCE)["sentence"] == "She died in 1934."  # type: ignore[index]
    assert cite("Bananas are yellow.", "green", EVIDENCE) is None


def test_a_lower_cased_source_is_cited_by_its_sentence_not_whole() -> None:
    from favakit.inference.gate import cite

    # FActScore's knowledge source is lower-cased: a passage is cited by its sentence, as others
    body = ("lanny flaherty ( july 27, 1942 \u2013 february 18, 2024 ) was an american actor. "
            "= = life and career = = flaherty had roles in films such as lonesome dove. "
            "he resided in new york city.")  # fmt: skip
    found = cite("He resided in Boston city.", "", [{"title": "Lanny Flaherty", "text": body}])
    assert found == {"passage": 0, "title": "Lanny Flaherty",
                     "sentence": "he resided in new york city."}  # fmt: skip
    fixed = cite("Flaherty was born in 1949.", "july 27, 1942", [{"text": body}])
    assert fixed == {"passage": 0, "sentence": body[: body.index(" = =")]}


def test_a_deletion_cites_the_article_the_text_draws_on_not_a_word_in_passing() -> None:
    from favakit.inference.gate import cite

    # retrieved for a text about Everest, least relevant first (as favakit edit orders them)
    evidence = [
        {"title": "Pacific Ocean", "text": "It stretches from the Arctic Ocean in the north to "
         "the Southern Ocean in the south, between Asia and Australia on the west."},
        {"title": "Mount Everest", "text": "Mount Everest lies in the Himalayas. Edmund Hillary "
         "of New Zealand and Tenzing Norgay made the first confirmed ascent in 1953."},
    ]  # fmt: skip
    text = "Mount Everest is in the Himalayas, first climbed in 1953. Hillary was from Australia."
    found = cite("Hillary was from Australia.", "", evidence, context=text)
    assert found is not None and found["title"] == "Mount Everest"
    assert found["sentence"].startswith("Edmund Hillary of New Zealand")
    # in either order: "from" is not what the sentence is about, and the text settles the tie
    # between "Hillary" and "Australia"
    assert cite("Hillary was from Australia.", "", evidence[::-1], text) == {**found, "passage": 0}


def test_a_deletion_cites_the_subjects_own_article_over_words_another_shares() -> None:
    """``make demo``'s invented sentence cited Newton's article for sharing "Royal Society"."""
    from favakit.inference.gate import cite

    evidence = [
        {"title": "Albert Einstein", "text": "Albert Einstein was a theoretical physicist. He "
         "received the 1921 Nobel Prize in Physics."},
        {"title": "Isaac Newton", "text": "He was president of the Royal Society from 1703."},
    ]  # fmt: skip
    invented = "In 1925 he was also awarded a medal by the Royal Society of Basel."
    text = "Albert Einstein was born in Ulm. " + invented
    found = cite(invented, "", evidence, context=text)
    assert found is not None and found["title"] == "Albert Einstein"
    # a topic given for the request names the subject as well; without one, the article the
    # text names; without either, words decide
    assert cite(invented, "", evidence, text, subject="Albert Einstein") == found
    assert cite(invented, "", evidence, text, subject="") == found
    by_words = cite(invented, "", evidence, invented, subject="")
    assert by_words is not None and by_words["title"] == "Isaac Newton"
    # a fix the evidence holds is cited where it is, whoever's article that is
    fixed = cite(invented, "1703", evidence, context=text)
    assert fixed is not None and fixed["title"] == "Isaac Newton"
    # a sentence sharing no content word with the subject's article still cites it, not a
    # sentence of another article for a word such as "also"
    rowing = "He also won an Olympic gold medal in rowing."
    evidence[1]["text"] = "Newton also built the first practical reflecting telescope."
    found = cite(rowing, "", evidence, "Albert Einstein was born in Ulm. " + rowing)
    assert found is not None and found["sentence"] == "Albert Einstein was a theoretical physicist."
    assert cite(rowing, "", evidence, rowing, subject="") == {
        "passage": 1, "sentence": evidence[1]["text"], "title": "Isaac Newton"}  # fmt: skip


def _gated_death_year() -> EditResult:
    """A wrong year in an unsupported second sentence, fixed by the editor, gated."""
    text = "Curie was born in Warsaw in 1867. She died in 1930."
    result: EditResult = {
        "original": text, "corrected": text, "evidence": EVIDENCE,
        "edits": [{"type": "entity", "start": 46, "end": 50, "wrong": "1930", "right": "1934"}],
    }  # fmt: skip
    return gate_result(result, sentence_spans(text), [0.9, 0.2], threshold=0.5)


def test_kept_edits_carry_their_citation() -> None:
    gated = _gated_death_year()
    assert gated["corrected"] == "Curie was born in Warsaw in 1867. She died in 1934."
    assert gated["edits"][0]["cites"]["sentence"] == "She died in 1934."


def test_the_views_show_what_each_edit_rests_on() -> None:
    from favakit.inference.views import html_page, plain

    gated = _gated_death_year()
    shown = plain(gated)
    assert "[entity: 1930 -> 1934]" in shown
    assert "evidence for '1930': [Marie Curie] She died in 1934. (P(supported) 0.20)" in shown
    assert "evidence: [Marie Curie] She died in 1934." in html_page([gated])


def test_the_summary_counts_flags_apart_from_edits() -> None:
    from favakit.inference.views import summary

    text = "Curie was born in Warsaw in 1867. She won the Nobel Prize in Chemistry in Oslo."
    result: EditResult = {"original": text, "corrected": text, "edits": [], "evidence": EVIDENCE}
    flagged = gate_result(result, sentence_spans(text), [0.9, 0.1], threshold=0.5)
    assert summary([_gated_death_year(), flagged]) == (
        "2 text(s), 1 edit(s) (entity 1), 1 flagged with no fix (unverifiable 1); 0 not "
        "reproduced faithfully"
    )
    assert summary([result]) == "1 text(s), 0 edit(s) (none); 0 not reproduced faithfully"


def test_a_fix_comes_from_the_evidence_or_becomes_a_flag() -> None:
    from favakit.inference.gate import grounded_fix

    evidence = [{"title": "Albert Einstein", "text": "Albert Einstein was born in Ulm in 1879. "
                 "He died in Princeton in 1955."}]  # fmt: skip
    sentence = "Einstein was born in Ulm in 1979."

    def edit(wrong: str, right: str) -> EditSpan:
        start = sentence.index(wrong)
        return {
            "type": "entity",
            "start": start,
            "end": start + len(wrong),
            "wrong": wrong,
            "right": right,
        }

    # the editor's fragment "14" is not in the evidence: the aligned evidence number replaces it
    assert grounded_fix(edit("1979", "14"), sentence, evidence)["right"] == "1879"
    # a fix the evidence holds stays as it is
    assert grounded_fix(edit("1979", "1879"), sentence, evidence)["right"] == "1879"
    # a number the evidence gives only inside a longer one, away from the sentence's closest
    # evidence sentence, is no fix (session 53: "312 reviews" -> "4" of "4.5 stars")
    cafe = [{"title": "", "text": "The cafe is on Mill Lane. It has 4.5 stars."}]
    reviews = "The cafe on Mill Lane has 312 reviews."
    fragment = {"type": "entity", "start": 26, "end": 29, "wrong": "312", "right": "4"}
    held = grounded_fix(fragment, reviews, cafe)  # type: ignore[arg-type]
    assert held["flagged"] and held["right"] == "312"
    # a number of another statement (his death's year), not of the sentence the text says, is
    # no fix: a flag (session 47)
    death = grounded_fix(edit("1979", "1955"), sentence, evidence)
    assert death["flagged"] and death["right"] == "1979"
    # ... where the sentence the text says is about the number's words: in a sentence joining
    # two statements, the number's own statement may be another evidence sentence
    fares = [{"title": "fares", "text": "Children under 5 travel free. Residents of Keel and "
              "Marrow pay half the adult fare with a resident's card."}]  # fmt: skip
    joined = ("Children under 12 travel free, and residents of Keel and Marrow pay half the adult "
              "fare with a resident's card.")  # fmt: skip
    under = {"type": "entity", "start": 15, "end": 17, "wrong": "12", "right": "5"}
    assert grounded_fix(under, joined, fares)["right"] == "5"  # type: ignore[arg-type]
    # a fix of words the evidence does not have becomes a flag: no fix offered
    lyon = grounded_fix(edit("Ulm", "Lyon"), sentence, evidence)
    assert lyon["flagged"] and lyon["right"] == "Ulm"
    # deletions stay deletions
    assert grounded_fix(edit(" in Ulm", ""), sentence, evidence)["right"] == ""
    # words any text holds ("in", "He") ground no fix: a content word or a number must be there
    subject = grounded_fix(edit("Einstein", "He"), sentence, evidence)
    assert subject["flagged"] and subject["right"] == "Einstein"
    assert grounded_fix(edit("Einstein", "Albert Einstein"), sentence, evidence)["right"] == (
        "Albert Einstein")  # fmt: skip
    # a word the editor capitalised in mid-sentence is written as the evidence writes it
    books = [{"title": "", "text": "She wrote three books. Three of them were novels."}]
    wrote = "She wrote four books."
    four = {"type": "entity", "start": 10, "end": 14, "wrong": "four", "right": "Three"}
    assert grounded_fix(four, wrote, books)["right"] == "three"  # type: ignore[arg-type]
    # ... not a name, which the evidence capitalises
    assert grounded_fix(edit("was", "Ulm"), sentence, evidence)["right"] == "Ulm"
    assert grounded_fix(edit("in Ulm", "In Ulm"), sentence, evidence)["right"] == "in Ulm"


def test_the_gate_grounds_every_kept_fix() -> None:
    text = "Einstein was born in Ulm in 1979. He died in Princeton in 1955."
    evidence = [{"title": "Albert Einstein", "text": "Albert Einstein was born in Ulm in 1879. "
                 "He died in Princeton in 1955."}]  # fmt: skip
    result: EditResult = {
        "original": text, "corrected": text, "evidence": evidence,
        "edits": [{"type": "entity", "start": 28, "end": 32, "wrong": "1979", "right": "14"},
                  {"type": "entity", "start": 45, "end": 54, "wrong": "Princeton", "right": "Bern"}],
    }  # fmt: skip
    gated = gate_result(result, sentence_spans(text), [0.1, 0.9], threshold=0.5)
    # the wrong year is fixed from the evidence; the correct second sentence is left alone
    assert gated["corrected"] == "Einstein was born in Ulm in 1879. He died in Princeton in 1955."
    assert [(e["wrong"], e["right"]) for e in gated["edits"]] == [("1979", "1879")]
    assert gated["edits"][0]["cites"]["sentence"] == "Albert Einstein was born in Ulm in 1879."


def test_an_evidence_swap_survives_a_supported_sentence_when_asked() -> None:
    """keep_evidence_swaps: an edit that replaces words the evidence never has by words it has
    stays even where the checker called the sentence supported; other edits there do not."""
    from favakit.inference.gate import evidence_swap

    text = "Curie was born in Warsaw in 1869. She won the Nobel Prize in 1911, and a medal."
    edits: list[EditSpan] = [
        {"type": "entity", "start": 28, "end": 32, "wrong": "1869", "right": "1867"},
        {"type": "entity", "start": 18, "end": 24, "wrong": "Warsaw", "right": "Paris"},
        {"type": "invented", "start": 65, "end": 78, "wrong": ", and a medal", "right": ""},
    ]
    assert [evidence_swap(e, EVIDENCE) for e in edits] == [True, False, False]
    assert not evidence_swap({**edits[0], "wrong": "1934"}, EVIDENCE)  # the evidence has 1934
    result: EditResult = {"original": text, "corrected": text, "edits": edits, "evidence": EVIDENCE}
    scores = [0.9, 0.9]  # both sentences called supported
    plain = gate_result(result, sentence_spans(text), scores, threshold=0.5)
    assert plain["edits"] == [] and plain["corrected"] == text
    kept = gate_result(result, sentence_spans(text), scores, 0.5, keep_evidence_swaps=True)
    assert [(e["wrong"], e["right"]) for e in kept["edits"]] == [("1869", "1867")]
    assert kept["corrected"] == text.replace("1869", "1867")
    assert kept["edits"][0]["cites"]["sentence"] == "Marie Curie was born in Warsaw in 1867."


def test_a_deletion_that_leaves_a_remnant_takes_the_whole_sentence() -> None:
    """What the editor did to FActScore's Flaherty bio: it deleted all of a sentence but its
    last word, leaving "1970s." on its own. In an unsupported sentence the gate widens such a
    deletion to the whole sentence; a deletion that leaves a clause stands as it is."""
    text = ("Flaherty is an American actor. He has appeared in films and shows, which began in "
            "the late 1970s. He is known for his voice.")  # fmt: skip
    cut = text.index(" 1970s.")
    remnant: EditResult = {"original": text, "corrected": "", "edits": [
        {"type": "invented", "start": text.index("He has"), "end": cut, "wrong": "", "right": ""}]}  # fmt: skip
    remnant["edits"][0]["wrong"] = text[remnant["edits"][0]["start"] : cut]
    gated = gate_result(remnant, sentence_spans(text), [0.9, 0.1, 0.9], threshold=0.5)
    assert gated["corrected"] == "Flaherty is an American actor. He is known for his voice."
    assert gated["edits"][0]["wrong"].endswith("late 1970s.")
    clause = text.index(", which began")
    partial: EditResult = {"original": text, "corrected": "", "edits": [
        {"type": "invented", "start": clause, "end": cut + 6, "wrong": text[clause : cut + 6], "right": ""}]}  # fmt: skip
    kept = gate_result(partial, sentence_spans(text), [0.9, 0.1, 0.9], threshold=0.5)
    assert "He has appeared in films and shows." in kept["corrected"]
    assert "1970s" not in kept["corrected"] and ", ." not in kept["corrected"]


def test_a_deletion_of_a_sentences_opening_words_leaves_no_fragment() -> None:
    """What the shipped editor did to "He is best known for his work on direct current systems.":
    it deleted "He is best known for his work on " and fixed "direct current" -> "alternating
    current", leaving "alternating current systems." on its own. Beside a fix such a deletion is
    dropped; alone, it takes the whole sentence. A deletion ending at a comma leaves a clause."""
    text = ("Tesla worked for Edison. He is best known for his work on direct current systems. "
            "He died in 1943.")  # fmt: skip
    opening, wrong = text.index("He is best"), text.index("direct current")

    def edit(start: int, end: int, right: str) -> EditSpan:
        return {"type": "unverifiable", "start": start, "end": end, "wrong": text[start:end],
                "right": right}  # fmt: skip

    fixed = gate_result({"original": text, "corrected": "", "edits": [
        edit(opening, wrong, ""), edit(wrong, wrong + 14, "alternating current")]},
        sentence_spans(text), [0.9, 0.1, 0.9], threshold=0.5)  # fmt: skip
    assert fixed["corrected"] == (
        "Tesla worked for Edison. He is best known for his work on alternating current systems. "
        "He died in 1943."
    )
    assert [e["wrong"] for e in fixed["edits"]] == ["direct current"]
    assert any("opening words dropped" in w for w in fixed["warnings"])
    # where the sentence's other edit points at nothing (a flag of function words), dropping
    # the deletion leaves the unsupported sentence with no edit: it is flagged, not passed
    nothing = {**edit(opening, opening + 2, "He"), "flagged": True}
    flagged = gate_result({"original": text, "corrected": "", "edits": [
        edit(opening, wrong, ""), nothing]}, sentence_spans(text), [0.9, 0.1, 0.9],
        threshold=0.5)  # fmt: skip
    assert flagged["edits"] and all(e.get("flagged") for e in flagged["edits"])
    assert "direct current systems" in {e["wrong"] for e in flagged["edits"]}
    alone = gate_result({"original": text, "corrected": "", "edits": [edit(opening, wrong, "")]},
                        sentence_spans(text), [0.9, 0.1, 0.9], threshold=0.5)  # fmt: skip
    assert alone["corrected"] == "Tesla worked for Edison. He died in 1943."
    comma = "In 1925, he won a medal. He died in 1943."
    clause: EditResult = {"original": comma, "corrected": "", "edits": [
        {"type": "invented", "start": 0, "end": 9, "wrong": "In 1925, ", "right": ""}]}  # fmt: skip
    kept = gate_result(clause, sentence_spans(comma), [0.1, 0.9], threshold=0.5)
    assert kept["edits"][0]["wrong"] == "In 1925, "
    aside = "In fact he won a medal. He died in 1943."
    short: EditResult = {"original": aside, "corrected": "", "edits": [
        {"type": "subjective", "start": 0, "end": 8, "wrong": "In fact ", "right": ""}]}  # fmt: skip
    assert gate_result(short, sentence_spans(aside), [0.1, 0.9], 0.5)["edits"][0]["end"] == 8


class _ByText:
    """The gate's judge as a table (the :class:`SentenceScorer` contract): P(supported) of a
    sentence by its text, 0 for any other; it records what it was asked, and each call's
    ``enough``. The rule under test is the gate's; the real checkers behind it are tested end to
    end in test_shipped_checker.py."""

    name = "table"
    gate_threshold = threshold = 0.5

    def __init__(self, table: dict[str, float]) -> None:
        self.table, self.asked, self.enough = table, [], []  # type: ignore[var-annotated]

    def score(self, texts, evidence, *, enough=None):  # type: ignore[no-untyped-def]
        self.asked += list(texts)
        self.enough.append(enough)
        return [(self.table.get(t, 0.0), 1) for t in texts]


class _Retrieved:
    """An editor that edits nothing and retrieves ``passages`` for every text: the gate's rule is
    what these tests look at."""

    model = "none"

    def __init__(self, passages: list[dict[str, str]]) -> None:
        self.passages = passages

    def edit_many(self, requests):  # type: ignore[no-untyped-def]
        return [{"original": r.text, "corrected": r.text, "edits": [],
                 "evidence": list(self.passages)} for r in requests]  # fmt: skip


def test_a_fix_the_checker_still_finds_unsupported_is_taken_back_as_a_flag() -> None:
    from favakit.inference.gate import verify_fixes

    text = "He was born on December 18, 1949. He died in 2024, in Texas."
    evidence = [{"title": "Lanny Flaherty", "text": "Lanny Flaherty (July 27, 1942 - February 18, "
                 "2024) was an American actor. He died in Texas on February 18, 2024."}]  # fmt: skip
    edits: list[EditSpan] = [
        # the evidence holds "February", but as the death date: the birth date stays wrong
        {"type": "entity", "start": 15, "end": 23, "wrong": "December", "right": "February",
         "cites": {"passage": 0, "sentence": "He died in Texas on February 18, 2024."}},
        # a deletion and a flag are not fixes: they pass as they are
        {"type": "invented", "start": 49, "end": 59, "wrong": ", in Texas", "right": ""},
    ]  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": edits, "evidence": evidence}
    judge = _ByText({"Lanny Flaherty died in 2024.": 0.9})
    (checked,) = verify_fixes(judge, [result], ["Lanny Flaherty"], 0.5)
    # the sentence as the fix leaves it was asked about, decontextualized
    assert judge.asked == ["Lanny Flaherty was born on February 18, 1949."]
    fix, deletion = checked["edits"]
    assert fix["flagged"] and fix["right"] == fix["wrong"] == "December"
    assert fix["cites"]["sentence"].startswith("Lanny Flaherty (July 27, 1942")  # the closest
    assert deletion == edits[1]
    assert checked["corrected"] == "He was born on December 18, 1949. He died in 2024."
    assert checked["warnings"][-1].startswith("1 fix(es) taken back")


def test_a_fix_that_makes_its_sentence_supported_stays() -> None:
    from favakit.inference.gate import verify_fixes

    text = "Einstein was born in Ulm in 1979."
    evidence = [{"title": "Albert Einstein", "text": "Albert Einstein was born in Ulm in 1879."}]
    result: EditResult = {
        "original": text, "corrected": "Einstein was born in Ulm in 1879.", "evidence": evidence,
        "edits": [{"type": "entity", "start": 28, "end": 32, "wrong": "1979", "right": "1879"}],
    }  # fmt: skip
    judge = _ByText({"Einstein was born in Ulm in 1879.": 0.95})
    (checked,) = verify_fixes(judge, [result], [None], 0.5)
    assert checked == result and judge.asked == ["Einstein was born in Ulm in 1879."]
    # nothing to check: no evidence, or no fix (a flag), asks the judge nothing
    flag: EditResult = {**result, "edits": [{**result["edits"][0], "right": "1979",
                                             "flagged": True}]}  # fmt: skip
    assert verify_fixes(judge, [flag, {**result, "evidence": []}], [None, None], 0.5) == [
        flag, {**result, "evidence": []}]  # fmt: skip
    assert len(judge.asked) == 1


def test_a_date_touched_twice_becomes_one_whole_date_fix() -> None:
    text = "Ada Moss is a painter born on December 18, 1949, in Boston."
    evidence = [{"title": "Ada Moss",
                 "text": "ada moss ( july 27, 1942 \u2013 february 18, 2024 ) was a painter."}]  # fmt: skip
    month, year = text.index("December"), text.index("1949")
    result: EditResult = {"original": text, "corrected": "", "evidence": evidence, "edits": [
        {"type": "entity", "start": month, "end": month + 8, "wrong": "December",
         "right": "February"},  # the death date's month: the wrong date
        {"type": "entity", "start": year, "end": year + 4, "wrong": "1949", "right": "1949",
         "flagged": True},
    ]}  # fmt: skip
    gated = gate_result(result, sentence_spans(text), [0.1], threshold=0.5)
    [fix] = gated["edits"]
    assert (fix["wrong"], fix["right"]) == ("December 18, 1949", "July 27, 1942")
    assert fix["cites"]["title"] == "Ada Moss" and "flagged" not in fix
    assert gated["corrected"] == "Ada Moss is a painter born on July 27, 1942, in Boston."


def test_a_flag_in_a_sentence_the_fix_makes_supported_is_dropped() -> None:
    from favakit.inference.gate import verify_fixes

    text = "Turing proposed the test in 1950 and passed away in 1957."
    evidence = [{"title": "Alan Turing", "text": "In 1950 he proposed the test. He died in 1954."}]
    fix: EditSpan = {"type": "entity", "start": 52, "end": 56, "wrong": "1957", "right": "1954"}
    flag: EditSpan = {"type": "relation", "start": 37, "end": 43, "wrong": "passed",
                      "right": "passed", "flagged": True}  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": [flag, fix],
                          "evidence": evidence}  # fmt: skip
    judge = _ByText({text.replace("1957", "1954"): 0.9})
    (checked,) = verify_fixes(judge, [result], [None], 0.5)
    assert checked["edits"] == [fix]
    assert checked["corrected"] == text.replace("1957", "1954")
    assert checked["warnings"] == [
        "1 flag(s) dropped: the checker finds their sentence or clause supported once fixed"
    ]
    # where the fixed sentence is still unsupported, the flag stays; so does the fix, which is
    # the year rule's own (the evidence's death year in the same words), while a fix no rule
    # makes is taken back
    other: EditSpan = {"type": "entity", "start": 0, "end": 6, "wrong": "Turing", "right": "Church"}
    (kept,) = verify_fixes(_ByText({}), [{**result, "edits": [other, flag, fix]}], [None], 0.5)
    shown = [(e["wrong"], e["right"], bool(e.get("flagged"))) for e in kept["edits"]]
    assert shown == [("Turing", "Turing", True), ("passed", "passed", True),
                     ("1957", "1954", False)]  # fmt: skip


def test_a_fix_whose_clause_is_supported_stays_and_the_rest_is_flagged() -> None:
    from favakit.inference.gate import verify_fixes

    original = "Ada Moss was born on December 18, 1949, in Boston."
    text = "Ada Moss was born on July 27, 1942, in Boston."  # as the fix leaves it
    start = original.index("December")
    fix: EditSpan = {"type": "entity", "start": start, "end": start + 17,
                     "wrong": "December 18, 1949", "right": "July 27, 1942"}  # fmt: skip
    name: EditSpan = {"type": "entity", "start": 0, "end": 8, "wrong": "Ada Moss", "right": "Ada Moss",
            "flagged": True}  # fmt: skip
    evidence = [{"title": "Ada Moss", "text": "Ada Moss (July 27, 1942 - 2024) was a painter."}]
    result: EditResult = {"original": original, "corrected": "", "evidence": evidence,
                          "edits": [name, fix]}  # fmt: skip
    judge = _ByText({"Ada Moss was born on July 27, 1942": 0.9})
    (checked,) = verify_fixes(judge, [result], ["Ada Moss"], 0.5)
    # the whole fixed sentence first, then its part up to the fix's clause end
    assert judge.asked == [text, "Ada Moss was born on July 27, 1942"]
    kept, rest = checked["edits"]
    assert kept == fix  # the fix stays; the flag inside the supported clause is dropped
    # the rest is flagged at the word the evidence never uses, or whole with flags="sentences"
    assert rest["flagged"] and rest["wrong"] == rest["right"] == "Boston"
    assert original[rest["start"] : rest["end"]] == "Boston" and rest["checker_score"] == 0.0
    assert checked["corrected"] == text
    assert checked["warnings"][-1].startswith("1 sentence end(s) after a checked fix flagged")
    (whole,) = verify_fixes(judge, [result], ["Ada Moss"], 0.5, flags="sentences")
    assert whole["edits"][1]["wrong"] == "in Boston"
    # when the clause is not supported either, the fix is taken back as before
    (back,) = verify_fixes(_ByText({}), [result], ["Ada Moss"], 0.5)
    assert [e.get("flagged") for e in back["edits"]] == [True, True]
    assert back["corrected"] == original


def test_a_deleted_sentence_that_states_a_supported_fact_is_flagged_instead() -> None:
    from favakit.inference.gate import verify_deletions

    text = ("Ada Moss is a painter. Her works hang in the Tate, the Louvre, and the Prado "
            "today. She sings.")  # fmt: skip
    second = "Her works hang in the Tate, the Louvre, and the Prado today."
    start = text.index(second)
    deletion: EditSpan = {"type": "invented", "start": start, "end": start + len(second) + 1,
                          "wrong": second + " ", "right": ""}  # fmt: skip
    short: EditSpan = {"type": "invented", "start": text.index("She sings."),
                       "end": len(text), "wrong": "She sings.", "right": ""}  # fmt: skip
    evidence = [{"title": "Ada Moss", "text": "Two of Ada Moss's works hang in the Louvre."}]
    result: EditResult = {"original": text, "corrected": "", "evidence": evidence,
                          "edits": [deletion, short]}  # fmt: skip
    judge = _ByText({"Ada Moss' works hang in the Louvre.": 0.8})
    (checked,) = verify_deletions(judge, [result], ["Ada Moss"], 0.5)
    # the facts the deleted sentence states, one per list item, pronouns resolved; the
    # two-word deletion is not checked
    assert judge.asked == ["Ada Moss' works hang in the Tate.",
                           "Ada Moss' works hang in the Louvre.",
                           "Ada Moss' works hang in the Prado."]  # fmt: skip
    # flagged at the words the evidence never uses, each flag citing what the sentence rests on
    *flags, kept = checked["edits"]
    assert [f["wrong"] for f in flags] == ["Tate", "Prado today"]
    assert all(f["flagged"] and f["right"] == f["wrong"] for f in flags)
    assert flags[0]["cites"]["sentence"] == "Two of Ada Moss's works hang in the Louvre."
    assert kept == short
    # or the whole sentence, with flags="sentences"
    (whole,) = verify_deletions(judge, [result], ["Ada Moss"], 0.5, flags="sentences")
    flag = whole["edits"][0]
    assert flag["flagged"] and flag["right"] == flag["wrong"] == deletion["wrong"]
    assert checked["corrected"] == text[: text.index("She sings.")].rstrip()
    assert checked["warnings"] == ["1 deletion(s) taken back: the checker finds a fact of the "
                                   "sentence supported; flagged with no fix"]  # fmt: skip
    # no fact supported: the deletion stays
    assert verify_deletions(_ByText({}), [result], ["Ada Moss"], 0.5) == [result]


def test_the_shipped_checkers_gate_at_their_stored_gate_threshold() -> None:
    import json
    from pathlib import Path

    import favakit.inference as inference
    from favakit.inference.gate import GatedEditor

    for name in ("default_checker", "mpnet_checker"):
        cfg = json.loads((Path(inference.__file__).parent / name / "checker.json").read_text())
        # the gate leaves text alone more readily than the verdict calls it supported
        assert 0.0 < cfg["gate_threshold"] <= cfg["threshold"] < 1.0
        assert "development split" in cfg["gate_threshold_chosen_on"]

    class Stored(_ByText):
        gate_threshold, threshold = 0.12, 0.24

    assert GatedEditor(None, Stored({})).threshold == 0.12  # type: ignore[arg-type]
    assert GatedEditor(None, Stored({}), threshold=0.3).threshold == 0.3  # type: ignore[arg-type]
    # a fix must lift its sentence above the verdict threshold as well as the gate's
    assert GatedEditor(None, Stored({})).fix_threshold == 0.24  # type: ignore[arg-type]
    assert GatedEditor(None, Stored({}), threshold=0.3).fix_threshold == 0.3  # type: ignore[arg-type]


def test_a_fix_holds_only_where_the_checker_calls_its_sentence_supported() -> None:
    """The gate leaves a sentence alone above its low gate threshold; a fix must do more: the
    sentence so fixed must score above the checker's verdict threshold. "CEO" -> "chief" (the
    editor's, from "Its chief executive ... has been Daniel Okafor") lifts the sentence from
    0.05 to 0.13, above the gate threshold and below the verdict's: flagged, not fixed."""
    from favakit.inference.gate import GatedEditor

    text = "Northwind Home was founded in 2011. Its CEO is Tom Hughes."
    evidence = [{"title": "Northwind Home", "text": "Northwind Home was founded in 2011. Its chief "
                 "executive since 2020 has been Daniel Okafor, who replaced Tom Hughes."}]  # fmt: skip
    ceo = text.index("CEO")

    class Editor:
        model = "none"

        def edit_many(self, requests):  # type: ignore[no-untyped-def]
            fix = {"type": "relation", "start": ceo, "end": ceo + 3, "wrong": "CEO",
                   "right": "chief"}  # fmt: skip
            return [{"original": r.text, "corrected": r.text.replace("CEO", "chief"),
                     "edits": [fix], "evidence": evidence} for r in requests]  # fmt: skip

    class Judge(_ByText):
        gate_threshold, threshold = 0.12, 0.24

    table = {"Northwind Home was founded in 2011.": 0.99, "Its CEO is Tom Hughes.": 0.05,
             "Its chief is Tom Hughes.": 0.13}  # fmt: skip
    request = {"text": text, "evidence": [evidence[0]["text"]]}
    judge = Judge(table)
    [got] = GatedEditor(Editor(), judge, flags="sentences").edit_many([request])  # type: ignore[arg-type]
    assert got["corrected"] == text
    # the sentences' first scores need be exact only at or below the gate threshold (a checker
    # stops reading pieces above it); a fix's score is compared with the verdict threshold: exact
    assert judge.enough[0] == 0.12 and len(judge.enough) > 1 and set(judge.enough[1:]) == {None}
    assert [(e["wrong"], e["right"], e.get("flagged")) for e in got["edits"]] == [
        ("CEO", "CEO", True)]  # fmt: skip
    assert any(w.startswith("1 fix(es) taken back") for w in got["warnings"])
    # where the fix makes the sentence one the checker calls supported, it stays
    table["Its chief is Tom Hughes."] = 0.3
    [kept] = GatedEditor(Editor(), Judge(table), flags="sentences").edit_many([request])  # type: ignore[arg-type]
    assert kept["corrected"] == "Northwind Home was founded in 2011. Its chief is Tom Hughes."


class _Marker(_ByText):
    """A table judge that also marks words (the :class:`WordMarker` contract): the given words of
    each text it is asked about, at P 0.9."""

    marks_words = True

    def __init__(self, table: dict[str, float], words: list[str]) -> None:
        super().__init__(table)
        self.words, self.marked = words, []  # type: ignore[var-annotated]

    def unsupported_spans(self, texts, evidence, threshold=0.5):  # type: ignore[no-untyped-def]
        self.marked += list(texts)
        return [[(t.index(w), t.index(w) + len(w), 0.9) for w in self.words if w in t]
                for t in texts]  # fmt: skip


def test_the_token_heads_words_are_flagged_beside_the_words_the_evidence_never_uses() -> None:
    from favakit.inference.gate import GatedEditor, marked_words

    text = "Curie was born in Warsaw in 1867. She won the Nobel Prize in Chemistry in Oslo."
    evidence = [{"text": e["text"]} for e in EVIDENCE]
    result: EditResult = {"original": text, "corrected": text, "edits": [], "evidence": evidence}
    sentences = sentence_spans(text)
    judge = _Marker({}, ["Chemistry"])
    # only the sentence the gate will flag is marked: unsupported (0.1) and holding no edit
    [marks] = marked_words(judge, [result], [(sentences, [0.9, 0.1])], 0.5)
    start = text.index("Chemistry")
    assert marks == {1: [(start, start + 9)]} and judge.marked == [text[sentences[1][0] :]]
    edited: EditResult = {**result, "edits": [{"type": "entity", "start": start, "end": start + 9,
                                               "wrong": "Chemistry", "right": "Physics"}]}  # fmt: skip
    assert marked_words(judge, [edited], [(sentences, [0.9, 0.1])], 0.5) == [{}]
    assert marked_words(_ByText({}), [result], [(sentences, [0.9, 0.1])], 0.5) == [{}]
    # a mark of function words alone ("in", "the") states nothing: not kept; a negation is
    both = _Marker({}, ["in", "the", "Chemistry"])
    [marks_both] = marked_words(both, [result], [(sentences, [0.9, 0.1])], 0.5)
    assert marks_both == marks
    negated = {**result, "original": text.replace("She won", "She did not win")}
    at = negated["original"].index("not")
    assert marked_words(_Marker({}, ["not"]), [negated], [(sentences, [0.9, 0.1])], 0.5) == [
        {1: [(at, at + 3)]}
    ]
    # a mark of part of a number or a word is a mark of the whole ("9" of "9,000")
    staff = {**result, "original": text.replace("in Oslo", "with 9,000 staff")}
    at = staff["original"].index("9,000")
    spans = sentence_spans(staff["original"])
    assert marked_words(_Marker({}, ["9"]), [staff], [(spans, [0.9, 0.1])], 0.5) == [
        {1: [(at, at + 5)]}
    ]
    assert marked_words(_Marker({}, ["Chem"]), [result], [(sentences, [0.9, 0.1])], 0.5) == [marks]
    # the marked word and the year the evidence never has: two flags, "in" between them
    gated = gate_result(result, sentences, [0.9, 0.1], 0.5, marked=marks)
    assert [e["wrong"] for e in gated["edits"]] == ["Chemistry", "Oslo"]
    # a marked span that touches an unsupported word joins it
    touching = {1: [(text.index("in Oslo"), text.index("in Oslo") + 2)]}
    gated = gate_result(result, sentences, [0.9, 0.1], 0.5, marked=touching)
    assert [e["wrong"] for e in gated["edits"]] == ["in Oslo"]
    # whole-sentence flags ignore the marks; so does GatedEditor, which asks for none then
    whole = gate_result(result, sentences, [0.9, 0.1], 0.5, flags="sentences", marked=marks)
    assert [e["wrong"] for e in whole["edits"]] == [text[sentences[1][0] :]]

    class Editor:
        model = "none"

        def edit_many(self, requests):  # type: ignore[no-untyped-def]
            return [{**result, "original": r.text} for r in requests]

    table = {"Curie was born in Warsaw in 1867.": 0.9}
    for flags, asked in (("words", 1), ("sentences", 0)):
        judge = _Marker(table, ["Chemistry"])
        gated_editor = GatedEditor(Editor(), judge, check_fixes=False, flags=flags)  # type: ignore[arg-type]
        [got] = gated_editor.edit_many([{"text": text, "evidence": [e["text"] for e in EVIDENCE]}])
        assert len(judge.marked) == asked and got["corrected"] == text


def test_a_flagged_sentence_is_flagged_too_at_the_words_the_evidence_never_uses() -> None:
    """An editor's fix the evidence does not ground becomes a flag at the editor's words; the
    sentence's words the evidence never uses are flagged beside it (chosen on the development
    split's span rows), where no edit is, with that flag's type, score and citation."""
    from favakit.inference.gate import flag_words_beside

    text = "Fleming discovered penicillin in 1928. Fleming won the Nobel Prize in Physics in 1945."
    evidence = [{"title": "Penicillin", "text": "Penicillin was discovered by Alexander Fleming "
                 "in 1928. Fleming, Florey and Chain shared the Nobel Prize in Physiology or "
                 "Medicine in 1945."}]  # fmt: skip
    won = text.index("won")
    flag: EditSpan = {"type": "relation", "start": won, "end": won + 3, "wrong": "won",
                      "right": "won", "flagged": True, "checker_score": 0.02}  # fmt: skip
    result: EditResult = {
        "original": text,
        "corrected": text,
        "edits": [flag],
        "evidence": evidence,
    }
    got = flag_words_beside(result)
    assert [(e["wrong"], e["type"], e["checker_score"]) for e in got["edits"]] == [
        ("won", "relation", 0.02), ("Physics", "relation", 0.02)]  # fmt: skip
    assert got["corrected"] == text  # flags change no text
    # a sentence with no flag, or a result with no evidence, is left as it is
    fix: EditSpan = {**flag, "right": "shared", "flagged": False}
    assert flag_words_beside({**result, "edits": [fix]})["edits"] == [fix]
    assert flag_words_beside({**result, "evidence": []}) == {**result, "evidence": []}


def test_a_fix_the_sentence_does_not_need_is_dropped() -> None:
    from favakit.inference.gate_checks import drop_unneeded_fixes

    text = "Gandhi led the march. India gained independence in 1947 and Gandhi died in Mumbai."
    evidence = [{"title": "Gandhi", "text": "India became independent in 1947, and Gandhi was "
                 "assassinated in New Delhi in January 1948."}]  # fmt: skip
    gained, mumbai = text.index("gained"), text.index("Mumbai")
    edits: list[EditSpan] = [
        {"type": "relation", "start": gained, "end": gained + 6, "wrong": "gained",
         "right": "became"},
        {"type": "entity", "start": mumbai, "end": mumbai + 6, "wrong": "Mumbai",
         "right": "New Delhi"},
    ]  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": edits, "evidence": evidence}
    needs_delhi = "India gained independence in 1947 and Gandhi died in New Delhi."
    judge = _ByText({needs_delhi: 0.9})
    (checked,) = drop_unneeded_fixes(judge, [result], [None], 0.5)
    assert checked["edits"] == [edits[1]]
    assert checked["corrected"] == text.replace("Mumbai", "New Delhi")
    assert checked["warnings"] == [
        "1 fix(es) dropped: the checker finds the sentence supported without them"
    ]
    # leave-one-out asked about each fix, then the sentence without the unneeded one
    assert judge.asked == [
        needs_delhi,
        "India became independence in 1947 and Gandhi died in Mumbai.",
        needs_delhi,
    ]
    # both needed (neither alone supported): both stay; one fix alone is never asked about
    assert drop_unneeded_fixes(_ByText({}), [result], [None], 0.5) == [result]
    single: EditResult = {**result, "edits": [edits[1]]}
    lone = _ByText({})
    assert drop_unneeded_fixes(lone, [single], [None], 0.5) == [single] and lone.asked == []


def test_a_clause_rewritten_into_a_fragment_is_flagged_at_its_unbacked_words() -> None:
    """What the shipped editor did to a dialogue's summary on the development split: it replaced
    "A sales agent from BestInsuranceXYZ contacts a potential customer" with the speaker label
    "Sales Agent", a fragment the evidence holds. Such an edit is no fix: it becomes a flag, and
    the flag is narrowed to the words the evidence never uses. A one-word fix stands."""
    from favakit.inference.gate_edits import collapsed_fix
    from favakit.inference.gate_words import flag_clauses_at_words

    text = ("A sales agent from BestInsuranceXYZ contacts a potential customer about a bus plan. "
            "The client agrees.")  # fmt: skip
    evidence = [{"title": "", "text": "Sales Agent: Hello, this is BestInsuranceXYZ. I would "
                 "like to tell you about our railway plan. Client: I agree, send it."}]  # fmt: skip
    clause = text.index(" about")
    rewrite: EditSpan = {"type": "entity", "start": 0, "end": clause, "wrong": text[:clause],
                         "right": "Sales Agent"}  # fmt: skip
    bus = text.index("bus")
    swap: EditSpan = {"type": "entity", "start": bus, "end": bus + 3, "wrong": "bus",
                      "right": "railway"}  # fmt: skip
    assert collapsed_fix(rewrite) and not collapsed_fix(swap)
    # a fix of the words that end a sentence which drops its full stop puts a name in place of
    # the statement (session 53: "The music runs until midnight." -> "The Salt Road Band")
    ending: EditSpan = {"type": "entity", "start": 4, "end": 30, "wrong": "music runs until "
                        "midnight.", "right": "Salt Road Band"}  # fmt: skip
    assert collapsed_fix(ending)
    assert not collapsed_fix({**ending, "wrong": "midnight.", "right": "11 pm."})
    assert not collapsed_fix({**ending, "wrong": "Inc.", "right": "Ltd"})  # one word: no clause
    result: EditResult = {"original": text, "corrected": "", "edits": [rewrite, swap],
                          "evidence": evidence}  # fmt: skip
    gated = gate_result(result, sentence_spans(text), [0.1, 0.9], threshold=0.5)
    assert gated["corrected"] == text.replace("bus", "railway")
    flag = gated["edits"][0]
    assert flag["flagged"] and flag["wrong"] == text[:clause]
    assert any("rewritten into a fragment" in w for w in gated["warnings"])
    narrowed = flag_clauses_at_words(gated)
    assert [e["wrong"] for e in narrowed["edits"]] == ["contacts", "potential customer", "bus"]
    assert narrowed["edits"][0]["flagged"] and not narrowed["edits"][-1].get("flagged")


def test_a_deleted_sentence_the_evidence_mostly_backs_is_flagged_not_deleted() -> None:
    """A summary's sentence that restates its source with one word changed ("tells the client
    about the *life* insurance"): deleting it takes the whole sentence for one wrong word. Where the
    runs of words the evidence never uses cover under 30% of a deleted clause it is flagged
    instead, at those words; an invented sentence (its words not in the evidence) is deleted."""
    from favakit.inference.gate_edits import backed_deletion
    from favakit.inference.gate_words import flag_clauses_at_words

    text = ("The agent conducts a questionnaire with the client and tells the client about the "
            "life insurance offer. He also owns three racing yachts in Monaco.")  # fmt: skip
    evidence = [{"title": "", "text": "Agent: Let us do a short questionnaire. Client: Fine. "
                 "Agent: I will tell you about our health insurance offer."}]  # fmt: skip
    first, second = sentence_spans(text)

    def deletion(span: tuple[int, int]) -> EditSpan:
        return {"type": "invented", "start": span[0], "end": span[1],
                "wrong": text[span[0] : span[1]], "right": ""}  # fmt: skip

    assert backed_deletion(deletion(first), text, evidence)
    assert not backed_deletion(deletion(second), text, evidence)
    assert not backed_deletion(deletion(first), text, [])  # no evidence: nothing to weigh
    result: EditResult = {"original": text, "corrected": "",
                          "edits": [deletion(first), deletion(second)], "evidence": evidence}  # fmt: skip
    gated = flag_clauses_at_words(gate_result(result, [first, second], [0.1, 0.1], 0.5))
    assert gated["corrected"] == text[first[0] : first[1]]  # the invented sentence deleted
    assert [e["wrong"] for e in gated["edits"] if e.get("flagged")] == ["conducts", "life"]


def test_a_sentence_whose_fix_was_taken_back_is_flagged_where_the_gate_flags() -> None:
    """A fix the evidence does not ground becomes a flag at the editor's words, which say the
    sentence is wrong, not where: such a sentence is flagged as one the editor left alone, at
    the words the evidence never uses and those the token head marks (chosen on the development
    split's span rows); the editor's flag stays when neither marks a word."""
    from favakit.inference.gate import GatedEditor
    from favakit.inference.gate_words import flag_sentences_at_words

    text = "Curie was born in Warsaw in 1867. She won the Nobel Prize in Chemistry in Oslo."
    nobel = text.index("Nobel Prize")
    fix: EditSpan = {"type": "entity", "start": nobel, "end": nobel + 11,
                     "wrong": "Nobel Prize", "right": "Peace Prize"}  # fmt: skip

    class Editor:
        model = "none"

        def edit_many(self, requests):  # type: ignore[no-untyped-def]
            return [{"original": r.text, "corrected": r.text, "edits": [fix],
                     "evidence": EVIDENCE} for r in requests]  # fmt: skip

    judge = _Marker({"Curie was born in Warsaw in 1867.": 0.9}, ["Chemistry"])
    gated_editor = GatedEditor(Editor(), judge, check_fixes=False)  # type: ignore[arg-type]
    [got] = gated_editor.edit_many([{"text": text, "evidence": [e["text"] for e in EVIDENCE]}])
    # "Peace" is nowhere in the evidence: no fix; flagged at "Chemistry" (marked) and "Oslo"
    assert [(e["wrong"], e["type"], e.get("flagged")) for e in got["edits"]] == [
        ("Chemistry", "entity", True), ("Oslo", "entity", True)]  # fmt: skip
    assert got["corrected"] == text and judge.marked == [text[text.index("She") :]]
    # where the evidence backs every word and nothing is marked, the editor's flag stays
    backed = "Curie was born in Warsaw in 1867. She won the Nobel Prize in Chemistry."
    flag: EditSpan = {**fix, "right": "Nobel Prize", "flagged": True}
    result: EditResult = {"original": backed, "corrected": backed, "edits": [flag],
                          "evidence": EVIDENCE}  # fmt: skip
    assert flag_sentences_at_words(result)["edits"] == [flag]
    # a sentence that also holds a fix is not the gate's to flag again
    year = backed.index("1867")
    mixed: EditResult = {**result, "original": text, "edits": [
        {"type": "entity", "start": year, "end": year + 4, "wrong": "1867", "right": "1868"},
        {**flag, "start": year - 3, "end": year - 1, "wrong": "in", "right": "in"}]}  # fmt: skip
    assert flag_sentences_at_words(mixed)["edits"] == mixed["edits"]


def test_only_an_opening_he_or_she_is_resolved_before_scoring() -> None:
    """The gate scores "She won ..." as "Marie Curie won ..." (a bio's pronoun), but leaves "It",
    "They" and possessives, and any pronoun when the text opens with no name: in summaries the
    opening words are rarely what a pronoun means (chosen on the development split)."""
    from favakit.inference.gate_subject import decontextualized

    bio = "Marie Curie was a chemist. She won the Nobel Prize. Her husband was Pierre."
    assert (
        decontextualized("She won the Nobel Prize.", None, bio)
        == "Marie Curie won the Nobel Prize."
    )
    assert decontextualized("He won it.", "Pierre Curie", bio) == "Pierre Curie won it."
    for kept in ("Her husband was Pierre.", "It grew.", "They met in Paris.", "Shell grew."):
        assert decontextualized(kept, None, bio) == kept
    summary = "Q3 revenue rose 5%. He expects growth."
    assert decontextualized("He expects growth.", None, summary) == "He expects growth."
    assert decontextualized("She left.", None, "in 2020 she left.") == "She left."


def test_a_lists_numbers_are_read_past_and_never_edited() -> None:
    from favakit.inference.gate import GatedEditor
    from favakit.inference.gate_words import without_layout

    # a model's numbered answer: "2." had been a sentence of its own, flagged as unsupported,
    # "He" went unresolved behind it, and a flag took the sentence's period ("1737.")
    text = "1. Isaac Newton was born in 1643.\n2. He was president of the Royal Society.\n3. He died in 1737."
    evidence = ["Isaac Newton was born in 1643. He was president of the Royal Society from 1703. "
                "He died in 1727."]  # fmt: skip
    three = text.index("3. He")
    died = text.index("1737.")
    editor_edits: list[EditSpan] = [  # the editor flags the list's number and the year with its period
        {"type": "entity", "start": three, "end": three + 1, "wrong": "3", "right": "3", "flagged": True},
        {"type": "entity", "start": died, "end": died + 5, "wrong": "1737.", "right": "1737.",
         "flagged": True},
    ]  # fmt: skip

    class Editor:
        model = "none"

        def edit_many(self, requests):  # type: ignore[no-untyped-def]
            return [{"original": r.text, "corrected": r.text, "edits": list(editor_edits),
                     "evidence": [{"title": "Isaac Newton", "text": e} for e in r.evidence]}
                    for r in requests]  # fmt: skip

    judge = _ByText({"1. Isaac Newton was born in 1643.": 0.9,
                     "2. Isaac Newton was president of the Royal Society.": 0.9})  # fmt: skip
    gated = GatedEditor(Editor(), judge, check_fixes=False)  # type: ignore[arg-type]
    [got] = gated.edit_many([{"text": text, "evidence": evidence}])
    # three sentences, each read with its number and its "He" resolved past the number
    assert judge.asked[:3] == [
        "1. Isaac Newton was born in 1643.", "2. Isaac Newton was president of the Royal Society.",
        "3. Isaac Newton died in 1737.",
    ]  # fmt: skip
    # the year: the evidence's own (a rule beneath the checker); never the list's "3"
    assert [(e["wrong"], e["right"]) for e in got["edits"]] == [("1737", "1727")]
    assert got["corrected"].endswith("3. He died in 1727.")
    # the last step alone: a flag of the marker dropped, a flag's period and marker left out
    flags: EditResult = {"original": text, "corrected": text, "edits": [
        {**editor_edits[0]}, {**editor_edits[1]},
        {"type": "unverifiable", "start": three, "end": three + 5, "wrong": "3. He", "right": "3. He",
         "flagged": True}]}  # fmt: skip
    assert [e["wrong"] for e in without_layout(flags)["edits"]] == ["1737", "He"]
    abbreviation: EditResult = {"original": "He moved to the U.S.", "corrected": "", "edits": [
        {"type": "entity", "start": 16, "end": 20, "wrong": "U.S.", "right": "U.S.", "flagged": True}
    ]}  # fmt: skip
    assert without_layout(abbreviation) is abbreviation  # its last period is the abbreviation's


def test_a_deletion_of_function_words_only_is_no_edit_and_the_error_is_found_elsewhere() -> None:
    from favakit.inference.gate_edits import function_word_deletion

    # the shipped editor deleted "in": "published On the Origin of Species 1869." is broken, and
    # the year is what the evidence contradicts
    text = "Charles Darwin published On the Origin of Species in 1869."
    evidence = [{"title": "Charles Darwin", "text": "In 1859 Darwin published On the Origin of "
                 "Species, which set out the theory of evolution by natural selection."}]  # fmt: skip
    at = text.index(" in 1869")
    deletion: EditSpan = {"type": "invented", "start": at, "end": at + 3, "wrong": " in",
                          "right": ""}  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": [deletion],
                          "evidence": evidence}  # fmt: skip
    gated = gate_result(result, sentence_spans(text), [0.01], 0.5)
    assert [(e["wrong"], e["right"]) for e in gated["edits"]] == [("1869", "1859")]
    assert gated["corrected"] == "Charles Darwin published On the Origin of Species in 1859."
    # the deletion's flag became that fix: no flag is left to report
    assert not any("flagged with no fix" in w for w in gated["warnings"]), gated["warnings"]
    # what counts: function words only; a negation is a fact's whole difference
    assert function_word_deletion(deletion)
    assert not function_word_deletion({**deletion, "wrong": " not"})
    assert not function_word_deletion({**deletion, "wrong": " in Paris"})
    assert not function_word_deletion({**deletion, "right": "on"})


def test_a_markdown_heading_is_neither_asked_about_nor_edited() -> None:
    from favakit.inference.gate import GatedEditor
    from favakit.text import is_heading

    # "## Career" had been deleted as subjective and "## Early life" flagged at "life"
    text = "## Early life\nMarie Curie was born in Warsaw in 1867.\n\n## Career\nShe won in 1911."
    career = text.index("## Career")

    class Editor:
        model = "none"

        def edit_many(self, requests):  # type: ignore[no-untyped-def]
            deletion: EditSpan = {"type": "subjective", "start": career, "end": career + 9,
                                  "wrong": "## Career", "right": ""}  # fmt: skip
            return [{"original": r.text, "corrected": "", "edits": [deletion],
                     "evidence": [{"title": "Marie Curie", "text": e} for e in r.evidence]}
                    for r in requests]  # fmt: skip

    judge = _ByText({"Marie Curie was born in Warsaw in 1867.": 0.9,
                     "Marie Curie won in 1911.": 0.9})  # fmt: skip
    gated = GatedEditor(Editor(), judge)  # type: ignore[arg-type]
    [got] = gated.edit_many([{"text": text, "evidence": ["Marie Curie was born in Warsaw in "
                                                         "1867. She won in 1911."]}])  # fmt: skip
    assert judge.asked == ["Marie Curie was born in Warsaw in 1867.", "Marie Curie won in 1911."]
    assert got["edits"] == [] and got["corrected"] == text
    assert got["warnings"][-1].startswith("2 of 2 sentence(s) supported")
    assert is_heading("### A title") and not is_heading("#hashtag") and not is_heading("# ")


CURIE = ("Marie Curie was a Polish-born physicist and chemist who worked in France. She was born "
         "in Warsaw in 1867 and died in 1934. Curie was the first woman to win a Nobel Prize: she "
         "shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri Becquerel for their "
         "work on radioactivity.")  # fmt: skip
EINSTEIN = ("Albert Einstein was a theoretical physicist, born on 14 March 1879 in Ulm. Einstein "
            "received the 1921 Nobel Prize in Physics for his explanation of the photoelectric "
            "effect.")  # fmt: skip


def test_a_text_that_turns_to_another_person_is_read_about_that_person() -> None:
    from favakit.inference.gate import GatedEditor
    from favakit.inference.gate_subject import person_turned_to, subject_of

    text = ("Marie Curie was born in Warsaw in 1867. Albert Einstein was born in Ulm in 1879. "
            "He received the 1922 Nobel Prize in Physics.")  # fmt: skip
    he = text.index("He received")
    assert subject_of(None, text) == "Marie Curie" and subject_of(None, text, 0) == "Marie Curie"
    assert subject_of(None, text, he) == "Albert Einstein"
    assert person_turned_to("Marie Curie", text + " Curie died in 1934.", len(text) + 1) == ""

    class Editor:
        model = "none"

        def edit_many(self, requests):  # type: ignore[no-untyped-def]
            return [{"original": r.text, "corrected": r.text, "edits": [], "evidence": [
                {"title": "Marie Curie", "text": CURIE},
                {"title": "Albert Einstein", "text": EINSTEIN}]} for r in requests]  # fmt: skip

    judge = _ByText({"Marie Curie was born in Warsaw in 1867.": 0.9,
                     "Albert Einstein was born in Ulm in 1879.": 0.9})  # fmt: skip
    gated = GatedEditor(Editor(), judge, check_fixes=False)  # type: ignore[arg-type]
    [got] = gated.edit_many([{"text": text, "evidence": ["(retrieved by the editor)"]}])
    # "He" is not read as Marie Curie, whom the text opened with
    assert "He received the 1922 Nobel Prize in Physics." in judge.asked
    # the fix comes from Einstein's article, the person the text turned to
    [fix] = got["edits"]
    assert (fix["wrong"], fix["right"]) == ("1922", "1921"), fix
    assert fix["cites"]["title"] == "Albert Einstein"


def test_a_statement_about_another_person_after_a_semicolon_is_fixed_from_that_person_s_article(
) -> None:  # fmt: skip
    from favakit.inference.gate import GatedEditor

    text = "Marie Curie was born in Warsaw in 1867; Albert Einstein was born in Ulm in 1889."
    articles = [{"title": "Marie Curie", "text": CURIE},
                {"title": "Albert Einstein", "text": EINSTEIN}]  # fmt: skip
    judge = _ByText({})  # the whole sentence is unsupported
    gated = GatedEditor(_Retrieved(articles), judge, check_fixes=False)  # type: ignore[arg-type]
    [got] = gated.edit_many([{"text": text, "evidence": ["(retrieved by the editor)"]}])
    # the year is Einstein's: Curie's birth year is no fix for it, his own article's is
    [fix] = got["edits"]
    assert (fix["wrong"], fix["right"]) == ("1889", "1879"), fix
    assert fix["cites"]["title"] == "Albert Einstein"
    assert got["corrected"] == text.replace("1889", "1879")
    # an editor's fix there is grounded in his article too, not in hers: "1867" was Curie's
    year = text.index("1889")

    class Fixer(_Retrieved):
        def edit_many(self, requests):  # type: ignore[no-untyped-def]
            return [{**r, "edits": [{"type": "entity", "start": year, "end": year + 4,
                                     "wrong": "1889", "right": "1867"}]}
                    for r in super().edit_many(requests)]  # fmt: skip

    fixer = GatedEditor(Fixer(articles), judge, check_fixes=False)  # type: ignore[arg-type]
    [fixed] = fixer.edit_many([{"text": text, "evidence": ["(retrieved by the editor)"]}])
    [fix] = fixed["edits"]
    assert (fix["wrong"], fix["right"]) == ("1889", "1879"), fix
    assert fix["cites"]["title"] == "Albert Einstein"
    # a statement opening with a name no article of the evidence has is left to the flag
    other = text.replace("Albert Einstein", "Albert Schweitzer")
    [flagged] = gated.edit_many([{"text": other, "evidence": ["(retrieved)"]}])
    assert all(e.get("flagged") for e in flagged["edits"]) and flagged["corrected"] == other


LEONARDO = ("Leonardo da Vinci was an Italian painter, born in Vinci near Florence in 1452. "
            "He painted the Mona Lisa.")  # fmt: skip
GALILEO = "Galileo Galilei was an Italian astronomer, born in Pisa in 1564. He died in 1642."
COMPARED = "Leonardo was born in 1452, while Galileo was born in 1574."


def test_a_flag_cites_the_evidence_of_its_own_statement_and_of_the_article_the_text_names() -> None:
    from favakit.inference.gate_cite import cite
    from favakit.inference.gate_denials import flags_cited_at_clauses

    evidence = [{"title": "Leonardo da Vinci", "text": LEONARDO},
                {"title": "Galileo Galilei", "text": GALILEO}]  # fmt: skip
    year = COMPARED.index("1574")
    flag: EditSpan = {"type": "entity", "start": year, "end": year + 4, "wrong": "1574",
                      "right": "1574", "flagged": True,
                      "cites": {"passage": 0, "sentence": "(the whole sentence's)"}}  # fmt: skip
    result: EditResult = {"original": COMPARED, "corrected": COMPARED, "edits": [flag],
                          "evidence": evidence}  # fmt: skip
    [cited] = flags_cited_at_clauses(result)["edits"]
    assert cited["cites"]["title"] == "Galileo Galilei"
    assert cited["cites"]["sentence"].endswith("born in Pisa in 1564.")
    # a sentence of one statement keeps its citation
    one = {**result, "original": "Galileo was born in 1574.",
           "edits": [{**flag, "start": 20, "end": 24}]}  # fmt: skip
    assert flags_cited_at_clauses(one) == one
    # a text opening with no name ("Key facts about ...") cites the article it names, not a
    # word another article shares
    engines = [{"title": "Ada Lovelace", "text": "She published notes on the engine."},
               {"title": "Isaac Newton", "text": "Newton published the Principia in 1687."}]  # fmt: skip
    context = "Key facts about Isaac Newton:\n\n- Invented the steam engine."
    found = cite("Invented the steam engine.", "", engines, context)
    assert found is not None and found["title"] == "Isaac Newton"
    assert cite("Invented the steam engine.", "", engines, "Invented the steam engine.") == {
        "passage": 0,
        "sentence": "She published notes on the engine.",
        "title": "Ada Lovelace",
    }


def test_a_qas_question_is_neither_asked_about_nor_flagged_and_its_answer_is() -> None:
    from favakit.inference.gate import GatedEditor
    from favakit.text import states_nothing

    # "Q: When was Alan Turing born?" had been flagged at "When", then whole
    text = "Q: When was Alan Turing born?\nA: Alan Turing was born in London in 1922."

    class Editor:
        model = "none"

        def edit_many(self, requests):  # type: ignore[no-untyped-def]
            return [{"original": r.text, "corrected": r.text, "edits": [],
                     "evidence": [{"title": "Alan Turing", "text": e} for e in r.evidence]}
                    for r in requests]  # fmt: skip

    judge = _ByText({})
    gated = GatedEditor(Editor(), judge)  # type: ignore[arg-type]
    [got] = gated.edit_many([{"text": text, "evidence": ["Alan Turing was born in 1912."]}])
    assert judge.asked[0] == "A: Alan Turing was born in London in 1922."
    # the answer's year is fixed by the year rule, its other words the evidence never uses are
    # flagged; nothing of the question is
    shown = [(e["wrong"], e["right"], bool(e.get("flagged"))) for e in got["edits"]]
    assert shown == [("London", "London", True), ("1922", "1912", False)]
    assert states_nothing("Question: Who?") and states_nothing("## Career")
    assert not states_nothing("A: Turing.") and not states_nothing("Q3 revenue rose.")


def test_an_answer_s_it_is_read_as_what_its_question_asks_about() -> None:
    from favakit.inference.gate import GatedEditor

    text = "Q: Who painted the Mona Lisa?\nA: Leonardo da Vinci painted it."
    editor = _Retrieved([{"title": "Leonardo da Vinci", "text": LEONARDO}])
    judge = _ByText({"A: Leonardo da Vinci painted the Mona Lisa.": 0.9})
    gated = GatedEditor(editor, judge)  # type: ignore[arg-type]
    [got] = gated.edit_many([{"text": text, "evidence": ["(retrieved)"]}])
    # "it" alone names nothing the evidence could support; the question says what it is
    assert judge.asked[0] == "A: Leonardo da Vinci painted the Mona Lisa."
    assert got["edits"] == [] and got["corrected"] == text


def test_an_edit_that_cuts_a_word_becomes_a_flag_over_the_whole_word() -> None:
    from favakit.inference.gate_words import splits_a_word

    text = "Saturn is the seventh planet from the Sun."
    at = text.index("seven")
    cut: EditSpan = {"type": "relation", "start": at, "end": at + 5, "wrong": "seven",
                     "right": "sixth"}  # fmt: skip
    evidence = [{"title": "Saturn", "text": "Saturn is the sixth planet from the Sun."}]
    result: EditResult = {"original": text, "corrected": "", "edits": [cut], "evidence": evidence}
    gated = gate_result(result, sentence_spans(text), [0.1], threshold=0.5)
    # "the sixthth planet" is never written: the whole word is taken, and the rank rule fixes
    # it from the evidence
    [fix] = gated["edits"]
    assert (fix["wrong"], fix["right"]) == ("seventh", "sixth") and not fix.get("flagged")
    assert gated["corrected"] == "Saturn is the sixth planet from the Sun."
    # where the evidence gives no rank, the whole word is flagged, no fix offered
    silent = {**result, "evidence": [{"title": "Saturn", "text": "Saturn is a gas giant."}]}
    [flag] = gate_result(silent, sentence_spans(text), [0.1], threshold=0.5)["edits"]
    assert (flag["wrong"], flag["right"], flag["flagged"]) == ("seventh", "seventh", True)
    assert not splits_a_word({**cut, "end": at + 7}, text)
    assert not splits_a_word({**cut, "start": 0, "end": 6}, "Saturn's rings")


def test_a_word_the_editor_tears_apart_and_a_name_put_for_and_are_its_noise() -> None:
    """The shipped editor once replaced "To", "r", "on", "to" of "Toronto" and "and" with names:
    four flags at "Toronto" and one at "and" came of it. Edits tearing one word apart between
    them are dropped, as is a name put for a function word beside the sentence's other edits;
    the real error (a city the evidence never gives) is still found, once."""
    from favakit.inference.gate_edits import torn_words

    text = "It plans to hire about 600 engineers, most of them in Toronto and Berlin."
    evidence = [{"title": "", "text": "Osei said the company planned to hire about 600 engineers, "
                 "most of them in its offices in Toronto and Lisbon."}]  # fmt: skip
    at = text.index("Toronto")

    def edit(start: int, end: int, right: str, **more: object) -> EditSpan:
        return {"type": "entity", "start": start, "end": end, "wrong": text[start:end],
                "right": right, **more}  # type: ignore[typeddict-item]  # fmt: skip

    edits = [edit(at, at + 2, "Denver"), edit(at + 2, at + 3, "Andrey"),
             edit(at + 3, at + 5, "Medilink"), edit(at + 5, at + 7, "Sinclair"),
             edit(at + 8, at + 11, "Denmark"),
             edit(at + 12, at + 18, "Berlin", flagged=True)]  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": edits, "evidence": evidence}
    gated = gate_result(result, sentence_spans(text), [0.01], threshold=0.5)
    assert [(e["wrong"], e["right"]) for e in gated["edits"]] == [("Berlin", "Lisbon")]
    assert gated["corrected"] == text.replace("Berlin", "Lisbon")
    # one edit inside a word is no tear: it is read as the whole word (the test above)
    assert torn_words(edits, text) == {0, 1, 2, 3}
    assert torn_words(edits[:1], text) == set()


def test_an_edit_inside_a_number_becomes_a_flag_over_the_whole_number() -> None:
    from favakit.inference.gate_words import splits_a_word, whole_words

    text = "Tidewater needs Python 3.8 or newer."
    at = text.index("8 or")
    cut: EditSpan = {"type": "entity", "start": at, "end": at + 1, "wrong": "8", "right": "9"}
    evidence = [{"title": "install", "text": "Tidewater needs Python 3.10 or newer."}]
    result: EditResult = {"original": text, "corrected": "", "edits": [cut], "evidence": evidence}
    [flag] = gate_result(result, sentence_spans(text), [0.1], threshold=0.5)["edits"]
    # "3.9" is never written for "3.8": the whole number is flagged ("3.10" is no "9")
    assert (flag["wrong"], flag.get("flagged")) == ("3.8", True)
    assert flag["start"] == text.index("3.8")
    assert whole_words({**cut, "start": 8, "end": 11}, "about 1,200 MB")["wrong"] == "1,200"
    # a number's end at a sentence's period, or a list's comma, is not inside it
    assert not splits_a_word({**cut, "start": 9, "end": 13}, "Ended in 1998. Then")
    assert not splits_a_word({**cut, "start": 3, "end": 4}, "In 5, 6 and 7")


def test_a_fix_that_doubles_the_word_beside_it_becomes_a_flag() -> None:
    from favakit.inference.gate_words import doubles_a_word

    text = "On the developers' test machine, later backups took under 10 minutes."
    at = text.index("developers'")
    doubled: EditSpan = {"type": "entity", "start": at, "end": at + 11, "wrong": "developers'",
                         "right": "test"}  # fmt: skip
    evidence = [{"title": "faq", "text": "On our test machine, later backups took under 2 "
                 "minutes."}]  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": [doubled],
                          "evidence": evidence}  # fmt: skip
    [flag] = gate_result(result, sentence_spans(text), [0.1], threshold=0.5)["edits"]
    assert flag["flagged"] and "test test" not in gate_result(
        result, sentence_spans(text), [0.1], threshold=0.5)["corrected"]  # fmt: skip
    landed = "In 1969, Apollo 11 returned to Earth."
    at = landed.index("returned")
    assert doubles_a_word({"type": "relation", "start": at, "end": at + 8, "wrong": "returned",
                           "right": "returned to"}, landed)  # fmt: skip
    # a fix beside a word it does not repeat, or a text that already had the pair, is a fix
    ten = text.index("10")
    assert not doubles_a_word({**doubled, "start": ten, "end": ten + 2, "wrong": "10",
                               "right": "2"}, text)  # fmt: skip
    assert not doubles_a_word({**doubled, "start": 0, "end": 2, "wrong": "It is",
                               "right": "It"}, "It is is")  # fmt: skip


def test_a_fix_that_repeats_another_member_of_its_list_becomes_a_flag() -> None:
    """ "sold at Homestore, ValueMart and *Argos*" -> "ValueMart" would list ValueMart twice:
    the editor found the wrong member and put in one the list already has."""
    from favakit.inference.gate_words import repeats_a_member

    text = "The kettles were sold for £34.99 at Homestore, ValueMart and Argos."
    at = text.index("Argos")
    repeated: EditSpan = {"type": "entity", "start": at, "end": at + 5, "wrong": "Argos",
                          "right": "ValueMart"}  # fmt: skip
    assert repeats_a_member(repeated, text, (0, len(text)))
    evidence = [{"title": "recall", "text": "The kettles were sold by Homestore, ValueMart and "
                 "on Brightway's own website for £34.99."}]  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": [repeated],
                          "evidence": evidence}  # fmt: skip
    [flag] = gate_result(result, sentence_spans(text), [0.1], threshold=0.5)["edits"]
    assert flag["flagged"] and flag["wrong"] == "Argos"
    # another word, a first member read past the words leading into the list, no list at all
    assert not repeats_a_member({**repeated, "right": "Tesco"}, text, (0, len(text)))
    colours = "It is sold in red, blue and green."
    at = colours.index("blue")
    assert repeats_a_member({"type": "entity", "start": at, "end": at + 4, "wrong": "blue",
                             "right": "red"}, colours, (0, len(colours)))  # fmt: skip
    moved = "She was born in Paris and moved to London."
    at = moved.index("London")
    assert not repeats_a_member({"type": "entity", "start": at, "end": at + 6, "wrong": "London",
                                 "right": "Paris"}, moved, (0, len(moved)))  # fmt: skip


KAHLO = ("Frida Kahlo was a Mexican painter, born in Coyoacán, Mexico City, in 1907. A bus "
         "accident at the age of 18 left her with lasting pain.")  # fmt: skip


def test_a_flagged_word_is_fixed_from_the_evidence_only_where_the_judge_supports_the_fix() -> None:
    from favakit.inference.word_fix import word_fixes

    first = "Frida Kahlo was a Mexican painter. "
    text = first + "After a train accident at the age of 18 she lived with lasting pain."
    at = text.index("train")
    flag: EditSpan = {"type": "unverifiable", "start": at, "end": at + 5, "wrong": "train",
                      "right": "train", "flagged": True, "checker_score": 0.01}  # fmt: skip
    result: EditResult = {"original": text, "corrected": text, "edits": [flag],
                          "evidence": [{"title": "Frida Kahlo", "text": KAHLO}]}  # fmt: skip
    lived = text.index("lived")
    result["edits"].append({**result["edits"][0], "start": lived, "end": lived + 5,
                            "wrong": "lived", "right": "lived"})  # fmt: skip
    fixed_text = text.replace("train", "bus")
    judge = _ByText({fixed_text[len(first) :]: 0.9})
    [fixed] = word_fixes(judge, [result], [None], 0.5)
    # the flag over "train" becomes the fix; the other flag goes: the sentence so fixed is
    # supported
    (fix,) = fixed["edits"]
    assert (fix["wrong"], fix["right"], fix["type"]) == ("train", "bus", "entity")
    assert fix["cites"] == {"passage": 0, "title": "Frida Kahlo",
                            "sentence": "A bus accident at the age of 18 left her with lasting pain."}  # fmt: skip
    assert fix["checker_score"] == 0.01
    assert fixed["corrected"] == fixed_text
    assert fixed["warnings"][-1].startswith("1 flagged word(s) fixed from the evidence")
    # a flag the editor typed (its fix taken back) gives the fix its type
    verb = {**result, "edits": [{**result["edits"][0], "type": "relation"}, result["edits"][1]]}
    assert word_fixes(judge, [verb], [None], 0.5)[0]["edits"][0]["type"] == "relation"
    # the judge does not support it: the flags stay as they were
    assert word_fixes(_ByText({}), [result], [None], 0.5) == [result]
    # no flag over the word: nothing to fix there
    elsewhere = {**result, "edits": result["edits"][1:]}
    assert word_fixes(judge, [elsewhere], [None], 0.5) == [elsewhere]
    # a sentence with a fix of the editor's is not touched
    edited = {**result, "edits": [{**result["edits"][0], "right": "car", "flagged": False}]}
    assert word_fixes(judge, [edited], [None], 0.5) == [edited]


def test_a_fix_is_shown_at_the_words_it_changes() -> None:
    from favakit.inference.gate_words import changed_words, without_layout

    text = "Photosynthesis takes place in chloroplasts. Nitrogen is released as a by-product."
    at = text.index("Nitrogen")
    sentence: EditSpan = {"type": "entity", "start": at, "end": len(text),
                          "wrong": text[at:], "right": "Oxygen is released as a by-product."}  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": [sentence]}
    (fix,) = without_layout(result)["edits"]
    assert (fix["wrong"], fix["right"]) == ("Nitrogen", "Oxygen")
    assert text[fix["start"] : fix["end"]] == "Nitrogen"
    assert without_layout(result)["corrected"] == text.replace("Nitrogen", "Oxygen")

    def fixed(wrong: str, right: str) -> tuple[str, str]:
        e = changed_words({"type": "entity", "start": 0, "end": len(wrong), "wrong": wrong,
                           "right": right})  # fmt: skip
        return e["wrong"], e["right"]

    assert fixed("born in 1979", "born in 1879") == ("1979", "1879")
    assert fixed("December 18, 1949", "July 27, 1942") == ("December 18, 1949", "July 27, 1942")
    assert fixed("in 1911", "in 1903 and 1911") == ("1911", "1903 and 1911")  # one word left
    deletion = {"type": "invented", "start": 0, "end": 9, "wrong": "born here", "right": ""}
    assert changed_words(deletion) is deletion  # type: ignore[arg-type]
    turned = {"type": "contradictory", "start": 0, "end": 17, "wrong": "It was not built.",
              "right": "It was built."}  # fmt: skip
    assert changed_words(turned) is turned  # type: ignore[arg-type]  # FAVA marks the statement


def test_a_flag_in_a_sentence_the_evidence_denies_is_typed_contradictory() -> None:
    """An unsupported sentence is flagged ``unverifiable`` (the evidence does not back it); where
    the evidence denies it in its own words (inference/polarity_check.py) the flag says
    ``contradictory``: the evidence says otherwise."""
    from favakit.inference.gate import GatedEditor

    warranty = {"title": "warranty", "text": "Furniture has a two-year warranty. The warranty does "
                "not cover damage caused by misuse, normal wear and tear."}  # fmt: skip
    text = "The warranty covers damage caused by normal wear and tear. It was made in Leeds."
    judge = _ByText({})  # every sentence unsupported
    [got] = GatedEditor(_Retrieved([warranty]), judge, flags="sentences").edit_many([text])  # type: ignore[arg-type]
    assert [(e["wrong"], e["type"]) for e in got["edits"]] == [
        ("The warranty covers damage caused by normal wear and tear", "contradictory"),
        ("It was made in Leeds", "unverifiable"),
    ]
    assert got["corrected"] == text
    # a checker whose checker.json turns the rule off ("polarity_check": false) keeps the type
    judge.polarity_check = False  # type: ignore[attr-defined]
    [plain] = GatedEditor(_Retrieved([warranty]), judge, flags="sentences").edit_many([text])  # type: ignore[arg-type]
    assert [e["type"] for e in plain["edits"]] == ["unverifiable", "unverifiable"]


def test_a_fix_in_a_clause_supported_as_written_is_dropped() -> None:
    from favakit.inference.gate import drop_fixes_clauses_need_not

    original = "Millbrook is open from 1pm to 6pm on weekdays, and it is also open on Sundays."
    start, last = original.index("open"), original.rindex("open")
    fix: EditSpan = {"type": "relation", "start": start, "end": start + 4, "wrong": "open",
                     "right": "closed"}  # fmt: skip
    flag: EditSpan = {"type": "contradictory", "start": last, "end": last + 4, "wrong": "open",
                      "right": "open", "flagged": True}  # fmt: skip
    evidence = [{"title": "branches", "text": "Millbrook: weekdays 1pm to 6pm; Sunday: closed."}]
    result: EditResult = {"original": original, "corrected": "", "evidence": evidence,
                          "edits": [fix, flag]}  # fmt: skip
    clause = "Millbrook is open from 1pm to 6pm on weekdays"
    fixed = clause.replace("open", "closed")
    judge = _ByText({fixed: 0.6, clause: 0.8})
    (checked,) = drop_fixes_clauses_need_not(judge, [result], [None], 0.5)
    assert judge.asked == [fixed, clause]  # the fixed clause, then the clause as written
    assert checked["edits"] == [flag]  # the error is in the rest, flagged where it was
    assert checked["corrected"] == original
    assert checked["warnings"] == ["1 fix(es) dropped: the checker finds their clause supported "
                                   "as written; the rest of the sentence is flagged"]  # fmt: skip
    # a clause that scores less as written than fixed, or is unsupported, keeps its fix
    for scores in ({fixed: 0.8, clause: 0.6}, {fixed: 0.1, clause: 0.4}):
        (kept,) = drop_fixes_clauses_need_not(_ByText(scores), [result], [None], 0.5)
        assert kept is result
    # without a flag after the fix's clause, nothing is asked
    alone = _ByText({})
    (same,) = drop_fixes_clauses_need_not(alone, [{**result, "edits": [fix]}], [None], 0.5)
    assert same["edits"] == [fix] and alone.asked == []


def test_a_rules_fix_stays_beside_the_editors_where_the_sentence_stays_unsupported() -> None:
    """The count rule reads "30 minutes" against the evidence's "10 minutes" in the same words:
    its fix is added beside the editor's fix of another word, and the checker's doubt about the
    whole sentence (still wrong at "50p") takes back the editor's fix only."""
    from favakit.inference.gate import verify_fixes

    text = "A reservation holds a bike for 30 minutes and costs 50p."
    evidence = [
        {"title": "prices", "text": "Plan: Single ride; price: £1.50; what it includes: one ride "
                                    "of up to 30 minutes."},
        {"title": "faq", "text": "A reservation holds a bike for 10 minutes and is free. You can "
                                 "hold one reservation at a time."},
    ]  # fmt: skip
    at = text.index("50p")
    edits: list[EditSpan] = [
        # the editor's flag of a function word: beside another edit it points at nothing
        {"type": "entity", "start": 0, "end": 1, "wrong": "A", "right": "A", "flagged": True},
        {"type": "entity", "start": at, "end": at + 3, "wrong": "50p", "right": "£1.50"},
    ]
    result: EditResult = {"original": text, "corrected": "", "edits": edits, "evidence": evidence}
    gated = gate_result(result, sentence_spans(text), [0.01], threshold=0.5)
    shown = [(e["wrong"], e["right"], bool(e.get("flagged"))) for e in gated["edits"]]
    assert shown == [("30", "10", False), ("50p", "£1.50", False)]
    assert gated["edits"][0]["cites"]["sentence"].startswith("A reservation holds a bike for 10")
    (checked,) = verify_fixes(_ByText({}), [gated], [None], 0.5)
    shown = [(e["wrong"], e["right"], bool(e.get("flagged"))) for e in checked["edits"]]
    assert shown == [("30", "10", False), ("50p", "50p", True)]
    assert checked["corrected"] == "A reservation holds a bike for 10 minutes and costs 50p."
    # alone in its sentence, the editor's flag of a function word stays for the gate to place
    alone: EditResult = {**result, "edits": [edits[0]], "evidence": evidence[:1]}
    [flag] = gate_result(alone, sentence_spans(text), [0.01], threshold=0.5)["edits"]
    assert flag["flagged"]


def test_the_rules_fix_a_second_number_once_the_first_is_fixed() -> None:
    """A summary's sentence gives two numbers wrong; the count rule names one at a time: read
    again with the first fix made, it fixes the second, and the checker's fix check then sees
    the sentence whole."""
    from favakit.inference.gate import verify_fixes

    text = ("Brightwater reported a profit of £8.1 million, up from £6.5 million, as sales rose "
            "14% to £96 million.")  # fmt: skip
    evidence = [{"title": "", "text": "Brightwater reported a profit of £8.1 million, up from "
                 "£5.6 million a year earlier. Sales rose 11% to £96 million, helped by 14 new "
                 "shops."}]  # fmt: skip
    at = text.index("6.5")
    edits: list[EditSpan] = [
        {"type": "entity", "start": at, "end": at + 3, "wrong": "6.5", "right": "6.5",
         "flagged": True},
        {"type": "entity", "start": text.index("14"), "end": text.index("14") + 2, "wrong": "14",
         "right": "14", "flagged": True},
    ]  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": edits, "evidence": evidence}
    gated = gate_result(result, sentence_spans(text), [0.01], threshold=0.5)
    shown = [(e["wrong"], e["right"], bool(e.get("flagged"))) for e in gated["edits"]]
    assert shown == [("6.5 million", "5.6 million", False), ("14", "11", False)]
    assert gated["edits"][1]["cites"]["sentence"].startswith("Sales rose 11%")
    assert any("1 further year, count or name fix" in w for w in gated["warnings"])
    (checked,) = verify_fixes(_ByText({}), [gated], [None], 0.5)
    assert checked["corrected"] == ("Brightwater reported a profit of £8.1 million, up from £5.6 "
                                    "million, as sales rose 11% to £96 million.")  # fmt: skip


def test_a_numbers_fix_is_the_whole_number_the_evidence_gives_never_a_fragment() -> None:
    from favakit.inference.gate import grounded_fix

    passages = [{"title": "rules", "text": "If a station is full, the app gives you 15 extra "
                 "minutes. Electric bikes are limited to 15.5 mph, and the motor only helps "
                 "while you pedal."}]  # fmt: skip
    fix: EditSpan = {"type": "entity", "start": 30, "end": 32, "wrong": "20", "right": "15"}
    # "15" is in the evidence, but the sentence about the speed gives 15.5
    assert grounded_fix(fix, "Electric bikes are limited to 20 mph.", passages)["right"] == "15.5"
    # where the closest sentence gives the number alone, it is the fix as written
    assert grounded_fix(fix, "The app gives you 20 extra minutes.", passages)["right"] == "15"


def test_a_fix_keeps_the_words_of_the_wrong_span_the_evidence_writes_beside_it() -> None:
    from favakit.inference.gate import grounded_fix

    passages = [{"title": "", "text": "Her works include two symphonies, a violin concerto, and "
                 "about 60 choral pieces."}]  # fmt: skip
    sentence = "Her output includes three symphonies, a piano concerto and some 60 choral works."
    at = sentence.index("piano")
    fix: EditSpan = {"type": "entity", "start": at, "end": at + 14, "wrong": "piano concerto",
                     "right": "violin"}  # fmt: skip
    # the editor's "violin" drops "concerto", which the evidence writes after it
    assert grounded_fix(fix, sentence, passages)["right"] == "violin concerto"
    # a fix the evidence writes alone, or beside other words, is left as it is
    alone: EditSpan = {**fix, "right": "violin concerto"}
    assert grounded_fix(alone, sentence, passages)["right"] == "violin concerto"
    choral: EditSpan = {**fix, "right": "choral pieces"}
    assert grounded_fix(choral, sentence, passages)["right"] == "choral pieces"
    # an article the fix drops comes back as the evidence writes it
    sale = [{"title": "", "text": "It was the price offered by an American collector."}]
    text = "It matched the price offered by a German collector."
    at = text.index("a German")
    german: EditSpan = {"type": "entity", "start": at, "end": at + 17,
                        "wrong": "a German collector", "right": "American"}  # fmt: skip
    assert grounded_fix(german, text, sale)["right"] == "an American collector"


def test_a_denied_list_member_is_flagged_at_that_member() -> None:
    """The evidence denies one member of the sentence's list ("There are no stations in Old
    Town"): the sentence's flags go to that member, typed contradictory and citing the denial."""
    from favakit.inference.gate import GatedEditor

    about = {"title": "about", "text": "Larkspur Bikes is the public bike-share scheme of the "
             "city of Larkspur. Stations are found in the city centre, the harbour district and "
             "the university campus. There are no stations in Old Town, where cycling is not "
             "allowed."}  # fmt: skip
    text = ("Larkspur Bikes is the city's bike-share scheme, with stations in the city centre, "
            "the harbour district and Old Town.")  # fmt: skip
    [got] = GatedEditor(_Retrieved([about]), _ByText({})).edit_many([text])  # type: ignore[arg-type]
    [flag] = got["edits"]
    assert (flag["wrong"], flag["type"], flag.get("flagged")) == ("Old Town", "contradictory", True)
    assert flag["start"] == text.index("Old Town")
    assert flag["cites"]["sentence"].startswith("There are no stations in Old Town")
    # flagging whole sentences, the sentence stays flagged whole
    [whole] = GatedEditor(_Retrieved([about]), _ByText({}), flags="sentences").edit_many([text])  # type: ignore[arg-type]
    assert [(e["wrong"], e["type"]) for e in whole["edits"]] == [(text[:-1], "contradictory")]


def test_a_fixed_sentence_a_bare_denial_still_denies_is_flagged_at_the_denied_words() -> None:
    """A record's values each say one thing: fixing "two" bathrooms leaves "a lift", which the
    record's "No lift." denies, to be flagged (session 53)."""
    from favakit.inference.gate_denials import bare_denials_flagged

    text = "The flat has two bathrooms and a lift. It has a garden."
    fix: EditSpan = {"type": "entity", "start": 13, "end": 16, "wrong": "two", "right": "1",
                     "checker_score": 0.02}  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": [fix],
                          "evidence": [{"title": "Flat 3", "text": "1 bathroom.\nNo lift."}]}  # fmt: skip
    edits = bare_denials_flagged(result)["edits"]
    assert edits[0] == fix and len(edits) == 2
    flag = edits[1]
    assert (text[flag["start"] : flag["end"]], flag["type"], flag.get("flagged")) == (
        "lift", "contradictory", True)  # fmt: skip
    assert flag["cites"]["sentence"] == "No lift."
    # a sentence the record does not deny is left as it is
    assert bare_denials_flagged({**result, "evidence": [{"title": "", "text": "1 bathroom."}]}) == {
        **result, "evidence": [{"title": "", "text": "1 bathroom."}]}  # fmt: skip
    # each denial of a sentence is flagged, beside a flag already at the first one's words
    # (denials_typed's), which is not flagged twice
    risotto = "The risotto is vegan and gluten-free."
    vegan: EditSpan = {"type": "contradictory", "start": 15, "end": 20, "wrong": "vegan",
                       "right": "vegan", "flagged": True, "checker_score": 0.01}  # fmt: skip
    record = [{"title": "Risotto", "text": "Has vegetarian.\nNot vegan.\nNot gluten free."}]
    both = bare_denials_flagged({"original": risotto, "corrected": risotto, "edits": [vegan],
                                 "evidence": record})["edits"]  # fmt: skip
    assert [risotto[e["start"] : e["end"]] for e in both] == ["vegan", "gluten-free"]
    assert both[1]["cites"]["sentence"] == "Not gluten free."
    # nor are words an edit already covers: a deletion of the sentence from the space before it
    lifted = "It has two bathrooms. A lift serves every floor."
    gone: EditSpan = {"type": "invented", "start": 20, "end": len(lifted), "wrong": lifted[20:],
                      "right": "", "checker_score": 0.02}  # fmt: skip
    kept = {**result, "original": lifted, "edits": [gone]}
    assert bare_denials_flagged(kept)["edits"] == [gone]  # type: ignore[arg-type]


def test_no_flag_is_left_inside_a_deletion() -> None:
    """Edits never overlap: a flag inside a sentence the gate deleted from the space before it
    (session 53: the editor appended evidence after the text, and the last sentence was flagged
    at its words as well) is dropped; a flag beside the deletion stays."""
    from favakit.inference.gate_words import without_layout

    text = "It has a 64 MP camera. A headphone jack is included."
    gone: EditSpan = {"type": "invented", "start": 22, "end": len(text), "wrong": text[22:],
                      "right": ""}  # fmt: skip
    inside: EditSpan = {"type": "contradictory", "start": 25, "end": 39,
                        "wrong": "headphone jack", "right": "headphone jack", "flagged": True}  # fmt: skip
    beside: EditSpan = {"type": "entity", "start": 9, "end": 11, "wrong": "64", "right": "64",
                        "flagged": True}  # fmt: skip
    result: EditResult = {"original": text, "corrected": "", "edits": [beside, gone, inside]}
    kept = without_layout(result)
    assert kept["edits"] == [beside, gone]
    assert kept["corrected"] == "It has a 64 MP camera."
    # a correction equal to the wrong text is no fix: it comes back as a flag (seen with
    # session 52's code on a record read raw: "included." -> "included.")
    same: EditSpan = {"type": "entity", "start": 9, "end": 11, "wrong": "64", "right": "64"}
    assert without_layout({**result, "edits": [same]})["edits"] == [{**same, "flagged": True}]


def test_a_gated_result_names_its_gate_so_an_ungated_resume_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """An edit row named its editor alone, gated or not: `favakit edit --output` resumed with
    the gate turned off wrote ungated rows beside gated ones, and the guard against mixed
    outputs could not see it."""
    from favakit.contracts import EditRequest
    from favakit.errors import UsageError
    from favakit.inference import runs
    from favakit.inference.gate import GatedEditor

    editor = _Retrieved([{"title": "Curie", "text": "Curie was born in Warsaw in 1867."}])
    gated = GatedEditor(editor, _ByText({}), flags="sentences")  # type: ignore[arg-type]
    [row] = gated.edit_many([{"text": "Curie was born in Warsaw in 1867."}])
    assert row["model"] == "none, gated by table" == gated.model
    rows = [(str(i), EditRequest(f"Curie was born in {1867 + i}.")) for i in range(3)]
    out = tmp_path / "edits.jsonl"
    runs.run_rows(rows[:1], lambda: gated.edit_many, output=str(out), same="model")
    ungated = lambda: lambda reqs: [{**r, "model": "none"} for r in editor.edit_many(reqs)]  # noqa: E731
    with pytest.raises(UsageError, match="holds rows by model none, gated by table, and this "
                                         "run's model is none: resuming would mix"):  # fmt: skip
        runs.run_rows(rows, ungated, output=str(out), same="model")
    assert len(out.read_text().splitlines()) == 1
