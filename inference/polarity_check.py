"""A statement its evidence denies: a rule beneath the checker's score, beside the year, count and
name rules.

The checkers read a sentence against a denial of it as support when the two share nearly every
word: against "The warranty does not cover damage caused by misuse, normal wear and tear, or
items bought from the clearance section.", the MiniLM checker scores "The warranty covers damage
caused by normal wear and tear." 0.89, and the mpnet gate left it alone. A sentence of the text
is denied here when

- it is not negated itself, nor denies by its words ("no", "without", "failed to", "refused" ...):
  "He did not die in 2000" against "He died in 1990" is supported, and is left to the model;
- the evidence sentence that matches it (:func:`~favakit.inference.year_check.matching_sentence`)
  holds a clause (:func:`denying_clause`: the sentence cut at ``;``, parentheses, "but",
  "although", "though", "while", "whereas", "except", "however", "yet", ", which", ", who") that
  is negated ("not", "never", "cannot", "-n't"; not "not only", "not until", "never again" ...,
  nor "no longer", which says it once was);
- one of the first two content words after the negation (what it governs) is a word of the text's
  sentence: "winter does not *occur* in the tropical zone" does not deny "Winter is the coldest
  season in temperate zones";
- and that clause holds every content word of the text's sentence but at most :data:`MISSING`,
  :data:`SHARED` at least, as words or by their stem ("covered" is "cover").

"Perishable food can be returned within 30 days." against "Gift cards, perishable food and
personalised items cannot be returned." is not caught: the clause lacks "30" and "days". The
choices are measured on the training files only (``scripts/rule_firings.py``; docs/checker.md,
docs/benchmarks.md, session 42).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from favakit.inference.year_check import (
    CONFLICT_SCORE,
    content_words,
    matching_sentence,
    negated,
)
from favakit.text import split_sentences, undo_ptb

__all__ = ["MISSING", "SHARED", "PolarityConflict", "denying_clause", "polarity_conflict"]

#: Content words of the text's sentence the denying clause may lack, and how many it must share.
MISSING = 1
SHARED = 3

_CLAUSE_CUT = re.compile(
    r"[;()]|\s+(?:but|although|though|while|whereas|except|however|yet)\b|,\s*(?:which|who|whom)\b",
    re.IGNORECASE,
)
_DENIAL = re.compile(r"\b(?:not|never|cannot)\b|n't\b", re.IGNORECASE)
_NOT_A_DENIAL = re.compile(
    r"(?:not|n't)\s+(?:only|just|merely|simply|solely|exclusively|entirely|least|until|till|long|"
    r"far|unlike|always|necessarily|all|every|much|quite|yet|to mention)\b"
    r"|never\s+(?:before|again)\b",
    re.IGNORECASE,
)
# a sentence that denies by its words, not by "not": left to the model, as a negated one is
_DENIES_ITSELF = re.compile(
    r"\b(?:no|none|nothing|nobody|neither|nor|without|unable|fail(?:s|ed)?|refuse[sd]?|"
    r"lack(?:s|ed)?|den(?:y|ies|ied))\b",
    re.IGNORECASE,
)
_SUFFIX = re.compile(r"(?:ing|ed|es|s|d)$")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


class PolarityConflict(NamedTuple):
    """The text's sentence and the evidence clause that denies it."""

    sentence: str
    clause: str

    def note(self) -> str:
        """What a verdict says of it."""
        return (f"statement denied: the text says {self.sentence!r} where the evidence says "
                f"{self.clause!r}; P(supported) at most {CONFLICT_SCORE}")  # fmt: skip


def _stem(word: str) -> str:
    """A word's stem, as far as the rule needs one ("covered", "covers" -> "cover")."""
    return _SUFFIX.sub("", word) if len(word) > 4 else word


def _same(a: str, b: str) -> bool:
    """Whether two stems are one word's ("prefer" and "preferr", "return" and "return")."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= 4 and long.startswith(short))


def _stems(text: str) -> list[str]:
    """The stems of ``text``'s content words, in their order."""
    words = [w.lower() for w in _WORD.findall(text)]
    # a word is kept where it is its own content word: not a stopword, and no "n't" form
    return [_stem(w) for w in words if w in content_words(w)]


def _covered(words: set[str], theirs: Sequence[str]) -> set[str]:
    """The stems of ``words`` that one of ``theirs`` is a form of."""
    return {w for w in words if any(_same(w, t) for t in theirs)}


def denying_clause(claim: str, sentence: str) -> str | None:
    """The clause of an evidence ``sentence`` that denies ``claim`` (module doc), or None."""
    if negated(claim) or _DENIES_ITSELF.search(claim):
        return None
    words = set(_stems(claim))
    if len(words) < SHARED:
        return None
    for clause in _CLAUSE_CUT.split(sentence):
        theirs = _stems(clause)
        covered = _covered(words, theirs)
        if len(covered) < SHARED or len(words - covered) > MISSING:
            continue
        for denial in _DENIAL.finditer(clause):
            if _NOT_A_DENIAL.match(clause, denial.start()):
                continue
            denied = _stems(clause[denial.end() :])[:2]  # the words the denial governs
            if _covered(set(denied), sorted(words)):
                return clause.strip(" ,.")
    return None


def polarity_conflict(text: str, evidence: Sequence[str]) -> PolarityConflict | None:
    """The first sentence of ``text`` its evidence denies (module doc), or None."""
    passages = [undo_ptb(e) for e in evidence]
    sentences = [(i, s) for i, p in enumerate(passages) for s in split_sentences(p)]
    if not sentences:
        return None
    for claim in split_sentences(undo_ptb(text)):
        if negated(claim):
            continue
        match = matching_sentence(claim, sentences)
        if match is None:
            continue
        clause = denying_clause(claim, match[1])
        if clause is not None:
            return PolarityConflict(claim, clause)
    return None
