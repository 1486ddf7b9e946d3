"""Balanced accuracy and ROC AUC of verdicts against labelled claims."""

from __future__ import annotations

import math
import random

from favakit.claim_metrics import (
    balanced_accuracy,
    label_of,
    labelled_summary,
    per_source,
    roc_auc,
)


def _pairwise_auc(labels: list[bool], scores: list[float]) -> float:
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    return sum((a > b) + 0.5 * (a == b) for a in pos for b in neg) / (len(pos) * len(neg))


def test_auc_from_ranks_is_the_share_of_pairs_ranked_right_ties_half() -> None:
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(2, 30)
        labels = [rng.random() < 0.5 for _ in range(n)]
        if len(set(labels)) < 2:
            continue
        scores = [round(rng.random(), 1) for _ in range(n)]  # many ties
        auc = roc_auc(labels, scores)
        assert auc is not None and math.isclose(auc, _pairwise_auc(labels, scores), abs_tol=1e-12)
    assert roc_auc([True, True], [0.1, 0.9]) is None


def test_balanced_accuracy_and_the_summary() -> None:
    labels = [True, True, True, False]
    scores = [0.9, 0.8, 0.1, 0.3]
    assert balanced_accuracy(labels, scores, 0.5) == 0.5 * (2 / 3 + 1)
    assert math.isnan(balanced_accuracy([True], [0.9], 0.5))
    got = labelled_summary(labels, [s > 0.5 for s in scores], scores)
    assert got["balanced_accuracy"] == round(0.5 * (2 / 3 + 1), 4)
    assert (got["supported"], got["not_supported"]) == (3, 1)
    assert got["roc_auc"] == round(2 / 3, 4)
    one = labelled_summary([True, True], [True, False], [0.9, 0.1])
    assert one["balanced_accuracy"] is None and one["supported_called_supported"] == 0.5


def test_labels_are_read_in_both_shapes() -> None:
    assert label_of({"label": "supported"}) is True
    assert label_of({"label": "not_supported"}) is False
    assert label_of({"label": False}) is False  # favakit synth claims
    assert label_of({"label": "SUPPORTS"}) is None and label_of({}) is None


def test_per_source_means_the_sources_that_hold_both_labels() -> None:
    labels = [True, False, True, False, True, True]
    said = [True, False, False, False, True, False]
    sources = ["a", "a", "b", "b", "c", "c"]  # c holds one label: no balanced accuracy
    each, mean = per_source(labels, said, sources)
    assert each == {"a": (1.0, 2), "b": (0.5, 2)} and mean == 0.75
    assert per_source(labels[:2], said[:2], sources[:2]) == ({"a": (1.0, 2)}, None)
