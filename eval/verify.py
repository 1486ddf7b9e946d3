"""Claim verification: is this claim supported by this evidence? (``favakit verify``,
``POST /v1/verify`` on ``favakit serve``).

A judge here is an editor: the claim goes through it with the evidence, and a claim with no
edit is supported. The verdict ``{"supported", "score", "judge"}`` carries ``score``, the
judge's probability that the claim is supported where it has one: the encoder detector's is
``1 - error_probability`` (its most confident span of any type, before thresholds); the trained
verifier's and an instruct model's is the first answer token's P(True) over P(True) + P(False);
the generative editor gives no probability, so its score is 1.0 or 0.0. ``supported`` follows the
edits (for the encoder: a span at or above its type's threshold).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from favakit.eval.factscore import evidence_chunks

__all__ = [
    "STYLES",
    "THRESHOLDS",
    "LLMVerifier",
    "choose_threshold",
    "claim_request",
    "default_style",
    "default_threshold",
    "evidence_chunks",
    "open_verifier",
    "verdict",
]

# How a judge model asked through its chat template is asked by default, and the P(supported)
# above which it calls a claim supported, per prompt style; chosen on favakit's own synthetic
# validation claims (never on labelled evaluation data). How, and what they give on real pairs:
# docs/verifier.md, "Prompt styles" and "Decision thresholds". Other models: FActScore's prompt
# and 0.5.
STYLES: dict[str, str] = {"qwen2.5-coder-1.5b": "strict"}
THRESHOLDS: dict[tuple[str, str], float] = {
    ("qwen2.5-coder-1.5b", "factscore"): 0.75,
    ("qwen2.5-coder-1.5b", "strict"): 0.35,
}


def default_style(model: str) -> str:
    """The prompt style judge ``model`` (a preset name) is asked in through its chat template:
    :data:`STYLES`, else ``"factscore"``."""
    return STYLES.get(model, "factscore")


def default_threshold(model: str, style: str | None = None) -> float:
    """The decision threshold of judge ``model`` (a preset name) asked in ``style`` (default:
    :func:`default_style`) through its chat template: :data:`THRESHOLDS`, else 0.5 (the likelier
    answer)."""
    return THRESHOLDS.get((model, style or default_style(model)), 0.5)


def choose_threshold(labels: list[bool], scores: list[float]) -> tuple[float, float]:
    """(threshold, balanced accuracy): the threshold on P(supported), from 0.05 to 0.95 in steps
    of 0.05, with the best balanced accuracy of ``score > threshold`` against ``labels`` (ties:
    the one nearest 0.5). Meant for a judge's synthetic validation claims, never for labelled
    evaluation data. A result of 0.05 or 0.95 sits at the grid's end: the judge's scores are
    squeezed toward one side and a better threshold may lie beyond it (docs/verifier.md)."""
    if len(labels) != len(scores) or all(labels) or not any(labels):
        raise ValueError("need as many scores as labels, and both labels among them")
    pos = sum(labels)
    neg = len(labels) - pos

    def balanced(t: float) -> float:
        tp = sum(1 for y, s in zip(labels, scores, strict=True) if y and s > t)
        tn = sum(1 for y, s in zip(labels, scores, strict=True) if not y and s <= t)
        return 0.5 * (tp / pos + tn / neg)

    grid = [round(0.05 * i, 2) for i in range(1, 20)]
    best = max(grid, key=lambda t: (round(balanced(t), 9), -abs(t - 0.5)))
    return best, balanced(best)


def claim_request(row: Any, where: str = "") -> dict[str, Any]:
    """A verify row ``{"id"?, "text" | "claim", "evidence"?}`` as an edit request object;
    ``ValueError`` naming the field when it is not one."""
    if isinstance(row, Mapping) and "text" not in row and "claim" in row:
        row = {**row, "text": row["claim"]}
    from favakit.inference.editor import EditRequest

    req = EditRequest.from_obj(row, where)  # validates text and evidence
    out: dict[str, Any] = {"text": req.text}
    if req.evidence is not None:
        out["evidence"] = [{"title": r.title, "text": r.text} for r in req.evidence]
    if req.topic:
        out["topic"] = req.topic
    return out


def verdict(result: Mapping[str, Any], judge: str) -> dict[str, Any]:
    """The verdict of one edit result."""
    supported = not result.get("edits")
    if "error_probability" in result:
        score = round(1.0 - float(result["error_probability"]), 4)
    else:
        score = 1.0 if supported else 0.0
    out = {"supported": supported, "score": score, "judge": judge}
    if result.get("warnings"):
        out["warnings"] = list(result["warnings"])
    return out


class LLMVerifier:
    """A causal LM asked "True or False?" about each claim (FActScore's judge prompt,
    :class:`~favakit.eval.factscore.Judge`), read from its first token's log-probabilities where
    the backend returns them: an instruct model through its chat template (``chat=True``), or
    favakit's trained verifier on the bare prompt it was trained on (``chat=False``). Its results
    look like edit results (an unsupported claim has one edit, ``error_probability`` is
    ``1 - P(supported)`` where known), so :func:`verdict` reads them like any editor's."""

    def __init__(
        self,
        client: Any,
        chat: bool = True,
        max_tokens: int = 8,
        chunk_words: int | None = 0,
        threshold: float | None = None,
        style: str = "factscore",
        chunk_above: int = 0,
    ) -> None:
        from favakit.eval.factscore import Judge

        self.judge = Judge(
            client,
            chat=chat,
            max_tokens=max_tokens,
            chunk_words=chunk_words,
            threshold=threshold,
            style=style,
            chunk_above=chunk_above,
        )
        self.client = client
        self.model = str(client.model)
        self._lock = threading.Lock()  # the server's threads share one in-process model

    def edit_many(self, requests: list[Any]) -> list[dict[str, Any]]:
        from favakit.eval.factscore import Check

        checks = [Check(*_claim_parts(r)) for r in requests]
        with self._lock:
            scored = self.judge.judge_detailed(checks)
        out = []
        for ok, p, notes in scored:
            res: dict[str, Any] = {"edits": [] if ok else [{"type": "unverifiable"}]}
            if p is not None:
                res["error_probability"] = 1.0 - p
            if notes:
                res["warnings"] = notes
            out.append(res)
        return out


