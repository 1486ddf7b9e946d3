"""An opposite the evidence says in the same words: a rule beneath the checker.

A statement of the text that a statement of the evidence repeats word for word but for one word
with that word's opposite is contradicted there: "Encryption is on by default" against
"Encryption is off by default", "The gym is open on Sundays from 8am" against "The gym is closed
on Sundays from 8am". The checker, reading nearly the same words, calls such a text
supported; this rule caps it (:data:`~favakit.inference.year_check.CONFLICT_SCORE`).

It fires only where the two words are opposites ("on" / "off", "open" / "closed", "before" /
"after": :data:`_OPPOSITES`) or two of a closed set of alternatives (days, months, seasons, how
often: :data:`_ALTERNATIVES`), and not where the evidence also states the text's statement as
written. Any other word swapped is as often a synonym or a more general word ("movie" / "film",
"person" / "man") and is left to the checker. Statements are the clauses :func:`~favakit.inference.year_check.clause_spans` reads,
and whole sentences, of at least :data:`MIN_WORDS` words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from favakit.contracts import EditSpan
from favakit.inference.year_check import CONFLICT_SCORE, clause_spans
from favakit.text import MONTHS, WORD_FORM, remembered, split_sentences, undo_ptb

__all__ = ["MIN_WORDS", "WINDOW", "SwapConflict", "swap_conflict", "swap_fix"]

MIN_WORDS = 5  # a shorter statement repeats the evidence but for a word too easily
#: Words either side of an opposite that must be the evidence's, where no statement of the
#: evidence matches the text's word for word (:func:`_window_swap`).
WINDOW = 2

_OPPOSITES = {
    frozenset(pair)
    for pair in (
        ("on", "off"), ("open", "closed"), ("before", "after"), ("more", "less"),
        ("always", "never"), ("with", "without"), ("can", "cannot"), ("above", "below"),
        ("first", "last"), ("inside", "outside"), ("higher", "lower"), ("earlier", "later"),
        ("minimum", "maximum"), ("included", "excluded"), ("allowed", "forbidden"),
        ("increase", "decrease"), ("increased", "decreased"), ("enabled", "disabled"),
        ("required", "optional"), ("mandatory", "optional"), ("public", "private"),
        ("supported", "unsupported"), ("accepted", "rejected"), ("won", "lost"),
        ("north", "south"), ("east", "west"), ("upstairs", "downstairs"), ("free", "paid"),
        ("internal", "external"), ("maximum", "minimum"), ("rises", "falls"), ("rose", "fell"),
        ("import", "export"), ("imports", "exports"), ("buy", "sell"), ("bought", "sold"),
        ("full", "empty"), ("cheaper", "dearer"), ("faster", "slower"), ("larger", "smaller"),
        ("older", "newer"), ("oldest", "newest"), ("largest", "smallest"), ("most", "least"),
        ("more", "fewer"), ("approved", "rejected"), ("improved", "worsened"),
        ("rising", "falling"), ("risen", "fallen"), ("gained", "lost"),
        ("widened", "narrowed"), ("wider", "narrower"), ("raised", "lowered"),
        ("profit", "loss"), ("profits", "losses"),
    )
}  # fmt: skip
#: Closed sets of alternatives that exclude each other: a day, a month, a season or how often
#: (a "monthly" plan is not a "yearly" one). Two members of one set are read as an opposite.
_ALTERNATIVES = (
    frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]),
    frozenset(["mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays",
               "sundays", "weekdays", "weekends"]),
    frozenset(MONTHS),
    frozenset(["spring", "summer", "autumn", "winter"]),
    frozenset(["hourly", "daily", "weekly", "fortnightly", "monthly", "quarterly", "yearly",
               "annual", "annually"]),
)  # fmt: skip


class SwapConflict(NamedTuple):
    """The text's statement, its word the evidence says otherwise and where it is in the text,
    the evidence's word, and the evidence statement."""

    sentence: str
    written: str
    start: int
    end: int
    right: str
    evidence: str

    def note(self) -> str:
        """What a verdict says of it."""
        return (f"opposite: the text says {self.written!r} where the evidence says "
                f"{self.right!r} in the same words (\"{self.evidence}\"); P(supported) at most "
                f"{CONFLICT_SCORE}")  # fmt: skip


def _words(statement: str) -> list[re.Match[str]]:
    return list(WORD_FORM.finditer(statement))


def _statements(sentence: str) -> list[tuple[int, int]]:
    """The spans of ``sentence``'s clauses and of the sentence itself, stripped."""
    whole = (len(sentence) - len(sentence.lstrip()), len(sentence.rstrip(" .!?\n")))
    return list(dict.fromkeys([whole, *clause_spans(sentence)]))


