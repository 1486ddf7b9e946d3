"""Choose what the gate flags in an unsupported sentence the editor left alone, on training data.

The gate (:func:`favakit.inference.gate_edits.gate_result`) flags such a sentence either whole
(``flags="sentences"``) or at the runs of words the evidence never uses (``flags="words"``,
:func:`~favakit.inference.gate_words.unsupported_words`). This compares the two by character
precision, recall and F1 against the unsupported words that real span rows mark (WiCE's
unsupported tokens; the words of an edited SummEdits summary that differ from its original), on
training data only, two ways:

- ``dev``: the development rows (``scripts/llm_judge.py data``, carved from ``train/`` and
  ``train_spans/`` by source) that are span rows, each sentence scored by the gate's checker
  and flagged as the gate flags it (at the checker's gate threshold, with no editor), also with
  the words the checker's token head marks (``words+tokens``, the default pipeline's rule);
- ``oracle``: every unsupported span row of ``train_spans/``, with the sentences that hold
  marked words taken as the flagged ones (no model: the narrowing rule alone, on 20x the rows).

With ``--editor CACHE``, also ``beside``: the default pipeline (the shipped editor behind the
gate, its fixes and deletions checked, as ``favakit edit`` runs it) on the same development
rows. The editor's raw results are cached in
CACHE (JSONL, by row id): the editor's run takes about 15 minutes on 2 cores, a rerun only the
checker's (about 3 minutes).

Nothing from ``eval/`` or ``eval_spans/`` is read.

    python scripts/flag_spans.py --real ../shared/data/real \
        --rows runs/judge_data/dev_rows.jsonl --out docs/results/flag_spans_DATE.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_checker import _chars, prf
from bench_editor import _Replay
from bench_gate import scored_sentences

SPAN_FILES = ("train_spans/summedits.jsonl", "train_spans/wice_tokens.jsonl")


def marked(row: dict[str, Any]) -> set[int] | None:
    """The characters of an unsupported span row's text marked unsupported (None for a
    supported row or one that marks none)."""
    from favakit.training.pairs import edited_spans

    if row["label"] == "supported":
        return None
    if row.get("spans"):
        gold = _chars(row["text"], [(s["start"], s["end"]) for s in row["spans"]])
    elif row.get("original"):
        gold = _chars(row["text"], edited_spans(row["original"], row["text"]))
    else:
        return None
    return gold or None


def as_result(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` as an editor's result with nothing edited, its evidence as passages."""
    return {"original": row["text"], "corrected": row["text"], "edits": [],
            "evidence": [{"text": e} for e in row["evidence"]]}  # fmt: skip


def flagged_chars(row: dict[str, Any], sentences: list[tuple[int, int]], scores: list[float],
                  threshold: float, flags: str,
                  marked: dict[int, list[tuple[int, int]]] | None = None) -> set[int]:  # fmt: skip
    """The characters the gate flags in ``row``'s text with nothing edited (``marked``: the
    token head's words by sentence, :func:`~favakit.inference.gate_words.marked_words`)."""
    from favakit.inference.gate_edits import gate_result

    gated = gate_result(as_result(row), sentences, scores, threshold, flags=flags,  # type: ignore[arg-type]
                        marked=marked)  # fmt: skip
    return _chars(row["text"], [(e["start"], e["end"]) for e in gated["edits"]])


def families(rows: list[dict[str, Any]]) -> list[tuple[str, list[int]]]:
    """The rows' indices over all rows and per source family (wice, summedits) that has any."""
    out = [(family, [i for i, r in enumerate(rows)
                     if family == "all" or r["source"].startswith(family)])
           for family in ("all", "wice", "summedits")]  # fmt: skip
    return [(family, keep) for family, keep in out if keep]


