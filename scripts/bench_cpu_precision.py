"""One LoRA training step of SmolLM2-135M on the CPU, in the three settings the CPU preset chose
between: fp32; fp32 with logits only at target positions; the frozen base in bf16 with logits
only at target positions (what ``precision=auto`` does on CPUs with native bf16).

    python scripts/bench_cpu_precision.py --out docs/results/bench_cpu_precision_DATE.json

Each setting runs in its own process (memory is per process), one after another, on the same
random batch (``--batch`` x ``--tokens``, the last third of each row as the target) for
``--steps`` steps; the best step counts, and every figure is also a ratio to fp32.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

SETTINGS = ("fp32", "fp32+targets", "bf16-base+targets")


def one(setting: str, batch: int, tokens: int, steps: int) -> dict[str, Any]:
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    from favakit.inference.models import resolve_model
    from favakit.training.recipe import _loss

    torch.manual_seed(0)
    dtype = torch.bfloat16 if setting.startswith("bf16") else torch.float32
    model: Any = AutoModelForCausalLM.from_pretrained(resolve_model("smollm2"), dtype=dtype)
    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    model = get_peft_model(model, LoraConfig(task_type="CAUSAL_LM", r=16, lora_alpha=32,
                                             target_modules=targets))  # fmt: skip
    for p in model.parameters():
        if p.requires_grad:
            p.data = p.data.float()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    ids = torch.randint(0, 49000, (batch, tokens))
    labels = ids.clone()
    labels[:, : tokens * 2 // 3] = -100
    data = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels}
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        _loss(model, data, select=setting.endswith("+targets")).backward()
        opt.step()
        opt.zero_grad()
        times.append(time.perf_counter() - t0)
    best = min(times[1:] or times)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"setting": setting, "tokens_per_s": round(batch * tokens / best, 1),
            "peak_rss_mb": round(rss, 1)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=400)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.batch, args.tokens, args.steps)))
        return
    results = []
    for setting in SETTINGS:
        got = subprocess.run(
            [sys.executable, __file__, "--one", setting, "--batch", str(args.batch),
             "--tokens", str(args.tokens), "--steps", str(args.steps)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        results.append(json.loads(got.stdout.strip().splitlines()[-1]))
    base = results[0]
    for r in results:
        r["speed_vs_fp32"] = round(r["tokens_per_s"] / base["tokens_per_s"], 2)
        r["memory_vs_fp32"] = round(r["peak_rss_mb"] / base["peak_rss_mb"], 2)
        print(json.dumps(r))
    if args.out:
        meta = {"date": date.today().isoformat(), "machine": platform.machine(), **vars(args)}
        Path(args.out).write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
