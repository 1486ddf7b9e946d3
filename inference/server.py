"""``favakit serve``: the editor as an HTTP service (FastAPI).

Routes: ``POST /v1/edit``, ``POST /v1/detect`` and ``POST /v1/verify`` take ``{"text",
"topic"?, "prompt"?, "evidence"?: [str]}`` or a list of such objects and answer the result
object (a list of them, in order, for a list). ``/v1/detect`` answers the same object without
``corrected``: the spans and their types only; ``/v1/verify`` answers a verdict
``{"supported", "score", "judge"}`` per claim (:mod:`favakit.inference.verifiers`). ``GET
/health`` (no key needed), ``GET /v1/models``, OpenAPI docs at ``/docs`` with the schemas of
:mod:`favakit.inference.schemas`.

Limits answer with a status that names them: 413 for a body, a text or a list over its limit,
422 for a body of the wrong shape, 400 for invalid JSON, 401 for a missing or wrong API key, 504
when a request takes longer than ``timeout_s`` (work not yet started is dropped), and what
:class:`~favakit.inference.http_guard.RequestGuard` checks first: 403 for a ``Host`` that is
not this server's, 415 for a body that is not ``application/json``, 408 for a body that stops
arriving, 503 (with ``Retry-After``) when too many requests are in progress. Requests from many
clients share the generator: in-process generation goes through a
:class:`~favakit.inference.batching.Batcher`, an ``--llm-endpoint`` batches on its side.
"""

# No `from __future__ import annotations`: FastAPI reads route signatures at runtime.
import asyncio
import json
import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from favakit.contracts import Editor, EditRequest, Verifier
from favakit.inference.http_guard import LOOPBACK_NAMES, HttpLimits, protect
from favakit.inference.verifiers import CitedSentences, EditorVerifier
from favakit.llm import api_key_matches

__all__ = ["ServeLimits", "create_editor_app"]

T = TypeVar("T")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServeLimits:
    max_chars: int = 20_000  # characters per text
    max_texts: int = 64  # texts per request
    timeout_s: float = 600.0  # per request
    http: HttpLimits = field(default_factory=HttpLimits)  # body size, pending requests, ...


