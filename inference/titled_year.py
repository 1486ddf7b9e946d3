"""A work's year the evidence gives in brackets after its title: a rule beneath the checker's
score, beside the year rule.

Lists of works give each its year in brackets: "he released his studio albums Deeper Than Rap
(2009), Teflon Don (2010), ..., Hood Billionaire (2014)". The mpnet checker calls "Rick Ross
released Hood Billionaire in 2010." supported (0.988), and the year rule cannot tell: the passage
gives 2010, for another album. A sentence of the text is contradicted here when

- it gives one year as an exact date (:func:`~favakit.inference.year_check.exact_years`: not in
  a negated sentence) and names a title the evidence writes with a year in brackets after it
  ("Hood Billionaire (2014)": the run of capitalised words before the bracket, small words such
  as "of" or "me" inside it, :func:`titled_years`), within :data:`NEAR` words of that year;
- and the evidence never writes that title with the text's year in brackets.

Chosen on the training files only (session 78): on their 45,447 rows it fires on 9 unsupported
rows and no supported one (4 that the year and count rules do not: "Rick Ross released Hood
Billionaire in 2010." is a development row; "Hammer Film Productions produced Let Me In in
2011." against "Let Me In (2010)"). The checker then scores the text at most
:data:`~favakit.inference.year_check.CONFLICT_SCORE` and the verdict says why, as the year
rule's does (:class:`~favakit.inference.year_check.YearConflict`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from favakit.inference.year_check import YearConflict, exact_years
from favakit.text import STOPWORDS, sentence_spans, split_sentences, undo_ptb

__all__ = ["NEAR", "titled_year_conflict", "titled_years"]

#: The most words between the text's title and its year ("released *Hood Billionaire* in
#: *2010*": one; "the *2010* album *Hood Billionaire*": one).
NEAR = 4
_BRACKET_YEAR = re.compile(r"\(\s*((?:1[5-9]|20)\d\d)\s*\)")
_TOKEN = re.compile(r"[\w'\u2019.&:!?-]+|[^\w\s]")
# small words a title holds between its capitalised ones ("Let *Me* In", "Lord *of the* Rings")
_INSIDE = frozenset(
    ["of", "the", "a", "an", "and", "in", "on", "to", "for", "with", "at", "by", "from", "is",
     "me", "you", "it", "my", "your", "our", "his", "her"]
)  # fmt: skip


def _title_before(passage: str, at: int) -> str:
    """The title written just before character ``at`` (a bracketed year): the run of capitalised
    words (and digits) there, small words inside it, a closing quote aside; "" where none."""
    words = _TOKEN.findall(passage[max(0, at - 160) : at].rstrip().rstrip("\"\u201d'"))
    run: list[str] = []
    for word in reversed(words):
        if word[0].isupper() or word[0].isdigit() or (word.lower() in _INSIDE and run):
            run.append(word)
        else:
            break
    while run and run[-1].lower() in _INSIDE:  # the run opens with a capitalised word
        run.pop()
    title = " ".join(reversed(run))
    if len(title) < 4 or title.lower() in STOPWORDS:
        return ""
    return title


def titled_years(passage: str) -> list[tuple[str, str, int]]:
    """``(title, year, where)`` for each title ``passage`` writes with a year in brackets after
    it ("Teflon Don (2010)"), ``where`` the bracket's start."""
    found = []
    for m in _BRACKET_YEAR.finditer(passage):
        title = _title_before(passage, m.start())
        if title:
            found.append((title, m.group(1), m.start()))
    return found


def _sentence_at(passage: str, at: int) -> str:
    """The sentence of ``passage`` holding character ``at``."""
    return next((passage[a:b] for a, b in sentence_spans(passage) if a <= at < b), passage)


def _near(sentence: str, title: str, year: str) -> bool:
    """Whether ``sentence`` names ``title`` within :data:`NEAR` words of ``year``."""
    for t in re.finditer(rf"(?<!\w){re.escape(title)}(?!\w)", sentence, re.IGNORECASE):
        for y in re.finditer(rf"(?<!\d){year}(?!\d)", sentence):
            between = (
                sentence[t.end() : y.start()]
                if t.end() <= y.start()
                else sentence[y.end() : t.start()]
            )
            if len(between.split()) <= NEAR:
                return True
    return False


def titled_year_conflict(text: str, evidence: Sequence[str]) -> YearConflict | None:
    """The first sentence of ``text`` that gives a work another year than the one the evidence
    writes in brackets after its title (module doc), or None."""
    passages = [undo_ptb(e) for e in evidence]
    titled = [(p, t) for p in passages for t in titled_years(p)]
    if not titled:
        return None
    for sentence in split_sentences(undo_ptb(text)):
        years = set(exact_years(sentence))
        if len(years) != 1:
            continue
        (year,) = years
        for passage, (title, given, at) in titled:
            if given == year or not _near(sentence, title, year):
                continue
            same = {y for _, (t, y, _) in titled if t.lower() == title.lower()}
            if year not in same:
                return YearConflict(year, tuple(sorted(same)), _sentence_at(passage, at))
    return None
