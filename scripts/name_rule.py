"""Measure the name rule beneath the checker's score on the development split (training data).

The rule (:mod:`favakit.inference.name_check`) caps a text's P(supported) where the evidence
sentence that matches it names something else in the place of a name the evidence never gives
("to the Pacific Ocean" against "to the Atlantic Ocean"). This scores the development rows
(``scripts/llm_judge.py data``: carved from ``train/`` and ``train_spans/`` by source, never an
eval set) with the checker as it ships less the name rule, then applies the rule:

- ``verdicts``: every row at the checker's verdict threshold: how many rows the rule fires on,
  their labels and the model's decisions, and the mean per-source balanced accuracy without and
  with it;
- ``swapped_names``: every supported row whose text gives a name its evidence also gives, that
  name (the first one) swapped for a name from another row's evidence that this row's evidence
  never gives (a contradiction made by rule on real text, seeded); and the row as it stands. The
  share of the swapped claims rejected and of the rows as they stand kept, by the model alone
  and with the rule;
- ``gate`` (``--gate``): each row's sentences scored as the gate scores them, a row flagged when
  one sentence is at or under the gate threshold: left alone / flagged (per-source means);
- ``training_files`` (``--train-files``, no model): how often the rule fires on every row of
  the training files, by label, with the supported rows it fires on (what the rule's exceptions
  were chosen by). Files of measuring-only sets are refused.

    python scripts/name_rule.py --rows runs/judge_data/dev_rows.jsonl --checker mpnet --gate \
        --train-files '../shared/data/real/train/*.jsonl,../shared/data/real/train_spans/*.jsonl' \
        --out docs/results/name_rule_DATE.json
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from year_rule import (
    firings,
    gate_figures,
    made_claims,
    rows_and_checker,
    rule_parser,
    verdicts,
    write_report,
)


def supported_firings(files: str) -> list[dict[str, str]]:
    """The supported training rows the rule fires on: text, its name, the evidence's words."""
    import glob

    from favakit.inference.name_check import name_conflict
    from favakit.training.pairs import read_pairs

    out = []
    for pattern in files.split(","):
        for path in sorted(glob.glob(pattern.strip())):
            for pair in read_pairs(path):  # refuses eval/ and eval_spans/
                hit = name_conflict(pair.text, list(pair.evidence)) if pair.label else None
                if hit is not None:
                    out.append({"file": Path(path).name, "text": pair.text,
                                "name": hit.written, "evidence": hit.evidence_words})  # fmt: skip
    return out


def swapped_names(rows: list[dict[str, Any]], seed: int = 0) -> list[dict[str, Any]]:
    """Per supported row, its text with its first name that the evidence also gives swapped for
    another row's name (module doc)."""
    import random
    import re

    from favakit.inference.name_check import is_name, names_alike
    from favakit.text import undo_ptb

    def names(text: str) -> list[str]:
        words = re.findall(r"\w+(?:[-'.]\w+)*", text)
        return [w for k, w in enumerate(words) if is_name(w, k == 0) and len(w) > 3]

    bodies = [undo_ptb(e) for row in rows for e in row["evidence"]]
    lower = {w for b in bodies for w in re.findall(r"\w+", b) if w.islower()}
    # names only: words the evidence never writes in lower case ("Produced" is not one)
    pool = sorted({n for b in bodies for n in names(b) if n.lower() not in lower})
    rng = random.Random(f"names:{seed}")
    out = []
    for row in rows:
        if row["label"] != "supported":
            continue
        text = undo_ptb(row["text"])
        evidence = " ".join(undo_ptb(e) for e in row["evidence"])
        given = set(re.findall(r"\w+", evidence))
        found = [n for n in names(text) if n in given]
        if not found:
            continue
        for _ in range(50):
            other = rng.choice(pool)
            if other not in given and not names_alike(other, found[0]):
                break
        else:
            continue
        swapped = re.sub(rf"(?<!\w){re.escape(found[0])}(?!\w)", other, text)
        out.append({"id": row["id"], "text": text, "swapped": swapped,
                    "evidence": row["evidence"]})  # fmt: skip
    return out


def main() -> None:
    ap = rule_parser(__doc__, "firings")
    ap.add_argument("--gate", action="store_true", help="also the gate's figures (slower)")
    args = ap.parse_args()

    from favakit.inference.checker import Checker
    from favakit.inference.name_check import name_conflict

    def fires(text: str, evidence: list[str]) -> bool:
        return name_conflict(text, evidence) is not None

    rows, folder = rows_and_checker(args)
    checker = Checker(folder)
    checker.name_check = False  # the model and the number rules alone; the rule is applied below
    started = time.time()
    report: dict[str, Any] = {"checker": checker.name, "rows": len(rows)}
    report["verdicts"] = verdicts(checker, rows, fires)
    print(json.dumps(report["verdicts"]), flush=True)

    report["swapped_names"] = made_claims(checker, swapped_names(rows), "swapped", fires)
    print(json.dumps(report["swapped_names"]), flush=True)

    if args.gate:
        report["gate"] = gate_figures(folder, rows, "name_check", fires)
        print(json.dumps(report["gate"]), flush=True)

    if args.train_files:
        report["training_files"] = firings(args.train_files, fires)
        report["training_supported_fired"] = supported_firings(args.train_files)
        print(json.dumps(report["training_files"]), flush=True)

    write_report(report, started, args.out)


if __name__ == "__main__":
    main()
