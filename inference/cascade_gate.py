"""The cascade as the gate's judge (``favakit edit --gate cascade``).

The encoder checker scores every sentence; a sentence whose score falls in the band stored with
the checker (``checker.json``'s ``cascade``, chosen on its development split for verdicts:
``favakit verify --judge cascade``) is asked of a second judge, the tuned Qwen judge, which
reads the evidence cut to the words that share the most with the sentence (``second_words``).
Outside the band the checker's score stands, and with it the rules beneath the checker (a
contradicted year, count or name caps a score under the band, so the judge is never asked to
overrule a rule).

The gate compares one score with two thresholds: its own (left alone above it) and the
verdict threshold (a fix holds above it). The second judge has its own pair, stored in its
``judge.json`` and chosen on the same development split. So that both decisions are the
judge's own, its P(supported) is put on the checker's scale by the piecewise-linear map through
``(0, low)``, ``(judge gate threshold, checker gate threshold)``, ``(judge threshold, checker
threshold)`` and ``(1, high)``: increasing, so a sentence the judge decides is left alone
exactly when the judge's P(supported) is above its gate threshold, and a fix holds exactly when
it is above its verdict threshold. Such a score stays inside the band; it orders sentences as
the judge does but is not the checker's probability.

The same sentence is often scored more than once by the gate (as written, then as a fix leaves
it); the judge's last :data:`KEPT_ANSWERS` answers are kept (:attr:`CascadeScorer.asked` counts
the questions it really asked), so a server's memory stays bounded.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

from favakit.citations import strip_marks
from favakit.contracts import EditInput, Verifier

if TYPE_CHECKING:
    from favakit.inference.checker import Checker

__all__ = ["KEPT_ANSWERS", "CascadeScorer", "onto_scale"]

#: How many of the judge's answers a scorer keeps, the oldest dropped first.
KEPT_ANSWERS = 4096

#: A question to the judge: a text and its evidence.
Question = tuple[str, tuple[str, ...]]


def onto_scale(q: float, knots: Sequence[tuple[float, float]]) -> float:
    """``q`` mapped by the piecewise-linear function through ``knots`` (``(x, y)`` pairs, ``x``
    increasing from 0 to 1); ``q`` outside [0, 1] is clipped."""
    q = min(max(q, 0.0), 1.0)
    for (x0, y0), (x1, y1) in pairwise(knots):
        if q <= x1:
            return y0 + (y1 - y0) * (q - x0) / (x1 - x0)
    return knots[-1][1]


class CascadeScorer:
    """A :class:`~favakit.inference.gate_edits.SentenceScorer` (see the module): ``checker``
    (an encoder :class:`~favakit.inference.checker.Checker`) scores every sentence, ``judge``
    (any :class:`~favakit.contracts.Verifier`) the ones whose checker score lies in ``band``
    (``low``, ``high``, inclusive), its P(supported) put on the checker's scale through
    ``judge_thresholds`` (its gate threshold, then its verdict threshold). It marks words with
    the checker's token head."""

    def __init__(
        self, checker: Checker, judge: Verifier, band: tuple[float, float],
        judge_thresholds: tuple[float, float], second_words: int = 300,
    ) -> None:  # fmt: skip
        low, high = (float(b) for b in band)
        judge_gate, judge_verdict = (float(t) for t in judge_thresholds)
        own_gate, own_verdict = float(checker.gate_threshold), float(checker.threshold)
        xs = (0.0, judge_gate, judge_verdict, 1.0)
        ys = (low, own_gate, own_verdict, high)
        if not all(a < b for seq in (xs, ys) for a, b in pairwise(seq)):
            raise ValueError(
                f"cascade gate: want 0 < judge gate threshold < judge threshold < 1 "
                f"({judge_gate}, {judge_verdict}) and band low < checker gate threshold < "
                f"checker threshold < band high ({low}, {own_gate}, {own_verdict}, {high})"
            )
        self.checker, self.judge = checker, judge
        self.band = (low, high)
        self.knots = tuple(zip(xs, ys, strict=True))
        self.second_words = second_words
        self.gate_threshold, self.threshold = own_gate, own_verdict
        self.name = f"{checker.name}+{judge.model}"
        self.marks_words = bool(getattr(checker, "marks_words", False))
        self.asked = 0
        self._answers: dict[Question, float] = {}
        self._lock = threading.Lock()  # a server's threads share the answers

    def unsupported_spans(
        self, texts: Sequence[str], evidence: Sequence[Sequence[str]], threshold: float = 0.5
    ) -> list[list[tuple[int, int, float]]]:
        """The checker's token head (:class:`~favakit.inference.gate_words.WordMarker`)."""
        return self.checker.unsupported_spans(texts, evidence, threshold)

    def score(
        self,
        texts: Sequence[str],
        evidence: Sequence[Sequence[str]],
        *,
        enough: float | None = None,
    ) -> list[tuple[float, int]]:
        """(score, passes) per text: the checker's, or inside the band the judge's P(supported)
        on the checker's scale. With ``enough``, the checker stops reading a text's pieces above
        the band's top (or ``enough``, if higher): above it the checker decides alone."""
        low, high = self.band
        first = self.checker.score(
            texts, evidence, enough=None if enough is None else max(enough, high)
        )
        keys = [(t, tuple(e)) for t, e in zip(texts, evidence, strict=True)]
        unsure = [i for i, (p, _) in enumerate(first) if low <= p <= high]
        known = self._judged([keys[i] for i in unsure])
        out = list(first)
        for i in unsure:
            out[i] = (round(onto_scale(known[keys[i]], self.knots), 4), first[i][1])
        return out

    def doubts(self, texts: Sequence[str], evidence: Sequence[Sequence[str]]) -> list[bool]:
        """Per text, whether the judge calls it supported as written (its P(supported) above
        its verdict threshold), where no rule beneath the checker found its evidence
        contradicting it (a rule's finding stands). The gate's second opinion before a fix
        changes a sentence, asked even where the checker was sure, under the band
        (:func:`~favakit.inference.gate_checks.fixes_the_judge_doubts`). The verdict threshold,
        not the judge's lower gate threshold, since it overrules a sure checker (chosen on the
        development split: ``scripts/fix_doubts.py``, docs/benchmarks.md, session 56)."""
        keys = [(t, tuple(e)) for t, e in zip(texts, evidence, strict=True)]
        free = [i for i, (t, e) in enumerate(keys) if self.checker.conflict(t, list(e)) is None]
        known = self._judged([keys[i] for i in free])
        judge_verdict = self.knots[2][0]
        return [i in free and known[keys[i]] > judge_verdict for i in range(len(keys))]

    def _judged(self, keys: Sequence[Question]) -> dict[Question, float]:
        """The judge's P(supported) of each (text, evidence) key: kept answers, the others asked
        in one call."""
        from favakit.inference.verifiers import cut_evidence

        with self._lock:
            known = {k: self._answers[k] for k in keys if k in self._answers}
        todo = sorted(set(keys) - known.keys())
        if todo:
            # read as the checker reads a text: without its citation marks ("[1]")
            claims: list[EditInput] = [{"text": strip_marks(t), "evidence": list(e)}
                                       for t, e in todo]  # fmt: skip
            verdicts = self.judge.verify(cut_evidence(claims, self.second_words))
            answers = {key: float(v["score"]) for key, v in zip(todo, verdicts, strict=True)}
            known.update(answers)
            with self._lock:
                self.asked += len(todo)
                self._answers.update(answers)
                while len(self._answers) > KEPT_ANSWERS:  # the oldest answer goes first
                    del self._answers[next(iter(self._answers))]
        return known
