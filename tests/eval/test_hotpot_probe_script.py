"""scripts/hotpot_probe.py: a claim against its article's paragraph, its question's paragraphs
untitled and titled, and the score of a verdicts file (no model; a HotpotQA file of our own)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

HOTPOT = [{"question": "q", "answer": "a", "context": {
    "title": ["Ulm", "Bonn"],
    "sentences": [["Ulm is a city", " on the Danube."], ["Bonn lies on the Rhine."]]}}]  # fmt: skip


def test_each_claim_is_written_against_its_paragraph_and_its_questions_paragraphs(
    bench_script: Callable[[str], ModuleType], tmp_path: Path
) -> None:
    probe = bench_script("hotpot_probe")
    (tmp_path / "h.json").write_text(json.dumps(HOTPOT))
    (tmp_path / "c.jsonl").write_text(
        json.dumps({"id": "1", "title": "Bonn", "text": "Bonn lies on the Rhine.", "label": "supported"})
        + "\n")  # fmt: skip
    assert probe.build(tmp_path / "c.jsonl", tmp_path / "h.json", str(tmp_path / "o/p")) == {
        "one": 1, "ten": 1, "ten_titled": 1}  # fmt: skip
    read = {
        n: json.loads((tmp_path / f"o/p_{n}.jsonl").read_text())
        for n in ("one", "ten", "ten_titled")
    }
    assert read["one"]["evidence"] == ["Bonn lies on the Rhine."]
    assert read["ten"]["evidence"] == ["Ulm is a city on the Danube.", "Bonn lies on the Rhine."]
    assert read["ten_titled"]["evidence"][0] == {
        "title": "Ulm",
        "text": "Ulm is a city on the Danube.",
    }
    (tmp_path / "c.jsonl").write_text(
        json.dumps({"id": "1", "title": "Paris", "text": "x", "label": "supported"})
    )
    with pytest.raises(SystemExit, match="titles not in"):
        probe.build(tmp_path / "c.jsonl", tmp_path / "h.json", str(tmp_path / "o/p"))


def test_the_score_is_balanced_accuracy_with_the_rows_it_got_wrong(
    bench_script: Callable[[str], ModuleType], tmp_path: Path
) -> None:
    probe = bench_script("hotpot_probe")
    rows = [("a", "supported", True), ("b", "supported", False), ("c", "not_supported", False)]
    (tmp_path / "r.jsonl").write_text(
        "".join(json.dumps({"id": i, "label": lab}) + "\n" for i, lab, _ in rows)
    )
    (tmp_path / "v.jsonl").write_text(
        "".join(json.dumps({"id": i, "supported": s}) + "\n" for i, _, s in rows)
    )
    assert probe.score(tmp_path / "r.jsonl", tmp_path / "v.jsonl") == {
        "balanced_accuracy": 0.75,
        "wrong": ["b"],
    }
    (tmp_path / "v.jsonl").write_text(json.dumps({"id": "a", "supported": True}) + "\n")
    with pytest.raises(SystemExit, match="verdicts for 1 rows"):
        probe.score(tmp_path / "r.jsonl", tmp_path / "v.jsonl")
