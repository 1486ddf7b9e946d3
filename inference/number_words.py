"""Numbers written in words ("twenty-three", "one hundred and two", "seventeenth") and ordinals
written in digits ("16th"): where they are and their values.

The checkers read "twenty-three" against "23" as unsupported (mpnet P(supported) 0.02) and
"seventeenth president" against "16th president" as supported (0.99): they read a number's form,
not its value. The rules beneath their scores (:mod:`~favakit.inference.number_forms`,
:mod:`~favakit.inference.count_check`) read values, and this module gives them the values of
numbers written in words.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import NamedTuple

from favakit.text import remembered

__all__ = ["ORDINAL_UNITS", "UNITS", "Spelled", "digit_ordinals", "in_words", "spelled_numbers"]

#: The number words from zero to nineteen, and their ordinals, by value.
# fmt: off
UNITS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)
ORDINAL_UNITS = (
    "zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth",
)
# fmt: on
_TENS_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_UNITS = {w: n for n, w in enumerate(UNITS)}
_TENS = {w: 10 * n for n, w in enumerate(_TENS_WORDS, start=2)}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_ORDINAL_UNITS = {w: n for n, w in enumerate(ORDINAL_UNITS)}
_ORDINAL_TENS = {w[:-1] + "ieth": n for w, n in _TENS.items()}
_ORDINAL_SCALES = {"hundredth": 100} | {w + "th": n for w, n in _SCALES.items()}
_WORD = re.compile(r"[A-Za-z]+")
_JOINER = re.compile(r"\s+|\s*-\s*")
_DIGIT_ORDINAL = re.compile(r"(?<![\w.,])(\d+)(st|nd|rd|th)\b", re.IGNORECASE)


class Spelled(NamedTuple):
    """A number: where it is, its value, as written, and whether it is an ordinal ("16th",
    "sixteenth")."""

    start: int
    end: int
    value: Decimal
    written: str
    ordinal: bool


def _kind(word: str) -> tuple[str, int] | None:
    """A number word's kind ("unit", "tens", "hundred", "scale", their "ord_" forms) and value."""
    w = word.lower()
    for kind, table in (("unit", _UNITS), ("tens", _TENS), ("scale", _SCALES),
                        ("ord_unit", _ORDINAL_UNITS), ("ord_tens", _ORDINAL_TENS),
                        ("ord_scale", _ORDINAL_SCALES)):  # fmt: skip
        if w in table:
            return kind, table[w]
    if w == "hundred":
        return "hundred", 100
    return None


# the words a number may start with ("a" only before "hundred" or a scale, "half" only before
# "a" or "an" and one of those), and the words one must hold
_STARTS = {*_UNITS, *_TENS, *_ORDINAL_UNITS, *_ORDINAL_TENS, "a", "half"}
_NUMBER_WORDS = frozenset({*_STARTS - {"a"}, *_SCALES, *_ORDINAL_SCALES, "hundred"})

# which kind of number word may follow which ("twenty" then "three"; "three" then "hundred")
_NEXT = {
    "unit": {"hundred", "scale", "ord_scale"},
    "tens": {"unit", "hundred", "scale", "ord_unit", "ord_scale"},
    "hundred": {"unit", "tens", "scale", "and", "ord_unit", "ord_tens", "ord_scale"},
    "scale": {"unit", "tens", "and", "ord_unit", "ord_tens"},
    "and": {"unit", "tens", "ord_unit", "ord_tens"},
}


@remembered
def spelled_numbers(text: str) -> list[Spelled]:
    """The numbers ``text`` writes in words, cardinal and ordinal, each as one span ("one hundred
    and two" = 102, "twenty-first" = 21). A word that is not a number on its own ("and",
    "hundred" without a number before it but "a") ends or starts no number. Remembered within
    :func:`~favakit.text.remembering`."""
    if _NUMBER_WORDS.isdisjoint(map(str.lower, _WORD.findall(text))):
        return []  # most sentences, which the rules read by the thousand
    return _spelled_numbers(text)


