"""``favakit serve``: the editor as an HTTP service (FastAPI).

Routes: ``POST /v1/edit``, ``POST /v1/detect`` and ``POST /v1/verify`` take ``{"text",
"topic"?, "prompt"?, "evidence"?: [str]}`` or a list of such objects and answer the result
object (a list of them, in order, for a list). ``/v1/detect`` answers the same object without
``corrected``: the spans and their types only; ``/v1/verify`` answers a verdict
``{"supported", "score", "judge"}`` per claim (:mod:`favakit.eval.verify`). ``GET /health`` (no key needed), ``GET /v1/models``, OpenAPI docs at ``/docs``.

Limits answer with a status that names them: 413 for a body, a text or a list over its limit,
422 for a body of the wrong shape, 400 for invalid JSON, 401 for a missing or wrong API key, 504
when a request takes longer than ``timeout_s`` (its generation still finishes in the
background). Requests from many clients share the generator: in-process generation goes through
a :class:`~favakit.inference.llm_server.Batcher`, an ``--llm-endpoint`` batches on its side.
"""

# No `from __future__ import annotations`: FastAPI reads route signatures at runtime.
import asyncio
import json
import logging
import secrets
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from favakit.inference.editor import Editor, EditRequest
from favakit.inference.generators import HFGenerator
from favakit.inference.llm_server import Batcher
from favakit.llm import Completion, GenerationParams, LLMClient

__all__ = ["BatchedClient", "ServeLimits", "create_editor_app"]

log = logging.getLogger(__name__)


class BatchedClient(LLMClient):
    """An in-process generator shared by many request threads: every prompt goes into one
    :class:`Batcher`, which generates what has queued up together."""

    kind = "in-process"
    copy_guard = True  # honours GenerationParams.copy_sources

    def __init__(self, generator: HFGenerator, max_batch: int = 8, batch_window_ms: float = 50.0):
        super().__init__(generator.name)
        self.generator = generator
        self.batcher = Batcher(generator, max_batch=max_batch, batch_window_ms=batch_window_ms)

    def complete(
        self, prompts: Sequence[str], params: GenerationParams | None = None, progress: bool = False
    ) -> list[Completion]:
        p = params or GenerationParams()
        if p.copy_sources and len(p.copy_sources) != len(prompts):
            raise ValueError(f"{len(p.copy_sources)} copy_sources for {len(prompts)} prompts")
        futures = [
            self.batcher.submit(
                prompt, replace(p, copy_sources=(p.copy_sources[i],)) if p.copy_sources else p
            )
            for i, prompt in enumerate(prompts)
        ]
        outs = [f.result() for f in futures]
        self.usage.add(calls=len(outs))
        return [
            Completion(o.text, o.finish_reason, o.prompt_tokens, o.completion_tokens, o.logprobs)
            for o in outs
        ]

    def close(self) -> None:
        self.batcher.close()


@dataclass(frozen=True)
class ServeLimits:
    max_chars: int = 20_000  # characters per text
    max_texts: int = 64  # texts per request
    max_body_bytes: int = 4_000_000
    timeout_s: float = 600.0  # per request


def create_editor_app(
    editor: Editor,
    api_key: str | None = None,
    limits: ServeLimits | None = None,
    workers: int = 32,
    verifier: Any = None,
) -> Any:
    """The editor service. ``verifier`` (anything with ``edit_many`` and ``model``, such as
    :func:`favakit.eval.verify.open_verifier`) answers ``/v1/verify`` when given; else the
    editor does."""
    from contextlib import asynccontextmanager

    from fastapi import FastAPI, HTTPException, Request
    from fastapi.responses import JSONResponse

    lim = limits or ServeLimits()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="favakit-edit")

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        yield
        # uvicorn has finished the requests in flight (graceful shutdown); then stop workers
        pool.shutdown(wait=True)
        close = getattr(editor.client, "close", None)
        if callable(close):
            close()

    app = FastAPI(
        title="favakit serve",
        version="1",
        description="Detect and edit hallucinated spans (FAVA's six error types).",
        lifespan=lifespan,
    )
    app.state.editor = editor

    def check_key(request: Request) -> None:
        if api_key and not secrets.compare_digest(
            request.headers.get("authorization", ""), f"Bearer {api_key}"
        ):
            raise HTTPException(401, "missing or wrong API key (Authorization: Bearer KEY)")

    async def parse(request: Request) -> tuple[list[EditRequest], bool]:
        raw = await request.body()
        if len(raw) > lim.max_body_bytes:
            raise HTTPException(
                413, f"the body is {len(raw)} bytes; the limit is {lim.max_body_bytes}"
            )
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise HTTPException(400, "the request body is not valid JSON") from None
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
                req = EditRequest.from_obj(item, "" if single else f"item {i}")
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

    async def edited(
        request: Request, doing: str, by: Any = editor
    ) -> tuple[list[dict[str, Any]], bool]:
        """The editor's (or ``by``'s) results for a request's texts, and whether it sent a single
        one."""
        check_key(request)
        reqs, single = await parse(request)
        loop = asyncio.get_running_loop()
        try:
            results = await asyncio.wait_for(
                loop.run_in_executor(pool, by.edit_many, reqs), lim.timeout_s
            )
        except TimeoutError:
            raise HTTPException(504, f"{doing} took longer than {lim.timeout_s:g} s") from None
        except Exception as exc:  # a failed generation fails this request, not the server
            log.exception("%s failed", doing)
            raise HTTPException(502, f"generation failed: {exc}") from None
        return results, single

    async def run(request: Request, detect: bool) -> JSONResponse:
        results, single = await edited(request, "editing")
        if detect:
            for res in results:
                res.pop("corrected", None)
        return JSONResponse(results[0] if single else results)

    @app.post("/v1/edit")
    async def edit(request: Request) -> JSONResponse:
        """Tag hallucinated spans and apply the suggested edits."""
        return await run(request, detect=False)

    @app.post("/v1/detect")
    async def detect(request: Request) -> JSONResponse:
        """Tag hallucinated spans (types and offsets) without the corrected text."""
        return await run(request, detect=True)

    @app.post("/v1/verify")
    async def verify(request: Request) -> JSONResponse:
        """Is each claim supported by its evidence? ``{"text", "evidence"}`` (or a list)."""
        from favakit.eval.verify import verdict

        judge = verifier if verifier is not None else editor
        results, single = await edited(request, "verifying", judge)
        verdicts = [verdict(r, judge.model) for r in results]
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

    return app
