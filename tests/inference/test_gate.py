"""Checker-gated editing: the gate's rule on explicit scores (pure), and end to end with a real
checker over the shipped encoder detector in tests/training/test_checker.py."""

from __future__ import annotations

from favakit.contracts import EditResult
from favakit.inference.gate import gate_result
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
