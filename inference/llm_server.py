"""``favakit serve-llm``: an OpenAI-compatible generation server.

Where a vLLM environment is found (and for ``--backend vllm``) this runs vLLM's own server
(:mod:`favakit.inference.vllm_server`). Elsewhere, or with ``--backend hf``, it serves the same
subset itself from transformers: ``GET /v1/models``, ``POST /v1/completions``,
``POST /v1/chat/completions``. Requests from many clients are batched together: a worker
thread takes what has queued up (up to ``max_batch``, waiting at most ``batch_window_ms`` for
more), groups requests with the same sampling parameters and generates each group in one batch.
"""

# No `from __future__ import annotations` here: FastAPI reads the route signatures' types at
# runtime, and `Request` is imported inside create_app (fastapi is an optional dependency).
import asyncio
import logging
import secrets
import sys
import time
from typing import Any

from favakit.inference.batching import Batcher
from favakit.inference.generators import Generated, HFGenerator
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
) -> Any:
    """The FastAPI app serving ``generator`` under the OpenAI-compatible routes."""
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

    def check_key(request: Request) -> None:
        if api_key and not api_key_matches(request.headers.get("authorization", ""), api_key):
            raise HTTPException(401, "missing or wrong API key (Authorization: Bearer KEY)")

    def params_of(body: dict[str, Any]) -> GenerationParams:
        try:
            max_tokens = int(body.get("max_tokens") or 256)
            temperature = float(body.get("temperature") or 0.0)
            top_p = float(body.get("top_p") or 1.0)
        except (TypeError, ValueError):
            raise HTTPException(422, "max_tokens, temperature and top_p must be numbers") from None
        if not 1 <= max_tokens <= max_tokens_limit:
            raise HTTPException(422, f"max_tokens must be between 1 and {max_tokens_limit}")
        stop = body.get("stop") or ()
        stop = (stop,) if isinstance(stop, str) else tuple(str(s) for s in stop)
        seed = body.get("seed")
        logprobs = body.get("logprobs")
        if logprobs is True:  # the chat API's form: top_logprobs says how many
            logprobs = body.get("top_logprobs") or 1
        if logprobs is not None and logprobs is not False:
            if not isinstance(logprobs, int) or not 0 <= logprobs <= 20:
                raise HTTPException(422, "logprobs must be an integer from 0 to 20")
        else:
            logprobs = None
        return GenerationParams(
            max_tokens, temperature, top_p, stop, logprobs, int(seed) if seed is not None else None
        )

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

    async def run(prompts: list[str], params: GenerationParams) -> list[Generated]:
        for p in prompts:
            if len(p) > max_prompt_chars:
                raise HTTPException(
                    413, f"a prompt is {len(p)} characters; the limit is {max_prompt_chars}"
                )
            fits(p, params.max_tokens)
        futures = [asyncio.wrap_future(batcher.submit(p, params)) for p in prompts]
        return list(await asyncio.gather(*futures))

    def usage(outs: list[Generated]) -> dict[str, int]:
        pt = sum(o.prompt_tokens for o in outs)
        ct = sum(o.completion_tokens for o in outs)
        return {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}

    async def body_of(request: Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError:
            raise HTTPException(400, "the request body is not valid JSON") from None
        if not isinstance(body, dict):
            raise HTTPException(422, "the request body must be a JSON object")
        return body

    def messages_of(body: dict[str, Any]) -> list[dict[str, str]]:
        messages = body.get("messages")
        if (
            not isinstance(messages, list)
            or not messages
            or not all(
                isinstance(m, dict)
                and isinstance(m.get("content"), str)
                and isinstance(m.get("role"), str)
                for m in messages
            )
        ):
            raise HTTPException(
                422, "'messages' must be a non-empty list of {role, content} objects"
            )
        return messages

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
            text = body["prompt"]
        else:
            text = generator.chat_prompt(messages_of(body))
        return {"count": generator.count_tokens(text), "max_model_len": context or None}

    @app.post("/v1/completions")
    async def completions(request: Request) -> JSONResponse:
        check_key(request)
        body = await body_of(request)
        prompt = body.get("prompt")
        prompts = [prompt] if isinstance(prompt, str) else prompt
        if (
            not isinstance(prompts, list)
            or not prompts
            or not all(isinstance(p, str) for p in prompts)
        ):
            raise HTTPException(422, "'prompt' must be a string or a non-empty list of strings")
        outs = await run(prompts, params_of(body))
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
        outs = await run([generator.chat_prompt(messages_of(body))], params_of(body))
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
    spec: ClientSpec, host: str, port: int, api_key: str | None, batch_window_ms: float = 50.0
) -> int:
    """Serve the model ``spec`` describes from transformers in this process, in the foreground,
    until stopped (uvicorn)."""
    import uvicorn

    generator = HFGenerator.load(
        spec.model, adapter=spec.adapter, device=spec.device, max_batch=spec.max_batch
    )
    app = create_app(
        generator, api_key=api_key, max_batch=spec.max_batch, batch_window_ms=batch_window_ms
    )
    print(f"favakit serve-llm: {generator.name} on http://{host}:{port}/v1", file=sys.stderr)
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=30)
    return 0
