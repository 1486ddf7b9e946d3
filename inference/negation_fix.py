"""A negation the evidence contradicts: where the gate edited or flagged a sentence, the
sentence without its one negation (or with the one the evidence gives) is the candidate fix.

"She was not the first woman to win a Nobel Prize" against "Curie was the first woman to win a
Nobel Prize" is a contradiction whose fix the sentence itself holds: drop the "not". This module
finds that candidate by rule (:func:`denegated`); the gate's checks ask the checker whether the
sentence so changed is supported, and only then offer it as a fix
(:func:`~favakit.inference.gate_checks.negation_fixes`). Only negations whose removal leaves a
grammatical sentence are taken: "not" or "never" after a form of *be*, *have* or a modal ("was
not" -> "was", "has never been" -> "has been"), the same contracted ("wasn't" -> "was", "can't"
-> "can", "won't" -> "will"), and "never" before a past-tense verb ("never won" -> "won"). Not
"did not win" (the verb would need its past form), and not the negations that do not deny
what follows ("not only", "not until", "if not", "whether or not").

The other way round, a sentence without a negation whose auxiliary and next word the evidence
gives with "not" or "never" between them ("was fully compatible" against "was not fully
compatible") gets the fix that inserts it (:func:`negated_as_evidence`), checked the same way."""

from __future__ import annotations

import re
from collections.abc import Sequence

from favakit.contracts import EditResult, EditSpan
from favakit.inference.gate_cite import cite
from favakit.inference.gate_edits import Questions, SentenceScorer
from favakit.inference.gate_subject import decontextualized, subject_of
from favakit.inference.gate_words import edits_by_sentence, sentences_replaced
from favakit.tags import apply_edits
from favakit.text import keep_case, sentence_spans

__all__ = ["denegated", "negated_as_evidence", "negation_fixes"]

_AUX = (r"is|was|were|are|am|be|been|being|has|have|had|will|would|can|could|should|shall|may|"
        r"might|must")  # fmt: skip
#: "was not", "has never": the auxiliary kept, the negation dropped
_AUX_NEGATION = re.compile(rf"\b(?P<aux>{_AUX})\s+(?P<neg>not|never)\b(?=\s)", re.I)
#: "wasn't", "couldn't", and the irregular "won't", "can't"
_CONTRACTED = re.compile(
    r"\b(?P<aux>is|was|were|are|has|have|had|would|could|should|must)n['’]t\b"
    r"|\b(?P<irregular>won['’]t|can['’]t|cannot)\b",
    re.I,
)
_IRREGULAR = {"won't": "will", "won’t": "will", "can't": "can", "can’t": "can", "cannot": "can"}
#: "never won", "never married": a past-tense verb after "never" (no auxiliary before it)
_NEVER_PAST = re.compile(r"\bnever\s+(?P<verb>[a-z]+ed|won|wrote|became|made|saw|went|met|"
                         r"took|gave|left|came|got|had|did|found|knew|held|led|ran|sang|spoke|"
                         r"taught|told|thought|built|began|fought|flew|grew|drew|lost|"
                         r"returned|was|were)\b")  # fmt: skip
#: negations that qualify rather than deny what follows
_NOT_DENIAL = re.compile(r"^\s*(only|just|merely|simply|least|until|till|yet|always|quite|"
                         r"necessarily|all|every|to be confused|to mention)\b", re.I)  # fmt: skip
_ANY_NEGATION = re.compile(r"\b(not|never|no|nor|neither|cannot)\b|n['’]t\b", re.I)
_BEFORE_DENIAL = re.compile(r"\b(if|or|whether or|than)\s*$", re.I)


def denegated(sentence: str) -> tuple[int, int, str] | None:
    """The one negation of ``sentence`` as an edit that drops it: ``(start, end, replacement)``,
    offsets into ``sentence`` (``"was not"`` -> ``"was"``, ``"wasn't"`` -> ``"was"``, ``"never
    won"`` -> ``"won"``); None when the sentence has no negation, more than one, or one whose
    removal would not leave a grammatical sentence that states the opposite."""
    if len(_ANY_NEGATION.findall(sentence)) != 1:
        return None
    found: list[tuple[int, int, str]] = []
    for m in _AUX_NEGATION.finditer(sentence):
        found.append((m.start(), m.end(), m.group("aux")))
    for m in _CONTRACTED.finditer(sentence):
        word = m.group(0)
        aux = m.group("aux") or _IRREGULAR.get(word.lower(), "")
        found.append((m.start(), m.end(), keep_case(word, aux)))
    for m in _NEVER_PAST.finditer(sentence):
        if not _AUX_NEGATION.search(sentence[max(0, m.start() - 12) : m.end()]):
            found.append((m.start(), m.end(), m.group("verb")))
    if len(found) != 1:
        return None
    start, end, replacement = found[0]
    if _NOT_DENIAL.match(sentence[end:]) or _BEFORE_DENIAL.search(sentence[:start]):
        return None
    return start, end, replacement


#: "was fully": an auxiliary and the word after it, where the evidence may deny what follows
_AUX_WORD = re.compile(rf"\b(?P<aux>{_AUX})\s+(?P<word>\w+)\b", re.I)


