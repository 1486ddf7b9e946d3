"""A count the evidence contradicts, fixed from the evidence: "24 players" -> "23 players".

Where the count rule beneath the checker (:func:`~favakit.inference.count_check.count_conflict`)
finds a sentence's count contradicted, the matching evidence sentence gives exactly one other
number counting the same word, and that sentence (or its passage's title) names the text's
subject, an edit or flag holding the count becomes its fix: the count replaced by the evidence's
number as the evidence writes it ("seventeenth" -> "16th"; "three times" -> "twice"), typed
``entity``; not a sum of money where the evidence sentence gives several the text's sentence
does not (which one the text meant is not known: :func:`_priced_twice`). As with years
(:func:`~favakit.inference.date_fix.year_fix`), another person's article lends no numbers. An
evidence sentence that is not the one the text's sentence says lends its number only where the
words around the two counts share one content word more than the count rule's verdict needs
(:func:`_said_there`): the verdict may rest on two shared words ("cost", "extra"), a fix should
not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from favakit.contracts import EditSpan
from favakit.inference.count_check import (
    ADVERB_COUNTS,
    AROUND_SHARED,
    CountConflict,
    count_conflict,
    counts,
    is_statement,
    shared_around,
    values_in,
)
from favakit.inference.date_fix import lends_to, replaced
from favakit.inference.number_forms import CURRENCY
from favakit.inference.year_check import matching_sentence, passage_sentences
from favakit.text import keep_case

__all__ = ["count_fix"]


def count_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> EditSpan | None:  # fmt: skip
    """``edit`` (a fix, deletion or flag, offsets in ``text``) as the fix of its sentence's count
    that the evidence contradicts (module doc); None where there is none, the evidence gives
    several numbers for it, the count is written more than once in the sentence, ``edit`` does
    not hold it, or ``subject`` is given and the evidence sentence is not about it."""
    a, b = sentence
    found = count_conflict(text[a:b], [str(p.get("text", "")) for p in passages])
    if found is None or len(found.evidence_numbers) != 1 or _priced_twice(found, text[a:b]):
        return None
    where = [m.span() for m in re.finditer(rf"(?<![\w.,]){re.escape(found.written)}(?![\w])",
                                           text[a:b])]  # fmt: skip
    if len(where) > 1:  # "six planes and *six* helicopters": the one before what it counts
        counted = rf"\s+{re.escape(found.counted)}\b"
        where = [w for w in where if re.match(counted, text[a + w[1] : b], re.IGNORECASE)]
    if len(where) != 1:
        return None
    start, end = a + where[0][0], a + where[0][1]
    if not (edit["start"] <= start and end <= edit["end"]):
        return None
    if not lends_to(found.sentence, passages, subject, text[a:start]):  # who has the count
        return None
    if not _said_there(text[a:b], found, passages):
        return None
    right = _in_case_of(found.written, found.evidence_numbers[0])
    if right.lower() in ADVERB_COUNTS:  # "three times" -> "twice"
        times = re.match(r"\s+times\b", text[end:b])
        end += times.end() if times else 0
    elif found.written.lower() in ADVERB_COUNTS:  # "twice" -> "three times"
        right = f"{right} times"
    elif (
        found.counted in CURRENCY and found.counted in found.written and found.counted not in right
    ):
        right = f"{found.counted}{right}"  # a bound's "over $900 million" -> "$873 million"
    return replaced(edit, start, end, text[start:end], right)


#: Content words the words around a count and around the evidence's must share for a fix taken
#: from an evidence sentence that is not the one the text's sentence says (one more than the
#: count rule's verdict asks: :data:`~favakit.inference.count_check.AROUND_SHARED`).
FIX_AROUND_SHARED = AROUND_SHARED + 1


def _said_there(claim: str, found: CountConflict, passages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the contradicting evidence sentence may lend its number: it is the sentence the
    text's sentence says (:func:`~favakit.inference.year_check.matching_sentence`), or the
    words around the two counts share :data:`FIX_AROUND_SHARED` content words ("goalkeeper Sam
    Okafor made *three* saves before half-time" against "goalkeeper, Sam Okafor, kept them in
    the game before half-time with two saves"; not "the first *10* minutes are free" against
    "cost £1 for each extra 15 minutes", whose "cost" and "extra" are the verdict's two), or the
    two words before them are the same ("a penalty in the *76th* minute" against "a second in
    the 67th minute"), or it is a bare statement of the count
    (:func:`~favakit.inference.count_check.is_statement`: "212 reviews.", a record's value)."""
    if is_statement(found.sentence):
        return True  # "212 reviews.": a record's count, said of nothing else
    sentences = passage_sentences([str(p.get("text", "")) for p in passages])
    match = matching_sentence(claim, sentences)
    if match is not None and match[1] == found.sentence:
        return True
    written = found.evidence_numbers[0]
    if _two_words_before(claim, found.written) == _two_words_before(found.sentence, written):
        return True  # the same slot: "scoring a penalty *in the 76th* minute", "in the 67th"
    return shared_around(claim, found.written, found.sentence, written) >= FIX_AROUND_SHARED


def _two_words_before(sentence: str, written: str) -> list[str] | None:
    """The two words (lower case) before the first ``written`` number of ``sentence``; None
    where it is not there or fewer than two words precede it."""
    at = re.search(rf"(?<![\w.,]){re.escape(written)}(?!\w)", sentence)
    words = re.findall(r"\w+", sentence[: at.start()].lower()) if at else []
    return words[-2:] if len(words) >= 2 else None


def _in_case_of(written: str, right: str) -> str:
    """``right`` (a number as the evidence writes it) in the case of the text's ``written``: the
    evidence's "Two" opening its sentence is "two" inside the text's ("and *three* of the
    city's eight libraries" -> "two"), and the other way round (:func:`keep_case`)."""
    if not right[:1].isalpha():
        return right
    if written[:1].islower():
        return right[:1].lower() + right[1:]
    return keep_case(written, right)


def _priced_twice(found: CountConflict, sentence: str) -> bool:
    """Whether ``found`` is a sum of money and its evidence sentence gives several: "bicycles
    cost *£3*" against "A car costs £38 single to Keel and £52 single to Marrow." is
    contradicted, but which price the text meant is not known (not "£52", Marrow's car fare:
    bicycles travel free). Where the sentence gives the other sums but one, and the text's sum
    and that one follow the same word, the text meant that one: against "a profit of £8.1
    million, up from £5.6 million", "a profit of £8.1 million, up *from* £6.5 million" meant
    £5.6 million ("and bicycles *cost* £3" did not mean "*and* £52")."""
    mine = [c for c in counts(sentence) if c.written == found.written]
    if not mine or mine[0].counted not in CURRENCY:
        return False
    theirs = [c for c in counts(found.sentence) if c.counted == mine[0].counted]
    if len(theirs) < 2:
        return False
    given = values_in(sentence)
    left = [c for c in theirs if c.value not in given]
    return not (len(left) == 1 and _word_before(sentence, mine[0].start)
                == _word_before(found.sentence, left[0].start))  # fmt: skip


def _word_before(sentence: str, at: int) -> str:
    """The word before a sum starting at ``at`` (its currency sign aside), lower case."""
    words = re.findall(r"[^\W\d_]+", sentence[:at])
    return words[-1].lower() if words else ""
