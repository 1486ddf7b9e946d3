"""A statement the evidence makes under a condition, stated for all: a rule beneath the
checker's score, beside the year, count, name and polarity rules, and its fix.

A model that answers from a shop's pages writes "It includes free next-day delivery on all
orders." where the page says "free next-day delivery on orders over £20". The checkers read the
two as the same statement (they share every word but the condition), and the gate left it
alone. A sentence of the text drops a condition here when

- it says "all", "every" or "any" of a word (:data:`_QUANTIFIED`: "all orders", "every UK
  order"), and is not negated;
- an evidence sentence that is not negated gives that word (the same, or its plural) with a
  bound on a number right after it (:data:`_CONDITION`: "orders over £20", "items under 30 kg",
  "parcels weighing up to 2 kg"), and does not itself say "all" of it;
- that sentence shares :data:`CONTEXT_SHARED` content words or more with the :data:`CONTEXT`
  words before the text's quantifier ("free next-day delivery on"), so that the condition is on
  the same statement;
- and the text gives no number of the bound itself.

The checker then scores the sentence at most
:data:`~favakit.inference.year_check.CONFLICT_SCORE` and says why (:meth:`ScopeConflict.note`);
the gate's fix (:func:`scope_fix`) writes the evidence's condition after the text's words:
"all orders" -> "all orders over £20". The choices are measured on the training files only
(``scripts/rule_firings.py``; docs/benchmarks.md, session 43).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from favakit.contracts import EditSpan
from favakit.inference.year_check import CONFLICT_SCORE, content_words, negated
from favakit.text import split_sentences, undo_ptb

__all__ = ["CONTEXT", "CONTEXT_SHARED", "ScopeConflict", "scope_conflict", "scope_fix"]

#: Words before the text's quantifier read as its statement's context, and how many content
#: words an evidence sentence must share with them.
CONTEXT = 6
CONTEXT_SHARED = 2

# "all orders", "every UK order", "any item": the quantifier and one or two words after it
_QUANTIFIED = re.compile(
    r"\b(?P<quantifier>all|every|any)\s+(?P<words>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)",
    re.IGNORECASE,
)
# a bound on a number right after the word it restricts: "over £20", "of more than 30 kg"
_CONDITION = (
    r"(?:(?:weighing|costing|worth|priced at|valued at|exceeding|of)\s+)?"
    r"(?:over|above|under|below|more than|less than|at least|at most|up to|exceeding)\s+"
    r"[£$€]?\s?\d+(?:[.,]\d+)*(?:\s?(?:%|[A-Za-z]+\b))?"
)
_ALL = re.compile(r"\b(?:all|every|any|each)\s+", re.IGNORECASE)


class ScopeConflict(NamedTuple):
    """The text's sentence, its quantified words and where they are in it, the evidence's
    condition on them, and the evidence sentence."""

    sentence: str
    written: str
    start: int
    end: int
    condition: str
    evidence: str

    def note(self) -> str:
        """What a verdict says of it."""
        return (f"condition dropped: the text says {self.written!r} where the evidence says "
                f"only {self.condition!r} (\"{self.evidence}\"); P(supported) at most "
                f"{CONFLICT_SCORE}")  # fmt: skip


def _forms(word: str) -> str:
    """A pattern for ``word`` and its plural or singular ("order", "orders")."""
    base = word[:-1] if len(word) > 3 and word.lower().endswith("s") else word
    return re.escape(base) + r"(?:s|es)?"


def _condition_on(word: str, sentence: str) -> str | None:
    """The condition ``sentence`` puts on ``word`` ("orders over £20" for "orders"), or None
    where it gives none or says "all" of the word itself."""
    found = re.search(rf"\b{_forms(word)}\s+({_CONDITION})", sentence, re.IGNORECASE)
    if found is None:
        return None
    if _ALL.search(sentence[max(0, found.start() - 20) : found.start()]):
        return None
    return found.group(1).strip()


def _conflict_in(claim: str, sentences: Sequence[tuple[str, str]]) -> ScopeConflict | None:
    """The first quantified words of ``claim`` that an evidence sentence gives only under a
    condition (module doc), or None. ``sentences``: each evidence sentence with the one before
    it in its passage, whose words count as its context too ("Standard delivery costs £3.99. It
    is free on orders over £50.")."""
    if negated(claim):
        return None
    for q in _QUANTIFIED.finditer(claim):
        words = q.group("words").split()
        for n in range(len(words), 0, -1):  # "UK orders", then "UK"
            word = words[n - 1]
            if word.lower() in content_words(word) and len(word) > 2:
                break
        else:
            continue
        end = q.start("words") + q.group("words").index(word) + len(word)
        if re.match(rf"\s*{_CONDITION}", claim[end:], re.IGNORECASE):
            continue  # the text's own condition: a bound the count rule and the model read
        context = content_words(" ".join(claim[: q.start()].split()[-CONTEXT:]))
        found = []
        for sentence, before in sentences:
            shared = len((content_words(sentence) | content_words(before)) & context)
            if negated(sentence) or shared < CONTEXT_SHARED:
                continue
            condition = _condition_on(word, sentence)
            if condition is not None:
                found.append((-shared, sentence, condition))
        if not found:
            continue
        _, sentence, condition = min(found, key=lambda f: f[0])
        numbers = re.findall(r"\d+(?:[.,]\d+)*", condition)
        if any(re.search(rf"(?<![\d.]){re.escape(n)}(?!\d)", claim) for n in numbers):
            continue
        return ScopeConflict(claim, claim[q.start() : end], q.start(), end, condition, sentence)
    return None


def _evidence_sentences(evidence: Sequence[str]) -> list[tuple[str, str]]:
    """Each sentence of ``evidence`` with the one before it in its passage ("" for a first)."""
    out = []
    for passage in evidence:
        sentences = split_sentences(undo_ptb(passage))
        out += list(zip(sentences, ["", *sentences[:-1]], strict=True))
    return out


def scope_conflict(text: str, evidence: Sequence[str]) -> ScopeConflict | None:
    """The first sentence of ``text`` that states for all what the evidence gives only under a
    condition (module doc), or None."""
    sentences = _evidence_sentences(evidence)
    if not sentences:
        return None
    for claim in split_sentences(undo_ptb(text)):
        found = _conflict_in(claim, sentences)
        if found is not None:
            return found
    return None


def scope_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> EditSpan | None:  # fmt: skip
    """``edit`` (a fix, deletion or flag, offsets in ``text``) as the fix of its sentence's
    quantified words that the evidence gives only under a condition: the condition written
    after them ("all orders" -> "all orders over £20"), typed ``entity``; None where there is
    none or ``edit`` does not touch them. ``subject`` is not read: a condition is the page's,
    not a person's."""
    del subject
    a, b = sentence
    found = _conflict_in(text[a:b], _evidence_sentences([str(p.get("text", "")) for p in passages]))
    if found is None:
        return None
    start, end = a + found.start, a + found.end
    if edit["end"] <= start or end <= edit["start"]:
        return None
    fixed: EditSpan = {**edit, "type": "entity", "start": start, "end": end,
                       "wrong": text[start:end], "right": f"{text[start:end]} {found.condition}"}  # fmt: skip
    fixed.pop("flagged", None)
    return fixed
