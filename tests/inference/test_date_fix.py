"""Whole-date fixes (inference/date_fix.py): an edit that touches part of a date takes the whole
date the evidence gives for the same thing, by role (birth, death) or as the one other date of
the closest evidence sentence; otherwise it is left as it is."""

from __future__ import annotations

from favakit.contracts import EditSpan
from favakit.inference.date_fix import date_fix, dates_in, evidence_dates

LIFE = {"title": "Ada Moss", "text": "ada moss ( july 27, 1942 \u2013 february 18, 2024 ) was an "
        "american painter. she died in february 2024 in new york."}  # fmt: skip
OTHER = {"title": "Bo Lee", "text": "bo lee ( may 2, 1901 \u2013 june 3, 1970 ) was a sculptor."}
TEXT = "Ada Moss is an American painter born on December 18, 1949, in Boston."


def _edit(text: str, wrong: str, right: str | None = None) -> EditSpan:
    start = text.index(wrong)
    edit: EditSpan = {"type": "entity", "start": start, "end": start + len(wrong),
                      "wrong": wrong, "right": wrong if right is None else right}  # fmt: skip
    if right is None:
        edit["flagged"] = True
    return edit


def test_dates_are_read_in_three_forms() -> None:
    found = dates_in("On 3 Mar 2020, then March 4, 2021 and in June 1999; not May 32, 2000.")
    assert [(d.year, d.month, d.day, d.day_first) for d in found] == [
        (2020, 3, 3, True), (2021, 3, 4, False), (1999, 6, None, False)]  # fmt: skip


def test_a_range_and_role_words_give_evidence_dates_their_roles() -> None:
    roles = [(d.year, r) for d, r in evidence_dates(LIFE["text"])]
    assert roles == [(1942, "birth"), (2024, "death"), (2024, "death")]
    assert [r for _, r in evidence_dates("born on may 1, 1900. it opened june 2, 1950.")] == [
        "birth", None]  # fmt: skip


def test_a_month_edit_takes_the_whole_birth_date() -> None:
    fixed = date_fix(_edit(TEXT, "December", "February"), TEXT, (0, len(TEXT)), [OTHER, LIFE])
    assert fixed is not None
    assert (fixed["wrong"], fixed["right"]) == ("December 18, 1949", "July 27, 1942")
    assert TEXT[fixed["start"] : fixed["end"]] == fixed["wrong"]
    # a flag on the year becomes the same fix; the other person's dates are not close enough
    flagged = date_fix(_edit(TEXT, "1949"), TEXT, (0, len(TEXT)), [OTHER, LIFE])
    assert flagged == {**fixed, "wrong": "December 18, 1949"}
    assert "flagged" not in flagged


def test_a_death_date_is_written_the_way_the_sentence_writes_dates() -> None:
    text = "She died on 3 March 2023."
    fixed = date_fix(_edit(text, "2023", "2022"), text, (0, len(text)), [LIFE])
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("3 March 2023",
                                                                      "18 February 2024")  # fmt: skip
    month_only = "She died in March 2023."
    fixed = date_fix(_edit(month_only, "March", "May"), month_only, (0, len(month_only)), [LIFE])
    assert fixed is not None and fixed["right"] == "February 2024"


def test_without_a_role_the_one_other_date_of_the_closest_sentence() -> None:
    text = "The bridge opened on June 2, 1951."
    one = [{"text": "The bridge opened on June 2, 1950 after four years of work."}]
    fixed = date_fix(_edit(text, "1951", "1952"), text, (0, len(text)), one)
    assert fixed is not None and fixed["right"] == "June 2, 1950"
    two = [{"text": "The bridge opened on June 2, 1950 and closed on May 1, 1990."}]
    assert date_fix(_edit(text, "1951", "1952"), text, (0, len(text)), two) is None


