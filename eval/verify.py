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

__all__ = ["claim_request", "verdict"]


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
