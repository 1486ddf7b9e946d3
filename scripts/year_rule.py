"""Measure the year rule beneath the checker's score on the development split (training data).

The rule (:mod:`favakit.inference.year_check`) caps a text's P(supported) where the evidence
sentence that matches it gives another year. This scores the development rows
(``scripts/llm_judge.py data``: carved from ``train/`` and ``train_spans/`` by source, never an
eval set) with the checker's model alone, then applies the rule, three ways:

- ``verdicts``: every row at the checker's verdict threshold: how many rows the rule fires on,
  their labels and the model's decisions, and the mean per-source balanced accuracy without and
  with it;
- ``moved_years``: every supported row whose text gives a year its evidence also gives, that year
  moved by each of ``--moves`` (a contradiction made by rule on real text): the share rejected
  by the model alone and with the rule;
- ``gate`` (``--gate``): each row's sentences scored as the gate scores them, a row flagged when
  one sentence is at or under the gate threshold: left alone / flagged (per-source means);
- ``training_files`` (``--train-files``, no model): how often the rule fires on every row of
  the training files, by label (what :func:`~favakit.inference.year_check.exact_years`' forms
  were chosen by). Files of measuring-only sets are refused.

    python scripts/year_rule.py --rows runs/judge_data/dev_rows.jsonl --checker mpnet --gate \
        --train-files '../shared/data/real/train/*.jsonl,../shared/data/real/train_spans/*.jsonl' \
        --out docs/results/year_rule_DATE.json
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_gate import scored_sentences


def per_source(rows: list[dict[str, Any]], keep: Callable[[int], bool]) -> dict[str, float]:
    """Per-source means of the share of supported rows kept (``keep``) and of unsupported rows
    not kept, and their mean (the balanced accuracy), over sources with both labels."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        groups[row["source"]].append(i)
    kept, rejected = [], []
    for idx in groups.values():
        pos = [i for i in idx if rows[i]["label"] == "supported"]
        neg = [i for i in idx if rows[i]["label"] != "supported"]
        if pos and neg:
            kept.append(sum(keep(i) for i in pos) / len(pos))
            rejected.append(sum(not keep(i) for i in neg) / len(neg))
    la, fl = sum(kept) / len(kept), sum(rejected) / len(rejected)
    return {"supported_kept": round(la, 4), "unsupported_rejected": round(fl, 4),
            "balanced_accuracy": round((la + fl) / 2, 4)}  # fmt: skip


def moved_years(rows: list[dict[str, Any]], moves: list[int]) -> list[dict[str, Any]]:
    """Each supported row's text with its first year that the evidence also gives moved by each
    of ``moves`` (every occurrence of it in the text)."""
    from favakit.inference.year_check import numbers_in, year_spans, years_in

    out = []
    for row in rows:
        if row["label"] != "supported":
            continue
        given = {n for e in row["evidence"] for n in numbers_in(e)}
        years = [y for y in years_in(row["text"]) if y in given]
        if not years:
            continue
        for move in moves:
            new = str(int(years[0]) + move)
            text = row["text"]
            for start, end in reversed(year_spans(text, years[0])):
                text = text[:start] + new + text[end:]
            out.append({"id": row["id"], "move": move, "text": text, "evidence": row["evidence"]})
    return out


def firings(
    files: str, fires: Callable[[str, list[str]], bool] | None = None
) -> dict[str, dict[str, int]]:
    """Per training file, the rows a rule fires on (``fires(text, evidence)``; the year rule by
    default), by label (no model)."""
    import glob

    from favakit.inference.year_check import year_conflict
    from favakit.training.pairs import read_pairs

    def year_rule(text: str, evidence: list[str]) -> bool:
        return year_conflict(text, evidence) is not None

    out: dict[str, dict[str, int]] = {}
    for pattern in files.split(","):
        for path in sorted(glob.glob(pattern.strip())):
            pairs = read_pairs(path)  # refuses eval/ and eval_spans/
            hits = [p for p in pairs if (fires or year_rule)(p.text, list(p.evidence))]
            out[Path(path).name] = {"rows": len(pairs),
                                    "supported": sum(p.label for p in hits),
                                    "not_supported": sum(not p.label for p in hits)}  # fmt: skip
    return out


