"""Editing real claims with and without the checker's gate, side by side in one run.

On a seeded sample of real labelled claims (``../shared/data/real/eval/fm2_test`` and the
SummEdits sets of ``eval_spans``; measured only, never tuned on), each editor edits every claim
against its evidence once; the gate (:func:`favakit.inference.gate.gate_result`) is then applied
to those same results with the checker's scores: edits only (``checker``: edits in supported
sentences dropped) and the default rule (``checker+flags``: also an unsupported sentence with no
edit flagged, at the words the evidence never uses and those the checker's token head marks;
``checker+flags:sentences``: flagged whole),
at the checker's gate threshold and at any ``--thresholds`` given; and the whole default
pipeline (``default``: :class:`favakit.inference.gate.GatedEditor` itself over the same editor
results, sentences scored as ``favakit edit`` scores them, then deletions and fixes checked and
flags placed at words; ``default:sentences`` with whole-sentence flags). The other variants
score each sentence as it stands. A claim is *flagged* when
its result has any edit or flag. Reported per set and editor, ungated and gated: the share of
supported claims left alone, the share of unsupported claims flagged, their mean (balanced
accuracy) and seconds per claim; and where the set marks the unsupported words, the character
precision, recall and F1 of the edited and flagged spans against them (``wice_tokens_test``:
WiCE's unsupported tokens, every row unsupported; SummEdits: the words of an inconsistent
summary that differ from its original, over the inconsistent rows).

    python scripts/bench_gate.py --real ../shared/data/real --editors encoder,shipped \
        --per-label 50 --out docs/results/bench_gate_DATE.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_checker import _chars, prf
from bench_editor import _Replay

SETS = {"fm2_test": "eval", "summedits_ectsum": "eval_spans", "summedits_scitldr": "eval_spans",
        "wice_tokens_test": "eval_spans"}  # fmt: skip


def sample(rows: list[dict[str, Any]], per_label: int, seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(f"gate:{seed}")
    pos = [r for r in rows if r["label"] == "supported"]
    neg = [r for r in rows if r["label"] != "supported"]
    return rng.sample(pos, min(per_label, len(pos))) + rng.sample(neg, min(per_label, len(neg)))


def shape(rows: list[dict[str, Any]], flagged: list[bool]) -> dict[str, float | None]:
    sup = [f for r, f in zip(rows, flagged, strict=True) if r["label"] == "supported"]
    uns = [f for r, f in zip(rows, flagged, strict=True) if r["label"] != "supported"]
    left = round(1 - sum(sup) / len(sup), 4) if sup else None
    caught = round(sum(uns) / len(uns), 4) if uns else None
    both = round((left + caught) / 2, 4) if left is not None and caught is not None else None
    return {"supported_left_alone": left, "unsupported_flagged": caught, "balanced_accuracy": both}


def scored_sentences(
    checker: Any, rows: list[dict[str, Any]]
) -> list[tuple[list[tuple[int, int]], list[float]]]:
    """Each row's sentences (spans of its text) and the checker's P(supported) of each against
    the row's evidence, the sentences as they stand (no pronoun resolved)."""
    from favakit.text import sentence_spans

    out = []
    for row in rows:
        spans = sentence_spans(row["text"])
        got = checker.score([row["text"][a:b] for a, b in spans], [row["evidence"]] * len(spans))
        out.append((spans, [p for p, _ in got]))
    return out


def gold_spans(name: str, row: dict[str, Any]) -> set[int] | None:
    """The characters of ``row``'s text marked unsupported, or None where the set marks none for
    it (a consistent summary, an fm2 claim)."""
    if name == "wice_tokens_test":
        return _chars(row["text"], [(s["start"], s["end"]) for s in row["spans"]])
    if name.startswith("summedits") and row["label"] != "supported" and row.get("original"):
        from favakit.training.pairs import edited_spans

        return _chars(row["text"], edited_spans(row["original"], row["text"]))
    return None


