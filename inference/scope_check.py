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

Two more restrictions of the quantified words are read the same way, on an evidence sentence
sharing the statement's context:

- an ordinal before the word (:data:`_ORDINAL`): "every replacement for a child's card is free"
  against "The first replacement for a child's card is free." (the text not naming it);
- names the evidence restricts the statement to with "only", after the preposition the text's
  quantifier follows: "booked at all branches" against "booked at Central and Northgate only"
  (or "only at Central and Northgate"; the text not naming them all);
- an age limit on "all ages" (:data:`_AGES`): "open to members of all ages" against "for members
  aged 18 and over".

And a statement of no limit (:data:`_UNBOUNDED`: "with no upper limit", "unlimited") is
contradicted by an evidence sentence on the same statement that sets one (:data:`_LIMIT`: "up to
a maximum of £6 per item", "up to 15").

The checker then scores the sentence at most
:data:`~favakit.inference.year_check.CONFLICT_SCORE` and says why (:meth:`ScopeConflict.note`);
the gate's fix (:func:`scope_fix`) writes the evidence's condition after the text's words ("all
orders" -> "all orders over £20"), or the evidence's words in place of the text's ("every
replacement" -> "the first replacement", "all branches" -> "Central and Northgate", "of all
ages" -> "aged 18 and over", "with no upper limit" -> "up to a maximum of £6 per item"). The
choices are measured on the training files only (``scripts/rule_firings.py``;
docs/benchmarks.md, sessions 43 and 44).
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
# "the first replacement", "your first two sessions": an ordinal before the word it restricts
_ORDINAL = (
    r"\b(?:the|your|its|their|our|a|his|her)\s+(?:first|second|third|initial|opening)"
    r"(?:\s+(?:two|three|four|five|six|seven|eight|nine|ten|\d+))?\s+"
)
# a statement of no limit: "with no upper limit", "without any cap", "unlimited"
_UNBOUNDED = re.compile(
    r"\b(?:(?:with\s+)?no\s+(?:upper\s+)?(?:limit|maximum|cap|ceiling)"
    r"|without\s+(?:a|any)\s+(?:upper\s+)?(?:limit|maximum|cap|ceiling)|unlimited)\b",
    re.IGNORECASE,
)
_AMOUNT = (
    r"(?:[\u00a3$\u20ac]\s?)?\d+(?:[.,]\d+)*(?:p|%)?"
    r"|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
)
# the limit an evidence sentence sets: "up to a maximum of £6 per item", "capped at 40"
_LIMIT = re.compile(
    rf"\b(?:(?:up\s+to\s+)?(?:a\s+)?(?:maximum|limit|cap)\s+of\s+(?:{_AMOUNT})"
    rf"(?:\s+(?:per|a|an|each)\s+[a-z]+)?"
    rf"|(?:capped\s+at|limited\s+to|no\s+more\s+than|up\s+to)\s+(?:{_AMOUNT}))",
    re.IGNORECASE,
)
# an age limit: "aged 18 and over", "aged under 16", "over-65s" is not read
_AGES = re.compile(
    r"\baged\s+(?:\d+\s*(?:and|or)\s+(?:over|above|older|under|below|younger)"
    r"|(?:over|under|between)\s+\d+(?:\s+and\s+\d+)?|\d+\s*(?:to|-)\s*\d+)\b",
    re.IGNORECASE,
)
# a preposition right before the text's quantifier ("booked *at* all branches")
_PREPOSITION = re.compile(r"\b(at|in|on|for|to|from|with|by)\s+$", re.IGNORECASE)
# what a restriction by "only" names: up to six words, commas and "and"/"or" between them
_NAMED = r"(?P<named>[\w'-]+(?:(?:\s*,\s*|\s+)[\w'-]+){0,5})"


class ScopeConflict(NamedTuple):
    """The text's sentence, its quantified words and where they are in it, the evidence's
    condition on them, the evidence sentence, and the words the fix writes in their place."""

    sentence: str
    written: str
    start: int
    end: int
    condition: str
    evidence: str
    right: str

    def note(self) -> str:
        """What a verdict says of it."""
        if _UNBOUNDED.fullmatch(self.written):
            return (f"limit denied: the text says {self.written!r} where the evidence says "
                    f"{self.condition!r} (\"{self.evidence}\"); P(supported) at most "
                    f"{CONFLICT_SCORE}")  # fmt: skip
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


def _ordinal_on(word: str, sentence: str) -> str | None:
    """The ordinal ``sentence`` restricts ``word`` by ("the first replacement" for
    "replacement"), or None."""
    found = re.search(rf"{_ORDINAL}{_forms(word)}\b", sentence, re.IGNORECASE)
    return found.group().strip() if found else None


def _only_at(preposition: str, sentence: str) -> tuple[str, str] | None:
    """What ``sentence`` restricts by "only" after ``preposition`` ("at Central and Northgate
    only", "only at Central and Northgate"): the phrase and the names in it, or None."""
    for pattern in (rf"\b{preposition}\s+{_NAMED}\s+only\b",
                    rf"\bonly\s+{preposition}\s+{_NAMED}(?=\s*[,.;]|\s*$)"):  # fmt: skip
        found = re.search(pattern, sentence, re.IGNORECASE)
        if found and not _ALL.match(found.group("named")):
            return found.group().strip(), found.group("named")
    return None


def _restriction(
    word: str, preposition: str, sentence: str
) -> tuple[str, str, bool] | None:  # fmt: skip
    """How ``sentence`` restricts the text's quantified ``word`` (module doc): the evidence's
    words, the fix's, and whether the fix writes them after the text's words (a condition) or
    in their place (an ordinal; names restricted by "only"). None where it does not."""
    condition = _condition_on(word, sentence)
    if condition is not None:
        return condition, condition, True
    ordinal = _ordinal_on(word, sentence)
    if ordinal is not None and not _ALL.search(sentence):
        return ordinal, ordinal[0].lower() + ordinal[1:], False
    only = _only_at(preposition, sentence) if preposition else None
    if only is not None:
        return only[0], only[1], False
    ages = _AGES.search(sentence) if word.lower() in ("age", "ages") else None
    if ages is not None:
        return ages.group(), ages.group(), False
    return None


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
        context = _context(claim, q.start())
        at = _PREPOSITION.search(claim[: q.start()])
        preposition = at.group(1).lower() if at else ""
        found = []
        for sentence, before in sentences:
            shared = _shared(context, sentence, before)
            if shared is None:
                continue
            restriction = _restriction(word, preposition, sentence)
            if restriction is not None:
                found.append((-shared, sentence, restriction))
        if not found:
            continue
        _, sentence, (condition, right, after) = min(found, key=lambda f: f[0])
        start = q.start()
        if not after and word.lower().startswith("age") and claim[:start].endswith(" of "):
            start -= 3  # "members of all ages" -> "members aged 18 and over"
        written = claim[start:end]
        if _given(condition, content_words(right) - content_words(written), claim):
            continue
        right = _opening(f"{written} {right}" if after else right, start)
        return ScopeConflict(claim, written, start, end, condition, sentence, right)
    return None


def _context(claim: str, at: int) -> set[str]:
    """The content words of the :data:`CONTEXT` words of ``claim`` before character ``at``: the
    statement its quantifier or statement of no limit is on."""
    return content_words(" ".join(claim[:at].split()[-CONTEXT:]))


def _shared(context: set[str], sentence: str, before: str) -> int | None:
    """How many words of ``context`` an evidence sentence (with the one ``before`` it) holds;
    None where that is fewer than :data:`CONTEXT_SHARED` or the sentence is negated."""
    shared = len((content_words(sentence) | content_words(before)) & context)
    return None if shared < CONTEXT_SHARED or negated(sentence) else shared


def _opening(words: str, at: int) -> str:
    """``words`` capitalised where they open the sentence (``at`` 0)."""
    return words[0].upper() + words[1:] if at == 0 else words


def _given(condition: str, words: set[str], claim: str) -> bool:
    """Whether ``claim`` gives the restriction itself: a number of ``condition``, or every one
    of the fix's own ``words`` (the names restricted to; the ordinal)."""
    numbers = re.findall(r"\d+(?:[.,]\d+)*", condition)
    if any(re.search(rf"(?<![\d.]){re.escape(n)}(?!\d)", claim) for n in numbers):
        return True
    return not numbers and bool(words) and words <= content_words(claim)


def _evidence_sentences(evidence: Sequence[str]) -> list[tuple[str, str]]:
    """Each sentence of ``evidence`` with the one before it in its passage ("" for a first)."""
    out = []
    for passage in evidence:
        sentences = split_sentences(undo_ptb(passage))  # none in a blank passage
        out += list(zip(sentences, ["", *sentences][: len(sentences)], strict=True))
    return out


def _limit_denied(claim: str, sentences: Sequence[tuple[str, str]]) -> ScopeConflict | None:
    """The text's statement of no limit ("charged 25p a day with no upper limit") where an
    evidence sentence on the same statement (:data:`CONTEXT_SHARED` content words of the
    :data:`CONTEXT` before it) sets one ("up to a maximum of £6 per item"), or None. The fix
    writes the evidence's limit in its place."""
    found = _UNBOUNDED.search(claim)
    if found is None or negated(claim):
        return None
    context = _context(claim, found.start())
    best: tuple[int, str, str] | None = None  # (shared words, sentence, its limit)
    for sentence, before in sentences:
        shared = _shared(context, sentence, before)
        limit = _LIMIT.search(sentence)
        if shared is None or limit is None:
            continue
        if best is None or shared > best[0]:
            best = (shared, sentence, limit.group())
    if best is None:
        return None
    _, sentence, words = best
    return ScopeConflict(claim, found.group(), found.start(), found.end(), words, sentence,
                         _opening(words, found.start()))  # fmt: skip


def _sentence_conflict(claim: str, sentences: Sequence[tuple[str, str]]) -> ScopeConflict | None:
    """:func:`_conflict_in` of a sentence of the text, else :func:`_limit_denied`."""
    return _conflict_in(claim, sentences) or _limit_denied(claim, sentences)


def scope_conflict(text: str, evidence: Sequence[str]) -> ScopeConflict | None:
    """The first sentence of ``text`` that states for all what the evidence gives only under a
    condition (module doc), or None."""
    sentences = _evidence_sentences(evidence)
    if not sentences:
        return None
    for claim in split_sentences(undo_ptb(text)):
        found = _sentence_conflict(claim, sentences)
        if found is not None:
            return found
    return None


def scope_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> EditSpan | None:  # fmt: skip
    """``edit`` (a fix, deletion or flag, offsets in ``text``) as the fix of its sentence's
    quantified words that the evidence restricts, or its statement of no limit: the evidence's
    condition written after them ("all orders" -> "all orders over £20"), or its words in their
    place (module doc), typed ``entity``; None where there is none or ``edit`` does not touch
    them. ``subject`` is not read: a condition is the page's, not a person's."""
    del subject
    a, b = sentence
    sentences = _evidence_sentences([str(p.get("text", "")) for p in passages])
    found = _sentence_conflict(text[a:b], sentences)
    if found is None:
        return None
    start, end = a + found.start, a + found.end
    if edit["end"] <= start or end <= edit["start"]:
        return None
    fixed: EditSpan = {**edit, "type": "entity", "start": start, "end": end,
                       "wrong": text[start:end], "right": found.right}  # fmt: skip
    fixed.pop("flagged", None)
    return fixed
