"""The rules beneath the checker as the gate's fixes: a year, day, count or name the evidence gives
otherwise, words it gives only under a condition, a word it says as its opposite
(:func:`contradiction_fix`), read for the statement of a sentence about another article's
person too (:func:`statement_fix`); one fix of a sentence (:func:`rule_fix`) and those it
leaves to make (:func:`rule_fixes`), and the gate's use of them beside the editor's edits
(:func:`fixed_by_the_rules`, :func:`further_rule_fixes`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from favakit.contracts import EditSpan
from favakit.decompose import leading_name
from favakit.inference.count_fix import count_fix
from favakit.inference.date_fix import day_fix, role_year_fix, year_fix
from favakit.inference.evidence_reading import shared_words
from favakit.inference.gate_cite import cited, named_passages
from favakit.inference.gate_subject import subject_of
from favakit.inference.gate_words import edits_by_sentence, is_fix, only_flagged, unsupported_flag
from favakit.inference.name_fix import name_fix
from favakit.inference.place_fix import role_place_fix
from favakit.inference.scope_check import scope_fix
from favakit.inference.swap_check import swap_fix
from favakit.inference.year_check import clause_spans

__all__ = [
    "MAX_RULE_FIXES", "contradiction_fix", "fixed_by_the_rules", "further_rule_fixes", "rule_fix",
    "rule_fixes", "statement_fix", "statement_subject",
]  # fmt: skip


def contradiction_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str,
) -> EditSpan | None:  # fmt: skip
    """``edit`` as the fix of a year, count or name of its sentence that the evidence gives
    otherwise, of words it gives only under a condition, or of a word it gives as its opposite
    (:func:`~favakit.inference.date_fix.year_fix`, then
    :func:`~favakit.inference.date_fix.day_fix`, then
    :func:`~favakit.inference.date_fix.role_year_fix`, then
    :func:`~favakit.inference.count_fix.count_fix`, then
    :func:`~favakit.inference.name_fix.name_fix`, then
    :func:`~favakit.inference.place_fix.role_place_fix`, then
    :func:`~favakit.inference.scope_check.scope_fix`, then
    :func:`~favakit.inference.swap_check.swap_fix`), or None."""
    return (
        year_fix(edit, text, sentence, passages, subject)
        or day_fix(edit, text, sentence, passages, subject)
        or role_year_fix(edit, text, sentence, passages, subject)
        or count_fix(edit, text, sentence, passages, subject)
        or name_fix(edit, text, sentence, passages, subject)
        or role_place_fix(edit, text, sentence, passages, subject)
        or scope_fix(edit, text, sentence, passages, subject)
        or swap_fix(edit, text, sentence, passages, subject)
    )


def statement_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str,
) -> tuple[EditSpan, str] | None:  # fmt: skip
    """:func:`contradiction_fix` of ``sentence`` about ``subject``, else of a later statement of
    it (:func:`~favakit.inference.year_check.clause_spans`) that opens with the name of another
    article of the evidence, about that name: in "Marie Curie was born in Warsaw in 1867; Albert
    Einstein was born in Ulm in 1889." the year is Einstein's, and only his article may fix it.
    The fix with the subject it was made about (for its citation), or None."""
    fixed = contradiction_fix(edit, text, sentence, passages, subject)
    if fixed is not None:
        return fixed, subject
    a = sentence[0]
    for s, t, name in _statements_about_others(text, sentence, passages, subject):
        part: EditSpan = {
            **edit,
            "start": max(edit["start"], a + s),
            "end": min(edit["end"], a + t),
        }
        if part["start"] >= part["end"]:
            continue
        fixed = contradiction_fix(part, text, (a + s, a + t), passages, name)
        if fixed is not None:
            return fixed, name
    return None


def _statements_about_others(
    text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]], subject: str
) -> list[tuple[int, int, str]]:
    """The later statements of ``sentence`` (a span of ``text``;
    :func:`~favakit.inference.year_check.clause_spans`, offsets in the sentence) that open with
    a name of two words or more, not ``subject``'s, that an article of the evidence has
    (:func:`~favakit.inference.gate_cite.named_passages`), each with that name."""
    a, b = sentence
    mine = shared_words(subject)
    found = []
    for s, t in clause_spans(text[a:b])[1:]:
        name = leading_name(text[a + s : a + t])
        if (
            len(name.split()) >= 2
            and not shared_words(name) & mine
            and named_passages(name, passages)
        ):
            found.append((s, t, name))
    return found


def statement_subject(
    text: str, sentence: tuple[int, int], at: int, passages: Sequence[Mapping[str, Any]],
    subject: str,
) -> str:  # fmt: skip
    """Whom the statement of ``sentence`` holding character ``at`` is about: the name it opens
    with where that is another article's person (:func:`_statements_about_others`: "...; Albert
    Einstein was born in Ulm in 1889."), else ``subject``."""
    a = sentence[0]
    return next((name for s, t, name in _statements_about_others(text, sentence, passages, subject)
                 if a + s <= at < a + t), subject)  # fmt: skip


