"""A year the evidence contradicts: a rule beneath the checker's score.

The encoder checkers read "won the Nobel Prize in Chemistry in 1921" against "... in 1911" as
supported (mpnet: P 0.99): years a digit apart look alike to them. A sentence of the text is
contradicted here when it gives a year as an exact date (:func:`exact_years`: not a decade, a
bound such as "before 2005", part of a name, or in a negated sentence), the evidence sentence
sharing the most of its content words (at least half of them, and two) gives another year that
the text sentence does not, and the passage holding that sentence never gives the text's year
(a year in a passage about something else, retrieved beside it, does not back the text). Each
statement a sentence joins (:func:`clauses`: "..., and won the Nobel Prize in Chemistry in
1921 ...") is compared the same way, before the whole sentence: "Leonardo was born in 1452,
while Galileo was born in 1574." as a whole matches Galileo's sentence, whose passage lacks
Leonardo's 1452; and a year its own statement's evidence backs is not judged again by the
whole sentence's match ("Marie Curie was born in Warsaw in 1867; Albert Einstein was born in
Ulm in 1879." as a whole matches Curie's "She was born in Warsaw in 1867 and died in 1934.").
The checker then scores the text at most :data:`CONFLICT_SCORE` and says why
(:meth:`YearConflict.note`).

Chosen on training data only (``scripts/year_rule.py``; docs/benchmarks.md, session 29): on
every row of the training files the rule fires on 485 unsupported rows and 10 supported ones
(36 before :func:`exact_years` set decades, bounds, names and negations aside); on the
development split on 23 rows, all unsupported. Of the development split's supported rows with a
year the evidence gives, that year moved by 1 or 10 (256 claims), the mpnet checker rejects 242
alone and 250 with the rule, the MiniLM checker 209 and 247. Other numbers (counts, amounts)
were tried and left out: written in words or with units in the evidence, they raised false
alarms on supported rows. Comparing each statement of a sentence as well (session 38) fires on
489 unsupported training rows instead of 485, and on the same 10 supported ones. A summary's
sentence draws on several of the evidence's and shares half its words with none: a year no
passage gives is then also read against an evidence sentence giving another year the same way
(exact, or after the same "since", "until", "before" or "after", which the match above leaves
out) where the eight words either side of the two share two content words
(:func:`_local_conflict`: "which will open in *2028* and employ about 60 researchers" against
"The centre will open in 2027 and employ about 60 researchers."; session 50): on the training
files the rule then fires on 550 unsupported rows and 14 supported ones (491 and 10 before).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from favakit.decompose import leading_name, resolve_opening_person
from favakit.text import MONTHS, STOPWORDS, remembered, split_sentences, undo_ptb

__all__ = [
    "CONFLICT_SCORE",
    "YearConflict",
    "clause_spans",
    "clauses",
    "content_words",
    "exact_years",
    "local_passages",
    "matching_sentence",
    "negated",
    "numbers_in",
    "passage_sentences",
    "year_conflict",
    "year_spans",
    "years_in",
]

#: The highest P(supported) a text with a contradicted year keeps: none of the 23 development
#: rows the rule fires on is supported.
CONFLICT_SCORE = 0.02

_NUMBER = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w,]\d|\w)")
_YEAR = re.compile(r"(?:1\d|20)\d\d")
# "1911-12", "1999–2000": the second year of a range written short
_SHORT_RANGE = re.compile(r"(?<![\w.,])((?:1\d|20)\d\d)\s*(?:--?|[\u2013\u2014/])\s*(\d\d)(?!\w)")
_WORD = re.compile(r"[^\W\d_]+")
# a year that is not an exact date of the text: a decade ("the 1970's"), a bound ("before 2005",
# "1992 or later"), part of a name ("Blade Runner 2049"); and a negated sentence
_DECADE_AFTER = re.compile(r"\s?['\u2019]?s\b")
_BOUND_BEFORE = re.compile(
    r"\b(?:before|after|until|till|since|by|prior to|earlier than|later than|around|circa|"
    r"about|approximately|as early as|as late as|no later than)\s+(?:the\s+)?(?:year\s+)?$",
    re.IGNORECASE,
)
_BOUND_AFTER = re.compile(
    r"\s*(?:or|and)\s+(?:later|earlier|before|after)\b|\s+onwards?\b", re.IGNORECASE
)
_NAME_BEFORE = re.compile(r"\b([A-Z][\w-]*)\s+$")
_NEGATION = re.compile(r"\b(?:not|never|no longer)\b|n['\u2019]t\b", re.IGNORECASE)
_MONTHS = frozenset(MONTHS) | {m[:3] for m in MONTHS} | {"sept"}


class YearConflict(NamedTuple):
    """The text's year, the other years of the evidence sentence that matches it, that sentence."""

    year: str
    evidence_years: tuple[str, ...]
    sentence: str

    def note(self) -> str:
        """What a verdict says of it."""
        others = ", ".join(self.evidence_years)
        return (f"year contradicted: the text says {self.year} where the evidence says {others} "
                f"(\"{self.sentence}\"); P(supported) at most {CONFLICT_SCORE}")  # fmt: skip


