"""What Ray costs and gives on one machine: the same index build and the same batch edit run
as a plain process and as a Ray Data pipeline with 1 and 2 workers, one after the other.

    python scripts/bench_ray.py --kb runs/wiki.db --texts runs/bench_ray_texts.jsonl \
        --out docs/results/bench_ray_DATE.json

Every configuration is a fresh ``favakit`` command in its own process, timed from start to exit
(what a user waits for: Ray's start, the workers' model loads and the work), and its output is
compared with the plain run's. ``plain-1t`` pins the plain process to one thread, the budget of
one Ray worker (Ray gives each 1-CPU actor ``OMP_NUM_THREADS=1``), so ``ray-1 / plain-1t`` is
Ray's overhead and ``ray-1 / ray-2`` the scaling over workers; ``plain-2t`` is the default
single process on both cores. Texts to edit: ``--texts`` JSONL rows ``{"id", "text",
"evidence"}`` (``--make-texts N`` writes N one- or two-sentence rows from the KB's passages).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

CONFIGS = {
    "plain-1t": ([], "1"),
    "plain-2t": ([], "2"),
    "ray-1": (["--ray", "local", "--workers", "1"], None),
    "ray-2": (["--ray", "local", "--workers", "2"], None),
}


def _favakit() -> str:
    return str(Path(sys.executable).with_name("favakit"))


def _run(argv: list[str], threads: str | None) -> float:
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    if threads:
        env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = threads
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr[-3000:]}")
    return seconds


def _make_texts(kb: str, n: int, path: Path, seed: int = 0) -> None:
    from favakit.retrieval.kb import KnowledgeSource
    from favakit.text import split_sentences

    with KnowledgeSource(kb) as source:
        passages = [p for p in source.passages() if len(p.text.split()) >= 40]
    random.Random(seed).shuffle(passages)
    with path.open("w") as fh:
        for i, p in enumerate(passages[:n]):
            text = " ".join(split_sentences(p.text)[:2])
            fh.write(json.dumps({"id": f"t{i}", "text": text, "evidence": [p.text]}) + "\n")


def bench_index(kb: str, work: Path, shard_size: int) -> dict[str, Any]:
    import numpy as np

    out: dict[str, Any] = {"shard_size": shard_size}
    ref = None
    for name, (flags, threads) in CONFIGS.items():
        folder = work / f"index-{name}"
        shutil.rmtree(folder, ignore_errors=True)
        argv = [_favakit(), "index", "build", "--kb", kb, "--out", str(folder), "--encoder",
                "minilm", "--shard-size", str(shard_size), "-q", *flags]  # fmt: skip
        seconds = _run(argv, threads)
        meta = json.loads((folder / "meta.json").read_text())
        vecs = np.concatenate([np.load(p) for p in sorted((folder / "shards").glob("emb-*.npy"))])
        if ref is None:
            ref = vecs
        out[name] = {
            "seconds": round(seconds, 1),
            "passages_per_s": round(meta["count"] / seconds, 1),
            "max_abs_diff_vs_plain_1t": float(np.abs(vecs - ref).max()),
        }
        print(name, out[name], flush=True)
    out["passages"] = int(meta["count"])
    return out


def bench_edit(texts: Path, work: Path, batch: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    ref = None
    for name, (flags, threads) in CONFIGS.items():
        result = work / f"edit-{name}.jsonl"
        result.unlink(missing_ok=True)
        argv = [_favakit(), "edit", "--input", str(texts), "--output", str(result),
                "--max-batch", str(batch), *flags]  # fmt: skip
        seconds = _run(argv, threads)
        rows = [json.loads(line) for line in result.read_text().splitlines()]
        corrected = [r["corrected"] for r in rows]
        if ref is None:
            ref = corrected
        out[name] = {
            "seconds": round(seconds, 1),
            "texts_per_min": round(60 * len(rows) / seconds, 2),
            "same_output_as_plain_1t": sum(a == b for a, b in zip(corrected, ref, strict=True)),
        }
        print(name, out[name], flush=True)
    out["texts"] = len(ref or [])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kb", required=True, help="knowledge source to index (and draw texts from)")
    ap.add_argument("--texts", default=None, help="JSONL texts to edit (made with --make-texts)")
    ap.add_argument("--make-texts", type=int, default=0, help="write this many texts first")
    ap.add_argument("--steps", default="index,edit")
    ap.add_argument("--shard-size", type=int, default=500)
    ap.add_argument("--batch", type=int, default=4, help="edit chunk (--max-batch)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench_ray_"))
    report: dict[str, Any] = {
        "date": date.today().isoformat(),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
        "command": " ".join(sys.argv),
    }
    try:
        import ray

        report["ray"] = ray.__version__
        if "index" in args.steps:
            report["index"] = bench_index(args.kb, work, args.shard_size)
        if "edit" in args.steps:
            texts = Path(args.texts or work / "texts.jsonl")
            if args.make_texts:
                _make_texts(args.kb, args.make_texts, texts)
            report["edit"] = bench_edit(texts, work, args.batch)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
