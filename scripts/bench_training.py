"""Training benchmark: tokens/s and peak memory for LoRA vs full fine-tuning, with and without
packing and gradient checkpointing, on SmolLM2-135M (CPU) or any model (GPU when lent).

    python scripts/bench_training.py --data runs/synth/train.jsonl --out docs/results/bench_training.json

On a GPU, ``--shape smollm2|llama7b --tokenizer DIR`` trains a randomly initialised model of that
shape (no weights needed for speed) and adds model FLOPs utilisation: model FLOPs per token are
6N (full) or 4N (LoRA: no weight gradients for the frozen base) for N non-embedding parameters,
plus attention (12 or 8 x layers x hidden x sequence), against the card's dense bf16 peak
(``--peak-tflops``, 989 for an H100 SXM).

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
    # on CPUs with native bf16 `precision=auto` holds the frozen base in bf16: this is the fp32 baseline
    "lora+fp32": ["method=lora", "precision=fp32"],
    "lora+packing": ["method=lora", "data.packing=true"],
    "lora+checkpointing": ["method=lora", "gradient_checkpointing=true"],
    "full": ["method=full", "lr=0.00002"],
    "full+checkpointing": ["method=full", "lr=0.00002", "gradient_checkpointing=true"],
}


SHAPES: dict[str, dict[str, Any]] = {
    # SmolLM2-135M's architecture
    "smollm2": dict(
        hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
        num_key_value_heads=3, vocab_size=49152, tie_word_embeddings=True,
    ),
    # Llama-2-7B's shape (vocabulary of the tokenizer given, SmolLM2's 49,152 by default)
    "llama7b": dict(
        hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=32, vocab_size=49152, tie_word_embeddings=False,
    ),
}  # fmt: skip


def random_model(shape: str, tokenizer: str, folder: Path) -> dict[str, Any]:
    """A folder with the shape's config and the given tokenizer; weights are drawn at load time
    (see ``_random_weights``), so nothing of 7B size is written to disk."""
    import shutil

    from transformers import LlamaConfig

    folder.mkdir(parents=True, exist_ok=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (Path(tokenizer) / name).exists():
            shutil.copy(Path(tokenizer) / name, folder / name)
    LlamaConfig(max_position_embeddings=8192, **SHAPES[shape]).save_pretrained(folder)
    return SHAPES[shape]


def _random_weights(device: str) -> None:
    """Make ``AutoModelForCausalLM.from_pretrained`` of a config-only folder draw random weights
    straight on the device (bench only)."""
    import torch
    import transformers

    auto: Any = transformers.AutoModelForCausalLM  # its from_pretrained replaced below

    def from_config_folder(path: str, **kwargs: Any) -> Any:
        config = transformers.AutoConfig.from_pretrained(path)
        with torch.device(device):
            return auto.from_config(config, dtype=kwargs.get("dtype", torch.float32))

    auto.from_pretrained = from_config_folder


def model_flops_per_token(shape: dict[str, Any], method: str, seq: int) -> float:
    h, layers, inter = shape["hidden_size"], shape["num_hidden_layers"], shape["intermediate_size"]
    kv = h * shape["num_key_value_heads"] // shape["num_attention_heads"]
    n = layers * (2 * h * h + 2 * h * kv + 3 * h * inter) + shape["vocab_size"] * h  # + LM head
    full = method == "full"
    return float((6 if full else 4) * n + (12 if full else 8) * layers * h * seq)


def one(variant: str, args: argparse.Namespace) -> dict[str, Any]:
    from favakit.training.config import load_train_config
    from favakit.training.recipe import train

    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if args.shape:
            random_model(args.shape, args.tokenizer, Path(tmp) / "model")
            _random_weights(args.device or "cuda")
            model = str(Path(tmp) / "model")
        cfg = load_train_config(
            "smollm2_135m_lora",
            [
                f"model={model}",
                f"device={args.device}",
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
    row = {
        "variant": variant,
        "model": args.shape or args.model,
        "tokens_per_s": summary["tokens_per_s"],
        "tokens_per_s_after_first_step": summary["tokens_per_s_after_first_step"],
        "peak_memory_mb": summary["peak_memory_mb"],
        "steps": summary["steps"],
        "wall_s": round(wall, 1),
        "device": summary["device"],
        "precision": summary["precision"],
    }
    if args.shape and args.peak_tflops:
        method = "full" if variant.startswith("full") else "lora"
        flops = model_flops_per_token(SHAPES[args.shape], method, args.max_length)
        rate = summary["tokens_per_s_after_first_step"] or summary["tokens_per_s"]
        row["mfu"] = round(rate * flops / (args.peak_tflops * 1e12), 3)
    return row


def _gpu_name() -> str | None:
    try:
        import torch
    except ImportError:
        return None
    return torch.cuda.get_device_name() if torch.cuda.is_available() else None


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
    ap.add_argument("--device", default="", help="cpu, cuda (default: cuda when available)")
    ap.add_argument("--shape", choices=sorted(SHAPES), default=None, help="random-init model")
    ap.add_argument("--tokenizer", default="", help="with --shape: folder holding tokenizer.json")
    ap.add_argument("--peak-tflops", type=float, default=0.0, help="dense bf16 peak, for MFU")
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
                "--device",
                args.device,
                "--peak-tflops",
                str(args.peak_tflops),
            ]
            if args.shape:
                cmd += ["--shape", args.shape, "--tokenizer", args.tokenizer]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                error = proc.stderr.strip().splitlines()[-1:]
                print(json.dumps({"variant": variant, "error": error}), flush=True)
                best.setdefault(variant, {"variant": variant, "error": error})
                continue
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            print(json.dumps(row), flush=True)
            if row["tokens_per_s"] > best.get(variant, {}).get("tokens_per_s", -1):
                best[variant] = row
    base = best.get("lora")
    results = []
    for row in best.values():
        if base and "error" not in base and "error" not in row:
            row["speed_vs_lora"] = round(row["tokens_per_s"] / base["tokens_per_s"], 2)
            row["memory_vs_lora"] = round(row["peak_memory_mb"] / base["peak_memory_mb"], 2)
        print(json.dumps(row))
        results.append(row)
    meta = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "date": time.strftime("%Y-%m-%d"),
        "gpu": _gpu_name(),
        "args": {k: v for k, v in vars(args).items() if k != "out"},
    }
    if args.out:
        args.out.write_text(
            json.dumps({"machine": meta, "results": results}, indent=1, default=str) + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
