"""scripts/rewrite_probe.py: meaning-kept rewrites of supported claims, and the rules that fire
on them (no model), from a real file's rows."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


def test_rewrites_keep_the_meaning_and_leave_other_text_alone(
    bench_script: Callable[[str], ModuleType],
) -> None:
    rewrites = bench_script("rewrite_probe").REWRITES
    text = "On March 3, 2001, 3 teams from Saint Paul paid $2.5 million and 1,200 people didn't."
    assert rewrites["date_iso"](text).startswith("On 2001-03-03, 3 teams")
    assert rewrites["date_month_abbreviated"](text).startswith("On Mar. 3, 2001,")
    assert rewrites["small_numbers_in_words"](text).startswith("On March 3, 2001, three teams")
    assert "St. Paul" in rewrites["saint_abbreviated"](text)
    assert "$2.5m and 1200 people" in rewrites["thousands_unseparated"](
        rewrites["million_abbreviated"](text)
    )
    assert "didn\u2019t" in rewrites["curly_apostrophes"](text)
    assert rewrites["half_in_words"]("It took 2.5 hours, not 12.5.") == (
        "It took two and a half hours, not 12.5."
    )
    assert rewrites["half_a_scale"]("500,000 people, 1,500,000 cars") == (
        "half a million people, 1,500,000 cars"
    )
    # a decimal's digit, an ordinal, a year: never a number in words
    for kept in ["It grew 2.5 times.", "The 2nd round.", "In 2001 it rained."]:
        assert rewrites["small_numbers_in_words"](kept) == kept


def test_the_probe_lists_each_rewrite_a_rule_fires_on(
    bench_script: Callable[[str], ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = bench_script("rewrite_probe")
    navy = ["After serving in the U.S. Navy in 1945, he came back to play for the Cats."]
    rows = [
        # "U.S. Armed Forces" against "U.S. Navy": a name rule firing the probe finds (a
        # hypernym read as another name; not fixed)
        {"id": "a", "source": "x", "text": "He served in the United States Armed Forces.",
         "evidence": navy, "label": "supported"},
        {"id": "b", "source": "x", "text": "The treaty was signed on March 3, 2001.",
         "evidence": ["The treaty was signed on 3 March 2001 in Geneva."], "label": "supported"},
        {"id": "c", "source": "x", "text": "He played for the Dogs in 1945.",
         "evidence": navy, "label": "not_supported"},
    ]  # fmt: skip
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "probe.json"
    monkeypatch.setattr(sys, "argv", ["rewrite_probe", "--files", str(path), "--out", str(out)])
    probe.main()
    found = json.loads(out.read_text())
    assert found["rows"] == 2  # supported rows only
    assert found["fired"] == {"us_as_initials": 1}
    assert found["rewrites"]["date_month_abbreviated"] == 1  # made, and no rule fires on it
    (example,) = found["examples"]
    assert example["id"] == "a" and example["note"].startswith("name contradicted")
