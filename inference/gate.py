"""Checker-gated editing: an editor's edits kept only where the checker finds the text
unsupported by its evidence.

Any :class:`~favakit.contracts.Editor` proposes edits for the whole text (it also retrieves the
evidence when the request has none). :class:`GatedEditor` then splits the text into sentences,
scores each against the result's evidence with the encoder checker (P(supported), evidence read
in pieces, the best piece counts) and drops every edit inside a sentence the checker calls
supported, so that such a sentence comes back exactly as it was. Each kept edit carries its
sentence's ``checker_score``; the result's ``warnings`` count the sentences left alone and the
edits dropped. Texts with no evidence at all are not gated (the checker has nothing to read).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from favakit.contracts import EditInput, Editor, EditResult, EditSpan, as_request
from favakit.inference.checker import Checker
from favakit.tags import apply_edits
from favakit.text import sentence_spans

__all__ = ["GatedEditor", "gate_result"]


def _sentence_of(spans: Sequence[tuple[int, int]], start: int, end: int) -> int | None:
    """The index of the sentence that holds ``[start, end)`` (an edit across two sentences
    belongs to the first); None outside every sentence."""
    for n, (a, b) in enumerate(spans):
        if a <= start < b or (start == end and a <= start <= b):
            return n
    return None


def gate_result(
    result: EditResult, sentences: Sequence[tuple[int, int]], scores: Sequence[float],
    threshold: float,
) -> EditResult:  # fmt: skip
    """``result`` with the edits inside supported sentences (score above ``threshold``)
    dropped, the corrected text made again from the kept edits, and each kept edit's sentence
    score as ``checker_score``."""
    kept: list[EditSpan] = []
    dropped = 0
    for edit in result.get("edits", []):
        n = _sentence_of(sentences, edit["start"], edit["end"])
        score = scores[n] if n is not None else 0.0
        if score > threshold:
            dropped += 1
            continue
        kept.append({**edit, "checker_score": round(score, 4)})
    gated: EditResult = {**result, "edits": kept}
    gated["corrected"] = apply_edits(result["original"], kept)
    supported = sum(s > threshold for s in scores)
    if supported:
        note = (f"{supported} of {len(scores)} sentence(s) supported by the evidence were left as "
                f"they are")  # fmt: skip
        if dropped:
            note += f" ({dropped} proposed edit(s) dropped)"
        gated["warnings"] = [*result.get("warnings", []), note]
    return gated


class GatedEditor:
    """An :class:`~favakit.contracts.Editor` whose edits pass the checker's gate (see the
    module). ``threshold``: P(supported) above which a sentence is left alone (default: the
    checker's own, chosen on its development split)."""

    def __init__(self, editor: Editor, checker: Checker, threshold: float | None = None) -> None:
        self.editor = editor
        self.checker = checker
        self.threshold = checker.threshold if threshold is None else threshold

    @property
    def model(self) -> str:
        return f"{self.editor.model}, gated by {self.checker.name}"

    @property
    def client(self) -> Any:  # what `favakit edit` prints as the editor's kind
        return getattr(self.editor, "client", None)

    def edit_many(self, requests: Sequence[EditInput]) -> list[EditResult]:
        reqs = [as_request(r, i) for i, r in enumerate(requests)]
        results = self.editor.edit_many(reqs)
        texts: list[str] = []
        evidence: list[list[str]] = []
        owner: list[tuple[int, tuple[int, int]]] = []
        for i, result in enumerate(results):
            passages = [p["text"] for p in result.get("evidence", [])]
            if not passages:
                continue
            for span in sentence_spans(result["original"]):
                texts.append(result["original"][span[0] : span[1]])
                evidence.append(passages)
                owner.append((i, span))
        scores = [p for p, _ in self.checker.score(texts, evidence)] if texts else []
        per_text: dict[int, tuple[list[tuple[int, int]], list[float]]] = {}
        for (i, span), p in zip(owner, scores, strict=True):
            spans, ps = per_text.setdefault(i, ([], []))
            spans.append(span)
            ps.append(p)
        return [
            gate_result(r, *per_text[i], self.threshold) if i in per_text else r
            for i, r in enumerate(results)
        ]
