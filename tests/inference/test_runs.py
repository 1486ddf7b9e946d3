from __future__ import annotations

import io
from typing import Any

import pytest

from favakit.contracts import EditRequest
from favakit.inference import runs
from favakit.progress import Progress, duration
from favakit.prompts import Reference


def _progress_into(out: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    """run_rows' progress as plain lines into ``out``, one per chunk."""
    monkeypatch.setattr(
        runs, "progress_bar",
        lambda total, show, desc, unit, weights: Progress(
            total, f"{unit}s", desc, out=out, every_s=0, tty=False, weights=weights
        ),
    )  # fmt: skip


def test_progress_counts_a_chunk_when_its_results_come(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk's results come at once: counted one by one, the first of a chunk would read as
    having taken the whole chunk's time, and the time left would be several times too long."""
    out = io.StringIO()
    _progress_into(out, monkeypatch)
    calls: list[list[str]] = []

    def stage() -> Any:
        def edit(requests: list[EditRequest]) -> list[dict[str, Any]]:
            calls.append([r.text for r in requests])
            return [{"corrected": r.text.upper()} for r in requests]

        return edit

    rows = [(f"r{i}", EditRequest(f"text {i}")) for i in range(7)]
    got = runs.run_rows(rows, stage, batch=3, progress=True)
    assert [r["id"] for r in got] == [f"r{i}" for i in range(7)]
    assert [r["corrected"] for r in got] == [f"TEXT {i}" for i in range(7)]
    assert [len(c) for c in calls] == [3, 3, 1]
    counts = [line.split(" texts")[0].rsplit(" ", 1)[-1] for line in out.getvalue().splitlines()]
    assert counts == ["3/7", "6/7", "7/7"]


def test_a_rows_work_is_its_words_and_the_evidence_a_judge_reads() -> None:
    bare = EditRequest("one two three")
    assert runs.row_work(bare) == runs.ROW_OVERHEAD_WORDS + 3
    short = EditRequest("one two three", evidence=[Reference("four five"), Reference("six")])
    assert runs.row_work(short) == runs.ROW_OVERHEAD_WORDS + 3 + 3
    page = EditRequest("one", evidence=[Reference("word " * 5000)])
    assert runs.row_work(page) == runs.ROW_OVERHEAD_WORDS + 1 + runs.EVIDENCE_WORDS_READ


def test_the_time_left_weighs_the_rows_still_to_come(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short rows first, a long one last (a file sorted by source): after the short rows the
    line must not promise the end as if the long row cost what a short one did."""
    from favakit import progress as progress_module

    now = [0.0]
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: now[0])
    out = io.StringIO()
    _progress_into(out, monkeypatch)

    def stage() -> Any:
        def edit(requests: list[EditRequest]) -> list[dict[str, Any]]:
            now[0] += 5.0 * len(requests)  # each short row takes 5 s
            return [{"corrected": r.text} for r in requests]

        return edit

    page = [Reference("word " * runs.EVIDENCE_WORDS_READ)]
    rows = [("a", EditRequest("x")), ("b", EditRequest("x")),
            ("c", EditRequest("x", evidence=page))]  # fmt: skip
    runs.run_rows(rows, stage, batch=2, progress=True)
    first = out.getvalue().splitlines()[0]
    short, long = (
        runs.ROW_OVERHEAD_WORDS + 1,
        runs.ROW_OVERHEAD_WORDS + 1 + len(page[0].text.split()),
    )
    left = 10.0 * long / (2 * short)  # 2 short rows took 10 s; by their count: 5 s
    assert left > 60 and first.startswith("edit: 2/3 texts")
    assert first.endswith(f"about {duration(left)} left"), first


def test_a_run_resumed_with_another_judge_is_refused_before_it_writes(tmp_path: Any) -> None:
    """An output written by one judge and resumed by another used to hold both judges' rows,
    with nothing said."""
    import json

    from favakit.errors import UsageError

    def judge(name: str) -> Any:
        return lambda: lambda reqs: [{"supported": True, "judge": name} for _ in reqs]

    rows = [(str(i), EditRequest(f"claim {i}")) for i in range(4)]
    out = tmp_path / "verdicts.jsonl"
    runs.run_rows(rows[:2], judge("minilm"), output=str(out), same="judge")
    with pytest.raises(UsageError, match=r"holds rows by judge minilm, and this run's judge is "
                                         r"mpnet: resuming would mix the two"):  # fmt: skip
        runs.run_rows(rows, judge("mpnet"), output=str(out), same="judge")
    assert [json.loads(line)["judge"] for line in out.read_text().splitlines()] == ["minilm"] * 2
    runs.run_rows(rows, judge("minilm"), output=str(out), same="judge")  # the same judge resumes
    assert len(out.read_text().splitlines()) == 4


def test_a_finished_output_says_whose_rows_it_holds(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A finished file gives another judge no result to compare: `verify --judge X` said only
    that nothing was left to do, and the verdicts it left were another judge's."""

    def judge(name: str) -> Any:
        return lambda: lambda reqs: [{"supported": True, "judge": name} for _ in reqs]

    rows = [(str(i), EditRequest(f"claim {i}")) for i in range(2)]
    out = tmp_path / "verdicts.jsonl"
    runs.run_rows(rows, judge("minilm"), output=str(out), same="judge")
    capsys.readouterr()
    assert runs.run_rows(rows, judge("mpnet"), output=str(out), same="judge", desc="verify") == []
    assert capsys.readouterr().err == (
        f"favakit verify: 2 id(s) already in {out} (their judge: minilm)\n"
    )
