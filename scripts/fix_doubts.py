"""How often the cascade's judge would take back a fix under the band (session 56; the rule is
``favakit.inference.gate_checks.fixes_the_judge_doubts``), on the development split only.

Under its band the cascade lets the checker decide; before a fix changes a sentence there, the
gate asks the judge. This script measures the judge on the development rows the checker scores
under the band with no rule's finding (a rule's finding is never overruled): every supported
one (where a fix would damage a correct sentence) and a seeded sample of the unsupported ones
(where taking a fix back loses it), so a threshold can be chosen on them:

    python scripts/llm_judge.py data --real ../shared/data/real --out runs/judge_data --score-sets ''
    favakit verify --judge checker --checker mpnet --input runs/judge_data/dev_rows.jsonl \\
        --output runs/doubts/checker.jsonl
    python scripts/fix_doubts.py sample --rows runs/judge_data/dev_rows.jsonl \\
        --scores runs/doubts/checker.jsonl --out runs/doubts/asked.jsonl
    favakit verify --judge qwen --dtype bfloat16 --input runs/doubts/asked.jsonl \\
        --output runs/doubts/judge.jsonl                                # about 19 min on 2 cores
    python scripts/fix_doubts.py report --rows runs/judge_data/dev_rows.jsonl \\
        --asked runs/doubts/asked.jsonl --judge runs/doubts/judge.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from favakit.records import read_jsonl

#: What every warning of a rule beneath the checker says (it capped the verdict's score).
RULE_NOTE = "P(supported) at most"


def under_band(
    rows: dict[str, dict[str, Any]], scores: list[dict[str, Any]], low: float
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(supported, unsupported) development rows the checker scores under ``low`` where no rule
    beneath it found the evidence contradicting them."""
    supported: list[dict[str, Any]] = []
    unsupported: list[dict[str, Any]] = []
    for v in scores:
        if v["score"] >= low or any(RULE_NOTE in w for w in v.get("warnings", [])):
            continue
        row = rows[v["id"]]
        (supported if row["label"] == "supported" else unsupported).append(row)
    return supported, unsupported


def sample(args: argparse.Namespace) -> None:
    from favakit.inference.checker import checker_folder

    rows = {r["id"]: r for r in read_jsonl(args.rows)}
    config = json.loads((Path(checker_folder(args.checker)) / "checker.json").read_text())
    low = float(config["cascade"]["band"][0])
    supported, unsupported = under_band(rows, list(read_jsonl(args.scores)), low)
    # a seeded hash of each id orders them: the sample does not move when a row joins or leaves
    unsupported.sort(key=lambda r: hashlib.sha256(f"{args.seed}:{r['id']}".encode()).digest())
    asked = supported + unsupported[: args.unsupported]
    with args.out.open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in asked)
    meta = {"band_low": low, "supported": len(supported), "unsupported": len(unsupported),
            "unsupported_asked": min(args.unsupported, len(unsupported)), "seed": args.seed}  # fmt: skip
    args.out.with_suffix(".meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta))


def report(args: argparse.Namespace) -> None:
    rows = {r["id"]: r for r in read_jsonl(args.rows)}
    meta = json.loads(args.asked.with_suffix(".meta.json").read_text())
    verdicts = list(read_jsonl(args.judge))
    out: dict[str, Any] = {"asked": meta, "judged": len(verdicts), "thresholds": {}}
    for t in args.thresholds:
        by_label = {True: [0, 0], False: [0, 0]}  # supported? -> [called supported, asked]
        for v in verdicts:
            counts = by_label[rows[v["id"]]["label"] == "supported"]
            counts[0] += v["score"] > t
            counts[1] += 1
        (s_hit, s_n), (u_hit, u_n) = by_label[True], by_label[False]
        out["thresholds"][str(t)] = {
            "supported_called_supported": f"{s_hit}/{s_n}",
            "unsupported_called_supported": f"{u_hit}/{u_n}",
            "unsupported_estimated_of_all": round(u_hit / max(u_n, 1) * meta["unsupported"], 1),
        }
    print(json.dumps(out, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="step", required=True)
    s = sub.add_parser("sample", help="the rows to ask the judge about")
    s.add_argument("--rows", type=Path, required=True, help="runs/judge_data/dev_rows.jsonl")
    s.add_argument("--scores", type=Path, required=True, help="the checker's verdicts on them")
    s.add_argument("--checker", default="mpnet", help="the checker holding the cascade's band")
    s.add_argument("--unsupported", type=int, default=130, help="unsupported rows sampled")
    s.add_argument("--seed", type=int, default=56)
    s.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("report", help="the share the judge calls supported, per label")
    r.add_argument("--rows", type=Path, required=True)
    r.add_argument("--asked", type=Path, required=True, help="what sample wrote")
    r.add_argument("--judge", type=Path, required=True, help="the judge's verdicts on them")
    r.add_argument("--thresholds", type=float, nargs="+", default=[0.06, 0.1, 0.18, 0.22, 0.5])
    args = ap.parse_args()
    (sample if args.step == "sample" else report)(args)


if __name__ == "__main__":
    main()
