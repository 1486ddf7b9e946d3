"""Detection metrics for hallucination editors (pure Python: the base install runs them).

Three views of the same gold and predicted edits, each per error type:

- **sentence level**, FAVA's protocol done by character spans: the original text is split into
  sentences, and a sentence has type *t* (in gold or prediction) when an edit of type *t*
  overlaps it. Precision, recall and F1 per type over sentences, their macro average over the
  six types, and binary scores for "the sentence has any error". FAVA's own script assigns
  sentences by index after truncating lists; here the spans decide.
- **span level** (RAGTruth-style): characters of predicted spans that overlap gold spans of the
  same type, over all predicted characters (precision) and all gold characters (recall).
- **edit accuracy**: for predicted entity and relation spans that overlap a gold span of the
  same type, the share whose replacement equals the gold one (case and spacing ignored).

Division by zero counts as 0 (a type nobody predicted has precision 0); supports and counts
are reported next to every figure so such cases are visible.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from favakit.align import offset_map
from favakit.errors import UsageError
from favakit.tags import ERROR_TYPES, parse_lenient
from favakit.text import sentence_spans

__all__ = [
    "Annotated",
    "annotated_from_row",
    "detect_files",
    "detection_report",
    "markdown_table",
    "prf",
]


@dataclass
class Annotated:
    """A text and its edits as ``(type, start, end, right)`` spans into ``text``."""

    text: str
    edits: list[tuple[str, int, int, str]] = field(default_factory=list)
    group: str = ""  # e.g. the model that wrote the text (FAVABench's "model")


def annotated_from_row(row: Mapping[str, Any], where: str = "") -> Annotated:
    """Read gold or predicted edits from any of the row shapes favakit meets:

    - ``favakit edit`` results: ``{"original", "edits": [{"type","start","end","right"}]}``;
    - FAVABench rows ``{"prompt","output","annotated","model"}`` (``annotated`` in the edit view);
    - favakit and FAVA training/validation rows ``{"prompt","completion"}``;
    - a tagged text in ``"tagged"`` or ``"output"``.
    """
    at = f"{where}: " if where else ""
    group = str(row.get("model") or "")
    if "original" in row and isinstance(row.get("edits"), list):
        text = row["original"]
        if not isinstance(text, str):
            raise UsageError(f"{at}'original' must be a string, not {type(text).__name__}")
        edits = []
        for e in row["edits"]:
            try:
                start, end = int(e["start"]), int(e["end"])
                edits.append((str(e["type"]), start, end, str(e.get("right", ""))))
            except (KeyError, TypeError, ValueError):
                raise UsageError(f"{at}an edit needs type, start and end: {e!r:.120}") from None
            if not 0 <= start <= end <= len(text):
                raise UsageError(f"{at}edit span {start}:{end} is outside the text")
        return Annotated(str(text), edits, group)
    for key in ("annotated", "completion", "tagged", "output"):
        value = row.get(key)
        if isinstance(value, str):
            tagged = parse_lenient(value).tagged
            spans = [(s.type, s.start, s.end, s.right) for s in tagged.spans()]
            return Annotated(tagged.original(), spans, group)
    raise UsageError(
        f"{at}expected an edit result (original, edits), a FAVABench row (annotated) or a "
        "training row (completion)"
    )


def prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def _mapper(src: str, dst: str) -> Any:
    """Offsets of ``src`` mapped into ``dst`` (an offset without a counterpart takes the one of
    the nearest aligned offset before it)."""
    if src == dst:
        return lambda i: i
    mapping = offset_map(src, dst)
    keys = sorted(mapping)

    def to_dst(i: int) -> int:
        if i in mapping:
            return mapping[i]
        k = bisect.bisect_right(keys, i) - 1
        return mapping[keys[k]] if k >= 0 else 0

    return to_dst


def _overlaps(start: int, end: int, a: int, b: int) -> bool:
    if start == end:  # an insertion belongs to the sentence it sits in (or ends)
        return a <= start <= b
    return start < b and end > a


def detection_report(pairs: Iterable[tuple[Annotated, Annotated]]) -> dict[str, Any]:
    """Metrics over ``(gold, prediction)`` pairs (see the module docstring)."""
    counts = {t: [0, 0, 0] for t in ERROR_TYPES}  # tp, fp, fn over sentences
    binary = [0, 0, 0]
    chars = {t: [0, 0, 0] for t in ERROR_TYPES}  # overlap, predicted, gold characters
    edit_hits, edit_total, n, sentences = 0, 0, 0, 0
    for gold, pred in pairs:
        n += 1
        to_gold = _mapper(pred.text, gold.text)
        pred_edits = [(t, to_gold(s), to_gold(e), r) for t, s, e, r in pred.edits]
        for a, b in sentence_spans(gold.text) or [(0, len(gold.text))]:
            sentences += 1
            g = {t for t, s, e, _ in gold.edits if _overlaps(s, e, a, b)}
            p = {t for t, s, e, _ in pred_edits if _overlaps(s, e, a, b)}
            for t in ERROR_TYPES:
                counts[t][0] += t in g and t in p
                counts[t][1] += t in p and t not in g
                counts[t][2] += t in g and t not in p
            binary[0] += bool(g) and bool(p)
            binary[1] += bool(p) and not g
            binary[2] += bool(g) and not p
        for t in ERROR_TYPES:
            gold_chars = _chars(gold.edits, t)
            pred_chars = _chars(pred_edits, t)
            chars[t][0] += len(gold_chars & pred_chars)
            chars[t][1] += len(pred_chars)
            chars[t][2] += len(gold_chars)
        for t, s, e, right in pred_edits:
            if t not in ("entity", "relation") or s == e:
                continue
            match = [g for g in gold.edits if g[0] == t and g[1] < e and g[2] > s]
            if match:
                edit_total += 1
                edit_hits += _norm(right) == _norm(match[0][3])
    per_type = {}
    for t in ERROR_TYPES:
        tp, fp, fn = counts[t]
        per_type[t] = {**prf(tp, fp, fn), "support": tp + fn, "predicted": tp + fp}
    span = {}
    for t in ERROR_TYPES:
        overlap, predicted, gold_n = chars[t]
        span[t] = {**prf(overlap, predicted - overlap, gold_n - overlap), "gold_chars": gold_n}
    total = [sum(chars[t][i] for t in ERROR_TYPES) for i in range(3)]
    return {
        "n": n,
        "sentences": sentences,
        "per_type": per_type,
        "macro_f1": round(sum(v["f1"] for v in per_type.values()) / len(ERROR_TYPES), 4),
        "binary": {**prf(*binary), "support": binary[0] + binary[2]},
        "span": {
            "per_type": span,
            "micro": prf(total[0], total[1] - total[0], total[2] - total[0]),
        },
        "edit_accuracy": {
            "accuracy": round(edit_hits / edit_total, 4) if edit_total else 0.0,
            "matched_edits": edit_total,
        },
    }


def _chars(edits: Sequence[tuple[str, int, int, str]], t: str) -> set[int]:
    return {i for typ, s, e, _ in edits if typ == t for i in range(s, e)}


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def markdown_table(report: Mapping[str, Any], title: str = "Detection") -> str:
    """The report as a Markdown table (sentence-level and span-level per type)."""
    lines = [
        f"## {title}",
        "",
        f"{report['n']} texts, {report['sentences']} sentences.",
        "",
        "| type | P | R | F1 | support | span P | span R | span F1 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t in ERROR_TYPES:
        s, sp = report["per_type"][t], report["span"]["per_type"][t]
        lines.append(
            f"| {t} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | {s['support']} "
            f"| {sp['precision']:.3f} | {sp['recall']:.3f} | {sp['f1']:.3f} |"
        )
    b, m = report["binary"], report["span"]["micro"]
    lines += [
        f"| **any error** | {b['precision']:.3f} | {b['recall']:.3f} | {b['f1']:.3f} | "
        f"{b['support']} | {m['precision']:.3f} | {m['recall']:.3f} | {m['f1']:.3f} |",
        "",
        f"Macro F1 over the six types: **{report['macro_f1']:.3f}**. Edit accuracy (entity and "
        f"relation replacements): {report['edit_accuracy']['accuracy']:.3f} over "
        f"{report['edit_accuracy']['matched_edits']} matched edits.",
        "",
    ]
    return "\n".join(lines)


@dataclass
class _Row:
    """One row of a gold or predictions file: its id (None where it has none), the row, where
    it is (``path:line``), and the row read as :func:`annotated_from_row` reads it."""

    id: str | None
    row: dict[str, Any]
    where: str
    annotated: Annotated


def _numbered_rows(path: str) -> list[_Row]:
    """Every row of a file, each read once, and every bad row named at once."""
    from favakit.records import valid_rows

    def read(row: dict[str, Any], _: int, where: str) -> _Row:
        rid = row.get("id")
        return _Row(None if rid is None else str(rid), row, where, annotated_from_row(row, where))

    out = valid_rows(path, read)
    if not out:
        raise UsageError(f"{path} has no rows")
    return out


def _check_ids(rows: Sequence[_Row]) -> None:
    """Ids on every row of a file or on none, and no id twice."""
    with_id = [r.where for r in rows if r.id is not None]
    if with_id and len(with_id) != len(rows):
        missing = next(r.where for r in rows if r.id is None)
        raise UsageError(
            f"{missing}: this row has no id, others in the file do; give every row an id (rows "
            "are matched by id), or none (matched by line)"
        )
    seen: dict[str, str] = {}
    for r in rows:
        if r.id is not None:
            if r.id in seen:
                raise UsageError(f"{r.where}: id {r.id!r} again (first at {seen[r.id]})")
            seen[r.id] = r.where


def same_text(gold: str, pred: str) -> bool:
    """Whether a prediction was made on the gold text: the same words, spaces and case aside,
    or nearly (a model that normalised a few characters; at most 1 in 20 differ)."""
    a, b = _norm(gold), _norm(pred)
    if a == b:
        return True
    import difflib

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return matcher.real_quick_ratio() >= 0.95 and matcher.ratio() >= 0.95


def detect_files(
    gold_path: str, pred_path: str, by: str | None = None, out: str | None = None
) -> dict[str, Any]:
    """``favakit eval detect``: the detection report of the predictions in ``pred_path`` against
    the gold rows of ``gold_path``, matched by id when both sides have ids, else by line;
    ``by``: also per value of this gold field. Prints the JSON; with ``out`` also writes it
    there with Markdown, HTML and a PNG chart beside it."""
    import json
    import sys
    from pathlib import Path

    from favakit.eval.report import REPORT_FILES
    from favakit.records import refuse_folder_output, refuse_replacing_other

    if out is not None:
        refuse_folder_output(out, "report.json")  # before the work, not after it
        refuse_replacing_other(out, ["per_type"], "detection report", REPORT_FILES)
    gold, pred = _numbered_rows(gold_path), _numbered_rows(pred_path)
    for rows in (gold, pred):
        _check_ids(rows)
    by_id = gold[0].id is not None and pred[0].id is not None
    if by_id:
        preds = {r.id: r for r in pred}
        unmatched = [r for r in gold if r.id not in preds]
        if unmatched:
            more = f" (and {len(unmatched) - 1} more gold rows have none)" if unmatched[1:] else ""
            raise UsageError(f"{unmatched[0].where}: no prediction for id {unmatched[0].id!r} in "
                             f"{pred_path}{more}")  # fmt: skip
        matched = [(g, preds[g.id]) for g in gold]
    else:
        if len(gold) != len(pred):
            raise UsageError(
                f"{gold_path} has {len(gold)} rows and {pred_path} {len(pred)}; without ids on "
                "both sides rows are matched by line, so the counts must be equal"
            )
        matched = list(zip(gold, pred, strict=True))
    for g, p in matched:
        if not same_text(g.annotated.text, p.annotated.text):
            raise UsageError(
                f"{p.where}: its text is not the text of {g.where} ({g.annotated.text[:60]!r} vs "
                f"{p.annotated.text[:60]!r}); spans of different texts cannot be compared"
            )
    pairs = [(g.annotated, p.annotated) for g, p in matched]
    report = detection_report(pairs)
    tables = [markdown_table(report)]
    if by and not any(by in g.row for g, _ in matched):
        fields = sorted({k for g, _ in matched for k in g.row})
        raise UsageError(f"--by {by}: no gold row has that field (theirs: {', '.join(fields)})")
    if by:
        groups: dict[str, list[Any]] = {}
        for g, p in matched:
            groups.setdefault(str(g.row.get(by, "")), []).append((g.annotated, p.annotated))
        report["by"] = {name: detection_report(items) for name, items in sorted(groups.items())}
        tables += [markdown_table(r, f"{by} = {n}") for n, r in report["by"].items()]
    text = json.dumps(report, indent=1)
    # files first: a reader that closes stdout early (`| head`) must not cost the reports
    if out:
        from favakit.eval.report import bar_chart, write_report

        path = Path(out)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
        png = path.with_suffix(".png")
        drawn = bar_chart(
            png, "Detection F1 per error type", [*ERROR_TYPES, "any error"],
            {
                "sentence F1": [report["per_type"][t]["f1"] for t in ERROR_TYPES]
                + [report["binary"]["f1"]],
                "span F1": [report["span"]["per_type"][t]["f1"] for t in ERROR_TYPES]
                + [report["span"]["micro"]["f1"]],
            },
        )  # fmt: skip
        write_report(path, "\n".join(tables), [png] if drawn else [], title="favakit detection")
        print(f"wrote {path} (+ .md, .html{', .png' if drawn else ''})", file=sys.stderr)
    print(text)
    return report
