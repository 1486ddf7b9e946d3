"""The JSON bodies of ``favakit serve`` as pydantic models, for ``/docs`` and ``/openapi.json``.

They describe :class:`~favakit.contracts.EditRequest`, :class:`~favakit.contracts.EditResult`
and :class:`~favakit.contracts.Verdict`; requests are still validated by
:meth:`EditRequest.from_obj` (so error codes and messages stay what they were: 400 for invalid
JSON, 413 for a limit, 422 naming the field) and answers are written as the editor returns them.
Imported by the server only (pydantic comes with the ``serve`` extra).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, TypeAdapter

__all__ = [
    "DetectResponse",
    "EditRequestBody",
    "EditResponse",
    "ErrorResponse",
    "VerdictResponse",
    "request_body_schema",
]


class PassageIn(BaseModel):
    title: str = ""
    text: str


class EditRequestBody(BaseModel):
    """One text to check; evidence given here is used as is (no retrieval)."""

    text: str = Field(
        min_length=1,
        description="the text (or claim) to check; /v1/verify also reads it from 'claim'",
    )
    topic: str | None = Field(None, description="what the text is about (an article title)")
    prompt: str | None = Field(None, description="the question the text answers")
    evidence: list[str | PassageIn] | None = Field(
        None, description="evidence passages: strings or {title, text} objects"
    )
    cites: str | list[str] | None = Field(
        None, description="/v1/verify only: the citation mark(s) of the source the evidence is "
        "('[1]', '<|cit|>'); only the sentences carrying one are judged",
    )  # fmt: skip


class Passage(BaseModel):
    title: str
    text: str


class Citation(BaseModel):
    passage: int = Field(description="the evidence passage (0-based, in the result's evidence)")
    title: str | None = Field(None, description="that passage's title")
    sentence: str = Field(description="the evidence sentence the edit rests on")


class EditSpan(BaseModel):
    type: str = Field(description="one of FAVA's six error types")
    start: int = Field(description="offset of the span in the original text")
    end: int
    wrong: str = Field(description="the span as it stands in the original")
    right: str = Field(description="its replacement ('' deletes it)")
    confidence: float | None = Field(None, description="the encoder's confidence")
    checker_score: float | None = Field(
        None, description="with --gate: P(supported) of the edit's sentence by the checker"
    )
    flagged: bool | None = Field(
        None, description="true: flagged as an error, no fix offered (right equals wrong)"
    )
    cites: Citation | None = Field(
        None, description="with --gate: the evidence sentence that holds the fix, else the closest"
    )


class Mismatch(BaseModel):
    start: int
    end: int
    expected: str
    got: str


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int


class DetectResponse(BaseModel):
    """``POST /v1/detect``: the spans and their types, without the corrected text."""

    original: str
    edits: list[EditSpan]
    evidence: list[Passage] = []
    repairs: list[str] = []
    model: str
    faithful: bool = True
    mismatches: list[Mismatch] = []
    warnings: list[str] = []
    usage: Usage | None = None
    error_probability: float | None = Field(
        None, description="the encoder's most confident span of any type, before thresholds"
    )


class EditResponse(DetectResponse):
    """``POST /v1/edit``: the original with the edits applied, and the edits."""

    corrected: str


class VerdictResponse(BaseModel):
    """``POST /v1/verify``: is the claim supported by its evidence?"""

    supported: bool
    score: float = Field(description="the judge's P(supported), where it has one; else 1 or 0")
    judge: str
    warnings: list[str] | None = None
    evidence: list[Passage] | None = Field(
        None, description="the passages retrieved for a claim that came without evidence"
    )


class ErrorResponse(BaseModel):
    detail: str


def request_body_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    """(the schema of a request body: one object or a list of them, the component schemas it
    refers to), for ``openapi_extra`` and the app's ``components``."""
    adapter: TypeAdapter[Any] = TypeAdapter(EditRequestBody | list[EditRequestBody])
    schema = adapter.json_schema(ref_template="#/components/schemas/{model}")
    defs = schema.pop("$defs", {})
    return schema, defs
