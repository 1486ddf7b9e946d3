"""Measure the count rule beneath the checker's score on the development split (training data).

The rule (:mod:`favakit.inference.count_check`) caps a text's P(supported) where the evidence
sentence that matches it gives another number counting the same word ("24 players" against "23
players", "the 17th president" against "the 16th"). This scores the development rows
(``scripts/llm_judge.py data``: carved from ``train/`` and ``train_spans/`` by source, never an
eval set) with the checker as it ships less the count rule, then applies the rule:

- ``verdicts``: every row at the checker's verdict threshold: how many rows the rule fires on,
  their labels and the model's decisions, and the mean per-source balanced accuracy without and
  with it;
- ``changed_counts``: every supported row whose text gives a count its evidence also gives, that
  count moved by one in the form it is written ("23" -> "24", "16th" -> "17th", "three" ->
  "four"), a contradiction made by rule on real text; and the row as it stands. The share of
  the moved claims rejected and of the rows as they stand kept, by the model alone and with the
  rule;
- ``training_files`` (``--train-files``, no model): how often the rule fires on every row of
  the training files, by label. Files of measuring-only sets are refused.

    python scripts/count_rule.py --rows runs/judge_data/dev_rows.jsonl --checker mpnet \
        --train-files '../shared/data/real/train/*.jsonl,../shared/data/real/train_spans/*.jsonl' \
        --out docs/results/count_rule_DATE.json
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from year_rule import firings, made_claims, rows_and_checker, rule_parser, verdicts, write_report


def moved(written: str) -> str | None:
    """``written`` (digits, a digit ordinal, or a number word up to eighteen) one more, in the
    same form; None for other forms."""
    from favakit.inference.number_words import ORDINAL_UNITS, UNITS

    plain = written.replace(",", "")
    if plain.isdigit():
        return str(int(plain) + 1)
    if plain[:-2].isdigit() and plain[-2:].lower() in {"st", "nd", "rd", "th"}:
        n = int(plain[:-2]) + 1
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{n}{suffix}"
    for table in (UNITS, ORDINAL_UNITS):
        if written.lower() in table[:-1]:
            word = table[table.index(written.lower()) + 1]
            return word.capitalize() if written[0].isupper() else word
    return None


def changed_counts(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per supported row, its text with the first count its evidence also gives moved by one
    (module doc)."""
    from favakit.inference.count_check import counts, values_in
    from favakit.text import split_sentences, undo_ptb

    out = []
    for row in rows:
        if row["label"] != "supported":
            continue
        text = undo_ptb(row["text"])
        given = {v for e in row["evidence"] for v in values_in(undo_ptb(e))}
        found = [c for s in split_sentences(text) for c in counts(s) if c.value in given]
        new = moved(found[0].written) if found else None
        if not new or text.count(found[0].written) != 1:
            continue
        moved_text = text.replace(found[0].written, new)
        out.append({"id": row["id"], "source": row["source"], "text": text,
                    "moved": moved_text, "evidence": row["evidence"]})  # fmt: skip
    return out


def main() -> None:
    args = rule_parser(__doc__, "firings").parse_args()

    from favakit.inference.checker import Checker
    from favakit.inference.count_check import count_conflict

    def fires(text: str, evidence: list[str]) -> bool:
        return count_conflict(text, evidence) is not None

    rows, folder = rows_and_checker(args)
    checker = Checker(folder)
    checker.count_check = False  # the model (and the year rule) alone; the rule is applied below
    started = time.time()
    report: dict[str, Any] = {"checker": checker.name, "rows": len(rows)}
    report["verdicts"] = verdicts(checker, rows, fires)
    print(json.dumps(report["verdicts"]), flush=True)

    report["changed_counts"] = made_claims(checker, changed_counts(rows), "moved", fires)
    print(json.dumps(report["changed_counts"]), flush=True)

    if args.train_files:
        report["training_files"] = firings(args.train_files, fires)
        print(json.dumps(report["training_files"]), flush=True)

    write_report(report, started, args.out)


if __name__ == "__main__":
    main()
