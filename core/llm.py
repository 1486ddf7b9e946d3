"""LLM clients shared by synthetic-data generation and FActScore.

One interface, :class:`LLMClient`, with ``complete(prompts)`` and ``chat(conversations)``. The
base class does what every backend needs and none should redo:

* bounded concurrency (a thread pool of ``max_concurrency`` requests in flight);
* retries with exponential backoff and jitter on timeouts, connection errors, 429 and 5xx;
* a content-addressed sqlite cache: the same request (backend kind, model, prompt or messages,
  generation parameters) is never paid for twice, across runs;
* token and call accounting (:class:`Usage`) and an optional progress bar.

Backends: :class:`OpenAIClient` speaks the OpenAI-compatible HTTP protocol (``/v1/completions``,
``/v1/chat/completions``) that ``vllm serve``, favakit's own server and hosted APIs all speak;
it needs nothing beyond the standard library. :class:`FunctionClient` wraps any Python function
(an in-process model).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from favakit.errors import FavakitError, UsageError
from favakit.records import sqlite_tables

__all__ = [
    "Completion",
    "FunctionClient",
    "GenerationParams",
    "LLMClient",
    "LLMError",
    "OpenAIClient",
    "ResponseCache",
    "Usage",
    "api_key_matches",
    "api_root",
    "auth_headers",
    "check_endpoint",
    "list_models",
]

log = logging.getLogger(__name__)
Message = dict[str, str]


class LLMError(FavakitError):
    """A request that failed for good (after retries, or with an error retrying cannot fix)."""


@dataclass(frozen=True)
class GenerationParams:
    max_tokens: int = 512
    temperature: float = 0.0
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    logprobs: int | None = None  # top log-probabilities per token, where the backend has them
    seed: int | None = None
    # Per prompt, the text the output must reproduce outside its tags and corrections (the
    # editor's copy guard, see favakit.inference.copy_guard). In-process transformers honours
    # it; other backends ignore it. Empty: unguarded.
    copy_sources: tuple[str, ...] = ()


@dataclass
class Completion:
    text: str
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    logprobs: list[dict[str, float]] | None = None  # per generated token: {token: logprob}
    cached: bool = False


@dataclass
class Usage:
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for key, value in counts.items():
                setattr(self, key, getattr(self, key) + value)

    def to_dict(self) -> dict[str, int]:
        with self._lock:
            return {k: v for k, v in vars(self).items() if not k.startswith("_")}


def _refuse_other_file(path: Path) -> None:
    """A cache is a file of its own: a folder, a file that is not sqlite, or a sqlite file with
    other tables (a knowledge source given as ``--cache`` by mistake, which the cache's table
    and journal mode would change) is refused before anything is written."""
    hint = "give --cache a new file's path, such as cache.db"
    if path.is_dir():
        raise UsageError(f"cache {path} is a folder: {hint}")
    if not path.exists() or path.stat().st_size == 0:
        return
    tables = sqlite_tables(path)
    if tables is None:
        raise UsageError(f"cache {path} is not a favakit cache (not sqlite): {hint}")
    if tables - {"responses"}:
        raise UsageError(
            f"cache {path} is another sqlite file (tables: {', '.join(sorted(tables))}): {hint}"
        )


class ResponseCache:
    """A persistent map from request hash to response, in sqlite (safe across threads)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        _refuse_other_file(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        self._conn.commit()

    @staticmethod
    def key(request: dict[str, Any]) -> str:
        return hashlib.sha256(
            json.dumps(request, sort_keys=True, ensure_ascii=False).encode()
        ).hexdigest()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?)", (key, json.dumps(value))
            )
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class _Retryable(Exception):
    """A failure worth another try (timeout, connection error, 429, 5xx)."""