def _claim_parts(r: Any) -> tuple[str, str, list[dict[str, str]]]:
    """(topic, claim, passages) of a claim request (a dict from :func:`claim_request`, or an
    :class:`~favakit.inference.editor.EditRequest` from the server)."""
    if isinstance(r, Mapping):
        return str(r.get("topic") or ""), str(r["text"]), list(r.get("evidence") or [])
    evidence = [{"title": e.title, "text": e.text} for e in (r.evidence or [])]
    return str(r.topic or ""), str(r.text), evidence


def open_verifier(
    model: str = "",
    adapter: str | None = None,
    llm_endpoint: str | None = None,
    chunk_words: int | None = None,
    threshold: float | None = None,
    **client_options: Any,
) -> LLMVerifier:
    """favakit's trained claim verifier: the shipped adapter over SmolLM2 unless ``model`` /
    ``adapter`` / ``llm_endpoint`` name another (a server must hold the verifier's weights).
    Evidence longer than ``chunk_words`` words is judged in pieces (0: whole; None, the default:
    evidence longer than :data:`VERIFIER_WHOLE_WORDS` words in pieces of
    :data:`VERIFIER_PIECE_WORDS`, measured in docs/verifier.md, "Long evidence"); a claim is
    supported when P(supported) is above ``threshold`` (default 0.5)."""
    from favakit.inference.generators import open_client
    from favakit.inference.models import default_verifier

    if not llm_endpoint and not adapter and not model:
        model, adapter = "smollm2", default_verifier()
    client = open_client(model, adapter, llm_endpoint=llm_endpoint, **client_options)
    # trained to answer in one token
    if chunk_words is None:
        chunk_words, chunk_above = VERIFIER_PIECE_WORDS, VERIFIER_WHOLE_WORDS
    else:
        chunk_above = 0
    return LLMVerifier(
        client,
        chat=False,
        max_tokens=1,
        chunk_words=chunk_words,
        threshold=threshold,
        chunk_above=chunk_above,
    )


# The verifier reads evidence of up to 2,000 words whole and longer evidence in pieces of about
# 400 words: on 148 synthetic claims padded to about 2,500 words, pieces gave 0.646 balanced
# accuracy against 0.595 whole (0.707 unpadded); docs/verifier.md, "Long evidence".
VERIFIER_WHOLE_WORDS = 2000
VERIFIER_PIECE_WORDS = 400
