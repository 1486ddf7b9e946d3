"""Progress of a long stage, with its rate and the time left.

On a terminal it is one line rewritten in place; anywhere else (a log file, a pipe, CI) it is a
plain line at most every ``every_s`` seconds and at the end, so no progress-bar control
characters land in a log::

    with Progress(len(texts), "texts", out=sys.stderr) as progress:
        for chunk in chunks:
            work(chunk)
            progress.advance(len(chunk))
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress", "duration"]


def duration(seconds: float) -> str:
    """``75`` -> ``1 min 15 s``; ``8.2`` -> ``8 s``."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class Progress:
    """Counts ``done`` of ``total`` items of one stage and shows it (see the module)."""

    def __init__(
        self,
        total: int,
        unit: str,
        label: str = "",
        out: TextIO | None = None,
        every_s: float = 10.0,
        tty: bool | None = None,
        initial: int = 0,
    ) -> None:
        """``initial``: items already done before this run (a resumed run): counted in
        ``done``, not in the rate."""
        self.total, self.unit, self.label = total, unit, label
        self.out = out if out is not None else sys.stderr
        self.tty = self.out.isatty() if tty is None else tty
        self.every_s = every_s
        self.done = self.initial = initial
        self.started = time.perf_counter()
        self._shown_at = self.started

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def line(self) -> str:
        elapsed = time.perf_counter() - self.started
        head = f"{self.label}: " if self.label else ""
        text = f"{head}{self.done}/{self.total} {self.unit}"
        if self.done > self.initial:
            per = elapsed / (self.done - self.initial)
            rate = f"{1 / per:.1f} {self.unit}/s" if per < 1 else f"{per:.1f} s each"
            left = (self.total - self.done) * per
            text += f", {rate}, {duration(elapsed)} so far"
            if self.done < self.total:
                text += f", about {duration(left)} left"
        return text

    def advance(self, n: int = 1) -> None:
        self.done = min(self.total, self.done + n)
        now = time.perf_counter()
        if self.tty:
            print("\r\x1b[2K" + self.line(), end="", file=self.out, flush=True)
        elif self.done == self.total or now - self._shown_at >= self.every_s:
            print(self.line(), file=self.out, flush=True)
            self._shown_at = now

    def close(self) -> None:
        if self.tty and self.done:
            print(file=self.out, flush=True)
