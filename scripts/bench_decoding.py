"""The in-process editor's decoding, side by side: fp32 or bf16 weights, batched or drafted from
the input and the tags' order, or from the input alone (favakit.inference.copy_draft), on the
same texts in one process, rounds alternating.

    python scripts/bench_decoding.py --text long.txt --kb runs/demo/kb.db --index runs/demo/bm25 \
        --rounds 2 --out docs/results/bench_decoding_long_s88_2026-12-07.json
    python scripts/bench_decoding.py --demo-texts --kb runs/demo/kb.db --index runs/demo/bm25 \
        --rounds 3 --out docs/results/bench_decoding_demo_s88_2026-12-07.json
    python scripts/bench_decoding.py --input runs/s89/dev32.jsonl --rounds 2 \
        --arms "fp32 batched,fp32 drafted (input alone),fp32 drafted" --out b.json

Each arm edits every text with the gate off (the editor's writing alone: the gate reads the
same output either way) and is timed around ``edit_many``: the evidence's retrieval, the
prompts and the model's writing. Per arm: the median seconds, its ratio to the first arm named
(by default fp32, batched: how favakit decoded before session 88), the model's passes and tokens,
and how many outputs are the first arm's character for character. On a CPU a drafted arm
drafts every call, however many texts it holds (a GPU: calls of up to 4).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from datetime import date
from pathlib import Path
from typing import Any

from favakit.contracts import EditRequest
from favakit.deps import cpu_has_bf16
from favakit.inference.editor import EditorSettings
from favakit.inference.factory import open_editor
from favakit.records import read_jsonl
from favakit.spec import ClientSpec

#: (name, weights, tokens drafted a pass: 0 decodes in batches, tags drafted too)
ARMS = [
    ("fp32 batched", "float32", 0, False),
    ("bf16 batched", "bfloat16", 0, False),
    ("fp32 drafted", "float32", 16, True),
    ("bf16 drafted", "bfloat16", 16, True),
    ("fp32 drafted (input alone)", "float32", 16, False),
    ("bf16 drafted (input alone)", "bfloat16", 16, False),
]
#: the arms run where none are named (--arms): fp32's first, the baseline of the ratios
DEFAULT_ARMS = "fp32 batched,bf16 batched,fp32 drafted,bf16 drafted"


def _requests(args: argparse.Namespace) -> list[EditRequest]:
    if args.text:
        return [EditRequest(Path(args.text).read_text(encoding="utf-8"))]
    if args.demo_texts:
        from favakit.demo import demo_texts

        rows = demo_texts()
    else:
        rows = list(read_jsonl(args.input))[: args.limit or None]
    return [EditRequest.from_row(row) for row in rows]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", help="one text file, edited as one request")
    src.add_argument("--input", help="JSONL rows (text, evidence), as favakit edit --input reads")
    src.add_argument("--demo-texts", action="store_true",
                     help="favakit demo's seven texts with their planted errors")  # fmt: skip
    ap.add_argument("--limit", type=int, default=0, help="rows of --input (0: all)")
    ap.add_argument("--kb", default=None)
    ap.add_argument("--index", action="append", default=None)
    ap.add_argument("--k", type=int, default=2,
                    help="evidence passages a window (2: what favakit edit gives the shipped editor)")  # fmt: skip
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--arms", default=DEFAULT_ARMS,
                    help="comma-separated arm names (the first is the baseline): " + "; ".join(
                        name for name, *_ in ARMS))  # fmt: skip
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    requests = _requests(args)
    by_name = {arm[0]: arm for arm in ARMS}
    unknown = [n for n in args.arms.split(",") if n not in by_name]
    if unknown:
        ap.error(f"unknown arm(s) {unknown}; the arms: {list(by_name)}")
    chosen = [by_name[n] for n in args.arms.split(",")]
    editors: dict[str, Any] = {}
    for _, dtype, _, _ in chosen:
        if dtype not in editors:
            editors[dtype] = open_editor(ClientSpec(dtype=dtype), settings=EditorSettings(k=args.k),
                                         index=args.index, kb=args.kb)  # fmt: skip
    passes = [0]
    for editor in editors.values():
        editor.client.generator.model.register_forward_pre_hook(
            lambda *_: passes.__setitem__(0, passes[0] + 1)
        )
    seconds: dict[str, list[float]] = {name: [] for name, *_ in chosen}
    outputs: dict[str, list[str]] = {}
    counts: dict[str, dict[str, int]] = {}
    for _ in range(args.rounds):
        for name, dtype, draft, tags in chosen:
            editor = editors[dtype]
            editor.client.generator.copy_draft_tokens = draft
            editor.client.generator.copy_draft_tags = tags
            passes[0] = 0
            t0 = time.perf_counter()
            results = editor.edit_many(requests)
            seconds[name].append(time.perf_counter() - t0)
            outputs[name] = [json.dumps([r["corrected"], r["edits"]]) for r in results]
            tokens = sum(r["usage"]["completion_tokens"] for r in results)
            counts[name] = {"passes": passes[0], "tokens": tokens}
            print(f"{name}: {seconds[name][-1]:.1f} s, {passes[0]} passes", flush=True)
    first = chosen[0][0]
    base = statistics.median(seconds[first])
    report = {
        "date": date.today().isoformat(),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "cpu_native_bf16": cpu_has_bf16(),
        "texts": len(requests),
        "words": sum(len(r.text.split()) for r in requests),
        "rounds": args.rounds,
        "arms": {
            name: {
                "seconds": [round(s, 1) for s in seconds[name]],
                "median_s": round(statistics.median(seconds[name]), 1),
                "ratio_to_first": round(statistics.median(seconds[name]) / base, 3),
                **counts[name],
                "same_output_as_first": sum(
                    a == b for a, b in zip(outputs[name], outputs[first], strict=True)
                ),
            }
            for name, *_ in chosen
        },
    }
    print(json.dumps(report, indent=1))
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
