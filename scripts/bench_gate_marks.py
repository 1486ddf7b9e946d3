"""The gate with its word marks taken from its verdict passes (what favakit does since session 68:
:mod:`favakit.inference.kept_marks`) against the token head run again on every marking pass
(what it did before), side by side in one process.

Each row's text goes through :class:`~favakit.inference.gate.GatedEditor` over an editor that
edits nothing, so the time is the gate's: every sentence scored against every evidence piece,
the unsupported ones marked at their words. The two ways alternate, round by round, and must
give the same results (the script stops if not). Only texts and evidence are read, never labels.

    python scripts/bench_gate_marks.py --rows ../shared/data/real/train/wice.jsonl --limit 8 \\
        --gate mpnet --rounds 3 --out docs/results/bench_gate_marks_DATE.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any


class Unedited:
    """An editor that finds nothing: its results leave every text as it was."""

    model = "unedited"

    def edit_many(self, requests: Sequence[Any]) -> list[dict[str, Any]]:
        from favakit.contracts import as_request

        out = []
        for n, item in enumerate(requests):
            req = as_request(item, n)
            out.append({"original": req.text, "corrected": req.text, "edits": [],
                        "evidence": req.passages(), "repairs": [], "mismatches": [],
                        "faithful": True, "warnings": [], "model": self.model,
                        "usage": {"prompt_tokens": 0, "completion_tokens": 0}})  # fmt: skip
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=Path, required=True, help="JSONL rows with text and evidence")
    ap.add_argument("--limit", type=int, default=8, help="rows drawn (seed 0)")
    ap.add_argument("--gate", default="mpnet", help="mpnet, checker, cascade or a folder")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.inference.factory import open_gate
    from favakit.inference.gate import GatedEditor
    from favakit.inference.kept_marks import KeptMarks

    rows = [json.loads(line) for line in args.rows.open(encoding="utf-8") if line.strip()]
    random.Random(0).shuffle(rows)
    rows = [{"id": str(r["id"]), "text": r["text"], "evidence": r["evidence"]}
            for r in rows[: args.limit]]  # fmt: skip
    scorer: Any = open_gate(args.gate)
    checker = getattr(scorer, "checker", scorer)  # the cascade's checker marks the words
    if not checker.keeps_marks:
        raise SystemExit(f"{args.gate}: its checker has no token head, so nothing is marked")
    gate = GatedEditor(Unedited(), scorer)  # type: ignore[arg-type]
    gate.edit_many(rows[:1])  # loads what loads on first use

    seconds: dict[str, list[float]] = {"kept": [], "run again": []}
    results: dict[str, Any] = {}
    for n in range(args.rounds):
        for way in ("run again", "kept") if n % 2 == 0 else ("kept", "run again"):
            checker.keeps_marks = way == "kept"
            checker.kept_marks = KeptMarks()
            start = time.perf_counter()
            got = gate.edit_many(rows)
            seconds[way].append(round(time.perf_counter() - start, 3))
            if results.setdefault(way, got) != got or results.get("kept", got) != got:
                raise SystemExit("the two ways gave different results")
    ratios = [a / b for a, b in zip(seconds["run again"], seconds["kept"], strict=True)]
    meta = {"date": date.today().isoformat(), "machine": platform.processor() or platform.machine(),
            "rows": str(args.rows), "limit": len(rows), "gate": args.gate,
            "words": [sum(len(e.split()) for e in r["evidence"]) for r in rows]}  # fmt: skip
    report = {
        "meta": meta,
        "seconds": seconds,
        "ratio_run_again_over_kept": [round(r, 3) for r in ratios],
        "median_ratio": round(statistics.median(ratios), 3),
        "edits_and_flags": sum(len(r["edits"]) for r in results["kept"]),
        "same_results": True,
    }
    print(json.dumps(report, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