def test_edits_that_are_not_a_part_of_a_wrong_date_are_left_alone() -> None:
    span = (0, len(TEXT))
    assert date_fix(_edit(TEXT, "Boston", "Denver"), TEXT, span, [LIFE]) is None  # no date
    assert date_fix(_edit(TEXT, "1949, in Boston", "1942"), TEXT, span, [LIFE]) is None  # wider
    # a deletion of a part holding no whole date stays a deletion
    assert date_fix(_edit(TEXT, "December", ""), TEXT, span, [LIFE]) is None
    right = "Ada Moss was born on July 27, 1942."
    assert date_fix(_edit(right, "1942", "1943"), right, (0, len(right)), [LIFE]) is None
    # two birth dates in equally close evidence sentences: the evidence disagrees
    two_births = [{"text": "ada moss was born on may 1, 1950."},
                  {"text": "ada moss was born on june 2, 1951."}]  # fmt: skip
    assert date_fix(_edit(TEXT, "1949"), TEXT, span, two_births) is None
    # of two, the closer sentence (more words shared with the sentence) gives the date
    closer = [*two_births[:1], {"text": "ada moss, american painter, was born on june 2, 1951."}]
    fixed = date_fix(_edit(TEXT, "1949"), TEXT, span, closer)
    assert fixed is not None and fixed["right"] == "June 2, 1951"


def test_a_deleted_sentence_with_a_wrong_date_is_corrected_instead() -> None:
    text = "Ada Moss paints. She was born on December 18, 1949."
    start = text.index("She")
    deletion: EditSpan = {"type": "invented", "start": start, "end": len(text),
                          "wrong": text[start:], "right": ""}  # fmt: skip
    fixed = date_fix(deletion, text, (start, len(text)), [LIFE], subject="Ada Moss")
    assert fixed is not None and fixed["type"] == "invented"
    assert (fixed["wrong"], fixed["right"]) == ("December 18, 1949", "July 27, 1942")
    assert text[fixed["start"] : fixed["end"]] == fixed["wrong"]
    # another person's birth date is not hers: the deletion stays the gate's to judge
    assert date_fix(deletion, text, (start, len(text)), [OTHER], subject="Ada Moss") is None
    assert date_fix(deletion, text, (start, len(text)), [OTHER]) is not None  # whose, unknown


NOBEL = "Marie Curie was born in Warsaw. She won the Nobel Prize in Chemistry in 1921 for radium."
CURIE = {"title": "Marie Curie", "text": "In 1911 she won the Nobel Prize in Chemistry alone, for "
         "discovering the elements polonium and radium."}  # fmt: skip


def test_a_year_the_evidence_contradicts_is_fixed_from_a_deletion_a_flag_or_an_edit_of_it() -> None:
    from favakit.inference.date_fix import year_fix

    second = (NOBEL.index("She"), len(NOBEL))
    sentence = NOBEL[second[0] :]
    deletion: EditSpan = {"type": "unverifiable", "start": second[0], "end": second[1],
                          "wrong": sentence, "right": ""}  # fmt: skip
    flag: EditSpan = {**deletion, "right": sentence, "flagged": True}
    for edit in (deletion, flag, _edit(NOBEL, "1921"), _edit(NOBEL, "1921", "14")):
        fixed = year_fix(edit, NOBEL, second, [CURIE])
        assert fixed is not None, edit
        assert (fixed["type"], fixed["wrong"], fixed["right"]) == ("entity", "1921", "1911")
        assert NOBEL[fixed["start"] : fixed["end"]] == "1921" and "flagged" not in fixed
    # an edit that does not hold the year, evidence giving two other years, or none: no year fix
    assert year_fix(_edit(NOBEL, "radium", "polonium"), NOBEL, second, [CURIE]) is None
    two = {
        "title": "x",
        "text": "In 1911 and 1912 she won the Nobel Prize in Chemistry for radium.",
    }
    assert year_fix(flag, NOBEL, second, [two]) is None
    assert (
        year_fix(flag, NOBEL, second, [{"title": "y", "text": "She won the Nobel Prize."}]) is None
    )


