"""scripts/bench_eval.py --judges: facts of a labelled bio (in the Flaherty file's shape) scored
by favakit's own judges as `favakit eval factscore` scores them, against the human labels, with
a real KB and the shipped MiniLM checker."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


def _bio(path: Path) -> Path:
    """A labelled bio: two facts (one supported by the topic's article) and another article."""
    atoms = [("a0", "Ada Lovelace was born in 1815.", "S"),
             ("a1", "Ada Lovelace was a French painter.", "NS")]  # fmt: skip
    path.write_text(json.dumps({
        "topic": "Ada Lovelace", "output": "Ada Lovelace was born in 1815. She was a French painter.",
        "atoms": [{"id": i, "text": t, "label": lab} for i, t, lab in atoms],
        "contexts": [
            {"id": "c0", "title": "Ada Lovelace", "text": "Ada Lovelace was an English "
             "mathematician. She wrote about the Analytical Engine. She was born in 1815."},
            {"id": "c1", "title": "Kepler", "text": "Kepler was an astronomer."},
        ],
    }))  # fmt: skip
    return path


def test_own_judges_score_the_facts_against_people(
    bench_script: Callable[[str], ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = bench_script("bench_eval")
    out = tmp_path / "result.json"
    argv = ["bench_eval.py", "--flaherty", str(_bio(tmp_path / "bio.json")), "--judges",
            "checker", "--work", str(tmp_path / "work"), "--out", str(out)]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    assert bench.main() == 0
    (row,) = json.loads(out.read_text())["results"]
    assert row["judge"] == "checker" and row["verdicts"] == {"favakit-checker-minilm": 2}
    assert row["decisions"] == [{"atom_id": "a0", "is_supported": True},
                                {"atom_id": "a1", "is_supported": False}]  # fmt: skip
    assert row["init_score"] == row["human_factscore"] == 0.5  # two facts: no penalty here
    assert row["factscore"] == pytest.approx(0.5 * math.exp(1 - 10 / 2), abs=1e-4)
    assert row["balanced_accuracy"] == 1.0 and row["agreement"]["accuracy"] == 1.0
    assert "Ada" not in json.dumps(row["decisions"])  # no fact's text is written
    monkeypatch.setattr(sys, "argv", [*argv[:4], "gpt", *argv[5:]])
    with pytest.raises(SystemExit, match="'gpt' is not one of checker, mpnet, cascade, qwen"):
        bench.main()
