"""Dates in a form the checkers misread, written with the month in full before they read them.

The encoder checkers read a date's form as they read a number's (:mod:`number_forms`): against
"signed on 3 March 2001", the mpnet checker gives "signed on 2001-03-03" P(supported) 0.24, "on 3
Mar 2001" 0.02 and "on Mar. 3, 2001" 0.03, but "on March 3, 2001" and "on the 3rd of March 2001"
0.98-0.99. Evidence that writes "2001-03-03" fails the same way: "3 March 2001" against it 0.24,
and "5/5/2001", another date, 0.73. So before a checker reads a text and its evidence, each date
of either in such a form is written with its month in full (:func:`in_full`: "3 March 2001",
"March 2001"), whatever the other side says. Dates with the month in full are left as written:
the checkers read "March 3, 2001" and "3rd March 2001" alike (0.98-0.99).

Forms read (:func:`calendar_dates`), month names in any case, an ordinal day allowed ("3rd"):

* ``2001-03-03`` (ISO);
* ``March 3, 2001`` (comma or not) and ``3 March 2001`` (``the 3rd of March, 2001``), the month
  in full or abbreviated ("Mar", "Mar.", "Sept");
* ``March 2001``, likewise;
* ``3/3/2001`` only where it reads one way: the day over 12, or day and month equal
  (``4/3/2001`` is April or March by the writer's country, and is left alone).

A weekday beside a date is left as written. The verdict says which of the text's dates were
read in full (:class:`DateForm`); the text itself, its edits and its spans are never changed.
The token head, which marks the text's words, reads the evidence as written.
"""

from __future__ import annotations

import calendar
import re
from typing import NamedTuple

from favakit.text import MONTH_NAME, MONTHS, month_number, outermost

__all__ = ["CalendarDate", "DateForm", "calendar_dates", "in_full"]

#: a month in full or abbreviated to three letters, a dot allowed after those; "Sept" too
_MONTH = rf"{MONTH_NAME}|sept\.?"
_ORDINAL = r"(?:st|nd|rd|th)?"
_FORMS = [
    # never inside a URL or a path ("/news/2018-03-23/"), a code or a range ("1990-2001")
    re.compile(r"(?<![\w/-])(?P<y>\d{4})-(?P<m>\d\d)-(?P<d>\d\d)(?![\w/-])"),
    re.compile(r"(?<![\w/])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4})(?![\w/])"),
    re.compile(
        rf"\b(?P<month>{_MONTH})\s+(?P<d>\d{{1,2}}){_ORDINAL},?\s+(?P<y>\d{{4}})(?!\w)",
        re.IGNORECASE,
    ),
    re.compile(
        rf"\b(?:the\s+)?(?P<d>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?(?P<month>{_MONTH}),?\s+"
        rf"(?P<y>\d{{4}})(?!\w)",
        re.IGNORECASE,
    ),
    re.compile(rf"\b(?P<month>{_MONTH}),?\s+(?P<y>\d{{4}})(?!\w)", re.IGNORECASE),
]


class CalendarDate(NamedTuple):
    """A date written in a text: where, its value (``day`` 0 where none is given), as written."""

    start: int
    end: int
    year: int
    month: int
    day: int
    written: str
    #: the month's name in full ("March 3, 2001", "the 3rd of May"): a form the checkers read
    #: alike in any order; not an ISO, slashed or abbreviated date ("2001-03-03", "Mar. 3")
    full_month: bool

    @property
    def value(self) -> tuple[int, int, int]:
        return self.year, self.month, self.day


class DateForm(NamedTuple):
    """A date of the text, as written there and as the checker read it."""

    written: str
    read: str

    def note(self) -> str:
        """What a verdict says of it."""
        return f'date read with its month in full: "{self.written}" as "{self.read}"'


def _value(groups: dict[str, str | None]) -> tuple[int, int, int] | None:
    """(year, month, day) of a match's groups, None where it is no date or reads two ways."""
    year = int(groups["y"] or 0)
    if groups.get("a") is not None:  # D/M/YYYY or M/D/YYYY: only where it reads one way
        a, b = int(groups["a"] or 0), int(groups["b"] or 0)
        if a == b or (a > 12 >= b):
            month, day = b, a
        elif b > 12 >= a:
            month, day = a, b
        else:
            return None
    else:
        name = groups.get("month")
        month = month_number(name) if name else int(groups["m"] or 0)
        day = int(groups.get("d") or 0)
        if groups.get("d") is not None and day == 0:
            return None
    if not 1 <= month <= 12 or year < 1000:
        return None
    if day > calendar.monthrange(year, month)[1]:
        return None
    return year, month, day


def calendar_dates(text: str) -> list[CalendarDate]:
    """The dates ``text`` writes (module doc), in order; where two forms overlap, the one that
    starts first, then the longer ("3 March 2001", not "March 2001")."""
    found = []
    for form in _FORMS:
        for m in form.finditer(text):
            value = _value(m.groupdict())
            if value is not None:
                month = (m.groupdict().get("month") or "").lower()
                found.append(CalendarDate(m.start(), m.end(), *value, m.group(), month in MONTHS))
    return outermost(found, lambda d: (d.start, d.end))


def in_full(text: str) -> tuple[str, list[DateForm]]:
    """``text`` with each date in a form the checkers misread written with its month in full
    ("2001-03-03", "3 Mar 2001" -> "3 March 2001"; "Sept. 1990" -> "September 1990"), and what
    was rewritten."""
    out, rewritten, at = [], [], 0
    for date in calendar_dates(text):
        if date.full_month:
            continue
        month = MONTHS[date.month - 1].capitalize()
        full = f"{date.day} {month} {date.year}" if date.day else f"{month} {date.year}"
        out.append(text[at : date.start] + full)
        at = date.end
        rewritten.append(DateForm(date.written, full))
    if not rewritten:
        return text, []
    out.append(text[at:])
    return "".join(out), rewritten