def create_editor_app(
    editor: Editor,
    api_key: str | None = None,
    limits: ServeLimits | None = None,
    workers: int = 32,
    verifier: Verifier | None = None,
    hosts: Iterable[str] | None = LOOPBACK_NAMES,
) -> Any:
    """The editor service. ``verifier`` (such as :func:`favakit.open_verifier`'s) answers
    ``/v1/verify`` when given; else the editor does (a claim it edits is not supported).
    ``hosts``: the ``Host`` names it answers (None: any; see
    :func:`~favakit.inference.http_guard.allowed_hosts`)."""
    from contextlib import asynccontextmanager

    from fastapi import FastAPI, HTTPException, Request
    from fastapi.responses import JSONResponse

    from favakit.inference import schemas

    lim = limits or ServeLimits()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="favakit-edit")

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        yield
        # uvicorn has finished the requests in flight (graceful shutdown); then stop workers
        pool.shutdown(wait=True)
        close = getattr(getattr(editor, "client", None), "close", None)
        if callable(close):
            close()

    app = FastAPI(
        title="favakit serve",
        version="1",
        description="Detect and edit hallucinated spans (FAVA's six error types).",
        lifespan=lifespan,
    )
    app.state.editor = editor
    protect(app, lim.http, hosts)

    def check_key(request: Request) -> None:
        if api_key and not api_key_matches(request.headers.get("authorization", ""), api_key):
            raise HTTPException(401, "missing or wrong API key (Authorization: Bearer KEY)")

    async def parse(
        request: Request, read: Callable[[Any, str], EditRequest]
    ) -> tuple[list[EditRequest], bool]:
        raw = await request.body()  # its size was checked as it arrived (RequestGuard)
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise HTTPException(400, "the request body is not valid JSON") from None
        except RecursionError:
            raise HTTPException(400, "the request body is JSON nested too deeply") from None
        single = not isinstance(body, list)
        items = [body] if single else body
        if not items:
            raise HTTPException(422, "the list of texts is empty")
        if len(items) > lim.max_texts:
            raise HTTPException(
                413, f"{len(items)} texts in one request; the limit is {lim.max_texts}"
            )
        reqs = []
        for i, item in enumerate(items):
            try:
                req = read(item, "" if single else f"item {i}")
            except ValueError as exc:
                raise HTTPException(422, str(exc)) from None
            if len(req.text) > lim.max_chars:
                raise HTTPException(
                    413,
                    f"{'' if single else f'item {i}: '}the text has {len(req.text)} characters; "
                    f"the limit is {lim.max_chars}",
                )
            reqs.append(req)
        return reqs, single

    async def answered(
        request: Request, doing: str, work: Callable[[list[EditRequest]], list[T]],
        refuse: Callable[[list[EditRequest], bool], None] | None = None,
        read: Callable[[Any, str], EditRequest] = EditRequest.from_obj,
    ) -> tuple[list[T], bool]:  # fmt: skip
        """``work``'s answers for a request's texts, and whether it sent a single one;
        ``refuse`` raises the HTTP error for texts this route does not take; ``read`` reads
        one text of the body."""
        check_key(request)
        reqs, single = await parse(request, read)
        if refuse is not None:
            refuse(reqs, single)
        loop = asyncio.get_running_loop()
        try:
            results = await asyncio.wait_for(loop.run_in_executor(pool, work, reqs), lim.timeout_s)
        except TimeoutError:
            raise HTTPException(504, f"{doing} took longer than {lim.timeout_s:g} s") from None
        except Exception:  # a failed generation fails this request, not the server
            log.exception("%s failed", doing)  # the cause (an upstream URL, say) stays here
            raise HTTPException(502, f"{doing} failed; the server's log has the cause") from None
        return results, single

    def no_cites(reqs: list[EditRequest], single: bool) -> None:
        for n, r in enumerate(reqs):
            try:
                r.for_editing("" if single else f"item {n}", "/v1/verify")
            except ValueError as exc:
                raise HTTPException(422, str(exc)) from None

    async def run(request: Request, detect: bool) -> JSONResponse:
        results, single = await answered(request, "editing", editor.edit_many, no_cites)
        shown: list[dict[str, Any]] = [
            {k: v for k, v in res.items() if not (detect and k == "corrected")} for res in results
        ]
        return JSONResponse(shown[0] if single else shown)

    body_schema, body_defs = schemas.request_body_schema()

    def documented(response: Any, summary: str) -> dict[str, Any]:
        """What a POST route shows in /docs: the request body, the answer, the error codes."""
        error = {"model": schemas.ErrorResponse}
        return {
            "summary": summary,
            "response_model": response | list[response],
            "openapi_extra": {
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": body_schema}},
                }
            },
            "responses": {
                400: {**error, "description": "the body is not valid JSON"},
                401: {**error, "description": "missing or wrong API key"},
                403: {**error, "description": "a Host this server does not answer for"},
                408: {**error, "description": "the body stopped arriving"},
                413: {**error, "description": "a body, text or list over its limit"},
                415: {**error, "description": "a body that is not application/json"},
                422: {**error, "description": "a body of the wrong shape (the field is named)"},
                502: {**error, "description": "generation failed"},
                503: {**error, "description": "too many requests in progress (Retry-After)"},
                504: {**error, "description": "the request took longer than the timeout"},
            },
        }

    @app.post("/v1/edit", **documented(schemas.EditResponse, "Edit texts"))
    async def edit(request: Request) -> JSONResponse:
        """Tag hallucinated spans and apply the suggested edits."""
        return await run(request, detect=False)

    @app.post("/v1/detect", **documented(schemas.DetectResponse, "Detect hallucinated spans"))
    async def detect(request: Request) -> JSONResponse:
        """Tag hallucinated spans (types and offsets) without the corrected text."""
        return await run(request, detect=True)

    # a claim's cited sentences (its "cites"), and its text without citation marks
    judge = CitedSentences(verifier if verifier is not None else EditorVerifier(editor))

    @app.post("/v1/verify", **documented(schemas.VerdictResponse, "Verify claims"))
    async def verify(request: Request) -> JSONResponse:
        """Is each claim supported by its evidence? ``{"text", "evidence"}`` (or a list)."""
        verdicts, single = await answered(
            request, "verifying", judge.verify, read=EditRequest.from_claim
        )
        return JSONResponse(verdicts[0] if single else verdicts)

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"status": "ok", "model": editor.model}

    @app.get("/v1/models")
    def models(request: Request) -> dict[str, Any]:
        check_key(request)
        return {
            "object": "list",
            "data": [{"id": editor.model, "object": "model", "owned_by": "favakit"}],
        }

    def openapi() -> dict[str, Any]:
        """FastAPI's schema, with the request body's component schemas added."""
        if app.openapi_schema is None:
            from fastapi.openapi.utils import get_openapi

            schema = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            schema.setdefault("components", {}).setdefault("schemas", {}).update(body_defs)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
