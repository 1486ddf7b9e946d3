"""Flags where the evidence denies a sentence: typed ``contradictory`` and citing the denial,
put at the list members or words it denies (:func:`denials_typed`), a flag for what a bare
statement of the evidence still denies (:func:`bare_denials_flagged`), and a flag in one
statement of a sentence cited for that statement (:func:`flags_cited_at_clauses`)."""

from __future__ import annotations

from favakit.contracts import Citation, EditResult, EditSpan
from favakit.decompose import leading_name
from favakit.inference.gate_cite import cite
from favakit.inference.gate_subject import subject_of
from favakit.inference.gate_words import is_fix, sentence_of, unsupported_flag
from favakit.inference.polarity_check import (
    denied_members,
    denied_words,
    polarity_conflict,
    statement_denials,
)
from favakit.inference.year_check import clause_spans
from favakit.text import sentence_spans

__all__ = ["bare_denials_flagged", "denials_typed", "flags_cited_at_clauses"]


def bare_denials_flagged(result: EditResult) -> EditResult:
    """``result`` with a flag, typed ``contradictory`` and citing the denial, at the words of
    each sentence holding an edit that a bare statement of the evidence denies
    (:func:`~favakit.inference.polarity_check.statement_denials`), where no edit touches them:
    "The flat has *two* bathrooms and a *lift*." -> "1" against "1 bathroom. No lift.", and
    "The risotto is *vegan* and *gluten-free*." against "No vegan. Not gluten free." (a record's
    values each say one thing, so one fixed or flagged leaves the others' to say). Run after
    :func:`denials_typed`, which puts a flagged sentence's flags at its first denial's words."""
    text, edits = result["original"], result.get("edits", [])
    passages = result.get("evidence", [])
    evidence = [str(p.get("text", "")) for p in passages]
    if not evidence or not edits:
        return result
    spans = sentence_spans(text)
    held = {sentence_of(spans, e["start"], e["end"]) for e in edits}
    out = list(edits)
    for n in sorted(m for m in held if m is not None):
        a, b = spans[n]
        for clause in statement_denials(text[a:b], evidence):
            at = denied_words(text[a:b], clause)
            if at is None or any(e["start"] < a + at[1] and a + at[0] < e["end"] for e in out):
                continue  # an edit there already (a deletion may start in the space before)
            mine = [e for e in out if a <= e["start"] < b]
            score = min((float(e.get("checker_score", 0.0)) for e in mine), default=0.0)
            flag = unsupported_flag(text, a + at[0], a + at[1], score)
            flag["type"] = "contradictory"
            found = cite(clause, "", passages)
            if found:
                flag["cites"] = found
            out.append(flag)
    if len(out) == len(edits):
        return result
    return {**result, "edits": sorted(out, key=lambda e: (e["start"], e["end"]))}