def _swappable(a: str, b: str) -> bool:
    """Whether text word ``a`` against evidence word ``b`` says otherwise: they are opposites
    (:data:`_OPPOSITES`). Any other pair is not read: a word the evidence writes otherwise in
    the same words is as often its synonym or its more general word ("movie" / "film", "person"
    / "man"): on the training files such swaps fired on 73 supported rows and 122 unsupported.
    Two members of one closed set of alternatives (:data:`_ALTERNATIVES`: "monthly" / "yearly",
    "Monday" / "Friday") are read as opposites."""
    pair = frozenset((a, b))
    return pair in _OPPOSITES or any(
        len(pair) == 2 and pair <= alternatives for alternatives in _ALTERNATIVES
    )


# an evidence statement as the rule reads it: its words lower-cased, their matches, the statement
_Statement = tuple[list[str], list[re.Match[str]], str]


@remembered
def _passage_statements(passage: str) -> list[_Statement]:
    """The statements of an evidence ``passage`` (its sentences' clauses and the sentences) of
    :data:`MIN_WORDS` words or more; remembered within :func:`~favakit.text.remembering`."""
    out: list[_Statement] = []
    for sentence in split_sentences(undo_ptb(passage)):
        for a, b in _statements(sentence):
            found = _words(sentence[a:b])
            if len(found) >= MIN_WORDS:
                out.append(([m.group().lower() for m in found], found, sentence[a:b]))
    return out


@remembered
def _passage_words(passage: str) -> list[tuple[str, list[re.Match[str]]]]:
    """Each sentence of an evidence ``passage`` with its words; remembered within
    :func:`~favakit.text.remembering`."""
    return [(sentence, _words(sentence)) for sentence in split_sentences(undo_ptb(passage))]


def swap_conflict(text: str, evidence: Sequence[str]) -> SwapConflict | None:
    """The first statement of ``text`` an evidence statement repeats but for one word it says
    otherwise (module doc), or None."""
    plain = undo_ptb(text)
    return _read_swap(plain, evidence) if _may_swap(plain, evidence) else None


def _read_swap(plain: str, evidence: Sequence[str]) -> SwapConflict | None:
    """:func:`swap_conflict` of a text as read (``plain``), its evidence read in full."""
    theirs = [statement for passage in evidence for statement in _passage_statements(passage)]
    if not theirs:
        return None
    as_written = {tuple(words) for words, _, _ in theirs}
    at = 0
    for sentence in split_sentences(plain):
        offset = plain.find(sentence, at)
        at = offset + len(sentence)
        for a, b in _statements(sentence):
            mine = _words(sentence[a:b])
            words = [m.group().lower() for m in mine]
            if len(words) < MIN_WORDS or tuple(words) in as_written:
                continue
            for their_words, found, statement in theirs:
                if len(their_words) != len(words):
                    continue
                differ = [
                    k for k, (x, y) in enumerate(zip(words, their_words, strict=True)) if x != y
                ]
                if len(differ) == 1 and _swappable(words[differ[0]], their_words[differ[0]]):
                    k = differ[0]
                    start = offset + a + mine[k].start()
                    return SwapConflict(sentence, mine[k].group(), start,
                                        start + len(mine[k].group()), found[k].group(),
                                        statement)  # fmt: skip
    return _window_swap(plain, evidence)


#: The words that have an opposite or an alternative: only they can be said otherwise.
_HAS_OPPOSITE = frozenset(w for pair in _OPPOSITES for w in pair).union(*_ALTERNATIVES)

#: Each word with an opposite or alternatives -> the words that say otherwise.
_PARTNERS: dict[str, frozenset[str]] = {
    word: frozenset().union(*(pair for pair in _OPPOSITES if word in pair),
                            *(kin for kin in _ALTERNATIVES if word in kin)) - {word}
    for word in _HAS_OPPOSITE
}  # fmt: skip
_WORD_RUN = re.compile(r"\w+")


def _word_runs(text: str) -> set[str]:
    """The runs of word characters of ``text``, lower-cased: a superset, for the words with an
    opposite (each one run of letters), of the words the rule reads
    (:data:`~favakit.text.WORD_FORM`, as :func:`~favakit.text.plain_words` gives them, reads
    "off-peak" as one word; this reads "off" in it too)."""
    return set(_WORD_RUN.findall(text.lower()))