def verdicts(
    checker: Any, rows: list[dict[str, Any]], fires: Callable[[str, list[str]], bool]
) -> dict[str, Any]:
    """Every row at ``checker``'s verdict threshold (the rule off in ``checker``): the rows the
    rule fires on, by label and the model's decision, and the mean per-source balanced accuracy
    of the model alone and with the rule."""
    t = checker.threshold
    scores = [p for p, _ in checker.score([r["text"] for r in rows], [r["evidence"] for r in rows])]
    fired = [fires(r["text"], r["evidence"]) for r in rows]
    fired_rows: dict[str, int] = defaultdict(int)
    for row, p, hit in zip(rows, scores, fired, strict=True):
        if hit:
            fired_rows[f"{row['label']}, model {'supported' if p > t else 'not_supported'}"] += 1
    return {
        "threshold": t,
        "fired": sum(fired),
        "fired_rows": dict(fired_rows),
        "model_alone": per_source(rows, lambda i: scores[i] > t),
        "with_rule": per_source(rows, lambda i: scores[i] > t and not fired[i]),
    }


def made_claims(
    checker: Any, claims: list[dict[str, Any]], changed: str,
    fires: Callable[[str, list[str]], bool],
) -> dict[str, Any]:  # fmt: skip
    """Claims made by rule from supported rows (``text`` as it stands, ``changed`` its field
    changed to be unsupported): how many changed claims are rejected and how many as they stand
    kept, by the model alone (the rule off in ``checker``) and with the rule."""
    t = checker.threshold
    as_is = checker.score([c["text"] for c in claims], [c["evidence"] for c in claims])
    made = checker.score([c[changed] for c in claims], [c["evidence"] for c in claims])
    rule_kept = [not fires(c["text"], c["evidence"]) for c in claims]
    rule_caught = [fires(c[changed], c["evidence"]) for c in claims]
    return {
        "claims": len(claims),
        f"{changed}_rejected": {
            "model": sum(p <= t for p, _ in made),
            "with_rule": sum(p <= t or hit for (p, _), hit in zip(made, rule_caught, strict=True)),
        },
        "as_is_kept": {
            "model": sum(p > t for p, _ in as_is),
            "with_rule": sum(p > t and ok for (p, _), ok in zip(as_is, rule_kept, strict=True)),
        },
        "examples": [{"text": c["text"], changed: c[changed]} for c in claims[:8]],
    }


def gate_figures(
    folder: str, rows: list[dict[str, Any]], rule_off: str,
    fires: Callable[[str, list[str]], bool],
) -> dict[str, Any]:  # fmt: skip
    """Each row's sentences scored as the gate scores them (the checker's ``rule_off`` attribute
    set False), a row flagged when one sentence is at or under the gate threshold: left alone /
    flagged (per-source means), by the model alone and with the rule applied to each sentence."""
    from favakit.inference.checker import Checker

    gate = Checker(folder, role="gate")
    setattr(gate, rule_off, False)
    g = gate.gate_threshold
    per_row = scored_sentences(gate, rows)
    model_flags = [any(p <= g for p in ps) for _, ps in per_row]
    rule_flags = [
        any(p <= g or fires(row["text"][a:b], row["evidence"])
            for (a, b), p in zip(spans, ps, strict=True))
        for row, (spans, ps) in zip(rows, per_row, strict=True)
    ]  # fmt: skip
    return {
        "threshold": g,
        "model_alone": per_source(rows, lambda i: not model_flags[i]),
        "with_rule": per_source(rows, lambda i: not rule_flags[i]),
    }


def scored_both_ways(
    checker: Any, flag: str, items: list[dict[str, Any]],
    changed: Callable[[dict[str, Any]], bool] | None = None,
) -> tuple[list[float], list[float], list[bool]]:  # fmt: skip
    """Each row's score with the checker's reading ``flag`` (``number_forms``, ``date_forms``)
    off and on, and whether the reading changed the row: ``changed(row)`` where given (a reading
    that may change the evidence too), else whether it rewrote the text (``Checked.forms``).
    Rows it did not change are scored once. The flag is left on."""
    texts, evidence = [r["text"] for r in items], [r["evidence"] for r in items]
    setattr(checker, flag, True)
    checked = checker.checked_scores(texts, evidence)
    hit = [changed(r) for r in items] if changed else [bool(c.forms) for c in checked]
    setattr(checker, flag, False)
    again = [i for i, h in enumerate(hit) if h]  # the other rows read the same either way
    plain = [c.score for c in checked]
    for i, c in zip(again, checker.checked_scores(
            [texts[i] for i in again], [evidence[i] for i in again]), strict=True):  # fmt: skip
        plain[i] = c.score
    setattr(checker, flag, True)
    return plain, [c.score for c in checked], hit


