"""Count fixes (inference/count_fix.py): a count the evidence contradicts becomes the evidence's
number, in the gate too; never from another subject's article."""

from __future__ import annotations

from favakit.contracts import EditSpan
from favakit.inference.count_fix import count_fix

LINCOLN = {"title": "Abraham Lincoln", "text": "Abraham Lincoln was the 16th president of the "
           "United States. He was born in Kentucky."}  # fmt: skip
TEXT = (
    "Abraham Lincoln was a lawyer. Abraham Lincoln was the seventeenth president of the "
    "United States."
)


def _flag(text: str, sentence: tuple[int, int]) -> EditSpan:
    a, b = sentence
    return {"type": "unverifiable", "start": a, "end": b, "wrong": text[a:b], "right": text[a:b],
            "flagged": True}  # fmt: skip


def test_a_flag_holding_a_contradicted_count_becomes_its_fix() -> None:
    second = (TEXT.index("Abraham Lincoln was the"), len(TEXT))
    fixed = count_fix(_flag(TEXT, second), TEXT, second, [LINCOLN], "Abraham Lincoln")
    assert fixed is not None and "flagged" not in fixed
    assert (fixed["type"], fixed["wrong"], fixed["right"]) == ("entity", "seventeenth", "16th")
    assert TEXT[fixed["start"] : fixed["end"]] == "seventeenth"


def test_no_fix_from_another_subjects_article_or_where_the_edit_misses_the_count() -> None:
    second = (TEXT.index("Abraham Lincoln was the"), len(TEXT))
    other = {"title": "James Buchanan", "text": "James Buchanan was the 15th president of the "
             "United States."}  # fmt: skip
    assert count_fix(_flag(TEXT, second), TEXT, second, [other], "Abraham Lincoln") is None
    at = TEXT.index("United")
    elsewhere: EditSpan = {"type": "entity", "start": at, "end": at + 6, "wrong": "United",
                           "right": "Confederate"}  # fmt: skip
    assert count_fix(elsewhere, TEXT, second, [LINCOLN], "Abraham Lincoln") is None
    right = TEXT.replace("seventeenth", "16th")
    assert count_fix(_flag(right, second), right, second, [LINCOLN], "Abraham Lincoln") is None


def test_the_gate_fixes_a_count_in_a_sentence_the_editor_left_alone() -> None:
    from favakit.inference.gate_edits import gate_result

    first, second = (
        (0, TEXT.index(" Abraham Lincoln was the")),
        (TEXT.index("Abraham Lincoln was the"), len(TEXT)),
    )
    result = {"original": TEXT, "corrected": TEXT, "edits": [], "evidence": [LINCOLN]}
    gated = gate_result(result, [first, second], [0.9, 0.02], 0.12)  # type: ignore[arg-type]
    assert gated["corrected"] == TEXT.replace("seventeenth", "16th")
    (fix,) = gated["edits"]
    assert fix["cites"]["sentence"].startswith("Abraham Lincoln was the 16th")
    assert "had their year, count or name fixed" in gated["warnings"][-1]


SATURN = {"title": "Saturn", "text": "Saturn is the sixth planet from the Sun and the second "
          "largest in the Solar System, after Jupiter."}  # fmt: skip
JUPITER = {"title": "Jupiter", "text": "Jupiter is the fifth planet from the Sun and the largest "
           "planet in the Solar System."}  # fmt: skip
PLANET = "Jupiter is the largest planet in the Solar System and the sixth planet from the Sun."


def test_a_claim_is_compared_with_its_own_subjects_article_first() -> None:
    from favakit.inference.count_check import count_conflict

    # Saturn's sentence shares more words with the claim, and gives its "sixth"
    found = count_conflict(PLANET, [SATURN["text"], JUPITER["text"]])
    assert found is not None and (found.written, found.evidence_numbers) == ("sixth", ("fifth",))
    assert found.sentence.startswith("Jupiter is the fifth")
    assert (
        count_conflict(PLANET.replace("sixth", "fifth"), [SATURN["text"], JUPITER["text"]]) is None
    )
    # with no article about the claim's subject, the closest sentence is compared as before
    assert count_conflict(PLANET, [SATURN["text"]]) is None


