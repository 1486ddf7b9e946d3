"""``favakit eval detect`` and ``favakit eval factscore`` (light at import time)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from favakit.errors import UsageError

__all__ = ["configure"]


def _rows(path: str) -> list[tuple[str | None, dict[str, Any], str]]:
    from favakit.records import numbered_jsonl

    out = []
    for lineno, row in numbered_jsonl(path):
        rid = row.get("id")
        out.append((None if rid is None else str(rid), row, f"{path}:{lineno}"))
    if not out:
        raise UsageError(f"{path} has no rows")
    return out


def _detect(args: argparse.Namespace) -> int:
    from favakit.eval.detect import annotated_from_row, detection_report, markdown_table

    gold, pred = _rows(args.gold), _rows(args.pred)
    by_id = all(i is not None for i, _, _ in gold) and all(i is not None for i, _, _ in pred)
    if by_id:
        preds = {i: (row, where) for i, row, where in pred}
        pairs_raw = []
        for i, row, where in gold:
            if i not in preds:
                raise UsageError(f"{where}: no prediction for id {i!r} in {args.pred}")
            pairs_raw.append((row, where, *preds[i]))
    else:
        if len(gold) != len(pred):
            raise UsageError(
                f"{args.gold} has {len(gold)} rows and {args.pred} {len(pred)}; without ids on "
                "both sides rows are matched by line, so the counts must be equal"
            )
        pairs_raw = [(g[1], g[2], p[1], p[2]) for g, p in zip(gold, pred, strict=True)]
    pairs = [(annotated_from_row(g, gw), annotated_from_row(p, pw)) for g, gw, p, pw in pairs_raw]
    report = detection_report(pairs)
    tables = [markdown_table(report)]
    if args.by:
        groups: dict[str, list[Any]] = {}
        for (g_row, _, _, _), pair in zip(pairs_raw, pairs, strict=True):
            groups.setdefault(str(g_row.get(args.by, "")), []).append(pair)
        report["by"] = {name: detection_report(items) for name, items in sorted(groups.items())}
        tables += [markdown_table(r, f"{args.by} = {n}") for n, r in report["by"].items()]
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")
        out.with_suffix(".md").write_text("\n".join(tables))
        print(f"wrote {out} and {out.with_suffix('.md')}", file=sys.stderr)
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="eval_command", required=True, metavar="COMMAND")
    d = sub.add_parser(
        "detect",
        help="detection P/R/F1 per error type (sentence and span level)",
        description="Gold rows: FAVABench {prompt, output, annotated, model}, or favakit/FAVA "
        "rows {prompt, completion}. Predictions: `favakit edit` output. Matched by id when both "
        "sides have ids, else by line.",
    )
    d.add_argument("--gold", required=True)
    d.add_argument("--pred", required=True)
    d.add_argument("--by", default=None, help="also report per value of this gold field (model)")
    d.add_argument("--out", default=None, help="write the JSON here and a Markdown table as .md")
    d.set_defaults(func=_detect)
