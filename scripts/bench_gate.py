"""Editing real claims with and without the checker's gate, side by side in one run.

On a seeded sample of real labelled claims (``../shared/data/real/eval/fm2_test`` and the
SummEdits sets of ``eval_spans``; measured only, never tuned on), each editor edits every claim
against its evidence once; the gate (:func:`favakit.inference.gate.gate_result`) is then applied
to those same results with the checker's scores, twice: edits only (``checker``: edits in supported
sentences dropped) and the default rule (``checker+flags``: also an unsupported sentence with no
edit flagged whole), at the checker's gate threshold and at any ``--thresholds`` given. A claim
is *flagged* when its result has any edit or flag. Reported per set and editor, ungated and gated: the share of supported claims left alone,
the share of unsupported claims flagged, their mean (balanced accuracy) and seconds per claim.

    python scripts/bench_gate.py --real ../shared/data/real --editors encoder,shipped \
        --per-label 50 --out docs/results/bench_gate_DATE.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from datetime import date
from pathlib import Path
from typing import Any

SETS = {"fm2_test": "eval", "summedits_ectsum": "eval_spans", "summedits_scitldr": "eval_spans"}


def sample(rows: list[dict[str, Any]], per_label: int, seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(f"gate:{seed}")
    pos = [r for r in rows if r["label"] == "supported"]
    neg = [r for r in rows if r["label"] != "supported"]
    return rng.sample(pos, min(per_label, len(pos))) + rng.sample(neg, min(per_label, len(neg)))


def shape(rows: list[dict[str, Any]], flagged: list[bool]) -> dict[str, float]:
    sup = [f for r, f in zip(rows, flagged, strict=True) if r["label"] == "supported"]
    uns = [f for r, f in zip(rows, flagged, strict=True) if r["label"] != "supported"]
    left = 1 - sum(sup) / len(sup) if sup else float("nan")
    caught = sum(uns) / len(uns) if uns else float("nan")
    return {"supported_left_alone": round(left, 4), "unsupported_flagged": round(caught, 4),
            "balanced_accuracy": round((left + caught) / 2, 4)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, required=True, help="../shared/data/real")
    ap.add_argument("--editors", default="encoder,shipped", help="encoder, shipped (generative)")
    ap.add_argument("--checker", default=None, help="the gate's judge: a checker folder or "
                    "shipped name (default: the MiniLM checker), or qwen (the tuned Qwen judge)")  # fmt: skip
    ap.add_argument(
        "--adapter", default=None, help="the generative editor's adapter (default: the shipped one)"
    )
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
    from favakit.inference.gate import gate_result
    from favakit.spec import ClientSpec
    from favakit.text import sentence_spans

    checker = open_gate(args.checker or "checker")
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
        per_row = []
        for r in rows:
            spans = sentence_spans(r["text"])
            scored = checker.score([r["text"][a:b] for a, b in spans], [r["evidence"]] * len(spans))
            per_row.append((spans, [p for p, _ in scored]))
        sentence_scores[name] = per_row
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
            flagged = [gate_result(e, spans, scores, at) for e, (spans, scores) in pairs]
            variants = [("off", edited), ("checker", gated), ("checker+flags", flagged)]
            for t in extra:
                variants.append((f"checker+flags@{t:g}", [
                    gate_result(e, spans, scores, t) for e, (spans, scores) in pairs]))  # fmt: skip
            for gate, got in variants:
                row = {"editor": kind, "model": editor.model, "gate": gate, "set": name,
                       "claims": len(rows), **shape(rows, [bool(e["edits"]) for e in got]),
                       "edits": sum(len(e["edits"]) for e in got),
                       "seconds_per_claim": round(
                           (seconds + (check_seconds[name] if gate != "off" else 0))
                           / len(rows), 3)}  # fmt: skip
                print(json.dumps(row), flush=True)
                results.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