def test_an_editors_fix_that_puts_the_evidences_count_in_the_wrong_place_is_moved() -> None:
    from favakit.inference.gate_edits import gate_result

    at = PLANET.index("largest")
    misplaced: EditSpan = {"type": "entity", "start": at, "end": at + 7, "wrong": "largest",
                           "right": "fifth"}  # fmt: skip
    result = {"original": PLANET, "corrected": PLANET.replace("largest", "fifth"),
              "edits": [misplaced], "evidence": [SATURN, JUPITER]}  # fmt: skip
    gated = gate_result(result, [(0, len(PLANET))], [0.02], 0.12)  # type: ignore[arg-type]
    assert gated["corrected"] == PLANET.replace("sixth", "fifth")
    (fix,) = gated["edits"]
    assert (fix["wrong"], fix["right"], fix["cites"]["title"]) == ("sixth", "fifth", "Jupiter")
    # an editor's fix to other words the evidence has is the editor's to keep or lose; the
    # rule's fix of the count is made beside it
    other: EditSpan = {**misplaced, "right": "second"}
    kept = gate_result({**result, "edits": [other]}, [(0, len(PLANET))], [0.02], 0.12)  # type: ignore[arg-type]
    assert [(e["wrong"], e["right"]) for e in kept["edits"]] == [("largest", "second"),
                                                                 ("sixth", "fifth")]  # fmt: skip


def test_a_count_of_times_is_fixed_as_the_evidence_writes_it() -> None:
    text = "You can renew an item three times online or by phone."
    renew = {"title": "borrowing", "text": "You can renew an item twice online or by phone."}
    fixed = count_fix(_flag(text, (0, len(text))), text, (0, len(text)), [renew])
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("three times", "twice")
    text = "You can renew an item twice online."
    renew = {"title": "borrowing", "text": "You can renew an item three times online or by phone."}
    fixed = count_fix(_flag(text, (0, len(text))), text, (0, len(text)), [renew])
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("twice", "three times")


def test_a_price_is_not_fixed_where_the_evidence_sentence_gives_several() -> None:
    fares = {"title": "fares", "text": "A car with its driver costs £38 single to Keel and £52 "
             "single to Marrow. Bicycles travel free."}  # fmt: skip
    text = "A car with its driver costs £38 single to Keel, and bicycles cost £3."
    whole = (0, len(text))
    # contradicted (the checker is told), but £52 is Marrow's car fare, not the bicycles' price
    assert count_fix(_flag(text, whole), text, whole, [fares]) is None
    # one price in the evidence sentence is the fix
    car = "A car with its driver costs £45 single to Keel."
    one = {"title": "fares", "text": "A car with its driver costs £38 single to Keel."}
    fixed = count_fix(_flag(car, (0, len(car))), car, (0, len(car)), [one])
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("45", "38")
    # the text gives the sentence's other sum, and its own follows the same word as the one left
    profit = {"title": "", "text": "Brightwater made a profit of £8.1 million, up from £5.6 "
              "million a year earlier."}  # fmt: skip
    text = "Brightwater made a profit of £8.1 million, up from £6.5 million."
    fixed = count_fix(_flag(text, (0, len(text))), text, (0, len(text)), [profit])
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("6.5 million", "5.6 million")
    other = text.replace("up from", "against")
    assert count_fix(_flag(other, (0, len(other))), other, (0, len(other)), [profit]) is None


def test_a_bound_the_evidence_rules_out_becomes_the_evidences_number() -> None:
    text = "The novel was published in 1981 and was translated into more than forty languages."
    novel = {"title": "", "text": "The novel was published in 1981 and was translated into "
             "fourteen languages."}  # fmt: skip
    whole = (0, len(text))
    fixed = count_fix(_flag(text, whole), text, whole, [novel])
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("more than forty", "fourteen")
    film = "The film grossed over $900 million worldwide in 2019."
    gross = {"title": "", "text": "The film grossed $873 million worldwide in 2019."}
    fixed = count_fix(_flag(film, (0, len(film))), film, (0, len(film)), [gross])
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == (
        "over $900 million", "$873 million")  # fmt: skip


