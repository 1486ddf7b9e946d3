"""The gate's second look (:class:`~favakit.inference.gate.GatedEditor` with ``check_fixes``):
after :func:`~favakit.inference.gate_edits.gate_result`, every sentence holding a fix is scored
again as the fix leaves it (:func:`verify_fixes`; a fix the checker still finds unsupported
becomes a flag, unless the clause up to it is supported), and every sentence the editor deleted
is split into the facts it states, each scored (:func:`verify_deletions`; a deletion that also
says something supported becomes a flag). Where the gate's scorer has a second judge (the
cascade), a sentence still holding a fix is asked of it as written before the fix changes it
(:func:`fixes_the_judge_doubts`; the fix becomes a flag where the judge calls it supported)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from favakit.contracts import EditResult, EditSpan
from favakit.decompose import RuleFactSplitter
from favakit.inference.gate_cite import cited
from favakit.inference.gate_edits import Questions, SentenceScorer
from favakit.inference.gate_rule_fixes import rule_fixes
from favakit.inference.gate_subject import decontextualized, person_turned_to, subject_of
from favakit.inference.gate_words import (
    WORD,
    as_flag,
    is_fix,
    narrowed_flag,
    sentence_of,
    unsupported_flag,
)
from favakit.inference.negation_fix import negation_fixes
from favakit.inference.opinion_check import opinion_deletions
from favakit.tags import apply_edits
from favakit.text import sentence_spans

__all__ = [
    "check_edits", "drop_fixes_clauses_need_not", "drop_unneeded_fixes", "fixes_the_judge_doubts",
    "verify_deletions", "verify_fixes",
]  # fmt: skip


_CLAUSE_END = re.compile(r"[,;:](?!\s*\d)")  # not the comma of "December 18, 1949"


def _fixed_clause(
    original: str, sentence: tuple[int, int], edits: Sequence[EditSpan]
) -> tuple[str, int] | None:
    """The part of a sentence of ``original`` up to the end of the clause of its last fix (the
    next ``,``, ``;`` or ``:`` not followed by a number), as its edits leave it, with where
    that clause ends; None when that clause ends the sentence (the sentence itself was checked)
    or holds fewer than four words."""
    a, b = sentence
    last = max(e["end"] for e in edits if is_fix(e))
    cut = _CLAUSE_END.search(original, last, b)
    if cut is None or not original[cut.end() : b].strip(" .!?\n"):
        return None
    inside = [{**e, "start": e["start"] - a, "end": e["end"] - a}
              for e in edits if e["end"] <= cut.start()]  # fmt: skip
    clause = apply_edits(original[a : cut.start()], inside)
    return (clause, cut.start()) if len(WORD.findall(clause)) >= 4 else None


def _rest_flags(
    result: EditResult, sentence: tuple[int, int], clause_end: int, score: float, flags: str
) -> list[EditSpan]:
    """Flags (no fix) on what follows a checked clause in its sentence, which the checker does
    not find supported (at its words the evidence never uses with ``flags="words"``,
    :func:`~favakit.inference.gate_words.narrowed_flag`); none when nothing is left there or an
    edit already covers some of it."""
    original = result["original"]
    rest = original[clause_end : sentence[1]]
    start = clause_end + len(rest) - len(rest.lstrip(" ,;:"))
    end = clause_end + len(rest.rstrip(" .!?\n"))
    if end <= start or any(e["start"] < end and start < e["end"] for e in result["edits"]):
        return []
    passages = result.get("evidence", [])
    flag = cited(unsupported_flag(original, start, end, score), original[slice(*sentence)],
                 passages, original)  # fmt: skip
    return narrowed_flag(flag, original, passages, flags=flags)


def verify_fixes(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    threshold: float, flags: str = "words", fix_threshold: float | None = None,
) -> list[EditResult]:  # fmt: skip
    """Each gated result with its fixes checked: every sentence whose edits replace words (not
    flags, not deletions) is scored again as those edits leave it, decontextualized as the gate
    scores sentences. Where the checker still finds it unsupported (score at or below
    ``fix_threshold``, the bar a fixed sentence must pass; default ``threshold``;
    :attr:`~favakit.inference.gate.GatedEditor.fix_threshold`), the sentence's part up to the
    end of the last fix's clause (the next comma, semicolon or colon; :func:`_fixed_clause`) is
    scored as well: when that part is supported,
    the fixes stay, flags inside that part are dropped, and the rest of the sentence is flagged
    (the error is there, after the fixed clause: "born on July 27, 1942, | in Pensacola"; at
    its words the evidence never uses with ``flags="words"``);
    otherwise the replacements become flags (no fix offered, the text unchanged there, the flag
    citing the closest evidence sentence), but for the fix a rule beneath the checker makes
    there (:func:`_rules_own`), which stays, the sentence's other words the evidence never uses
    flagged beside it (:func:`_flags_beside_a_rules_fix`). Where the fixed sentence is supported, flags left in
    it are dropped (the checker finds nothing wrong there once fixed). A fixed sentence (or
    clause) is read against the articles it names
    (:func:`~favakit.inference.gate_cite.named_articles`): a fix taken from another person's
    article ("British" -> "Polish" for Rosalind Franklin, from Marie Curie's "Polish-born ...
    chemist") does not hold. Warnings count each."""
    sentences = Questions()  # key: (result, sentence)
    for i, result in enumerate(results):
        passages = result.get("evidence", [])
        original = result["original"]
        spans = sentence_spans(original)
        where = [sentence_of(spans, e["start"], e["end"]) for e in result.get("edits", [])]
        fixed_in = sorted({n for e, n in zip(result.get("edits", []), where, strict=True)
                           if n is not None and is_fix(e)})  # fmt: skip
        for n in fixed_in if passages else []:
            a, b = spans[n]
            inside = [{**e, "start": e["start"] - a, "end": e["end"] - a}
                      for e, m in zip(result["edits"], where, strict=True) if m == n]  # fmt: skip
            fixed = apply_edits(original[a:b], inside)
            sentences.ask((i, n), decontextualized(fixed, topics[i], original, a), passages,
                          named=True)  # fmt: skip
    if not sentences.keys:
        return list(results)
    answers = sentences.answers(checker)
    bar = threshold if fix_threshold is None else fix_threshold
    failed = [(ask, p) for ask, p in answers if p <= bar]
    # a flag in a sentence the checker finds supported once fixed goes, as in a supported clause
    supported_clauses: dict[int, list[tuple[int, int]]] = {}
    for (i, n), p in answers:
        if p > bar:
            supported_clauses.setdefault(i, []).append(sentence_spans(results[i]["original"])[n])
    clauses = Questions()  # key: (result, sentence, the sentence's score, clause end)
    for (i, n), p in failed:
        result = results[i]
        span = sentence_spans(result["original"])[n]
        mine = [e for e in result["edits"] if sentence_of([span], e["start"], e["end"]) == 0]
        found = _fixed_clause(result["original"], span, mine)
        if found is not None:
            clauses.ask((i, n, p, found[1]),
                        decontextualized(found[0], topics[i], result["original"], span[0]),
                        result["evidence"], named=True)  # fmt: skip
    rest_flags: dict[int, list[EditSpan]] = {}
    rest_ends: dict[int, int] = {}  # sentence ends flagged, per result
    held: set[tuple[int, int]] = set()
    for (i, n, p, end), q in clauses.answers(checker):
        if q > bar:
            held.add((i, n))
            span = sentence_spans(results[i]["original"])[n]
            supported_clauses.setdefault(i, []).append((span[0], end))
            rest = _rest_flags(results[i], span, end, p, flags)
            if rest:
                rest_flags.setdefault(i, []).extend(rest)
                rest_ends[i] = rest_ends.get(i, 0) + 1
    unfixed: dict[int, set[int]] = {}
    for (i, n), _ in failed:
        if (i, n) not in held:
            unfixed.setdefault(i, set()).add(n)
    failed_scores = dict(failed)
    out = list(results)
    for i in set(unfixed) | set(supported_clauses):
        result = results[i]
        spans = sentence_spans(result["original"])
        edits: list[EditSpan] = []
        ruled: set[int] = set()  # sentences still unsupported where a rule's fix stays
        cleared = 0
        for e in result["edits"]:
            m = sentence_of(spans, e["start"], e["end"])
            if e.get("flagged") and any(a <= e["start"] and e["end"] <= b
                                        for a, b in supported_clauses.get(i, [])):  # fmt: skip
                cleared += 1
                continue  # a flag in a clause the checker found supported once fixed
            if m is not None and m in unfixed.get(i, set()) and is_fix(e):
                if _rules_own(e, result, spans[m], topics[i]):
                    ruled.add(m)
                    edits.append(e)
                    continue
                e = cited(
                    as_flag(e),
                    result["original"][slice(*spans[m])],
                    result["evidence"],
                    result["original"],
                    subject_of(topics[i], result["original"], spans[m][0]),
                )
            edits.append(e)
        for m in sorted(ruled):
            edits += _flags_beside_a_rules_fix(result, spans[m], edits, failed_scores[(i, m)],
                                               flags)  # fmt: skip
        edits = sorted([*edits, *rest_flags.get(i, [])], key=lambda e: (e["start"], e["end"]))
        if edits == result["edits"]:
            continue  # every fix held, nothing to drop
        notes = []
        if cleared:
            notes.append(f"{cleared} flag(s) dropped: the checker finds their sentence or clause "
                         f"supported once fixed")  # fmt: skip
        taken = sum(is_fix(e) for e in result["edits"]) - sum(is_fix(e) for e in edits)
        if taken:
            notes.append(f"{taken} fix(es) taken back: the checker finds the sentence "
                         f"unsupported with the fix as well; flagged with no fix")  # fmt: skip
        if rest_ends.get(i):
            notes.append(f"{rest_ends[i]} sentence end(s) after a checked fix flagged: "
                         f"the fixed clause is supported, the rest is not")  # fmt: skip
        out[i] = {**result, "edits": edits, "corrected": apply_edits(result["original"], edits),
                  "warnings": [*result.get("warnings", []), *notes]}  # fmt: skip
    return out


_MIN_CHECKED_DELETION = 8  # words: a shorter deletion (", and a medal") is not checked
_MAX_FACTS = 8  # facts scored per deleted sentence


def _facts_of(sentence: str, topic: str) -> list[str]:
    """The facts a deleted sentence states, by favakit's rules
    (:class:`~favakit.decompose.RuleFactSplitter`: lists and relative clauses split, pronouns
    resolved to ``topic``), at most :data:`_MAX_FACTS`; none when it states one (the sentence
    itself was scored)."""
    facts = RuleFactSplitter().sentence_facts(sentence, topic)
    return facts[:_MAX_FACTS] if len(facts) > 1 else []


def verify_deletions(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    threshold: float, flags: str = "words",
) -> list[EditResult]:  # fmt: skip
    """Each gated result with its sentence deletions checked: a deletion of at least
    :data:`_MIN_CHECKED_DELETION` words that starts its sentence is kept only when none of the
    facts it states (:func:`_facts_of`: "Some of his film credits include A, B and C" states
    three) is supported. Otherwise the deletion becomes a flag (no fix, the text kept): a
    sentence that also says something the evidence supports is reported, not deleted (at its
    words the evidence never uses with ``flags="words"``,
    :func:`~favakit.inference.gate_words.narrowed_flag`). A warning counts them."""
    facts = Questions()  # key: (result, edit)
    for i, result in enumerate(results):
        passages = result.get("evidence", [])
        original = result["original"]
        starts = {a for a, _ in sentence_spans(original)}
        for k, e in enumerate(result.get("edits", []) if passages else []):
            if e.get("flagged") or e["right"].strip() or e["start"] not in starts:
                continue
            if len(WORD.findall(e["wrong"])) < _MIN_CHECKED_DELETION:
                continue
            subject = subject_of(topics[i], original)
            if person_turned_to(subject, original, e["start"]):
                subject = ""  # whom its pronouns mean is not known
            for fact in _facts_of(e["wrong"], subject):
                facts.ask((i, k), fact, passages)
    kept_back: dict[int, set[int]] = {}
    for (i, k), p in facts.answers(checker):
        if p > threshold:
            kept_back.setdefault(i, set()).add(k)
    out = list(results)
    for i, ks in kept_back.items():
        result = results[i]
        edits: list[EditSpan] = []
        for k, e in enumerate(result["edits"]):
            if k not in ks:
                edits.append(e)
                continue
            flag = cited(as_flag(e), e["wrong"], result["evidence"], result["original"])
            edits += narrowed_flag(flag, result["original"], result["evidence"], flags=flags)
        note = (f"{len(ks)} deletion(s) taken back: the checker finds a fact of the sentence "
                f"supported; flagged with no fix")  # fmt: skip
        out[i] = {**result, "edits": edits, "corrected": apply_edits(result["original"], edits),
                  "warnings": [*result.get("warnings", []), note]}  # fmt: skip
    return out


def _sentence_fixes(result: EditResult) -> dict[int, list[int]]:
    """Per sentence of the result's text, the indexes of its edits that are fixes."""
    spans = sentence_spans(result["original"])
    out: dict[int, list[int]] = {}
    for k, e in enumerate(result.get("edits", [])):
        n = sentence_of(spans, e["start"], e["end"])
        if n is not None and is_fix(e):
            out.setdefault(n, []).append(k)
    return out


def _as_left(result: EditResult, n: int, keep: Sequence[int], topic: str | None) -> str:
    """Sentence ``n`` of the result's text with only those of its edits that ``keep`` names
    (indexes) applied, decontextualized as the gate scores sentences."""
    original = result["original"]
    a, b = sentence_spans(original)[n]
    mine = [result["edits"][k] for k in keep if a <= result["edits"][k]["start"] < b]
    inside = [{**e, "start": e["start"] - a, "end": e["end"] - a} for e in mine]
    return decontextualized(apply_edits(original[a:b], inside), topic, original, a)


def drop_unneeded_fixes(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    threshold: float,
) -> list[EditResult]:  # fmt: skip
    """Each result without the fixes its sentences do not need: in a sentence with two fixes or
    more, a fix is unneeded when the sentence with every other fix is supported ("India
    *gained* -> became independence in 1947, and Gandhi was assassinated in *Mumbai* -> New
    Delhi": the checker supports the sentence with "gained" as written). The unneeded ones are
    dropped when the sentence with all of them taken back is still supported (checked once
    more); a warning counts them. A sentence with one fix needs it: the gate found it
    unsupported as written."""
    leave_one_out = Questions()  # key: (result, sentence, fix)
    for i, result in enumerate(results):
        passages = result.get("evidence", [])
        for n, fixes in _sentence_fixes(result).items() if passages else []:
            if len(fixes) < 2:
                continue
            for k in fixes:
                others = [j for j in range(len(result["edits"])) if j != k]
                leave_one_out.ask((i, n, k), _as_left(result, n, others, topics[i]), passages)
    unneeded: dict[tuple[int, int], list[int]] = {}
    for (i, n, k), p in leave_one_out.answers(checker):
        if p > threshold:
            unneeded.setdefault((i, n), []).append(k)
    confirm = Questions()  # key: (result, sentence)
    for (i, n), ks in unneeded.items():
        keep = [j for j in range(len(results[i]["edits"])) if j not in ks]
        confirm.ask((i, n), _as_left(results[i], n, keep, topics[i]), results[i]["evidence"])
    dropped: dict[int, set[int]] = {}
    for (i, n), p in confirm.answers(checker):
        if p > threshold:
            dropped.setdefault(i, set()).update(unneeded[(i, n)])
    out = list(results)
    for i, gone in dropped.items():
        result = results[i]
        edits = [e for k, e in enumerate(result["edits"]) if k not in gone]
        note = (f"{len(gone)} fix(es) dropped: the checker finds the sentence supported without "
                f"them")  # fmt: skip
        out[i] = {**result, "edits": edits, "corrected": apply_edits(result["original"], edits),
                  "warnings": [*result.get("warnings", []), note]}  # fmt: skip
    return out


def fixes_the_judge_doubts(
    scorer: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None]
) -> list[EditResult]:  # fmt: skip
    """Each result with the fixes a second judge doubts taken back: where the gate's scorer
    has one (:meth:`~favakit.inference.cascade_gate.CascadeScorer.doubts`; any other scorer
    leaves every result as it is), each sentence holding a fix other than a rule's own
    (:func:`_rules_own`) is asked of it as written, decontextualized as the gate scores
    sentences. Where it finds the sentence supported and no
    rule beneath the checker found the evidence contradicting it, the sentence's fixes become
    flags (the text unchanged there, each flag citing the closest evidence sentence), but for
    a rule's own fix (:func:`_rules_own`), which stays: the checker and the judge disagree, so
    the sentence is reported, not rewritten ("the first person to *walk* on the Moon" against
    "the first person to step onto the lunar surface": the mpnet checker scores it 0.008, the
    tuned Qwen judge 0.99). A warning counts them."""
    doubts = getattr(scorer, "doubts", None)
    if doubts is None:
        return list(results)
    asked: list[tuple[int, int]] = []  # (result, sentence)
    texts: list[str] = []
    evidence: list[list[str]] = []
    for i, result in enumerate(results):
        passages, original = result.get("evidence", []), result["original"]
        spans = sentence_spans(original)
        for n, fixes in sorted(_sentence_fixes(result).items()) if passages else []:
            a, b = spans[n]
            if all(_rules_own(result["edits"][k], result, (a, b), topics[i]) for k in fixes):
                continue  # nothing there for the judge to take back
            asked.append((i, n))
            texts.append(decontextualized(original[a:b], topics[i], original, a))
            evidence.append([str(p.get("text", "")) for p in passages])
    if not asked:
        return list(results)
    doubted: dict[int, set[int]] = {}
    for (i, n), doubt in zip(asked, doubts(texts, evidence), strict=True):
        if doubt:
            doubted.setdefault(i, set()).add(n)
    out = list(results)
    for i, sentences in doubted.items():
        result = results[i]
        original, spans = result["original"], sentence_spans(result["original"])
        edits: list[EditSpan] = []
        for e in result["edits"]:
            m = sentence_of(spans, e["start"], e["end"])
            if (
                m is not None
                and m in sentences
                and is_fix(e)
                and not _rules_own(e, result, spans[m], topics[i])
            ):
                e = cited(as_flag(e), original[slice(*spans[m])], result["evidence"], original,
                          subject_of(topics[i], original, spans[m][0]))  # fmt: skip
            edits.append(e)
        taken = sum(is_fix(e) for e in result["edits"]) - sum(is_fix(e) for e in edits)
        if not taken:
            continue
        note = (f"{taken} fix(es) taken back: the second judge finds the sentence supported as "
                f"written; flagged with no fix")  # fmt: skip
        out[i] = {**result, "edits": edits, "corrected": apply_edits(original, edits),
                  "warnings": [*result.get("warnings", []), note]}  # fmt: skip
    return out


