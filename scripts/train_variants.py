"""Compare training variants at the same step: the same data order and the same schedule as a
full run, stopped after ``--steps`` optimizer steps, exported, and scored on validation rows.

    python scripts/train_variants.py --root runs/variants --steps 50 --eval-rows 80 \
        --validation runs/synth/validation.jsonl --train runs/synth/train.jsonl \
        --variant lora_r16: --variant full:method=full,lr=0.0001 \
        --variant lora_r16_no_clean:data.train_file=runs/synth/train_with_errors.jsonl \
        -- --config smollm2_135m_lora data.limit=4000

Each variant is ``NAME:OVERRIDES`` (comma-separated ``key=value`` on top of the common ones
after ``--``). A variant folder that already holds an export is scored again, not retrained.
Writes ``ROOT/variants.json`` with bench_editor.py's figures per variant.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
from pathlib import Path


class _Stop(Exception):
    pass


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

    from favakit.training.config import load_train_config
    from favakit.training.recipe import export_checkpoint, train

    root = Path(args.root)
    figures = {}
    for spec in args.variant:
        name, _, extra = spec.partition(":")
        run = root / name
        export = run / "export"
        if not (export / "README.md").exists():
            cfg = load_train_config(
                preset,
                [*overrides, *[x for x in extra.split(",") if x], f"output_dir={run}",
                 f"save_every={args.steps}", "eval_every=0"],
            )  # fmt: skip

            def stop(step: int, loss: float) -> None:
                if step > args.steps:  # the checkpoint of step `steps` is on disk by now
                    raise _Stop

            with contextlib.suppress(_Stop):
                train(cfg, resume=(run / "checkpoint" / "state.json").exists(), on_step=stop)
            export_checkpoint(str(run), str(export))
        cfg_text = (run / "config.yaml").read_text()
        model_flag = (
            ["--model", str(export)] if "method: full" in cfg_text else ["--adapter", str(export)]
        )
        out = run / "bench.json"
        subprocess.run(
            [sys.executable, str(Path(__file__).with_name("bench_editor.py")),
             "--validation", args.validation, "--train", args.train, "--systems", "shipped",
             "--limit", str(args.eval_rows), "--speed", "0", *model_flag, "--out", str(out)],
            check=True,
        )  # fmt: skip
        figures[name] = {"overrides": extra, "steps": args.steps,
                         **json.loads(out.read_text())[1]}  # fmt: skip
        print(json.dumps({name: figures[name]}), flush=True)
    (root / "variants.json").write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
