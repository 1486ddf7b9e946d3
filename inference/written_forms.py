"""Names written in a form the checkers misread, written in one form before they read them.

As with dates (:mod:`date_forms`), the encoder checkers read some names by their form: against
"The poet was wounded at the Somme in 1916, during World War I, ...", the mpnet checker gives
"The poet was wounded during the First World War." P(supported) 0.06, and against "...served in
North Africa and Italy during World War II" it gives "He served in Italy during WWI." 0.42, near
its threshold (docs/benchmarks.md, session 71). So before a checker
reads a text and its evidence, each world war in either is written one way (:func:`one_form`),
whatever the other side says: "the First World War", "World War One", "World War 1", "WWI",
"WW1", "WW I" as "World War I", the second likewise as "World War II" (a leading "the" goes
with the form).

Times of day were tried the same way ("3 p.m." as "15:00") and are left as written: reading
them so moved more training decisions from right to wrong than back (rule 37 in
docs/benchmarks.md). The verdict says what was read another way (:class:`WrittenForm`); the
text itself, its edits and its spans are never changed.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from favakit.text import outermost

__all__ = ["WrittenForm", "one_form"]

_FIRST, _SECOND = "World War I", "World War II"
_WAR_NUMBER = {"first": _FIRST, "1st": _FIRST, "one": _FIRST, "1": _FIRST, "i": _FIRST,
               "second": _SECOND, "2nd": _SECOND, "two": _SECOND, "2": _SECOND,
               "ii": _SECOND}  # fmt: skip
_WARS = [
    re.compile(r"\b(?:the\s+)?(?P<n>first|second|1st|2nd)\s+world\s+war\b", re.IGNORECASE),
    re.compile(r"\bworld\s+war\s+(?P<n>one|two|1|2|ii|i)\b", re.IGNORECASE),
    re.compile(r"\bWW\s?(?P<n>II|I|1|2)\b"),
]


class WrittenForm(NamedTuple):
    """A name of the text, as written there and as the checker read it."""

    written: str
    read: str

    def note(self) -> str:
        """What a verdict says of it."""
        return f'read as "{self.read}": "{self.written}"'


def one_form(text: str) -> tuple[str, list[WrittenForm]]:
    """``text`` with each world war written one way (module doc), and what was rewritten."""
    found = [(m.start(), m.end(), _WAR_NUMBER[m.group("n").lower()])
             for form in _WARS for m in form.finditer(text)]  # fmt: skip
    out, rewritten, at = [], [], 0
    for start, end, read in outermost(found, lambda f: (f[0], f[1])):
        if text[start:end] == read:  # already the form read
            continue
        out.append(text[at:start] + read)
        rewritten.append(WrittenForm(text[start:end], read))
        at = end
    if not rewritten:
        return text, []
    out.append(text[at:])
    return "".join(out), rewritten
