"""favakit kb / index / search as a user runs them (real processes, real files)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def favakit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "favakit", *args], capture_output=True, text=True, timeout=300
    )


def test_kb_build_get_and_unknown_title(corpus_jsonl: Path, tmp_path: Path) -> None:
    kb = tmp_path / "kb.db"
    proc = favakit(
        "kb", "build", "--input", str(corpus_jsonl), "--out", str(kb), "--max-tokens", "20", "-q"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["documents"] == 6
    got = favakit("kb", "get", "--kb", str(kb), "--json", "Marie Curie")
    rows = [json.loads(line) for line in got.stdout.splitlines()]
    assert rows[0]["title"] == "Marie Curie" and len(rows) >= 2
    bad = favakit("kb", "get", "--kb", str(kb), "Marie Curry")
    assert bad.returncode == 2 and "'Marie Curie'" in bad.stderr and "Traceback" not in bad.stderr


def test_index_build_and_search_one_and_many(
    corpus_jsonl: Path, tiny_encoder: Path, tmp_path: Path
) -> None:
    kb = tmp_path / "kb.db"
    assert (
        favakit("kb", "build", "--input", str(corpus_jsonl), "--out", str(kb), "-q").returncode == 0
    )
    for kind, enc in (("flat", str(tiny_encoder)), ("bm25", "minilm")):
        proc = favakit(
            "index",
            "build",
            "--kb",
            str(kb),
            "--out",
            str(tmp_path / kind),
            "--kind",
            kind,
            "--encoder",
            enc,
            "-q",
        )
        assert proc.returncode == 0, proc.stderr
    one = favakit("search", "--index", str(tmp_path / "bm25"), "--k", "2", "Saturn is a planet")
    hits = [json.loads(line) for line in one.stdout.splitlines()]
    assert (
        len(hits) == 2
        and hits[0]["title"] == "Saturn"
        and set(hits[0]) == {"title", "text", "score"}
    )
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "a", "query": "lava"}\n{"id": "b", "query": "Nobel Prize"}\n')
    many = favakit(
        "search",
        "--index",
        str(tmp_path / "flat"),
        "--index",
        str(tmp_path / "bm25"),
        "--queries",
        str(queries),
        "--k",
        "3",
    )
    assert many.returncode == 0, many.stderr
    rows = [json.loads(line) for line in many.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["a", "b"] and all(len(r["results"]) == 3 for r in rows)
    neither = favakit("search", "--index", str(tmp_path / "bm25"))
    assert neither.returncode == 2


def test_killed_index_build_resumes_without_redoing_shards(
    corpus_jsonl: Path, tiny_encoder: Path, tmp_path: Path
) -> None:
    """SIGKILL mid-build (no cleanup at all), then run again: finished shards stay as they were
    and the index equals an uninterrupted build."""
    big = tmp_path / "big.jsonl"
    lines = [json.loads(x) for x in corpus_jsonl.read_text().splitlines()]
    with big.open("w") as fh:
        for i in range(60):
            for d in lines:
                fh.write(json.dumps({"title": f"{d['title']} {i}", "text": d["text"]}) + "\n")
    kb = tmp_path / "kb.db"
    assert (
        favakit(
            "kb", "build", "--input", str(big), "--out", str(kb), "--max-tokens", "12", "-q"
        ).returncode
        == 0
    )
    args = ["--kb", str(kb), "--encoder", str(tiny_encoder), "--shard-size", "1", "-q"]
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "favakit", "index", "build", "--out", str(out), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while (
        not list((out / "shards").glob("emb-*.npy"))
        and time.monotonic() < deadline
        and proc.poll() is None
    ):
        time.sleep(0.002)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the build finished before it could be killed"
    assert not (out / "meta.json").exists()
    done = {
        p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (out / "shards").glob("emb-*.npy")
    }
    assert done
    resumed = favakit("index", "build", "--out", str(out), *args)
    assert resumed.returncode == 0, resumed.stderr
    for name, (mtime, data) in done.items():
        path = out / "shards" / name
        assert path.stat().st_mtime_ns == mtime and path.read_bytes() == data
    assert favakit("index", "build", "--out", str(tmp_path / "clean"), *args).returncode == 0
    import faiss

    a = faiss.read_index(str(out / "index.faiss"))
    b = faiss.read_index(str(tmp_path / "clean" / "index.faiss"))
    np.testing.assert_array_equal(a.reconstruct_n(0, a.ntotal), b.reconstruct_n(0, b.ntotal))
    assert np.array_equal(np.load(out / "doc.npy"), np.load(tmp_path / "clean" / "doc.npy"))
