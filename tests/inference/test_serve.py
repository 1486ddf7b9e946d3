"""favakit serve and favakit edit with a tiny trained adapter, against real servers on loopback:
in-process generation, generation through serve-llm (--llm-endpoint), and the CLI agree."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from favakit.inference.editor import EditorSettings
from favakit.inference.factory import open_editor
from favakit.inference.generators import HFGenerator
from favakit.inference.http_guard import HttpLimits, server_config
from favakit.inference.llm_server import create_app
from favakit.inference.server import ServeLimits, create_editor_app
from favakit.spec import ClientSpec

TEXT = "marie curie won the nobel prize in physics in 1911 ."
EVIDENCE = ["marie curie won the nobel prize in physics in 1903 ."]
SETTINGS = dict(max_new_tokens=24)


def _serve(app: Any, port: int, limits: HttpLimits | None = None) -> Iterator[str]:
    """``app`` served on loopback as ``favakit serve`` serves it (header timeout, connection
    cap), in a thread; yields its URL."""
    import uvicorn

    server = uvicorn.Server(server_config(app, "127.0.0.1", port, limits or HttpLimits()))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    yield url
    server.should_exit = True
    thread.join(timeout=30)


def _call(
    url: str, path: str, body: Any = None, key: str | None = "k3y", method: str = "POST"
) -> tuple[int, Any]:
    data = None if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(url + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


@pytest.fixture(scope="module")
def llm_url(tiny_llama: Path, tiny_adapter: Path, free_port: Any) -> Iterator[str]:
    """serve-llm --backend hf (the OpenAI-compatible server) with the adapter."""
    generator = HFGenerator.load(str(tiny_llama), adapter=str(tiny_adapter))
    yield from _serve(create_app(generator), free_port())


@pytest.fixture(scope="module")
def editor_url(tiny_llama: Path, tiny_adapter: Path, free_port: Any) -> Iterator[str]:
    """favakit serve with in-process generation (batched across requests)."""
    spec = ClientSpec(str(tiny_llama), str(tiny_adapter))
    editor = open_editor(spec, settings=EditorSettings(**SETTINGS), shared=True)
    limits = ServeLimits(5_000, 16, timeout_s=60, http=HttpLimits(max_body_bytes=1_000_000))
    yield from _serve(create_editor_app(editor, api_key="k3y", limits=limits), free_port())


def test_in_process_serve_and_llm_endpoint_agree(
    tiny_llama: Path, tiny_adapter: Path, editor_url: str, llm_url: str, free_port: Any
) -> None:
    body = {"text": TEXT, "evidence": EVIDENCE}
    direct = open_editor(
        ClientSpec(str(tiny_llama), str(tiny_adapter)), settings=EditorSettings(**SETTINGS)
    )
    expected = direct.edit(body)
    assert set(expected) >= {"original", "corrected", "edits", "evidence", "repairs", "model"}
    assert expected["original"] == TEXT and expected["evidence"][0]["text"] == EVIDENCE[0]
    for e in expected["edits"]:
        assert TEXT[e["start"] : e["end"]] == e["wrong"]

    status, served = _call(editor_url, "/v1/edit", body)
    assert status == 200 and served == expected

    remote = create_editor_app(
        open_editor(ClientSpec(endpoint=llm_url), settings=EditorSettings(**SETTINGS))
    )
    for url in _serve(remote, free_port()):
        status, through = _call(url, "/v1/edit", body, key=None)
        assert status == 200 and through == expected

    status, many = _call(editor_url, "/v1/edit", [body, {"text": "titan is its largest moon ."}])
    assert status == 200 and many[0] == expected and many[1]["original"].startswith("titan")
    status, detected = _call(editor_url, "/v1/detect", body)
    assert status == 200 and "corrected" not in detected
    assert detected["edits"] == expected["edits"]


@pytest.mark.slow
def test_cli_edit_gives_the_same_result_and_resumes(
    tiny_llama: Path, tiny_adapter: Path, tmp_path: Path
) -> None:
    direct = open_editor(
        ClientSpec(str(tiny_llama), str(tiny_adapter)), settings=EditorSettings(**SETTINGS)
    )
    expected = direct.edit({"text": TEXT, "evidence": EVIDENCE})
    # the command gates by default (--gate auto); open_editor gates only when asked
    common = ["--adapter", str(tiny_adapter), "--max-new-tokens", "24", "--gate", "off"]

    def edit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "favakit", "edit", *args, *common],
                              capture_output=True, text=True, timeout=300)  # fmt: skip

    one = edit(TEXT, "--evidence", EVIDENCE[0])
    assert one.returncode == 0, one.stderr[-2000:]
    assert json.loads(one.stdout) == {"id": "0", **expected}
    assert "1 text(s)" in one.stderr

    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    inp.write_text(
        "".join(json.dumps({"id": f"r{i}", "text": TEXT, "evidence": EVIDENCE}) + "\n"
                for i in range(3))
    )  # fmt: skip
    out.write_text(json.dumps({"id": "r0", **expected}) + "\n")  # done by an earlier run
    run = edit("--input", str(inp), "--output", str(out))
    assert run.returncode == 0, run.stderr[-2000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["r0", "r1", "r2"]
    assert all({k: v for k, v in r.items() if k != "id"} == expected for r in rows)
    assert "1 id(s) already in" in run.stderr

    page = tmp_path / "page.html"
    html = edit("--input", str(inp), "--format", "html", "--output", str(page))
    assert html.returncode == 0 and page.read_text().count("<section>") == 3
    assert EVIDENCE[0] in page.read_text()

    # the view printed, uncoloured, and the rows still kept in --output (they had been dropped)
    kept = tmp_path / "kept.jsonl"
    view = edit("--input", str(inp), "--format", "plain", "--output", str(kept))
    assert view.returncode == 0, view.stderr[-2000:]
    assert [line for line in view.stdout.splitlines() if line.startswith("# ")] == [
        "# r0", "# r1", "# r2"
    ]  # fmt: skip
    assert "\x1b[" not in view.stdout
    assert [json.loads(line)["id"] for line in kept.read_text().splitlines()] == ["r0", "r1", "r2"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"text": ""}, 422, "empty"),
        ({"text": 42}, 422, "must be a string"),
        ({"text": ["a"]}, 422, "must be a string"),
        ({"text": "x" * 6_000}, 413, "limit is 5000"),
        ([{"text": "a"}] * 1000, 413, "limit is 16"),
        ([], 422, "empty"),
        (b"{not json", 400, "not valid JSON"),
        ({"text": "a", "evidence": "not a list"}, 422, "list"),
    ],
)
def test_bad_input_gets_a_clear_4xx_and_the_server_stays_up(
    editor_url: str, body: Any, status: int, message: str
) -> None:
    got, payload = _call(editor_url, "/v1/edit", body)
    assert got == status and message in payload["detail"]
    assert _call(editor_url, "/health", method="GET", key=None) == (200, _health(editor_url))


def _health(url: str) -> Any:
    with urllib.request.urlopen(url + "/health", timeout=10) as resp:
        return json.loads(resp.read())


def test_api_key_is_checked_on_every_route_but_health(editor_url: str) -> None:
    assert _call(editor_url, "/v1/edit", {"text": "a"}, key="wrong")[0] == 401
    assert _call(editor_url, "/v1/detect", {"text": "a"}, key=None)[0] == 401
    assert _call(editor_url, "/v1/models", key=None, method="GET")[0] == 401
    status, models = _call(editor_url, "/v1/models", method="GET")
    assert status == 200 and models["data"][0]["id"]
    assert _call(editor_url, "/health", key=None, method="GET")[0] == 200
    assert _call(editor_url, "/openapi.json", key=None, method="GET")[0] == 200


def _start_serve(endpoint: str, port: int, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """`favakit serve` as a process, ungated: its HTTP behaviour is under test, and a gate's
    models take 30 s or more to load on 2 cores (a CI run once passed the minute waited here)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "favakit", "serve", "--llm-endpoint", endpoint,
         "--model", "scripted", "--gate", "off", "--port", str(port), *extra],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(url + "/health", timeout=1)
            return proc, url
        except OSError:
            if proc.poll() is None and time.monotonic() > deadline:
                proc.terminate()  # so that what it printed can be read
                proc.wait(timeout=30)
            assert proc.poll() is None, (
                f"favakit serve is not up (exit status {proc.returncode}):\n"
                + (proc.stderr.read() if proc.stderr else "")
            )  # fmt: skip
            time.sleep(0.1)