def fixed_by_the_rules(
    kept: list[EditSpan], sentences: Sequence[tuple[int, int]], text: str,
    passages: Sequence[Mapping[str, Any]], topic: str | None,
) -> tuple[list[EditSpan], int]:  # fmt: skip
    """``kept`` with the sentence's year, count or name fix (:func:`contradiction_fix` of the
    whole sentence, about its :func:`~favakit.inference.gate_subject.subject_of`) in place of the editor's edits that missed
    it: every flag of a sentence whose every edit is a flag (the editor flagged other words:
    "flows from" where "the Pacific Ocean" is wrong), and a fix that puts the rule's own words
    elsewhere in the sentence (:func:`_misplaced`: "Jupiter is the *largest* -> fifth planet
    ... and the sixth planet from the Sun", where the evidence's "fifth" replaces "sixth"), the
    sentence's other edits kept; and, where the sentence has a fix and no edit touches what the
    rule fixes, the rule's fix beside the editor's ("A reservation holds a bike for *30*
    minutes and costs *50p*." against "... for 10 minutes and is free.": the editor fixed
    "50p", the count rule fixes "30"). Also the number of sentences so fixed."""
    if not passages:
        return kept, 0
    fixes: dict[int, tuple[EditSpan, list[EditSpan]]] = {}  # the fix and what it replaces
    flagged = only_flagged(kept, sentences)
    for n, edits in edits_by_sentence(kept, sentences).items():
        if n not in flagged and not any(is_fix(e) for e in edits):
            continue
        score = min(e.get("checker_score", 0.0) for e in edits)
        fix = rule_fix(text, sentences[n], passages, topic, score)
        if fix is None:
            continue
        if n in flagged:
            fixes[n] = (fix, edits)
        elif misplaced := _misplaced(fix, edits):
            fixes[n] = (fix, misplaced)
        elif not any(e["start"] < fix["end"] and fix["start"] < e["end"] for e in edits):
            fixes[n] = (fix, [])  # beside the editor's fixes of other words
    if not fixes:
        return kept, 0
    gone = {id(e) for _, replaced in fixes.values() for e in replaced}
    out = [e for e in kept if id(e) not in gone]
    return out + [fix for fix, _ in fixes.values()], len(fixes)


#: The most fixes the rules make in one sentence, each read with the ones before applied.
MAX_RULE_FIXES = 3


def further_rule_fixes(
    kept: list[EditSpan], sentences: Sequence[tuple[int, int]], text: str,
    passages: Sequence[Mapping[str, Any]], topic: str | None,
) -> tuple[list[EditSpan], int]:  # fmt: skip
    """``kept`` with the rules' fixes that a sentence still needs once its fixes are made: the
    rules that read a contradiction (:func:`_conflict_fix`) read it with them applied, and a
    further year, count or opposite they find on words no fix touches is fixed beside them, up
    to :data:`MAX_RULE_FIXES` in a sentence. A
    summary's sentence may give two numbers wrong ("up from £*6.5* million, as sales rose *14%*
    to £96 million" against "£5.6 million" and "Sales rose 11%"), and the rules name one at a
    time. A flag of those words gives way to the fix. Also the number of fixes added."""
    if not passages:
        return kept, 0
    out, added = list(kept), 0
    for n, edits in edits_by_sentence(kept, sentences).items():
        fixes = sorted((e for e in edits if is_fix(e)), key=lambda e: e["start"])
        if not fixes:
            continue
        a, b = sentences[n]
        subject = subject_of(topic, text, a)
        score = min(e.get("checker_score", 0.0) for e in edits)
        while len(fixes) < MAX_RULE_FIXES:
            fixed, placed = _with_fixes(text, (a, b), fixes)
            found = _conflict_fix(unsupported_flag(fixed, 0, len(fixed), score), fixed,
                                  (0, len(fixed)), passages, subject)  # fmt: skip
            at = None if found is None else _in_original(found, placed, fixes, a)
            if found is None or at is None or text[at[0] : at[1]] != found["wrong"]:
                break
            touched = [e for e in edits if e["start"] < at[1] and at[0] < e["end"]]
            if any(is_fix(e) for e in touched):
                break
            found = cited(found, fixed, passages, fixed, subject)
            further: EditSpan = {**found, "start": at[0], "end": at[1]}
            fixes = sorted([*fixes, further], key=lambda e: e["start"])
            out = [e for e in out if all(e is not t for t in touched)] + [further]
            added += 1
    return out, added


