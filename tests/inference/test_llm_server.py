"""favakit serve-llm --backend hf as a real process on loopback, with a tiny random Llama."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from favakit.llm import GenerationParams, OpenAIClient


@pytest.fixture(scope="module")
def server(tiny_llama: Path, free_port: Any):  # type: ignore[no-untyped-def]
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "favakit",
            "serve-llm",
            "--model",
            str(tiny_llama),
            "--backend",
            "hf",
            "--port",
            str(port),
            "--max-batch",
            "8",
            "--batch-window-ms",
            "50",
            "--api-key",
            "sekret",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/health", timeout=1)
            break
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(proc.stderr.read() if proc.stderr else "server died") from None
            time.sleep(0.2)
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def post(url: str, path: str, body: Any, key: str | None = "sekret") -> tuple[int, dict[str, Any]]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(url + path, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


@pytest.mark.slow
def test_openai_routes_and_greedy_equals_in_process(server: str, tiny_llama: Path) -> None:
    client = OpenAIClient(server, "tiny", api_key="sekret")
    params = GenerationParams(max_tokens=8)
    (remote,) = client.complete(["marie curie won the nobel prize"], params)
    from favakit.inference.generators import HFGenerator

    local = HFGenerator.load(str(tiny_llama), device="cpu").generate(
        ["marie curie won the nobel prize"], params
    )[0]
    assert remote.text == local.text and remote.completion_tokens == local.completion_tokens
    (chat,) = client.chat([[{"role": "user", "content": "saturn"}]], params)
    assert isinstance(chat.text, str) and chat.completion_tokens <= 8
    req = urllib.request.Request(server + "/v1/models", headers={"Authorization": "Bearer sekret"})
    models = json.loads(urllib.request.urlopen(req, timeout=10).read())
    assert models["data"][0]["id"] == tiny_llama.name


def test_concurrent_requests_are_batched(server: str) -> None:
    client = OpenAIClient(server, "tiny", api_key="sekret", max_concurrency=8)
    prompts = [f"saturn is a planet {'ice ' * i}" for i in range(16)]
    with ThreadPoolExecutor(4) as pool:  # several clients at once, each with its own batch
        outs = list(
            pool.map(lambda p: client.complete([p], GenerationParams(max_tokens=4))[0], prompts)
        )
    assert len(outs) == 16
    health = json.loads(urllib.request.urlopen(server + "/health", timeout=10).read())
    assert health["largest_batch"] > 1


def test_bad_requests_get_clear_4xx(server: str) -> None:
    assert post(server, "/v1/completions", {"prompt": "x"}, key=None)[0] == 401
    assert post(server, "/v1/completions", {"prompt": "x"}, key="wrong")[0] == 401
    status, body = post(server, "/v1/completions", b"{not json")
    assert status == 400 and "JSON" in body["detail"]
    assert post(server, "/v1/completions", {"prompt": 42})[0] == 422
    assert post(server, "/v1/completions", {"prompt": "x", "max_tokens": 10**6})[0] == 422
    assert post(server, "/v1/chat/completions", {"messages": "hi"})[0] == 422
    # a streaming client was answered whole, and waited for events that never came
    status, body = post(server, "/v1/completions", {"prompt": "x", "stream": True})
    assert status == 422 and "'stream'" in body["detail"]
    parts = [{"type": "text", "text": "saturn"}]  # how newer clients send a message
    chat = {"messages": [{"role": "user", "content": parts}], "max_completion_tokens": 2}
    status, body = post(server, "/v1/chat/completions", chat)
    assert status == 200 and body["usage"]["completion_tokens"] <= 2
    status, _ = post(server, "/v1/completions", {"prompt": "saturn", "max_tokens": 2})
    assert status == 200  # still up


def test_in_process_client_matches_the_server_and_caches(
    server: str, tiny_llama: Path, tmp_path: Path
) -> None:
    from favakit.inference.generators import GeneratorClient, HFGenerator

    client = GeneratorClient(
        HFGenerator.load(str(tiny_llama), device="cpu"), cache=tmp_path / "c.sqlite"
    )
    params = GenerationParams(max_tokens=6)
    prompts = ["saturn has rings", "lava and ash"]
    local = client.complete(prompts, params)
    remote = OpenAIClient(server, "tiny", api_key="sekret").complete(prompts, params)
    assert [c.text for c in local] == [c.text for c in remote]
    again = client.complete(prompts, params)
    assert all(c.cached for c in again) and client.usage.calls == 2 and client.usage.cache_hits == 2


def test_context_length_and_token_counts_like_vllm(server: str, tiny_llama: Path) -> None:
    """/v1/models gives max_model_len, /tokenize counts a prompt or chat messages (the template
    included), and a prompt longer than the context is refused with vLLM's 400, not run."""
    from favakit.inference.generators import GeneratorClient, HFGenerator

    name = tiny_llama.name
    client = OpenAIClient(server, name, api_key="sekret")
    local = GeneratorClient(HFGenerator.load(str(tiny_llama), device="cpu"))
    assert client.context_tokens() == local.context_tokens() == 512
    prompt = "saturn has rings and lava"
    assert (
        client.count_tokens("completion", prompt) == 5 == local.count_tokens("completion", prompt)
    )
    chat = [{"role": "user", "content": prompt}]
    n_chat = client.count_tokens("chat", chat)
    assert n_chat == local.count_tokens("chat", chat) and n_chat is not None and n_chat > 5
    long = "saturn " * 510
    status, body = post(server, "/v1/completions", {"prompt": long, "max_tokens": 4})
    assert status == 400 and "maximum context length is 512" in body["detail"]
    assert post(server, "/v1/completions", {"prompt": long, "max_tokens": 2})[0] == 200  # fits
    assert post(server, "/tokenize", {"messages": "hi"})[0] == 422
    assert post(server, "/tokenize", {"prompt": "x"}, key=None)[0] == 401
    # a server without /tokenize: no counts, asked once
    bare = OpenAIClient(server + "/nowhere", name, api_key="sekret")
    assert bare.count_tokens("completion", prompt) is None and bare._no_tokenize


def test_the_llm_judge_reads_evidence_longer_than_the_context_in_pieces(
    server: str, tiny_llama: Path
) -> None:
    """`favakit verify --judge llm` through a real server: 1,200 words of evidence against a
    512-token context are judged in pieces that fit, with a warning, instead of an HTTP 400."""
    from favakit.contracts import EditRequest
    from favakit.inference.judges import Judge
    from favakit.inference.verifiers import LLMVerifier

    client = OpenAIClient(server, tiny_llama.name, api_key="sekret")
    verifier = LLMVerifier(Judge(client, chat=True, max_tokens=1))
    evidence = [{"title": "Saturn", "text": "saturn has rings and lava . " * 200}]
    short = [{"title": "Saturn", "text": "saturn has rings ."}]
    long_v, short_v = verifier.verify([
        EditRequest.from_obj({"text": "saturn has rings", "evidence": evidence}),
        EditRequest.from_obj({"text": "saturn has rings", "evidence": short}),
    ])  # fmt: skip
    assert "judged in" in long_v["warnings"][0] and int(long_v["warnings"][0].split()[-6]) >= 3
    assert "warnings" not in short_v and 0.0 <= long_v["score"] <= 1.0