def test_a_count_written_twice_is_fixed_before_what_it_counts_in_the_text_s_case() -> None:
    """Once "four planes" is fixed, "six planes and *six* helicopters" writes "six" twice: the
    one before "helicopters" is the count the evidence contradicts. The evidence's "Two" opening
    its sentence is written "two" inside the text's."""
    fire = {"title": "", "text": "Around 350 firefighters, supported by six planes and four "
            "helicopters, are working on the fire."}  # fmt: skip
    text = "Around 350 firefighters, backed by six planes and six helicopters, are fighting it."
    flag: EditSpan = {"type": "unverifiable", "start": 0, "end": len(text), "wrong": text,
                      "right": text, "flagged": True}  # fmt: skip
    fix = count_fix(flag, text, (0, len(text)), [fire])
    assert fix is not None and (fix["wrong"], fix["right"]) == ("six", "four")
    assert fix["start"] == text.index("six helicopters")
    council = {
        "title": "",
        "text": "Two of the city's eight libraries will move, but none will close.",
    }
    text = "Savings are £18 million, and three of the city's eight libraries will close."
    flag = {**flag, "end": len(text), "wrong": text, "right": text}
    fix = count_fix(flag, text, (0, len(text)), [council])
    assert fix is not None and (fix["wrong"], fix["right"]) == ("three", "two")


def test_a_text_opening_with_a_common_word_or_naming_the_evidence_s_person_takes_its_fix() -> None:
    """Whom a text is about, for a fix's evidence, is the name it opens with; a common noun
    that opens it ("Customers", which the notice writes in lower case) names no one, and a
    sentence naming the evidence sentence's person ("goalkeeper Sam Okafor") may take the fix
    from it in a text that opens with another name."""
    notice = {"text": "Recall: kettles\n\nCustomers should stop using the kettle at once. The "
              "kettles were sold by Homestore for £34.99. For help, customers can call us."}  # fmt: skip
    text = "Customers can get a full refund. The kettles were sold for £43.99 at Homestore."
    second = (text.index("The kettles"), len(text))
    fixed = count_fix(_flag(text, second), text, second, [notice], "Customers")
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("43.99", "34.99")
    # a name the notice never writes in lower case is still a subject of its own
    assert count_fix(_flag(text, second), text, second, [notice], "Brightway") is None
    report = {"text": "Harbour City 3-1 Ashdale Rovers\n\nAshdale took the lead in the 12th "
              "minute. Harbour City's goalkeeper, Sam Okafor, kept them in the game with two "
              "saves from Ferri."}  # fmt: skip
    text = "Ashdale went ahead early, but goalkeeper Sam Okafor made three saves."
    whole = (0, len(text))
    fixed = count_fix(_flag(text, whole), text, whole, [report], "Ashdale")
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("three", "two")
    unnamed = text.replace("goalkeeper Sam Okafor", "their goalkeeper")
    whole = (0, len(unnamed))
    assert count_fix(_flag(unnamed, whole), unnamed, whole, [report], "Ashdale") is None


def test_a_bare_statement_of_a_record_lends_its_count() -> None:
    """ "212 reviews." (a record's "review_count": favakit.json_evidence) has no words around
    its number to match the text's by; as a bare statement it lends its count (session 53)."""
    record = {"title": "The Copper Kettle", "text": "Name: The Copper Kettle.\n212 reviews.\n"
              "Hours Tuesday: 8 am to 4 pm."}  # fmt: skip
    text = "The Copper Kettle has a 4.5-star rating from 312 reviews."
    whole = (0, len(text))
    fixed = count_fix(_flag(text, whole), text, whole, [record], "The Copper Kettle")
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("312", "212")
