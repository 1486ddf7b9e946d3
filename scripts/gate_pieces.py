"""Choose how many pieces of evidence the gate's checker reads a sentence against, on the
development split.

The gate reads each sentence of an edited text against the text's evidence in pieces of about
``piece_words`` words and takes the best piece's score (``gate_evidence_reading: pieces`` in
``checker.json``). A long text's evidence is every window's passages, so each sentence was read
against all of it: 603 passes for the 67 sentences of a 1,062-word text, a minute on 2 cores.
``most_pieces: K`` reads each sentence against only the K pieces that share the most words with
it (:func:`favakit.inference.evidence_reading.closest_pieces`), or with ``--rank checker`` the K
that another checker scores highest (``rank_pieces_with``). ``--stop-above T`` reads each text's
pieces closest first and stops at one scoring above T, as the gate's first look does at its
threshold (``Checker.score(..., enough=T)``): no decision at T or any lower threshold can move,
and the report says so. This compares these with all pieces, in the gate's role and at its
threshold, on development rows (``scripts/llm_judge.py data``: carved from ``train/`` and
``train_spans/`` by source, never an eval set):

- ``long``: the development rows whose evidence is longer than ``piece_words``;
- ``pooled``: each single-claim row's evidence pooled with that of ``--pool`` other rows of its
  source (shuffled, seeded): a sentence among the passages other windows of a text retrieved.

It reports the per-source mean balanced accuracy at the gate threshold (supported rows left
alone, unsupported ones flagged), the rows whose decision moved against all pieces, the passes
read and the seconds taken.

    python scripts/gate_pieces.py --rows runs/judge_data/dev_rows.jsonl --checker mpnet \\
        --out docs/results/gate_pieces_mpnet_DATE.json
    python scripts/gate_pieces.py --rows runs/judge_data/dev_rows.jsonl --checker mpnet \\
        --most "" --stop-above 0.12,0.458 --out docs/results/gate_rounds_mpnet_DATE.json

The dev rows: ``scripts/llm_judge.py data --real ../shared/data/real --out runs/judge_data
--score-sets ""`` (no eval set read).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from text_reading import CLAIM_SOURCES
from year_rule import per_source


def pooled_rows(rows: list[dict[str, Any]], pool: int, cap: int, seed: int) -> list[dict[str, Any]]:
    """Single-claim rows of :data:`CLAIM_SOURCES`, at most ``cap`` a source, each with its
    evidence and that of ``pool`` other rows of its source, shuffled."""
    rng = random.Random(seed)
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["source"] in CLAIM_SOURCES:
            by_source[row["source"]].append(row)
    out = []
    for source in sorted(by_source):
        mine = by_source[source][:]
        rng.shuffle(mine)
        for row in mine[:cap]:
            others = rng.sample([r for r in mine if r is not row], pool)
            evidence = [e for r in [row, *others] for e in r["evidence"]]
            rng.shuffle(evidence)
            out.append({**row, "evidence": evidence})
    return out


def run(checker: Any, rows: list[dict[str, Any]], most: int, rank_with: str = "",
        enough: float | None = None) -> dict[str, Any]:  # fmt: skip
    """The gate's scores of ``rows`` reading at most ``most`` pieces (0: all), chosen by shared
    words or by the checker ``rank_with`` names, or stopping at a piece above ``enough``, and
    their cost (the ranker's passes not counted among ``passes``; its time is in
    ``seconds``)."""
    checker.most_pieces = most
    checker.rank_pieces_with = rank_with
    started = time.perf_counter()
    texts, evidence = [r["text"] for r in rows], [r["evidence"] for r in rows]
    scored = checker.score(texts, evidence, enough=enough)
    seconds = time.perf_counter() - started
    return {"scores": [s for s, _ in scored], "passes": sum(n for _, n in scored),
            "seconds": round(seconds, 1)}  # fmt: skip


def compare(checker: Any, rows: list[dict[str, Any]], most: list[int], rankers: list[str],
            stops: list[float]) -> dict[str, Any]:  # fmt: skip
    gate = checker.gate_threshold
    base = run(checker, rows, 0)
    report: dict[str, Any] = {"rows": len(rows)}
    for stop in stops:  # lossless by design: the same decisions at and below the stop
        got = run(checker, rows, 0, enough=stop)
        pairs = list(zip(got["scores"], base["scores"], strict=True))
        report[f"stop_above_{stop}"] = {
            "decisions_moved_at_stop": sum((a > stop) != (b > stop) for a, b in pairs),
            "decisions_moved_at_gate": sum((a > gate) != (b > gate) for a, b in pairs),
            "largest_change_at_or_below_stop": round(
                max((abs(a - b) for a, b in pairs if b <= stop), default=0.0), 6
            ),
            "passes": got["passes"],
            "seconds": got["seconds"],
        }
    if any(rankers):  # its model loaded before the clock starts
        checker.rank_pieces_with = next(r for r in rankers if r)
        checker.piece_ranker()
    for k, ranker in [(0, ""), *((k, r) for r in rankers for k in most)]:
        got = base if k == 0 else run(checker, rows, k, ranker)
        scores = got["scores"]
        moved = sum((a > gate) != (b > gate) for a, b in zip(scores, base["scores"], strict=True))
        name = "all" if k == 0 else f"most_{k}" + (f"_by_{ranker}" if ranker else "")
        report[name] = {
            **per_source(rows, lambda i, s=scores: s[i] > gate),  # type: ignore[misc]
            "decisions_moved": moved,
            "passes": got["passes"],
            "seconds": got["seconds"],
        }
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", required=True, help="development rows (dev_rows.jsonl)")
    parser.add_argument("--checker", default="mpnet")
    parser.add_argument("--most", default="1,2,3,4", help="the K values to compare with all")
    parser.add_argument("--rank", default="words",
                        help="comma-separated: 'words' (shared words) and/or checkers to rank "
                        "the pieces with (shipped names or folders)")  # fmt: skip
    parser.add_argument("--stop-above", default="",
                        help="comma-separated scores: read each text's pieces closest first, "
                        "stopping at one above the score (the gate's rounds), beside all")  # fmt: skip
    parser.add_argument("--pool", type=int, default=4, help="other rows pooled per row")
    parser.add_argument("--cap", type=int, default=60, help="pooled rows per source")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    from favakit.inference.checker import Checker, checker_folder

    checker = Checker(checker_folder(args.checker), role="gate")
    if checker.reading != "pieces":
        raise SystemExit(f"{args.checker}'s gate reads {checker.reading!r}, not pieces")
    rows = [json.loads(line) for line in Path(args.rows).read_text(encoding="utf-8").splitlines()]
    most = [int(k) for k in args.most.split(",") if k]
    stops = [float(t) for t in args.stop_above.split(",") if t]
    rankers = ["" if r == "words" else r for r in args.rank.split(",")]
    long = [r for r in rows if len(" ".join(r["evidence"]).split()) > checker.piece_words]
    report = {
        "date": date.today().isoformat(),
        "checker": checker.name,
        "gate_threshold": checker.gate_threshold,
        "piece_words": checker.piece_words,
        "long": compare(checker, long, most, rankers, stops),
        "pooled": compare(
            checker, pooled_rows(rows, args.pool, args.cap, args.seed), most, rankers, stops
        ),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
