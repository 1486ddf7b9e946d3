"""Build a probe's rows from claims written over HotpotQA's Wikipedia paragraphs: each claim
against its article's paragraph alone (``one``), against the ten paragraphs of its question as
plain strings (``ten``, as `favakit verify --input` rows carry them) and as ``{title, text}``
passages (``ten_titled``, as retrieval hands them over). The claims files are
``docs/results/probe_*_claims_*.jsonl`` (``{id, title, text, label}``, ``title`` naming the
claim's article); the paragraphs come from ``../shared/data/wiki/hotpot_dev_distractor_100.json``
(the first question whose paragraphs hold that title).

    python scripts/hotpot_probe.py --claims docs/results/probe_things_claims_s78_2026-12-05.jsonl \\
        --hotpot ../shared/data/wiki/hotpot_dev_distractor_100.json --out runs/probe/things
    favakit verify --input runs/probe/things_ten_titled.jsonl --output runs/probe/things_ten_titled.out.jsonl
    python scripts/hotpot_probe.py score --rows runs/probe/things_ten_titled.jsonl \\
        --verdicts runs/probe/things_ten_titled.out.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from favakit.claim_metrics import balanced_accuracy


def _paragraph(sentences: list[str]) -> str:
    return "".join(sentences).strip()


def build(claims: Path, hotpot: Path, out: str) -> dict[str, int]:
    """Write ``OUT_one.jsonl``, ``OUT_ten.jsonl`` and ``OUT_ten_titled.jsonl``."""
    questions = json.loads(hotpot.read_text())
    where: dict[str, dict[str, Any]] = {}
    for q in questions:
        for title in q["context"]["title"]:
            where.setdefault(title, q["context"])
    rows = [json.loads(line) for line in claims.read_text().splitlines() if line.strip()]
    missing = sorted({r["title"] for r in rows} - set(where))
    if missing:
        raise SystemExit(f"{claims}: titles not in {hotpot}: {missing}")
    forms: dict[str, list[dict[str, Any]]] = {"one": [], "ten": [], "ten_titled": []}
    for r in rows:
        context = where[r["title"]]
        titles, texts = context["title"], [_paragraph(s) for s in context["sentences"]]
        row = {"id": r["id"], "text": r["text"], "label": r["label"]}
        forms["one"].append({**row, "evidence": [texts[titles.index(r["title"])]]})
        forms["ten"].append({**row, "evidence": texts})
        forms["ten_titled"].append(
            {
                **row,
                "evidence": [{"title": t, "text": x} for t, x in zip(titles, texts, strict=True)],
            }
        )
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    for name, got in forms.items():
        Path(f"{out}_{name}.jsonl").write_text("".join(json.dumps(g) + "\n" for g in got))
    return {name: len(got) for name, got in forms.items()}


def score(rows: Path, verdicts: Path) -> dict[str, Any]:
    """Balanced accuracy of ``favakit verify``'s verdicts against the rows' labels, and the ids
    of the rows it got wrong."""
    labels = {r["id"]: r["label"] == "supported" for r in map(json.loads, rows.open())}
    said = {v["id"]: v["supported"] for v in map(json.loads, verdicts.open())}
    if set(said) != set(labels):
        raise SystemExit(f"{verdicts}: verdicts for {len(said)} rows, {rows} has {len(labels)}")
    ids = list(labels)
    calls = [1.0 if said[i] else 0.0 for i in ids]
    ba = balanced_accuracy([labels[i] for i in ids], calls, 0.5)
    return {"balanced_accuracy": round(ba, 4), "wrong": [i for i in ids if said[i] != labels[i]]}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["score"]:
        p = argparse.ArgumentParser(prog="hotpot_probe.py score")
        p.add_argument("--rows", type=Path, required=True)
        p.add_argument("--verdicts", type=Path, required=True)
        a = p.parse_args(argv[1:])
        print(json.dumps(score(a.rows, a.verdicts)))
        return
    p = argparse.ArgumentParser(prog="hotpot_probe.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--claims", type=Path, required=True)
    p.add_argument("--hotpot", type=Path, required=True)
    p.add_argument("--out", required=True, help="path prefix of the three files")
    a = p.parse_args(argv)
    print(json.dumps(build(a.claims, a.hotpot, a.out)))


if __name__ == "__main__":
    main()
