"""What a hostile or careless client can do to both servers (issue 33 items 2, 3, 10, 12, 13),
against real servers on loopback: ``favakit serve`` over a scripted in-process model (a
function: what it returns does not matter here, only when and whether it runs) and
``favakit serve-llm`` over the tiny random Llama."""

from __future__ import annotations

import http.client
import json
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from favakit.inference.editor import GenerativeEditor
from favakit.inference.http_guard import (
    INTERNAL,
    HttpLimits,
    allowed_hosts,
    host_name,
    is_loopback,
    keyless_note,
)
from favakit.inference.server import ServeLimits, create_editor_app
from favakit.llm import FunctionClient, GenerationParams

sys.path.insert(0, str(Path(__file__).parent))
from test_serve import _serve, _wait_for


class SlowModel:
    """A model function that takes ``seconds`` per call and counts its calls."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds, self.calls = seconds, 0

    def __call__(self, prompt: str, params: GenerationParams) -> str:
        self.calls += 1
        time.sleep(self.seconds)
        return "no errors"


def _editor_app(model: Any = None, limits: ServeLimits | None = None, **kwargs: Any) -> Any:
    editor = GenerativeEditor(FunctionClient(model or SlowModel(), model="scripted"))
    return create_editor_app(editor, limits=limits, **kwargs)


@pytest.fixture(scope="module")
def llm_app(tiny_llama: Path) -> Any:
    from favakit.inference.generators import HFGenerator
    from favakit.inference.llm_server import create_app

    limits = HttpLimits(max_body_bytes=1_000_000)
    return create_app(HFGenerator.load(str(tiny_llama)), max_prompt_chars=5_000, http=limits)


@pytest.fixture(scope="module")
def llm_url(llm_app: Any, free_port: Any) -> Iterator[str]:
    yield from _serve(llm_app, free_port())


@pytest.fixture(scope="module")
def editor_url(free_port: Any) -> Iterator[str]:
    limits = ServeLimits(http=HttpLimits(max_body_bytes=1_000_000))
    yield from _serve(_editor_app(limits=limits), free_port())


def _request(
    url: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    method: str = "POST",
) -> tuple[int, dict[str, str], str]:
    """(status, headers, body text) of one request, headers as given (none added but Host)."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    resp = conn.getresponse()
    got = resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read().decode()
    conn.close()
    return got


def _post_json(url: str, path: str, raw: str | bytes) -> tuple[int, str]:
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    status, _, text = _request(url, path, data, {"Content-Type": "application/json"})
    return status, text


def _socket(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=30)


def _status_line(sock: socket.socket, within_s: float) -> bytes:
    """What the server sends back within ``within_s`` seconds, read until it closes the
    connection or a second passes without more (b'' if it closed before sending anything)."""
    ready, _, _ = select.select([sock], [], [], within_s)
    if not ready:
        return b"(nothing)"
    got = b""
    while True:
        try:
            part = sock.recv(65536)
        except ConnectionResetError:
            return got
        if not part:
            return got
        got += part
        ready, _, _ = select.select([sock], [], [], 1.0)
        if not ready:
            return got


ROUTE = {"editor_url": "/v1/edit", "llm_url": "/v1/completions"}  # a POST route of each server


def _head(path: str, *headers: str) -> bytes:
    """A JSON POST's request line and headers, with ``headers`` after the usual ones."""
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    return ("\r\n".join([*lines, *headers]) + "\r\n\r\n").encode()


# -- item 2: body limits before the body is read -----------------------------------------------


