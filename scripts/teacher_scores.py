"""A checker's scores for the training pairs, for distilling it into a smaller one
(``notes.teacher_scores`` of ``favakit train --config minilm_checker``; docs/checker.md).

    python scripts/teacher_scores.py --checker runs/ablation/mpnet_both/model \
        --data '../shared/data/real/train/*.jsonl,../shared/data/real/train_spans/*.jsonl,runs/synth/claims/train.jsonl' \
        --out runs/teacher_scores.jsonl

The pairs are the training side of the same preparation training does (the same seed,
development fraction and hard-negative share; no source weights, so every pair a student might
see is scored): one ``{"key", "score"}`` row each. Development pairs are left out, so a student's
development figures stay its own. Measuring-only sets are refused as in training.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checker", required=True, help="the teacher: a checker folder")
    ap.add_argument("--data", required=True, help="training files, as data.train_file")
    ap.add_argument("--dev-fraction", type=float, default=0.05, help="as data.validation_fraction")
    ap.add_argument("--hard-negatives", type=float, default=0.3, help="as data.hard_negatives")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.inference.checker import Checker
    from favakit.training.checker import data_files
    from favakit.training.pairs import pair_key, prepare

    data = prepare(data_files(args.data), args.dev_fraction, {}, args.hard_negatives, args.seed)
    checker = Checker(args.checker, batch_size=args.batch_size)
    t0 = time.perf_counter()
    scores = checker.score([p.text for p in data.train], [p.evidence for p in data.train])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for pair, (score, _) in zip(data.train, scores, strict=True):
            f.write(json.dumps({"key": pair_key(pair), "score": round(score, 5)}) + "\n")
    print(json.dumps({"pairs": len(data.train), "seconds": round(time.perf_counter() - t0, 1),
                      "teacher": checker.name, "out": str(args.out)}))  # fmt: skip


if __name__ == "__main__":
    main()
