"""How a judge's verdicts measure against labelled claims: balanced accuracy and ROC AUC.

Torch-free and shared: ``favakit verify`` reports them when its input rows carry labels, the
checker's training chooses its threshold by them, and the benchmarks report them per set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["balanced_accuracy", "label_of", "labelled_summary", "per_source", "roc_auc"]


def balanced_accuracy(labels: Sequence[bool], scores: Sequence[float], threshold: float) -> float:
    """The mean of the shares of supported claims scored above ``threshold`` and of the others
    at or below it; NaN where the claims hold one label only."""
    pos = [s for y, s in zip(labels, scores, strict=True) if y]
    neg = [s for y, s in zip(labels, scores, strict=True) if not y]
    if not pos or not neg:
        return float("nan")
    return 0.5 * (
        sum(s > threshold for s in pos) / len(pos) + sum(s <= threshold for s in neg) / len(neg)
    )


def roc_auc(labels: Sequence[bool], scores: Sequence[float]) -> float | None:
    """The area under the ROC curve: the chance that a supported claim scores above an
    unsupported one (ties count half), whatever the threshold; None with one label only.
    From the ranks of the scores (ties share their mean rank), so n log n."""
    n_pos = sum(1 for y in labels if y)
    n_neg = len(labels) - n_pos
    if not n_pos or not n_neg:
        return None
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and scores[order[end + 1]] == scores[order[start]]:
            end += 1
        mean_rank = (start + end) / 2 + 1
        for k in range(start, end + 1):
            ranks[order[k]] = mean_rank
        start = end + 1
    pos_ranks = sum(r for r, y in zip(ranks, labels, strict=True) if y)
    return (pos_ranks - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def label_of(row: Mapping[str, Any]) -> bool | None:
    """A row's label as "is it supported": ``"label": "supported" | "not_supported"`` (favakit's
    real-data rows), or ``true``/``false`` (``favakit synth claims``); None where it has none."""
    label = row.get("label")
    if isinstance(label, bool):
        return label
    if label in ("supported", "not_supported"):
        return bool(label == "supported")
    return None


def labelled_summary(
    labels: Sequence[bool], supported: Sequence[bool], scores: Sequence[float]
) -> dict[str, Any]:
    """What the verdicts (``supported``, ``score``) say against the claims' ``labels``."""
    pos = [s for s, y in zip(supported, labels, strict=True) if y]
    neg = [s for s, y in zip(supported, labels, strict=True) if not y]
    hit_pos = round(sum(pos) / len(pos), 4) if pos else None
    hit_neg = round(sum(not s for s in neg) / len(neg), 4) if neg else None
    balanced = None
    if hit_pos is not None and hit_neg is not None:
        balanced = round((sum(pos) / len(pos) + sum(not s for s in neg) / len(neg)) / 2, 4)
    auc = roc_auc(labels, scores)
    return {
        "claims": len(labels),
        "supported": len(pos),
        "not_supported": len(neg),
        "balanced_accuracy": balanced,
        "supported_called_supported": hit_pos,
        "not_supported_called_not_supported": hit_neg,
        "roc_auc": None if auc is None else round(auc, 4),
    }


def per_source(
    labels: Sequence[bool], supported: Sequence[bool], sources: Sequence[str]
) -> tuple[dict[str, tuple[float, int]], float | None]:
    """Each source's balanced accuracy and claim count, for the sources holding both labels, and
    the mean over them (as the LLM-AggreFact leaderboard reports a judge over its sets); the
    mean is None where fewer than two sources hold both."""
    groups: dict[str, tuple[list[bool], list[bool]]] = {}
    for y, s, source in zip(labels, supported, sources, strict=True):
        ys, ss = groups.setdefault(source, ([], []))
        ys.append(y)
        ss.append(s)
    each = {}
    for source, (ys, ss) in sorted(groups.items()):
        ba = balanced_accuracy(ys, [float(s) for s in ss], 0.5)
        if not math.isnan(ba):
            each[source] = (round(ba, 4), len(ys))
    mean = round(sum(ba for ba, _ in each.values()) / len(each), 4) if len(each) >= 2 else None
    return each, mean
