"""A name a long document never gives: a rule beneath the checker's score.

A model's summary often adds a name its document never mentions: "The study, *funded by the
European Research Council*, was led by ..." where the report names no funder. The checker
reads the rest of such a sentence, which the document supports, and passes it. Here a sentence
of the text is unsupported when it names something in two or more capitalised words (not its
first word, not an all-capitals abbreviation, not stopwords: "European Research Council") none
of which the evidence uses in any form (case, a possessive "'s" aside; nor its initials, "U.S."
for "United States", session 69), and the evidence is a
document of :data:`MIN_EVIDENCE_WORDS` words or more: a name that long a text has not got from
it. With less evidence (a retrieved sentence or two) a name the passages leave out is often the
claim's own subject, which the article's title gives ("The Road to El Dorado stars an actor.").

Chosen on the training files only (session 50): on their 45,447 rows the rule fires on 76
unsupported rows and 1 supported one; with 150 words of evidence on 84 and 5, with 100 on 96 and
12, with any evidence on 1,175 and 673 (FEVER's claims name their article, its evidence rarely
does). The checker then scores the text at most
:data:`~favakit.inference.year_check.CONFLICT_SCORE` and says why (:meth:`UnseenName.note`); the
gate flags the name, among the words the evidence never uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from favakit.inference.name_check import is_name
from favakit.inference.year_check import CONFLICT_SCORE
from favakit.text import split_sentences, undo_ptb

__all__ = ["MIN_EVIDENCE_WORDS", "UnseenName", "unseen_name"]

#: The fewest words of evidence (all passages together) the rule reads a name's absence in.
MIN_EVIDENCE_WORDS = 200
_TOKEN = re.compile(r"\w+(?:[-'\u2019.]\w+)*")


class UnseenName(NamedTuple):
    """The text's name and its sentence."""

    written: str
    sentence: str

    def note(self) -> str:
        """What a verdict says of it."""
        return (f"name not in the evidence: the text names {self.written!r} (\"{self.sentence}\"), "
                f"which the evidence never mentions; P(supported) at most {CONFLICT_SCORE}")  # fmt: skip


_POSSESSIVE = re.compile(r"['\u2019]s$")


def _plain(word: str) -> str:
    return _POSSESSIVE.sub("", word.lower())


def _initials_used(name: Sequence[str], capitals: set[str]) -> bool:
    """Whether the evidence writes ``name`` by its initials in capitals ("US" or "U.S." for
    "United States", "EU" for "European Union"; not the word "us")."""
    initials = "".join(w[0] for w in name).upper()
    return initials in capitals or ".".join(initials) in capitals


def unseen_name(text: str, evidence: Sequence[str]) -> UnseenName | None:
    """The first name of two words or more in ``text`` that ``evidence`` (of
    :data:`MIN_EVIDENCE_WORDS` words or more) never uses a word of (module doc), or None."""
    passages = [undo_ptb(e) for e in evidence]
    if sum(len(p.split()) for p in passages) < MIN_EVIDENCE_WORDS:
        return None
    used: set[str] | None = None  # the evidence's words, read once a name needs them
    capitals: set[str] = set()  # and those it writes in capitals ("US", "U.S")
    for sentence in split_sentences(undo_ptb(text)):
        words = _TOKEN.findall(sentence)
        i = 1  # a sentence's first word is capitalised whatever it is
        while i < len(words):
            j = i
            while j < len(words) and is_name(words[j], first=False):
                j += 1
            if j - i >= 2:
                if used is None:
                    written = [w for p in passages for w in _TOKEN.findall(p)]
                    used = {_plain(w) for w in written}
                    capitals = {w for w in written if w.isupper()}
                if not any(_plain(w) in used for w in words[i:j]) and not _initials_used(
                    words[i:j], capitals
                ):
                    return UnseenName(" ".join(words[i:j]), sentence)
            i = max(j, i + 1)
    return None