def _rules_own(
    edit: EditSpan, result: EditResult, sentence: tuple[int, int], topic: str | None
) -> bool:
    """Whether ``edit`` is the fix a rule beneath the checker makes in ``sentence``
    (:func:`~favakit.inference.gate_rule_fixes.rule_fix`): the evidence's own number, year, name or
    word where it says otherwise in the same words. It stays when the checker finds the sentence
    still unsupported once fixed: the error the rule read is fixed, and the sentence's other
    words keep their flags ("A reservation holds a bike for *30* -> 10 minutes and costs
    *50p*."), and so does a further fix the rules make once the first is made
    (:func:`~favakit.inference.gate_rule_fixes.rule_fixes`)."""
    fixes = rule_fixes(result["original"], sentence, result.get("evidence", []), topic)
    return any(all(fix[k] == edit[k] for k in ("start", "end", "right")) for fix in fixes)


def _flags_beside_a_rules_fix(
    result: EditResult, sentence: tuple[int, int], edits: Sequence[EditSpan], score: float,
    flags: str,
) -> list[EditSpan]:  # fmt: skip
    """Flags (no fix) at the words of ``sentence`` the evidence never uses, where no edit of
    ``edits`` is: the sentence keeps a rule's fix, and the checker finds it unsupported with
    that fix too ("Alan Turing was born in *London* in 1922 -> 1912."). None with
    ``flags="sentences"``: the fix already marks the sentence."""
    if flags == "sentences":
        return []
    original, passages = result["original"], result.get("evidence", [])
    whole = unsupported_flag(original, *sentence, score)
    found = narrowed_flag(cited(whole, original[slice(*sentence)], passages, original),
                          original, passages, flags=flags)  # fmt: skip
    return [f for f in found
            if not any(e["start"] < f["end"] and f["start"] < e["end"] for e in edits)]  # fmt: skip


