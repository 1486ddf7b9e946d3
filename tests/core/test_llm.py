"""The LLM client against a real HTTP server on loopback (scripted answers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from favakit.llm import FunctionClient, GenerationParams, LLMError, OpenAIClient, ResponseCache


def echo(x: object) -> str:
    if isinstance(x, list):
        return "chat: " + x[-1]["content"]
    return f"echo: {x}"


def test_completions_in_order_with_usage(openai_server) -> None:  # type: ignore[no-untyped-def]
    server = openai_server(echo)
    client = OpenAIClient(server.url, "m", max_concurrency=4)
    prompts = [f"p{i}" for i in range(10)]
    out = client.complete(prompts, GenerationParams(max_tokens=5, stop=("\n",)))
    assert [c.text for c in out] == [f"echo: p{i}" for i in range(10)]
    assert (
        client.usage.calls == 10
        and client.usage.prompt_tokens == 70
        and client.usage.completion_tokens == 20
    )
    sent = server.requests[0]
    assert sent["path"] == "/v1/completions" and sent["model"] == "m" and sent["max_tokens"] == 5
    assert sent["stop"] == ["\n"]
    chat = client.chat([[{"role": "user", "content": "hi"}]])
    assert chat[0].text == "chat: hi" and server.requests[-1]["path"] == "/v1/chat/completions"


def test_concurrency_is_bounded(openai_server) -> None:  # type: ignore[no-untyped-def]
    server = openai_server(echo)
    server.delay = 0.05
    OpenAIClient(server.url, "m", max_concurrency=3).complete([f"p{i}" for i in range(12)])
    assert 1 < server.max_in_flight <= 3


def test_retries_with_backoff_then_succeeds(openai_server) -> None:  # type: ignore[no-untyped-def]
    server = openai_server(echo)
    server.fail_next = 2
    client = OpenAIClient(server.url, "m", max_retries=3, backoff=0.01)
    assert client.complete(["x"])[0].text == "echo: x"
    assert client.usage.retries == 2 and len(server.requests) == 3


def test_gives_up_after_retries_and_never_retries_client_errors(openai_server) -> None:  # type: ignore[no-untyped-def]
    server = openai_server(echo)
    server.fail_next = 10
    client = OpenAIClient(server.url, "m", max_retries=2, backoff=0.01)
    with pytest.raises(LLMError, match="after 3 tries"):
        client.complete(["x"])
    assert client.usage.failures == 1
    server.fail_next, server.fail_status = 1, 400
    before = len(server.requests)
    with pytest.raises(LLMError, match="HTTP 400"):
        client.complete(["y"])
    assert len(server.requests) == before + 1


def test_unreachable_server_is_an_error_not_a_hang() -> None:
    client = OpenAIClient("http://127.0.0.1:9", "m", max_retries=1, backoff=0.01, timeout=2)
    with pytest.raises(LLMError, match="failed after 2 tries"):
        client.complete(["x"])


def test_cache_answers_identical_requests_across_clients(openai_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = openai_server(echo)
    cache = tmp_path / "cache.sqlite"
    first = OpenAIClient(server.url, "m", cache=cache)
    first.complete(["a", "b"])
    second = OpenAIClient(server.url, "m", cache=cache)
    out = second.complete(["a", "b", "c"])
    assert [c.cached for c in out] == [True, True, False]
    assert len(server.requests) == 3 and second.usage.cache_hits == 2 and second.usage.calls == 1
    # other parameters or another model are other requests
    second.complete(["a"], GenerationParams(temperature=0.7))
    OpenAIClient(server.url, "other", cache=cache).complete(["a"])
    assert len(server.requests) == 5
    assert len(ResponseCache(cache)) == 5


def test_a_cache_is_a_file_of_its_own(tmp_path: Path) -> None:
    """A knowledge source given as --cache once got the cache's table and WAL mode written into
    it; a folder or a text file failed with sqlite3's own error."""
    import sqlite3

    from favakit.errors import UsageError

    kb = tmp_path / "kb.db"
    with sqlite3.connect(kb) as conn:
        conn.execute("CREATE TABLE documents (title TEXT PRIMARY KEY, text TEXT)")
    conn.close()
    before = kb.read_bytes()
    with pytest.raises(UsageError, match="another sqlite file"):
        ResponseCache(kb)
    assert kb.read_bytes() == before  # untouched
    with pytest.raises(UsageError, match="is a folder"):
        ResponseCache(tmp_path)
    (tmp_path / "notes.txt").write_text("not a database\n")
    with pytest.raises(UsageError, match="not sqlite"):
        ResponseCache(tmp_path / "notes.txt")
    cache = ResponseCache(tmp_path / "cache.db")  # new: made; then reopened as a cache
    cache.put("k", {"text": "v"})
    cache.close()
    assert ResponseCache(tmp_path / "cache.db").get("k") == {"text": "v"}


def test_function_client() -> None:
    client = FunctionClient(lambda p, params: p.upper(), max_concurrency=2)
    assert [c.text for c in client.complete(["a", "b"])] == ["A", "B"]
    assert client.chat([[{"role": "user", "content": "q"}]])[0].text == "USER: Q\nASSISTANT:"


def test_a_servers_answers_count_their_tokens_into_a_callers_part(openai_server) -> None:  # type: ignore[no-untyped-def]
    """Inside `favakit edit`'s showing_work the editor opens a part counted in tokens; a model in
    this process counts each step, and a server's answers count their tokens as each comes."""
    import io

    from favakit.progress import showing_work, work

    server = openai_server(echo)
    client = OpenAIClient(server.url, "m", max_concurrency=3)
    out = io.StringIO()
    with showing_work("favakit edit", out=out, after_s=0), work("editing", None, "token"):
        done = client.complete([f"p{i}" for i in range(5)])
    written = sum(c.completion_tokens for c in done)
    assert written == 10
    assert out.getvalue().splitlines()[-1].startswith(f"favakit edit: editing: {written} tokens, ")
    client.complete(["p0"])  # no part open: nothing counted, nothing shown
    assert out.getvalue().splitlines()[-1].startswith(f"favakit edit: editing: {written} tokens, ")
