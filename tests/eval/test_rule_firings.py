"""scripts/rule_firings.py: the rows of the training files each rule beneath the checker fires
on, by label, read from a real folder's layout."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


def test_each_rule_counts_the_rows_it_fires_on_by_label(
    bench_script: Callable[[str], ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rule_firings = bench_script("rule_firings")
    (tmp_path / "train").mkdir()
    evidence = ["Jupiter is the fifth planet from the Sun. It was first seen by Galileo in 1610."]
    rows = [
        {"id": "a", "source": "x", "text": "Jupiter is the sixth planet from the Sun.",
         "evidence": evidence, "label": "not_supported"},
        {"id": "b", "source": "x", "text": "Galileo first saw Jupiter in 1611.",
         "evidence": evidence, "label": "not_supported"},
        {"id": "c", "source": "x", "text": "Jupiter is the fifth planet from the Sun.",
         "evidence": evidence, "label": "supported"},
        {"id": "d", "source": "x", "text": "Jupiter was first seen by Galileo in 1610.",
         "evidence": ["Jupiter was not first seen by Galileo in 1610."], "label": "not_supported"},
        {"id": "e", "source": "x", "text": "Delivery is free on all orders.",
         "evidence": ["Delivery is free on orders over £50."], "label": "not_supported"},
    ]  # fmt: skip
    (tmp_path / "train" / "x.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "firings.json"
    monkeypatch.setattr(sys, "argv", ["rule_firings", "--real", str(tmp_path), "--out", str(out)])
    rule_firings.main()
    found = json.loads(out.read_text())
    assert found["year"]["total"] == {"rows": 5, "supported": 0, "not_supported": 1}
    assert found["count"]["total"] == {"rows": 5, "supported": 0, "not_supported": 1}
    assert found["name"]["x.jsonl"] == {"rows": 5, "supported": 0, "not_supported": 0}
    assert found["polarity"]["total"] == {"rows": 5, "supported": 0, "not_supported": 1}
    assert found["scope"]["total"] == {"rows": 5, "supported": 0, "not_supported": 1}
