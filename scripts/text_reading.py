"""Choose how a checker's verdicts read a text of several sentences, on the development split.

``text_reading`` in ``checker.json`` (:mod:`favakit.inference.checker`): ``whole`` reads the
text in one pass, as the checkers were trained on single claims; ``sentences`` scores each
sentence against the evidence and the text by its least supported sentence. This compares the
two on development rows (``scripts/llm_judge.py data``: carved from ``train/`` and
``train_spans/`` by source, never an eval set), at the checker's verdict threshold:

- ``several_sentences``: the development rows whose text has more than one sentence (SummEdits'
  summaries, BEGIN's replies): mean per-source balanced accuracy, and ROC AUC over the rows;
- ``joined``: texts joined from 2-3 single-claim rows of one source, their evidence pooled and
  shuffled (seeded); half all supported, half with exactly one unsupported claim among supported
  ones, the case a one-pass reading can miss; supported only when every claim is.

    python scripts/text_reading.py --rows runs/judge_data/dev_rows.jsonl --checker mpnet \
        --out docs/results/text_reading_mpnet_DATE.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_verify import auc
from year_rule import per_source

#: Sources of single claims that joined texts are made of (one sentence a row).
CLAIM_SOURCES = ("fever", "fever_symmetric", "fm2", "snli", "wice")


def joined_texts(
    rows: list[dict[str, Any]], per_source_cap: int, seed: int
) -> list[dict[str, Any]]:
    """Texts of 2-3 claims of one source, their evidence pooled and shuffled: alternately all
    supported and one unsupported claim among supported ones."""
    rng = random.Random(seed)
    pools: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row["source"] in CLAIM_SOURCES and row["text"].strip()[-1:] in ".!?":
            pools[row["source"]][row["label"]].append(row)
    out = []
    for source in sorted(pools):
        good, bad = pools[source]["supported"][:], pools[source]["not_supported"][:]
        rng.shuffle(good)
        rng.shuffle(bad)
        for n in range(per_source_cap):
            size, wrong = 2 + n % 2, n % 4 >= 2
            if len(good) < size - wrong or (wrong and not bad):
                break
            part = [good.pop() for _ in range(size - wrong)] + ([bad.pop()] if wrong else [])
            rng.shuffle(part)
            evidence = [e for r in part for e in r["evidence"]]
            rng.shuffle(evidence)
            out.append({"id": f"{source}-joined-{n}", "source": source, "evidence": evidence,
                        "text": " ".join(r["text"].strip() for r in part),
                        "label": "not_supported" if wrong else "supported"})  # fmt: skip
    return out


def _above(scores: list[float], threshold: float) -> Callable[[int], bool]:
    """Whether row ``i``'s score is above ``threshold``."""
    return lambda i: scores[i] > threshold


def compare(checker: Any, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Both readings of ``rows`` at the checker's verdict threshold."""
    out: dict[str, Any] = {"rows": len(rows)}
    labels = [r["label"] == "supported" for r in rows]
    for reading in ("whole", "sentences"):
        checker.text_reading = reading
        start = time.time()
        scores = [
            p for p, _ in checker.score([r["text"] for r in rows], [r["evidence"] for r in rows])
        ]
        out[reading] = {**per_source(rows, _above(scores, checker.threshold)),
                        "auc": auc(labels, list(scores)), "seconds": round(time.time() - start, 1)}  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=Path, required=True, help="runs/judge_data/dev_rows.jsonl")
    ap.add_argument("--checker", default="mpnet", help="checker name or folder")
    ap.add_argument("--per-source", type=int, default=120, help="joined texts a source, at most")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.inference.checker import Checker, checker_folder
    from favakit.inference.evidence_reading import text_units
    from favakit.training.pairs import refuse_measuring_set

    refuse_measuring_set(args.rows)
    rows = [json.loads(line) for line in args.rows.open(encoding="utf-8")]
    checker = Checker(checker_folder(args.checker))
    several = [r for r in rows if len(text_units(r["text"])) > 1]
    report = {
        "meta": {"date": date.today().isoformat(), "checker": checker.name, "rows": str(args.rows),
                 "threshold": checker.threshold, "stored_text_reading": checker.text_reading},
        "several_sentences": compare(checker, several),
        "joined": compare(checker, joined_texts(rows, args.per_source, args.seed)),
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