def test_the_gate_fixes_a_contradicted_year_the_editor_left_alone_or_deleted() -> None:
    from favakit.inference.gate_edits import gate_result

    first, second = (0, NOBEL.index(" She")), (NOBEL.index("She"), len(NOBEL))
    sentence = NOBEL[second[0] :]
    deletion: EditSpan = {"type": "unverifiable", "start": second[0], "end": second[1],
                          "wrong": sentence, "right": ""}  # fmt: skip
    for edits in ([], [deletion]):
        result = {"original": NOBEL, "corrected": NOBEL, "edits": edits, "evidence": [CURIE]}
        gated = gate_result(result, [first, second], [0.9, 0.02], 0.12)  # type: ignore[arg-type]
        assert gated["corrected"] == NOBEL.replace("1921", "1911"), edits
        (fix,) = gated["edits"]
        assert fix["cites"]["sentence"].startswith("In 1911") and not fix.get("flagged")
        # the gate says what it did, as it does for flags
        assert "sentence(s)" in gated["warnings"][-1]
    assert (
        gated["warnings"][-1]
        == "1 of 2 sentence(s) supported by the evidence were left as they are"
    )
    fixed_alone = gate_result({"original": NOBEL, "corrected": NOBEL, "edits": [], "evidence": [CURIE]},  # type: ignore[typeddict-item]
                              [first, second], [0.02, 0.02], 0.12)  # fmt: skip
    assert fixed_alone["warnings"] == [
        "1 sentence(s) the evidence does not support had their year, count or name fixed from it",
        "1 sentence(s) the evidence does not support were flagged with no fix (1 at the words "
        "the evidence does not back)",
    ]


TURING = {"title": "Alan Turing", "text": "Alan Turing was born in London in 1912. In 1950 he "
          "proposed the Turing test. He died in 1954."}  # fmt: skip
DEATH = "Alan Turing proposed the Turing test in 1950 and passed away in 1957."


def test_a_birth_or_death_year_is_fixed_to_the_one_the_evidence_gives_that_role() -> None:
    from favakit.inference.date_fix import role_year_fix

    whole = (0, len(DEATH))
    # the year rule finds no conflict here (the sentence matching best is the Turing test's,
    # whose year the text gives), but the death year has its role word before it
    fixed = role_year_fix(_edit(DEATH, "1957"), DEATH, whole, [TURING], subject="Alan Turing")
    assert fixed is not None
    assert (fixed["type"], fixed["wrong"], fixed["right"]) == ("entity", "1957", "1954")
    assert DEATH[fixed["start"] : fixed["end"]] == "1957" and "flagged" not in fixed
    born = "Alan Turing was born in 1921 in London."
    fixed = role_year_fix(_edit(born, "1921"), born, (0, len(born)), [TURING], "Alan Turing")
    assert fixed is not None and fixed["right"] == "1912"
    # another person's passage, a year with no role, a right year, two death years, no subject
    other = {"title": "Bo Lee", "text": "Bo Lee died in 1960."}
    assert role_year_fix(_edit(DEATH, "1957"), DEATH, whole, [other], "Alan Turing") is None
    assert role_year_fix(_edit(DEATH, "1950"), DEATH, whole, [TURING], "Alan Turing") is None
    right = DEATH.replace("1957", "1954")
    assert role_year_fix(_edit(right, "1954"), right, whole, [TURING], "Alan Turing") is None
    two = {**TURING, "text": TURING["text"] + " Some say he died in 1955."}
    assert role_year_fix(_edit(DEATH, "1957"), DEATH, whole, [two], "Alan Turing") is None
    assert role_year_fix(_edit(DEATH, "1957"), DEATH, whole, [TURING], "") is None


