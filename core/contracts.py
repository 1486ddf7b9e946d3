"""The contracts between favakit's layers: what goes into an editor or a verifier and what
comes out.

* :class:`EditRequest`: one text to check (with its topic, question and evidence when known).
  The CLI, the servers and the Python API all validate their input into it
  (:meth:`EditRequest.from_obj`, :meth:`EditRequest.from_row`).
* :class:`EditResult`: what an editor answers for a text, the object ``favakit edit`` writes as a
  JSONL row and ``POST /v1/edit`` returns.
* :class:`Verdict`: what a verifier answers for a claim (``favakit verify``, ``POST /v1/verify``).
* :class:`Editor` and :class:`Verifier`: the two protocols every backend satisfies (the generative
  editor, the encoder detector, the cascade; the trained verifier, an LLM judge, an editor used as
  a verifier). Code above the inference layer is typed against these, never against a backend.

An evidence string that is a JSON record (a data-to-text task's input) is said as statements
on the way in (:mod:`favakit.json_evidence`), so every judge, rule and citation reads prose.

This module is torch-free and imports only the standard library, :mod:`favakit.prompts`,
:mod:`favakit.json_evidence` and :mod:`favakit.citations`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict, Union, runtime_checkable

from favakit.citations import parse_cites
from favakit.errors import UsageError
from favakit.json_evidence import read_json_evidence
from favakit.prompts import Reference, parse_prompt, parse_reference

__all__ = [
    "Citation",
    "EditInput",
    "EditRequest",
    "EditResult",
    "EditSpan",
    "Editor",
    "Mismatch",
    "Passage",
    "Usage",
    "Verdict",
    "Verifier",
    "as_claim",
    "as_claims",
    "as_request",
    "as_requests",
    "edit_span",
]


class Passage(TypedDict):
    """One evidence passage as results carry it."""

    title: str
    text: str


class _EditSpanRequired(TypedDict):
    type: str
    start: int
    end: int
    wrong: str
    right: str


class Citation(TypedDict, total=False):
    """The evidence an edit rests on: the sentence ``sentence`` of the result's evidence passage
    number ``passage`` (0-based), with that passage's ``title`` when it has one."""

    passage: int
    title: str
    sentence: str


class EditSpan(_EditSpanRequired, total=False):
    """One edit: the characters ``[start, end)`` of the original (``wrong``) and what replaces
    them (``right``; empty: deleted), with the FAVA error type; the encoder adds its
    ``confidence``. ``flagged`` (and only then is ``right`` equal to ``wrong``): the span is
    flagged as an error but no fix is offered, so the text stays as it is (see
    :func:`edit_span`). ``checker_score``: with checker-gated editing, the checker's
    P(supported) of the sentence the edit is in, and ``cites``: the evidence sentence that
    holds the fix, else the one closest to the edited sentence (:mod:`favakit.inference.gate`)."""

    confidence: float
    flagged: bool
    checker_score: float
    cites: Citation


def edit_span(type: str, start: int, end: int, wrong: str, right: str) -> EditSpan:
    """An :class:`EditSpan`; one whose fix is its own text (``"1979" -> "1979"``: a backend
    that found an error but no correction) is marked ``flagged``, the one way every backend
    reports that."""
    span: EditSpan = {"type": type, "start": start, "end": end, "wrong": wrong, "right": right}
    if right == wrong:
        span["flagged"] = True
    return span


class Mismatch(TypedDict):
    """Untagged text the model dropped or rewrote (``expected`` at ``[start, end)``)."""

    start: int
    end: int
    expected: str
    got: str


class Usage(TypedDict):
    prompt_tokens: int
    completion_tokens: int


class _EditResultRequired(TypedDict):
    original: str
    corrected: str
    edits: list[EditSpan]
    model: str


