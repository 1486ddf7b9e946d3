"""``favakit serve-llm``: an OpenAI-compatible generation server.

Where a vLLM environment is found (and for ``--backend vllm``) this runs vLLM's own server
(:mod:`favakit.inference.vllm_server`). Elsewhere, or with ``--backend hf``, it serves the same
subset itself from transformers: ``GET /v1/models``, ``POST /v1/completions``,
``POST /v1/chat/completions``. Requests from many clients are batched together: a worker
thread takes what has queued up (up to ``max_batch``, waiting at most ``batch_window_ms`` for
more), groups requests with the same sampling parameters and generates each group in one batch.

Every request field is checked (:mod:`favakit.inference.openai_params`: a bad value is a 422
naming the field), and :class:`~favakit.inference.http_guard.RequestGuard` checks the request
itself (Host, Content-Type, body size, requests in progress). A request that takes longer than
``timeout_s`` is answered 504; its prompts not yet generated are dropped, as are those of a
client that went away.
"""

# No `from __future__ import annotations` here: FastAPI reads the route signatures' types at
# runtime, and `Request` is imported inside create_app (fastapi is an optional dependency).
import asyncio
import json
import logging
import secrets
import sys
import time
from collections.abc import Iterable
from typing import Any

from favakit.inference.batching import Batcher
from favakit.inference.generators import Generated, HFGenerator
from favakit.inference.http_guard import LOOPBACK_NAMES, HttpLimits, protect, run_server
from favakit.inference.openai_params import (
    BadField,
    generation_params,
    messages_of,
    prompts_of,
    usable_text,
)
from favakit.llm import GenerationParams, api_key_matches
from favakit.spec import ClientSpec

__all__ = ["create_app", "serve_hf"]

log = logging.getLogger(__name__)


