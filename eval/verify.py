"""Claim verification: is this claim supported by this evidence? (``favakit verify``,
``POST /v1/verify`` on ``favakit serve``).

A judge here is an editor: the claim goes through it with the evidence, and a claim with no
edit is supported. The verdict ``{"supported", "score", "judge"}`` carries ``score``, the
judge's probability that the claim is supported where it has one: the encoder detector's is
``1 - error_probability`` (its most confident span of any type, before thresholds); the
generative editor gives no probability, so its score is 1.0 or 0.0. ``supported`` follows the
edits (for the encoder: a span at or above its type's threshold).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["LLMVerifier", "claim_request", "verdict"]


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
    """An instruct model asked "True or False?" about each claim (FActScore's judge prompt,
    :class:`~favakit.eval.factscore.Judge`), read from its first token's log-probabilities where
    the backend returns them. Its results look like edit results (an unsupported claim has one
    edit), so :func:`verdict` reads them like any editor's."""

    def __init__(self, client: Any) -> None:
        from favakit.eval.factscore import Judge

        self.judge = Judge(client, chat=True)
        self.model = str(client.model)

    def edit_many(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from favakit.eval.factscore import Check

        checks = [Check(str(r.get("topic") or ""), r["text"], list(r.get("evidence") or []))
                  for r in requests]  # fmt: skip
        return [{"edits": [] if ok else [{"type": "unverifiable"}]}
                for ok in self.judge.judge(checks)]  # fmt: skip
