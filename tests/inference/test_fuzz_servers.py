"""Fuzzing both servers on loopback: generated requests (random JSON shapes, types, unicode,
sizes, broken JSON and encodings, headers) must never get a 5xx or traceback text back.

``favakit serve`` runs over a scripted model that answers with random tag soup built from the
text (so the editor's tag parser is fuzzed too); ``favakit serve-llm`` over the tiny random
Llama. The default run sends 3,000 requests; ``FAVAKIT_FUZZ_REQUESTS=100000`` makes the long run
of docs/benchmarks.md.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import sys
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from favakit.inference.editor import GenerativeEditor
from favakit.inference.http_guard import HttpLimits
from favakit.inference.server import ServeLimits, create_editor_app
from favakit.llm import FunctionClient, GenerationParams

sys.path.insert(0, str(Path(__file__).parent))
from test_serve import _serve

REQUESTS = int(os.environ.get("FAVAKIT_FUZZ_REQUESTS", "3000"))
SEED = int(os.environ.get("FAVAKIT_FUZZ_SEED", "0"))
THREADS = 8

EDITOR_ROUTES = ["/v1/edit", "/v1/detect", "/v1/verify", "/v1/models", "/health", "/v1/nope"]
LLM_ROUTES = ["/v1/completions", "/v1/chat/completions", "/tokenize", "/v1/models", "/health"]
FIELDS = ["text", "topic", "prompt", "evidence", "id", "messages", "max_tokens", "temperature",
          "top_p", "stop", "seed", "logprobs", "top_logprobs", "role", "content", "title"]  # fmt: skip
TAGS = ["entity", "relation", "contradictory", "invented", "subjective", "unverifiable", "mark",
        "delete", "s", "x"]  # fmt: skip
ODD_TEXT = ["", " ", "é", "ü\u0301", "日本語", "👩‍👩‍👧", "\u202eevil", "\x00", "\\ud800", "\u2028",
            "<entity>", "</delete>", "<mark<entity>>", "<" + " " * 300, "a" * 5000, "Ulm",
            "Albert Einstein was born in 1879.", "\ufeff", "\U0010ffff"]  # fmt: skip


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(ODD_TEXT) for _ in range(rng.randint(0, 6)))


def _value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value: scalars of every type, and nested lists and objects."""
    kind = rng.randrange(11 if depth < 4 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2, 64, 4097, 2**31, 2**63, -(2**64), 10**30])
    if kind == 3:
        return rng.choice([0.0, -0.5, 0.5, 1.5, 1e-300, 1e300, 3.0])
    if kind in (4, 5, 6, 7):
        return _text(rng)
    if kind in (8, 9):
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(FIELDS): _value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def _plausible(rng: random.Random, path: str) -> Any:
    """A body close to a valid one for ``path``, with a field or two gone wrong."""
    if path in ("/v1/completions", "/tokenize") and rng.random() < 0.5:
        body: dict[str, Any] = {"prompt": _text(rng) or "saturn"}
    elif path in ("/v1/chat/completions", "/tokenize"):
        body = {"messages": [{"role": "user", "content": _text(rng) or "saturn"}]}
    else:
        body = {"text": _text(rng) or "Saturn has rings.", "evidence": [_text(rng)]}
    body["max_tokens"] = rng.choice([1, 2, 4])
    for _ in range(rng.randint(0, 2)):
        body[rng.choice(FIELDS)] = _value(rng)
    return [body] * rng.randint(1, 3) if path.startswith("/v1/") and rng.random() < 0.1 else body


def _raw_json(rng: random.Random, body: Any) -> bytes:
    raw = json.dumps(body, ensure_ascii=rng.random() < 0.5)
    roll = rng.random()
    if roll < 0.05:  # JSON's non-standard numbers, which Python's parser accepts
        raw = raw.replace("1e+300", rng.choice(["1e400", "Infinity", "NaN", "-Infinity"]))
        raw = raw.replace("4097", rng.choice(["1e400", "Infinity", "NaN"]))
    elif roll < 0.08:
        raw = raw.replace("\\\\ud800", "\\ud800")  # a real lone surrogate escape
    elif roll < 0.11:
        raw = raw[: rng.randint(0, len(raw))]  # cut short
    elif roll < 0.13:
        raw = "[" * rng.randint(1, 50_000)
    data = raw.encode("utf-8", "surrogatepass")
    if rng.random() < 0.03:
        data += rng.choice([b"\xff\xfe", b"\xc3", b"\xed\xa0\x80"])  # invalid UTF-8
    return data


