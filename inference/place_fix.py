"""A place of birth or death the evidence gives otherwise, fixed from it: "born in *Amsterdam*
in 1948" against an article's lead "(born 12 June 1948 in Groningen, Netherlands; died ...)"
-> "Groningen".

The name rule (:mod:`~favakit.inference.name_check`) reads a place one has once where the two
sentences line up word by word ("born in Vienna" against "born in Salzburg"); a biography's
lead gives the place after a date, in a parenthesis the text's sentence does not line up with.
Here the role is read as the year rule reads a year of birth or death
(:func:`~favakit.inference.date_fix.role_year_fix`): "born", "died" or "buried", then at most a
date, then "in", "at" or "near" and a capitalised name (:data:`ROLE_PLACE`). Where a sentence of the text gives such a place, the
evidence sentences about the text's subject (:func:`~favakit.inference.date_fix.about_subject`)
give exactly one place for that role, and the text's place is none of the evidence's words
there (a spelling of it, or the region after it: "died in Nova Scotia" against "Halifax,
Nova Scotia"), an edit or flag holding the place becomes its fix: the place replaced
by the evidence's, typed ``entity``. A broad region ("born in Europe") is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from favakit.contracts import EditSpan
from favakit.inference.date_fix import about_subject, replaced
from favakit.inference.evidence_reading import shared_words
from favakit.inference.name_check import BROAD_REGIONS, names_alike
from favakit.text import MONTHS, sentence_spans

__all__ = ["ROLE_PLACE", "role_place_fix", "role_places"]

_MONTH = "|".join(MONTHS)
_NAME_WORD = r"[A-Z][\w'\u2019-]*"
#: "born", "died" or "buried", at most a date ("12 June 1948", "on March 3, 1901"), a
#: preposition and a capitalised name, with the name after a comma that says where it is
#: ("Groningen, Netherlands")
ROLE_PLACE = re.compile(
    rf"\b(?P<role>(?i:born|died|buried))(?:,?\s+(?:on|the|c\.|circa|in\s+\d{{4}},?|\d{{1,4}}(?:st|nd|rd|th)?,?|"
    rf"(?i:{_MONTH}),?))*\s+(?:in|at|near)\s+"
    rf"(?P<place>{_NAME_WORD}(?:\s+{_NAME_WORD})*)(?P<around>(?:,\s+{_NAME_WORD}(?:\s+{_NAME_WORD})*)?)"
)


def role_places(text: str) -> list[tuple[int, int, str, str, str]]:
    """The places of birth, death or burial ``text`` gives: ``(start, end, role, place, where
    it is)`` ("born", "Groningen", ", Netherlands"), the role lower-cased."""
    return [(m.start("place"), m.end("place"), m.group("role").lower(), m.group("place"),
             m.group("around")) for m in ROLE_PLACE.finditer(text)]  # fmt: skip


def _subject_places(
    passages: Sequence[Mapping[str, Any]], named: set[str]
) -> dict[str, list[tuple[str, str]]]:
    """The places the evidence gives the subject, by role, each with where it is."""
    found: dict[str, list[tuple[str, str]]] = {}
    for passage in passages:
        body = str(passage.get("text", ""))
        for a, b in sentence_spans(body):
            if not about_subject(named, body[a:b], passage):
                continue
            for _, _, role, place, around in role_places(body[a:b]):
                found.setdefault(role, []).append((place, around))
    return found


def role_place_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str = "",
) -> EditSpan | None:  # fmt: skip
    """``edit`` (a fix, deletion or flag, offsets in ``text``) as the fix of a place of birth,
    death or burial of its sentence to the one place the evidence gives the subject for that
    role (module doc); None where ``edit`` holds no such place, no subject is given, the
    evidence gives none or several, or the text's place is one of the evidence's words there
    or a broad region."""
    a, b = sentence
    named = shared_words(subject)
    held = [p for p in role_places(text[a:b])
            if edit["start"] <= a + p[0] and a + p[1] <= edit["end"]]  # fmt: skip
    if not named or not held:
        return None
    start, end, role, place, _ = held[0]
    given = set(_subject_places(passages, named).get(role, []))
    if len({p for p, _ in given}) != 1:
        return None
    theirs, around = next(iter(given))
    words = place.split()
    if any(w.lower() in BROAD_REGIONS for w in words):
        return None
    if any(names_alike(w, v) for w in words for v in (theirs + around).replace(",", " ").split()):
        return None
    return replaced(edit, a + start, a + end, place, theirs)
