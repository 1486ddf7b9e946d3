"""favakit.progress: rate and time left, plain lines off a terminal, one line on it."""

from __future__ import annotations

import io
import time

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
