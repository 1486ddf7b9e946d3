"""favakit's LoRA merge (:mod:`favakit.inference.lora_merge`) against peft's on a shipped adapter:
the merged weights compared tensor by tensor, and the merge timed side by side, each way in
its own process, alternating, ``--rounds`` times (the median of the paired ratios is the figure).

    python scripts/bench_lora_merge.py --model qwen2.5-coder-1.5b --adapter inference/qwen_judge \
        --dtype bfloat16 --rounds 5 --out docs/results/lora_merge.json

``--dtype`` is the dtype the model is loaded and merged in (the Qwen judge's is bf16 on a CPU
with native bf16). Each timed process loads the base, then merges; the figure is the merge
alone (and the load beside it, for scale).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _load(model: str, dtype: str) -> Any:
    import torch
    import transformers

    from favakit.inference.models import resolve_model

    return transformers.AutoModelForCausalLM.from_pretrained(
        resolve_model(model), dtype=getattr(torch, dtype)
    )


def _merged(way: str, model: str, adapter: str, dtype: str) -> tuple[Any, float, float]:
    """The model merged ``way`` ("favakit" or "peft"), the seconds of its load and merge."""
    t0 = time.perf_counter()
    base = _load(model, dtype)
    t1 = time.perf_counter()
    if way == "favakit":
        from favakit.inference.lora_merge import merge_plain_lora

        if not merge_plain_lora(base, adapter):
            raise SystemExit(f"{adapter} is not a plain LoRA adapter: favakit leaves it to peft")
        merged = base
    else:
        import peft

        merged = peft.PeftModel.from_pretrained(base, adapter).merge_and_unload()
    return merged, t1 - t0, time.perf_counter() - t1


def timed(args: argparse.Namespace) -> None:
    """One timed merge, in this process (``--timed WAY``): prints its seconds as JSON."""
    _, load, merge = _merged(args.timed, args.model, args.adapter, args.dtype)
    print(json.dumps({"way": args.timed, "load_s": round(load, 3), "merge_s": round(merge, 3)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="the base: a preset or a folder")
    ap.add_argument("--adapter", required=True)
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default="")
    ap.add_argument("--timed", choices=["favakit", "peft"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.timed:
        timed(args)
        return
    import torch

    ours, _, _ = _merged("favakit", args.model, args.adapter, args.dtype)
    mine = {k: v.clone() for k, v in ours.state_dict().items()}
    del ours
    theirs = _merged("peft", args.model, args.adapter, args.dtype)[0].state_dict()
    differing = [k for k in theirs if k not in mine or not torch.equal(mine[k], theirs[k])]
    same = {"tensors": len(theirs), "differing": len(differing), "first_differing": differing[:5]}
    print(json.dumps(same), flush=True)
    del mine, theirs
    runs: list[dict[str, Any]] = []
    for _ in range(args.rounds):
        for way in ("favakit", "peft"):
            cmd = [sys.executable, __file__, "--model", args.model, "--adapter", args.adapter,
                   "--dtype", args.dtype, "--timed", way]  # fmt: skip
            got = subprocess.run(cmd, capture_output=True, text=True, check=True)
            runs.append(json.loads(got.stdout.strip().splitlines()[-1]))
            print(json.dumps(runs[-1]), flush=True)
    ratios = [a["merge_s"] / b["merge_s"] for a, b in zip(runs[::2], runs[1::2], strict=True)]
    summary = {
        "model": args.model, "adapter": args.adapter, "dtype": args.dtype, "identical": same,
        "merge_s_median": {w: statistics.median(r["merge_s"] for r in runs if r["way"] == w)
                           for w in ("favakit", "peft")},
        "load_s_median": statistics.median(r["load_s"] for r in runs),
        "paired_ratio_median": round(statistics.median(ratios), 3),
        "paired_ratios": [round(r, 3) for r in ratios], "runs": runs,
    }  # fmt: skip
    print(json.dumps({k: v for k, v in summary.items() if k != "runs"}))
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