def _spelled_numbers(text: str) -> list[Spelled]:
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
    found: list[Spelled] = []
    i = 0
    while i < len(words):
        if words[i][2].lower() not in _STARTS:  # no number starts here (as _read_from reads)
            i += 1
            continue
        got = _read_from(text, words, i)
        if got is None:
            i += 1
            continue
        number, i = got
        found.append(number)
    return found


def _read_from(text: str, words: list[tuple[int, int, str]], i: int) -> tuple[Spelled, int] | None:
    """The number starting at ``words[i]``, and the index after it, or None."""
    start = words[i][0]
    if words[i][2].lower() == "half":  # "half a million": 500,000, never "a million"
        return _half_of(text, words, i)
    first = _kind(words[i][2])
    if words[i][2].lower() == "a" and i + 1 < len(words):
        after = _kind(words[i + 1][2])
        if after and after[0] in {"hundred", "scale"} and _joined(text, words[i], words[i + 1]):
            first = ("unit", 1)  # "a hundred": one hundred
        else:
            return None
    if first is None or first[0] in {"hundred", "scale", "ord_scale"}:
        return None
    total, current, end, ordinal = 0, 0, words[i][1], False
    j = i
    kind, value = first
    while True:
        if kind in {"unit", "tens", "ord_unit", "ord_tens"}:
            current += value
        elif kind == "hundred":
            current = max(current, 1) * 100
        elif kind in {"scale", "ord_scale"}:
            total += max(current, 1) * value
            current = 0
        ordinal = kind.startswith("ord_")
        if kind != "and":
            end = words[j][1]
        if ordinal or j + 1 >= len(words) or not _joined(text, words[j], words[j + 1]):
            break  # an ordinal ends a number ("twenty-first")
        nxt = words[j + 1][2].lower()
        following = ("and", 0) if nxt == "and" else _kind(nxt)
        if following is None or following[0] not in _NEXT[kind]:
            break
        if following[0] == "and" and (
            j + 2 >= len(words)
            or (_kind(words[j + 2][2]) or ("", 0))[0] not in _NEXT["and"]
            or not _joined(text, words[j + 1], words[j + 2])
        ):
            break
        j += 1
        kind, value = following
    return Spelled(start, end, Decimal(total + current), text[start:end], ordinal), j + 1


def _half_of(text: str, words: list[tuple[int, int, str]], i: int) -> tuple[Spelled, int] | None:
    """ "half a hundred", "half a million" (``words[i]`` is "half"): half of it, or None."""
    if i + 2 >= len(words) or words[i + 1][2].lower() not in {"a", "an"}:
        return None
    scale = _kind(words[i + 2][2])
    if scale is None or scale[0] not in {"hundred", "scale"}:
        return None
    if not (_joined(text, words[i], words[i + 1]) and _joined(text, words[i + 1], words[i + 2])):
        return None
    start, end = words[i][0], words[i + 2][1]
    return Spelled(start, end, Decimal(scale[1]) / 2, text[start:end], False), i + 3


def _joined(text: str, a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Whether two words are joined by spaces or a hyphen only (no comma, no full stop)."""
    return bool(_JOINER.fullmatch(text[a[1] : b[0]]))


def digit_ordinals(text: str) -> list[Spelled]:
    """The ordinals ``text`` writes in digits ("16th", "1st")."""
    return [Spelled(m.start(), m.end(), Decimal(m.group(1)), m.group(), True)
            for m in _DIGIT_ORDINAL.finditer(text)]  # fmt: skip


def in_words(n: int) -> str:
    """``n`` (0 to 999) in words, as :func:`spelled_numbers` reads them: "twenty-three", "one
    hundred and two"."""
    if not 0 <= n <= 999:
        raise ValueError(f"in_words covers 0 to 999, not {n}")
    if n >= 100:
        rest = n % 100
        return f"{UNITS[n // 100]} hundred" + (f" and {in_words(rest)}" if rest else "")
    if n >= 20:
        return _TENS_WORDS[n // 10 - 2] + (f"-{UNITS[n % 10]}" if n % 10 else "")
    return UNITS[n]