@pytest.mark.parametrize("server", ["editor_url", "llm_url"])
def test_a_body_declared_over_the_limit_is_refused_before_it_is_sent(
    server: str, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue(server)
    path = ROUTE[server]
    with _socket(url) as sock:
        sock.sendall(_head(path, "Content-Length: 512000000"))  # and not one byte of the body
        answer = _status_line(sock, within_s=10)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"limit is 1000000" in answer


@pytest.mark.parametrize("server", ["editor_url", "llm_url"])
def test_a_chunked_body_is_read_only_up_to_the_limit(
    server: str, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue(server)
    path = ROUTE[server]
    chunk = b"x" * 65536
    sent, answer = 0, b"(nothing)"
    with _socket(url) as sock:
        sock.sendall(_head(path, "Transfer-Encoding: chunked"))
        while sent < 4_000_000 and answer == b"(nothing)":
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
            answer = _status_line(sock, within_s=0.02)
        if answer == b"(nothing)":
            answer = _status_line(sock, within_s=5)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < 1_500_000  # it stopped reading soon after the limit


def test_tokenize_has_a_length_limit(llm_url: str) -> None:
    status, text = _post_json(llm_url, "/tokenize", json.dumps({"prompt": "a " * 3000}))
    assert status == 413 and "limit is 5000" in text


# -- item 3: serve-llm's parameters are 4xx naming the field ------------------------------------

BAD_PARAMS = [
    ('{"prompt": "a", "max_tokens": 1e400}', "max_tokens"),
    ('{"prompt": "a", "max_tokens": Infinity}', "max_tokens"),
    ('{"prompt": "a", "max_tokens": 0}', "max_tokens"),
    ('{"prompt": "a", "max_tokens": 2.5}', "max_tokens"),
    ('{"prompt": "a", "seed": "abc"}', "seed"),
    ('{"prompt": "a", "seed": 1e30}', "seed"),
    ('{"prompt": "a", "seed": 1e400}', "seed"),
    ('{"prompt": "a", "seed": 100000000000000000000000}', "seed"),
    ('{"prompt": "a", "stop": 5}', "stop"),
    ('{"prompt": "a", "stop": ["a", "b", "c", "d", "e"]}', "stop"),
    ('{"prompt": "a", "top_p": -1, "temperature": 1}', "top_p"),
    ('{"prompt": "a", "temperature": NaN}', "temperature"),
    ('{"prompt": "a", "logprobs": 99}', "logprobs"),
    ('{"prompt": ""}', "prompt"),
    ('{"prompt": "  \\u2028 "}', "prompt"),  # no tokens
    ('{"prompt": "a \\ud800 b"}', "prompt"),
]


@pytest.mark.parametrize(("body", "field"), BAD_PARAMS)
def test_bad_generation_parameters_are_422_naming_the_field(
    llm_url: str, body: str, field: str
) -> None:
    status, text = _post_json(llm_url, "/v1/completions", body)
    assert status == 422 and f"'{field}'" in text, (status, text)


def test_lone_surrogates_in_chat_and_tokenize_are_422(llm_url: str) -> None:
    chat = '{"messages": [{"role": "user", "content": "x \\udc00"}], "max_tokens": 1}'
    assert _post_json(llm_url, "/v1/chat/completions", chat)[0] == 422
    assert _post_json(llm_url, "/tokenize", chat)[0] == 422
    assert _post_json(llm_url, "/tokenize", '{"prompt": "\\ud800"}')[0] == 422
    # and the server is fine
    ok = '{"prompt": "saturn is", "max_tokens": 1, "seed": 7, "stop": ["."]}'
    assert _post_json(llm_url, "/v1/completions", ok)[0] == 200
    # a temperature so low that the logits divided by it are infinite samples greedily (the
    # long fuzz run found this one: 502, "probability tensor contains inf")
    tiny = '{"prompt": "saturn is", "max_tokens": 2, "temperature": 1e-300, "seed": 1}'
    greedy = '{"prompt": "saturn is", "max_tokens": 2}'
    status, text = _post_json(llm_url, "/v1/completions", tiny)
    assert status == 200, text
    assert (
        json.loads(text)["choices"][0]["text"]
        == json.loads(_post_json(llm_url, "/v1/completions", greedy)[1])["choices"][0]["text"]
    )


# -- item 10: right codes, no internals ----------------------------------------------------------


@pytest.mark.parametrize("server", ["editor_url", "llm_url"])
def test_json_nested_too_deep_is_400(server: str, request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue(server)
    path = ROUTE[server]
    status, text = _post_json(url, path, "[" * 100_000 + "]" * 100_000)
    assert status == 400 and "nested" in text


def test_lone_surrogates_on_serve_are_422(editor_url: str) -> None:
    status, text = _post_json(editor_url, "/v1/edit", '{"text": "Ulm \\ud800 in 1879."}')
    assert status == 422 and "surrogate" in text


def test_a_failed_upstream_is_502_without_its_address(free_port: Any) -> None:
    from favakit.llm import OpenAIClient

    port = free_port()  # nothing listens there
    upstream = f"http://127.0.0.1:{port}/secret-upstream"
    editor = GenerativeEditor(OpenAIClient(upstream, "m", timeout=2, max_retries=0))
    for url in _serve(create_editor_app(editor), free_port()):
        status, text = _post_json(url, "/v1/edit", '{"text": "Saturn has rings."}')
    assert status == 502 and "log" in text
    assert "secret-upstream" not in text and str(port) not in text and "Errno" not in text


def test_an_unexpected_failure_is_500_with_a_fixed_message(free_port: Any) -> None:
    class Broken(GenerativeEditor):
        @property
        def model(self) -> str:
            raise RuntimeError("internal detail /home/secret")

    app = create_editor_app(Broken(FunctionClient(SlowModel(), model="scripted")))
    for url in _serve(app, free_port()):
        status, _, text = _request(url, "/health", method="GET")
    assert status == 500 and json.loads(text) == {"detail": INTERNAL}


# -- item 12: slow clients, bounded work, abandoned work -----------------------------------------


def test_a_connection_that_sends_no_request_is_closed(free_port: Any) -> None:
    limits = ServeLimits(http=HttpLimits(header_timeout_s=1))
    for url in _serve(_editor_app(limits=limits), free_port(), limits.http):
        with _socket(url) as idle, _socket(url) as slow:
            slow.sendall(b"POST /v1/edit HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never end
            started = time.monotonic()
            assert _status_line(idle, within_s=5) == b""  # closed by the server
            assert _status_line(slow, within_s=5) == b""
            assert time.monotonic() - started < 4


def test_a_body_that_stops_arriving_is_408(free_port: Any) -> None:
    limits = ServeLimits(http=HttpLimits(body_timeout_s=1))
    for url in _serve(_editor_app(limits=limits), free_port()):
        with _socket(url) as sock:
            sock.sendall(_head("/v1/edit", "Content-Length: 100") + b'{"text": ')
            assert _status_line(sock, within_s=5).startswith(b"HTTP/1.1 408")


def test_a_full_server_answers_503_with_retry_after(free_port: Any) -> None:
    model = SlowModel(seconds=1.0)
    limits = ServeLimits(http=HttpLimits(max_pending=2))
    for url in _serve(_editor_app(model, limits=limits, workers=2), free_port()):

        def one(_: int, url: str = url) -> tuple[int, str | None]:
            status, headers, _ = _request(
                url, "/v1/edit", b'{"text": "Saturn has rings."}',
                {"Content-Type": "application/json"},
            )  # fmt: skip
            return status, headers.get("retry-after")

        with ThreadPoolExecutor(6) as pool:
            answers = list(pool.map(one, range(6)))
    assert (200, None) in answers and (503, "1") in answers
    assert {status for status, _ in answers} == {200, 503}


@pytest.mark.slow
def test_work_is_dropped_when_its_time_is_up_or_its_client_goes(free_port: Any) -> None:
    model = SlowModel(seconds=1.5)
    limits = ServeLimits(timeout_s=0.5)
    body = b'{"text": "Saturn has rings."}'
    for url in _serve(_editor_app(model, limits=limits, workers=1), free_port()):
        with ThreadPoolExecutor(3) as pool:  # one runs, two wait: all three time out
            statuses = list(
                pool.map(lambda _, url=url: _post_json(url, "/v1/edit", body)[0], range(3))
            )
        assert statuses == [504, 504, 504]
        time.sleep(3.5)
        assert model.calls == 1  # the two that waited never ran
    model = SlowModel(seconds=1.0)
    for url in _serve(_editor_app(model, workers=1), free_port()):
        first = threading.Thread(target=_post_json, args=(url, "/v1/edit", body))
        first.start()
        _wait_for(lambda: model.calls == 1)  # the first is running
        with _socket(url) as sock:  # waits behind the first, then hangs up
            sock.sendall(_head("/v1/edit", f"Content-Length: {len(body)}") + body)
            time.sleep(0.2)
        first.join()
        time.sleep(1.5)
        assert model.calls == 1


# -- item 13: cross-site requests -----------------------------------------------------------------


@pytest.mark.parametrize("server", ["editor_url", "llm_url"])
def test_only_json_bodies_and_this_servers_host_are_answered(
    server: str, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue(server)
    path = ROUTE[server]
    ok = {"editor_url": b'{"text": "Saturn has rings."}',
          "llm_url": b'{"prompt": "saturn", "max_tokens": 1}'}[server]  # fmt: skip
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {"Content-Type": content_type} if content_type else {}
        assert _request(url, path, ok, headers)[0] == 415, content_type
    json_type = {"Content-Type": "application/json; charset=utf-8"}
    assert _request(url, path, ok, json_type)[0] == 200
    port = url.rsplit(":", 1)[1]
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.2"):
        status, _, text = _request(url, path, ok, {**json_type, "Host": host})
        assert status == 403 and "--allow-host" in text, host
    assert _request(url, "/health", None, {"Host": "evil.example"}, method="GET")[0] == 403
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", "[::1]"):
        assert _request(url, path, ok, {**json_type, "Host": host})[0] == 200, host


def test_the_hosts_a_bound_server_answers() -> None:
    assert allowed_hosts("127.0.0.1") == {"127.0.0.1", "localhost", "::1"}
    assert allowed_hosts("localhost", ["Box.Lan"]) == {"localhost", "127.0.0.1", "::1", "box.lan"}
    assert allowed_hosts("10.1.2.3") == {"10.1.2.3"}
    assert allowed_hosts("0.0.0.0") is None  # every address: names it cannot know
    assert allowed_hosts("0.0.0.0", ["box.lan"]) == {"box.lan"}
    assert allowed_hosts("127.0.0.1", ["*"]) is None
    assert host_name("[::1]:8080") == "::1" and host_name("Example.ORG:80") == "example.org"
    assert host_name("example.org") == "example.org"


# -- item 14: the Pythons favakit installs on ---------------------------------------------------


def test_every_python_favakit_installs_on_has_asyncio_timeouts_as_timeout_error() -> None:
    """The servers catch ``TimeoutError`` around ``asyncio.wait_for``; before Python 3.11 that
    raised ``asyncio.TimeoutError``, another class (a 502 instead of a 504). Only Pythons that
    CI tests (3.11, with the torch build on disk) are allowed."""
    import asyncio
    import re

    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    lowest = re.search(r'requires-python = ">=3\.(\d+)"', pyproject)
    assert lowest is not None and int(lowest.group(1)) >= 11
    assert asyncio.TimeoutError is TimeoutError


def test_a_taken_port_is_said_at_once_before_any_model_loads() -> None:
    """uvicorn reported a taken port only after the models had loaded, and exited 3."""
    from favakit.errors import UsageError
    from favakit.inference.http_guard import require_free_port

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(UsageError, match=f"127.0.0.1:{port}: in use"):
            require_free_port("127.0.0.1", port)
        for command in (["serve", "--backend", "encoder"], ["serve-llm"]):
            run = subprocess.run([sys.executable, "-m", "favakit", *command, "--port", str(port)],
                                 capture_output=True, text=True, timeout=120)  # fmt: skip
            assert run.returncode == 2 and "in use (another server?)" in run.stderr, run.stderr
            assert "favakit: model" not in run.stderr  # nothing was loaded first
    require_free_port("127.0.0.1", port)  # free again


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--backend", "hf", "--max-lora-rank", "16", "--kv-cache-gb", "3"],
         "--max-lora-rank, --kv-cache-gb: options of the vllm backend, and this server runs hf"),
        (["--backend", "hf", "--vllm-env", "/nowhere"],
         "--vllm-env: options of the vllm backend"),
    ],
)  # fmt: skip
def test_serve_llm_refuses_the_other_backend_s_options(flags: list[str], said: str) -> None:
    """An option of vLLM given to the transformers server would change nothing: refused before
    any model loads (the port is free and never bound)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    run = subprocess.run([sys.executable, "-m", "favakit", "serve-llm", *flags, "--port",
                          str(port)], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 2 and said in run.stderr, run.stderr
    assert "favakit: model" not in run.stderr


def test_an_empty_api_key_is_refused_before_any_model_loads(
    free_port: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--api-key "$KEY"` with KEY unset served without a key, to anyone who could reach it."""
    import argparse

    from favakit.cli import main
    from favakit.inference.http_guard import api_key

    monkeypatch.delenv("FAVAKIT_API_KEY", raising=False)
    for command in (["serve", "--gate", "off"], ["serve-llm", "--backend", "hf"]):
        assert main([*command, "--port", str(free_port()), "--api-key", " "]) == 2
        err = capsys.readouterr().err
        assert "--api-key is empty (a variable that is not set?)" in err, err
        assert "favakit: model" not in err  # refused before the editor opened
    assert api_key(argparse.Namespace(api_key=None)) is None
    monkeypatch.setenv("FAVAKIT_API_KEY", "from-env")
    assert api_key(argparse.Namespace(api_key=None)) == "from-env"
    assert api_key(argparse.Namespace(api_key="given")) == "given"


def test_a_server_open_to_the_network_without_a_key_is_named() -> None:
    """`favakit serve --host 0.0.0.0` (or serve-llm) without a key started without a word that
    anyone who can reach the machine may use the model."""
    for bind in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(bind) and keyless_note(bind, None) is None, bind
    for bind in ("0.0.0.0", "::", "192.168.1.5", "myhost"):
        assert not is_loopback(bind)
        assert keyless_note(bind, "k") is None  # a key is asked
        note = keyless_note(bind, None)
        assert note is not None and "with no API key: anyone who can reach it" in note
    assert "on every address of this machine" in (keyless_note("0.0.0.0", None) or "")
    assert "on 192.168.1.5 with no API key" in (keyless_note("192.168.1.5", None) or "")
