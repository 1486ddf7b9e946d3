"""The gate's rule for one text (:mod:`favakit.inference.gate` describes it): each sentence's
P(supported) from the gate's judge (:func:`sentence_scores`), then the editor's edits kept,
dropped, flagged or grounded in the evidence by sentence (:func:`gate_result`), each kept one
citing the evidence it rests on (:func:`~favakit.inference.gate_cite.cite`). Beside it: whom a
sentence is about (:mod:`favakit.inference.gate_subject`), citations and grounded fixes
(:mod:`favakit.inference.gate_cite`), the rules' fixes (:mod:`favakit.inference.gate_rule_fixes`)
and flags where the evidence denies a sentence (:mod:`favakit.inference.gate_denials`). The
checks that follow (fixes and deletions scored again) are :mod:`favakit.inference.gate_checks`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from favakit.contracts import EditResult, EditSpan
from favakit.inference.date_fix import date_fix
from favakit.inference.gate_cite import cited, evidence_swap, grounded_fix, named_articles
from favakit.inference.gate_rule_fixes import (
    contradiction_fix,
    fixed_by_the_rules,
    further_rule_fixes,
    statement_fix,
    statement_subject,
)
from favakit.inference.gate_subject import decontextualized, subject_of
from favakit.inference.gate_words import (
    CLAUSE,
    WORD,
    as_flag,
    checked_flags,
    doubles_a_word,
    function_words_only,
    is_fix,
    narrowed_flag,
    repeats_a_member,
    sentence_of,
    splits_a_word,
    unsupported_flag,
    unsupported_words,
    whole_words,
)
from favakit.tags import apply_edits
from favakit.text import sentence_spans, states_nothing

__all__ = [
    "BACKED_DELETION", "Questions", "SentenceScorer", "backed_deletion", "collapsed_fix",
    "function_word_deletion", "gate_result", "opening_cut", "sentence_scores", "torn_words",
]  # fmt: skip


class SentenceScorer(Protocol):
    """What the gate asks of its judge: P(supported) per sentence (with how many evidence pieces
    it read), ``gate_threshold``: the P(supported) above which the gate leaves a sentence alone
    (chosen on a development split for issue 32's shape: supported sentences left alone first;
    it may differ from the judge's verdict threshold), ``threshold``: that verdict threshold
    (P(supported) above which the judge calls a text supported; a fix holds only where it lifts
    its sentence above both), and a name for results. The encoder
    :class:`~favakit.inference.checker.Checker` is one;
    :class:`~favakit.inference.gate.JudgeScorer` makes one of any verifier. ``enough``: where
    the caller needs only to know whether a score is above it, a judge may stop reading there
    and give any score above it (the scores at or below it stay exact); None: every score
    exact."""

    gate_threshold: float
    threshold: float
    name: str

    def score(
        self,
        texts: Sequence[str],
        evidence: Sequence[Sequence[str]],
        *,
        enough: float | None = None,
    ) -> list[tuple[float, int]]: ...


class Questions:
    """Texts to score against evidence, each with what it is about (a key), scored by the judge
    in one call: how the gate's checks batch their questions. A text is read against all the
    evidence, or with ``named`` against the articles it names (:func:`~favakit.inference.gate_cite.named_articles`)."""

    def __init__(self) -> None:
        self.keys: list[Any] = []
        self.texts: list[str] = []
        self.evidence: list[list[str]] = []

    def ask(
        self, key: Any, text: str, passages: Sequence[Mapping[str, Any]], named: bool = False
    ) -> None:
        self.keys.append(key)
        self.texts.append(text)
        every = [str(p.get("text", "")) for p in passages]
        self.evidence.append(named_articles(text, passages) if named else every)

    def answers(
        self, judge: SentenceScorer, enough: float | None = None
    ) -> list[tuple[Any, float]]:
        """(key, P(supported)) per question, in the order asked (``enough``: as
        :class:`SentenceScorer` takes it); no call when none was asked."""
        if not self.texts:
            return []
        scores = [p for p, _ in judge.score(self.texts, self.evidence, enough=enough)]
        return list(zip(self.keys, scores, strict=True))


def _whole_sentence_deletion(span: EditSpan, sentence: tuple[int, int], text: str) -> EditSpan:
    """A deletion that leaves at most two words of its sentence, or only its end
    (:func:`opening_cut`), deletes the whole sentence: a remnant such as "1970s." (of "He has
    appeared ... which began in the late 1970s.") is not a sentence. Other edits pass as they
    are."""
    a, b = sentence
    if span["right"] or span.get("flagged") or not text[a:b].strip():
        return span
    if (span["start"], span["end"]) == (a, b):
        return span
    left = text[a : span["start"]] + " " + text[span["end"] : b]
    if len(WORD.findall(left)) > 2 and not opening_cut(span, sentence, text):
        return span
    return {**span, "start": a, "end": b, "wrong": text[a:b]}


_OPENING_WORDS = 4  # a shorter opening ("In fact", "Sadly") is an aside, not the sentence's core


def opening_cut(span: EditSpan, sentence: tuple[int, int], text: str) -> bool:
    """Whether ``span`` deletes its sentence's opening words up to the middle of a clause,
    leaving a remnant that is no sentence: "He is best known for his work on | direct current
    systems." (four words or more, what is left starts in lower case, and the deleted words do
    not end at a comma, semicolon or colon)."""
    a, b = sentence
    opening = a + len(text[a:b]) - len(text[a:b].lstrip())
    deleted = text[span["start"] : span["end"]]
    rest = text[span["end"] : b].strip()
    return (
        not span["right"]
        and not span.get("flagged")
        and span["start"] <= opening < span["end"]
        and len(WORD.findall(deleted)) >= _OPENING_WORDS
        and rest[:1].islower()
        and not deleted.rstrip().endswith((",", ";", ":"))
    )


#: what ends a sentence: a fix of words ending one that drops it is a rewrite (collapsed_fix)
_ENDS = (".", "!", "?")


def collapsed_fix(edit: EditSpan) -> bool:
    """Whether ``edit`` replaces a clause (:data:`~favakit.inference.gate_words.CLAUSE` words or more) with at most half as
    many words: a rewrite into a fragment, not a fix ("A sales agent from BestInsuranceXYZ
    contacts a potential customer to offer their insurance" -> "Sales Agent", the editor on a
    dialogue's summary). A fix swaps a name or a word, or rewrites a whole sentence as one. So
    is a fix of words that end the sentence which drops its full stop ("The music runs until
    midnight." -> "The Salt Road Band": a name put in place of the statement)."""
    wrong, right = len(WORD.findall(edit["wrong"])), len(WORD.findall(edit["right"]))
    ends = edit["wrong"].rstrip().endswith(_ENDS) and not edit["right"].rstrip().endswith(_ENDS)
    return is_fix(edit) and ((wrong >= CLAUSE and right <= wrong / 2) or (wrong > 1 and ends))


def function_word_deletion(edit: EditSpan) -> bool:
    """Whether ``edit`` deletes only function words
    (:func:`~favakit.inference.gate_words.function_words_only`: "in" of "published On the Origin
    of Species in 1869"), which states no fact and leaves the sentence
    broken: the error is elsewhere in the sentence, so it is flagged there. A negation
    ("not", "never") is a fact's whole difference, and its deletion stays."""
    if edit["right"].strip() or edit.get("flagged"):
        return False
    return function_words_only(edit["wrong"])


#: the share of a deletion's characters in runs of words the evidence never uses below which
#: it is flagged, not deleted (chosen on the development split's span rows; every deletion of
#: favakit's synthetic validation has 0.36 or more)
BACKED_DELETION = 0.3


def backed_deletion(edit: EditSpan, text: str, passages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``edit`` deletes a clause (:data:`~favakit.inference.gate_words.CLAUSE` words or more) whose words the
    evidence mostly uses: the runs of its words the evidence never uses
    (:func:`~favakit.inference.gate_words.unsupported_words`) cover under
    :data:`BACKED_DELETION` of its characters.
    Such a sentence restates the evidence with a word or two changed ("The agent conducts a
    questionnaire with the client and informs him about the life insurance"): the error is in
    those words, not the whole sentence, so it is flagged there, not deleted. An invented or
    unverifiable sentence says what the evidence never does."""
    if edit["right"].strip() or edit.get("flagged") or not passages:
        return False
    if len(WORD.findall(edit["wrong"])) < CLAUSE:
        return False  # a deleted aside or phrase ("In 2014,"): not a restated sentence
    a, b = edit["start"], edit["end"]
    unsupported = sum(y - x for x, y in unsupported_words(text, (a, b), passages))
    return unsupported < BACKED_DELETION * max(1, len(text[a:b].strip()))


def _one_fix_per_date(
    kept: Sequence[EditSpan], whole_dates: Sequence[tuple[int, int]]
) -> list[EditSpan]:
    """``kept`` with one edit per whole-date fix (:func:`~favakit.inference.date_fix.date_fix`):
    the first that became it; any other edit inside that date (another part of it the editor
    touched) is dropped, so the date is not fixed twice."""
    out: list[EditSpan] = []
    taken: set[tuple[int, int]] = set()
    for edit in kept:
        whole = (edit["start"], edit["end"])
        if whole in whole_dates and whole not in taken:
            taken.add(whole)
        elif any(a <= edit["start"] and edit["end"] <= b for a, b in whole_dates):
            continue
        out.append(edit)
    return out


def _points_at_nothing(edit: EditSpan) -> bool:
    """Whether ``edit`` is a flag of function words only (the editor's flag of "A" in "A
    reservation holds a bike for 30 minutes and costs 50p."), or a fix putting a name or other
    content words in their place ("Toronto *and* Berlin" -> "Denmark"): beside the sentence's
    other edits it says nothing of where the error is, and is dropped."""
    if not edit["wrong"].strip() or not function_words_only(edit["wrong"]):
        return False
    return bool(edit.get("flagged")) or not function_words_only(edit["right"])


def _one_flag_per_span(edits: list[EditSpan]) -> list[EditSpan]:
    """``edits`` (sorted) with a flag at the same words as an edit before it left out: two of
    the editor's edits widened to one word flag it once."""
    out: list[EditSpan] = []
    for edit in edits:
        if edit.get("flagged") and out and (out[-1]["start"], out[-1]["end"]) == (
            edit["start"], edit["end"]
        ):  # fmt: skip
            continue
        out.append(edit)
    return out


def torn_words(edits: Sequence[EditSpan], text: str) -> set[int]:
    """The indices of ``edits`` that tear one word of ``text`` apart between them: two or more
    edits inside the same word ("*To*", "*r*", "*on*", "*to*" of "Toronto", each replaced by a
    name). That is the editor's noise, not a view of the word: they are dropped, and the
    sentence is read as if it had no edit there."""
    by_word: dict[tuple[int, int], list[int]] = {}
    for i, edit in enumerate(edits):
        if splits_a_word(edit, text):
            widened = whole_words(edit, text)
            by_word.setdefault((widened["start"], widened["end"]), []).append(i)
    return {i for found in by_word.values() if len(found) > 1 for i in found}


def gate_result(
    result: EditResult, sentences: Sequence[tuple[int, int]], scores: Sequence[float],
    threshold: float, flag_unsupported: bool = True, keep_evidence_swaps: bool = False,
    topic: str | None = None, flags: str = "words",
    marked: Mapping[int, Sequence[tuple[int, int]]] | None = None,
) -> EditResult:  # fmt: skip
    """``result`` gated by the rule of the module: edits inside supported sentences (score above
    ``threshold``) dropped, unsupported sentences without an edit flagged (with
    ``flag_unsupported``): whole with ``flags="sentences"``, else at the words the evidence
    never uses and those ``marked`` gives for the sentence's index (spans of the text,
    :func:`~favakit.inference.gate_words.marked_words`;
    :func:`~favakit.inference.gate_words.narrowed_flag`), each kept edit and flag with its
    sentence's ``checker_score`` and ``cites``, and the corrected text made again from the kept
    edits. With
    ``keep_evidence_swaps``, an edit in a supported sentence is kept when it is an
    :func:`~favakit.inference.gate_cite.evidence_swap`. ``topic``: whom the text is about (else the name it opens with; in a
    sentence where the text has turned to another person, that person: :func:`~favakit.inference.gate_subject.subject_of`),
    for whole-date fixes and citations."""
    text = result["original"]
    passages = result.get("evidence", [])
    kept: list[EditSpan] = []
    dropped = openings = 0
    rewritten_at: set[tuple[int, int]] = set()  # the edits flagged as rewrites, not fixes
    edited: set[int] = set()
    whole_dates: list[tuple[int, int]] = []
    torn = torn_words(result.get("edits", []), text)
    proposed = [e for i, e in enumerate(result.get("edits", [])) if i not in torn]
    where = [sentence_of(sentences, e["start"], e["end"]) for e in proposed]
    per_sentence = Counter(where)
    for edit, n in zip(proposed, where, strict=True):
        score = scores[n] if n is not None else 0.0
        if score > threshold and not (keep_evidence_swaps and evidence_swap(edit, passages)):
            dropped += 1
            continue
        if n is not None and per_sentence[n] > 1 and _points_at_nothing(edit):
            continue
        span: EditSpan = {**edit, "checker_score": round(score, 4)}
        if n is not None:
            if per_sentence[n] == 1:  # the only edit there
                span = _whole_sentence_deletion(span, sentences[n], text)
            elif opening_cut(span, sentences[n], text):
                openings += 1  # it would leave the sentence's other edits no sentence
                continue
            sentence = text[slice(*sentences[n])]
            subject = subject_of(topic, text, sentences[n][0])
            if passages:  # in "...; Albert Einstein was born in 1889." the year is his
                subject = statement_subject(text, sentences[n], span["start"], passages, subject)
            rewritten = (collapsed_fix(span) or backed_deletion(span, text, passages)
                         or function_word_deletion(span))  # fmt: skip
            if rewritten:
                span = as_flag(span)  # narrowed at the end (gate_words.flags_at_words)
            elif splits_a_word(span, text):  # "the *seven*th" -> "sixth": "the sixthth"
                span = as_flag(whole_words(span, text))
            elif doubles_a_word(span, text) or repeats_a_member(span, text, sentences[n]):
                span = as_flag(span)  # "the test test" machine; "ValueMart and ValueMart"
            if passages:
                dated = date_fix(span, text, sentences[n], passages, subject) or contradiction_fix(
                    span, text, sentences[n], passages, subject
                )
                if dated is not None:  # the evidence's own date or number: grounded as it is
                    whole_dates.append((dated["start"], dated["end"]))
                fixed = dated if dated is not None else grounded_fix(span, sentence, passages)
                span = cited(fixed, sentence, passages, text, subject)
            if rewritten:
                rewritten_at.add((span["start"], span["end"]))
            edited.add(n)  # a sentence all of whose edits were dropped is flagged as unedited
        kept.append(span)
    if whole_dates:
        kept = _one_fix_per_date(kept, whole_dates)
    kept, evidence_fixes = fixed_by_the_rules(kept, sentences, text, passages, topic)
    kept, further_fixes = further_rule_fixes(kept, sentences, text, passages, topic)
    # counted as flags only where no rule of the evidence fixed them after all
    rewrites = sum(1 for e in kept if e.get("flagged") and (e["start"], e["end"]) in rewritten_at)
    checked_flags(flags)
    flagged = narrowed = 0
    if flag_unsupported:
        for n, ((a, b), score) in enumerate(zip(sentences, scores, strict=True)):
            if score > threshold or n in edited or not text[a:b].strip():
                continue
            flag = unsupported_flag(text, a, b, score)
            subject = subject_of(topic, text, a)
            from_evidence = (
                statement_fix(flag, text, (a, b), passages, subject) if passages else None
            )
            if from_evidence is not None:  # a year, count or name the evidence gives otherwise
                kept.append(cited(from_evidence[0], text[a:b], passages, text, from_evidence[1]))
                evidence_fixes += 1
                continue
            flag = cited(flag, text[a:b], passages, text, subject)
            at = narrowed_flag(flag, text, passages, (marked or {}).get(n, []), flags)
            kept += at
            flagged += 1
            narrowed += at != [flag]
    kept.sort(key=lambda e: (e["start"], e["end"]))
    kept = _one_flag_per_span(kept)
    gated: EditResult = {**result, "edits": kept}
    gated["corrected"] = apply_edits(text, kept)
    notes = []
    stated = [
        s for (a, b), s in zip(sentences, scores, strict=True) if not states_nothing(text[a:b])
    ]
    supported = sum(s > threshold for s in stated)  # a heading or a Q&A's question: not counted
    if supported:
        note = (f"{supported} of {len(stated)} sentence(s) supported by the evidence were left as "
                f"they are")  # fmt: skip
        if dropped:
            note += f" ({dropped} proposed edit(s) dropped)"
        notes.append(note)
    if openings:
        notes.append(f"{openings} deletion(s) of a sentence's opening words dropped: the rest "
                     "of the sentence, edited, would not stand as a sentence")  # fmt: skip
    if rewrites:
        notes.append(f"{rewrites} edit(s) flagged with no fix: a clause rewritten into a fragment, "
                     "or a deletion of words the evidence mostly uses or of function words "
                     "only")  # fmt: skip
    if evidence_fixes:
        notes.append(f"{evidence_fixes} sentence(s) the evidence does not support had their year, "
                     "count or name fixed from it")  # fmt: skip
    if further_fixes:
        notes.append(f"{further_fixes} further year, count or name fix(es) from the evidence in "
                     "sentences already fixed")  # fmt: skip
    if flagged:
        note = f"{flagged} sentence(s) the evidence does not support were flagged with no fix"
        if narrowed:
            note += f" ({narrowed} at the words the evidence does not back)"
        notes.append(note)
    if notes:
        gated["warnings"] = [*result.get("warnings", []), *notes]
    return gated


def sentence_scores(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    enough: float | None = None,
) -> list[tuple[list[tuple[int, int]], list[float]] | None]:  # fmt: skip
    """For each result, its sentences' spans and the checker's P(supported) of each,
    decontextualized ("She won ..." scored as "Marie Curie won ...", the topic or else the name
    the text opens with), against the result's evidence; None for a result without evidence.
    ``enough``: the gate's threshold, where only the scores at or below it need be exact
    (:class:`SentenceScorer`)."""
    questions = Questions()  # key: (result, sentence span)
    unstated: list[tuple[tuple[int, tuple[int, int]], float]] = []  # left alone, not asked
    for i, result in enumerate(results):
        passages = result.get("evidence", [])
        if not passages:
            continue
        for span in sentence_spans(result["original"]):
            sentence = result["original"][span[0] : span[1]]
            if states_nothing(sentence):
                unstated.append(((i, span), 1.0))  # a heading, a Q&A's question
                continue
            questions.ask((i, span), decontextualized(sentence, topics[i], result["original"],
                                                      span[0]), passages)  # fmt: skip
    per_text: dict[int, tuple[list[tuple[int, int]], list[float]]] = {}
    answers = sorted([*questions.answers(checker, enough), *unstated], key=lambda a: a[0])
    for (i, span), p in answers:
        spans, ps = per_text.setdefault(i, ([], []))
        spans.append(span)
        ps.append(p)
    return [per_text.get(i) for i in range(len(results))]
