"""scripts/bench_checker.py --speed-file: claims cut to exactly N words of evidence, and the
judges timed side by side, all claims in one call and one claim a call (the real MiniLM
checker)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest


def _row(claim: str, words: int, passages: int = 2) -> dict[str, object]:
    per = words // passages
    return {"text": claim, "label": "supported",
            "evidence": [" ".join(f"w{p}_{i}" for i in range(per)) for p in range(passages)]}  # fmt: skip


def test_rows_are_cut_to_exactly_the_words_asked_and_short_ones_skipped(
    bench_script: Callable[[str], ModuleType],
) -> None:
    bench = bench_script("bench_checker")
    rows = [_row("a", 50), _row("b", 300), _row("c", 200), _row("d", 400)]
    got = bench.cut_words(rows, 200, 2)
    assert [r["text"] for r in got] == ["b", "c"]  # "a" is too short, "d" is not needed
    for r in got:
        assert len(r["evidence"]) == 1 and len(r["evidence"][0].split()) == 200
        assert "label" not in r  # timing reads no labels
    assert got[0]["evidence"][0].split()[-1] == "w1_49"  # the passages joined in order
    with pytest.raises(SystemExit, match="only 3 rows with 200 words"):
        bench.cut_words(rows, 200, 4)


def test_slow_judges_read_every_row_only_when_asked(
    bench_script: Callable[[str], ModuleType],
) -> None:
    bench = bench_script("bench_checker")
    assert bench.reads_every_row("checker", every_row=False, sample_only=False)
    assert not bench.reads_every_row("cascade", every_row=False, sample_only=False)
    assert bench.reads_every_row("cascade", every_row=True, sample_only=False)
    assert not bench.reads_every_row("checker", every_row=True, sample_only=True)


@pytest.mark.slow
def test_each_judge_is_timed_in_both_ways_every_round(
    bench_script: Callable[[str], ModuleType],
) -> None:
    from favakit.inference.factory import open_verifier

    bench = bench_script("bench_checker")
    rows = bench.cut_words([_row(f"claim {i}", 60) for i in range(3)], 60, 3)
    checker = open_verifier("checker", checker="checker")
    out = bench.speed_sets({"checker": checker}, rows, rounds=2, words=60)
    assert {r["calls"] for r in out} == {"batched", "one by one"}
    for r in out:
        assert r["judge"] == "checker" and r["model"] == "favakit-checker-minilm"
        assert r["claims"] == 3 and r["set"] == "speed: 60 words"
        assert len(r["claims_per_s_each_round"]) == 2
        assert min(r["claims_per_s_each_round"]) <= r["claims_per_s"]
        assert r["claims_per_s"] <= max(r["claims_per_s_each_round"])


def test_pieced_counts_evidence_read_in_pieces_not_every_note(
    bench_script: Callable[[str], ModuleType],
) -> None:
    """A rule's note (here the count rule's) is a warning too; ``pieced`` counts only the
    reading notes, ``with_warnings`` all (the real MiniLM checker)."""
    from favakit.inference.factory import open_verifier

    bench = bench_script("bench_checker")
    checker = open_verifier("checker", checker="checker")
    long = " ".join(f"Sentence {i} says that the city of Lund has a cathedral." for i in range(60))
    rows = [
        {"text": "The team had 24 players.", "evidence": ["The team had 23 players."],
         "label": "not_supported"},
        {"text": "Lund has a cathedral.", "evidence": [long], "label": "supported"},
        {"text": "Lund has a cathedral.", "evidence": ["Lund has a cathedral."],
         "label": "supported"},
    ]  # fmt: skip
    got = bench.measure(checker, rows)
    assert (got["pieced"], got["with_warnings"]) == (1, 2)