def _may_swap(plain: str, evidence: Sequence[str]) -> bool:
    """Whether the rule could fire: a word of the text (``plain``, as read) has an opposite or
    alternatives, and the evidence writes one of them. Only such a pair is read as said
    otherwise, so where this is False neither reading finds a conflict: the rule skips reading
    the evidence's statements (most claims)."""
    mine = _word_runs(plain) & _HAS_OPPOSITE
    if not mine:
        return False
    others = frozenset().union(*(_PARTNERS[word] for word in mine))
    return any(not others.isdisjoint(_word_runs(undo_ptb(passage))) for passage in evidence)


# the words either side of a word: (left, right)
_Around = tuple[tuple[str, ...], tuple[str, ...]]


def _arounds(words: Sequence[str], j: int) -> list[_Around]:
    """The ways word ``j`` of ``words`` is read by its neighbours: :data:`WINDOW` words either
    side, and one word on one side with :data:`WINDOW` on the other (a summary joins clauses:
    "and have *risen* by about 12%" against "They have fallen by about 12%")."""
    left, right = tuple(words[max(0, j - WINDOW) : j]), tuple(words[j + 1 : j + WINDOW + 1])
    if len(left) < 1 or len(right) < 1 or len(left) + len(right) < 2 * WINDOW - 1:
        return []
    ways = [(left, right)] if len(left) == len(right) == WINDOW else []
    if len(right) == WINDOW:
        ways.append((left[-1:], right))
    if len(left) == WINDOW:
        ways.append((left, right[:1]))
    return ways


def _window_swap(text: str, evidence: Sequence[str]) -> SwapConflict | None:
    """The first word of ``text`` whose opposite an evidence sentence writes between the same
    words either side (:func:`_arounds`), where the evidence never writes the text's words so:
    a summary's sentence joins several of the evidence's and matches none word for word
    ("customers were buying *more* cakes and sandwiches, and ..." against "customers were
    buying fewer cakes and sandwiches but more drinks")."""
    sentences = [read for passage in evidence for read in _passage_words(passage)]
    said = [[m.group().lower() for m in found] for _, found in sentences]
    # the evidence's words that have an opposite, by their neighbours: (left, right) -> (word,
    # its match, sentence); no other word can be said otherwise
    between: dict[_Around, list[tuple[str, re.Match[str], str]]] = {}
    for (sentence, found), words in zip(sentences, said, strict=True):
        for j, word in enumerate(words):
            if word in _HAS_OPPOSITE:
                for key in _arounds(words, j):
                    between.setdefault(key, []).append((word, found[j], sentence))
    grams: set[tuple[str, ...]] | None = None  # the evidence's words with their neighbours
    at = 0
    for sentence in split_sentences(text):
        offset = text.find(sentence, at)
        at = offset + len(sentence)
        mine = _words(sentence)
        words = [m.group().lower() for m in mine]
        for i in range(len(words)):
            if words[i] not in _HAS_OPPOSITE:
                continue
            ways = _arounds(words, i)
            if not any(key in between for key in ways):
                continue
            if grams is None:  # built where a word may be said otherwise: rarely
                grams = {(*left, w[j], *right) for w in said for j in range(len(w))
                         for left, right in _arounds(w, j)}  # fmt: skip
            if any((*left, words[i], *right) in grams for left, right in ways):
                continue
            for key in ways:
                full = len(key[0]) == len(key[1]) == WINDOW
                for word, match, statement in between.get(key, []):
                    # with one word on a side, opposites only: two dates share "on" and "6, 2019"
                    pair = frozenset((words[i], word))
                    if pair in _OPPOSITES or (full and _swappable(words[i], word)):
                        start = offset + mine[i].start()
                        return SwapConflict(sentence, mine[i].group(), start,
                                            start + len(mine[i].group()), match.group(),
                                            statement)  # fmt: skip
    return None


def swap_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> EditSpan | None:  # fmt: skip
    """``edit`` (a fix, deletion or flag, offsets in ``text``) as the fix of its sentence's word
    the evidence says with its opposite in the same words ("on" -> "off"), typed ``relation``;
    None where there is none or ``edit`` does not touch it. ``subject`` is not read: the
    statement is the page's."""
    del subject
    a, b = sentence
    found = swap_conflict(text[a:b], [str(p.get("text", "")) for p in passages])
    if found is None:
        return None
    start, end = a + found.start, a + found.end
    if text[start:end] != found.written or edit["end"] <= start or end <= edit["start"]:
        return None
    right = found.right
    if found.written[:1].isupper():
        right = right[:1].upper() + right[1:]
    fixed: EditSpan = {**edit, "type": "relation", "start": start, "end": end,
                       "wrong": found.written, "right": right}  # fmt: skip
    fixed.pop("flagged", None)
    return fixed
