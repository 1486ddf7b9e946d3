"""Measure reading dates with the month in full, on the development split (training data).

Beneath the checker's score (:mod:`favakit.inference.date_forms`), a date in a form the
checkers misread ("2001-03-03", "3 Mar 2001", "Mar. 3, 2001", "13/3/2001") is written with its
month in full, in the text and in the evidence, before the model reads them. This scores rows of
the development split (``scripts/llm_judge.py data``: carved from ``train/`` and
``train_spans/`` by source, never an eval set) with the checker reading them as written and
with the rule:

- ``verdicts``: every row whose text or evidence the rule rewrites, at the checker's verdict
  threshold: their labels and decisions both ways;
- ``redated``: claims made by rule from each development row's evidence: its first sentence
  holding a whole date with the month in full, that date written ISO ("2001-03-03") and
  abbreviated ("3 Mar 2001"), each a supported claim; and with the day moved by one in the same
  two forms, unsupported claims. The share of each the checker gets right, both ways;
- ``training_files`` (``--train-files``, no model): how often the rule rewrites a row of the
  training files (its text or its evidence), by label. Files of measuring-only sets are refused.

    python scripts/date_forms.py --rows runs/judge_data/dev_rows.jsonl --checker mpnet \\
        --train-files '../shared/data/real/train/*.jsonl,../shared/data/real/train_spans/*.jsonl' \\
        --out docs/results/date_forms_DATE.json
"""

from __future__ import annotations

import calendar
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from number_forms import right_both_ways
from year_rule import (
    decisions_moved,
    firings,
    rows_and_checker,
    rule_parser,
    scored_both_ways,
    write_report,
)


def rewrites(text: str, evidence: list[str]) -> bool:
    """Whether the rule reads ``text`` or any of ``evidence`` otherwise than as written."""
    from favakit.inference.date_forms import in_full

    return any(in_full(t)[1] for t in [text, *evidence])


def redated(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per development row, at most two supported and two unsupported claims (module doc)."""
    from favakit.inference.date_forms import calendar_dates
    from favakit.text import MONTHS, split_sentences

    out = []
    for row in rows:
        found = next(((s, d) for p in row["evidence"] for s in split_sentences(p)
                      for d in calendar_dates(s) if d.full_month and d.day), None)  # fmt: skip
        if not found:
            continue
        sentence, d = found
        last = calendar.monthrange(d.year, d.month)[1]
        moved = d.day + 1 if d.day < last else d.day - 1
        for day, label in ((d.day, "supported"), (moved, "not_supported")):
            short = MONTHS[d.month - 1][:3].capitalize()
            for written in (f"{d.year}-{d.month:02d}-{day:02d}", f"{day} {short} {d.year}"):
                text = sentence[: d.start] + written + sentence[d.end :]
                out.append({"id": row["id"], "source": row["source"], "text": text,
                            "evidence": row["evidence"], "label": label})  # fmt: skip
    return out


def main() -> None:
    args = rule_parser(__doc__, "rewrites").parse_args()

    from favakit.inference.checker import Checker

    rows, folder = rows_and_checker(args)
    checker = Checker(folder)
    started = time.time()
    report: dict[str, Any] = {"checker": checker.name, "rows": len(rows)}
    t = checker.threshold

    def changed(row: dict[str, Any]) -> bool:
        return rewrites(row["text"], row["evidence"])

    plain, read, hit = scored_both_ways(checker, "date_forms", rows, changed)
    report["verdicts"] = {"threshold": t, "rewritten": sum(hit),
                          "rewritten_rows": decisions_moved(rows, plain, read, hit, t)}  # fmt: skip
    print(json.dumps(report["verdicts"]), flush=True)

    made = redated(rows)
    cells = right_both_ways(made, *scored_both_ways(checker, "date_forms", made, changed), t)
    report["redated"] = {"rows": len({c["id"] for c in made}), "right": cells,
                         "examples": made[:4]}  # fmt: skip
    print(json.dumps({"redated": cells}), flush=True)

    if args.train_files:
        report["training_files"] = firings(args.train_files, rewrites)
        print(json.dumps(report["training_files"]), flush=True)

    write_report(report, started, args.out)


if __name__ == "__main__":
    main()
