"""The lenient parser against a corpus of malformed model outputs (data/malformed_outputs.yaml)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from favakit import tags

CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "data" / "malformed_outputs.yaml").read_text(encoding="utf-8")
)


def test_corpus_is_large_and_names_are_unique() -> None:
    assert len(CASES) >= 30
    assert len({c["name"] for c in CASES}) == len(CASES)


def test_every_repair_rule_is_exercised() -> None:
    seen = {name for c in CASES for name in c["repairs"]}
    assert seen == set(tags.REPAIRS)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_lenient_repairs(case: dict[str, Any]) -> None:
    result = tags.parse_lenient(case["input"])
    assert result.counts() == case["repairs"]
    assert result.tagged.original() == case["original"]
    assert result.tagged.corrected() == case["corrected"]
    if "edits" in case:
        assert [[e.type, e.wrong, e.right] for e in result.tagged.edits] == case["edits"]
    # whatever was repaired, the result is canonical: it renders and parses back strictly
    rendered = result.tagged.render()
    assert tags.parse(rendered) == result.tagged
    # spans always slice the original text back to each wrong span
    original = result.tagged.original()
    for span in result.tagged.spans():
        assert original[span.start : span.end] == span.wrong


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_strict_rejects_what_lenient_repairs(case: dict[str, Any]) -> None:
    if not case["repairs"]:
        tags.parse(case["input"])  # needed no repair: strictly valid
        return
    with pytest.raises(tags.TagParseError) as info:
        tags.parse(case["input"])
    assert info.value.rule in case["repairs"]