class EditResult(_EditResultRequired, total=False):
    """An editor's answer for one text. ``corrected`` is always ``original`` with ``edits``
    applied; ``faithful`` is false when the model rewrote untagged text (listed in
    ``mismatches``); ``error_probability`` is the encoder's most confident span of any type,
    before thresholds (absent for generative editors); ``id`` is added by batch runs."""

    id: str
    evidence: list[Passage]
    repairs: list[str]
    faithful: bool
    mismatches: list[Mismatch]
    warnings: list[str]
    usage: Usage
    error_probability: float


class _VerdictRequired(TypedDict):
    supported: bool
    score: float
    judge: str


class Verdict(_VerdictRequired, total=False):
    """A verifier's answer for one claim: ``score`` is the judge's probability that the claim is
    supported where it has one (1.0 or 0.0 where it has none); ``warnings`` say, for example,
    that the evidence was judged in pieces; ``evidence``: the passages retrieved for a claim
    that came without any; ``id`` is added by batch runs."""

    id: str
    warnings: list[str]
    evidence: list[Passage]


def _visible(text: str) -> bool:
    """Whether ``text`` shows anything: a character that is neither white space nor a control
    or format character (a zero-width space, a byte-order mark)."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


def _batch_hint(obj: Mapping[str, Any]) -> str:
    """For an object that wraps a batch (``{"claims": [...]}``, as some APIs take it): how
    favakit takes several, else ``""``."""
    lists = [k for k, v in obj.items() if k != "evidence" and isinstance(v, list) and v
             and all(isinstance(x, (str, Mapping)) for x in v)]  # fmt: skip
    if not lists:
        return ""
    return (f"; '{lists[0]}' holds a list: each text is an object of its own, "
            '{"text": "...", "evidence": [...]}, and several go in a JSON array of them')  # fmt: skip


@dataclass
class EditRequest:
    """One text to check. ``evidence`` given by the caller is used as is (no retrieval), less
    any passage of only spaces: evidence of blank passages alone is no evidence, and results
    say so."""

    text: str
    topic: str | None = None
    prompt: str | None = None  # the question the text answers, when there is one
    evidence: list[Reference] | None = None
    #: the citation marks of the source the evidence is (``"[1]"``, ``"<|cit|>"``): a verifier
    #: judges only the sentences that carry one (:mod:`favakit.citations`); editors take none
    cites: tuple[str, ...] = ()

    @classmethod
    def from_obj(cls, obj: Any, where: str = "", text_name: str = "'text'") -> EditRequest:
        """Validate a JSON object ``{"text", "topic"?, "prompt"?, "evidence"?, "cites"?}``; raise
        ``ValueError`` naming the field (the server answers 422 with it, the CLI exits 2): the
        text's field as ``text_name`` names it (a claim's may be ``claim``)."""
        at = f"{where}: " if where else ""
        if not isinstance(obj, Mapping):
            raise ValueError(f"{at}expected an object with a {text_name} field")
        if "text" not in obj:
            fields = ", ".join(repr(str(k)) for k in list(obj)[:8])
            raise ValueError(f"{at}missing {text_name}" + (f" (its fields: {fields})" if fields
                             else "") + _batch_hint(obj))  # fmt: skip
        text = obj.get("text")
        if not isinstance(text, str):
            raise ValueError(f"{at}{text_name} must be a string, not {type(text).__name__}")
        if not _visible(text):
            hidden = " (it holds only invisible characters)" if text.strip() else ""
            raise ValueError(f"{at}{text_name} is empty{hidden}")
        for key in ("topic", "prompt"):
            if obj.get(key) is not None and not isinstance(obj[key], str):
                raise ValueError(f"{at}'{key}' must be a string")
        _valid_text(text, f"{at}{text_name}")
        for key in ("topic", "prompt"):
            _valid_text(obj.get(key), f"{at}'{key}'")
        evidence = obj.get("evidence")
        refs: list[Reference] | None = None
        if evidence is not None:
            if isinstance(evidence, str):
                raise ValueError(
                    f"{at}'evidence' must be a list of passages, not one string: write "
                    '["..."] (one string per passage)'
                )
            if not isinstance(evidence, list):
                raise ValueError(f"{at}'evidence' must be a list of strings")
            try:
                refs = [Reference.coerce(e) for e in evidence]
            except TypeError:
                raise ValueError(
                    f"{at}'evidence' items must be strings or {{title, text}} objects"
                ) from None
            refs = [_read_record(r) for r in refs]
            for n, ref in enumerate(refs):
                _valid_text(ref.text, f"{at}'evidence' item {n}")
                _valid_text(ref.title, f"{at}'evidence' item {n} title")
            refs = [ref for ref in refs if _visible(ref.text)]
        cites = parse_cites(obj.get("cites"), where)
        return cls(text, obj.get("topic"), obj.get("prompt"), refs, cites)

    @classmethod
    def from_row(cls, row: Any, where: str = "") -> EditRequest:
        """A request from any row favakit reads: ``{"text", ...}`` requests; FAVABench and
        FActScore rows ``{"output", "prompt"?, "topic"?}`` (the output is the text, the prompt
        the question it answers); favakit/FAVA training rows ``{"prompt", "completion"}`` (the
        text and the references are read back out of the prompt, and the references are the
        evidence, so the editor sees the prompt it was trained on)."""
        if isinstance(row, Mapping) and "text" not in row:
            if isinstance(row.get("output"), str):
                return cls.from_obj(
                    {"text": row["output"], "topic": row.get("topic"), "prompt": row.get("prompt")},
                    where,
                )
            if isinstance(row.get("prompt"), str) and "completion" in row:
                try:
                    parsed = parse_prompt(row["prompt"])
                except ValueError as exc:
                    raise ValueError(f"{where}: {exc}") from None
                refs = [parse_reference(r) for r in parsed.references]
                return cls(parsed.text, prompt=parsed.question, evidence=refs)
        return cls.from_obj(row, where)

    @classmethod
    def from_claim(cls, row: Any, where: str = "") -> EditRequest:
        """A claim to verify: ``{"id"?, "text" | "claim", "evidence"?, "topic"?, "cites"?}``
        (``cites``: the marks of the citation the evidence backs, :mod:`favakit.citations`).
        ``ValueError`` where the claim has no ``evidence`` but a field other tools keep it in
        (``context``, ``document``, ...): read as it is, the claim would be checked against
        nothing, and called unsupported."""
        text_name = "'text' or 'claim'"  # the field the claim is read from, for messages
        if isinstance(row, Mapping):
            text, claim = row.get("text"), row.get("claim")
            if isinstance(text, str) and isinstance(claim, str) and claim != text:
                at = f"{where}: " if where else ""
                raise ValueError(
                    f"{at}both 'text' and 'claim', and they differ: favakit reads the claim from "
                    "one of them. Keep the claim in one field (where 'text' is the source the "
                    "claim is checked against, give it as 'evidence': [text])"
                )
            if "text" in row:
                text_name = "'text'"
            elif "claim" in row:
                row, text_name = {**row, "text": row["claim"]}, "'claim'"
            elsewhere = [k for k in _EVIDENCE_ELSEWHERE if row.get(k)]
            if "evidence" not in row and elsewhere:
                at = f"{where}: " if where else ""
                raise ValueError(
                    f"{at}no 'evidence' field, but '{elsewhere[0]}': favakit reads a claim's "
                    f"evidence from 'evidence', a list of passages (rename '{elsewhere[0]}', or "
                    "drop it to check the claim against retrieved evidence)"
                )
        return cls.from_obj(row, where, text_name)

    def for_editing(self, where: str, verify: str) -> EditRequest:
        """This request as an editor takes it: ``ValueError`` where it names ``cites``, which
        only verification (``verify``: the command or route that reads it) reads, since an
        editor checks every sentence of a text."""
        if self.cites:
            at = f"{where}: " if where else ""
            raise ValueError(f"{at}'cites' is read by {verify} only: an editor checks every "
                             "sentence of a text")  # fmt: skip
        return self

    def passages(self) -> list[Passage]:
        """The caller's evidence as ``{"title", "text"}`` passages (none given: empty)."""
        return [{"title": r.title, "text": r.text} for r in self.evidence or []]


