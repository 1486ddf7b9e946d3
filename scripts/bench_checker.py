"""Judges on the real labelled claim sets, side by side in one run: every set of
``../shared/data/real/eval`` (measured, never trained or tuned on), as the LLM-AggreFact
leaderboard reports them: balanced accuracy, ROC AUC, F1 of each label, the share called
supported, claims per second, and the mean over the four target sets (fm2_test, wice_test,
scifact, citint_test; anli_dev is reported beside them).

    python scripts/bench_checker.py --real ../shared/data/real --judges checker,verifier \
        --checker runs/checker_minilm/model --slow-per-label 50 --out docs/results/bench_checker_DATE.json

Fast judges (the checker, the encoder detector) read every row; slow ones (the trained
verifier, the editor, the llm judge) a fixed sample of ``--slow-per-label`` supported and as
many unsupported rows per set (seeded), and the fast judges are also scored on that sample so
that every judge has a figure on the same rows.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_verify import agreement, auc

TARGETS = ("fm2_test", "wice_test", "scifact", "citint_test")
FAST = {"checker", "encoder"}


def sample(rows: list[dict[str, Any]], per_label: int, seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(f"bench:{seed}")
    pos = [r for r in rows if r["label"] == "supported"]
    neg = [r for r in rows if r["label"] != "supported"]
    picked = rng.sample(pos, min(per_label, len(pos))) + rng.sample(neg, min(per_label, len(neg)))
    return sorted(picked, key=lambda r: r["id"])


def measure(verifier: Any, rows: list[dict[str, Any]]) -> dict[str, Any]:
    from favakit.contracts import EditRequest

    claims = [EditRequest.from_obj({"text": r["text"], "evidence": r["evidence"]}) for r in rows]
    verifier.verify(claims[:2])  # warm-up
    t0 = time.perf_counter()
    verdicts = verifier.verify(claims)
    seconds = time.perf_counter() - t0
    human = [r["label"] == "supported" for r in rows]
    judged = [bool(v["supported"]) for v in verdicts]
    return {
        "claims": len(rows),
        **agreement(human, judged),
        "auc": auc(human, [float(v["score"]) for v in verdicts]),
        "supported_share": round(sum(judged) / len(judged), 4),
        "claims_per_s": round(len(rows) / seconds, 3),
        "pieced": sum(bool(v.get("warnings")) for v in verdicts),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, required=True, help="../shared/data/real")
    ap.add_argument("--sets", default=",".join((*TARGETS, "anli_dev")))
    ap.add_argument("--judges", default="checker,verifier")
    ap.add_argument("--checker", default=None, help="checker folder (default: the shipped one)")
    ap.add_argument("--slow-per-label", type=int, default=50)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.inference.factory import open_verifier

    sets = {
        name: [json.loads(line) for line in (args.real / "eval" / f"{name}.jsonl").open()]
        for name in args.sets.split(",")
    }
    results: list[dict[str, Any]] = [{"meta": {
        "date": date.today().isoformat(), "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "slow_per_label": args.slow_per_label, "sets": {k: len(v) for k, v in sets.items()}}}]  # fmt: skip
    for judge in args.judges.split(","):
        verifier = open_verifier(judge, detector=args.checker if judge == "checker" else None)
        for name, rows in sets.items():
            for part, chosen in (("all", rows), ("sample", sample(rows, args.slow_per_label))):
                if part == "all" and judge not in FAST:
                    continue
                row = {"judge": judge, "model": verifier.model, "set": name, "rows": part,
                       **measure(verifier, chosen)}  # fmt: skip
                print(json.dumps(row), flush=True)
                results.append(row)
        for part in ("all", "sample"):
            got = [r for r in results if r.get("judge") == judge and r.get("rows") == part
                   and r.get("set") in TARGETS]  # fmt: skip
            if len(got) == len(TARGETS):
                mean = {"judge": judge, "rows": part, "set": "mean of the four targets",
                        "balanced_accuracy": round(sum(r["balanced_accuracy"] for r in got) / 4, 4),
                        "auc": round(sum(r["auc"] for r in got) / 4, 4),
                        "lowest": min(r["balanced_accuracy"] for r in got)}  # fmt: skip
                print(json.dumps(mean), flush=True)
                results.append(mean)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
