"""Issue 32's shape from verdicts: the share of supported claims a gate leaves alone and of
unsupported ones it flags, at a gate threshold, from ``favakit verify`` output over one-sentence
claims (the gate's decision on such a claim is its verdict score against the gate threshold;
``scripts/bench_gate.py`` runs the whole pipeline on a sample). Every row of a set costs one
verdict, not one edit, so a whole set can be measured. With a cascade's verdicts,
``--judge-threshold`` is the second judge's gate threshold for the claims it decided (the
verdict's warning says so) and ``--threshold`` the checker's for the others.

    favakit verify --judge cascade --dtype bfloat16 --input ../shared/data/real/eval/fm2_test.jsonl \\
        --output runs/cascade/fm2_test.jsonl
    python scripts/gate_shape.py --rows ../shared/data/real/eval/fm2_test.jsonl \\
        --verdicts runs/cascade/fm2_test.jsonl --threshold 0.12 --judge-threshold 0.06 0.18 \\
        --out docs/results/gate_shape_DATE.json

Measuring only: the thresholds come from the development split (``scripts/gate_threshold.py``).
"""

from __future__ import annotations

import argparse
import json
from datetime import date
from pathlib import Path
from typing import Any

from favakit.contracts import Verdict
from favakit.inference.verifiers import second_judge_decided


def shape(rows: dict[str, bool], verdicts: list[Verdict], threshold: float,
          judge_threshold: float | None) -> dict[str, Any]:  # fmt: skip
    """Left alone / flagged shares of ``verdicts`` (``rows``: id -> supported)."""
    alone: dict[bool, list[bool]] = {True: [], False: []}  # supported? -> left alone, per claim
    asked = 0
    for v in verdicts:
        at = threshold
        if judge_threshold is not None and second_judge_decided(v):
            at, asked = judge_threshold, asked + 1
        alone[rows[v["id"]]].append(float(v["score"]) > at)
    a = sum(alone[True]) / len(alone[True])
    b = 1 - sum(alone[False]) / len(alone[False])
    return {"threshold": threshold, "judge_threshold": judge_threshold, "claims": len(verdicts),
            "judge_asked": asked, "supported_left_alone": round(a, 4),
            "unsupported_flagged": round(b, 4), "balanced_accuracy": round((a + b) / 2, 4)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=Path, required=True, help="labelled claims (id, label)")
    ap.add_argument("--verdicts", type=Path, required=True, help="`favakit verify` output for them")
    ap.add_argument("--threshold", type=float, required=True, help="the checker's gate threshold")
    ap.add_argument("--judge-threshold", type=float, nargs="*", default=[],
                    help="a cascade's second judge's gate thresholds, one row each")  # fmt: skip
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    rows = {r["id"]: r["label"] == "supported" for r in map(json.loads, args.rows.open())}
    verdicts = [json.loads(line) for line in args.verdicts.open()]
    if missing := [v["id"] for v in verdicts if v["id"] not in rows]:
        raise SystemExit(f"{len(missing)} verdicts name no row of {args.rows} (first {missing[0]})")
    results: list[dict[str, Any]] = [{"meta": {"date": str(date.today()), "rows": str(args.rows),
                                               "verdicts": str(args.verdicts)}}]  # fmt: skip
    for judge in args.judge_threshold or [None]:
        results.append(shape(rows, verdicts, args.threshold, judge))
        print(json.dumps(results[-1]), flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
