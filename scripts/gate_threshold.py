"""Choose a checker's gate threshold on the development split, by issue 32's shape.

The gate leaves a sentence alone when the checker's P(supported) is above its threshold. The
verdict threshold stored with a checker maximises balanced accuracy; the gate's first duty is
to leave correct text alone. So on the development rows (carved from the training data by
source, ``scripts/llm_judge.py data``; never an eval set) this picks, on a 0.02 grid, the
threshold that flags the most unsupported rows (per-source mean) while the per-source mean share
of supported rows left alone stays at ``--left-alone`` or more: the rule the tuned Qwen judge's
``gate_threshold`` was chosen by.

    favakit verify --judge checker --checker mpnet --input runs/judge_data/dev_rows.jsonl \
        --output runs/gate/mpnet_dev.jsonl
    python scripts/gate_threshold.py --rows runs/judge_data/dev_rows.jsonl \
        --scores runs/gate/mpnet_dev.jsonl --write inference/mpnet_checker/checker.json

``--cascade`` chooses the second judge's gate threshold inside the cascade (``--gate
cascade``): the scores are ``favakit verify --judge cascade``'s, a row the second judge decided
keeps its P(supported) and any other row its checker's decision (outside the band no threshold
of the judge moves it), and the threshold is stored as the checker's ``cascade.gate_threshold``:

    favakit verify --judge cascade --dtype bfloat16 --input runs/judge_data/dev_rows.jsonl \
        --output runs/gate/cascade_dev.jsonl
    python scripts/gate_threshold.py --cascade --rows runs/judge_data/dev_rows.jsonl \
        --scores runs/gate/cascade_dev.jsonl --write inference/mpnet_checker/checker.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from llm_judge import gate_threshold

from favakit.inference.verifiers import second_judge_decided


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=Path, required=True, help="development rows (id, source, label)")
    ap.add_argument("--scores", type=Path, required=True, help="`favakit verify` output for them")
    ap.add_argument("--left-alone", type=float, default=0.85)
    ap.add_argument("--write", type=Path, default=None, help="a checker.json to store it in")
    ap.add_argument("--cascade", action="store_true", help="the second judge's threshold inside "
                    "the cascade (scores from `favakit verify --judge cascade`)")  # fmt: skip
    args = ap.parse_args()

    rows = {r["id"]: r for r in map(json.loads, args.rows.read_text().splitlines())}
    dev = []
    asked = 0
    for verdict in map(json.loads, args.scores.read_text().splitlines()):
        row = rows[verdict["id"]]
        score = float(verdict["score"])
        if args.cascade:
            if second_judge_decided(verdict):
                asked += 1
            else:  # the checker decided: no threshold of the judge's changes it
                score = 1.0 if verdict["supported"] else 0.0
        dev.append({"source": row["source"], "label": row["label"] == "supported",
                    "score": score})  # fmt: skip
    if len(dev) != len(rows):
        raise SystemExit(f"{len(dev)} scores for {len(rows)} development rows")
    best = gate_threshold(dev, args.left_alone)
    if best is None:
        raise SystemExit(f"no threshold leaves {args.left_alone} of supported rows alone")
    print(json.dumps({**best, **({"asked": asked} if args.cascade else {})}))
    if args.write:
        cfg = json.loads(args.write.read_text())
        chosen_on = (
            f"the development split ({len(dev)} rows, {args.rows.name}), by issue 32's shape: the "
            f"threshold (0.02 grid) flagging the most unsupported rows while the per-source mean "
            f"share of supported ones left alone stays at {args.left_alone} or more "
            f"({best['left_alone']} left alone, {best['flagged']} flagged)"
        )
        if args.cascade:
            cfg["cascade"]["gate_threshold"] = best["threshold"]
            cfg["cascade"]["gate_threshold_chosen_on"] = (
                f"{chosen_on}; the second judge decided {asked} rows, the checker the others"
            )
        else:
            cfg["gate_threshold"], cfg["gate_threshold_chosen_on"] = best["threshold"], chosen_on
        args.write.write_text(json.dumps(cfg, indent=1) + "\n")


if __name__ == "__main__":
    main()
