"""Checker-gated editing: the checker decides which sentences are wrong, the editor and the
evidence how to fix them, and every edit says which evidence it rests on.

Any :class:`~favakit.contracts.Editor` proposes edits for the whole text (it also retrieves the
evidence when the request has none). :class:`GatedEditor` then splits the text into sentences,
decontextualizes each where the rule can (an opening "He" or "She" replaced by the request's
``topic``, else by the name the text opens with, unless the text has turned to another person
before it: :func:`~favakit.inference.gate_subject.decontextualized`) and scores each against the
result's evidence with the encoder checker (P(supported), evidence
read in pieces, the best piece counts; this first look reads a sentence's pieces closest first
and stops at one above the threshold, since only whether a sentence is above it matters there:
``SentenceScorer``'s ``enough``), or with any other judge behind the
:class:`SentenceScorer` contract (:class:`JudgeScorer`: the tuned Qwen judge, ``--gate qwen``;
:class:`~favakit.inference.cascade_gate.CascadeScorer`: the checker asking that judge about the
sentences it is unsure of, ``--gate cascade``).
The rule, sentence by sentence:

* **supported** (score above the threshold): every edit inside it is dropped, so the sentence
  comes back exactly as it was;
* **unsupported**, with edits: they are kept, each with a fix the evidence holds. An edit
  (fix or flag) that touches part of a date takes the whole date the evidence gives for it
  (:func:`~favakit.inference.date_fix.date_fix`: ``"December" -> "February"`` in "born on
  December 18, 1949" becomes ``"December 18, 1949" -> "July 27, 1942"``), one fix per date.
  Otherwise (:func:`grounded_fix`) a fix whose words the evidence has stays; a wrong number
  takes the one differing number of the closest evidence sentence; any other fix becomes a
  flag, since the editor wrote words the evidence does not hold (deletions stay deletions, and
  a deletion that leaves at most two words of its sentence, the only edit there, takes the
  whole sentence: a remnant such as "1970s." is not a sentence). An edit that rewrites a clause
  (five words or more) into a fragment of at most half as many words
  (:func:`~favakit.inference.gate_edits.collapsed_fix`), or deletes a clause whose words the
  evidence mostly uses (:func:`~favakit.inference.gate_edits.backed_deletion`), becomes a flag:
  the error is in a word or two there, not the whole clause;
* **unsupported**, without any edit: it is flagged (type ``unverifiable``, no fix offered, the
  text unchanged), so a wrong sentence the editor missed is still reported: at the runs of
  words the evidence never uses (:func:`~favakit.inference.gate_words.unsupported_words`:
  "moved to **Lisbon** in 1950") and the words the checker's token head marks unsupported
  (:func:`~favakit.inference.gate_words.marked_words`), or whole when there are none (a
  swapped relation, a negation, where the token head marks nothing). ``flags="sentences"`` (``--gate-flags sentences``) flags every
  such sentence whole. Nothing is deleted on the checker's word alone. ``flag_unsupported=False``
  turns this off.
* **fixes are checked** (:func:`verify_fixes`; ``GatedEditor(check_fixes=False)``, ``favakit
  edit --gate-fixes unchecked``, turns it off): a sentence whose kept edits replace words is
  scored again as the fixes leave it, and it is supported once fixed only above the checker's
  verdict threshold as well as the gate's (``GatedEditor.fix_threshold``); when the checker
  still finds it unsupported, its part up
  to the end of the last fix's clause is scored: if that part is supported the fixes stay and
  the rest of the sentence is flagged (at its words the evidence never uses, as above), else its
  replacements become flags (no fix offered), but for the fix a rule beneath the checker makes
  (:func:`~favakit.inference.gate_rule_fixes.rule_fix`: a year, count or name the evidence gives
  otherwise, an opposite in its same words), which stays, the sentence's other words the
  evidence never uses flagged beside it (a rule's fix is also made beside the editor's fixes of
  other words: "for *30* -> 10 minutes and costs *50p*"). Where that part, as written, is supported as
  well and scores no less than fixed, its fixes were not needed and go, after the flags at
  words (:func:`~favakit.inference.gate_checks.drop_fixes_clauses_need_not`: "open from 1pm to
  6pm on weekdays, | and it is also open on Sundays" keeps its "open"). A
  fix whose words the evidence holds can still answer another question ("born on December 18"
  -> "February" where the evidence's February 18 is the death date and no whole date aligns):
  it is not offered;
* **deletions are checked** too (:func:`verify_deletions`, with the same switch): a deletion
  of a sentence (eight words or more) is kept only when none of the facts it states (split by
  favakit's rules: list items, relative clauses) is supported; otherwise it becomes a flag (at
  its words the evidence never uses, as above), so a sentence that also holds a supported fact
  is reported, not deleted.
* **a judgement the evidence never makes is deleted**
  (:func:`~favakit.inference.opinion_check.opinion_deletions`, with the same switch): in a
  sentence whose every edit is a flag, an opinion ("arguably", "the most beautiful sight")
  whose words the evidence never uses is deleted as ``subjective``: its evaluative words, the
  clause holding it, or the whole sentence, whichever is the smallest the checker finds leaves
  the sentence supported (a whole sentence checked as deletions are);
* **flags at words** (``flags="words"``): a sentence whose every edit became a flag is
  flagged as an unsupported sentence the editor left alone is, at the words the evidence never
  uses and those the token head marks
  (:func:`~favakit.inference.gate_words.flag_sentences_at_words`; the editor's flags stay where
  there are none): a taken-back fix says the sentence is wrong, not where. Then a flag of five
  words or more is narrowed to its words the evidence never uses
  (:func:`~favakit.inference.gate_words.flag_clauses_at_words`, whole when there are none), and
  each sentence holding a flag is flagged at its other words the evidence never uses as well
  (:func:`~favakit.inference.gate_words.flag_words_beside`).
* **a flagged word the evidence says otherwise around the same words is fixed**
  (:func:`~favakit.inference.word_fix.word_fixes`, with the same switch; after the flags are put
  at words): the evidence's words in its place ("a *train* accident at the age of 18" -> "bus"
  against "A bus accident at the age of 18 ..."), where the checker finds the sentence so fixed
  supported; the sentence's other flags stay.
* **a fix the second judge doubts is taken back**
  (:func:`~favakit.inference.gate_checks.fixes_the_judge_doubts`, with the same switch; only
  where the gate's scorer has a second judge, as the cascade has): each sentence still holding
  a fix is asked of that judge as written, even one the checker scored under its band; where
  the judge finds it supported and no rule beneath the checker found the evidence contradicting
  it, the sentence's fixes (but a rule's own) become flags: the checker and the judge disagree,
  so the sentence is reported, not rewritten ("the first person to *walk* on the Moon" against
  "the first person to step onto the lunar surface").
* **a denied list member** (:func:`~favakit.inference.gate_denials.denials_typed`): a flag in a
  sentence the evidence denies in its own words is typed ``contradictory``, and put at the
  members of the sentence's list the denial names ("... the harbour district and *Old Town*"
  against "There are no stations in Old Town");
* **what a record still denies** (:func:`~favakit.inference.gate_denials.bare_denials_flagged`):
  in a sentence holding an edit, the words each bare statement of the evidence denies ("No
  lift.", "Not gluten free.") are flagged where no edit touches them ("The flat has *two*
  bathrooms and a *lift*.");
* **layout** (last; :func:`~favakit.inference.gate_words.without_layout`): a list's numbers and
  bullets ("2. He died in 1737.") are read past when the text is split and decontextualized,
  and never edited, nor is a Markdown heading or a Q&A's labelled question (never scored
  either); each flag is kept to its words ("1737", not "1737."), and each swap (an ``entity``
  or ``relation`` fix) to the words it changes
  (:func:`~favakit.inference.gate_words.changed_words`: the editor's "Nitrogen is released as
  a by-product." -> "Oxygen is released as a by-product." is "Nitrogen" -> "Oxygen").

``keep_evidence_swaps=True`` (off by default; measured worse on real claims, docs/checker.md) also
keeps, in a supported sentence, an edit that replaces words the evidence never has with words it
has (:func:`evidence_swap`).

Every kept edit and flag carries its sentence's ``checker_score`` and ``cites``: the evidence
sentence that holds the edit's fix word for word when one does (``"1979" -> "1879"`` cites the
sentence with 1879), else the evidence sentence sharing the most words with the edited
sentence (the closest evidence the checker read). The result's ``warnings`` count the sentences
left alone and the edits dropped. Texts with no evidence at all are not gated (the checker has
nothing to read).

The rule for one text is :mod:`favakit.inference.gate_edits` (scores, then edits by sentence,
citations); where its flags go (at words) is :mod:`favakit.inference.gate_words`; the second look
at fixes and deletions is :mod:`favakit.inference.gate_checks`. This module joins them to an
editor and a judge and exports what they offer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from favakit.contracts import EditInput, Editor, EditResult, Verifier, as_requests
from favakit.inference.gate_checks import (
    check_edits,
    drop_fixes_clauses_need_not,
    fixes_the_judge_doubts,
    verify_deletions,
    verify_fixes,
)
from favakit.inference.gate_cite import cite, evidence_swap, grounded_fix
from favakit.inference.gate_denials import (
    bare_denials_flagged,
    denials_typed,
    flags_cited_at_clauses,
)
from favakit.inference.gate_edits import SentenceScorer, gate_result, sentence_scores
from favakit.inference.gate_words import (
    FLAG_SPANS,
    checked_flags,
    flag_words_beside,
    flags_at_words,
    marked_words,
    marks_in_flagged_sentences,
    without_layout,
)
from favakit.inference.word_fix import word_fixes
from favakit.language import language_note

__all__ = [
    "FLAG_SPANS", "GateSettings", "GatedEditor", "JudgeScorer", "SentenceScorer", "check_edits",
    "cite", "drop_fixes_clauses_need_not", "evidence_swap", "flag_words_beside", "gate_result",
    "grounded_fix", "marked_words", "sentence_scores", "verify_deletions", "verify_fixes",
]  # fmt: skip


@dataclass(frozen=True)
class GateSettings:
    """How an editor is gated (``favakit edit --gate ...``; :func:`~favakit.inference.factory.
    open_editor`'s ``gate``). ``judge``: a shipped checker by name (``"checker"``, ``"mpnet"``,
    ``"auto"``), a checker folder, ``"qwen"`` (the tuned Qwen judge) or ``"cascade"`` (the mpnet
    checker asking that judge inside its band); ``threshold``:
    P(supported) above which a sentence is left alone (None: the judge's stored
    ``gate_threshold``); ``check_fixes``: the second look at fixes and deletions
    (:func:`check_edits`); ``flags``: what an unsupported sentence without edits is flagged at
    (:data:`FLAG_SPANS`)."""

    judge: str = "auto"
    threshold: float | None = None
    check_fixes: bool = True
    flags: str = "words"

    def __post_init__(self) -> None:
        checked_flags(self.flags)
        if not self.judge.strip():
            raise ValueError("judge is empty: give auto, checker, mpnet, qwen, cascade or a folder")
        if self.threshold is not None and not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold {self.threshold}: a probability, from 0 to 1")


class JudgeScorer:
    """A :class:`~favakit.contracts.Verifier` as the gate's judge (``--gate qwen``): each
    sentence's verdict score is its P(supported), left alone above ``gate_threshold``; a fix
    holds above ``threshold`` too (the judge's verdict threshold; default ``gate_threshold``)."""

    def __init__(
        self, verifier: Verifier, gate_threshold: float, name: str, threshold: float | None = None
    ) -> None:
        self.verifier, self.gate_threshold, self.name = verifier, gate_threshold, name
        self.threshold = gate_threshold if threshold is None else threshold

    def score(
        self,
        texts: Sequence[str],
        evidence: Sequence[Sequence[str]],
        *,
        enough: float | None = None,
    ) -> list[tuple[float, int]]:
        """Each text's verdict score (one claim a verdict reads its evidence whole: ``enough``
        saves nothing here)."""
        claims: list[EditInput] = [
            {"text": t, "evidence": list(e)} for t, e in zip(texts, evidence, strict=True)
        ]
        return [(float(v["score"]), 1) for v in self.verifier.verify(claims)]


class GatedEditor:
    """An :class:`~favakit.contracts.Editor` whose edits pass the checker's gate (see the
    module). ``threshold``: P(supported) above which a sentence is left alone (default: the
    checker's ``gate_threshold``, chosen on its development split); a fix holds where its
    sentence so fixed scores above ``fix_threshold``: that and the checker's verdict threshold,
    whichever is higher (the gate's is set low, to leave supported sentences alone; a fix should
    make a sentence the checker calls supported: "Its CEO is Tom Hughes." -> "Its chief is Tom
    Hughes." scores 0.13 against "Its chief executive since 2020 has been Daniel Okafor, who
    replaced co-founder Tom Hughes.", above the mpnet checker's gate threshold 0.12 and below its
    verdict threshold 0.24); ``check_fixes`` and ``flags`` as in :class:`GateSettings`."""

    def __init__(self, editor: Editor, checker: SentenceScorer, threshold: float | None = None,
                 flag_unsupported: bool = True, check_fixes: bool = True,
                 flags: str = "words") -> None:  # fmt: skip
        self.editor = editor
        self.checker = checker
        self.threshold = checker.gate_threshold if threshold is None else threshold
        # a fix must make its sentence one the judge calls supported, not merely one it lets be
        self.fix_threshold = max(self.threshold, checker.threshold)
        self.flag_unsupported = flag_unsupported
        self.check_fixes = check_fixes
        self.flags = checked_flags(flags)

    @property
    def model(self) -> str:
        return f"{self.editor.model}, gated by {self.checker.name}"

    @property
    def client(self) -> Any:  # what `favakit edit` prints as the editor's kind
        return getattr(self.editor, "client", None)

    def _gated(
        self, result: EditResult, scored: tuple[list[tuple[int, int]], list[float]],
        topic: str | None, marked: dict[int, list[tuple[int, int]]],
    ) -> EditResult:  # fmt: skip
        return gate_result(result, *scored, self.threshold, self.flag_unsupported, topic=topic,
                           flags=self.flags, marked=marked)  # fmt: skip

    def edit_many(self, requests: Sequence[EditInput]) -> list[EditResult]:
        reqs = as_requests(requests)
        results = self.editor.edit_many(reqs)
        topics = [r.topic for r in reqs]
        # only the scores at or below the threshold need be exact: a judge reading evidence in
        # pieces stops at a piece above it (docs/checker.md)
        scored = sentence_scores(self.checker, results, topics, enough=self.threshold)
        marks: list[dict[int, list[tuple[int, int]]]] = [{} for _ in results]
        if self.flag_unsupported and self.flags == "words":
            marks = marked_words(self.checker, results, scored, self.threshold)
        gated = [
            r if s is None else self._gated(r, s, t, m)
            for r, s, t, m in zip(results, scored, topics, marks, strict=True)
        ]
        if self.check_fixes:
            gated = check_edits(
                self.checker, gated, topics, self.threshold, self.flags, self.fix_threshold
            )
        if self.flags == "words":  # a result without evidence comes back as it is
            flagged = marks_in_flagged_sentences(self.checker, gated, marks)
            gated = [flags_at_words(r, m) for r, m in zip(gated, flagged, strict=True)]
        if self.check_fixes:  # a fix its clause did not need, the error flagged after it
            gated = drop_fixes_clauses_need_not(self.checker, gated, topics, self.fix_threshold)
        if self.check_fixes:  # a flagged word the evidence says otherwise around the same words
            gated = word_fixes(self.checker, gated, topics, self.fix_threshold)
        if self.check_fixes:  # a fix a second judge doubts (the cascade's) is taken back
            gated = fixes_the_judge_doubts(self.checker, gated, topics)
        # the last steps: a flag in one statement of a sentence cites that statement's evidence,
        # a flag in a sentence the evidence denies is typed contradictory (and put at the list
        # members it denies), and nothing of a list's marker, a heading or a Q&A's question is
        # edited
        cited = [flags_cited_at_clauses(r, t) for r, t in zip(gated, topics, strict=True)]
        if getattr(self.checker, "polarity_check", True):  # off where checker.json turns it off
            cited = [denials_typed(r, at_members=self.flags == "words") for r in cited]
            cited = [bare_denials_flagged(r) for r in cited]
        # a gated result names its gate beside its editor, as `favakit edit` announces it: an
        # output resumed with the gate turned off (or another judge) is then refused, not mixed
        return [_noting_language({**without_layout(r), "model": self.model}) for r in cited]


def _noting_language(result: EditResult) -> EditResult:
    """``result`` with a warning where its text or evidence does not read as English
    (:func:`~favakit.language.language_note`): the editor and the checker were trained on
    English."""
    evidence = [str(e.get("text", "")) for e in result.get("evidence") or []]
    note = language_note(result["original"], evidence)
    return {**result, "warnings": [*result.get("warnings", []), note]} if note else result