def decisions_moved(
    rows: list[dict[str, Any]], before: list[float], after: list[float], hit: list[bool], t: float
) -> dict[str, int]:
    """Of the rows a reading changed (``hit``), how many of each label went from which decision
    (score over ``t``) ``before`` to which ``after`` ("not_supported: not -> supported")."""
    moved: dict[str, int] = defaultdict(int)
    for row, a, b, h in zip(rows, before, after, hit, strict=True):
        if h:
            moved[f"{row['label']}: {'supported' if a > t else 'not'} -> "
                  f"{'supported' if b > t else 'not'}"] += 1  # fmt: skip
    return dict(moved)


def write_report(report: dict[str, Any], started: float, out: Path) -> None:
    """``report`` with its seconds, machine and date, written to ``out`` as JSON."""
    report["seconds"] = round(time.time() - started, 1)
    report["machine"] = f"{platform.machine()}, {platform.processor() or 'cpu'}"
    report["date"] = date.today().isoformat()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")


def rule_parser(doc: str, what: str) -> argparse.ArgumentParser:
    """The options every rule script takes: ``--rows``, ``--checker``, ``--train-files`` (the
    rule's ``what`` on every training row), ``--out``."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument(
        "--rows", type=Path, required=True, help="development rows (scripts/llm_judge.py data)"
    )
    ap.add_argument("--checker", default="auto", help="a shipped checker's name or a folder")
    ap.add_argument("--train-files", default="", help="comma-separated files or globs: the rule's "
                    f"{what} on every row, by label (no model)")  # fmt: skip
    ap.add_argument("--out", type=Path, required=True)
    return ap


def rows_and_checker(args: argparse.Namespace) -> tuple[list[dict[str, Any]], str]:
    """The development rows ``--rows`` names and the folder of the checker ``--checker`` names."""
    from favakit.inference.checker import auto_checker, checker_folder

    rows = [json.loads(line) for line in args.rows.read_text().splitlines() if line.strip()]
    return rows, checker_folder(auto_checker() if args.checker == "auto" else args.checker)


def main() -> None:
    ap = rule_parser(__doc__, "firings")
    ap.add_argument("--moves", default="-10,-1,1,10", help="years added to a supported text's year")
    ap.add_argument("--gate", action="store_true", help="also the gate's figures (slower)")
    args = ap.parse_args()

    from favakit.inference.checker import Checker
    from favakit.inference.year_check import CONFLICT_SCORE, year_conflict

    rows, folder = rows_and_checker(args)
    checker = Checker(folder)
    checker.year_check = False  # the model alone; the rule is applied below
    started = time.time()
    report: dict[str, Any] = {"checker": checker.name, "rows": len(rows), "cap": CONFLICT_SCORE}

    def year_rule(text: str, evidence: list[str]) -> bool:
        return year_conflict(text, evidence) is not None

    t = checker.threshold
    report["verdicts"] = verdicts(checker, rows, year_rule)
    print(json.dumps(report["verdicts"]), flush=True)

    moved = moved_years(rows, [int(m) for m in args.moves.split(",")])
    got = [p for p, _ in checker.score([m["text"] for m in moved], [m["evidence"] for m in moved])]
    by_move: dict[int, dict[str, int]] = defaultdict(
        lambda: {"claims": 0, "model": 0, "with_rule": 0}
    )
    for m, p in zip(moved, got, strict=True):
        caught = p <= t
        cell = by_move[m["move"]]
        cell["claims"] += 1
        cell["model"] += caught
        cell["with_rule"] += caught or year_conflict(m["text"], m["evidence"]) is not None
    report["moved_years"] = {"rows": len({m["id"] for m in moved}),
                             "rejected": {str(k): v for k, v in sorted(by_move.items())}}  # fmt: skip
    print(json.dumps(report["moved_years"]), flush=True)

    if args.gate:
        report["gate"] = gate_figures(folder, rows, "year_check", year_rule)
        print(json.dumps(report["gate"]), flush=True)

    if args.train_files:
        report["training_files"] = firings(args.train_files)
        print(json.dumps(report["training_files"]), flush=True)

    write_report(report, started, args.out)


if __name__ == "__main__":
    main()