def _wait_for(condition: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds} s"
        time.sleep(0.02)


def _echo(prompt: str) -> str:
    from favakit.prompts import parse_prompt

    return parse_prompt(prompt).text


@pytest.mark.slow
def test_timeout_and_graceful_shutdown(openai_server: Any, free_port: Any) -> None:
    """favakit serve as a process with generation from a (slow) OpenAI-compatible server: a
    request over --timeout gets 504; SIGTERM lets a request in flight finish, then exits."""
    import signal

    llm = openai_server(_echo)
    llm.delay = 2.5
    proc, url = _start_serve(llm.url, free_port(), "--timeout", "1")
    try:
        status, payload = _call(url, "/v1/edit", {"text": "Slow text.", "evidence": []}, key=None)
        assert status == 504 and "longer than 1 s" in payload["detail"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)

    proc, url = _start_serve(llm.url, free_port(), "--timeout", "30")
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(_call, url, "/v1/edit", {"text": "In flight."}, None)
        _wait_for(lambda: llm.in_flight == 1)  # the request now waits on the slow generation
        proc.send_signal(signal.SIGTERM)
        status, result = pending.result(timeout=60)
    assert status == 200 and result["corrected"] == "In flight." and result["faithful"]
    # uvicorn re-raises the signal once it has shut down, so the exit status says SIGTERM
    assert proc.wait(timeout=30) in (0, -signal.SIGTERM)


def test_serve_says_at_start_when_its_gate_is_the_minilm_checker_for_want_of_a_base(
    openai_server: Any, free_port: Any, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The real `favakit serve` up to the point it would listen (what is installed is set, and
    the listening loop is left out: the server itself is tested above)."""
    from favakit.cli import main

    server = openai_server(_echo)
    monkeypatch.setattr("favakit.inference.checker.auto_checker", lambda: "checker")
    monkeypatch.setattr("favakit.inference.models.split_gguf_ready", lambda preset: False)
    started: list[int] = []
    monkeypatch.setattr("favakit.inference.http_guard.run_server",
                        lambda app, host, port, *rest, **kw: started.append(port))  # fmt: skip
    port = free_port()
    common = ["serve", "--llm-endpoint", server.url, "--model", "scripted", "--port", str(port)]
    assert main(common) == 0 and started == [port]
    err = capsys.readouterr().err
    assert ("favakit serve: note: the mpnet checker's base is not installed, so the MiniLM "
            "checker gates the edits") in err, err  # fmt: skip
    assert main([*common, "--gate", "checker"]) == 0
    assert "note:" not in capsys.readouterr().err