def denials_typed(result: EditResult, at_members: bool = True) -> EditResult:
    """``result`` with each flag in a sentence its evidence denies in its own words
    (:func:`~favakit.inference.polarity_check.polarity_conflict`: "The warranty covers damage
    caused by normal wear and tear." against "The warranty does not cover damage caused by
    misuse, normal wear and tear, ...") typed ``contradictory`` and citing the denial: the
    evidence says otherwise, it does not merely say nothing (nor is the sentence only a
    judgement, whatever type the editor gave its flag). Where the denial names members of one
    of the sentence's lists (:func:`~favakit.inference.polarity_check.denied_members`: "Old
    Town" of "stations in the city centre, the harbour district and Old Town" against "There
    are no stations in Old Town"), the sentence's flags are put at those members instead, typed
    ``contradictory`` and citing the denial, where no fix of the sentence touches them (with
    ``at_members``; the gate turns it off where it flags whole sentences); where it names none
    and no flag touches the words the denial negates
    (:func:`~favakit.inference.polarity_check.denied_words`: "You *should take a double dose*
    if you have missed one." against "Do not take a double dose ..."), at those words. A bare
    denial ("No lift.": :func:`~favakit.inference.polarity_check.statement_denial`) replaces
    the flags of the one statement of the sentence that holds its words, and the sentence's
    other statements keep theirs ("..., and it has *two* bathrooms")."""
    text, edits = result["original"], result.get("edits", [])
    passages = result.get("evidence", [])
    evidence = [str(p.get("text", "")) for p in passages]
    if not evidence or not any(e.get("flagged") for e in edits):
        return result
    spans = sentence_spans(text)
    where = [sentence_of(spans, e["start"], e["end"]) for e in edits]
    denied: dict[int, list[EditSpan]] = {}  # a sentence's flags at its denied members
    typed: dict[int, Citation | None] = {}  # sentences whose flags cite the denial
    within: dict[int, tuple[int, int]] = {}  # the statement a bare denial replaces flags in
    for n in sorted({n for e, n in zip(edits, where, strict=True)
                     if n is not None and e.get("flagged")}):  # fmt: skip
        a, b = spans[n]
        conflict = polarity_conflict(text[a:b], evidence)
        if conflict is None:
            continue
        found = cite(conflict.clause, "", passages)
        typed[n] = found
        mine = [e for e, m in zip(edits, where, strict=True) if m == n]
        members = [(a + s, a + t) for s, t in denied_members(text[a:b], conflict.clause)]
        negated = denied_words(text[a:b], conflict.clause)
        if (
            not members
            and negated is not None
            and not any(
                e.get("flagged") and e["start"] < a + negated[1] and a + negated[0] < e["end"]
                for e in mine
            )
        ):  # no flag at what the denial negates: "You *should take a double dose* if ..."
            members = [(a + negated[0], a + negated[1])]
        if at_members and members and not any(is_fix(e) and e["start"] < t and s < e["end"]
                                              for e in mine for s, t in members):  # fmt: skip
            score = min(e.get("checker_score", 0.0) for e in mine if e.get("flagged"))
            if conflict.bare:  # "No lift.": it denies one statement
                within[n] = next(((a + s, a + t) for s, t in clause_spans(text[a:b])
                                  if a + s <= members[0][0] < a + t), (a, b))  # fmt: skip
            denied[n] = []
            for s, t in members:
                flag = unsupported_flag(text, s, t, score)
                flag["type"] = "contradictory"
                if found:
                    flag["cites"] = found
                denied[n].append(flag)
    out: list[EditSpan] = []
    for e, m in zip(edits, where, strict=True):
        if m in denied and e.get("flagged"):
            s, t = within.get(m, spans[m])
            if e["start"] < t and s < e["end"]:
                continue  # a flag beside the denial's, in another statement, stays
        if e.get("flagged") and m in typed:
            e = {**e, "type": "contradictory"}
            denial = typed[m]
            if denial is not None:
                e["cites"] = denial
        out.append(e)
    out += [f for flags in denied.values() for f in flags]
    return {**result, "edits": sorted(out, key=lambda e: (e["start"], e["end"]))}


def flags_cited_at_clauses(result: EditResult, topic: str | None = None) -> EditResult:
    """``result`` with each flag (no fix) that lies in one statement of a sentence joining
    several (:func:`~favakit.inference.year_check.clause_spans`) cited for that statement (about
    the name it opens with, else the text's subject), where the evidence has a sentence for it:
    in "Leonardo was born in 1452, while Galileo was born in 1574." a flag at "1574" cites
    Galileo's "born in Pisa in 1564", not Leonardo's birth. Fixes keep their citations (the
    evidence sentence that holds the fix)."""
    text, edits = result["original"], result.get("edits", [])
    passages = result.get("evidence", [])
    if not passages or not any(e.get("flagged") for e in edits):
        return result
    sentences = sentence_spans(text)
    out: list[EditSpan] = []
    for e in edits:
        n = sentence_of(sentences, e["start"], e["end"]) if e.get("flagged") else None
        if n is not None:
            a, b = sentences[n]
            parts = [(a + s, a + t) for s, t in clause_spans(text[a:b])]
            held = [(s, t) for s, t in parts if s <= e["start"] and e["end"] <= t]
            if len(parts) > 1 and held:
                statement = text[slice(*held[0])]  # about the name it opens with, if any
                subject = leading_name(statement) or subject_of(topic, text, a)
                found = cite(statement, "", passages, text, subject)
                e = {**e, "cites": found} if found else e
        out.append(e)
    return {**result, "edits": out}
