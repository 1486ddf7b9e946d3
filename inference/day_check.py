"""A day of the month the evidence contradicts: a rule beneath the checker's score, beside the
year rule.

The year rule says nothing of a date whose year is right and whose day is not: "Mike Friedrich
was born on March 17, 1949." against "Mike Friedrich (born March 27, 1949) is an American comic
book writer". The checkers mostly read such a day themselves (FEVER teaches it), but not always:
of the 47 training rows this rule fires on, the MiniLM checker alone calls 5 supported (0.39 to
0.73), the mpnet checker none. The rule makes the verdict say why, and keeps such a text out of
the cascade's slower judge. A sentence of the text is contradicted here when

- it gives a date with a day and a month ("March 17", "17 March 1949", "the 17th of March"; a
  year beside it or not; not a range of days), and is not negated;
- the evidence sentence sharing the most of its content words (at least half, and two; as
  :func:`~favakit.inference.year_check.matching_sentence` matches) gives a date of the same month
  with another day (a range, "March 13-15", gives each of its days), and the same year where
  both give one;
- and the passage holding that sentence never gives the text's day of that month (in that year,
  where both give one): a date another sentence gives is the evidence's too ("released on March
  17" against a passage that gives both a premiere and a release date).

Chosen on the training files only (session 78): on their 45,447 rows the rule fires on 47
unsupported rows (44 the year and count rules do not) and no supported one; 3 of them are
development rows, all unsupported. The checker then scores the text at most
:data:`~favakit.inference.year_check.CONFLICT_SCORE` and says why (:meth:`DayConflict.note`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from favakit.inference.year_check import (
    CONFLICT_SCORE,
    matching_sentence,
    negated,
    passage_sentences,
)
from favakit.text import MONTH_NAME, month_number, outermost, split_sentences, undo_ptb

__all__ = ["DayConflict", "DayDate", "day_conflict", "day_dates"]

# a month's name in full or its first three letters ("Sept" too), a dot allowed after it
_MONTH = rf"(?P<{{g}}>{MONTH_NAME}|sept)\b\.?"
_DAY = r"(?P<{g}>[0-3]?\d)(?:st|nd|rd|th)?"
# a range of days: "March 13-15", "13-15 March", "March 13 to 15"
_TO = r"(?:\s*(?:[-\u2013]|to|until|through)\s*(?P<last>[0-3]?\d)(?:st|nd|rd|th)?(?![\d:]))?"
_YEAR = r"(?:,?\s+(?P<{g}>1\d\d\d|20\d\d)(?!\d))?"
# "March 17, 1949", "Mar. 17": month then day; "17 March 1949", "the 17th of March": day then
# month; the year optional either way, a range of days too. A day is 1 to 31 and no longer
# number ("March 2001").
_DATES = [
    re.compile(r"\b" + _MONTH.format(g="m") + r"\s+" + _DAY.format(g="d") + r"(?![\d:])" + _TO
               + _YEAR.format(g="y"), re.IGNORECASE),
    re.compile(r"(?<![\d.,])" + _DAY.format(g="d") + _TO + r"\s+(?:of\s+)?" + _MONTH.format(g="m")
               + _YEAR.format(g="y"), re.IGNORECASE),
]  # fmt: skip


class DayDate(NamedTuple):
    """A date with its day: the month (1-12), the day, the year (0 where none is given), the
    words that give it, where its day is written (``[start, end)`` in the text read, an
    ordinal's "th" left out), and the last day of a range of days ("March 13-15": 15; else the
    day itself)."""

    month: int
    day: int
    year: int
    written: str
    start: int
    end: int
    last: int


class DayConflict(NamedTuple):
    """The text's date, the evidence's dates of that month with another day, that sentence, and
    the days of those dates that are single days (not ranges)."""

    written: str
    evidence_dates: tuple[str, ...]
    sentence: str
    evidence_days: tuple[int, ...]

    def note(self) -> str:
        """What a verdict says of it."""
        others = ", ".join(self.evidence_dates)
        return (f"date contradicted: the text says {self.written} where the evidence says "
                f"{others} (\"{self.sentence}\"); P(supported) at most {CONFLICT_SCORE}")  # fmt: skip


def day_dates(text: str) -> list[DayDate]:
    """The dates with a day that ``text`` gives (module doc), in order."""
    found = []
    for pattern in _DATES:
        for m in pattern.finditer(text):
            day = int(m.group("d"))
            last = int(m.group("last")) if m.group("last") else day
            if 1 <= day <= last <= 31:
                month = month_number(m.group("m"))
                year = int(m.group("y")) if m.group("y") else 0
                date = DayDate(month, day, year, m.group().strip(), m.start("d"), m.end("d"), last)
                found.append((m.start(), m.end(), date))
    return [d for _, _, d in outermost(found, lambda f: (f[0], f[1]))]


def _same_month(a: DayDate, b: DayDate) -> bool:
    """Whether two dates fall in the same month, of the same year where both give one."""
    return a.month == b.month and (not a.year or not b.year or a.year == b.year)


def _same_day(mine: DayDate, theirs: DayDate) -> bool:
    """Whether ``theirs`` gives ``mine``'s day (a range of days gives each of its days)."""
    return _same_month(mine, theirs) and theirs.day <= mine.day <= theirs.last


def _other_day(mine: DayDate, theirs: DayDate) -> bool:
    """Whether ``theirs`` is another day of ``mine``'s month (and year, where both give one)."""
    return _same_month(mine, theirs) and not theirs.day <= mine.day <= theirs.last


def day_conflict(text: str, evidence: Sequence[str]) -> DayConflict | None:
    """The first date of ``text`` whose day the evidence contradicts (module doc), or None."""
    passages = [undo_ptb(e) for e in evidence]
    sentences = passage_sentences(passages)
    if not sentences:
        return None
    given: dict[int, list[DayDate]] = {}  # the dates each passage gives, read once
    for sentence in split_sentences(undo_ptb(text)):
        mine = day_dates(sentence)
        if not mine or negated(sentence):
            continue
        match = matching_sentence(sentence, sentences)
        if match is None:
            continue
        at, best = match
        if at not in given:
            given[at] = day_dates(passages[at])
        theirs = day_dates(best)
        for date in (d for d in mine if d.last == d.day):  # a range of the text's is left
            others = [d for d in theirs if _other_day(date, d)]
            if others and not any(_same_day(date, d) for d in given[at]):
                written = tuple(dict.fromkeys(d.written for d in others))
                days = tuple(dict.fromkeys(d.day for d in others if d.last == d.day))
                return DayConflict(date.written, written, best, days)
    return None