class LLMClient:
    """Base of all backends: concurrency, retries, cache and accounting around one request."""

    kind = "base"
    copy_guard = False  # whether the backend honours GenerationParams.copy_sources

    def __init__(
        self,
        model: str,
        cache: ResponseCache | str | os.PathLike[str] | None = None,
        max_concurrency: int = 8,
        max_retries: int = 4,
        backoff: float = 0.5,
    ) -> None:
        self.model = model
        self.cache = ResponseCache(cache) if isinstance(cache, (str, os.PathLike)) else cache
        self.max_concurrency = max(1, max_concurrency)
        self.max_retries = max_retries
        self.backoff = backoff
        self.usage = Usage()

    # -- what a backend implements ------------------------------------------------------------
    def _complete_one(self, prompt: str, params: GenerationParams) -> Completion:
        raise NotImplementedError

    def _chat_one(self, messages: list[Message], params: GenerationParams) -> Completion:
        raise NotImplementedError

    # -- what a backend may know about its model's context (None: unknown) ------------------------
    def context_tokens(self) -> int | None:
        """The model's context length in tokens (prompt and answer together), or None."""
        return None

    def count_tokens(self, endpoint: str, payload: Any) -> int | None:
        """How many tokens the request's prompt takes (``endpoint`` "completion" with a prompt
        string, or "chat" with messages, the chat template included), or None when unknown."""
        return None

    # -- the shared machinery -------------------------------------------------------------------
    def complete(
        self, prompts: Sequence[str], params: GenerationParams | None = None, progress: bool = False
    ) -> list[Completion]:
        """Completions for many prompts, in order; concurrent, retried and cached."""
        p = params or GenerationParams()
        return self._run([("completion", x) for x in prompts], p, progress)

    def chat(
        self,
        conversations: Sequence[list[Message]],
        params: GenerationParams | None = None,
        progress: bool = False,
    ) -> list[Completion]:
        """Assistant replies for many conversations, in order; concurrent, retried and cached."""
        p = params or GenerationParams()
        return self._run([("chat", list(c)) for c in conversations], p, progress)

    def _run(
        self, requests: list[tuple[str, Any]], params: GenerationParams, progress: bool
    ) -> list[Completion]:
        from favakit.progress import Progress, counted

        bar = (
            Progress(len(requests), "calls", f"{self.kind}:{self.model}")
            if progress and requests
            else None
        )
        # a caller's part counted in tokens (the editor's, in `favakit edit`): each answer's
        # tokens count when it comes, as a server gives them at its end
        tokens = counted("token")
        lock = threading.Lock()  # answers come on the pool's threads

        def one(req: tuple[str, Any]) -> Completion:
            done: Completion | None = None
            try:
                done = self._cached(req[0], req[1], params)
                return done
            finally:
                with lock:
                    if bar is not None:
                        bar.advance(1)
                    if tokens is not None and done is not None:
                        tokens(done.completion_tokens)

        try:
            if self.max_concurrency == 1 or len(requests) <= 1:
                return [one(r) for r in requests]
            with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(requests))) as pool:
                return list(pool.map(one, requests))
        finally:
            if bar is not None:
                bar.close()

    def _key(self, endpoint: str, payload: Any, params: GenerationParams) -> str:
        """The cache key of a request ("" without a cache)."""
        if self.cache is None:
            return ""
        request = {
            "kind": self.kind,
            "endpoint": endpoint,
            "model": self.model,
            "input": payload,
            "params": asdict(params),
        }
        return ResponseCache.key(request)

    def _lookup(self, key: str) -> Completion | None:
        """A cached answer (counted as a cache hit), or None."""
        hit = self.cache.get(key) if (self.cache is not None and key) else None
        if hit is None:
            return None
        self.usage.add(cache_hits=1)
        return Completion(**{**hit, "cached": True})

    def _record(self, key: str, result: Completion) -> Completion:
        """Count a fresh answer and store it in the cache."""
        self.usage.add(
            calls=1, prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens
        )
        if self.cache is not None and key:
            self.cache.put(key, {**asdict(result), "cached": False})
        return result

    def _cached(self, endpoint: str, payload: Any, params: GenerationParams) -> Completion:
        key = self._key(endpoint, payload, params)
        hit = self._lookup(key)
        if hit is not None:
            return hit
        return self._record(key, self._with_retries(endpoint, payload, params))

    def _with_retries(self, endpoint: str, payload: Any, params: GenerationParams) -> Completion:
        attempt = 0
        while True:
            try:
                if endpoint == "chat":
                    return self._chat_one(payload, params)
                return self._complete_one(payload, params)
            except _Retryable as exc:
                if attempt >= self.max_retries:
                    self.usage.add(failures=1)
                    raise LLMError(
                        f"{self.kind} request failed after {attempt + 1} tries: {exc}"
                    ) from None
                delay = self.backoff * (2**attempt) * (0.5 + random.random())
                log.warning("retrying in %.2fs after: %s", delay, exc)
                self.usage.add(retries=1)
                time.sleep(delay)
                attempt += 1