def create_app(
    generator: HFGenerator,
    api_key: str | None = None,
    max_batch: int = 8,
    batch_window_ms: float = 50.0,
    max_prompt_chars: int = 200_000,
    max_tokens_limit: int = 4096,
    timeout_s: float = 600.0,
    http: HttpLimits | None = None,
    hosts: Iterable[str] | None = LOOPBACK_NAMES,
) -> Any:
    """The FastAPI app serving ``generator`` under the OpenAI-compatible routes. ``hosts``: the
    ``Host`` names it answers (None: any)."""
    from contextlib import asynccontextmanager

    from fastapi import FastAPI, HTTPException, Request
    from fastapi.responses import JSONResponse

    batcher = Batcher(generator, max_batch=max_batch, batch_window_ms=batch_window_ms)

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        yield
        batcher.close()  # after uvicorn has finished the requests in flight

    app = FastAPI(title="favakit serve-llm", version="1", lifespan=lifespan)
    app.state.batcher = batcher
    protect(app, http or HttpLimits(max_body_bytes=8_000_000), hosts)

    def check_key(request: Request) -> None:
        if api_key and not api_key_matches(request.headers.get("authorization", ""), api_key):
            raise HTTPException(401, "missing or wrong API key (Authorization: Bearer KEY)")

    def checked(read: Any, *args: Any) -> Any:
        """``read(*args)``, a bad field answered 422 with its name."""
        try:
            return read(*args)
        except BadField as exc:
            raise HTTPException(422, str(exc)) from None

    context = generator.context_tokens

    def fits(prompt: str, max_tokens: int) -> None:
        """Refuse a prompt that, with its answer, is longer than the model's context (HTTP 400,
        worded like vLLM's); tokens are counted only where the prompt's bytes could exceed it."""
        if not context or len(prompt.encode("utf-8")) + 2 + max_tokens <= context:
            return
        n = generator.count_tokens(prompt)
        if n + max_tokens > context:
            raise HTTPException(
                400,
                f"This model's maximum context length is {context} tokens. However, you "
                f"requested {n + max_tokens} tokens ({n} in the prompt, {max_tokens} for the "
                "completion). Please reduce the length of the prompt or of max_tokens.",
            )

    def short_enough(prompt: str) -> str:
        if len(prompt) > max_prompt_chars:
            raise HTTPException(
                413, f"a prompt is {len(prompt)} characters; the limit is {max_prompt_chars}"
            )
        return prompt

    def has_tokens(prompt: str) -> str:
        """``prompt``, unless it is one the model reads as nothing (spaces, say): 422."""
        if len(prompt) < 64 and not generator.count_tokens(prompt):
            raise HTTPException(422, "'prompt' has no tokens for this model")
        return prompt

    async def run(prompts: list[str], params: GenerationParams) -> list[Generated]:
        for p in prompts:
            fits(has_tokens(short_enough(p)), params.max_tokens)
        futures = [asyncio.wrap_future(batcher.submit(p, params)) for p in prompts]
        try:  # cancelled (timeout, client gone): the batcher skips what it has not begun
            return list(await asyncio.wait_for(asyncio.gather(*futures), timeout_s))
        except TimeoutError:
            raise HTTPException(504, f"generation took longer than {timeout_s:g} s") from None
        except Exception:
            log.exception("generation failed")
            raise HTTPException(502, "generation failed; the server's log has the cause") from None

    def usage(outs: list[Generated]) -> dict[str, int]:
        pt = sum(o.prompt_tokens for o in outs)
        ct = sum(o.completion_tokens for o in outs)
        return {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}

    async def body_of(request: Request) -> dict[str, Any]:
        try:
            body = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError):
            raise HTTPException(400, "the request body is not valid JSON") from None
        except RecursionError:
            raise HTTPException(400, "the request body is JSON nested too deeply") from None
        if not isinstance(body, dict):
            raise HTTPException(422, "the request body must be a JSON object")
        return body

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "model": generator.name,
            "batches": batcher.batches,
            "largest_batch": batcher.largest_batch,
        }

    @app.get("/v1/models")
    def models(request: Request) -> dict[str, Any]:
        check_key(request)
        return {
            "object": "list",
            "data": [
                {
                    "id": generator.name,
                    "object": "model",
                    "owned_by": "favakit",
                    "max_model_len": context or None,
                }
            ],
        }

    @app.post("/tokenize")
    async def tokenize(request: Request) -> dict[str, Any]:
        """Token count of a prompt or of chat messages (with the chat template), as vLLM's
        ``/tokenize`` answers it; clients use it to fit long prompts into the context."""
        check_key(request)
        body = await body_of(request)
        if isinstance(body.get("prompt"), str):
            text = checked(usable_text, body["prompt"], "prompt")
        else:
            text = generator.chat_prompt(checked(messages_of, body))
        return {
            "count": generator.count_tokens(short_enough(text)),
            "max_model_len": context or None,
        }

    @app.post("/v1/completions")
    async def completions(request: Request) -> JSONResponse:
        check_key(request)
        body = await body_of(request)
        prompts = checked(prompts_of, body)
        outs = await run(prompts, checked(generation_params, body, max_tokens_limit))
        choices = [
            {
                "index": i,
                "text": o.text,
                "finish_reason": o.finish_reason,
                "logprobs": None
                if o.logprobs is None
                else {
                    "tokens": [max(top, key=top.__getitem__) for top in o.logprobs],
                    "top_logprobs": o.logprobs,
                },
            }
            for i, o in enumerate(outs)
        ]
        return JSONResponse(
            {
                "id": f"cmpl-{secrets.token_hex(8)}",
                "object": "text_completion",
                "created": int(time.time()),
                "model": generator.name,
                "choices": choices,
                "usage": usage(outs),
            }
        )

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        check_key(request)
        body = await body_of(request)
        params = checked(generation_params, body, max_tokens_limit)
        outs = await run([generator.chat_prompt(checked(messages_of, body))], params)
        o = outs[0]
        return JSONResponse(
            {
                "id": f"chatcmpl-{secrets.token_hex(8)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": generator.name,
                "usage": usage(outs),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": o.text},
                        "finish_reason": o.finish_reason,
                    }
                ],
            }
        )

    return app


def serve_hf(
    spec: ClientSpec,
    host: str,
    port: int,
    api_key: str | None,
    batch_window_ms: float = 50.0,
    timeout_s: float = 600.0,
    http: HttpLimits | None = None,
    hosts: Iterable[str] | None = LOOPBACK_NAMES,
) -> int:
    """Serve the model ``spec`` describes from transformers in this process, in the foreground,
    until stopped (uvicorn)."""
    generator = HFGenerator.load(
        spec.model, adapter=spec.adapter, device=spec.device, max_batch=spec.max_batch
    )
    limits = http or HttpLimits(max_body_bytes=8_000_000)
    app = create_app(
        generator, api_key=api_key, max_batch=spec.max_batch, batch_window_ms=batch_window_ms,
        timeout_s=timeout_s, http=limits, hosts=hosts,
    )  # fmt: skip
    print(f"favakit serve-llm: {generator.name} on http://{host}:{port}/v1", file=sys.stderr)
    run_server(app, host, port, limits, graceful_s=30)
    return 0
