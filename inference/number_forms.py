"""A number the evidence writes another way: read as the evidence writes it.

The encoder checkers read a number's form, not its value: the mpnet checker gives "The company
paid $2000" P(supported) 0.003 against "... paid $2,000", and "1.5 million residents" 0.006
against "a population of 1,500,000"; both are 0.99 once written alike. So before a checker reads a
text, each number of the text that the evidence gives with the same value in another form
(thousands separators, a scale word: "1.5 million", "1,500,000", "1500000"; a scale attached,
"$1.1bn", "£500m"; a news agency's "8.4 mn", "$3bln", where the checker reads written forms;
words from eleven up: "twenty-three", "23"; a half: "three and a half", "3.5", "half a
million", "500,000") is written as the evidence writes it
(:func:`evidence_forms`). Numbers up to ten are left as written: the checkers read "three"
against "3" as the same already.
Values must be equal: a rounded figure ("1.5 million" for 1,523,000) is left to the model. A
number that may be a year ("in 2000") is only rewritten where a currency sign precedes it on both
sides or the same word follows it on both ("2000 people", "2,000 people"), so a year is never
read as a count.

The verdict says what was rewritten (:meth:`NumberForm.note`); the text itself, its edits and
its spans are never changed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import NamedTuple

from favakit.inference.number_words import Spelled, spelled_numbers
from favakit.text import outermost

__all__ = ["AGENCY_SCALES", "CURRENCY", "NumberForm", "Quantity", "evidence_forms", "quantities"]

_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
           "mn": 10**6, "mln": 10**6, "bn": 10**9, "bln": 10**9, "tn": 10**12,
           "b": 10**9, "m": 10**6, "k": 10**3}  # fmt: skip
#: a news agency's scales ("8.4 mn", "$3bln"): read only where the checker reads written forms
#: (its ``written_forms``; the count rule always reads them)
AGENCY_SCALES = ("mn", "mln", "bln")


def _quantity_pattern(agency: bool) -> re.Pattern[str]:
    """Digits (never their whole part alone where a decimal follows: "1.1bn" is not 1), then a
    scale: a word ("1.5 million"), "bn" ("$1.1bn"), "tn", with ``agency`` the
    :data:`AGENCY_SCALES` too and "bn" after a space, or "b", "m" or "k" attached (read as a
    scale only after a currency sign, "$500m"; "a 500m race" is no number here); nothing else
    attached."""
    agency_spaced = "|bn|" + "|".join(AGENCY_SCALES) if agency else ""
    spaced = "thousand|million|billion|trillion" + agency_spaced
    attached = ("|".join(AGENCY_SCALES) + "|" if agency else "") + r"bn|tn|[bmk]"
    return re.compile(
        r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![.,]?\d)"
        rf"(?:\s+({spaced})\b|({attached})\b)?(?!\w)",
        re.IGNORECASE,
    )


_QUANTITY = {True: _quantity_pattern(True), False: _quantity_pattern(False)}
#: The signs of a sum of money: a number after one counts it ("$873 million")
CURRENCY = "$\u00a3\u20ac\u00a5"
_NEXT_WORD = re.compile(r"\s*([^\W\d_]+)")
_YEAR_LIKE = re.compile(r"(?:1\d|20)\d\d")
# "05" in "2018-11-05": a date's part, not another way of writing 5
_LEADING_ZERO = re.compile(r"0\d")


class Quantity(NamedTuple):
    """A number written in digits: where it is, its value, as written."""

    start: int
    end: int
    value: Decimal
    written: str

    def context(self, text: str) -> tuple[bool, str]:
        """Whether a currency sign precedes it, and the word that follows it (lower case)."""
        before = text[: self.start].rstrip()
        after = _NEXT_WORD.match(text, self.end)
        return (bool(before) and before[-1] in CURRENCY, after.group(1).lower() if after else "")


class NumberForm(NamedTuple):
    """A number of the text, as written there and as the evidence writes the same value."""

    text_form: str
    evidence_form: str

    def note(self) -> str:
        """What a verdict says of it."""
        return (f"number read as the evidence writes it: \"{self.text_form}\" as "
                f"\"{self.evidence_form}\"")  # fmt: skip


def _in_words(spelled: list[Spelled]) -> list[Quantity]:
    """Of a text's cardinal numbers in words (``spelled``), those from eleven up
    ("twenty-three")."""
    return [Quantity(s.start, s.end, s.value, s.written) for s in spelled if s.value > 10]


#: "and a half" after a number ("three and a half", "2 and a half million"; "half a million" is
#: a number in words, :func:`~favakit.inference.number_words.spelled_numbers`)
_AND_A_HALF = re.compile(r"\s+and\s+a\s+half(?:\s+(thousand|million|billion|trillion)\b)?",
                         re.IGNORECASE)  # fmt: skip
_DIGITS_BEFORE = re.compile(r"(?<![\w.,])\d+$")


def _halves(text: str, spelled: list[Spelled]) -> list[Quantity]:
    """The numbers ``text`` writes with "and a half" ("three and a half" = 3.5, "two and a half
    million" = 2,500,000); ``spelled``: its cardinal numbers in words."""
    if "half" not in text.lower():
        return []
    found = []
    ending = {s.end: s for s in spelled}
    for m in _AND_A_HALF.finditer(text):
        before = ending.get(m.start())
        digits = _DIGITS_BEFORE.search(text, 0, m.start())
        if before is not None:
            start, whole = before.start, before.value
        elif digits is not None:
            start, whole = digits.start(), Decimal(digits.group())
        else:
            continue
        scale = _SCALES[m.group(1).lower()] if m.group(1) else 1
        found.append(
            Quantity(start, m.end(), (whole + Decimal("0.5")) * scale, text[start : m.end()])
        )
    return found


def _numbers(text: str, agency: bool) -> list[Quantity]:
    """The numbers of ``text`` in digits, from eleven up in words, and with a half, in order;
    where two overlap ("three" in "three and a half"), the longer."""
    spelled = [s for s in spelled_numbers(text) if not s.ordinal]
    found = quantities(text, agency) + _in_words(spelled) + _halves(text, spelled)
    return outermost(found, lambda q: (q.start, q.end))


def quantities(text: str, agency: bool = True) -> list[Quantity]:
    """The numbers ``text`` writes in digits, with a scale word where one follows ("1.5
    million"; with ``agency``, "8.4 mn" too: :data:`AGENCY_SCALES`)."""
    found = []
    for m in _QUANTITY[agency].finditer(text):
        whole, fraction, scale = m.group(1), m.group(2) or "", m.group(3) or m.group(4)
        if scale and len(scale) == 1 and not text[: m.start()].rstrip().endswith(tuple(CURRENCY)):
            continue  # "500m", "5k": metres, a run; a scale only in a sum of money
        value = Decimal(whole.replace(",", "") + fraction)
        if scale:
            value *= _SCALES[scale.lower()]
        found.append(Quantity(m.start(), m.end(), value, m.group()))
    return found


def _plain(written: str) -> str:
    """A form with its spaces and case aside ("400\u00a0million", "400 MILLION")."""
    return " ".join(written.split()).lower()


def _may_be_year(q: Quantity) -> bool:
    return bool(_YEAR_LIKE.fullmatch(q.written))


def evidence_forms(
    text: str, evidence: Sequence[str], agency: bool = True
) -> tuple[str, list[NumberForm]]:
    """``text`` with each number the evidence writes in another form written as the evidence
    writes it (module doc), and what was rewritten; ``agency``: "8.4 mn" is 8,400,000
    (:data:`AGENCY_SCALES`)."""
    given = [(q, passage) for passage in evidence for q in _numbers(passage, agency)
             if not _LEADING_ZERO.match(q.written)]  # fmt: skip
    written = {_plain(q.written) for q, _ in given}
    out, rewritten, at = [], [], 0
    for q in _numbers(text, agency):
        if _plain(q.written) in written or _LEADING_ZERO.match(q.written):
            continue
        for other, passage in given:
            if other.value != q.value:
                continue
            if (_may_be_year(q) or _may_be_year(other)) and not _same_context(
                q.context(text), other.context(passage)
            ):
                continue
            out.append(text[at : q.start] + other.written)
            at = q.end
            rewritten.append(NumberForm(q.written, other.written))
            break
    out.append(text[at:])
    return "".join(out), rewritten


def _same_context(a: tuple[bool, str], b: tuple[bool, str]) -> bool:
    """Both after a currency sign, or both before the same word."""
    return (a[0] and b[0]) or (bool(a[1]) and a[1] == b[1])
