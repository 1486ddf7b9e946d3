"""Progress of a long stage, with its rate and the time left.

On a terminal it is one line rewritten in place; anywhere else (a log file, a pipe, CI) it is a
plain line at most every ``every_s`` seconds and at the end, so no progress-bar control
characters land in a log::

    with Progress(len(texts), "texts", out=sys.stderr) as progress:
        for chunk in chunks:
            work(chunk)
            progress.advance(len(chunk))

Where items differ in cost (a claim with a page of evidence beside one with a sentence), give
``weights``, each item's expected cost in order: the time left is then the time so far scaled by
the weight still to come over the weight done, not by the count of items.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from itertools import accumulate
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
        total: int | None,
        unit: str,
        label: str = "",
        out: TextIO | None = None,
        every_s: float = 10.0,
        tty: bool | None = None,
        initial: int = 0,
        weights: Sequence[float] | None = None,
    ) -> None:
        """``total``: None where it is not known ahead (a stream): the line then gives the count
        and the rate, no time left. ``initial``: items already done before this run (a resumed
        run): counted in ``done``, not in the rate. ``weights``: each of the ``total`` items'
        expected cost, in the order they are done (the module)."""
        if weights is not None:
            if total is None or len(weights) != total:
                raise ValueError(f"weights: one per item, {total} items, {len(weights)} weights")
            if any(w < 0 for w in weights):
                raise ValueError("weights: an item's expected cost cannot be negative")
        #: the weight of the first n items, n = 0..total
        self._weight_before = None if weights is None else [0.0, *accumulate(map(float, weights))]
        self.total, self.unit, self.label = total, unit, label
        self.out = out if out is not None else sys.stderr
        self.tty = self.out.isatty() if tty is None else tty
        self.every_s = every_s
        self.done = self.initial = initial
        self.started = time.perf_counter()
        self._shown_at = self.started
        self._last_shown = initial
        self._drawn_at = 0.0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def line(self) -> str:
        elapsed = time.perf_counter() - self.started
        head = f"{self.label}: " if self.label else ""
        of = "" if self.total is None else f"/{self.total}"
        text = f"{head}{self.done}{of} {self.unit}"
        if self.done > self.initial:
            per = elapsed / (self.done - self.initial)
            rate = f"{1 / per:.1f} {self.unit}/s" if per < 1 else f"{per:.1f} s each"
            text += f", {rate}, {duration(elapsed)} so far"
            if self.total is not None and self.done < self.total:
                text += f", about {duration(self._seconds_left(elapsed, per))} left"
        return text

    def _seconds_left(self, elapsed: float, per: float) -> float:
        """By the weights where given (and some weight is done), else by the count."""
        assert self.total is not None
        before = self._weight_before
        if before is not None:
            done = before[self.done] - before[self.initial]
            if done > 0:
                return elapsed * (before[self.total] - before[self.done]) / done
        return (self.total - self.done) * per

    def advance(self, n: int = 1) -> None:
        self.done = self.done + n if self.total is None else min(self.total, self.done + n)
        now = time.perf_counter()
        if self.tty:
            if self.done == self.total or now - self._drawn_at >= 0.1:  # at most 10 redraws/s
                print("\r\x1b[2K" + self.line(), end="", file=self.out, flush=True)
                self._drawn_at = now
        elif self.done == self.total or now - self._shown_at >= self.every_s:
            print(self.line(), file=self.out, flush=True)
            self._shown_at = now
            self._last_shown = self.done

    def close(self) -> None:
        if self.tty and self.done:
            print(file=self.out, flush=True)
        elif not self.tty and self.total is None and self.done != self._last_shown:
            print(self.line(), file=self.out, flush=True)  # a stream's final count
