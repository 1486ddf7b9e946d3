"""scripts/bench_long_evidence.py: padded rows keep each claim's evidence and label, and score
reads verdict files back."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


def test_padding_keeps_evidence_and_labels_and_leaves_own_articles_out(
    bench_script: Callable[[str], ModuleType], tmp_path: Path
) -> None:
    bench = bench_script("bench_long_evidence")
    kb = tmp_path / "kb.db"
    with sqlite3.connect(kb) as db:
        db.execute("CREATE TABLE documents (title TEXT PRIMARY KEY, text TEXT)")
        for i in range(30):
            db.execute(
                "INSERT INTO documents VALUES (?, ?)", (f"Other {i}", f"Filler {i} word. " * 40)
            )
        db.execute("INSERT INTO documents VALUES (?, ?)", ("Ada", "Ada was born in 1815. " * 20))
    claims = tmp_path / "validation.jsonl"
    own = [{"title": "Ada", "text": "Ada was born in 1815."}]
    rows = [
        {"id": "c1", "claim": "Ada was born in 1815.", "label": True, "kind": "supported", "evidence": own, "source_title": "Ada"},
        {"id": "c2", "claim": "Ada was born in 1820.", "label": False, "kind": "swap", "evidence": own, "source_title": "Ada"},
    ]  # fmt: skip
    claims.write_text("".join(json.dumps(r) + "\n" for r in rows))
    padded = bench.build(claims, kb, 500, seed=0)
    assert [(r["id"], r["label"], r["kind"]) for r in padded] == [("c1", True, "supported"), ("c2", False, "swap")]  # fmt: skip
    for r in padded:
        titles = [e["title"] for e in r["evidence"]]
        assert titles.count("Ada") == 1 and own[0] in r["evidence"]
        assert 500 <= sum(len(e["text"].split()) for e in r["evidence"]) < 500 + 300
        assert len(set(titles)) == len(titles)  # one piece an article
    assert bench.build(claims, kb, 500, seed=0) == padded  # seeded
    assert bench.build(claims, kb, 0, seed=0)[0]["evidence"] == own  # --words 0: as given
    verdicts = [{"id": "c1", "supported": True, "score": 0.9}, {"id": "c2", "supported": True, "score": 0.6}]  # fmt: skip
    got = bench.score(padded, verdicts)
    assert got["balanced_accuracy"] == 0.5 and got["auc"] == 1.0 and got["by_kind"] == {"supported": 1.0, "swap": 0.0}  # fmt: skip
    with pytest.raises(SystemExit, match="no verdict"):
        bench.score(padded, verdicts[:1])
