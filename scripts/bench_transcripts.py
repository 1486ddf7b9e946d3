"""Claims checked against a long transcript-like text: evidence that reads as one sentence.

Built from a development split (``runs/judge_data/dev_rows.jsonl``, carved from the training
files by ``scripts/llm_judge.py data``; never an eval set): the first ``--per-label`` supported
and unsupported rows of ``--sources`` with 10-60 words of evidence. Each row's evidence is
lower-cased, stripped of sentence punctuation and set at a seeded place among 300-500 words of
other development rows' evidence treated the same way, so that favakit's sentence splitter
reads the whole text as one sentence, as it reads an unpunctuated speech transcript. Each judge
gives balanced accuracy at its own threshold, supported claims found and unsupported ones
rejected, and ROC AUC (docs/checker.md, "Text that reads as one long sentence").

    python scripts/bench_transcripts.py --rows runs/judge_data/dev_rows.jsonl \\
        --judges checker=mpnet,checker=checker --out docs/results/bench_transcripts_DATE.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import sys
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_verify import agreement, auc

FILLER_SOURCES = ("fever", "fm2", "begin", "snli", "fever_symmetric")


def flattened(text: str) -> str:
    """``text`` as an unpunctuated transcript has it: lower case, no sentence punctuation."""
    return " ".join(re.sub(r"[.!?;:]", " ", text.lower()).split())


def transcripts(rows: list[dict[str, Any]], sources: set[str], per_label: int,
                seed: int) -> list[dict[str, Any]]:  # fmt: skip
    """The probe's rows (see the module): each picked row's evidence hidden in a long text."""
    rng = random.Random(f"transcripts:{seed}")
    filler = [r for r in rows if r["source"] in FILLER_SOURCES]
    picked: dict[str, list[dict[str, Any]]] = {"supported": [], "not_supported": []}
    for r in rows:
        words = len(" ".join(r["evidence"]).split())
        if r["source"] in sources and 10 <= words <= 60 and len(picked[r["label"]]) < per_label:
            picked[r["label"]].append(r)
    out = []
    for r in picked["supported"] + picked["not_supported"]:
        target, parts = rng.randint(300, 500), list[str]()
        while sum(len(p.split()) for p in parts) < target:
            other = rng.choice(filler)
            if other["id"] != r["id"] and other["text"] != r["text"]:
                parts.append(flattened(" ".join(other["evidence"])))
        parts.insert(rng.randint(0, len(parts)), flattened(" ".join(r["evidence"])))
        out.append({"id": f"{r['id']}-t", "source": r["source"], "text": r["text"],
                    "evidence": [" ".join(parts)], "label": r["label"]})  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=Path, required=True, help="development rows (JSONL)")
    ap.add_argument("--sources", default="fever,fm2,begin")
    ap.add_argument("--per-label", type=int, default=100)
    ap.add_argument("--judges", default="checker=mpnet", help="checker=NAME|DIR, comma-separated")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.contracts import EditRequest
    from favakit.inference.factory import open_verifier

    rows = [json.loads(line) for line in args.rows.open(encoding="utf-8")]
    probe = transcripts(rows, set(args.sources.split(",")), args.per_label, args.seed)
    if not probe:
        raise SystemExit(f"{args.rows}: no rows of {args.sources} with 10-60 words of evidence")
    results: list[dict[str, Any]] = [{"meta": {
        "date": date.today().isoformat(), "machine": platform.machine(), "rows": str(args.rows),
        "sources": args.sources, "seed": args.seed, "claims": len(probe),
        "evidence_words_mean": round(sum(len(r["evidence"][0].split()) for r in probe) / len(probe), 1)}}]  # fmt: skip
    human = [r["label"] == "supported" for r in probe]
    for judge in args.judges.split(","):
        kind, _, name = judge.partition("=")
        verifier = open_verifier(kind, checker=name or None)
        verdicts = verifier.verify([EditRequest.from_obj(r) for r in probe])
        said = [bool(v["supported"]) for v in verdicts]
        row = {"judge": judge, "model": verifier.model, **agreement(human, said),
               "supported_found": sum(s for s, h in zip(said, human, strict=True) if h),
               "unsupported_rejected": sum(not s for s, h in zip(said, human, strict=True) if not h),
               "auc": auc(human, [float(v["score"]) for v in verdicts])}  # fmt: skip
        print(json.dumps(row), flush=True)
        results.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