def test_the_gate_fixes_a_death_year_from_an_edit_or_a_sentence_the_editor_left_alone() -> None:
    from favakit.inference.gate_edits import gate_result

    text = "Alan Turing was a mathematician. " + DEATH.replace("Alan Turing", "He")
    first, second = (0, text.index(" He")), (text.index("He"), len(text))
    for edits in ([], [_edit(text, "1957")]):
        result = {"original": text, "corrected": text, "edits": edits, "evidence": [TURING]}
        gated = gate_result(result, [first, second], [0.9, 0.01], 0.12)  # type: ignore[arg-type]
        assert gated["corrected"] == text.replace("1957", "1954"), edits
        (fix,) = gated["edits"]
        assert fix["cites"]["sentence"] == "He died in 1954." and not fix.get("flagged")


def test_a_year_is_not_fixed_from_another_persons_article() -> None:
    from favakit.inference.date_fix import year_fix

    text = "Rosalind Franklin was a chemist. She won the Nobel Prize in Chemistry in 1921."
    second = (text.index("She"), len(text))
    flag = _edit(text, "1921")
    # the matching sentence is Marie Curie's (her article's title names her, not Franklin)
    assert year_fix(flag, text, second, [CURIE], subject="Rosalind Franklin") is None
    # whose, unknown: the evidence's year, as before; and Curie's own text takes it
    assert year_fix(flag, text, second, [CURIE])["right"] == "1911"  # type: ignore[index]
    assert year_fix(flag, text, second, [CURIE], subject="Marie Curie")["right"] == "1911"  # type: ignore[index]


def test_an_untitled_article_is_about_the_name_it_opens_with() -> None:
    from favakit.inference.count_fix import count_fix
    from favakit.inference.date_fix import year_fix

    # evidence given inline has no title: its opening name says whom it is about
    vale = {"title": "", "text": "Kerstin Vale (born 1985) is a Scottish runner. She competed "
            "at two Olympic Games. She retired from racing in 2017."}  # fmt: skip
    text = "Kerstin Vale is a runner. She competed at three Olympic Games. She retired from racing in 2016."
    second = (text.index("She competed"), text.index(" She retired"))
    third = (text.index("She retired"), len(text))
    three, year = _edit(text, "three"), _edit(text, "2016")
    assert count_fix(three, text, second, [vale], "Kerstin Vale")["right"] == "two"  # type: ignore[index]
    assert year_fix(year, text, third, [vale], "Kerstin Vale")["right"] == "2017"  # type: ignore[index]
    # another person's untitled article lends nothing
    other = {**vale, "text": vale["text"].replace("Kerstin Vale", "Ann Moray")}
    assert count_fix(three, text, second, [other], "Kerstin Vale") is None
    assert year_fix(year, text, third, [other], "Kerstin Vale") is None


def test_a_flagged_day_the_evidence_gives_otherwise_is_fixed_to_its_day() -> None:
    from favakit.inference.date_fix import day_fix

    text = "Mike Friedrich was born on March 17, 1949. He writes comics."
    bio = {"title": "Mike Friedrich", "text": "Mike Friedrich (born March 27, 1949) is a writer."}
    first = (0, text.index(" He"))
    fixed = day_fix(_edit(text, "17"), text, first, [bio], "Mike Friedrich")
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("17", "27")
    assert text[fixed["start"] : fixed["end"]] == "17" and "flagged" not in fixed
    # an edit elsewhere in the sentence, another person's article, or two other days: no fix
    assert day_fix(_edit(text, "born"), text, first, [bio], "Mike Friedrich") is None
    assert day_fix(_edit(text, "17"), text, first, [bio], "Ada Moss") is None
    two = {"title": "Mike Friedrich",
           "text": "Mike Friedrich (born March 27, 1949, baptised March 29, 1949) is a writer."}  # fmt: skip
    assert day_fix(_edit(text, "17"), text, first, [two], "Mike Friedrich") is None
