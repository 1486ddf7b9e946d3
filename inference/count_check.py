"""A count the evidence contradicts: a rule beneath the checker's score, beside the year rule.

The checkers miss a count or rank a digit away: mpnet reads "The team had 24 players." against
"The team had 23 players." as supported (P 0.99), "the 17th president" against "the 16th
president" too (0.99), and MiniLM "101 floors" against "102 floors" (0.97). A sentence of the
text is contradicted here when a number it gives (digits, words or an ordinal; not a year, a
bound such as "more than 20", or in a negated sentence) counts a word ("23 *players*", "16th
*president*"), the evidence sentence sharing the most of its content words (at least half, and
two) gives another number of the same kind counting the same word, and the passage holding that
sentence never gives the text's number in any form. The checker then scores the text at most
:data:`~favakit.inference.year_check.CONFLICT_SCORE` and says why (:meth:`CountConflict.note`).

A count must count the same word on both sides: session 29 tried counts by the year rule alone
and found it fired on supported rows whose sentence gave several counts, or a bound ("grossed
over $800 million" against 873). The choices are measured on training data only
(``scripts/count_rule.py``; docs/benchmarks.md, session 31).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import NamedTuple

from favakit.inference.number_forms import quantities
from favakit.inference.number_words import digit_ordinals, spelled_numbers
from favakit.inference.year_check import CONFLICT_SCORE, content_words, negated
from favakit.text import STOPWORDS, split_sentences, undo_ptb

__all__ = ["CountConflict", "count_conflict", "counts"]

_YEAR_LIKE = re.compile(r"(?:1\d|20)\d\d")
_BOUND_BEFORE = re.compile(
    r"\b(?:over|under|more than|less than|fewer than|nearly|almost|about|around|approximately|"
    r"roughly|some|at least|at most|up to|close to|circa|estimated|an estimated|upwards of|"
    r"in excess of|as many as|as few as|as much as|top|between|from|to|and|or|before|after|"
    r"since|until|till|by|within)\s+(?:\$\s?)?$",
    re.IGNORECASE,
)
_BOUND_AFTER = re.compile(r"\s*(?:\+|or (?:more|fewer|less|so)\b|plus\b|-?odd\b)", re.IGNORECASE)
_COUNTED = re.compile(r"\s*(%|[^\W\d_]+)")
_CURRENCY = "$\u00a3\u20ac\u00a5"


class Count(NamedTuple):
    """A number of a sentence: its value, the word it counts (lower case, a plural's "s" aside,
    to match on; and as written), whether it is an ordinal, and how it is written."""

    value: Decimal
    counted: str
    word: str
    ordinal: bool
    written: str


class CountConflict(NamedTuple):
    """The text's number, the word it counts, the evidence's numbers counting that word, and
    the evidence sentence."""

    written: str
    counted: str
    evidence_numbers: tuple[str, ...]
    sentence: str

    def note(self) -> str:
        """What a verdict says of it."""
        money = self.counted in _CURRENCY  # "$3000" where it says "$2,000"
        others = ", ".join(f"{self.counted}{n}" if money else n for n in self.evidence_numbers)
        counted = f"{self.counted}{self.written}" if money else f"{self.written} {self.counted}"
        return (f"count contradicted: the text says {counted} where the "
                f"evidence says {others} (\"{self.sentence}\"); P(supported) at most "
                f"{CONFLICT_SCORE}")  # fmt: skip


def _stem(word: str) -> str:
    w = word.lower()
    if w == "%":
        return "percent"
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def _numbers(sentence: str) -> list[tuple[int, int, Decimal, str, bool]]:
    """Every number of ``sentence``: digits (with a scale word), words, digit ordinals; a span
    inside another's is left out ("16" of "16th")."""
    found = [(q.start, q.end, q.value, q.written, False) for q in quantities(sentence)]
    found += [(s.start, s.end, s.value, s.written, s.ordinal)
              for s in spelled_numbers(sentence) + digit_ordinals(sentence)]  # fmt: skip
    found.sort(key=lambda n: (n[0], -(n[1] - n[0])))
    kept: list[tuple[int, int, Decimal, str, bool]] = []
    for n in found:
        if kept and n[0] < kept[-1][1]:
            continue
        kept.append(n)
    return kept


def values_in(text: str) -> set[Decimal]:
    """The values of every number ``text`` gives, in any form."""
    return {n[2] for n in _numbers(text)}


def counts(sentence: str) -> list[Count]:
    """The exact counts of ``sentence``: numbers followed by the word they count, not years,
    not bounds ("more than 20 players", "20 or more"), none in a negated sentence."""
    if negated(sentence):
        return []
    out = []
    for start, end, value, written, ordinal in _numbers(sentence):
        if not ordinal and _YEAR_LIKE.fullmatch(written):
            continue
        if _BOUND_BEFORE.search(sentence[:start]) or _BOUND_AFTER.match(sentence, end):
            continue
        before = sentence[:start].rstrip()
        if before and before[-1] in _CURRENCY:  # "$873 million": it counts dollars
            out.append(Count(value, before[-1], before[-1], ordinal, written))
            continue
        word = _COUNTED.match(sentence, end)
        if not word or word.group(1).lower() in STOPWORDS or len(word.group(1)) < 2:
            continue
        out.append(Count(value, _stem(word.group(1)), word.group(1), ordinal, written))
    return out


def rounds_to(exact: Decimal, rounded: Decimal) -> bool:
    """Whether ``rounded`` is ``exact`` rounded to ``rounded``'s last non-zero digit ("800
    million" of 823 million, "1.5 million" of 1,523,000): an approximation, left to the model."""
    if rounded == 0 or exact == rounded:
        return exact == rounded
    exponent = rounded.normalize().as_tuple().exponent
    step = Decimal(1).scaleb(exponent if isinstance(exponent, int) else 0)
    return (exact / step).quantize(Decimal(1)) * step == rounded


def count_conflict(text: str, evidence: Sequence[str]) -> CountConflict | None:
    """The first count of ``text`` the evidence contradicts (module doc), or None."""
    passages = [undo_ptb(e) for e in evidence]
    sentences = [(i, s) for i, p in enumerate(passages) for s in split_sentences(p)]
    given: dict[int, set[Decimal]] = {}
    for claim in split_sentences(undo_ptb(text)):
        mine = counts(claim)
        words = content_words(claim)
        if not mine or not words or not sentences:
            continue
        shared, at, best = max(((len(words & content_words(s)), i, s) for i, s in sentences),
                               key=lambda t: t[0])  # fmt: skip
        if shared < max(2, len(words) / 2):
            continue
        if at not in given:
            given[at] = values_in(passages[at])
        claim_values = values_in(claim)
        theirs = counts(best)
        for count in mine:
            if count.value in given[at]:
                continue
            others = tuple(dict.fromkeys(
                c.written for c in theirs if c.counted == count.counted
                and c.ordinal == count.ordinal and c.value not in claim_values
                and not rounds_to(c.value, count.value)
            ))  # fmt: skip
            if others:
                return CountConflict(count.written, count.word, others, best)
    return None
