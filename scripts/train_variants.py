"""Compare training variants on equal terms: the same data order, the same number of optimizer
steps (``--steps``, the schedule spread over them), each trained by ``favakit train`` in its own
process (so its peak memory is its own) and scored on the same validation rows.

    python scripts/train_variants.py --root runs/variants --steps 60 --eval-rows 40 \
        --validation runs/synth/validation.jsonl --train runs/synth/train.jsonl \
        --variant lora_r16: --variant full:method=full,lr=0.0001 \
        --variant lora_r16_no_clean:data.train_file=runs/synth/train_with_errors.jsonl \
        -- --config smollm2_135m_lora data.train_file=runs/synth/train.jsonl data.limit=480

Each variant is ``NAME:OVERRIDES`` (comma-separated ``key=value`` on top of the common ones
after ``--``). A variant whose model is on disk is not retrained, and one already scored is not
scored again (an interrupted comparison continues where it stopped). Writes
``ROOT/variants.json``: per variant, bench_editor.py's figures and the training summary.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--variant", action="append", required=True)
    ap.add_argument("--validation", required=True)
    ap.add_argument("--train", required=True)
    ap.add_argument("--eval-rows", type=int, default=80)
    ap.add_argument("common", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    common = [a for a in args.common if a != "--"]
    preset = common[common.index("--config") + 1] if "--config" in common else "smollm2_135m_lora"
    overrides = [a for a in common if "=" in a]

    root = Path(args.root)
    figures = {}
    for spec in args.variant:
        name, _, extra = spec.partition(":")
        run = root / name
        if not (run / "summary.json").exists():
            subprocess.run(
                [str(Path(sys.executable).with_name("favakit")), "train", "--config", preset,
                 *overrides,
                 *[x for x in extra.split(",") if x], f"output_dir={run}",
                 f"max_steps={args.steps}", "eval_every=0", "--no-progress",
                 *(["--resume"] if (run / "checkpoint").exists() else [])],
                check=True,
            )  # fmt: skip
        summary = json.loads((run / "summary.json").read_text())
        model_flag = (
            ["--adapter", str(run / "adapter")]
            if (run / "adapter").exists()
            else ["--model", str(run / "model")]
        )
        out = run / "bench.json"
        if not out.exists():
            subprocess.run(
                [sys.executable, str(Path(__file__).with_name("bench_editor.py")),
                 "--validation", args.validation, "--train", args.train, "--systems", "shipped",
                 "--limit", str(args.eval_rows), "--speed", "0", *model_flag, "--out", str(out)],
                check=True,
            )  # fmt: skip
        figures[name] = {"overrides": extra, "steps": args.steps, "training": summary,
                         **json.loads(out.read_text())[1]}  # fmt: skip
        print(json.dumps({name: figures[name]}), flush=True)
    (root / "variants.json").write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
