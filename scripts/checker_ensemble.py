"""Two checkers combined: does a weighted mean of their logits judge real claims better than
the better checker alone?

Each checker scores the development split that training carves from the training files (the
same seed and fraction as ``favakit train``, so neither checker trained on a row of it) and
every eval set. For each weight ``w`` the combined P(supported) is ``sigmoid((1 - w) * logit(first) + w *
logit(second))``; its threshold is chosen as training chooses a checker's
(``favakit.training.checker.choose_threshold``: the best development mean balanced accuracy
over sources, a 0.02 grid), and ``w`` is chosen by that development mean too. The eval
sets only measure: nothing is chosen on them.

    python scripts/checker_ensemble.py --real ../shared/data/real --checkers mpnet,checker \
        --scores runs/ensemble --out docs/results/checker_ensemble_DATE.json

Scores are cached per checker and set in ``--scores`` (``CHECKER.jsonl``), so a second run
with other weights reads them instead of scoring again.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_verify import agreement, auc

TARGETS = ("fm2_test", "wice_test", "scifact", "citint_test")
Row = tuple[str, str, list[str], bool]


def claim_sets(real: Path, sets: list[str]) -> tuple[list[Any], dict[str, list[Row]]]:
    """The development split's pairs, and (source, text, evidence, supported) rows of it and of
    each eval set."""
    from favakit.training.checker import data_files
    from favakit.training.pairs import prepare

    files = data_files(f"{real}/train/*.jsonl,{real}/train_spans/*.jsonl")
    dev = prepare(files, 0.05, hard_share=0.0).dev
    out = {"dev": [(f"dev:{p.source}", p.text, list(p.evidence), p.label) for p in dev]}
    for name in sets:
        rows = [json.loads(line) for line in (real / "eval" / f"{name}.jsonl").open()]
        out[name] = [(name, r["text"], r["evidence"], r["label"] == "supported") for r in rows]
    return dev, out


def cached_scores(checker: str, sets: dict[str, list[Row]], cache: Path) -> dict[str, list[float]]:
    """P(supported) of every row of every set by ``checker``, scored once and kept in ``cache``
    (a set is appended whole, so an interrupted run resumes at the set it was scoring)."""
    from favakit.inference.checker import Checker, checker_folder

    path = cache / f"{Path(checker).name}.jsonl"
    have: dict[str, list[float]] = {}
    if path.exists():
        for line in path.open():
            row = json.loads(line)
            have[row["set"]] = row["scores"]
    todo = [s for s in sets if len(have.get(s, [])) != len(sets[s])]
    if todo:
        model = Checker(checker_folder(checker))
        cache.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            for s in todo:
                rows = sets[s]
                scored = model.score([r[1] for r in rows], [r[2] for r in rows])
                have[s] = [round(p, 6) for p, _ in scored]
                f.write(json.dumps({"set": s, "scores": have[s]}) + "\n")
                f.flush()
                print(json.dumps({"scored": s, "checker": checker, "rows": len(rows)}), flush=True)
    return have


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--real", type=Path, required=True, help="../shared/data/real")
    ap.add_argument("--checkers", default="mpnet,checker", help="two checkers: FIRST,SECOND")
    ap.add_argument("--sets", default=",".join(TARGETS))
    ap.add_argument("--weights", default="0,0.1,0.2,0.3,0.4,0.5", help="weights of SECOND")
    ap.add_argument("--scores", type=Path, default=Path("runs/ensemble"), help="score cache")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    from favakit.training.checker import choose_threshold

    first, second = args.checkers.split(",")
    dev, sets = claim_sets(args.real, [s for s in args.sets.split(",") if s])
    a = cached_scores(first, sets, args.scores)
    b = cached_scores(second, sets, args.scores)
    results: list[dict[str, Any]] = [{"meta": {
        "date": str(date.today()), "machine": platform.machine(), "checkers": [first, second],
        "dev_rows": len(dev), "rule": "w and threshold by the development mean; eval sets only measure",
    }}]  # fmt: skip
    for w in (float(x) for x in args.weights.split(",")):
        # the combined P(supported): the weighted mean of the two logits, back through a sigmoid
        combined = {s: [sigmoid((1 - w) * logit(p) + w * logit(q))
                        for p, q in zip(a[s], b[s], strict=True)] for s in sets}  # fmt: skip
        t, mean = choose_threshold(dev, combined["dev"])  # as training chooses a checker's
        row: dict[str, Any] = {"weight": w, "threshold": t, "dev_mean": round(mean, 4)}
        for s in sets:
            if s == "dev":
                continue
            human = [r[3] for r in sets[s]]
            row[s] = {
                **agreement(human, [x > t for x in combined[s]]),
                "auc": auc(human, combined[s]),
            }
        targets = [row[s]["balanced_accuracy"] for s in TARGETS if s in row]
        if len(targets) == len(TARGETS):
            row["mean_of_four"] = round(sum(targets) / len(targets), 4)
        print(json.dumps(row), flush=True)
        results.append(row)
    best = max(results[1:], key=lambda r: r["dev_mean"])
    results.append({"chosen_by_dev": best["weight"], "dev_mean": best["dev_mean"],
                    "mean_of_four": best.get("mean_of_four")})  # fmt: skip
    print(json.dumps(results[-1]), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=1) + "\n")
    tmp.replace(args.out)


if __name__ == "__main__":
    main()
