"""A negation the evidence contradicts (favakit.inference.negation_fix): the candidate fix found
by rule, and the gate's check of it with the shipped mpnet checker."""

from __future__ import annotations

from typing import Any

import pytest

from favakit.inference.negation_fix import denegated, negated_as_evidence

CURIE = ("Marie Curie was a Polish-born physicist and chemist who worked in France. She was born "
         "in Warsaw in 1867 and died in 1934. Curie was the first woman to win a Nobel Prize: she "
         "shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri Becquerel.")  # fmt: skip


@pytest.mark.parametrize(
    ("sentence", "after"),
    [
        ("She was not the first woman to win a Nobel Prize.", "She was the first woman to win a Nobel Prize."),
        ("He has never been to Paris.", "He has been to Paris."),
        ("He never won the Nobel Prize.", "He won the Nobel Prize."),
        ("She wasn't born in Paris.", "She was born in Paris."),
        ("Wasn't it built in 1889?", "Was it built in 1889?"),
        ("The bridge won't open before May.", "The bridge will open before May."),
        # not taken: no negation, two of them, a verb that would need its past form, and
        # negations that do not deny what follows
        ("He was born in Ulm.", None),
        ("He was not born in Paris and never lived there.", None),
        ("He did not publish it until 1859.", None),
        ("It was not until 1859 that he published it.", None),
        ("It is not only large but also deep.", None),
        ("Whether or not he won is unclear.", None),
        ("No one knows where he was born.", None),
    ],
)  # fmt: skip
def test_the_candidate_fix_drops_the_one_negation(sentence: str, after: str | None) -> None:
    found = denegated(sentence)
    if after is None:
        assert found is None
        return
    assert found is not None
    start, end, right = found
    assert sentence[:start] + right + sentence[end:] == after


def _flagged(text: str, start: int, end: int) -> dict[str, Any]:
    return {"type": "unverifiable", "start": start, "end": end, "wrong": text[start:end],
            "right": text[start:end], "flagged": True, "checker_score": 0.01}  # fmt: skip


def test_the_gate_fixes_a_negation_the_evidence_contradicts_and_only_that() -> None:
    """With the shipped mpnet checker (the default gate): a flagged negated sentence gets the
    negation dropped, with the evidence cited; so does one the editor rewrote into another
    true sentence; an editor's fix that already makes the same sentence stands; a true
    negation is left flagged (the sentence without it is not supported)."""
    from favakit.inference.checker import Checker, checker_folder
    from favakit.inference.negation_fix import negation_fixes
    from favakit.tags import apply_edits

    gate = Checker(checker_folder("mpnet"), role="gate")
    evidence = [{"title": "Marie Curie", "text": CURIE}]
    first = "Marie Curie was born in Warsaw in 1867. "
    wrong = first + "She was not the first woman to win a Nobel Prize."
    n = len(first)
    rewrite = {"type": "contradictory", "start": n, "end": len(wrong), "wrong": wrong[n:],
               "right": "She was born in Warsaw in 1867 and died in 1934."}  # fmt: skip
    same = {**rewrite, "right": "She was the first woman to win a Nobel Prize."}
    true = "Marie Curie was not born in Paris."
    # an edit that reaches from the first sentence into the second: that sentence is left be
    across = {"type": "invented", "start": n - 6, "end": n + 12, "wrong": wrong[n - 6 : n + 12],
              "right": ""}  # fmt: skip
    results: list[Any] = [
        {"original": wrong, "edits": [_flagged(wrong, n, len(wrong) - 1)], "evidence": evidence},
        {"original": wrong, "edits": [rewrite], "evidence": evidence},
        {"original": wrong, "edits": [same], "evidence": evidence},
        {"original": true, "edits": [_flagged(true, 0, len(true) - 1)], "evidence": evidence},
        {
            "original": wrong,
            "edits": [across, _flagged(wrong, n + 13, len(wrong) - 1)],
            "evidence": evidence,
        },
    ]
    for r in results:
        r["corrected"] = apply_edits(r["original"], r["edits"])
    flagged, rewritten, kept, negative, crossing = negation_fixes(
        gate, results, [None] * 5, gate.gate_threshold
    )

    for fixed in (flagged, rewritten):
        (edit,) = fixed["edits"]
        assert (edit["type"], edit["wrong"], edit["right"]) == ("contradictory", "was not", "was")
        assert fixed["corrected"] == first + "She was the first woman to win a Nobel Prize."
        assert "Curie was the first woman to win a Nobel Prize" in edit["cites"]["sentence"]
        assert fixed["warnings"][-1].startswith("1 negation(s) the evidence contradicts dropped")
    assert (kept, negative, crossing) == (results[2], results[3], results[4])


def test_the_candidate_fix_inserts_the_negation_the_evidence_gives() -> None:
    evidence = ["Python 3.0 was released in 2008 and was not fully compatible with earlier "
                "versions."]  # fmt: skip
    sentence = "Python 3.0, released in 2008, was fully compatible with earlier versions."
    found = negated_as_evidence(sentence, evidence)
    assert found is not None
    start, end, right = found
    assert (sentence[start:end], right) == ("was fully", "was not fully")
    # not where the sentence has a negation of its own, nor where the evidence also says it
    # without one, nor where no auxiliary and word line up
    assert negated_as_evidence("It was not fully compatible with Python 2.", evidence) is None
    both = [evidence[0] + " Python 3.12 was fully compatible with 3.11."]
    assert negated_as_evidence(sentence, both) is None
    assert negated_as_evidence("Python 3.0 came out in 2008.", evidence) is None
