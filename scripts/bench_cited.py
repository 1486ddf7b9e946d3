"""Texts that cite several sources, checked against one: the whole text, or its cited sentences.

Built from a development split (``runs/judge_data/dev_rows.jsonl``, carved from the training
files by ``scripts/llm_judge.py data``; never an eval set): each one-sentence claim gets the
mark of its own evidence (``[<|cit|>]`` before its full stop) and a sentence beside it, before or
after (seeded), that cites another source (``<|other_cit|>`` after its full stop): another row's
claim of the same source. The label stays the claim's. Each judge is measured three ways on the
same rows: the claim alone (as the development split has it), the composed text read whole
(no ``cites``) and the composed text with ``cites`` (:class:`~favakit.inference.verifiers.CitedSentences`
reads the cited sentence); with ``--marks '1,1][2,<|cit|>'``, also each claim with that mark
before its full stop (``[1]``, ``[1][2]``, ``[<|cit|>]``) read raw, marks and all. Balanced accuracy per source at the judge's own threshold, and the
mean over the sources.

    python scripts/bench_cited.py --rows runs/judge_data/dev_rows.jsonl \
        --sources fever,fm2,fever_symmetric,snli --judges checker=mpnet,checker=checker \
        --out docs/results/bench_cited_dev_DATE.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_verify import agreement, auc

CITED, OTHER = "<|cit|>", "<|other_cit|>"


def _marked(sentence: str, mark: str, inside: bool) -> str:
    """``sentence`` with ``mark`` before its full stop (``inside``: " [mark].") or after it."""
    body = sentence.rstrip()
    stop = body[-1] if body and body[-1] in ".!?" else "."
    body = body[:-1].rstrip() if body and body[-1] in ".!?" else body
    return f"{body} [{mark}]{stop}" if inside else f"{body}{stop}{mark}"


def composed(rows: list[dict[str, Any]], seed: int = 0) -> list[dict[str, Any]]:
    """Each row's claim marked as citing its evidence, beside another row's claim (same
    source) marked as citing another source, in a seeded order."""
    rng = random.Random(f"cited:{seed}")
    by_source: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_source.setdefault(r["source"], []).append(r)
    out = []
    for r in rows:
        others = [o for o in by_source[r["source"]] if o["id"] != r["id"]]
        other = rng.choice(others)["text"]
        own, beside = _marked(r["text"], CITED, True), _marked(other, OTHER, False)
        text = f"{own} {beside}" if rng.random() < 0.5 else f"{beside} {own}"
        out.append({**r, "text": text})
    return out


def measure(
    verifier: Any, rows: list[dict[str, Any]], cites: tuple[str, ...], raw: bool = False
) -> dict[str, Any]:
    """``verifier`` on ``rows`` as ``favakit verify`` reads them (``cites``; marks removed), or
    ``raw``: the texts as written, marks and all."""
    from favakit.contracts import EditRequest
    from favakit.inference.verifiers import CitedSentences

    claims = [EditRequest.from_obj({"text": r["text"], "evidence": r["evidence"],
                                    "cites": list(cites) or None}) for r in rows]  # fmt: skip
    verdicts = (verifier if raw else CitedSentences(verifier)).verify(claims)
    human = [r["label"] == "supported" for r in rows]
    return {"claims": len(rows), **agreement(human, [bool(v["supported"]) for v in verdicts]),
            "auc": auc(human, [float(v["score"]) for v in verdicts])}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=Path, required=True, help="development rows (JSONL)")
    ap.add_argument("--sources", default="fever,fm2,fever_symmetric,snli")
    ap.add_argument("--judges", default="checker=mpnet", help="checker=NAME|DIR, comma-separated")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--marks", default="", help="also each claim with one of these marks "
                    "before its full stop ('1', '<|cit|>'), read raw as before session 57")  # fmt: skip
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.inference.factory import open_verifier

    wanted = set(args.sources.split(","))
    rows = [json.loads(line) for line in args.rows.open(encoding="utf-8")]
    rows = [r for r in rows if r["source"] in wanted and len(r["evidence"]) >= 1]
    if not rows:
        raise SystemExit(f"{args.rows}: no rows of {sorted(wanted)}")
    both = composed(rows, args.seed)
    results: list[dict[str, Any]] = [{"meta": {
        "date": date.today().isoformat(), "machine": platform.machine(), "rows": str(args.rows),
        "sources": sorted(wanted), "seed": args.seed}}]  # fmt: skip
    for judge in args.judges.split(","):
        kind, _, name = judge.partition("=")
        verifier = open_verifier(kind, checker=name or None)
        readings = [("claim alone", rows, (), False), ("composed, whole", both, (), False),
                    ("composed, cites", both, (CITED,), False)]  # fmt: skip
        for mark in filter(None, args.marks.split(",")):  # one mark in the claim, read raw
            marked = [{**r, "text": _marked(r["text"], mark, True)} for r in rows]
            readings.append((f"claim [{mark}], raw", marked, (), True))
        for reading, chosen, cites, raw in readings:
            per = {}
            for source in sorted(wanted):
                mine = [r for r in chosen if r["source"] == source]
                if mine:
                    per[source] = measure(verifier, mine, cites, raw)
            mean = round(sum(p["balanced_accuracy"] for p in per.values()) / len(per), 4)
            row = {"judge": judge, "reading": reading, "mean_balanced_accuracy": mean, **per}
            print(json.dumps({"judge": judge, "reading": reading, "mean": mean,
                              **{s: p["balanced_accuracy"] for s, p in per.items()}}), flush=True)  # fmt: skip
            results.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
