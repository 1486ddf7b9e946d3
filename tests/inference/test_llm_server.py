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