def numbers_in(text: str) -> list[str]:
    """The numbers ``text`` writes in digits, separators dropped ("2,000" -> "2000"), and the
    second year of a range written short ("1911-12" -> "1912")."""
    found = [m.group().replace(",", "") for m in _NUMBER.finditer(text)]
    for m in _SHORT_RANGE.finditer(text):
        found.append(m.group(1)[:2] + m.group(2))
    return found


def years_in(text: str) -> list[str]:
    """The numbers of ``text`` that may be years (1000 to 2099)."""
    return [n for n in numbers_in(text) if _YEAR.fullmatch(n)]


def year_spans(text: str, year: str | None = None) -> list[tuple[int, int]]:
    """Where ``text`` writes the number ``year`` (as :func:`numbers_in` reads numbers), or any
    number that may be a year (1000 to 2099, no separator) where ``year`` is None."""
    return [(m.start(), m.end()) for m in _NUMBER.finditer(text)
            if m.group() == year or (year is None and _YEAR.fullmatch(m.group()))]  # fmt: skip


def exact_years(sentence: str) -> list[str]:
    """The years a sentence gives as exact dates: not a decade, a bound or part of a name, and
    none where the sentence is negated (the rule leaves those to the model)."""
    if negated(sentence):
        return []
    found = []
    for m in _NUMBER.finditer(sentence):
        year, before, after = m.group(), sentence[: m.start()], sentence[m.end() :]
        if not _YEAR.fullmatch(year) or _DECADE_AFTER.match(after) or _BOUND_AFTER.match(after):
            continue
        if _BOUND_BEFORE.search(before):
            continue
        name = _NAME_BEFORE.search(before)
        if name and name.group(1).lower() not in STOPWORDS | _MONTHS:
            continue
        found.append(year)
    return found


def negated(sentence: str) -> bool:
    """Whether a sentence is negated ("not", "never", "no longer", "-n't"): the rules leave those
    to the model. The rules ask it of the same sentences many times: the last 4,096 answers for
    sentences of up to 1,000 characters are remembered (at most about 4 MB)."""
    if len(sentence) > 1000:
        return bool(_NEGATION.search(sentence))
    return _negated(sentence)


@functools.lru_cache(maxsize=4096)
def _negated(sentence: str) -> bool:
    return bool(_NEGATION.search(sentence))


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry its content: lower case, stopwords and single letters
    aside."""
    return {w for w in _WORD.findall(text.lower()) if len(w) > 1 and w not in STOPWORDS}


#: A passage longer than this many words is read by the rules in windows of whole sentences of
#: about :data:`WINDOW_WORDS` words each (:func:`local_passages`).
LONG_PASSAGE_WORDS = 200
WINDOW_WORDS = 100


def local_passages(passages: Sequence[str]) -> list[str]:
    """``passages``, each longer than :data:`LONG_PASSAGE_WORDS` words cut into windows of whole
    sentences of about :data:`WINDOW_WORDS` words, in order: what the year, day, count and name
    rules read as "the passage holding" the matching sentence. A whole article handed over as
    one passage gives most names and numbers somewhere; a window is what a retrieved chunk
    would be, the sentence's own neighbourhood ("In 1914 Einstein moved to *Munich* to join the
    Prussian Academy" against "In 1914, he moved to Berlin in order to join the Prussian
    Academy", the article naming Munich for his childhood; session 78)."""
    out: list[str] = []
    for passage in passages:
        if len(passage.split()) <= LONG_PASSAGE_WORDS:
            out.append(passage)
            continue
        window: list[str] = []
        words = 0
        for sentence in split_sentences(passage):
            window.append(sentence)
            words += len(sentence.split())
            if words >= WINDOW_WORDS:
                out.append(" ".join(window))
                window, words = [], 0
        if window:
            out.append(" ".join(window))
    return out


