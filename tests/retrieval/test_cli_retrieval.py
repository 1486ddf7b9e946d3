"""favakit kb / index / search as a user runs them (real processes, real files)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest


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


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["kb", "build", "--max-tokens", "100", "--max-words", "50"],
         "--max-words counts words, and --max-tokens counts tokens: give one budget"),
        (["kb", "build", "--tokenizer", "minilm", "--max-tokens", "9", "--max-words", "50"],
         "--max-words counts words, and --max-tokens and --tokenizer count tokens"),
        (["index", "build", "--kind", "bm25", "--encoder", "minilm", "--batch-size", "8"],
         "--encoder, --batch-size: options of the dense indexes' embedding, and --kind bm25"),
        (["index", "build", "--kind", "hnsw", "--nlist", "10"],
         "--nlist sets the clusters of --kind ivf, not hnsw"),
    ],
)  # fmt: skip
def test_options_a_build_would_ignore_are_refused(
    corpus_jsonl: Path, tmp_path: Path, args: list[str], said: str
) -> None:
    kb = tmp_path / "kb.db"
    where = (["--input", str(corpus_jsonl), "--out", str(kb)] if args[0] == "kb"
             else ["--kb", str(kb), "--out", str(tmp_path / "index")])  # fmt: skip
    done = favakit(*args, *where)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not kb.exists() and not (tmp_path / "index").exists()


def test_bad_queries_are_named_before_the_index_loads(tmp_path: Path) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query": "lava"}\n{"q": "x"}\n{"query": 3}\n')
    got = favakit("search", "--index", str(tmp_path / "no-index"), "--queries", str(queries))
    assert got.returncode == 2 and "2 of 3 rows are bad:" in got.stderr, got.stderr
    assert 'q.jsonl:2: expected {"id", "query"}' in got.stderr and "q.jsonl:3" in got.stderr


def test_search_refuses_a_batch_size_for_one_query(tmp_path: Path) -> None:
    """`search QUERY --batch-size 4` searched without a word about the flag, which groups the
    rows of --queries; refused before the index loads."""
    got = favakit("search", "--index", str(tmp_path / "no-index"), "lava", "--batch-size", "4")
    assert got.returncode == 2, got.stderr
    assert "--batch-size groups the rows of --queries; one QUERY is one search" in got.stderr


def test_kb_build_shows_plain_progress_lines_when_stderr_is_not_a_terminal(
    corpus_jsonl: Path, tmp_path: Path
) -> None:
    proc = favakit("kb", "build", "--input", str(corpus_jsonl), "--out", str(tmp_path / "kb.db"))
    assert proc.returncode == 0, proc.stderr
    # a log line, not a progress bar's control characters (was tqdm's "documents: 6doc [...]\r")
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("favakit kb build: 6 documents, ")


@pytest.mark.slow
def test_index_build_and_search_one_and_many(
    corpus_jsonl: Path, tiny_encoder: Path, tmp_path: Path
) -> None:
    kb = tmp_path / "kb.db"
    assert (
        favakit("kb", "build", "--input", str(corpus_jsonl), "--out", str(kb), "-q").returncode == 0
    )
    for kind, enc in (("flat", ["--encoder", str(tiny_encoder)]), ("bm25", [])):
        proc = favakit(
            "index", "build", "--kb", str(kb), "--out", str(tmp_path / kind), "--kind", kind,
            *enc, "-q",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    one = favakit("search", "--index", str(tmp_path / "bm25"), "-k", "2", "Saturn is a planet")
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
    # a query none of whose words is indexed printed nothing at all
    none = favakit("search", "--index", str(tmp_path / "bm25"), "zzqx")
    assert none.returncode == 0 and none.stdout == ""
    assert "no passage matches 'zzqx'" in none.stderr
    # one weight for each index, checked before they load (a word was a traceback)
    for weights, said in (("1", "1 weight(s) for 2 --index"), ("1,x", "give comma-separated")):
        fused = favakit("search", "--index", str(tmp_path / "flat"), "--index",
                        str(tmp_path / "bm25"), "--weights", weights, "lava")  # fmt: skip
        assert fused.returncode == 2 and said in fused.stderr, fused.stderr
    unread = favakit("search", "--index", str(tmp_path / "bm25"), "--device", "cuda", "lava")
    assert unread.returncode == 2 and "these indexes are BM25, which needs none" in unread.stderr
    queries.write_text('{"query": "lava"}\n\n{"query": "Saturn"}\n{"id": 7, "query": "x"}\n')
    unnamed = favakit("search", "--index", str(tmp_path / "bm25"), "--queries", str(queries))
    assert unnamed.returncode == 0, unnamed.stderr  # ids were the batch's start: 0, 0, 0
    assert [json.loads(line)["id"] for line in unnamed.stdout.splitlines()] == [1, 3, 7]


@pytest.mark.slow
def test_killed_index_build_resumes_without_redoing_shards(
    corpus_jsonl: Path, tiny_encoder: Path, tmp_path: Path
) -> None:
    """A build that dies without any cleanup (``os._exit`` right after its third shard is on
    disk, like a SIGKILL) leaves those shards; running again keeps them untouched and gives the
    index of an uninterrupted build. The stop point is fixed, so a dozen shards suffice."""
    kb = tmp_path / "kb.db"
    build = favakit("kb", "build", "--input", str(corpus_jsonl), "--out", str(kb), "-q")
    assert build.returncode == 0, build.stderr
    out = tmp_path / "killed"
    script = (
        "import os, sys\n"
        "from favakit.retrieval.index import build_index\n"
        "done = []\n"
        "def stop(shard):\n"
        "    done.append(shard)\n"
        "    if len(done) == 3:\n"
        "        os._exit(9)\n"
        "build_index(sys.argv[1], sys.argv[2], encoder=sys.argv[3], shard_size=1, on_shard=stop)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(kb), str(out), str(tiny_encoder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 9, proc.stderr
    assert not (out / "meta.json").exists()
    done = {
        p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (out / "shards").glob("emb-*.npy")
    }
    assert len(done) == 3
    args = ["--kb", str(kb), "--encoder", str(tiny_encoder), "--shard-size", "1", "-q"]
    resumed = favakit("index", "build", "--out", str(out), *args)
    assert resumed.returncode == 0, resumed.stderr
    assert len(list((out / "shards").glob("emb-*.npy"))) > 3  # the rest were embedded now
    for name, (mtime, data) in done.items():
        path = out / "shards" / name
        assert path.stat().st_mtime_ns == mtime and path.read_bytes() == data
    assert favakit("index", "build", "--out", str(tmp_path / "clean"), *args).returncode == 0
    import faiss

    a = faiss.read_index(str(out / "index.faiss"))
    b = faiss.read_index(str(tmp_path / "clean" / "index.faiss"))
    np.testing.assert_array_equal(a.reconstruct_n(0, a.ntotal), b.reconstruct_n(0, b.ntotal))
    assert np.array_equal(np.load(out / "doc.npy"), np.load(tmp_path / "clean" / "doc.npy"))


def test_index_and_kb_builds_given_no_options_are_never_refused() -> None:
    """The refusals compare with the parsers' defaults (None where a default is filled later)."""
    import argparse

    from favakit.cli_args import changed_options
    from favakit.retrieval.cli import configure_index

    parser = argparse.ArgumentParser()
    configure_index(parser)
    args = parser.parse_args(["build", "--kb", "k.db", "--out", "o", "--kind", "bm25"])
    assert changed_options(args, [(f"--{d}", d, None) for d in
                                  ("encoder", "shard_size", "shard", "batch_size", "device")]) == []  # fmt: skip


def test_index_build_names_a_missing_encoder_folder_before_any_work(
    corpus_jsonl: Path, tmp_path: Path
) -> None:
    """A mistyped encoder folder went to the Hub client: "Repo id must be in the form ..." (or
    about 50 s of retries offline for runs/typo), and left shards/config.json behind."""
    kb = tmp_path / "kb.db"
    assert (
        favakit("kb", "build", "--input", str(corpus_jsonl), "--out", str(kb), "-q").returncode == 0
    )
    missing = tmp_path / "models" / "enc"
    proc = favakit("index", "build", "--kb", str(kb), "--out", str(tmp_path / "ix"),
                   "--encoder", str(missing))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert f"encoder '{missing}': no such folder (an encoder is a preset: minilm," in proc.stderr
    assert not (tmp_path / "ix").exists()
