"""Read FAVA's released training rows (``{"prompt", "completion"}``) into favakit's format.

Each row's prompt is taken apart (:func:`favakit.prompts.parse_prompt`) and rebuilt with
favakit's prompt builder; its completion goes through the tag grammar and is rendered
canonically. Rows whose tags do not parse strictly are reported (and, with ``lenient=True``,
repaired and kept, their repairs counted); rows whose completion does not reproduce the prompt's
text are reported and dropped.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from favakit.errors import UsageError
from favakit.prompts import build_prompt, parse_prompt
from favakit.records import (
    TrainExample,
    numbered_jsonl,
    refuse_folder_output,
    refuse_replacing_rows,
    write_jsonl_atomic,
)
from favakit.tags import ERROR_TYPES, TagParseError, parse, parse_lenient

__all__ = ["convert_fava_rows"]


def convert_fava_rows(
    source: str | Path, out: str | Path, template: str = "favakit", lenient: bool = False
) -> dict[str, Any]:
    """Convert a FAVA training JSONL file; returns counts and the first problems found."""
    refuse_folder_output(out, "fava_favakit.jsonl")  # before the rows are read, not after
    refuse_replacing_rows(out, TrainExample)
    kept: list[TrainExample] = []
    counts: Counter[str] = Counter()
    repairs: Counter[str] = Counter()
    problems: list[str] = []
    for i, row in numbered_jsonl(source):
        where = f"{source}:{i}"
        if not isinstance(row.get("prompt"), str) or not isinstance(row.get("completion"), str):
            counts["bad_row"] += 1
            problems.append(f"{where}: needs string 'prompt' and 'completion'")
            continue
        try:
            parsed = parse_prompt(row["prompt"])
        except ValueError as exc:
            counts["bad_prompt"] += 1
            problems.append(f"{where}: {exc}")
            continue
        completion = row["completion"].strip()
        try:
            tagged = parse(completion)
        except TagParseError as exc:
            counts["tag_error"] += 1
            problems.append(f"{where}: {str(exc).splitlines()[0]}")
            if not lenient:
                continue
            result = parse_lenient(completion)
            tagged = result.tagged
            repairs.update(result.counts())
        if tagged.original().split() != parsed.text.split():
            counts["text_mismatch"] += 1
            problems.append(f"{where}: the completion does not reproduce the prompt's text")
            continue
        prompt = build_prompt(
            tagged.original(), parsed.references, template=template, question=parsed.question
        )
        types = sorted({e.type for e in tagged.edits}, key=ERROR_TYPES.index)
        kept.append(
            TrainExample(str(row.get("id", f"fava-{i}")), prompt, tagged.render("edit"), types, "")
        )
        counts["kept"] += 1
    if not counts:
        raise UsageError(f"{source} holds no rows")
    if not kept:  # every row skipped: an empty training set is no result
        said = ", ".join(f"{k} x{n}" for k, n in counts.items())
        raise UsageError(f"none of the rows of {source} could be converted ({said}); the first: "
                         f"{problems[0]}")  # fmt: skip
    write_jsonl_atomic(out, kept)
    return {"counts": dict(counts), "repairs": dict(repairs), "problems": problems[:20]}