def passage_sentences(passages: Sequence[str]) -> list[tuple[int, str]]:
    """``(passage index, sentence)`` for each sentence of each passage, in order: the list
    :func:`matching_sentence` and the rules beneath the checker read evidence as."""
    return [(i, s) for i, p in enumerate(passages) for s in split_sentences(p)]


def matching_sentence(claim: str, sentences: Sequence[tuple[int, str]]) -> tuple[int, str] | None:
    """``(passage index, sentence)`` of the evidence sentence sharing the most of ``claim``'s
    content words, where it shares at least half of them and two: the sentence the rules
    beneath the checker compare a claim's sentence with; else None. An evidence sentence that
    opens with "He" or "She" is read with its passage's opening name in its place ("She died in
    1852 at the age of 36." in Ada Lovelace's passage shares "Ada Lovelace died ... age" with
    the claim "Ada Lovelace died in 1852 at the age of 36.", not only "died" and "age", as
    Franklin's "Franklin died in 1958, at the age of 37." does). Between equals, the one whose
    passage (its sentences together) shares the most, then the first. A claim that opens with a
    name is compared with the sentences of the passages about that name (:func:`_about`), where
    one of them shares enough: "Jupiter is the largest planet ... and the sixth planet from the
    Sun." shares more words with Saturn's "Saturn is the sixth planet from the Sun and the second
    largest ..., after Jupiter." than with Jupiter's own "Jupiter is the fifth planet ...". A
    sentence whose statements open with the names of others (:func:`clause_spans`) is not about
    one of them, and is compared as any other."""
    words = content_words(claim)
    if not words or not sentences:
        return None
    read = _read_sentences(tuple(sentences))
    opening = {i: name for i, name, _ in read}  # each passage's opening name
    theirs = [found for _, _, found in read]
    in_passage: dict[int, set[str]] = {}
    for (i, _), found in zip(sentences, theirs, strict=True):
        in_passage.setdefault(i, set()).update(found)
    need = max(2, len(words) / 2)
    subject = leading_name(claim)
    others = {leading_name(claim[a:b]) for a, b in clause_spans(claim)} - {""}
    if any(not _about(subject, name) for name in others):
        subject = ""  # "Marie Curie was born in 1867; Albert Einstein was born in 1879."
    ranked = [(_about(subject, opening[i]), len(words & found), len(words & in_passage[i]), i, s)
              for (i, s), found in zip(sentences, theirs, strict=True)]  # fmt: skip
    _, shared, _, at, best = max(ranked, key=lambda t: (t[0] and t[1] >= need, t[1], t[2]))
    return (at, best) if shared >= need else None


@remembered
def _read_sentences(
    sentences: tuple[tuple[int, str], ...],
) -> list[tuple[int, str, frozenset[str]]]:
    """``(passage index, its opening name, content words)`` of each evidence sentence, one that
    opens with "He" or "She" read with its passage's opening name (its first sentence's) in its
    place: :func:`matching_sentence`'s reading of the evidence, which the rules beneath a
    checker share within one call (:func:`~favakit.text.remembering`)."""
    opening: dict[int, str] = {}
    for i, s in sentences:
        opening.setdefault(i, leading_name(s))
    return [(i, opening[i], frozenset(content_words(resolve_opening_person(s, opening[i]))))
            for i, s in sentences]  # fmt: skip


def _about(subject: str, opening: str) -> bool:
    """Whether a passage that opens with the name ``opening`` is about ``subject``, the name a
    claim opens with: the words of one are among the other's ("Galileo", "Galileo Galilei")."""
    if not subject or not opening:
        return False
    mine, theirs = set(subject.lower().split()), set(opening.lower().split())
    return mine <= theirs or theirs <= mine


def year_conflict(text: str, evidence: Sequence[str]) -> YearConflict | None:
    """The first sentence of ``text`` whose year the evidence contradicts (module doc), or None."""
    passages = [undo_ptb(e) for e in evidence]
    given = [set(numbers_in(p)) for p in passages]
    sentences = passage_sentences(passages)
    for sentence in split_sentences(undo_ptb(text)):
        held: set[str] = set()  # the years of statements their own evidence sentence backs
        for claim in [*clauses(sentence), sentence]:  # a statement's own year first
            years = exact_years(claim)
            match = matching_sentence(claim, sentences) if years else None
            if match is None:
                continue
            at, best = match
            new = [y for y in years if y not in given[at] and y not in held]
            if not new:
                held.update(years)
                continue
            mine = set(numbers_in(claim))
            others = tuple(dict.fromkeys(y for y in years_in(best) if y not in mine))
            if others:
                return YearConflict(new[0], others, best)
    return _local_conflict(undo_ptb(text), passages, given)