def _conflict_fix(
    edit: EditSpan, text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    subject: str,
) -> EditSpan | None:  # fmt: skip
    """The fixes of :func:`contradiction_fix` that fire only where the evidence contradicts the
    sentence (a year, a count, an opposite), not those that take the sentence's being wrong as
    given and find what the evidence says instead (a name, a place), which a sentence once
    fixed need not be."""
    return (year_fix(edit, text, sentence, passages, subject)
            or count_fix(edit, text, sentence, passages, subject)
            or swap_fix(edit, text, sentence, passages, subject))  # fmt: skip


def _with_fixes(
    text: str, sentence: tuple[int, int], fixes: Sequence[EditSpan]
) -> tuple[str, list[tuple[int, int]]]:
    """``sentence`` (a span of ``text``) with ``fixes`` (in order, inside it) made, and where
    each fix's words stand in it."""
    a, b = sentence
    out, placed, at = [], [], a
    for fix in fixes:
        out.append(text[at : fix["start"]])
        start = sum(len(piece) for piece in out)
        out.append(fix["right"])
        placed.append((start, start + len(fix["right"])))
        at = fix["end"]
    out.append(text[at:b])
    return "".join(out), placed


def _in_original(
    found: EditSpan, placed: Sequence[tuple[int, int]], fixes: Sequence[EditSpan], offset: int
) -> tuple[int, int] | None:
    """Where ``found`` (offsets in the sentence with ``fixes`` made, which stand at ``placed``)
    lies in the text, its sentence starting at ``offset``; None where it touches a fix's words."""
    shift = 0
    for (start, end), fix in zip(placed, fixes, strict=True):
        if start < found["end"] and found["start"] < end:
            return None
        if end <= found["start"]:
            shift += len(fix["right"]) - (fix["end"] - fix["start"])
    return offset + found["start"] - shift, offset + found["end"] - shift


def rule_fix(
    text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    topic: str | None, score: float = 0.0,
) -> EditSpan | None:  # fmt: skip
    """The fix a rule beneath the checker makes in ``sentence`` (a span of ``text``): a year,
    count or name the evidence gives otherwise, words it gives only under a condition, a word
    it says as its opposite (:func:`statement_fix` of the whole sentence, about its
    :func:`~favakit.inference.gate_subject.subject_of`), cited and carrying ``score`` as its ``checker_score``; None where no
    rule fires or the rule offers no fix."""
    a, b = sentence
    found = statement_fix(unsupported_flag(text, a, b, score), text, sentence, passages,
                          subject_of(topic, text, a))  # fmt: skip
    return None if found is None else cited(found[0], text[a:b], passages, text, found[1])


def rule_fixes(
    text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]],
    topic: str | None,
) -> list[EditSpan]:  # fmt: skip
    """Every fix the rules beneath the checker make in ``sentence`` (a span of ``text``): the
    first (:func:`rule_fix`) and those it leaves to make (:func:`further_rule_fixes`)."""
    first = rule_fix(text, sentence, passages, topic)
    if first is None:
        return []
    return further_rule_fixes([first], [sentence], text, passages, topic)[0]


def _misplaced(fix: EditSpan, edits: Sequence[EditSpan]) -> list[EditSpan]:
    """The edits of a sentence that put ``fix``'s words in the wrong place: fixes to the same
    words over other words, where no edit touches what ``fix`` replaces; [] otherwise."""
    if any(e["start"] < fix["end"] and fix["start"] < e["end"] for e in edits):
        return []
    right = fix["right"].strip().lower()
    return [e for e in edits if is_fix(e) and e["right"].strip().lower() == right]