def _read_record(ref: Reference) -> Reference:
    """An evidence string holding a JSON record, said as statements and titled with its name
    where the caller gave no title (:mod:`favakit.json_evidence`); any other string as it
    is."""
    said = read_json_evidence(ref.text)
    return ref if said is None else Reference(said.text, ref.title or said.title)


def _valid_text(value: object, what: str) -> None:
    """``ValueError`` when a string holds a lone surrogate: valid JSON (``"\\ud800"``), not
    text any tokenizer, file or HTTP answer can carry."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"{what} holds a lone surrogate at character {exc.start} (not valid text)"
            ) from None


#: fields other datasets and tools keep a claim's evidence in (favakit reads ``evidence``)
_EVIDENCE_ELSEWHERE = ("context", "contexts", "document", "documents", "doc", "docs", "passage",
                      "passages", "premise", "knowledge", "grounding", "source_text")  # fmt: skip

#: what editors accept for one text: a request, a JSON-like object, or the bare text
EditInput = Union[EditRequest, Mapping[str, Any], str]  # noqa: UP007 (a runtime alias on 3.10)


def as_request(item: EditInput, n: int = 0) -> EditRequest:
    """``item`` as an :class:`EditRequest`; :class:`~favakit.errors.UsageError` (a
    ``ValueError``) naming request ``n`` when it is not one."""
    return _read_input(item, EditRequest.from_obj, f"request {n}")


def as_claim(item: EditInput, n: int = 0) -> EditRequest:
    """``item``, a claim to verify, as an :class:`EditRequest` (:meth:`EditRequest.from_claim`:
    ``claim`` may stand for ``text``); :class:`~favakit.errors.UsageError` naming claim ``n``
    when it is not one."""
    return _read_input(item, EditRequest.from_claim, f"claim {n}")


def as_requests(items: Sequence[EditInput]) -> list[EditRequest]:
    """Each of ``items`` as :func:`as_request` reads it; one text given where a list is asked
    (a string, an object) is refused: iterated, a string was read as its characters."""
    return [as_request(r, i) for i, r in enumerate(_a_list(items, "texts"))]


def as_claims(items: Sequence[EditInput]) -> list[EditRequest]:
    """Each of ``items`` as :func:`as_claim` reads it; one claim given where a list is asked is
    refused, as by :func:`as_requests`."""
    return [as_claim(c, i) for i, c in enumerate(_a_list(items, "claims"))]


def _a_list(items: Sequence[EditInput], what: str) -> Sequence[EditInput]:
    if isinstance(items, (str, bytes, Mapping, EditRequest)):
        why = (
            " (a string on its own would be read as its characters)"
            if isinstance(items, (str, bytes))
            else ""
        )
        raise UsageError(
            f"expected a list of {what}, and got one {type(items).__name__}: give [item] for "
            f"one{why}"
        )
    return items


def _read_input(item: EditInput, read: Callable[[Any], EditRequest], what: str) -> EditRequest:
    if isinstance(item, EditRequest):
        return item
    try:
        return read({"text": item} if isinstance(item, str) else item)
    except ValueError as exc:
        raise UsageError(f"{what}: {exc}") from None


@runtime_checkable
class Editor(Protocol):
    """Finds hallucinated spans in texts and proposes edits: results in request order."""

    @property
    def model(self) -> str: ...

    def edit_many(self, requests: Sequence[EditInput]) -> list[EditResult]: ...


@runtime_checkable
class Verifier(Protocol):
    """Judges whether each claim is supported by its evidence: verdicts in claim order."""

    @property
    def model(self) -> str: ...

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]: ...
