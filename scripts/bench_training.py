"""Training benchmark: tokens/s and peak memory for LoRA vs full fine-tuning, with and without
packing and gradient checkpointing, on SmolLM2-135M (CPU) or any model (GPU when lent).

    python scripts/bench_training.py --data runs/synth/train.jsonl --out docs/results/bench_training.json

Each variant runs in its own process (peak memory is per process) for --steps optimizer steps on
the same rows; variants are interleaved over --repeats rounds and the best round is kept, and
every figure is also given as a ratio to the LoRA baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

VARIANTS: dict[str, list[str]] = {
    "lora": ["method=lora"],
    "lora+packing": ["method=lora", "data.packing=true"],
    "lora+checkpointing": ["method=lora", "gradient_checkpointing=true"],
    "full": ["method=full", "lr=0.00002"],
    "full+checkpointing": ["method=full", "lr=0.00002", "gradient_checkpointing=true"],
}


def one(variant: str, args: argparse.Namespace) -> dict[str, Any]:
    from favakit.training.config import load_train_config
    from favakit.training.recipe import train

    with tempfile.TemporaryDirectory() as tmp:
        cfg = load_train_config(
            "smollm2_135m_lora",
            [
                f"model={args.model}",
                f"data.train_file={args.data}",
                f"data.limit={args.rows}",
                f"data.max_length={args.max_length}",
                f"max_steps={args.steps}",
                f"output_dir={tmp}/run",
                f"batch_size={args.batch_size}",
                "eval_every=0",
                "save_every=0",
                "log_every=1000",
                *VARIANTS[variant],
            ],
        )
        t0 = time.perf_counter()
        summary = train(cfg)
        wall = time.perf_counter() - t0
    return {
        "variant": variant,
        "tokens_per_s": summary["tokens_per_s"],
        "peak_memory_mb": summary["peak_memory_mb"],
        "steps": summary["steps"],
        "wall_s": round(wall, 1),
        "device": summary["device"],
        "precision": summary["precision"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", required=True, help="training JSONL ({prompt, completion} rows)")
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--rows", type=int, default=64)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--max-length", type=int, default=512)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args)))
        return 0
    best: dict[str, dict[str, Any]] = {}
    for _ in range(args.repeats):
        for variant in args.variants.split(","):
            cmd = [
                sys.executable,
                __file__,
                "--one",
                variant,
                "--data",
                args.data,
                "--model",
                args.model,
                "--rows",
                str(args.rows),
                "--steps",
                str(args.steps),
                "--batch-size",
                str(args.batch_size),
                "--max-length",
                str(args.max_length),
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                print(
                    json.dumps({"variant": variant, "error": proc.stderr.strip().splitlines()[-1:]})
                )
                continue
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            if variant not in best or row["tokens_per_s"] > best[variant]["tokens_per_s"]:
                best[variant] = row
    base = best.get("lora")
    results = []
    for row in best.values():
        if base:
            row["speed_vs_lora"] = round(row["tokens_per_s"] / base["tokens_per_s"], 2)
            row["memory_vs_lora"] = round(row["peak_memory_mb"] / base["peak_memory_mb"], 2)
        print(json.dumps(row))
        results.append(row)
    meta = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "date": time.strftime("%Y-%m-%d"),
        "args": {k: v for k, v in vars(args).items() if k != "out"},
    }
    if args.out:
        args.out.write_text(
            json.dumps({"machine": meta, "results": results}, indent=1, default=str) + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