class FunctionClient(LLMClient):
    """Wraps ``fn(prompt, params) -> str`` (an in-process model) as a client; chat requests are
    flattened as ``role: content`` lines unless ``chat_fn`` is given."""

    kind = "function"

    def __init__(
        self,
        fn: Callable[[str, GenerationParams], str],
        model: str = "function",
        chat_fn: Callable[[list[Message], GenerationParams], str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(model, **kwargs)
        self.fn = fn
        self.chat_fn = chat_fn

    def _complete_one(self, prompt: str, params: GenerationParams) -> Completion:
        return Completion(self.fn(prompt, params), "stop")

    def _chat_one(self, messages: list[Message], params: GenerationParams) -> Completion:
        if self.chat_fn is not None:
            return Completion(self.chat_fn(messages, params), "stop")
        flat = "\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\nassistant:"
        return Completion(self.fn(flat, params), "stop")


def api_root(base_url: str) -> str:
    """An OpenAI-compatible server's ``/v1`` URL, given the server root or its ``/v1``."""
    root = base_url.rstrip("/")
    return root if root.endswith("/v1") else root + "/v1"


def auth_headers(api_key: str | None) -> dict[str, str]:
    """JSON request headers, with ``Authorization: Bearer KEY`` when there is a key
    (``api_key``, else ``OPENAI_API_KEY``)."""
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def api_key_matches(authorization: str, api_key: str) -> bool:
    """Whether an ``Authorization`` header (as an HTTP server decodes it: latin-1) is
    ``Bearer API_KEY``, compared in constant time as bytes, so that a header with characters
    outside ASCII is a wrong key, not an error."""
    import secrets

    got = authorization.encode("latin-1", errors="replace")
    return secrets.compare_digest(got, f"Bearer {api_key}".encode())


def list_models(base_url: str, api_key: str | None = None) -> list[dict[str, Any]]:
    """The model cards of an OpenAI-compatible server (``GET /v1/models``); ``OSError`` or
    ``ValueError`` when it cannot be read."""
    req = urllib.request.Request(api_root(base_url) + "/models", headers=auth_headers(api_key))
    with urllib.request.urlopen(req, timeout=30) as resp:
        data = json.loads(resp.read().decode("utf-8")).get("data")
    if not isinstance(data, list):
        raise ValueError("no 'data' list in the answer")
    return [m for m in data if isinstance(m, dict)]


def check_endpoint(base_url: str, model: str, api_key: str | None = None) -> None:
    """Fail at once, with the fix, where an OpenAI-compatible endpoint cannot serve ``model``:
    nothing listens there (a ``UsageError`` naming it), or it lists its models and ``model`` is
    not one of them. A server that answers but lists nothing readable is let through (a
    hosted API without ``/v1/models``): its first request says what is wrong."""
    url = api_root(base_url)
    try:
        ids = [str(m.get("id")) for m in list_models(base_url, api_key)]
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise UsageError(f"{url} refused the API key (HTTP {exc.code})") from None
        return
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValueError):
            return
        reason = getattr(exc, "reason", exc)
        raise UsageError(
            f"cannot reach the LLM endpoint {url} ({reason}); start a server there (`favakit "
            "serve-llm`, vLLM) or pass the right --llm-endpoint"
        ) from None
    if ids and model not in ids:
        raise UsageError(f"{url} has no model {model!r}; it serves: {', '.join(ids)}")


class OpenAIClient(LLMClient):
    """Any OpenAI-compatible endpoint: ``vllm serve``, ``favakit serve-llm``, a hosted API.

    ``base_url`` is the server root or its ``/v1`` (both work). The API key comes from
    ``api_key`` or the ``OPENAI_API_KEY`` environment variable; local servers need none.
    """

    kind = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 600.0,  # a loaded CPU server can take minutes per batch
        **kwargs: Any,
    ) -> None:
        super().__init__(model, **kwargs)
        self.base_url = api_root(base_url)
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.timeout = timeout
        self._context: int | None = None  # from /v1/models, asked once
        self._context_asked = False
        self._no_tokenize = False  # the server has no /tokenize: not asked again

    def _headers(self) -> dict[str, str]:
        return auth_headers(self.api_key)

    def context_tokens(self) -> int | None:
        """``max_model_len`` of this model in the server's ``/v1/models`` (vLLM and ``favakit
        serve-llm`` give it; hosted APIs do not: None). Asked once."""
        if not self._context_asked:
            self._context_asked = True
            try:
                models = list_models(self.base_url, self.api_key)
            except (OSError, ValueError) as exc:
                log.info("no context length from %s/models: %s", self.base_url, exc)
                models = []
            for m in models:
                if m.get("id") == self.model and m.get("max_model_len"):
                    self._context = int(m["max_model_len"])
        return self._context

    def count_tokens(self, endpoint: str, payload: Any) -> int | None:
        """The prompt's token count from the server's ``/tokenize`` route (vLLM and ``favakit
        serve-llm``); None, and not asked again, where the server has none."""
        if self._no_tokenize:
            return None
        body: dict[str, Any] = {"model": self.model}
        if endpoint == "chat":
            body.update(messages=payload, add_generation_prompt=True)
        else:
            body["prompt"] = payload
        url = self.base_url[: -len("/v1")] + "/tokenize"
        req = urllib.request.Request(
            url, data=json.dumps(body).encode(), headers=self._headers(), method="POST"
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return int(json.loads(resp.read().decode("utf-8"))["count"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.info("no token counts from %s: %s", url, exc)
            self._no_tokenize = True
            return None

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode()
        req = urllib.request.Request(
            self.base_url + path, data=data, headers=self._headers(), method="POST"
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                payload = json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:300]
            if exc.code == 429 or exc.code >= 500:
                raise _Retryable(f"HTTP {exc.code}: {detail}") from None
            raise LLMError(f"{self.base_url}{path} answered HTTP {exc.code}: {detail}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise _Retryable(f"{self.base_url}{path}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise _Retryable(f"{self.base_url}{path}: response is not JSON ({exc})") from None
        if not isinstance(payload, dict) or not payload.get("choices"):
            raise _Retryable(
                f"{self.base_url}{path}: response has no choices: {str(payload)[:200]}"
            )
        return payload

    def _body(self, params: GenerationParams) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
        }
        if params.stop:
            body["stop"] = list(params.stop)
        if params.seed is not None:
            body["seed"] = params.seed
        return body

    @staticmethod
    def _usage(payload: dict[str, Any]) -> tuple[int, int]:
        usage = payload.get("usage") or {}
        return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)

    def _complete_one(self, prompt: str, params: GenerationParams) -> Completion:
        body = {**self._body(params), "prompt": prompt}
        if params.logprobs is not None:
            body["logprobs"] = params.logprobs
        payload = self._post("/completions", body)
        choice = payload["choices"][0]
        top = (choice.get("logprobs") or {}).get("top_logprobs")
        pt, ct = self._usage(payload)
        return Completion(str(choice.get("text") or ""), choice.get("finish_reason"), pt, ct, top)

    def _chat_one(self, messages: list[Message], params: GenerationParams) -> Completion:
        body = {**self._body(params), "messages": messages}
        if params.logprobs is not None:
            body["logprobs"] = True
            body["top_logprobs"] = params.logprobs
        payload = self._post("/chat/completions", body)
        choice = payload["choices"][0]
        content = (choice.get("message") or {}).get("content") or ""
        lp = (choice.get("logprobs") or {}).get("content")
        top = (
            [{t["token"]: t["logprob"] for t in item.get("top_logprobs", [])} for item in lp]
            if lp
            else None
        )
        pt, ct = self._usage(payload)
        return Completion(str(content), choice.get("finish_reason"), pt, ct, top)
