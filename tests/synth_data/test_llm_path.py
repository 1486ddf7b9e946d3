"""The LLM inserter end to end over HTTP, against a scripted OpenAI-compatible server that
answers with good and deliberately broken outputs: nothing invalid may get through."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from favakit import tags
from favakit.records import TrainExample, read_records
from favakit.synth_data.llm_inserter import check_pass
from favakit.synth_data.pipeline import SynthConfig, run_synthesis

REPLACE = {"entity": ("1852", "1869"), "relation": ("first", "last")}


def scripted_llm(messages: list[dict[str, str]]) -> str:
    user = messages[-1]["content"]
    if user.startswith("Rewrite"):
        passage = user.split("Passage: ", 1)[1]
        return "In short: " + passage
    typ = re.search(r"Insert one or two (\w+) errors", user).group(1)  # type: ignore[union-attr]
    text = user.rsplit("\nText: ", 1)[1].rsplit("\nOutput:", 1)[0]
    mode = int(hashlib.md5(text.encode()).hexdigest(), 16) % 6
    first_sentence = re.match(r"(.+?\.)(\s|$)", text)
    if mode == 0:
        return text + f" <{typ}><mark>broken"  # unclosed tags
    if mode == 1:
        other = "subjective" if typ != "subjective" else "invented"
        return text + f" <{other}><mark>Wrong type here.</mark></{other}>"
    if mode == 2:
        return (
            text.replace("the", "a", 1) + f" <{typ}><mark>Rewrote outside the tags.</mark></{typ}>"
        )
    if typ in ("invented", "subjective", "unverifiable"):
        return text + f" <{typ}><mark>A made-up {typ} sentence.</mark></{typ}>"
    if typ == "contradictory" and first_sentence:
        s = first_sentence.group(1)
        return text.replace(
            s, f"<contradictory><delete>{s}</delete><mark>It is not so.</mark></contradictory>", 1
        )
    for word in re.findall(r"\b\w+\b", text):  # entity/relation: swap some word
        if word[0].isupper() or word.isdigit():
            return re.sub(
                rf"\b{re.escape(word)}\b",
                f"<{typ}><delete>{word}</delete><mark>Zed</mark></{typ}>",
                text,
                count=1,
            )
    return text


CFG = {
    "n": 12,
    "seed": 2,
    "min_words": 20,
    "references": 1,
    "inserter": "llm",
    "llm_model": "scripted",
    "llm_concurrency": 4,
    "batch": 6,
}


def test_llm_path_over_http_lets_nothing_invalid_through(
    synth_kb: Path, tmp_path: Path, openai_server
) -> None:  # type: ignore[no-untyped-def]
    server = openai_server(scripted_llm)
    stats = run_synthesis(synth_kb, tmp_path, SynthConfig(**CFG, llm_endpoint=server.url))
    rows = list(read_records(tmp_path / "train.jsonl", TrainExample)) + list(
        read_records(tmp_path / "validation.jsonl", TrainExample)
    )
    assert rows and len(rows) == stats["examples"]
    for ex in rows:
        t = tags.parse(ex.completion)
        assert {e.type for e in t.edits} == set(ex.error_types)
        assert t.corrected().startswith("In short: ")  # undoing the errors gives the rewrite
        assert "broken" not in ex.completion and "Rewrote outside" not in ex.completion
        assert "Wrong type here" not in ex.completion
    failed = stats["llm"]["failed_attempts"]
    assert failed.get("attempt_pass_parse_error", 0) > 0
    assert failed.get("attempt_pass_other_type", 0) > 0
    assert failed.get("attempt_pass_reverse_mismatch", 0) > 0
    assert stats["llm"]["usage"]["calls"] == len(server.requests) > 0
    assert all(r["path"] == "/v1/chat/completions" for r in server.requests)
    assert set(stats["genres"]) - {"passage"}  # genres were used
    # a second run over the same folder is answered from the cache: no new request
    before = len(server.requests)
    run_synthesis(synth_kb, tmp_path / "again", SynthConfig(**CFG, llm_endpoint=server.url))
    assert len(server.requests) > before  # other folder, other cache
    n_again = len(server.requests)
    for made in (tmp_path / "again").iterdir():  # all but the cache: the run made afresh
        if not made.name.startswith("llm_cache.sqlite"):  # with its -wal and -shm files
            shutil.rmtree(made) if made.is_dir() else made.unlink()
    run_synthesis(synth_kb, tmp_path / "again", SynthConfig(**CFG, llm_endpoint=server.url))
    assert len(server.requests) == n_again


def test_mix_uses_both_inserters(synth_kb: Path, tmp_path: Path, openai_server) -> None:  # type: ignore[no-untyped-def]
    server = openai_server(scripted_llm)
    run_synthesis(
        synth_kb,
        tmp_path,
        SynthConfig(
            **{**CFG, "inserter": "mix", "llm_fraction": 0.5, "n": 16}, llm_endpoint=server.url
        ),
    )
    import json

    kinds = {
        json.loads(line).get("inserter")
        for line in (tmp_path / "log.jsonl").read_text().splitlines()
    }
    assert kinds == {"llm", "rules"}


def test_check_pass_rules() -> None:
    base = tags.Tagged(["Ada was born in 1815. She died in 1852."])
    text = base.original()
    good = (
        "Ada was born in 1815. She died in <entity><delete>1852</delete><mark>1869</mark></entity>."
    )
    stacked, reason = check_pass(good, "entity", text, base)
    assert reason is None and stacked is not None and stacked.original().endswith("1869.")
    assert check_pass("Ada was born in 1815.", "entity", text, base)[1] == "pass_missing_type"
    assert (
        check_pass(good.replace("Ada", "Eve"), "entity", text, base)[1] == "pass_reverse_mismatch"
    )
    assert check_pass(good + "<mark>", "entity", text, base)[1] == "pass_parse_error"
    layered, _ = check_pass(good, "entity", text, base)
    assert layered is not None
    overlap = (
        "Ada was born in 1815. She died in <entity><delete>1869</delete><mark>1870</mark></entity>."
    )
    assert check_pass(overlap, "entity", layered.original(), layered)[1] == "pass_overlap"


@pytest.mark.slow
def test_killed_run_resumes_to_exactly_the_uninterrupted_examples(
    synth_kb: Path, tmp_path: Path, openai_server
) -> None:  # type: ignore[no-untyped-def]
    """SIGKILL a real `favakit synth run` process halfway (the scripted server answers slowly),
    run it again, and compare with a run that was never interrupted."""
    import os
    import signal
    import subprocess
    import sys
    import time

    server = openai_server(scripted_llm)
    server.delay = 0.05
    args = [
        "--kb",
        str(synth_kb),
        "--n",
        "24",
        "--seed",
        "4",
        "--inserter",
        "mix",
        "--llm-endpoint",
        server.url,
        "--llm-model",
        "scripted",
        "--llm-concurrency",
        "2",
        "--batch",
        "4",
        "-q",
    ]

    def run(out: Path) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "favakit", "synth", "run", "--out", str(out), *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    killed = tmp_path / "killed"
    proc = run(killed)
    log = killed / "log.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if log.exists() and log.read_text().count("\n") >= 3:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    assert not (killed / "train.jsonl").exists()
    assert run(killed).wait(timeout=300) == 0
    clean = tmp_path / "clean"
    assert run(clean).wait(timeout=300) == 0
    for name in ("train.jsonl", "validation.jsonl"):
        assert (killed / name).read_bytes() == (clean / name).read_bytes()


def test_an_endpoint_that_is_down_or_failing_stops_the_run_at_once(
    synth_kb: Path, tmp_path: Path, openai_server, free_port
) -> None:  # type: ignore[no-untyped-def]
    """Before: a run against a server that was down went on for minutes, printing nothing,
    every passage rejected as llm_error in log.jsonl only."""
    import time

    from favakit.errors import UsageError

    started = time.monotonic()
    down = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(UsageError, match="cannot reach the LLM endpoint"):
        run_synthesis(synth_kb, tmp_path / "down", SynthConfig(**CFG, llm_endpoint=down))
    server = openai_server(scripted_llm)
    with pytest.raises(UsageError, match="has no model 'other'; it serves: scripted"):
        run_synthesis(
            synth_kb, tmp_path / "model",
            SynthConfig(**{**CFG, "llm_model": "other"}, llm_endpoint=server.url),
        )  # fmt: skip
    server.fail_next, server.fail_status = 10**6, 400  # every request fails, for good
    with pytest.raises(UsageError, match="failed 3 batches in a row"):
        run_synthesis(synth_kb, tmp_path / "failing", SynthConfig(**CFG, llm_endpoint=server.url))
    assert time.monotonic() - started < 30
    assert len([r for r in server.requests if r["path"].endswith("/chat/completions")]) < 40
