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

One item can be long work of its own (a pasted document in ``favakit edit``: minutes in which a
bar over items shows nothing). The code that does such work counts its parts with :func:`work`
(the checker's sentence-evidence pairs, the tokens a model writes); they are shown only inside
:func:`showing_work`, which a command opens around one long item, and only once a part has run a
few seconds::

    with showing_work("favakit edit"):      # the command
        editor.edit_many([request])

    with work("the checker reads sentences against evidence", len(pairs), "pair") as advance:
        for batch in batches:               # the component
            advance(len(batch))
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from itertools import accumulate
from typing import TextIO

__all__ = ["Progress", "counted", "duration", "showing_work", "work", "work_shown"]


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
        quiet_s: float = 0.0,
        expected: int | None = None,
    ) -> None:
        """``total``: None where it is not known ahead (a stream): the line then gives the count
        and the rate, no time left. ``initial``: items already done before this run (a resumed
        run): counted in ``done``, not in the rate. ``weights``: each of the ``total`` items'
        expected cost, in the order they are done (the module). ``quiet_s``: nothing is shown
        before this many seconds from the start, so work that ends sooner shows nothing.
        ``expected``: with no ``total``, an estimate of it (the tokens a model will write):
        the line gives "N of about M" and a time left until N reaches it, then the count alone;
        that time left goes by the rate since the first count, as a model's first token comes
        after it has read its prompt."""
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
        self.every_s, self.quiet_s = every_s, quiet_s
        self.expected = expected if total is None else None
        self.done = self.initial = initial
        self.started = time.perf_counter()
        self._shown_at = self.started
        self._last_shown = initial
        self._drawn_at = 0.0
        self._drawn = False  # a line is on the terminal, to be ended at close
        self._first: tuple[float, int] | None = None  # when the first count came, and done then

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def line(self) -> str:
        elapsed = time.perf_counter() - self.started
        head = f"{self.label}: " if self.label else ""
        expecting = self.expected is not None and self.done < self.expected
        of = f"/{self.total}" if self.total is not None else ""
        if expecting:
            of = f" of about {self.expected}"
        text = f"{head}{self.done}{of} {self.unit}"
        if self.done > self.initial:
            per = elapsed / (self.done - self.initial)
            rate = f"{1 / per:.1f} {self.unit}/s" if per < 1 else f"{per:.1f} s each"
            text += f", {rate}, {duration(elapsed)} so far"
            if self.total is not None and self.done < self.total:
                text += f", about {duration(self._seconds_left(elapsed, per))} left"
            elif expecting and self._first is not None and self.done > self._first[1]:
                # by the rate since the first count: a model reads its prompt before its first
                # token, which the tokens after it do not repeat
                at, done = self._first
                each = (time.perf_counter() - at) / (self.done - done)
                assert self.expected is not None
                text += f", about {duration((self.expected - self.done) * each)} left"
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
        if self._first is None:
            self._first = (now, self.done)
        if now - self.started < self.quiet_s:
            return
        if self.tty:
            if self.done == self.total or now - self._drawn_at >= 0.1:  # at most 10 redraws/s
                print("\r\x1b[2K" + self.line(), end="", file=self.out, flush=True)
                self._drawn_at, self._drawn = now, True
        elif self.done == self.total or now - self._shown_at >= self.every_s:
            print(self.line(), file=self.out, flush=True)
            self._shown_at = now
            self._last_shown = self.done

    def close(self) -> None:
        estimated, self.expected = self.expected is not None, None  # done: the count alone
        if self.tty and self._drawn:
            print("\r\x1b[2K" + self.line() if estimated else "", file=self.out, flush=True)
        elif (not self.tty and self.total is None and self.done != self._last_shown
              and time.perf_counter() - self.started >= self.quiet_s):  # fmt: skip
            print(self.line(), file=self.out, flush=True)  # a stream's final count


# -- progress within one item ------------------------------------------------------------------

#: how a part of the work is shown (:func:`showing_work`): its Progress, made from its
#: description, total, unit and expected total; None where nothing is shown
_SHOWN: ContextVar[Callable[[str, int | None, str, int | None], Progress] | None] = ContextVar(
    "favakit_work_shown", default=None
)
#: the part now open and shown (:func:`work`), and its unit
_OPEN: ContextVar[tuple[Progress, str] | None] = ContextVar("favakit_work_open", default=None)


@contextlib.contextmanager
def showing_work(label: str, out: TextIO | None = None, after_s: float = 5.0) -> Iterator[None]:
    """Within this block, each part of the work counted with :func:`work` that runs longer
    than ``after_s`` seconds is shown on ``out`` (stderr) as ``label: what: done/total unit,
    rate, time so far, time left``: one line rewritten on a terminal, a plain line every 10 s
    and at its end elsewhere. For one long item, where a bar over items shows nothing."""

    def shown(what: str, total: int | None, unit: str, expected: int | None) -> Progress:
        return Progress(total, f"{unit}s", f"{label}: {what}", out=out, quiet_s=after_s,
                        expected=expected)  # fmt: skip

    token = _SHOWN.set(shown)
    try:
        yield
    finally:
        _SHOWN.reset(token)


def _nothing(n: int = 1) -> None:
    pass


@contextlib.contextmanager
def work(
    what: str, total: int | None, unit: str, expected: int | None = None
) -> Iterator[Callable[[int], None]]:
    """A part of the work, ``total`` ``unit``s (None: not known ahead; ``expected``, an estimate
    of it, gives a time left), counted by calling what this yields with the number just done. It
    is shown inside :func:`showing_work` only, and only where no other part is open (the outer
    part is what the user follows); elsewhere, as in a server, it costs nothing."""
    shown = _SHOWN.get()
    if shown is None or not work_shown():
        yield _nothing
        return
    with shown(what, total, unit, expected) as progress:
        token = _OPEN.set((progress, unit))
        try:
            yield progress.advance
        finally:
            _OPEN.reset(token)


def work_shown() -> bool:
    """Whether a part opened here now would be shown (:func:`work`): what an estimate that
    costs something to make (``expected``) is made for."""
    return _SHOWN.get() is not None and _OPEN.get() is None


def counted(unit: str) -> Callable[[int], None] | None:
    """The count of the open part (:func:`work`) where it counts ``unit``s, else None: a model
    that writes tokens adds them to a part counted in tokens that its caller opened (the editor
    names the part; the model knows the tokens)."""
    opened = _OPEN.get()
    return opened[0].advance if opened is not None and opened[1] == unit else None
