"""The editor's prompt fitted to its model's context: references dropped by halving
(:func:`favakit.prompts.fewest_references_dropped`, what favakit does) against dropping one at a
time (what it did until session 67), on the rows of a file with the most evidence.

Each row's text is checked against all its evidence, as ``favakit edit --input`` does with rows
that carry their own evidence. The prompt is built as the shipped editor builds it
(:func:`favakit.prompts.build_prompt`), with its tokenizer (SmolLM2's) and its generation budget;
both ways must give the same prompt (the script stops if not). Only texts and evidence are read,
never labels.

    python scripts/bench_prompt_fit.py --rows ../shared/data/real/train/wice.jsonl --longest 5 \\
        --context 8192 --out docs/results/bench_prompt_fit_DATE.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any


def one_at_a_time(prompt: str, fits: Callable[[str], bool]) -> str:
    """The baseline: a reference dropped, then the whole prompt counted again."""
    from favakit.prompts import drop_references

    while not fits(prompt):
        shorter = drop_references(prompt)
        if shorter is None:
            break
        prompt = shorter
    return prompt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", required=True, help="JSONL rows with text and evidence")
    ap.add_argument("--longest", type=int, default=5, help="the rows with the most evidence words")
    ap.add_argument("--context", type=int, default=8192, help="the model's context in tokens")
    ap.add_argument("--rounds", type=int, default=3, help="rounds, the two ways alternating")
    ap.add_argument("--out", help="write the results here as JSON")
    args = ap.parse_args()

    from favakit.inference.factory import open_editor
    from favakit.prompts import build_prompt, fewest_references_dropped

    editor: Any = open_editor(gate=None)
    tokenizer = editor.client.generator.tokenizer
    counted = [0]

    def count(text: str) -> int:
        counted[0] += 1
        return len(tokenizer(text)["input_ids"])

    lines = Path(args.rows).read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    rows.sort(key=lambda r: -sum(len(e.split()) for e in r["evidence"]))
    results: list[dict[str, Any]] = []
    for row in rows[: args.longest]:
        passages = [{"title": "", "text": e} for e in row["evidence"]]
        prompt = build_prompt(row["text"], passages)
        budget = args.context - editor._max_tokens(row["text"])

        def fits(p: str, budget: int = budget) -> bool:
            return count(p) <= budget

        seconds: dict[str, list[float]] = {"halving": [], "one_at_a_time": []}
        counts: dict[str, int] = {}
        got: dict[str, str] = {}
        for _ in range(args.rounds):
            for way in seconds:
                counted[0] = 0
                start = time.perf_counter()
                if way == "halving":
                    got[way] = fewest_references_dropped(prompt, fits)[0]
                else:
                    got[way] = one_at_a_time(prompt, fits)
                seconds[way].append(time.perf_counter() - start)
                counts[way] = counted[0]
        if got["halving"] != got["one_at_a_time"]:
            raise SystemExit(f"row {row.get('id')}: the two ways gave different prompts")
        median = {way: statistics.median(s) for way, s in seconds.items()}
        result = {
            "id": row.get("id"),
            "evidence_words": sum(len(e.split()) for e in row["evidence"]),
            "passages": len(passages),
            "prompt_tokens": count(prompt),
            "token_counts": counts,
            "seconds": {way: round(s, 3) for way, s in median.items()},
            "ratio": round(median["one_at_a_time"] / median["halving"], 1),
        }
        print(json.dumps(result), flush=True)
        results.append(result)
    summary = {
        "command": "python scripts/bench_prompt_fit.py "
        + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if v is not None),
        "machine": f"{platform.machine()}, {platform.processor() or platform.platform()}",
        "date": date.today().isoformat(),
        "context": args.context,
        "rows": results,
    }
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
