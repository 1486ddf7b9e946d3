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

from favakit.errors import UsageError

__all__ = ["LLMVerifier", "claim_request", "evidence_chunks", "open_verifier", "verdict"]


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
        self, client: Any, chat: bool = True, max_tokens: int = 8, chunk_words: int = 0
    ) -> None:
        from favakit.eval.factscore import Judge

        if chunk_words < 0:
            raise UsageError(f"--chunk-words must be 0 (off) or more, got {chunk_words}")
        self.judge = Judge(client, chat=chat, max_tokens=max_tokens)
        self.client = client
        self.model = str(client.model)
        self.chunk_words = chunk_words
        self._lock = threading.Lock()  # the server's threads share one in-process model

    def edit_many(self, requests: list[Any]) -> list[dict[str, Any]]:
        from favakit.eval.factscore import Check

        checks, owner = [], []
        for n, r in enumerate(requests):
            topic, claim, passages = _claim_parts(r)
            for chunk in evidence_chunks(passages, self.chunk_words):
                checks.append(Check(topic, claim, chunk))
                owner.append(n)
        with self._lock:
            scored = self.judge.judge_scored(checks)
        per: list[list[tuple[bool, float | None]]] = [[] for _ in requests]
        for n, got in zip(owner, scored, strict=True):
            per[n].append(got)
        out = []
        for verdicts in per:
            # supported when one piece of the evidence supports it: the best piece's score
            # (without probabilities: any piece's True)
            if all(p is not None for _, p in verdicts):
                ok, p = max(verdicts, key=lambda v: v[1] or 0.0)
            else:
                ok, p = any(v[0] for v in verdicts), None
            res: dict[str, Any] = {"edits": [] if ok else [{"type": "unverifiable"}]}
            if p is not None:
                res["error_probability"] = 1.0 - p
            out.append(res)
        return out


def evidence_chunks(passages: list[dict[str, str]], words: int) -> list[list[dict[str, str]]]:
    """The evidence in pieces of at most about ``words`` words, each judged on its own (a
    verifier trained on short evidence reads long documents piece by piece): whole passages
    packed together while they fit, a longer passage cut at sentence ends, each piece under its
    passage's title. ``words`` 0, or evidence that fits, gives one piece: all of it."""
    if not words or sum(len(p["text"].split()) for p in passages) <= words:
        return [passages]
    from favakit.retrieval.text import split_sentences

    pieces: list[dict[str, str]] = []
    for p in passages:
        if len(p["text"].split()) <= words:
            pieces.append(p)
            continue
        part: list[str] = []
        size = 0
        for sentence in split_sentences(" ".join(p["text"].split())):
            n = len(sentence.split())
            if part and size + n > words:
                pieces.append({"title": p["title"], "text": " ".join(part)})
                part, size = [], 0
            part.append(sentence)  # a sentence longer than ``words`` stays whole
            size += n
        if part:
            pieces.append({"title": p["title"], "text": " ".join(part)})
    chunks: list[list[dict[str, str]]] = []
    size = 0
    for piece in pieces:
        n = len(piece["text"].split())
        if chunks and size + n <= words:
            chunks[-1].append(piece)
            size += n
        else:
            chunks.append([piece])
            size = n
    return chunks


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
    chunk_words: int = 0,
    **client_options: Any,
) -> LLMVerifier:
    """favakit's trained claim verifier: the shipped adapter over SmolLM2 unless ``model`` /
    ``adapter`` / ``llm_endpoint`` name another (a server must hold the verifier's weights).
    Evidence longer than ``chunk_words`` words is judged in pieces (0: whole)."""
    from favakit.inference.generators import open_client
    from favakit.inference.models import default_verifier

    if not llm_endpoint and not adapter and not model:
        model, adapter = "smollm2", default_verifier()
    client = open_client(model, adapter, llm_endpoint=llm_endpoint, **client_options)
    # trained to answer in one token
    return LLMVerifier(client, chat=False, max_tokens=1, chunk_words=chunk_words)