def span_overlap(name: str, rows: list[dict[str, Any]], results: list[Any]) -> dict[str, Any]:
    """Character precision, recall and F1 of the results' edits and flags against the set's
    unsupported words, over the rows that mark them; {} for a set without them."""
    gold, pred = [], []
    for row, result in zip(rows, results, strict=True):
        want = gold_spans(name, row)
        if want is not None:
            gold.append(want)
            pred.append(_chars(row["text"], [(e["start"], e["end"]) for e in result["edits"]]))
    return {"spans": {"rows": len(gold), **prf(gold, pred)}} if gold else {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, required=True, help="../shared/data/real")
    ap.add_argument("--editors", default="encoder,shipped", help="encoder, shipped (generative)")
    ap.add_argument("--checker", default=None, help="the gate's judge: a checker folder or "
                    "shipped name (default: the MiniLM checker), qwen (the tuned Qwen judge) or cascade")  # fmt: skip
    ap.add_argument(
        "--adapter", default=None, help="the generative editor's adapter (default: the shipped one)"
    )
    ap.add_argument("--dtype", default="auto", help="the Qwen judge's weights (--checker qwen or "
                    "cascade): auto (fp32 on a CPU) or bfloat16")  # fmt: skip
    ap.add_argument("--per-label", type=int, default=50)
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated, of " + ", ".join(SETS))
    ap.add_argument(
        "--thresholds", default="",
        help="comma-separated gate thresholds to report beside the checker's gate threshold "
        "(each a `checker+flags@T` row from the same scores)",
    )  # fmt: skip
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.inference.factory import open_editor, open_gate
    from favakit.inference.gate import GatedEditor, gate_result, marked_words
    from favakit.spec import ClientSpec

    checker = open_gate(args.checker or "checker", dtype=args.dtype)
    results: list[dict[str, Any]] = [{"meta": {
        "date": date.today().isoformat(), "machine": platform.machine(),
        "checker": checker.name, "gate_threshold": checker.gate_threshold,
        "per_label": args.per_label}}]  # fmt: skip
    extra = [float(t) for t in args.thresholds.split(",") if t.strip()]
    data = {
        name: sample([json.loads(x) for x in (args.real / folder / f"{name}.jsonl").open()],
                     args.per_label)
        for name, folder in SETS.items()
        if name in args.sets.split(",")
    }  # fmt: skip
    # the checker's score of every sentence of every claim, once
    sentence_scores: dict[str, list[tuple[list[tuple[int, int]], list[float]]]] = {}
    check_seconds: dict[str, float] = {}
    for name, rows in data.items():
        t0 = time.perf_counter()
        sentence_scores[name] = scored_sentences(checker, rows)
        check_seconds[name] = time.perf_counter() - t0
    for kind in args.editors.split(","):
        spec = ClientSpec(adapter=None if kind == "encoder" else args.adapter)
        editor = open_editor(spec, "encoder" if kind == "encoder" else "generative")
        for name, rows in data.items():
            t0 = time.perf_counter()
            edited = editor.edit_many(
                [{"text": r["text"], "evidence": r["evidence"]} for r in rows]
            )
            seconds = time.perf_counter() - t0
            pairs = list(zip(edited, sentence_scores[name], strict=True))
            at = checker.gate_threshold
            gated = [gate_result(e, spans, scores, at, flag_unsupported=False)
                     for e, (spans, scores) in pairs]  # fmt: skip
            whole = [gate_result(e, spans, scores, at, flags="sentences")
                     for e, (spans, scores) in pairs]  # fmt: skip
            t1 = time.perf_counter()
            marks = marked_words(checker, edited, sentence_scores[name], at)
            flagged = [gate_result(e, spans, scores, at, marked=m)
                       for (e, (spans, scores)), m in zip(pairs, marks, strict=True)]  # fmt: skip
            t2 = time.perf_counter()
            requests = [{"text": r["text"], "evidence": r["evidence"]} for r in rows]
            full = GatedEditor(_Replay(edited, editor.model), checker).edit_many(requests)
            t3 = time.perf_counter()
            whole_checked = GatedEditor(_Replay(edited, editor.model), checker,
                                        flags="sentences").edit_many(requests)  # fmt: skip
            # what each variant adds to the editor's time (the whole pipeline scores the
            # sentences again)
            check = check_seconds[name]
            added = {"checker": check, "checker+flags": check + t2 - t1,
                     "checker+flags:sentences": check, "default": t3 - t2,
                     "default:sentences": time.perf_counter() - t3}  # fmt: skip
            variants = [("off", edited), ("checker", gated), ("checker+flags", flagged),
                        ("checker+flags:sentences", whole), ("default", full),
                        ("default:sentences", whole_checked)]  # fmt: skip
            for t in extra:
                variants.append((f"checker+flags@{t:g}", [
                    gate_result(e, spans, scores, t) for e, (spans, scores) in pairs]))  # fmt: skip
            for gate, got in variants:
                row = {"editor": kind, "model": editor.model, "gate": gate, "set": name,
                       "claims": len(rows), **shape(rows, [bool(e["edits"]) for e in got]),
                       **span_overlap(name, rows, got),
                       "edits": sum(not x.get("flagged") for e in got for x in e["edits"]),
                       "flags": sum(bool(x.get("flagged")) for e in got for x in e["edits"]),
                       "seconds_per_claim": round(
                           (seconds + added.get(gate, check_seconds[name] if gate != "off" else 0))
                           / len(rows), 3)}  # fmt: skip
                print(json.dumps(row), flush=True)
                results.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
