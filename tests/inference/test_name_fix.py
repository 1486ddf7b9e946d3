"""Name fixes (inference/name_fix.py): a name the evidence contradicts becomes the evidence's
words in its place, in the gate too; never from another subject's article."""

from __future__ import annotations

from favakit.contracts import EditSpan
from favakit.inference.name_fix import name_fix

AMAZON = {"title": "Amazon River", "text": "The Amazon River flows across South America from the "
          "Andes Mountains to the Atlantic Ocean. Most of its course runs through Brazil."}  # fmt: skip
TEXT = "The Amazon River flows from the Andes to the Pacific Ocean. Most of it is in Brazil."
FIRST = (0, TEXT.index(" Most"))


def _flag(text: str, sentence: tuple[int, int]) -> EditSpan:
    a, b = sentence
    return {"type": "unverifiable", "start": a, "end": b, "wrong": text[a:b], "right": text[a:b],
            "flagged": True}  # fmt: skip


def test_a_flag_holding_a_contradicted_name_becomes_its_fix() -> None:
    fixed = name_fix(_flag(TEXT, FIRST), TEXT, FIRST, [AMAZON], "Amazon River")
    assert fixed is not None and "flagged" not in fixed
    assert (fixed["type"], fixed["wrong"], fixed["right"]) == ("entity", "Pacific", "Atlantic")
    assert TEXT[fixed["start"] : fixed["end"]] == "Pacific"


def test_no_fix_from_another_subjects_article_or_where_the_edit_misses_the_name() -> None:
    nile = {"title": "Nile", "text": "The Nile River flows from the Andes to the Atlantic Ocean."}
    assert name_fix(_flag(TEXT, FIRST), TEXT, FIRST, [nile], "Amazon River") is None
    at = TEXT.index("Andes")
    elsewhere: EditSpan = {"type": "entity", "start": at, "end": at + 5, "wrong": "Andes",
                           "right": "Alps"}  # fmt: skip
    assert name_fix(elsewhere, TEXT, FIRST, [AMAZON], "Amazon River") is None
    right = TEXT.replace("Pacific", "Atlantic")
    assert name_fix(_flag(right, FIRST), right, FIRST, [AMAZON], "Amazon River") is None


def test_the_gate_fixes_a_name_in_a_sentence_the_editor_left_alone() -> None:
    from favakit.inference.gate_edits import gate_result

    second = (TEXT.index("Most"), len(TEXT))
    result = {"original": TEXT, "corrected": TEXT, "edits": [], "evidence": [AMAZON]}
    gated = gate_result(result, [FIRST, second], [0.02, 0.9], 0.12)  # type: ignore[arg-type]
    assert gated["corrected"] == TEXT.replace("Pacific", "Atlantic")
    (fix,) = gated["edits"]
    assert fix["cites"]["sentence"].endswith("to the Atlantic Ocean.")
    assert "had their year, count or name fixed" in gated["warnings"][-1]


def test_the_gate_fixes_a_name_where_the_editor_flagged_other_words() -> None:
    """The editor flagged "from" in the sentence whose wrong word is "Pacific": the sentence's
    flags give way to the name's fix (gate_rule_fixes.fixed_by_the_rules)."""
    from favakit.inference.gate_edits import gate_result

    second = (TEXT.index("Most"), len(TEXT))
    at = TEXT.index("from")
    flag: EditSpan = {"type": "relation", "start": at, "end": at + 4, "wrong": "from",
                      "right": "from", "flagged": True}  # fmt: skip
    result = {"original": TEXT, "corrected": TEXT, "edits": [flag], "evidence": [AMAZON]}
    gated = gate_result(result, [FIRST, second], [0.02, 0.9], 0.12)  # type: ignore[arg-type]
    assert gated["corrected"] == TEXT.replace("Pacific", "Atlantic")
    (fix,) = gated["edits"]
    assert (fix["wrong"], fix["right"]) == ("Pacific", "Atlantic") and "flagged" not in fix


def test_a_person_given_anothers_words_is_fixed_though_the_sentence_opens_with_that_person() -> (
    None
):
    report = {"title": "", "text": "Councillor Dev Mahajan, who leads the planning committee, "
              "said the town needed homes. Councillor Ruth Ellingham, who voted against, said "
              "the roads could not take the extra traffic."}  # fmt: skip
    text = "Councillor Dev Mahajan, who voted against, warned that the roads could not cope."
    whole = (0, len(text))
    flag: EditSpan = {"type": "unverifiable", "start": 0, "end": len(text), "wrong": text,
                      "right": text, "flagged": True}  # fmt: skip
    fixed = name_fix(flag, text, whole, [report], "Councillor Dev Mahajan")
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == (
        "Dev Mahajan",
        "Ruth Ellingham",
    )
