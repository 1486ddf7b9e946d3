"""favakit.progress: rate and time left, plain lines off a terminal, one line on it."""

from __future__ import annotations

import io
import time

import pytest

from favakit.progress import Progress, duration


def test_off_a_terminal_it_prints_plain_lines_with_rate_and_time_left() -> None:
    out = io.StringIO()
    with Progress(4, "texts", "editing", out=out, every_s=0.05) as progress:
        progress.advance()  # too soon after the start for a line
        time.sleep(0.06)
        progress.advance()
        progress.advance(2)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in out.getvalue() and "\x1b" not in out.getvalue()
    assert lines[0].startswith("editing: 2/4 texts, ") and "left" in lines[0]
    assert lines[1].startswith("editing: 4/4 texts, ") and "left" not in lines[1]
    assert "texts/s" in lines[1] or "s each" in lines[1]


def test_on_a_terminal_it_rewrites_one_line_and_counts_a_resumed_run() -> None:
    out = io.StringIO()
    with Progress(10, "responses", out=out, tty=True, initial=6) as progress:
        progress.advance(2)
        progress.advance(2)
    text = out.getvalue()
    assert text.count("\r\x1b[2K") == 2 and text.endswith("\n")
    assert "8/10 responses" in text and "10/10 responses" in text


def test_durations_read_like_a_person_would_say_them() -> None:
    assert (
        duration(8.2) == "8 s" and duration(75) == "1 min 15 s" and duration(7300) == "2 h 01 min"
    )


def test_a_stream_of_unknown_length_gets_its_count_and_rate_and_a_final_line() -> None:
    out = io.StringIO()
    with Progress(None, "documents", "kb build", out=out, every_s=3600) as progress:
        for _ in range(5):
            progress.advance()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kb build: 5 documents, ")
    assert "left" not in lines[0] and "/" not in lines[0].split(",")[0]


def test_a_terminal_is_redrawn_at_most_ten_times_a_second() -> None:
    out = io.StringIO()
    with Progress(10_000, "texts", out=out, tty=True) as progress:
        for _ in range(10_000):
            progress.advance()
    # the first draw, the last, and at most one per 0.1 s in between (the loop takes far less)
    assert 2 <= out.getvalue().count("\r\x1b[2K") <= 4
    assert "10000/10000 texts" in out.getvalue()


def test_weights_set_the_time_left_by_the_work_still_to_come(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from favakit import progress as progress_module

    now = [0.0]
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: now[0])
    weighted = Progress(4, "claims", out=io.StringIO(), weights=[1, 1, 1, 9])
    counted = Progress(4, "claims", out=io.StringIO())
    now[0] = 6.0
    weighted.advance(2)
    counted.advance(2)
    assert weighted.line().endswith("about 30 s left")  # 6 s for 2 of 12: 10 to come
    assert counted.line().endswith("about 6 s left")  # 3 s an item, 2 to come
    resumed = Progress(4, "claims", out=io.StringIO(), initial=1, weights=[5, 1, 1, 9])
    now[0] = 8.0
    resumed.advance(2)  # this run did items 2 and 3 (weight 2) in 2 s: 9 to come
    assert resumed.line().endswith("about 9 s left")


def test_weights_must_be_one_per_item_and_not_negative() -> None:
    with pytest.raises(ValueError, match="one per item"):
        Progress(3, "claims", weights=[1, 2])
    with pytest.raises(ValueError, match="one per item"):
        Progress(None, "claims", weights=[1])
    with pytest.raises(ValueError, match="negative"):
        Progress(2, "claims", weights=[1, -1])