#: Words either side of a year that :func:`_local_conflict` compares, and how many content
#: words the two sides must share (on the training files, for exact years: 59 more unsupported
#: rows and 4 supported with two, 13 and 1 with three; as precise, and two kept; session 50).
AROUND = 8
AROUND_SHARED = 2
# a year bounded by "since", "until", "before" or "after": "its first win *since 2011*"
_BOUNDED_YEAR = re.compile(
    r"\b(since|until|till|before|after)\s+((?:1\d|20)\d\d)(?![\d,]|['\u2019]?s\b)", re.I
)


def _dated_years(sentence: str) -> list[tuple[str, str, set[str]]]:
    """``(bound, year, content words around it)`` for each year ``sentence`` bounds by
    "since", "until", "before" or "after", and (bound "") each it gives as an exact date
    (:func:`exact_years`); none in a negated sentence."""
    if negated(sentence):
        return []
    found = []
    for m in _BOUNDED_YEAR.finditer(sentence):
        found.append((m.group(1).lower(), m.group(2), _around(sentence, m.start(), m.end())))
    exact = set(exact_years(sentence))
    for m in _NUMBER.finditer(sentence):
        if m.group() in exact:
            found.append(("", m.group(), _around(sentence, m.start(), m.end())))
    return found


def _around(sentence: str, start: int, end: int) -> set[str]:
    """The content words within :data:`AROUND` words either side of ``sentence[start:end]``."""
    before = sentence[:start].split()[-AROUND:]
    after = sentence[end:].split()[:AROUND]
    return content_words(" ".join(before + after))


def _local_conflict(
    text: str, passages: Sequence[str], given: Sequence[set[str]]
) -> YearConflict | None:
    """A year the text bounds ("its first win in the event *since 2001*") or gives as an exact
    date ("which will open *in 2028*") where an evidence sentence gives another year the same
    way and the words around the two share :data:`AROUND_SHARED` content words or more ("It
    was Linden's first win in the event since 2011.", "The centre will open in 2027 and employ
    about 60 researchers."), and no passage gives the text's year: a summary's sentence draws on
    several of the evidence's and shares half its words with none, and the words around a year
    say which statement it dates. Not a year the text's sentence gives itself ("a 2010 film
    based on the 2005 book" is not contradicted by "a spin-off of the 2005 book")."""
    mine = [(b, y, near, set(numbers_in(s))) for s in split_sentences(text)
            for b, y, near in _dated_years(s) if not any(y in g for g in given)]  # fmt: skip
    if not mine:
        return None
    for passage in passages:
        for sentence in split_sentences(passage):
            for bound, year, near in _dated_years(sentence):
                for my_bound, my_year, my_near, my_numbers in mine:
                    if (bound == my_bound and year not in my_numbers
                            and len(near & my_near) >= AROUND_SHARED):  # fmt: skip
                        return YearConflict(my_year, (year,), sentence)
    return None


# where a sentence joins two statements: "; ", ", and ", ", but ", ", while ", ", whereas "
_CLAUSE_BREAK = re.compile(r"\s*;\s+|,\s+(?:and|but|while|whereas)\s+")


def clauses(sentence: str) -> list[str]:
    """The statements a sentence joins (:data:`_CLAUSE_BREAK`: "She shared the 1903 Nobel Prize
    in Physics ..., and won the Nobel Prize in Chemistry in 1921 ..." -> two), each compared
    with the evidence on its own, since the evidence often states them in two sentences; []
    for a sentence of one statement."""
    parts = [sentence[a:b] for a, b in clause_spans(sentence)]
    return parts if len(parts) > 1 else []


def clause_spans(sentence: str) -> list[tuple[int, int]]:
    """The character spans of the statements ``sentence`` joins (:func:`clauses`), without the
    joining words and the spaces around them; one span, the whole sentence stripped, for a
    sentence of one statement."""
    spans, at = [], 0
    for m in [*_CLAUSE_BREAK.finditer(sentence), None]:
        end = m.start() if m else len(sentence)
        piece = sentence[at:end]
        if piece.strip():
            a = at + len(piece) - len(piece.lstrip())
            spans.append((a, at + len(piece.rstrip())))
        at = m.end() if m else end
    return spans
