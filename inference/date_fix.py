"""Whole-date fixes: an edit that touches part of a date takes the whole date the evidence gives.

An editor that finds a wrong birth date often changes one part of it (``"December" ->
"February"``) or only flags the year. :func:`date_fix` widens such an edit to the whole date of
the sentence and replaces it with the evidence's date for the same thing, so a fix is never a
fragment (``"December 18, 1949" -> "July 27, 1942"``). Which evidence date that is, by a fixed
rule:

* **by role**, when the sentence's date has one: the role word nearest before it (``born`` or
  ``b.``: a birth date; ``died``, ``death`` or ``d.``: a death date). In the evidence, a date
  range such as ``( july 27, 1942 – february 18, 2024 )`` gives a birth date (the first) and a
  death date (the second), and a role word just before a date gives it that role. Of the
  evidence sentences holding a date of that role and naming the text's subject (its topic, else
  the name it opens with), the one sharing the most words with the sentence must give exactly one (told apart by value; a month and year beside a full date
  of that month are the same date);
* **without a role**: the same, with any date other than the sentence's own.

Otherwise (no date, no aligned date, or the aligned date is the sentence's own) the edit is
left as it is. A deletion holding a date the evidence gives another value for becomes that
date's fix instead. Dates are ``Month D, YYYY``, ``D Month YYYY`` and ``Month YYYY`` (month names
in full or as three-letter abbreviations, any case); the fix is written the way the sentence
writes its date (order, day or none, a capitalized full month name).

A year alone is fixed by :func:`year_fix`: where the year rule beneath the checker
(:func:`~favakit.inference.year_check.year_conflict`) finds the sentence's year contradicted and
the matching evidence sentence gives exactly one other year, an edit or flag holding that year
(a deletion or flag of the whole sentence, an edit of the year) becomes the year's fix. A birth
or death year (its role word nearest before it: ``born in 1912``, ``passed away in 1957``) is
fixed by :func:`role_year_fix` to the one year the evidence gives that role, in a sentence or
passage (by its title) naming the text's subject: where the year rule matches no sentence
("proposed the Turing test in 1950 and passed away in 1957" against "He died in 1954.").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Any, NamedTuple

from favakit.contracts import EditSpan
from favakit.decompose import leading_name
from favakit.inference.day_check import day_conflict, day_dates
from favakit.inference.evidence_reading import shared_words
from favakit.inference.year_check import year_conflict, year_spans
from favakit.text import MONTH_NAME, MONTHS, month_number, sentence_spans

__all__ = [
    "Date",
    "about_subject",
    "date_fix",
    "dates_in",
    "evidence_dates",
    "lends_to",
    "replaced",
    "role_year_fix",
    "year_fix",
]

_MONTH = MONTH_NAME
_DATE = re.compile(
    rf"(?<!\w)(?:(?P<m1>{_MONTH})\s+(?P<d1>\d{{1,2}}),?\s+(?P<y1>\d{{4}})"
    rf"|(?P<d2>\d{{1,2}})\s+(?P<m2>{_MONTH}),?\s+(?P<y2>\d{{4}})"
    rf"|(?P<m3>{_MONTH}),?\s+(?P<y3>\d{{4}}))(?!\w)",
    re.IGNORECASE,
)
_DASH = re.compile(r"\s*[-\u2013\u2014]\s*")
_ROLE_WORDS = re.compile(
    r"\b(?P<birth>born|b\.)|\b(?P<death>died|death|d\.|passed away)", re.IGNORECASE
)
_BEFORE = 40  # characters before a date read for its role (back to the date before it at most)


class Date(NamedTuple):
    """A date found in text: where, its value, and whether it is written day first."""

    start: int
    end: int
    year: int
    month: int  # 1-12
    day: int | None
    day_first: bool

    def written_like(self, other: Date) -> str:
        """This date's value in ``other``'s form (its order; a day only where it has one)."""
        month = MONTHS[self.month - 1].capitalize()
        if other.day is None or self.day is None:
            return f"{month} {self.year}"
        if other.day_first:
            return f"{self.day} {month} {self.year}"
        return f"{month} {self.day}, {self.year}"


def dates_in(text: str) -> list[Date]:
    """Every date of ``text`` (:data:`_DATE`'s three forms), in order."""
    found: list[Date] = []
    for m in _DATE.finditer(text):
        g = m.groupdict()
        month = month_number(g["m1"] or g["m2"] or g["m3"])
        day = g["d1"] or g["d2"]
        if day is not None and not 1 <= int(day) <= 31:
            continue
        year = int(g["y1"] or g["y2"] or g["y3"])
        found.append(Date(m.start(), m.end(), year, month, int(day) if day else None,
                          bool(g["d2"])))  # fmt: skip
    return found


def _key(date: Date) -> tuple[int, int, int]:
    return date.year, date.month, date.day or 0


def _role_before(text: str, date: Date | int, since: int) -> str | None:
    """``birth`` or ``death`` by the role word nearest before ``date`` (a date, or where a year
    starts: ``born``/``b.``, ``died``/``death``/``d.``/``passed away``) within :data:`_BEFORE`
    characters and after ``since``."""
    at = date if isinstance(date, int) else date.start
    words = list(_ROLE_WORDS.finditer(text[max(since, at - _BEFORE) : at]))
    if not words:
        return None
    return "birth" if words[-1].group("birth") else "death"


def evidence_dates(body: str) -> list[tuple[Date, str | None]]:
    """The dates of an evidence text, each with its role where the text gives one: the two ends
    of a date range (``date – date``, the first the earlier) are a birth and a death date; a
    role word just before a date (``born``, ``died``) gives it that role; any other date has
    none."""
    found = dates_in(body)
    roles: list[str | None] = [None] * len(found)
    for n, (a, b) in enumerate(pairwise(found)):
        if _DASH.fullmatch(body[a.end : b.start]) and _key(a) < _key(b):
            roles[n], roles[n + 1] = "birth", "death"
    for n, date in enumerate(found):
        if roles[n] is None:
            roles[n] = _role_before(body, date, found[n - 1].end if n else 0)
    return list(zip(found, roles, strict=True))


def _candidates(
    sentence: str, date: Date, role: str | None, passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> dict[tuple[int, int, int], Date]:  # fmt: skip
    """The evidence dates that may stand for ``date``: those with its ``role`` (any date when
    it has none, its own value aside) in the evidence sentence that holds such a date and shares
    the most words with ``sentence``; by value. A birth or death date must come from an
    evidence sentence that names ``subject`` (a word of it), when one is given: another
    person's dates are not this one's."""
    mine = shared_words(sentence) | shared_words(subject)
    named = shared_words(subject) if role is not None else set()
    best, chosen = 0, {}
    for passage in passages:
        body = str(passage.get("text", ""))
        spans = sentence_spans(body)
        per_sentence: dict[int, dict[tuple[int, int, int], Date]] = {}
        for found, found_role in evidence_dates(body):
            if found_role == role or (role is None and _key(found) != _key(date)):
                n = next((i for i, (a, b) in enumerate(spans) if a <= found.start < b), -1)
                per_sentence.setdefault(n, {})[_key(found)] = found
        for n, values in per_sentence.items():
            a, b = spans[n] if n >= 0 else (0, len(body))
            if named and not named & shared_words(body[a:b]):
                continue
            overlap = len(mine & shared_words(body[a:b]))
            if overlap > best:
                best, chosen = overlap, dict(values)
            elif overlap == best and overlap:
                chosen.update(values)
    return chosen


def _aligned(
    sentence: str, date: Date, since: int, passages: Sequence[Mapping[str, Any]], subject: str
) -> Date | None:
    """The evidence's date for what ``date`` of ``sentence`` dates (the module's rule), when it
    is another date than ``date``."""
    role = _role_before(sentence, date, since)
    values = _candidates(sentence, date, role, passages, subject)
    for key in [k for k in values if k[2] == 0]:  # "february 2024" beside "february 18, 2024"
        if any(k[:2] == key[:2] and k[2] for k in values):
            del values[key]
    if len(values) != 1:
        return None
    (found,) = values.values()
    if found.day is None or date.day is None:  # "July 1942" is the same month as "July 27, 1942"
        return None if (found.year, found.month) == (date.year, date.month) else found
    return None if _key(found) == _key(date) else found


def date_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> EditSpan | None:  # fmt: skip
    """``edit`` (a fix or a flag, with offsets in ``text``) widened to the whole date of its
    sentence that it touches, fixed to the evidence's date for it (the module's rule); None
    when the edit touches no date, or the evidence gives no other date for it. A deletion
    that holds a whole date the evidence gives another value for becomes that date's fix: the
    evidence speaks of what the sentence says, so it is corrected, not deleted. ``subject``:
    whom the text is about (the request's topic, else the name it opens with), for birth and
    death dates."""
    deletion = not edit.get("flagged") and not edit["right"].strip()
    a, b = sentence
    body = text[a:b]
    dates = dates_in(body)
    for n, date in enumerate(dates):
        start, end = a + date.start, a + date.end
        if deletion:
            if not edit["start"] <= start < end <= edit["end"]:
                continue  # a deletion is corrected only for a whole date it holds
        elif not (edit["start"] < end and start < edit["end"]):
            continue
        elif edit["start"] < start or edit["end"] > end:
            return None  # the edit reaches past the date: more than a date is wrong
        found = _aligned(body, date, dates[n - 1].end if n else 0, passages, subject)
        if found is None:
            if deletion:
                continue
            return None
        fixed: EditSpan = {**edit, "start": start, "end": end, "wrong": text[start:end],
                           "right": found.written_like(date)}  # fmt: skip
        fixed.pop("flagged", None)
        return fixed
    return None


def year_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> EditSpan | None:  # fmt: skip
    """``edit`` (a fix, deletion or flag, offsets in ``text``) as the fix of its sentence's year
    that the evidence contradicts (:func:`~favakit.inference.year_check.year_conflict`), when
    the matching evidence sentence gives exactly one other year and ``edit`` holds the year
    (``"1921"`` -> ``"1911"``, typed ``entity``); None otherwise, and where ``subject`` is given
    but neither that sentence nor its passage's title names it (Marie Curie's 1903 Nobel Prize
    is no fix for Rosalind Franklin's)."""
    a, b = sentence
    found = year_conflict(text[a:b], [str(p.get("text", "")) for p in passages])
    if found is None or len(found.evidence_years) != 1:
        return None
    for start, end in ((a + s, a + e) for s, e in year_spans(text[a:b], found.year)):
        if edit["start"] <= start and end <= edit["end"]:
            if not lends_to(found.sentence, passages, subject, text[a:start]):  # who has it
                return None
            return replaced(edit, start, end, found.year, found.evidence_years[0])
    return None


def day_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> EditSpan | None:  # fmt: skip
    """``edit`` as the fix of its sentence's day of a month that the evidence contradicts
    (:func:`~favakit.inference.day_check.day_conflict`), when the matching evidence sentence gives
    exactly one other day of that month and ``edit`` holds the text's day (``"17"`` -> ``"27"``
    in "born on March 17, 1949", typed ``entity``); None otherwise, and where the evidence
    sentence may not lend to ``subject`` (:func:`lends_to`)."""
    a, b = sentence
    found = day_conflict(text[a:b], [str(p.get("text", "")) for p in passages])
    if found is None or len(found.evidence_dates) != 1 or len(found.evidence_days) != 1:
        return None  # a range of days, or several, is no one day to write
    date = next((d for d in day_dates(text[a:b]) if d.written == found.written), None)
    if date is None:
        return None
    start, end = a + date.start, a + date.end
    if not (edit["start"] <= start and end <= edit["end"]):
        return None
    if not lends_to(found.sentence, passages, subject, text[a:start]):
        return None
    return replaced(edit, start, end, text[start:end], str(found.evidence_days[0]))


def lends_to(
    sentence: str, passages: Sequence[Mapping[str, Any]], subject: str, claim: str = ""
) -> bool:
    """Whether the evidence ``sentence`` may lend a fix to a text about ``subject``: no subject
    is given, the subject is a common word that opened the text (:func:`_common_word`:
    "Customers can get a full refund ..." is about no one), a passage holding the sentence is
    about it (:func:`about_subject`), or one with no title (a document the user gives, not an
    article about someone) holds it and ``claim``, the text's sentence up to the number fixed,
    names a person or thing it names, in two words or more (:func:`_shares_a_name`:
    "goalkeeper *Sam Okafor* made three saves" in a report of a match, in a text that opens with
    "Ashdale"; not "... at three *Olympic Games*", whose name follows the number)."""
    named = shared_words(subject)
    if not named or _common_word(subject, passages):
        return True
    holding = [p for p in passages if sentence in str(p.get("text", ""))]
    return any(about_subject(named, sentence, p) for p in holding) or (
        any(not p.get("title") for p in holding) and _shares_a_name(claim, sentence)
    )


_NAME_RUN = re.compile(r"(?<![\w'])[A-Z][\w-]+(?:\s+[A-Z][\w-]+)+")


def _shares_a_name(claim: str, sentence: str) -> bool:
    """Whether ``claim`` and ``sentence`` both write one name of two capitalised words or more
    ("Sam Okafor"), other than at the start of ``claim`` (whose first word is capitalised
    anyway)."""
    if not claim:
        return False
    theirs = {m.group().lower() for m in _NAME_RUN.finditer(sentence)}
    return any(m.start() > 0 and m.group().lower() in theirs for m in _NAME_RUN.finditer(claim))


def _common_word(subject: str, passages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``subject`` is one word that a passage writes in lower case: a common noun that
    opened the text's sentence ("Customers", "Visitors"), not a name ("Okafor")."""
    word = subject.strip()
    if not word or " " in word or word.lower() == word:
        return False
    lower = re.compile(rf"\b{re.escape(word.lower())}\b")
    return any(lower.search(str(p.get("text", ""))) for p in passages)


def replaced(edit: EditSpan, start: int, end: int, wrong: str, right: str) -> EditSpan:
    """``edit`` as the fix of ``wrong`` (the text's ``[start, end)``) to ``right``, typed
    ``entity``; a flag no longer."""
    fixed: EditSpan = {**edit, "type": "entity", "start": start, "end": end, "wrong": wrong,
                       "right": right}  # fmt: skip
    fixed.pop("flagged", None)
    return fixed


def _role_years(body: str) -> list[tuple[int, int, str, str | None]]:
    """The years of a text (alone or in a date), each with where it is and its role: a date's
    (:func:`evidence_dates`), else the role word nearest before it, after the number before."""
    found: list[tuple[int, int, str, str | None]] = []
    dated = evidence_dates(body)
    inside = [(d.start, d.end) for d, _ in dated]
    for d, role in dated:
        found.append((d.start, d.end, str(d.year), role))
    last = 0
    for start, end in year_spans(body):
        if not any(a <= start < b for a, b in inside):
            found.append((start, end, body[start:end], _role_before(body, start, last)))
        last = end
    return sorted(found)


def about_subject(subject_words: set[str], sentence: str, passage: Mapping[str, Any]) -> bool:
    """Whether an evidence ``sentence`` of ``passage`` is about the subject: a word of it in the
    sentence or the passage's title ("He died in 1954." in the passage "Alan Turing"); for a
    passage with no title (evidence a user gives inline), the name its text opens with, as an
    article opens with its subject's ("Kerstin Vale (born 1985) is ...": "She competed at two
    Olympic Games" is about her)."""
    title = str(passage.get("title", "")) or _opening_name(str(passage.get("text", "")))
    return bool(subject_words & (shared_words(sentence) | shared_words(title)))


@lru_cache(maxsize=256)
def _opening_name(text: str) -> str:
    """:func:`~favakit.decompose.leading_name` of a passage, read once per passage, not once
    for each of its sentences the rules ask about."""
    return leading_name(text)


def _subject_role_years(
    passages: Sequence[Mapping[str, Any]], subject_words: set[str]
) -> dict[str | None, set[str]]:
    """The years the evidence gives the subject, by role (:func:`_role_years`, in evidence
    sentences about the subject: :func:`about_subject`)."""
    found: dict[str | None, set[str]] = {}
    for passage in passages:
        body = str(passage.get("text", ""))
        spans = sentence_spans(body)
        for start, _, year, role in _role_years(body):
            a, b = next(((x, y) for x, y in spans if x <= start < y), (0, len(body)))
            if about_subject(subject_words, body[a:b], passage):
                found.setdefault(role, set()).add(year)
    return found


def role_year_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> EditSpan | None:  # fmt: skip
    """``edit`` (a fix, deletion or flag, offsets in ``text``) as the fix of a birth or death
    year of its sentence (``born in 1912``, ``died in 1957``, ``passed away in 1957``: the role
    word nearest before the year) to the one year the evidence gives that role, where the
    evidence names ``subject`` (:func:`about_subject`); None where ``edit`` holds no such year, the
    evidence gives no year or several years for that role, or the sentence's own."""
    a, b = sentence
    named = shared_words(subject)
    held = [(start, end, year, role) for start, end, year, role in _role_years(text[a:b])
            if role is not None and edit["start"] <= a + start and a + end <= edit["end"]]  # fmt: skip
    if not named or not held:
        return None
    start, end, year, role = held[0]
    values = _subject_role_years(passages, named).get(role, set())
    if len(values) != 1 or year in values:
        return None
    return replaced(edit, a + start, a + end, year, next(iter(values)))
