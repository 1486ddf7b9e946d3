"""A name the evidence contradicts, fixed from the evidence: "the Pacific Ocean" -> "the Atlantic
Ocean".

Where the name rule beneath the checker (:func:`~favakit.inference.name_check.name_conflict`)
finds a sentence's name contradicted, the text writes that name once in the sentence, and the
evidence sentence (or its passage's title) names the text's subject, an edit or flag holding the
name becomes its fix: the name replaced by the evidence's words in its place, typed ``entity``.
As with years and counts (:func:`~favakit.inference.count_fix.count_fix`), another person's
article lends no names, and the subject's own name is never replaced: evidence that names
another subject in its place ("The Nile River flows ..." against "The Amazon River flows ...")
is about something else. But for a person the text gives another's words or deeds
(``NameConflict.speaker``: "Councillor *Dev Mahajan*, who voted against, warned ..." against
"Councillor Ruth Ellingham, who voted against, said ..."): the sentence is about the wrong
person by its words, and the evidence's person is the fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from favakit.contracts import EditSpan
from favakit.inference.date_fix import lends_to, replaced
from favakit.inference.evidence_reading import shared_words
from favakit.inference.name_check import name_conflict

__all__ = ["name_fix"]


def name_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> EditSpan | None:  # fmt: skip
    """``edit`` (a fix, deletion or flag, offsets in ``text``) as the fix of its sentence's name
    that the evidence contradicts (module doc); None where there is none, the name is written
    more than once in the sentence, ``edit`` does not hold it, it is a word of ``subject``, or
    ``subject`` is given and the evidence sentence is not about it."""
    a, b = sentence
    found = name_conflict(text[a:b], [str(p.get("text", "")) for p in passages])
    if found is None:
        return None
    # a sentence that gives one person another's words is about the wrong person by its words
    if not found.speaker and not lends_to(found.sentence, passages, subject):
        return None
    if not found.speaker and shared_words(found.written) & shared_words(subject):
        return None
    where = [m.span() for m in re.finditer(rf"(?<!\w){re.escape(found.written)}(?!\w)", text[a:b])]
    if len(where) != 1:
        return None
    start, end = a + where[0][0], a + where[0][1]
    if not (edit["start"] <= start and end <= edit["end"]):
        return None
    return replaced(edit, start, end, text[start:end], found.evidence_words)
