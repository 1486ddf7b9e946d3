"""``--ray``: the same results as the single-process run, on a real local Ray cluster (2 CPUs,
actors in their own processes), including a worker killed mid-run."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from favakit.cli import main
from favakit.distributed import RayOptions, map_chunks_in_order, map_in_order
from favakit.errors import UsageError

RAY = RayOptions("local", workers=2)


@pytest.mark.slow
def test_same_results_and_chunks_and_a_killed_worker_is_retried(
    ray_cluster: Any, tmp_path: Path
) -> None:
    marker, log = tmp_path / "killed", tmp_path / "calls.txt"

    def factory():  # type: ignore[no-untyped-def]
        def square(xs: list[int]) -> list[tuple[int, int]]:
            with log.open("a") as fh:
                fh.write(json.dumps(xs) + "\n")
            if 20 in xs and os.getpid() != here_pid and not marker.exists():
                marker.touch()
                os.kill(os.getpid(), signal.SIGKILL)  # a Ray worker process dies mid-run
            return [(x * x, os.getpid()) for x in xs]

        return square

    here_pid = os.getpid()
    here = list(map_in_order(list(range(50)), factory, None, 4))
    chunks_here = log.read_text().splitlines()
    log.unlink()
    there_chunks = list(map_chunks_in_order(list(range(50)), factory, RAY, 4))
    assert [len(c) for c in there_chunks] == [4] * 12 + [2]  # a list a chunk, as without Ray
    there = [r for chunk in there_chunks for r in chunk]
    # the same results in input order, each once, computed in the actors, from the same chunks
    assert [r for r, _ in there] == [r for r, _ in here] == [x * x for x in range(50)]
    assert {pid for _, pid in here} == {here_pid} and here_pid not in {p for _, p in there}
    calls = log.read_text().splitlines()
    assert sorted(set(calls)) == sorted(chunks_here)
    assert marker.exists() and calls.count("[20, 21, 22, 23]") == 2  # killed, then retried


@pytest.mark.slow
def test_index_build_on_ray_equals_one_process_and_resumes(
    ray_cluster: Any, corpus_jsonl: Path, tiny_encoder: Path, tmp_path: Path
) -> None:
    faiss = pytest.importorskip("faiss")
    from favakit.retrieval.index import build_index
    from favakit.retrieval.kb import build_kb

    kb = tmp_path / "kb.db"
    build_kb(corpus_jsonl, kb, max_tokens=12)
    plain = build_index(kb, tmp_path / "plain", encoder=str(tiny_encoder), shard_size=2)
    out = tmp_path / "ray"
    (out / "shards").mkdir(parents=True)
    for name in ("config.json", "emb-000000.npy", "emb-000002.npy"):  # a killed earlier run
        (out / "shards" / name).write_bytes((tmp_path / "plain" / "shards" / name).read_bytes())
    seen: list[int] = []
    meta = build_index(
        kb, out, encoder=str(tiny_encoder), shard_size=2, ray=RAY, on_shard=seen.append
    )
    assert plain is not None and meta is not None and meta["count"] == plain["count"]
    assert seen == [k for k in range(-(-plain["count"] // 2)) if k not in (0, 2)]  # in order
    a, b = (faiss.read_index(str(f / "index.faiss")) for f in (tmp_path / "plain", out))
    assert a.ntotal == b.ntotal == plain["count"]
    np.testing.assert_allclose(
        b.reconstruct_n(0, b.ntotal), a.reconstruct_n(0, a.ntotal), atol=1e-6
    )
    for name in ("doc.npy", "pos.npy"):
        np.testing.assert_array_equal(np.load(out / name), np.load(tmp_path / "plain" / name))


@pytest.mark.slow
def test_edit_and_verify_on_ray_equal_one_process_and_resume(
    ray_cluster: Any, tiny_llama: Path, edit_facts: list[tuple[str, str, str]], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    inp = tmp_path / "in.jsonl"
    rows = [
        {"id": f"r{i}", "text": text.replace(right, wrong), "evidence": [text]}
        for i, (text, right, wrong) in enumerate(edit_facts)
    ]
    inp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # one worker each: the reordering of several is covered above, and each actor loads torch
    for command in ("edit", "verify"):
        common = ["--input", str(inp), "--model", str(tiny_llama), "--max-batch", "2",
                  *(["--max-new-tokens", "24"] if command == "edit" else [])]  # fmt: skip
        plain, on_ray = tmp_path / f"{command}-plain.jsonl", tmp_path / f"{command}-ray.jsonl"
        assert main([command, *common, "--output", str(plain)]) == 0
        expected = plain.read_text().splitlines()
        assert len(expected) == len(rows)
        on_ray.write_text("\n".join(expected[:2]) + "\n")  # what a killed run had written
        capsys.readouterr()
        ray = ["--ray", "local", "--workers", "1"]
        assert main([command, *common, "--output", str(on_ray), *ray]) == 0
        assert "2 id(s) already in" in capsys.readouterr().err
        assert on_ray.read_text().splitlines() == expected  # same results, same order, no repeat


@pytest.mark.slow
def test_synth_on_ray_equals_one_process(ray_cluster: Any, tmp_path: Path) -> None:
    from favakit.retrieval.kb import build_kb
    from favakit.synth_data.pipeline import SynthConfig, run_synthesis

    src = tmp_path / "articles.jsonl"
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lambda",
        "mu",
    ]
    src.write_text("".join(
        json.dumps({"title": f"Person {i}", "text": f"Person {i} (1 May {1800 + i} – 2 June "
                    f"{1870 + i}) was an English {words[i % 12]} maker. He was born in London in "
                    f"{1800 + i}. He moved to Paris in {1830 + i} and worked with the Royal "
                    f"Society. He wrote {10 + i} books about {words[(i + 3) % 12]}."}) + "\n"
        for i in range(12)
    ))  # fmt: skip
    build_kb(src, tmp_path / "kb.db")
    cfg = SynthConfig(n=16, seed=3, min_words=10, val_fraction=0.25, references=1, batch=3)
    plain = run_synthesis(tmp_path / "kb.db", tmp_path / "plain", cfg)
    half = SynthConfig(**{**cfg.__dict__, "n": 7})
    run_synthesis(tmp_path / "kb.db", tmp_path / "ray", half, ray=RAY)  # stopped early...
    resumed = run_synthesis(tmp_path / "kb.db", tmp_path / "ray", cfg, ray=RAY)  # ...and resumed
    assert plain["examples"] == resumed["examples"] == 16
    for name in ("log.jsonl", "train.jsonl", "validation.jsonl"):
        assert (tmp_path / "ray" / name).read_text() == (tmp_path / "plain" / name).read_text()


@pytest.mark.slow
def test_ray_flags_are_checked_and_a_workers_error_reads_as_one_line(
    ray_cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inp = tmp_path / "in.jsonl"
    inp.write_text('{"id": "a", "text": "Saturn is the sixth planet."}\n')
    assert main(["edit", "some text", "--ray", "local"]) == 2
    assert "one TEXT is edited in this process" in capsys.readouterr().err
    assert main(["edit", "--input", str(inp), "--workers", "2"]) == 2
    assert "--workers needs --ray" in capsys.readouterr().err
    assert main(["synth", "run", "--kb", "k.db", "--out", str(tmp_path), "--shard", "0/2",
                 "--ray", "local"]) == 2  # fmt: skip
    assert "--shard and --ray" in capsys.readouterr().err
    missing = tmp_path / "no-such-model"  # the worker's UsageError, not Ray's traceback
    argv = [
        "edit",
        "--input",
        str(inp),
        "--model",
        str(missing),
        "--ray",
        "local",
        "--workers",
        "1",
    ]
    assert main(argv) == 2
    assert f"favakit edit: error: model path '{missing}' does not exist" in capsys.readouterr().err
    with pytest.raises(RuntimeError, match="0 results for 1 items"):
        list(map_in_order([1], lambda: lambda xs: [], None, 1))


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        # were run without Ray, the flag dropped without a word
        (["--gpus-per-worker", "1"], "--gpus-per-worker needs --ray (auto, local or a cluster"),
        (["--cpus-per-worker", "2"], "--cpus-per-worker needs --ray (auto, local or a cluster"),
        # refused when the flags were read, with every other value (argparse types now)
        (
            ["--ray", "local", "--gpus-per-worker", "-1"],
            "--gpus-per-worker: -1: give a finite number of 0 or more",
        ),
        (
            ["--ray", "local", "--cpus-per-worker", "0"],
            "--cpus-per-worker: 0: give a finite number above 0",
        ),
        (["--ray", "local", "--workers", "0"], "--workers: 0: give a whole number of 1 or more"),
    ],
)
def test_ray_flags_without_ray_or_out_of_range_are_refused_before_any_work(
    flags: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ix"
    try:  # argparse's own refusals exit; favakit's return 2
        code = main(["index", "build", "--kb", str(tmp_path / "kb.db"), "--out", str(out), *flags])
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    assert said in capsys.readouterr().err
    assert not out.exists()


def test_ray_options_from_code_are_checked_as_the_flags_are() -> None:
    """The checks lived in the flag reader only: RayOptions("local", workers=0) went to Ray."""
    with pytest.raises(UsageError, match=r"RayOptions.workers 0: expected at least 1"):
        RayOptions("local", workers=0)
    with pytest.raises(UsageError, match=r"gpus_per_worker -1 must be >= 0"):
        RayOptions("local", gpus_per_worker=-1)
    with pytest.raises(UsageError, match=r"cpus_per_worker nan > 0"):
        RayOptions("local", cpus_per_worker=float("nan"))
    with pytest.raises(UsageError, match="give auto, local or a cluster address"):
        RayOptions(" ")
    assert RayOptions("auto", workers=2, gpus_per_worker=0.5).gpus_per_worker == 0.5


def test_results_come_a_chunk_at_a_time_in_input_order() -> None:
    def factory() -> Any:
        return lambda xs: [x * 10 for x in xs]

    chunks = list(map_chunks_in_order(list(range(10)), factory, None, 4))
    assert chunks == [[0, 10, 20, 30], [40, 50, 60, 70], [80, 90]]
    assert list(map_in_order(list(range(10)), factory, None, 4)) == [x * 10 for x in range(10)]
    assert list(map_chunks_in_order([], factory, None, 4)) == []