def negated_as_evidence(sentence: str, evidence: Sequence[str]) -> tuple[int, int, str] | None:
    """The negation the evidence gives where ``sentence`` has none, as an edit that inserts it:
    ``(start, end, replacement)`` in ``sentence`` ("was fully" -> "was not fully", where an
    evidence sentence says "was not fully compatible"), when exactly one auxiliary and word of
    the sentence appear in the evidence with "not" or "never" between them, none without it;
    else None."""
    if _ANY_NEGATION.search(sentence):
        return None
    found: set[tuple[int, int, str]] = set()
    for m in _AUX_WORD.finditer(sentence):
        aux, word = re.escape(m.group("aux")), re.escape(m.group("word"))
        if word.lower() in {"not", "never"}:
            continue
        denied = re.compile(rf"\b{aux}\s+(not|never)\s+{word}\b", re.I)
        stated = re.compile(rf"\b{aux}\s+{word}\b", re.I)
        for passage in evidence:
            hit = denied.search(passage)
            if hit and not stated.search(passage):
                found.add((m.start(), m.end(),
                           f"{m.group('aux')} {hit.group(1).lower()} {m.group('word')}"))  # fmt: skip
    return found.pop() if len(found) == 1 else None


def _candidate(
    original: str, sentence: tuple[int, int], edits: Sequence[EditSpan],
    every_edit: Sequence[EditSpan], evidence: Sequence[str] = (),
) -> tuple[EditSpan, str] | None:  # fmt: skip
    """The fix that drops the one negation of ``sentence`` (a span of ``original`` holding
    ``edits``), or else inserts the one the ``evidence`` gives (:func:`negated_as_evidence`),
    and the sentence so fixed; None when it has no such negation, when an edit of
    ``every_edit`` reaches across its bounds (its edits are not its own), or when its edits
    already make that sentence."""
    a, b = sentence
    found = denegated(original[a:b]) or negated_as_evidence(original[a:b], evidence)
    across = any(e["start"] < b and a < e["end"] and not a <= e["start"] <= e["end"] <= b
                 for e in every_edit)  # fmt: skip
    if found is None or across:
        return None
    start, end, right = found[0] + a, found[1] + a, found[2]
    fixed = original[a:start] + right + original[end:b]
    inside = [{**e, "start": e["start"] - a, "end": e["end"] - a} for e in edits]
    if " ".join(apply_edits(original[a:b], inside).split()) == " ".join(fixed.split()):
        return None  # the editor's edits make the same sentence: its fix stands
    fix: EditSpan = {"type": "contradictory", "start": start, "end": end,
                     "wrong": original[start:end], "right": right,
                     "checker_score": min(e.get("checker_score", 0.0) for e in edits)}  # fmt: skip
    return fix, fixed


def negation_fixes(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    threshold: float,
) -> list[EditResult]:  # fmt: skip
    """Each gated result with a fix for each sentence that the gate edited or flagged and that
    holds one negation (:func:`denegated`), where the checker finds the sentence without it
    supported (its score, decontextualized as the gate scores sentences, above ``threshold``):
    the sentence's edits replaced by a ``contradictory`` edit that drops the negation, citing
    the evidence sentence closest to the sentence so fixed. The evidence supporting the
    sentence without its negation contradicts the sentence there, and everything else in it
    holds, so the smallest fix replaces the editor's (which may rewrite the sentence into
    another true one: "She was not the first woman to win a Nobel Prize" -> "She was born in
    Warsaw in 1867 ..."). Where the editor's edits of the sentence already make it the
    sentence without its negation (the whole sentence replaced, as favakit's synthetic data
    marks a negated sentence), they stand. A warning counts them."""
    questions = Questions()  # key: (result, sentence, the fix, the sentence so fixed)
    for i, result in enumerate(results):
        passages = result.get("evidence", [])
        original = result["original"]
        spans = sentence_spans(original)
        held = edits_by_sentence(result.get("edits", []), spans) if passages else {}
        texts = [str(p.get("text", "")) for p in passages]
        for n, edits in held.items():
            found = _candidate(original, spans[n], edits, result["edits"], texts)
            if found is not None:
                fix, fixed = found
                questions.ask((i, n, fix, fixed),
                              decontextualized(fixed, topics[i], original, spans[n][0]),
                              passages)  # fmt: skip
    fixes: dict[int, list[tuple[int, EditSpan, str]]] = {}
    for (i, n, fix, fixed), p in questions.answers(checker):
        if p > threshold:
            fixes.setdefault(i, []).append((n, fix, fixed))
    out = list(results)
    for i, made in fixes.items():
        result = results[i]
        original = result["original"]
        replacements: dict[int, list[EditSpan]] = {}
        for n, fix, fixed in made:
            about = subject_of(topics[i], original, sentence_spans(original)[n][0])
            where = cite(fixed, "", result["evidence"], original, about)
            replacements[n] = [{**fix, "cites": where} if where else fix]
        note = (f"{len(made)} negation(s) the evidence contradicts dropped: the checker finds "
                f"the sentence supported without it")  # fmt: skip
        out[i] = sentences_replaced(result, sentence_spans(original), replacements, note)
    return out