def _request(
    rng: random.Random, routes: list[str]
) -> tuple[str, str, bytes | None, dict[str, str]]:
    path = rng.choice(routes)
    method = "GET" if path in ("/health", "/v1/models") else "POST"
    if rng.random() < 0.05:
        method = rng.choice(["GET", "POST", "PUT", "DELETE", "PATCH"])
    headers = {"Content-Type": "application/json"}
    if rng.random() < 0.05:
        headers["Content-Type"] = rng.choice(["text/plain", "application/jsonx", "", "a/b; c=d"])
    if rng.random() < 0.05:
        headers["Authorization"] = rng.choice(["Bearer x", "Basic é", "Bearer \xff", ""])
    if rng.random() < 0.03:
        headers["Host"] = rng.choice(["evil.example", "127.0.0.1:1", "[::1]", "", "localhost"])
    body = _plausible(rng, path) if rng.random() < 0.6 else _value(rng)
    data = _raw_json(rng, body) if method != "GET" else None
    if data is not None and rng.random() < 0.01:
        data += b" " * rng.randint(1_000, 200_000)
    return method, path, data, headers


def _scripted(seed: int) -> FunctionClient:
    """A model that answers with random tag soup: pieces of the prompt, tags, broken tags."""

    def answer(prompt: str, params: GenerationParams) -> str:
        rng = random.Random(zlib.crc32(f"{seed} {prompt}".encode("utf-8", "replace")))
        words = prompt.split()[-30:] or ["x"]
        out = []
        for _ in range(rng.randint(0, 20)):
            roll = rng.random()
            tag = rng.choice(TAGS)
            if roll < 0.5:
                out.append(rng.choice(words))
            elif roll < 0.7:
                out.append(f"<{tag}>{rng.choice(words)}</{tag}>")
            elif roll < 0.8:
                out.append(f"<mark>{rng.choice(words)}</mark><delete>{rng.choice(words)}</delete>")
            else:
                out.append(rng.choice(["<", ">", "</", f"<{tag}", f"</{tag}", "<mark<entity>>"]))
        return " ".join(out)

    return FunctionClient(answer, model="scripted")


def _fuzz(url: str, routes: list[str], n: int, seed: int) -> tuple[Counter[int], list[str]]:
    """Statuses of ``n`` generated requests, and what was wrong with any answer."""
    host, port = url.removeprefix("http://").split(":")
    problems: list[str] = []

    def worker(w: int) -> Counter[int]:
        rng = random.Random(seed * 1000 + w)
        seen: Counter[int] = Counter()
        for _ in range(n // THREADS + (w < n % THREADS)):
            method, path, data, headers = _request(rng, routes)
            conn = http.client.HTTPConnection(host, int(port), timeout=120)
            try:
                conn.putrequest(method, path, skip_host="Host" in headers)
                for k, v in headers.items():
                    conn.putheader(k, v.encode("latin-1", "replace"))
                conn.putheader("Content-Length", str(len(data or b"")))
                conn.endheaders(data)
                resp = conn.getresponse()
                text = resp.read().decode("utf-8", "replace")
                status = resp.status
            except (ConnectionError, http.client.HTTPException) as exc:
                # the server may answer 413 and close while a large body is still going out
                status, text = (413, "") if data and len(data) > 100_000 else (0, repr(exc))
            finally:
                conn.close()
            seen[status] += 1
            if status >= 500 or status == 0 or "Traceback" in text or 'File "' in text:
                problems.append(f"{method} {path} {headers} {data[:200] if data else b''!r} -> "
                                f"{status} {text[:300]}")  # fmt: skip
        return seen

    with ThreadPoolExecutor(THREADS) as pool:
        statuses = sum(pool.map(worker, range(THREADS)), Counter())
    return statuses, problems


@pytest.fixture(scope="module")
def editor_url(free_port: Any) -> Iterator[str]:
    limits = ServeLimits(max_chars=3_000, timeout_s=60, http=HttpLimits(max_body_bytes=100_000))
    editor = GenerativeEditor(_scripted(SEED))
    yield from _serve(create_editor_app(editor, limits=limits), free_port(), limits.http)


@pytest.fixture(scope="module")
def llm_url(tiny_llama: Path, free_port: Any) -> Iterator[str]:
    from favakit.inference.generators import HFGenerator
    from favakit.inference.llm_server import create_app

    limits = HttpLimits(max_body_bytes=100_000)
    app = create_app(HFGenerator.load(str(tiny_llama)), max_tokens_limit=8, http=limits)
    yield from _serve(app, free_port(), limits)


@pytest.mark.slow  # 4 s or more on 2 cores
@pytest.mark.parametrize(("server", "routes"), [("editor_url", EDITOR_ROUTES),
                                                ("llm_url", LLM_ROUTES)])  # fmt: skip
def test_fuzzed_requests_get_no_5xx_and_no_traceback(
    server: str, routes: list[str], request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue(server)
    started = time.monotonic()
    statuses, problems = _fuzz(url, routes, REQUESTS // 2, SEED)
    seconds = time.monotonic() - started
    print(f"{server}: {sum(statuses.values())} requests in {seconds:.0f} s: {dict(statuses)}")
    assert not problems, problems[:5]
    assert sum(statuses.values()) == REQUESTS // 2
    assert statuses[200] > REQUESTS // 40 and len(statuses) > 4  # valid ones too, many kinds
