"""A judgement stated as a fact (favakit.inference.opinion_check): found by rule, then deleted
where the gate flagged its sentence: its evaluative words, its clause or the whole sentence,
whichever is the smallest the checker finds leaves the sentence supported."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from favakit.inference.opinion_check import (
    opinion_deletions,
    opinion_words,
    without_clause,
    without_opinion,
)
from favakit.tags import apply_edits

sys.path.insert(0, str(Path(__file__).parent))
from test_gate import _ByText  # the gate's judge as a table (the rule under test is this module's)


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("It is by far the most beautiful sight in the night sky.", ["beautiful"]),
        ("He is widely regarded as the greatest composer who ever lived.",
         ["widely regarded as", "who ever lived"]),
        ("It is arguably the most breathtaking place on the planet.", ["arguably", "breathtaking"]),
        # the hedge without "as" (session 50)
        ("He is widely considered one of the most influential researchers.", ["widely considered"]),
        ("It is generally considered to be the oldest bridge.", ["generally considered to be"]),
        ("Beautiful gardens surround the palace.", ["Beautiful"]),
        # a capitalised word after the first is part of a name; plain facts say nothing
        ("She starred in A Beautiful Mind in 2001.", []),
        ("Jupiter is the largest planet in the Solar System.", []),
    ],
)  # fmt: skip
def test_a_judgement_is_found_by_its_hedges_and_evaluative_words(
    sentence: str, said: list[str]
) -> None:
    assert [sentence[a:b] for a, b, _ in opinion_words(sentence)] == said


@pytest.mark.parametrize(
    ("sentence", "after"),
    [
        ("The plan sets impressive goals for 2030.", "The plan sets goals for 2030."),
        # with the words that intensify it, a coordination after it, the article mended
        ("It is a very beautiful and old city.", "It is an old city."),
        ("An amazing view opens from the top.", "A view opens from the top."),
        ("Beautiful gardens surround the palace.", "Gardens surround the palace."),
        # no smaller fix: a hedge, or an evaluative word that is what the sentence says
        ("He is widely regarded as the greatest composer.", None),
        ("The view from the top is stunning.", None),
    ],
)  # fmt: skip
def test_evaluative_words_come_out_and_leave_a_sentence(sentence: str, after: str | None) -> None:
    found = without_opinion(sentence)
    if after is None:
        assert found is None
        return
    assert found is not None
    cuts, rest = found
    assert rest == after
    edits = [{"type": "subjective", "start": a, "end": b, "right": r} for a, b, r in cuts]
    assert apply_edits(sentence, edits) == after


def test_the_clause_holding_a_judgement_comes_out() -> None:
    sentence = "It was built for the 1889 World's Fair and is without doubt the finest tower."
    found = without_clause(sentence)
    assert found is not None and found[1] == "It was built for the 1889 World's Fair."
    # no clause before the judgement, or too little before it
    assert without_clause("It is without doubt the finest tower in Europe.") is None
    assert without_clause("It is tall, and arguably the finest.") is None


EVIDENCE = [{"title": "Tower", "text": "The tower was built in 1889. It is 330 metres tall."}]


def _flagged(text: str, words: str) -> dict[str, Any]:
    start = text.index(words)
    return {"type": "relation", "start": start, "end": start + len(words), "wrong": words,
            "right": words, "flagged": True, "checker_score": 0.01}  # fmt: skip


def _result(text: str, *edits: dict[str, Any]) -> dict[str, Any]:
    return {"original": text, "corrected": apply_edits(text, edits), "edits": list(edits),
            "evidence": EVIDENCE}  # fmt: skip


def test_the_smallest_deletion_the_checker_supports_replaces_the_flags() -> None:
    first = "The tower was built in 1889. "
    words = first + "It is a stunning tower of 330 metres."
    clause = first + "It is 330 metres tall, and it is without doubt the finest sight in Paris."
    whole = first + "It is by far the most beautiful sight in the night sky."
    judge = _ByText({"It is a tower of 330 metres.": 0.9, "It is 330 metres tall.": 0.9})
    results = [
        _result(words, _flagged(words, "stunning tower")),
        _result(clause, _flagged(clause, "finest sight"), _flagged(clause, "Paris")),
        _result(whole, _flagged(whole, "far"), _flagged(whole, "night sky")),
    ]
    got = opinion_deletions(judge, results, [None] * 3, 0.5)

    assert [r["corrected"] for r in got] == [
        first + "It is a tower of 330 metres.",
        first + "It is 330 metres tall.",
        first.strip(),
    ]
    assert [[(e["type"], e["wrong"], e["right"]) for e in r["edits"]] for r in got] == [
        [("subjective", "stunning", "")],
        [("subjective", ", and it is without doubt the finest sight in Paris", "")],
        [("subjective", "It is by far the most beautiful sight in the night sky.", "")],
    ]  # fmt: skip
    for r in got:
        (edit,) = r["edits"]
        assert edit["cites"]["title"] == "Tower" and edit["checker_score"] == 0.01
        assert r["warnings"][-1].startswith("1 sentence(s) voice a judgement")


def test_only_a_flagged_sentence_with_a_judgement_of_its_own_is_touched() -> None:
    text = "The tower was built in 1889. It is the most beautiful tower in the world."
    used = "The tower was built in 1889. It is 330 metres tall and stunning."
    fix = {**_flagged(text, "1889"), "right": "1890", "flagged": False}
    results = [
        _result(text),  # nothing flagged: the gate found it supported
        _result(text, fix, _flagged(text, "world")),  # a fix in another sentence
        _result(text, {**_flagged(text, "world"), "start": 20}),  # a flag across the bounds
        {**_result(used, _flagged(used, "stunning")),
         "evidence": [{"title": "T", "text": "The tower is stunning."}]},  # the evidence's words
        _result("He was born in 1900. He acted in A Beautiful Mind.",
                _flagged("He was born in 1900. He acted in A Beautiful Mind.", "Mind")),
    ]  # fmt: skip
    assert opinion_deletions(_ByText({}), results, [None] * 5, 0.5)[:1] == results[:1]
    _, with_fix, across, evidence_says, name = opinion_deletions(
        _ByText({}), results, [None] * 5, 0.5
    )
    # the sentence holding only a flag is deleted; the one holding the fix stays as it was
    assert [e["type"] for e in with_fix["edits"]] == ["relation", "subjective"]
    assert (across, evidence_says, name) == (results[2], results[3], results[4])


def test_a_hedge_in_a_sentence_the_gate_let_pass_is_deleted_too() -> None:
    """The checker reads a hedged judgement beside a supported fact as supported (session 49's
    "... and is widely regarded as the most important African architect of his generation"):
    a sentence with no edit whose hedge the evidence never uses is taken as a flagged one is;
    its evaluative words alone are not."""
    first = "The tower was built in 1889. "
    hedged = first + "It is 330 metres tall and is widely regarded as the finest tower ever built."
    evaluative = first + "It is a stunning tower of 330 metres."
    said = first + "It is 330 metres tall and is widely regarded as a symbol of France."
    judge = _ByText({"It is 330 metres tall.": 0.9, hedged[len(first) :]: 0.8})
    results = [_result(hedged), _result(evaluative),
               {**_result(said), "evidence": [{"title": "T", "text": "The tower, 330 metres "
                "tall, is widely regarded as a symbol of France."}]}]  # fmt: skip
    got = opinion_deletions(judge, results, [None] * 3, 0.5)
    (edit,) = got[0]["edits"]
    assert got[0]["corrected"] == first + "It is 330 metres tall."
    assert (edit["type"], edit["right"]) == ("subjective", "")
    assert edit["wrong"] == " and is widely regarded as the finest tower ever built"
    assert edit["checker_score"] == 0.8  # the sentence's own score, asked for it
    assert got[1:] == results[1:]


def test_a_deleted_judgement_that_also_states_a_supported_fact_is_flagged() -> None:
    """In the gate's order (:func:`~favakit.inference.gate_checks.check_edits`), a whole
    sentence deleted for its judgement is checked as the editor's deletions are: where a fact
    it states is supported, it is flagged instead."""
    from favakit.inference.gate_checks import check_edits

    text = ("Mozart was born in 1756. He wrote 600 works, including symphonies and operas, "
            "which are timeless masterpieces.")  # fmt: skip
    judge = _ByText({"Mozart wrote 600 works.": 0.9})
    (got,) = check_edits(judge, [_result(text, _flagged(text, "masterpieces"))], ["Mozart"],
                         0.5, flags="sentences")  # fmt: skip
    (edit,) = got["edits"]
    assert edit["flagged"] and edit["type"] == "subjective" and got["corrected"] == text
    assert edit["wrong"] == text[text.index("He") :]
    # the clause before the judgement was asked first, then the deleted sentence's facts
    assert judge.asked[0] == "Mozart wrote 600 works, including symphonies and operas."
    assert "Mozart wrote 600 works." in judge.asked[1:]
    # with no fact supported, the sentence stays deleted
    (deleted,) = check_edits(_ByText({}), [_result(text, _flagged(text, "masterpieces"))],
                             ["Mozart"], 0.5, flags="sentences")  # fmt: skip
    assert deleted["corrected"] == "Mozart was born in 1756."


def test_the_gate_deletes_an_opinion_the_editor_only_flagged() -> None:
    """End to end with the shipped mpnet checker (the default gate): the demo's Jupiter text,
    whose opinion the editor flagged as a relation at three places, comes back with that
    sentence deleted and the true ones untouched; a clause of opinion after a supported one
    goes alone."""
    from favakit.inference.checker import Checker, checker_folder
    from favakit.inference.gate import GatedEditor

    jupiter = ("Jupiter is the fifth planet from the Sun and the largest planet in the Solar "
               "System. It is by far the most beautiful sight in the night sky.")  # fmt: skip
    eiffel = ("The Eiffel Tower is a wrought-iron lattice tower in Paris. It was built for the "
              "1889 World's Fair and is without doubt the most romantic landmark in Europe.")  # fmt: skip
    evidence = {
        jupiter: "Jupiter is the fifth planet from the Sun and the largest planet in the Solar "
                 "System. Its four largest moons are Io, Europa, Ganymede and Callisto.",
        eiffel: "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. "
                "It was designed by the company of the engineer Gustave Eiffel and built for "
                "the 1889 World's Fair.",
    }  # fmt: skip
    flags = {jupiter: ["far", "most beautiful sight"], eiffel: ["without doubt", "Europe"]}

    class Editor:
        model = "flags"

        def edit_many(self, requests):  # type: ignore[no-untyped-def]
            return [_result(r.text, *(_flagged(r.text, w) for w in flags[r.text]))
                    | {"evidence": [{"title": "source", "text": evidence[r.text]}]}
                    for r in requests]  # fmt: skip

    gate = Checker(checker_folder("mpnet"), role="gate")
    requests = [{"text": t, "evidence": [evidence[t]]} for t in (jupiter, eiffel)]
    planet, tower = GatedEditor(Editor(), gate).edit_many(requests)  # type: ignore[arg-type]
    assert planet["corrected"] == jupiter[: jupiter.index(" It is")]
    assert [(e["type"], e["right"]) for e in planet["edits"]] == [("subjective", "")]
    assert tower["corrected"] == eiffel[: eiffel.index(" and is")] + "."
    assert [e["wrong"] for e in tower["edits"]] == [
        " and is without doubt the most romantic landmark in Europe"
    ]
