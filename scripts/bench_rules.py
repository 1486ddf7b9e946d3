"""The rules beneath the checker: their time a claim, on ordinary rows and on evidence that reads
as one long sentence, at growing lengths.

The rules (a contradicted year, count, name, denial, condition, opposite or unseen name, and the
numbers read in the evidence's form) run on every claim a checker scores, beside the model's
pass. This times them as a checker call runs them (``Checker.conflict`` and
``Checker.reading_of`` within one :func:`favakit.text.remembering` block a call of
``--claims`` claims), with no model pass:

- ``ordinary``: the first ``--rows-each`` rows of each ``real/train`` file, as they are;
- ``unpunctuated N``: ``--claims`` claims of ``train/wice.jsonl``, each against its own evidence
  set among other rows' evidence to ``N`` words, with ``.``, ``!`` and ``?`` taken out (half of
  them lower-cased too), so that favakit's sentence splitter reads the evidence as one sentence,
  as it reads a speech transcript.

A rule that reads a sentence again for each of its numbers or denials costs time in proportion
to the square of its length; ``ms_a_claim_per_1000_words`` should stay about flat as ``N`` grows.
Only training files are read (their labels are not).

    python scripts/bench_rules.py --real ../shared/data/real --words 2000,6000,20000 \\
        --out docs/results/bench_rules_DATE.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import random
import time
from datetime import date
from pathlib import Path
from typing import Any


def unpunctuated(
    rows: list[dict[str, Any]], words: int, claims: int, seed: int
) -> list[dict[str, Any]]:
    """``claims`` rows, each with its evidence set among other rows' to ``words`` words, the
    sentence stops taken out (every other one lower-cased too)."""
    rng = random.Random(seed)
    out = []
    for k in range(claims):
        row = rows[(k * 7) % len(rows)]
        text = " ".join(row["evidence"])
        while len(text.split()) < words:
            text += " " + " ".join(rng.choice(rows)["evidence"])
        text = " ".join(text.translate(str.maketrans("", "", ".!?")).split()[:words])
        out.append({"text": row["text"], "evidence": [text.lower() if k % 2 else text]})
    return out


def time_rules(checker: Any, rows: list[dict[str, Any]], claims: int) -> dict[str, float]:
    """Milliseconds a claim for the rules on ``rows``, ``claims`` claims a call."""
    from favakit.text import remembering, undo_ptb

    start = time.perf_counter()
    found = 0
    for at in range(0, len(rows), claims):
        with remembering():
            for row in rows[at : at + claims]:
                checker.reading_of(undo_ptb(row["text"]), [undo_ptb(e) for e in row["evidence"]])
                found += checker.conflict(row["text"], row["evidence"]) is not None
    seconds = time.perf_counter() - start
    return {"rows": len(rows), "found": found, "ms_a_claim": round(1000 * seconds / len(rows), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, required=True, help="../shared/data/real")
    ap.add_argument("--checker", default="checker", help="whose rules (checker.json) are timed")
    ap.add_argument("--rows-each", type=int, default=500, help="ordinary rows of each train file")
    ap.add_argument("--words", default="2000,6000,20000", help="lengths of unpunctuated evidence")
    ap.add_argument("--claims", type=int, default=32, help="claims a call")
    ap.add_argument("--seed", type=int, default=66)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.inference.checker import Checker, checker_folder

    checker = Checker(checker_folder(args.checker))
    ordinary: list[dict[str, Any]] = []
    for path in sorted((args.real / "train").glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            ordinary += [json.loads(line) for line in itertools.islice(fh, args.rows_each)]
    wice = [
        json.loads(line) for line in (args.real / "train" / "wice.jsonl").open(encoding="utf-8")
    ]
    results = [{"set": "ordinary", **time_rules(checker, ordinary, args.claims)}]
    print(json.dumps(results[-1]), flush=True)
    for words in (int(w) for w in args.words.split(",") if w):
        got = time_rules(checker, unpunctuated(wice, words, args.claims, args.seed), args.claims)
        got["ms_a_claim_per_1000_words"] = round(got["ms_a_claim"] * 1000 / words, 2)
        results.append({"set": f"unpunctuated {words}", "words": words, **got})
        print(json.dumps(results[-1]), flush=True)
    meta = {"date": date.today().isoformat(), "machine": platform.processor() or platform.machine(),
            "checker": checker.name, "claims_a_call": args.claims}  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"meta": meta, "results": results}, indent=1) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
