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


def test_work_that_ends_before_quiet_s_shows_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from favakit import progress as progress_module

    now = [0.0]
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: now[0])
    for tty in (False, True):
        out = io.StringIO()
        with Progress(3, "pairs", "check", out=out, tty=tty, quiet_s=5) as quick:
            now[0] += 4.0
            quick.advance(3)  # done, 4 s in: not even the final line
        assert out.getvalue() == ""
        with Progress(None, "tokens", "edit", out=out, tty=tty, quiet_s=5, every_s=10) as slow:
            now[0] += 4.0
            slow.advance(7)
            now[0] += 11.0  # 15 s in
            slow.advance(5)
        assert "edit: 12 tokens, " in out.getvalue() and "7 tokens" not in out.getvalue()


def test_work_within_one_item_shows_only_where_a_command_asks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long text is one item to a bar over rows: its parts (the tokens the editor writes, the
    pairs the checker reads) show inside ``showing_work`` only, the outer part alone where two
    are open, and a model's tokens count only toward a part counted in tokens."""
    from favakit import progress as progress_module
    from favakit.progress import counted, showing_work, work

    now = [0.0]
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: now[0])
    with work("checking", 4, "pair") as advance:  # no command shows work: nothing happens
        advance(4)
        assert counted("pair") is None
    out = io.StringIO()
    with showing_work("favakit edit", out=out, after_s=5):
        with work("editing 2 windows with m", None, "token"):
            step = counted("token")
            assert step is not None and counted("pair") is None
            with work("an inner part", 3, "pair") as inner:  # not shown: the outer one is
                inner(3)
            now[0] += 6.0
            for _ in range(9):
                step(1)
        with work("checking with c", 4, "pair") as advance:
            now[0] += 1.0
            advance(4)  # a part that ends within after_s: nothing
        assert counted("token") is None  # no part is open
    lines = out.getvalue().splitlines()
    assert lines == ["favakit edit: editing 2 windows with m: 9 tokens, 1.5 tokens/s, 6 s so far"]
    with work("after the block", None, "token"):
        assert counted("token") is None


def test_an_expected_total_gives_a_time_left_until_the_count_passes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The tokens a model will write are not known ahead, only about: "N of about M" and a time
    left while N is short of M (by the rate since the first token: reading the prompt before
    it is not repeated), the count alone past it and in the final line."""
    from favakit import progress as progress_module

    now = [0.0]
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: now[0])
    out = io.StringIO()
    with Progress(None, "tokens", "edit", out=out, every_s=4.5, expected=40) as progress:
        now[0] = 4.0
        progress.advance(1)  # the prompt read: 4 s; no rate yet to tell the time left by
        now[0] = 5.0
        progress.advance(9)  # 9 tokens in 1 s: 30 to come, about 3 s
        now[0] = 30.0
        progress.advance(35)  # past the estimate
        now[0] = 31.0
        progress.advance(1)
    assert out.getvalue().splitlines() == [
        "edit: 10 of about 40 tokens, 2.0 tokens/s, 5 s so far, about 3 s left",
        "edit: 45 tokens, 1.5 tokens/s, 30 s so far",
        "edit: 46 tokens, 1.5 tokens/s, 31 s so far",
    ]
    short = io.StringIO()
    with Progress(None, "tokens", out=short, tty=True, expected=40) as progress:
        now[0] = 33.0
        progress.advance(20)  # it ends short of the estimate: the last line says no time left
    assert "20 of about 40 tokens" in short.getvalue()
    assert short.getvalue().rsplit("\r\x1b[2K", 1)[1].startswith("20 tokens, ")
    assert "left" not in short.getvalue().rsplit("\r\x1b[2K", 1)[1]
