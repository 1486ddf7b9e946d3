"""scripts/bench_gate.py: the span overlap of a pipeline's edits and flags with the words a real
set marks unsupported (character precision, recall and F1, spaces not counted)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType


def test_spans_are_scored_against_wice_tokens_and_summedits_diffs(
    bench_script: Callable[[str], ModuleType],
) -> None:
    bench = bench_script("bench_gate")
    text = "It rained in Paris on Monday."
    wice = {"text": text, "label": "not_supported", "spans": [{"start": 13, "end": 18}]}  # Paris
    flag_paris_on = {"edits": [{"start": 13, "end": 21}]}  # "Paris on": 7 characters, 5 right
    got = bench.span_overlap("wice_tokens_test", [wice], [flag_paris_on])
    assert got["spans"] == {"rows": 1, "precision": round(5 / 7, 4), "recall": 1.0,
                            "f1": round(2 * (5 / 7) / (5 / 7 + 1), 4)}  # fmt: skip
    # SummEdits: the gold words are those the edited summary changed; consistent rows count not
    edited = {"text": text, "label": "not_supported", "original": "It rained in Rome on Monday."}
    consistent = {"text": text, "label": "supported", "original": text}
    nothing = {"edits": []}
    got = bench.span_overlap("summedits_ectsum", [edited, consistent], [flag_paris_on, nothing])
    assert got["spans"]["rows"] == 1 and got["spans"]["recall"] == 1.0
    assert bench.span_overlap("summedits_ectsum", [edited], [nothing])["spans"]["f1"] == 0.0
    assert bench.span_overlap("fm2_test", [wice], [flag_paris_on]) == {}  # fm2 marks no words
    # the shape of a set with unsupported rows only: no share left alone to report
    assert bench.shape([wice], [True]) == {"supported_left_alone": None, "unsupported_flagged": 1.0,
                                           "balanced_accuracy": None}  # fmt: skip
