"""A name the evidence contradicts: a rule beneath the checker's score.

Retrieval puts articles side by side, and a name another article gives lends a sentence a
support it does not have: with Saturn's article (which names Titan) beside Jupiter's, the mpnet
checker scores "Its four largest moons are Io, Europa, Ganymede and Titan" 0.99, against
Jupiter's alone 0.01 ("... and Callisto"); more generally, the encoders read a name the evidence
never gives, in a sentence the evidence otherwise matches, as they read a paraphrase.

A sentence of the text is contradicted here when the evidence sentence sharing the most of its
content words (at least half of them, and two; as :mod:`~favakit.inference.year_check` matches)
lines up with it word by word except for one stretch where:

- the text has one to three words, every one a name (capitalised, not the sentence's first word,
  not an all-capitals abbreviation, not a stopword, not a broad region such as "Europe" or "New
  England", which a text names where the evidence names a place inside it);
- the evidence has one to six words, names and stopwords only ("the Tibet region of China" is
  not: "region"), at least one of them a name the text never uses;
- none of the text's names is in the passage holding that sentence, nor a spelling of one of its
  words (accents, a possessive "'s", one a prefix of the other, or 80% of the letters alike:
  "Vasquez"/"Vázquez", "Comic-Con"/"Comic").

Where the text's sentence ends at its name and the evidence goes on, the evidence's words stop at
its first comma, semicolon, colon, bracket or dash (:func:`_clause_end`); in a place one has once
("born in"), the evidence's place is its run of names after a year or "the city of"
(:func:`_place_start`), and a name of the place that holds it, written after it, is no
contradiction (session 77).

Where no evidence sentence matches (a summary's sentence joins several), a name of one to three
words that no passage writes, after the three words the evidence writes before another name, is
contradicted too (:func:`_window_name`: "at the University of *Copenhagen*" against
"Researchers at the University of Aarhus"; session 51). Negated sentences are left to the
model. The checker then scores the text at most
:data:`~favakit.inference.year_check.CONFLICT_SCORE` and says why (:meth:`NameConflict.note`).

Chosen on training data only (``scripts/name_rule.py``; docs/benchmarks.md, session 35): on every
row of the training files it fires on 183 unsupported rows and 8 supported ones (the first form,
without the exceptions above, on 572 and 160: possessives, spellings, regions, stretches holding
other words). On the development split's 316 supported rows with a name swapped for another
row's, the mpnet checker rejects 184 alone and 210 with the rule, MiniLM 110 and 149.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import NamedTuple

from favakit.decompose import leading_name, resolve_opening_person
from favakit.inference.year_check import (
    CONFLICT_SCORE,
    matching_sentence,
    negated,
    passage_sentences,
)
from favakit.text import MONTHS, STOPWORDS, remembered, split_sentences, undo_ptb

__all__ = [
    "ABBREVIATIONS",
    "BROAD_REGIONS",
    "NameConflict",
    "is_name",
    "name_conflict",
    "names_alike",
]

#: a word of a name, its combining accents kept ("Ore\u0301al" written decomposed is one word)
_TOKEN = re.compile(r"[\w\u0300-\u036f]+(?:[-'\u2019.][\w\u0300-\u036f]+)*")
#: Places a text names where the evidence names a place inside them ("is in Europe" against
#: "in the United Kingdom"): left to the model.
BROAD_REGIONS = frozenset({
    "africa", "america", "americas", "antarctica", "arctic", "asia", "australasia", "balkans",
    "britain", "british", "caribbean", "england", "english", "eurasia", "europe", "hemisphere",
    "kingdom", "mediterranean", "middle", "midwest", "oceania", "scandinavia",
})  # fmt: skip
_MOST_TEXT_WORDS, _MOST_EVIDENCE_WORDS = 3, 6


class NameConflict(NamedTuple):
    """The text's name, the evidence's words in its place, the evidence sentence, and whether
    the text gives the evidence's person's words to another (:func:`_speaker_swap`)."""

    written: str
    evidence_words: str
    sentence: str
    speaker: bool = False

    def note(self) -> str:
        """What a verdict says of it."""
        return (f"name contradicted: the text says {self.written} where the evidence says "
                f"{self.evidence_words} (\"{self.sentence}\"); P(supported) at most "
                f"{CONFLICT_SCORE}")  # fmt: skip


@remembered
def _tokens(sentence: str) -> list[re.Match[str]]:
    """The tokens of ``sentence`` (or of a passage); remembered within
    :func:`~favakit.text.remembering`."""
    return list(_TOKEN.finditer(sentence))


def _stretch(sentence: str, tokens: Sequence[re.Match[str]]) -> str:
    """The words of ``sentence`` from the first of ``tokens`` to the last, as it writes them."""
    return sentence[tokens[0].start() : tokens[-1].end()]


def is_name(word: str, first: bool) -> bool:
    """Whether ``word`` counts as a name here: capitalised, not its sentence's ``first`` word,
    not an all-capitals abbreviation, not a stopword."""
    return (not first and word[0].isupper() and not word.isupper()
            and word.lower() not in STOPWORDS)  # fmt: skip


def _folded(word: str) -> str:
    """Lower case, accents and a possessive "'s" dropped, a curly apostrophe straight."""
    plain = unicodedata.normalize("NFKD", word.lower()).replace("\u2019", "'")
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return re.sub(r"'s$", "", plain)


#: Abbreviations of words that stand in names, and the words they shorten: "St. Louis" is
#: "Saint Louis", "Main St" "Main Street" (session 69; the name rule capped such pairs at 0.02)
ABBREVIATIONS: dict[str, frozenset[str]] = {
    short: frozenset(words.split())
    for short, words in {
        "st": "saint street", "ste": "sainte", "mt": "mount mountain", "mtn": "mountain",
        "ft": "fort", "pt": "point port", "dr": "doctor drive", "jr": "junior", "sr": "senior",
        "mr": "mister", "rd": "road", "ave": "avenue", "blvd": "boulevard", "hwy": "highway",
        "bros": "brothers", "co": "company county", "corp": "corporation",
        "inc": "incorporated", "ltd": "limited", "univ": "university", "dept": "department",
        "intl": "international", "natl": "national", "assn": "association",
        "gov": "governor", "sen": "senator", "rep": "representative", "gen": "general",
        "col": "colonel", "capt": "captain", "lt": "lieutenant", "sgt": "sergeant",
        "prof": "professor", "rev": "reverend",
        # the months ("Mar. 3, 2001" against "March 3, 2001"; "Sept" is a prefix already)
        **{month[:3]: month for month in MONTHS if len(month) > 3},
    }.items()
}  # fmt: skip


def names_alike(a: str, b: str) -> bool:
    """Whether two words may spell one name: equal once folded (:func:`_folded`), one a prefix
    of the other (four letters or more), one an abbreviation of the other
    (:data:`ABBREVIATIONS`), or 80% of their letters alike."""
    a, b = _folded(a), _folded(b)
    if a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a))):
        return True
    if b in ABBREVIATIONS.get(a, ()) or a in ABBREVIATIONS.get(b, ()):
        return True
    return SequenceMatcher(None, a, b).ratio() >= 0.8


def _broad(words: Sequence[str]) -> bool:
    return any(w.lower() in BROAD_REGIONS for w in words)


#: words whose place is one a person has once: "born in Vienna" against "born in Salzburg"
#: is a contradiction even where the passage names Vienna elsewhere (Mozart moved there)
_ONCE = frozenset({"born", "died", "buried"})


#: words of a date that may stand between "born" and "in": "born December 14, 1956 in New York
#: City", "born on 14 March 1879 in Ulm" (session 77)
_DATE_WORDS = frozenset({*MONTHS, "on", "c", "circa"})
_MOST_DATE_WORDS = 4


def _unique_role(before: Sequence[str]) -> bool:
    """Whether the words just before a stretch are a place one has once ("born in", "died
    at"): one of :data:`_ONCE`, up to :data:`_MOST_DATE_WORDS` words of a date, and then one
    preposition."""
    if len(before) < 2 or before[-1].lower() not in {"in", "at", "near"}:
        return False
    k = len(before) - 2
    while (
        k > 0
        and len(before) - 2 - k < _MOST_DATE_WORDS
        and (before[k].isdigit() or before[k].lower() in _DATE_WORDS)
    ):
        k -= 1
    return before[k].lower() in _ONCE


#: marks after which the evidence's words are a further clause or an aside
_CLAUSE_MARKS = re.compile(r"[,;:(\u2013\u2014]|\s-\s")


def _clause_end(sentence: str, tokens: Sequence[re.Match[str]], start: int, end: int) -> int:
    """Where the evidence's stretch ``tokens[start:end]`` ends its clause: before the first
    comma, semicolon, colon, bracket or dash after its first word, else ``end``. A text that
    ends at a name says less than evidence that goes on after it ("born in Munich." against
    "born in Ulm, in the Kingdom of Württemberg ... on 14 March 1879."): the name stands
    against the evidence's words up to that mark (session 77)."""
    for k in range(start + 1, end):
        if _CLAUSE_MARKS.search(sentence[tokens[k - 1].end() : tokens[k].start()]):
            return k
    return end


#: words that may stand between "born in" and the place's name: a year ("born in 384 BC in
#: Stagira") or the kind of place ("born in the city of Stagira")
_PLACE_LEAD = frozenset({"in", "at", "the", "city", "town", "village", "of", "bc", "ad", "bce",
                         "ce", "c"})  # fmt: skip


def _place_start(words: Sequence[str], start: int, end: int) -> int:
    """Where the place's name begins in ``words[start:end]``, which follow a place one has
    once: past a year or "the city of" (:data:`_PLACE_LEAD`), where a name follows them; else
    ``start`` (session 77)."""
    k = start
    while k < end and (words[k].lower() in _PLACE_LEAD or words[k].isdigit()):
        k += 1
    return k if start < k < end and is_name(words[k], first=False) else start


def _swapped(
    claim: str, sentence: str, passage: str, roles_only: bool = False
) -> NameConflict | None:
    """The stretch where ``claim`` names what ``sentence`` (of ``passage``) names otherwise;
    with ``roles_only``, only a place one has once (:func:`_unique_role`)."""
    mine_at, theirs_at = _tokens(claim), _tokens(sentence)
    mine, theirs = [m.group() for m in mine_at], [m.group() for m in theirs_at]
    claim_words = {_folded(w) for w in mine}
    passage_words = {m.group() for m in _tokens(passage)}
    matcher = SequenceMatcher(None, [w.lower() for w in mine], [w.lower() for w in theirs],
                              autojunk=False)  # fmt: skip
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op != "replace":
            continue
        goes_on = theirs[b1:b2]  # the evidence's words in the text's place, to the next match
        role = _unique_role(mine[:a1]) and _unique_role(theirs[:b1])
        if roles_only and not role:
            continue
        if role and _a_time(mine[a1:a2]):
            continue
        if role:  # the place's name: "born in 384 BC in Stagira", "in the city of Stagira in"
            b1 = _place_start(theirs, b1, b2)
            b2 = min(_name_run(theirs, b1), b2)
        if a2 == len(mine):  # the text ends where the evidence goes on
            b2 = _clause_end(sentence, theirs_at, b1, b2)
        if a2 - a1 > _MOST_TEXT_WORDS or b2 - b1 > _MOST_EVIDENCE_WORDS:
            continue
        written, given = mine[a1:a2], theirs[b1:b2]
        if not all(is_name(w, k == 0) for k, w in enumerate(written, a1)) or _broad(written):
            continue
        if not all(is_name(w, k == 0) or w.lower() in STOPWORDS
                   for k, w in enumerate(given, b1)):  # fmt: skip
            continue
        if not any(is_name(w, k == 0) and _folded(w) not in claim_words
                   for k, w in enumerate(given, b1)):  # fmt: skip
            continue
        # a name the passage gives elsewhere may be right; in a place one has once, only a
        # spelling of the evidence's own place is ("Königberg" for "Königsberg"), or of the
        # place it lies in where the evidence goes on ("Germany": "Ulm, in ... the German Empire")
        if any(names_alike(w, p) for p in (goes_on if role else passage_words) for w in written):
            continue
        return NameConflict(_stretch(claim, mine_at[a1:a2]), _stretch(sentence, theirs_at[b1:b2]),
                            sentence)  # fmt: skip
    return None


def name_conflict(text: str, evidence: Sequence[str]) -> NameConflict | None:
    """The first sentence of ``text`` with a name its evidence contradicts (module doc), or
    None."""
    passages = [undo_ptb(e) for e in evidence]
    sentences = passage_sentences(passages)
    if not sentences:
        return None
    for claim in split_sentences(undo_ptb(text)):
        match = None if negated(claim) else matching_sentence(claim, sentences)
        if match is None:
            continue
        at, best = match
        found = _swapped(claim, best, passages[at]) or _place_of_birth_or_death(
            claim, [s for i, s in sentences if i == at], passages[at]
        )
        if found is not None:
            return found
    return _speaker_swap(text, passages) or _window_name(text, passages)


#: Words before a name that must be the evidence's before another name for :func:`_window_name`,
#: one of them at least not a stopword.
BEFORE_NAME = 3


def _name_runs(tokens: Sequence[str]) -> list[tuple[int, int]]:
    """``[i, j)`` of each run of one to :data:`_MOST_TEXT_WORDS` names in ``tokens`` (not the
    first token)."""
    runs, i = [], 1
    while i < len(tokens):
        j = i
        while j < len(tokens) and is_name(tokens[j], first=False):
            j += 1
        if 0 < j - i <= _MOST_TEXT_WORDS:
            runs.append((i, j))
        i = max(j, i + 1)
    return runs


def _window_name(text: str, passages: Sequence[str]) -> NameConflict | None:
    """A name the evidence never writes where it writes another name after the same
    :data:`BEFORE_NAME` words: a summary's sentence joins several of the evidence's and matches
    none, so the sentence rule does not read it ("The researchers, at the University of
    *Copenhagen*, said ..." against "Researchers at the University of Aarhus recruited 96
    volunteers"). No word of the text's name, or a spelling of one, is in any passage; a place
    one has once ("born in") is left to the sentence rule, which reads whose it is.

    Chosen on the training files (session 51): it fires on 133 unsupported rows and 4 supported
    ones the sentence rules leave (with "born in" and "died in" read too, on more supported
    ones: another person's birthplace in the passage)."""
    # the evidence's words, and its names by the words before them: (words before) -> (name,
    # sentence); read once a claim's name could be one the evidence gives otherwise
    said: set[str] = set()
    after: dict[tuple[str, ...], list[tuple[str, str]]] | None = None
    for claim in split_sentences(text):
        if negated(claim):
            continue
        tokens = [m.group() for m in _TOKEN.finditer(claim)]
        for i, j in _name_runs(tokens):
            key = tuple(w.lower() for w in tokens[i - BEFORE_NAME : i]) if i >= BEFORE_NAME else ()
            if not key or all(w in STOPWORDS for w in key) or _broad(tokens[i:j]):
                continue
            if after is None:
                said, after = _names_after(passages)
            if _unique_role(key) or key not in after:  # "born in": the sentence rule's
                continue
            if any(names_alike(w, p) for w in tokens[i:j] for p in said):
                continue
            name, sentence = after[key][0]
            return NameConflict(" ".join(tokens[i:j]), name, sentence)
    return None


def _names_after(
    passages: Sequence[str],
) -> tuple[set[str], dict[tuple[str, ...], list[tuple[str, str]]]]:
    """The words of ``passages``, and their names by the :data:`BEFORE_NAME` words before each:
    (words before, lower case) -> [(name, its sentence)], in the evidence's order."""
    said = {m.group() for p in passages for m in _TOKEN.finditer(p)}
    after: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for p in passages:
        for sentence in split_sentences(p):
            tokens = [m.group() for m in _TOKEN.finditer(sentence)]
            for i, j in _name_runs(tokens):
                if i >= BEFORE_NAME:
                    key = tuple(w.lower() for w in tokens[i - BEFORE_NAME : i])
                    after.setdefault(key, []).append((" ".join(tokens[i:j]), sentence))
    return said, after


#: Words after a person's name that must be the evidence's after another person's name for
#: :func:`_speaker_swap`, one of them at least a content word other than a verb of saying.
AFTER_NAME = 3
_SAYING = frozenset({"said", "says", "told", "added", "warned", "argued", "claimed", "stated",
                     "noted", "explained", "insisted"})  # fmt: skip


def _people(sentence: str) -> list[tuple[list[str], str, list[str]]]:
    """``(name, word before, the AFTER_NAME words after, lower case)`` for each run of two or
    more capitalised words of ``sentence`` that are not stopwords ("Councillor Dev Mahajan")."""
    tokens = [m.group() for m in _TOKEN.finditer(sentence)]
    found, i = [], 0
    while i < len(tokens):
        j = i
        while j < len(tokens) and tokens[j][0].isupper() and tokens[j].lower() not in STOPWORDS:
            j += 1
        if j - i >= 2:
            before = tokens[i - 1].lower() if i else ""
            found.append((tokens[i:j], before, [t.lower() for t in tokens[j : j + AFTER_NAME]]))
        i = max(j, i + 1)
    return found


#: A person's pronoun, which follows the person: "Rosa Klein said *her* team" says the words of
#: "Pete Walsh said *his* team".
_PRONOUN_OF = {"his": "one's", "her": "one's", "their": "one's", "its": "one's",
               "he": "one", "she": "one", "they": "one", "him": "one", "them": "one"}  # fmt: skip


def _ungendered(words: Sequence[str]) -> list[str]:
    """``words`` (lower case) with a person's pronouns as one word (:data:`_PRONOUN_OF`)."""
    return [_PRONOUN_OF.get(w, w) for w in words]


def _speaker_swap(text: str, passages: Sequence[str]) -> NameConflict | None:
    """A person the text gives another's words or deeds: the text's name of two words or more
    and the evidence's other name are followed by the same :data:`AFTER_NAME` words (one a
    content word other than a verb of saying) and preceded by the same title or word (not a
    stopword), and the evidence never writes the text's name before those words: "Councillor
    *Dev Mahajan*, who voted against, warned ..." against "Councillor Ruth Ellingham, who voted
    against, said ...". A summary joins the evidence's sentences and matches none word for
    word; the text's name is often one the report gives elsewhere (Mahajan led the vote for)."""
    # the evidence's people, each with the word before and the words after: read once a
    # person of the text could be one
    theirs: list[tuple[str, tuple[list[str], str, list[str]]]] | None = None
    for claim in split_sentences(text):  # a negation elsewhere in it does not matter here
        for name, before, after in _people(claim):
            if len(after) < AFTER_NAME or all(w in STOPWORDS or w in _SAYING for w in after):
                continue
            if theirs is None:
                theirs = [(s, (other, their_before, _ungendered(their_after)))
                          for p in passages for s in split_sentences(p)
                          for other, their_before, their_after in _people(s)]  # fmt: skip
            after = _ungendered(after)
            if any(other == name and their_after == after for _, (other, _, their_after) in theirs):
                continue
            for sentence, (other, their_before, their_after) in theirs:
                title = [w for w, v in zip(name, other, strict=False) if w == v]
                if their_after != after or title != name[: len(title)]:
                    continue
                mine, given = name[len(title) :], other[len(title) :]
                if len(mine) < 2 or len(given) < 2 or set(mine) & set(given):
                    continue
                if not title and (before != their_before or not before or before in STOPWORDS):
                    continue
                return NameConflict(" ".join(mine), " ".join(given), sentence, speaker=True)
    return None


def _place_of_birth_or_death(
    claim: str, sentences: Sequence[str], passage: str
) -> NameConflict | None:
    """A place of birth, death or burial of ``claim`` that another sentence of the matched
    ``passage`` gives otherwise, in a sentence about the claim's subject (its opening name, or
    "He"/"She" where the passage opens with that name): "Mozart was born in Vienna in 1756 and
    wrote more than 600 works." matches the passage's sentence on his works, while "born in
    Salzburg in 1756" is in another."""
    subject = {w.lower() for w in leading_name(claim).split()}
    opening = leading_name(passage)
    words = _TOKEN.findall(claim)
    if not subject or not any(_unique_role(words[:k]) for k in range(2, len(words))):
        return None  # no "born in", "died at" ...
    for sentence in sentences:
        about = resolve_opening_person(sentence, opening)
        if subject & {w.lower() for w in _TOKEN.findall(about)}:
            found = _swapped(claim, sentence, passage, roles_only=True) or _role_place_swapped(
                claim, sentence, subject
            )
            if found is not None:
                return found
    return None


def _role_places(words: Sequence[str]) -> list[tuple[str, int, int]]:
    """``(role, where the role word is, where its place begins)`` for each place one has once in
    ``words``: the role word ("born") and the index after its preposition
    (:func:`_unique_role`)."""
    places = []
    for i, word in enumerate(words):
        if word.lower() in {"in", "at", "near"} and _unique_role(words[: i + 1]):
            at = next(k for k in range(i - 1, -1, -1) if words[k].lower() in _ONCE)
            places.append((words[at].lower(), at, i + 1))
    return places


def _a_time(words: Sequence[str]) -> bool:
    """Whether words after "born in" hold a date's word: "born in December of 1974" (or "April
    of 1961") gives a time, not a place."""
    return any(w.lower() in _DATE_WORDS for w in words)


def _name_run(words: Sequence[str], start: int) -> int:
    """Where the run of names that begins at ``start`` ends."""
    return next((k for k in range(start, len(words)) if not is_name(words[k], False)), len(words))


def _role_place_swapped(claim: str, sentence: str, subject: set[str]) -> NameConflict | None:
    """A place one has once that ``claim`` and ``sentence`` (about the same person) both give,
    read at their roles rather than by aligning the two sentences word by word, which a date
    between "born" and "in" throws ("David Waksberg was born in San Francisco." against "David
    Jonathan Waksberg, born December 14, 1956 in New York City, was ...": session 77). The
    text's place is contradicted where no word of it spells a name the sentence writes from its
    own place on ("born in New York" against "... in New York City" is not). Only a role with no
    name before it but the person's (``subject``, lower case) is read: "Marie Curie was born in
    Warsaw in 1867; Albert Einstein was born in Ulm" gives Einstein's birthplace second."""
    mine_at, theirs_at = _tokens(claim), _tokens(sentence)
    mine, theirs = [m.group() for m in mine_at], [m.group() for m in theirs_at]
    their_places = []  # (role, where its place's name begins and ends)
    for their_role, _, b1 in _role_places(theirs):
        b1 = _place_start(theirs, b1, len(theirs))
        their_places.append(
            (their_role, b1, _clause_end(sentence, theirs_at, b1, _name_run(theirs, b1)))
        )
    for role, at, a1 in _role_places(mine):
        if any(is_name(w, k == 0) and w.lower() not in subject for k, w in enumerate(mine[:at])):
            continue  # another name before the role: whose birth it is, is not clear
        a2 = _name_run(mine, a1)
        written = mine[a1:a2]
        if not 0 < len(written) <= _MOST_TEXT_WORDS or _broad(written) or _a_time(written):
            continue
        for their_role, b1, b2 in their_places:
            if their_role != role or not 0 < b2 - b1 <= _MOST_EVIDENCE_WORDS:
                continue
            if any(names_alike(w, p) for p in theirs[b1:] for w in written):
                continue
            return NameConflict(_stretch(claim, mine_at[a1:a2]),
                                _stretch(sentence, theirs_at[b1:b2]), sentence)  # fmt: skip
    return None