def drop_fixes_clauses_need_not(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    threshold: float,
) -> list[EditResult]:  # fmt: skip
    """Each result without the fixes of a clause that the checker supports as written: in a
    sentence holding fixes and, after the last fix's clause (:func:`_fixed_clause`), a flag,
    that clause is scored as written and as fixed; when as written it is supported (above
    ``threshold``) and scores no less than fixed, its fixes are dropped, for the error is in
    the flagged rest ("Millbrook is open from 1pm to 6pm on weekdays, | and it is also open on
    Sundays": the editor's "open" -> "closed" goes, the flag on the second "open" stays). Read
    against the articles the clause names; a warning counts them. A step after the flags at
    words, so the clause is not flagged again when its sentence is left holding only flags."""
    clauses = Questions()  # key: (result, clause start, clause end, as written?)
    for i, result in enumerate(results):
        passages, original = result.get("evidence", []), result["original"]
        for a, b in sentence_spans(original) if passages else []:
            mine = [e for e in result["edits"] if a <= e["start"] and e["end"] <= b]
            if not any(is_fix(e) for e in mine):
                continue
            found = _fixed_clause(original, (a, b), mine)
            if found is None or not any(e.get("flagged") and e["start"] >= found[1]
                                        for e in mine):  # fmt: skip
                continue
            fixed, end = found
            for as_written, text in ((False, fixed), (True, original[a:end])):
                clauses.ask((i, a, end, as_written), decontextualized(text, topics[i], original, a),
                            passages, named=True)  # fmt: skip
    scores = dict(clauses.answers(checker))
    unneeded: dict[int, list[tuple[int, int]]] = {}
    for (i, a, end, as_written), p in scores.items():
        if as_written and p > threshold and p >= scores[(i, a, end, False)]:
            unneeded.setdefault(i, []).append((a, end))
    out = list(results)
    for i, clauses_held in unneeded.items():
        result = results[i]
        edits = [e for e in result["edits"]
                 if not (is_fix(e) and any(a <= e["start"] and e["end"] <= end
                                           for a, end in clauses_held))]  # fmt: skip
        note = (f"{len(result['edits']) - len(edits)} fix(es) dropped: the checker finds their "
                f"clause supported as written; the rest of the sentence is flagged")  # fmt: skip
        out[i] = {**result, "edits": edits, "corrected": apply_edits(result["original"], edits),
                  "warnings": [*result.get("warnings", []), note]}  # fmt: skip
    return out


