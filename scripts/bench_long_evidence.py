"""How a judge holds up when the supporting passages sit inside a long document.

Real (claim, evidence) pairs often come with whole articles, not the few sentences a verifier was
trained on. This takes favakit's own synthetic validation claims (``favakit synth claims``; each row
has ``claim``, ``evidence``, ``label``, ``kind``), pads each claim's evidence with passages of
*other* articles of a knowledge source until it is about ``--words`` long (the original passages
at a seeded random position, so labels do not change), and writes ``favakit verify`` rows:

    python scripts/bench_long_evidence.py build --claims runs/verifier2/claims/validation.jsonl \
        --kb runs/verifier/kb.db --words 2500 --out runs/long/padded.jsonl
    favakit verify --input runs/long/padded.jsonl --output runs/long/whole.jsonl
    favakit verify --input runs/long/padded.jsonl --output runs/long/pieces.jsonl --chunk-words 400
    python scripts/bench_long_evidence.py score --rows runs/long/padded.jsonl \
        --verdicts runs/long/whole.jsonl runs/long/pieces.jsonl

``score`` prints, per verdict file, balanced accuracy (overall and by kind) and the AUC of the
scores, as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from favakit.inference.judges import evidence_chunks, evidence_words
from favakit.retrieval.kb import KnowledgeSource

sys.path.insert(0, str(Path(__file__).parent))
from bench_verify import agreement, auc


def build(claims: Path, kb: Path, words: int, seed: int) -> list[dict[str, Any]]:
    """``favakit verify`` rows (with ``label`` and ``kind``) whose evidence is padded to about
    ``words`` words with the first 300 words (cut at a sentence end) of other articles of ``kb``,
    one piece an article."""
    with KnowledgeSource(kb) as source:
        docs = {title: " ".join(source.get(title)) for title in sorted(source.titles())}
    out = []
    for line in claims.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        evidence = [{"title": e["title"], "text": e["text"]} for e in row["evidence"]]
        own = {e["title"] for e in evidence} | {row.get("source_title"), row.get("topic")}
        rng = random.Random(f"{seed}:{row['id']}")
        others = [t for t in docs if t not in own]
        rng.shuffle(others)
        padding: list[dict[str, str]] = []
        need = words - evidence_words(evidence)
        for title in others:
            if need <= 0:
                break
            padding.append(evidence_chunks([{"title": title, "text": docs[title]}], 300)[0][0])
            need -= evidence_words(padding[-1:])
        at = rng.randint(0, len(padding))
        out.append({
            "id": row["id"],
            "text": row["claim"],
            "evidence": padding[:at] + evidence + padding[at:],
            "label": bool(row["label"]),
            "kind": row["kind"],
        })  # fmt: skip
    return out


def score(rows: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    by_id = {v["id"]: v for v in verdicts}
    missing = [r["id"] for r in rows if r["id"] not in by_id]
    if missing:
        raise SystemExit(f"{len(missing)} rows have no verdict (first: {missing[0]})")
    human = [r["label"] for r in rows]
    judged = [bool(by_id[r["id"]]["supported"]) for r in rows]
    kinds: dict[str, float] = {}
    for kind in sorted({r["kind"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["kind"] == kind]
        kinds[kind] = round(sum(human[i] == judged[i] for i in idx) / len(idx), 3)
    warned = sum(1 for r in rows if by_id[r["id"]].get("warnings"))
    return {
        **{k: round(v, 4) for k, v in agreement(human, judged).items()},
        "auc": auc(human, [by_id[r["id"]].get("score") for r in rows]),
        "by_kind": kinds,
        "claims": len(rows),
        "warned": warned,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="write padded favakit verify rows")
    b.add_argument("--claims", type=Path, required=True, help="synth claims validation.jsonl")
    b.add_argument("--kb", type=Path, required=True, help="knowledge source (sqlite documents)")
    b.add_argument("--words", type=int, default=2500, help="evidence words a claim (about)")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("score", help="balanced accuracy of verdict files against the rows")
    s.add_argument("--rows", type=Path, required=True)
    s.add_argument("--verdicts", type=Path, nargs="+", required=True)
    args = ap.parse_args()
    if args.cmd == "build":
        rows = build(args.claims, args.kb, args.words, args.seed)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        sizes = sorted(evidence_words(r["evidence"]) for r in rows)
        print(f"{len(rows)} rows, evidence words min {sizes[0]} median {sizes[len(sizes) // 2]} "
              f"max {sizes[-1]} -> {args.out}")  # fmt: skip
        return
    rows = [json.loads(x) for x in args.rows.read_text(encoding="utf-8").splitlines() if x.strip()]
    report = {}
    for path in args.verdicts:
        verdicts = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]
        report[str(path)] = score(rows, verdicts)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