def compare(rows: list[dict[str, Any]], gold: list[set[int]],
            scored: list[tuple[list[tuple[int, int]], list[float]]], threshold: float,
            marks: list[dict[int, list[tuple[int, int]]]] | None = None) -> dict[str, Any]:  # fmt: skip
    """The flag rules' P/R/F1, over all rows and per source family (wice, summedits):
    ``sentences``, ``words`` (the words the evidence never uses) and, given the token head's
    ``marks``, ``words+tokens`` (the default: those and the marked words)."""
    rules: list[tuple[str, str, bool]] = [("sentences", "sentences", False),
                                          ("words", "words", False)]  # fmt: skip
    if marks is not None:
        rules.append(("words+tokens", "words", True))
    out: dict[str, Any] = {}
    for family, keep in families(rows):
        out[family] = {"rows": len(keep)}
        for name, flags, marked in rules:
            pred = [flagged_chars(rows[i], *scored[i], threshold, flags,
                                  marks[i] if marked and marks else None) for i in keep]  # fmt: skip
            out[family][name] = prf([gold[i] for i in keep], pred)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, required=True, help="../shared/data/real")
    ap.add_argument("--rows", type=Path, required=True, help="development rows (dev_rows.jsonl)")
    ap.add_argument("--checker", default="auto", help="the gate's checker (default: auto)")
    ap.add_argument("--editor", type=Path, default=None, metavar="CACHE",
                    help="also the default pipeline (the editor's raw results cached in "
                    "CACHE)")  # fmt: skip
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.text import sentence_spans

    span_rows = {}
    for name in SPAN_FILES:
        for line in (args.real / name).open(encoding="utf-8"):
            row = json.loads(line)
            span_rows[row["id"]] = row
    report: dict[str, Any] = {"meta": {"date": date.today().isoformat(), "checker": args.checker}}

    # oracle: every unsupported training span row, its marked sentences flagged
    rows = [r for r in span_rows.values() if marked(r) is not None]
    gold = [marked(r) or set() for r in rows]
    scored = []
    for row, want in zip(rows, gold, strict=True):
        spans = sentence_spans(row["text"])
        scored.append((spans, [0.0 if any(a <= i < b for i in want) else 1.0 for a, b in spans]))
    report["oracle"] = compare(rows, gold, scored, 0.5)
    print(json.dumps({"oracle": report["oracle"]}), flush=True)

    # dev: the development rows that are span rows, flagged where the gate's checker says
    from favakit.inference.factory import open_gate
    from favakit.inference.gate_words import marked_words

    dev_ids = [json.loads(line)["id"] for line in args.rows.open(encoding="utf-8")]
    rows = [span_rows[i] for i in dev_ids if i in span_rows and marked(span_rows[i]) is not None]
    gold = [marked(r) or set() for r in rows]
    checker = open_gate(args.checker)
    t0 = time.perf_counter()
    scored = scored_sentences(checker, rows)
    at = checker.gate_threshold
    marks = marked_words(checker, [as_result(r) for r in rows], scored, at)  # type: ignore[misc]
    report["meta"].update(checker=checker.name, gate_threshold=at,
                          seconds=round(time.perf_counter() - t0, 1))  # fmt: skip
    report["dev"] = compare(rows, gold, scored, at, marks)
    print(json.dumps({"dev": report["dev"]}), flush=True)
    if args.editor:
        report["beside"] = beside(rows, gold, checker, args.editor)
        print(json.dumps({"beside": report["beside"]}), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


def beside(
    rows: list[dict[str, Any]], gold: list[set[int]], checker: Any, cache: Path
) -> dict[str, Any]:
    """Character P/R/F1 of the default pipeline's edits and flags on ``rows`` (the shipped
    editor behind :class:`~favakit.inference.gate.GatedEditor`, as ``favakit edit`` runs it).
    The editor's raw results are cached in CACHE (JSONL, by row id)."""
    from favakit.inference.factory import open_editor
    from favakit.inference.gate import GatedEditor

    done = {}
    if cache.exists():
        done = {r["id"]: r["raw"] for r in map(json.loads, cache.open(encoding="utf-8"))
                if "raw" in r}  # session 32's caches held gated results: run again  # fmt: skip
    todo = [r for r in rows if r["id"] not in done]
    if todo:
        editor = open_editor()
        with cache.open("a", encoding="utf-8") as fh:
            for k in range(0, len(todo), 8):  # in parts, so a stopped run keeps what it did
                part = todo[k : k + 8]
                raw = editor.edit_many([{"text": r["text"], "evidence": r["evidence"]}
                                        for r in part])  # fmt: skip
                for r, x in zip(part, raw, strict=True):
                    done[r["id"]] = x
                    fh.write(json.dumps({"id": r["id"], "raw": x}) + "\n")
                fh.flush()
    replay = _Replay([done[r["id"]] for r in rows], "the shipped editor (cached)")
    got = GatedEditor(replay, checker).edit_many(
        [{"text": r["text"], "evidence": r["evidence"]} for r in rows]
    )
    out: dict[str, Any] = {}
    for family, keep in families(rows):
        pred = [_chars(rows[i]["text"], [(e["start"], e["end"]) for e in got[i]["edits"]])
                for i in keep]  # fmt: skip
        out[family] = {"rows": len(keep), "default": prf([gold[i] for i in keep], pred)}
    return out


if __name__ == "__main__":
    main()