def _opinion_deletions_checked(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    threshold: float, flags: str,
) -> list[EditResult]:  # fmt: skip
    """:func:`~favakit.inference.opinion_check.opinion_deletions`, with each result it changes
    checked again by :func:`verify_deletions`: a whole sentence it deletes that also states a
    supported fact is flagged instead (the editor's deletions there were checked already and
    come back as they were)."""
    made = opinion_deletions(checker, results, topics, threshold)
    changed = [i for i, (before, after) in enumerate(zip(results, made, strict=True))
               if after is not before]  # fmt: skip
    rechecked = verify_deletions(checker, [made[i] for i in changed],
                                 [topics[i] for i in changed], threshold, flags)  # fmt: skip
    for i, result in zip(changed, rechecked, strict=True):
        made[i] = result
    return made


def check_edits(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    threshold: float, flags: str = "words", fix_threshold: float | None = None,
) -> list[EditResult]:  # fmt: skip
    """The second look at gated results, in the order the default pipeline takes it: deletions
    checked (:func:`verify_deletions`), then fixes (:func:`verify_fixes`), then a flagged
    sentence's judgement that the evidence never makes deleted as subjective
    (:func:`_opinion_deletions_checked`), then the fixes a
    sentence does not need dropped (:func:`drop_unneeded_fixes`), then a sentence flagged for a
    negation the evidence contradicts fixed
    (:func:`~favakit.inference.negation_fix.negation_fixes`); a fix, the editor's or a negation
    dropped, holds above ``fix_threshold`` (default ``threshold``); ``flags`` as the gate flags
    (:data:`~favakit.inference.gate_words.FLAG_SPANS`). The flags at words come after
    (:func:`~favakit.inference.gate_words.flags_at_words`)."""
    checked = verify_deletions(checker, results, topics, threshold, flags)
    fixed = verify_fixes(checker, checked, topics, threshold, flags, fix_threshold)
    opinions = _opinion_deletions_checked(checker, fixed, topics, threshold, flags)
    needed = drop_unneeded_fixes(checker, opinions, topics, threshold)
    bar = threshold if fix_threshold is None else fix_threshold
    return negation_fixes(checker, needed, topics, bar)
