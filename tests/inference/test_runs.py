from __future__ import annotations

import io
from typing import Any

import pytest

from favakit.contracts import EditRequest
from favakit.inference import runs
from favakit.progress import Progress


def test_progress_counts_a_chunk_when_its_results_come(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk's results come at once: counted one by one, the first of a chunk would read as
    having taken the whole chunk's time, and the time left would be several times too long."""
    out = io.StringIO()
    monkeypatch.setattr(
        runs, "progress_bar",
        lambda total, show, desc, unit: Progress(total, f"{unit}s", desc, out=out, every_s=0, tty=False),
    )  # fmt: skip
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
