"""Measure reading numbers as the evidence writes them, on the development split (training data).

Beneath the checker's score (:mod:`favakit.inference.number_forms`), a number of the text that the
evidence gives with the same value in another form ("$2000" / "$2,000", "1.5 million" /
"1,500,000") is read in the evidence's form. This scores rows of the development split
(``scripts/llm_judge.py data``: carved from ``train/`` and ``train_spans/`` by source, never an
eval set) with the checker reading the text as written and as the rule rewrites it:

- ``verdicts``: every row at the checker's verdict threshold: the rows rewritten, their labels
  and decisions, and the mean per-source balanced accuracy both ways;
- ``reformatted``: a claim made by rule from each development row's evidence: its first sentence
  holding a number of 1,000 or more (not a year) as it stands, with that number written another
  way (separators added or dropped; "X.Y million" where the value allows), a supported claim;
  and with the number's first digit changed and written another way, an unsupported one. The
  share of each the checker gets right, both ways;
- ``in_words``: the same with a number from 11 to 999 written in digits in the evidence,
  written in words in the claim ("23" -> "twenty-three"; one more, "twenty-four", for the
  unsupported claim);
- ``training_files`` (``--train-files``, no model): how often the rule rewrites a row of the
  training files, by label. Files of measuring-only sets are refused.

    python scripts/number_forms.py --rows runs/judge_data/dev_rows.jsonl --checker mpnet \
        --train-files '../shared/data/real/train/*.jsonl,../shared/data/real/train_spans/*.jsonl' \
        --out docs/results/number_forms_DATE.json
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from year_rule import (
    decisions_moved,
    firings,
    per_source,
    rows_and_checker,
    rule_parser,
    scored_both_ways,
    write_report,
)

_SCALES = ((Decimal(10**9), "billion"), (Decimal(10**6), "million"))


def other_forms(written: str, value: Decimal) -> list[str]:
    """Ways to write ``value`` other than ``written``: digits with separators, without, and with
    a scale word where one or two decimals hold it exactly."""
    forms = []
    if value == value.to_integral_value():
        whole = int(value)
        forms += [f"{whole:,}", str(whole)]
    for size, word in _SCALES:
        scaled = value / size
        if scaled >= 1 and scaled == scaled.quantize(Decimal("0.01")):
            forms.append(f"{scaled.normalize():f} {word}")
            break
    plain = " ".join(written.split()).lower()
    return [f for f in dict.fromkeys(forms) if f.lower() != plain]


def reformatted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per development row, at most one supported and one unsupported claim (module doc)."""
    from favakit.inference.number_forms import quantities
    from favakit.text import split_sentences

    out = []
    for row in rows:
        found = None
        for passage in row["evidence"]:
            for sentence in split_sentences(passage):
                for q in quantities(sentence):
                    plain_year = q.written.isdigit() and 1000 <= q.value < 2100
                    if q.value >= 1000 and not plain_year and other_forms(q.written, q.value):
                        found = (sentence, q)
                        break
                if found:
                    break
            if found:
                break
        if not found:
            continue
        sentence, q = found
        form = other_forms(q.written, q.value)[0]
        digits = q.written.lstrip("$")
        changed_first = str((int(digits[0]) % 9) + 1)  # 1..9, never the same digit
        wrong_value = q.value * Decimal(changed_first) / Decimal(digits[0])
        wrong = other_forms(q.written, wrong_value)
        claims = [(form, "supported")]
        if wrong:
            claims.append((wrong[0], "not_supported"))
        for written, label in claims:
            text = sentence[: q.start] + written + sentence[q.end :]
            out.append({"id": row["id"], "source": row["source"], "text": text,
                        "evidence": row["evidence"], "label": label})  # fmt: skip
    return out


def worded(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per development row, at most one supported and one unsupported claim with a number
    written in words (module doc)."""
    from favakit.inference.number_forms import quantities
    from favakit.inference.number_words import in_words
    from favakit.text import split_sentences

    out = []
    for row in rows:
        found = next(((s, q) for p in row["evidence"] for s in split_sentences(p)
                      for q in quantities(s) if q.written.isdigit() and 11 <= q.value <= 998),
                     None)  # fmt: skip
        if not found:
            continue
        sentence, q = found
        for n, label in ((int(q.value), "supported"), (int(q.value) + 1, "not_supported")):
            text = sentence[: q.start] + in_words(n) + sentence[q.end :]
            out.append({"id": row["id"], "source": row["source"], "text": text,
                        "evidence": row["evidence"], "label": label})  # fmt: skip
    return out


def right_both_ways(
    made: list[dict[str, Any]], plain: list[float], read: list[float], hit: list[bool], t: float
) -> dict[str, dict[str, int]]:
    """Per label, the claims, how many the rule rewrote, and how many the checker gets right
    as written and with the evidence's forms."""
    cells: dict[str, dict[str, int]] = defaultdict(
        lambda: {"claims": 0, "as_written": 0, "evidence_forms": 0, "rewritten": 0}
    )
    for claim, a, b, h in zip(made, plain, read, hit, strict=True):
        cell = cells[claim["label"]]
        cell["claims"] += 1
        cell["rewritten"] += h
        cell["as_written"] += (a > t) == (claim["label"] == "supported")
        cell["evidence_forms"] += (b > t) == (claim["label"] == "supported")
    return dict(cells)


def main() -> None:
    args = rule_parser(__doc__, "rewrites").parse_args()

    from favakit.inference.checker import Checker

    rows, folder = rows_and_checker(args)
    checker = Checker(folder)
    started = time.time()
    report: dict[str, Any] = {"checker": checker.name, "rows": len(rows)}
    t = checker.threshold

    def both_ways(items: list[dict[str, Any]]) -> tuple[list[float], list[float], list[bool]]:
        return scored_both_ways(checker, "number_forms", items)

    plain, read, hit = both_ways(rows)
    report["verdicts"] = {
        "threshold": t,
        "rewritten": sum(hit),
        "rewritten_rows": decisions_moved(rows, plain, read, hit, t),
        "as_written": per_source(rows, lambda i: plain[i] > t),
        "evidence_forms": per_source(rows, lambda i: read[i] > t),
    }
    print(json.dumps(report["verdicts"]), flush=True)

    for name, make in (("reformatted", reformatted), ("in_words", worded)):
        made = make(rows)
        cells = right_both_ways(made, *both_ways(made), t)
        report[name] = {"rows": len({c["id"] for c in made}), "right": cells,
                        "examples": made[:6]}  # fmt: skip
        print(json.dumps({name: cells}), flush=True)

    if args.train_files:
        from favakit.inference.number_forms import evidence_forms

        def rewrites(text: str, evidence: list[str]) -> bool:
            return bool(evidence_forms(text, evidence)[1])

        report["training_files"] = firings(args.train_files, rewrites)
        print(json.dumps(report["training_files"]), flush=True)

    write_report(report, started, args.out)


if __name__ == "__main__":
    main()
