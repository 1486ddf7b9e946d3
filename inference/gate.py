"""Checker-gated editing: the checker decides which sentences are wrong, the editor and the
evidence how to fix them, and every edit says which evidence it rests on.

Any :class:`~favakit.contracts.Editor` proposes edits for the whole text (it also retrieves the
evidence when the request has none). :class:`GatedEditor` then splits the text into sentences,
decontextualizes each where the rule can (a leading "He"/"She"/"It" and "his"/"her" replaced by
the request's ``topic``, else by the name the text opens with) and scores each against the
result's evidence with the encoder checker (P(supported), evidence
read in pieces, the best piece counts), or with any other judge behind the
:class:`SentenceScorer` contract (:class:`JudgeScorer`: the tuned Qwen judge, ``--gate qwen``).
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
  whole sentence: a remnant such as "1970s." is not a sentence);
* **unsupported**, without any edit: the whole sentence is flagged (type ``unverifiable``, no
  fix offered, the text unchanged), so a wrong sentence the editor missed is still reported.
  Nothing is deleted on the checker's word alone. ``flag_unsupported=False`` turns this off.
* **fixes are checked** (:func:`verify_fixes`; ``GatedEditor(check_fixes=False)``, ``favakit
  edit --gate-fixes unchecked``, turns it off): a sentence whose kept edits replace words is
  scored again as the fixes leave it; when the checker still finds it unsupported, its part up
  to the end of the last fix's clause is scored: if that part is supported the fixes stay and
  the rest of the sentence is flagged, else its replacements become flags (no fix offered). A
  fix whose words the evidence holds can still answer another question ("born on December 18"
  -> "February" where the evidence's February 18 is the death date and no whole date aligns):
  it is not offered;
* **deletions are checked** too (:func:`verify_deletions`, with the same switch): a deletion
  of a sentence (eight words or more) is kept only when none of the facts it states (split by
  favakit's rules: list items, relative clauses) is supported; otherwise it becomes a flag, so
  a sentence that also holds a supported fact is reported, not deleted.

``keep_evidence_swaps=True`` (off by default; measured worse on real claims, docs/checker.md) also
keeps, in a supported sentence, an edit that replaces words the evidence never has with words it
has (:func:`evidence_swap`).

Every kept edit and flag carries its sentence's ``checker_score`` and ``cites``: the evidence
sentence that holds the edit's fix word for word when one does (``"1979" -> "1879"`` cites the
sentence with 1879), else the evidence sentence sharing the most words with the edited
sentence (the closest evidence the checker read). The result's ``warnings`` count the sentences
left alone and the edits dropped. Texts with no evidence at all are not gated (the checker has
nothing to read).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from favakit.contracts import (
    Citation,
    EditInput,
    Editor,
    EditResult,
    EditSpan,
    Verifier,
    as_request,
)
from favakit.decompose import RuleFactSplitter, leading_name, resolve_pronouns
from favakit.inference.checker import shared_words
from favakit.inference.date_fix import date_fix
from favakit.tags import apply_edits
from favakit.text import sentence_spans

__all__ = [
    "GatedEditor", "JudgeScorer", "SentenceScorer", "cite", "evidence_swap", "gate_result",
    "grounded_fix", "sentence_scores", "verify_deletions", "verify_fixes",
]  # fmt: skip


class SentenceScorer(Protocol):
    """What the gate asks of its judge: P(supported) per sentence (with how many evidence pieces
    it read), ``gate_threshold``: the P(supported) above which the gate leaves a sentence alone
    (chosen on a development split for issue 32's shape: supported sentences left alone first;
    it may differ from the judge's verdict threshold), and a name for results. The encoder
    :class:`~favakit.inference.checker.Checker` is one; :class:`JudgeScorer` makes one of any
    verifier."""

    gate_threshold: float
    name: str

    def score(
        self, texts: Sequence[str], evidence: Sequence[Sequence[str]]
    ) -> list[tuple[float, int]]: ...


class JudgeScorer:
    """A :class:`~favakit.contracts.Verifier` as the gate's judge (``--gate qwen``): each
    sentence's verdict score is its P(supported), left alone above ``gate_threshold``."""

    def __init__(self, verifier: Verifier, gate_threshold: float, name: str) -> None:
        self.verifier, self.gate_threshold, self.name = verifier, gate_threshold, name

    def score(
        self, texts: Sequence[str], evidence: Sequence[Sequence[str]]
    ) -> list[tuple[float, int]]:
        claims: list[EditInput] = [
            {"text": t, "evidence": list(e)} for t, e in zip(texts, evidence, strict=True)
        ]
        return [(float(v["score"]), 1) for v in self.verifier.verify(claims)]


def _whole_words(words: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(words.strip())}(?!\w)", re.IGNORECASE)


def cite(sentence: str, fix: str, passages: Sequence[Mapping[str, Any]]) -> Citation | None:
    """The evidence sentence an edit of ``sentence`` rests on: the first that holds ``fix`` as
    whole words (when there is a fix), else the one sharing the most words with ``sentence``
    (:func:`~favakit.inference.checker.shared_words`); None when none shares a word with it."""
    holds = _whole_words(fix) if fix.strip() else None
    mine = shared_words(sentence)
    best: tuple[tuple[bool, int], int, str] | None = None
    for n, passage in enumerate(passages):
        body = str(passage.get("text", ""))
        for a, b in sentence_spans(body):
            piece = body[a:b].strip()
            key = (bool(holds and holds.search(piece)), len(mine & shared_words(piece)))
            if key > (False, 0) and (best is None or key > best[0]):
                best = (key, n, piece)
    if best is None:
        return None
    found: Citation = {"passage": best[1], "sentence": best[2]}
    title = passages[best[1]].get("title")
    if title:
        found["title"] = str(title)
    return found


_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d(?![\w])|(?<![\w.])\d(?![\w])")


def grounded_fix(edit: EditSpan, sentence: str, passages: Sequence[Mapping[str, Any]]) -> EditSpan:
    """``edit`` with a fix the evidence holds: kept when the evidence has its words (a content
    word or a number among them: "Lanny Flaherty's" -> "No" is not grounded by a "no"); a number
    replaced by the one number of the closest evidence sentence that differs from the wrong one
    (``"1979" -> "14"`` with evidence "born ... 1879" becomes ``"1979" -> "1879"``); otherwise
    the edit becomes a flag (no fix offered). Deletions and flags pass as they are."""
    right = edit["right"]
    holds = _whole_words(right)
    # words any text has ("No", "a", "is") are not evidence for a fix: it needs a content word
    # (longer than two letters) or a number
    telling = bool(shared_words(right)) or bool(_NUMBER.search(right))
    if (
        edit.get("flagged")
        or not right.strip()
        or (telling and any(holds.search(str(p.get("text", ""))) for p in passages))
    ):
        return edit
    wrong = edit["wrong"].strip()
    if _NUMBER.fullmatch(wrong):
        closest = cite(sentence, "", passages)
        numbers = {m.group(0) for m in _NUMBER.finditer(closest["sentence"])} if closest else set()
        numbers.discard(wrong)
        same = {n for n in numbers if len(n) == len(wrong)} or numbers
        if len(same) == 1:
            return {**edit, "right": edit["wrong"].replace(wrong, same.pop())}
    return {**edit, "right": edit["wrong"], "flagged": True}


def _cited(span: EditSpan, sentence: str, passages: Sequence[Mapping[str, Any]]) -> EditSpan:
    """``span`` with ``cites`` (:func:`cite`; a flag has no fix to look for) where one is found."""
    found = cite(sentence, "" if span.get("flagged") else span["right"], passages)
    return {**span, "cites": found} if found else span


_WORD = re.compile(r"\w+")


def _whole_sentence_deletion(span: EditSpan, sentence: tuple[int, int], text: str) -> EditSpan:
    """A deletion that leaves at most two words of its sentence deletes the whole sentence: a
    remnant such as "1970s." (of "He has appeared ... which began in the late 1970s.") is not a
    sentence. Other edits pass as they are."""
    a, b = sentence
    if span["right"] or span.get("flagged") or not text[a:b].strip():
        return span
    left = text[a : span["start"]] + " " + text[span["end"] : b]
    if len(_WORD.findall(left)) > 2 or (span["start"], span["end"]) == (a, b):
        return span
    return {**span, "start": a, "end": b, "wrong": text[a:b]}


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


def _sentence_of(spans: Sequence[tuple[int, int]], start: int, end: int) -> int | None:
    """The index of the sentence that holds ``[start, end)`` (an edit across two sentences
    belongs to the first); None outside every sentence."""
    for n, (a, b) in enumerate(spans):
        if a <= start < b or (start == end and a <= start <= b):
            return n
    return None


def evidence_swap(edit: EditSpan, passages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``edit`` replaces words the evidence never has with words it has (``"1978" ->
    "1979"`` where only 1979 is in the evidence): a fix the evidence itself argues for."""
    wrong, right = edit["wrong"].strip(), edit["right"].strip()
    if edit.get("flagged") or not right or not wrong or wrong.lower() == right.lower():
        return False
    bodies = [str(p.get("text", "")) for p in passages]
    has_right, has_wrong = _whole_words(right), _whole_words(wrong)
    return any(has_right.search(b) for b in bodies) and not any(has_wrong.search(b) for b in bodies)


def gate_result(
    result: EditResult, sentences: Sequence[tuple[int, int]], scores: Sequence[float],
    threshold: float, flag_unsupported: bool = True, keep_evidence_swaps: bool = False,
    topic: str | None = None,
) -> EditResult:  # fmt: skip
    """``result`` gated by the rule of the module: edits inside supported sentences (score above
    ``threshold``) dropped, unsupported sentences without an edit flagged whole (with
    ``flag_unsupported``), each kept edit and flag with its sentence's ``checker_score`` and
    ``cites``, and the corrected text made again from the kept edits. With
    ``keep_evidence_swaps``, an edit in a supported sentence is kept when it is an
    :func:`evidence_swap`. ``topic``: whom the text is about (else the name it opens with), for
    whole-date fixes."""
    text = result["original"]
    subject = _subject(topic, text)
    passages = result.get("evidence", [])
    kept: list[EditSpan] = []
    dropped = 0
    edited: set[int] = set()
    whole_dates: list[tuple[int, int]] = []
    where = [_sentence_of(sentences, e["start"], e["end"]) for e in result.get("edits", [])]
    per_sentence = Counter(where)
    for edit, n in zip(result.get("edits", []), where, strict=True):
        score = scores[n] if n is not None else 0.0
        if score > threshold and not (keep_evidence_swaps and evidence_swap(edit, passages)):
            dropped += 1
            continue
        span: EditSpan = {**edit, "checker_score": round(score, 4)}
        if n is not None:
            edited.add(n)
            if per_sentence[n] == 1:  # the only edit there
                span = _whole_sentence_deletion(span, sentences[n], text)
            sentence = text[slice(*sentences[n])]
            if passages:
                dated = date_fix(span, text, sentences[n], passages, subject)
                if dated is not None:  # the evidence's own date: grounded as it is
                    whole_dates.append((dated["start"], dated["end"]))
                fixed = dated if dated is not None else grounded_fix(span, sentence, passages)
                span = _cited(fixed, sentence, passages)
        kept.append(span)
    if whole_dates:
        kept = _one_fix_per_date(kept, whole_dates)
    flags = 0
    if flag_unsupported:
        for n, ((a, b), score) in enumerate(zip(sentences, scores, strict=True)):
            if score > threshold or n in edited or not text[a:b].strip():
                continue
            flag: EditSpan = {"type": "unverifiable", "start": a, "end": b, "wrong": text[a:b],
                              "right": text[a:b], "flagged": True, "checker_score": round(score, 4)}  # fmt: skip
            kept.append(_cited(flag, text[a:b], passages))
            flags += 1
    kept.sort(key=lambda e: (e["start"], e["end"]))
    gated: EditResult = {**result, "edits": kept}
    gated["corrected"] = apply_edits(text, kept)
    notes = []
    supported = sum(s > threshold for s in scores)
    if supported:
        note = (f"{supported} of {len(scores)} sentence(s) supported by the evidence were left as "
                f"they are")  # fmt: skip
        if dropped:
            note += f" ({dropped} proposed edit(s) dropped)"
        notes.append(note)
    if flags:
        notes.append(f"{flags} sentence(s) the evidence does not support were flagged with no fix")
    if notes:
        gated["warnings"] = [*result.get("warnings", []), *notes]
    return gated


class GatedEditor:
    """An :class:`~favakit.contracts.Editor` whose edits pass the checker's gate (see the
    module). ``threshold``: P(supported) above which a sentence is left alone (default: the
    checker's ``gate_threshold``, chosen on its development split)."""

    def __init__(self, editor: Editor, checker: SentenceScorer, threshold: float | None = None,
                 flag_unsupported: bool = True, check_fixes: bool = True) -> None:  # fmt: skip
        self.editor = editor
        self.checker = checker
        self.threshold = checker.gate_threshold if threshold is None else threshold
        self.flag_unsupported = flag_unsupported
        self.check_fixes = check_fixes

    @property
    def model(self) -> str:
        return f"{self.editor.model}, gated by {self.checker.name}"

    @property
    def client(self) -> Any:  # what `favakit edit` prints as the editor's kind
        return getattr(self.editor, "client", None)

    def edit_many(self, requests: Sequence[EditInput]) -> list[EditResult]:
        reqs = [as_request(r, i) for i, r in enumerate(requests)]
        results = self.editor.edit_many(reqs)
        topics = [r.topic for r in reqs]
        scored = sentence_scores(self.checker, results, topics)
        gated = [
            r if s is None else gate_result(r, *s, self.threshold, self.flag_unsupported, topic=t)
            for r, s, t in zip(results, scored, topics, strict=True)
        ]
        if self.check_fixes:
            gated = verify_deletions(self.checker, gated, topics, self.threshold)
            gated = verify_fixes(self.checker, gated, topics, self.threshold)
        return gated


def _is_fix(edit: EditSpan) -> bool:
    """Whether ``edit`` replaces words (not a flag, not a deletion)."""
    return (
        not edit.get("flagged") and bool(edit["right"].strip()) and edit["right"] != edit["wrong"]
    )


def _as_flag(edit: EditSpan) -> EditSpan:
    """``edit`` with its fix taken back: the span flagged, the text left as it is."""
    flag: EditSpan = {**edit, "right": edit["wrong"], "flagged": True}
    flag.pop("cites", None)
    return flag


class _Questions:
    """Texts to score against evidence, each with what it is about (a key), scored by the judge
    in one call: how the gate's checks batch their questions."""

    def __init__(self) -> None:
        self.keys: list[Any] = []
        self.texts: list[str] = []
        self.evidence: list[list[str]] = []

    def ask(self, key: Any, text: str, evidence: list[str]) -> None:
        self.keys.append(key)
        self.texts.append(text)
        self.evidence.append(evidence)

    def answers(self, judge: SentenceScorer) -> list[tuple[Any, float]]:
        """(key, P(supported)) per question, in the order asked; no call when none was asked."""
        if not self.texts:
            return []
        scores = [p for p, _ in judge.score(self.texts, self.evidence)]
        return list(zip(self.keys, scores, strict=True))


_CLAUSE_END = re.compile(r"[,;:](?!\s*\d)")  # not the comma of "December 18, 1949"


def _fixed_clause(
    original: str, sentence: tuple[int, int], edits: Sequence[EditSpan]
) -> tuple[str, int] | None:
    """The part of a sentence of ``original`` up to the end of the clause of its last fix (the
    next ``,``, ``;`` or ``:`` not followed by a number), as its edits leave it, with where
    that clause ends; None when that clause ends the sentence (the sentence itself was checked)
    or holds fewer than four words."""
    a, b = sentence
    last = max(e["end"] for e in edits if _is_fix(e))
    cut = _CLAUSE_END.search(original, last, b)
    if cut is None or not original[cut.end() : b].strip(" .!?\n"):
        return None
    inside = [{**e, "start": e["start"] - a, "end": e["end"] - a}
              for e in edits if e["end"] <= cut.start()]  # fmt: skip
    clause = apply_edits(original[a : cut.start()], inside)
    return (clause, cut.start()) if len(_WORD.findall(clause)) >= 4 else None


def _rest_flag(
    result: EditResult, sentence: tuple[int, int], clause_end: int, score: float
) -> EditSpan | None:
    """A flag (no fix) on what follows a checked clause in its sentence, which the checker does
    not find supported; None when nothing is left there or an edit already covers some of it."""
    original = result["original"]
    rest = original[clause_end : sentence[1]]
    start = clause_end + len(rest) - len(rest.lstrip(" ,;:"))
    end = clause_end + len(rest.rstrip(" .!?\n"))
    if end <= start or any(e["start"] < end and start < e["end"] for e in result["edits"]):
        return None
    flag: EditSpan = {"type": "unverifiable", "start": start, "end": end,
                      "wrong": original[start:end], "right": original[start:end],
                      "flagged": True, "checker_score": round(score, 4)}  # fmt: skip
    return _cited(flag, original[slice(*sentence)], result.get("evidence", []))


def verify_fixes(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    threshold: float,
) -> list[EditResult]:  # fmt: skip
    """Each gated result with its fixes checked: every sentence whose edits replace words (not
    flags, not deletions) is scored again as those edits leave it, decontextualized as the gate
    scores sentences. Where the checker still finds it unsupported (score at or below
    ``threshold``), the sentence's part up to the end of the last fix's clause (the next comma,
    semicolon or colon; :func:`_fixed_clause`) is scored as well: when that part is supported,
    the fixes stay, flags inside that part are dropped, and the rest of the sentence is flagged
    (the error is there, after the fixed clause: "born on July 27, 1942, | in Pensacola");
    otherwise the replacements become flags (no fix offered, the text unchanged there, the flag
    citing the closest evidence sentence). Warnings count both."""
    sentences = _Questions()  # key: (result, sentence)
    for i, result in enumerate(results):
        bodies = [p["text"] for p in result.get("evidence", [])]
        original = result["original"]
        spans = sentence_spans(original)
        where = [_sentence_of(spans, e["start"], e["end"]) for e in result.get("edits", [])]
        fixed_in = sorted({n for e, n in zip(result.get("edits", []), where, strict=True)
                           if n is not None and _is_fix(e)})  # fmt: skip
        for n in fixed_in if bodies else []:
            a, b = spans[n]
            inside = [{**e, "start": e["start"] - a, "end": e["end"] - a}
                      for e, m in zip(result["edits"], where, strict=True) if m == n]  # fmt: skip
            fixed = apply_edits(original[a:b], inside)
            sentences.ask((i, n), _decontextualized(fixed, topics[i], original), bodies)
    if not sentences.keys:
        return list(results)
    failed = [(ask, p) for ask, p in sentences.answers(checker) if p <= threshold]
    clauses = _Questions()  # key: (result, sentence, the sentence's score, clause end)
    for (i, n), p in failed:
        result = results[i]
        span = sentence_spans(result["original"])[n]
        mine = [e for e in result["edits"] if _sentence_of([span], e["start"], e["end"]) == 0]
        found = _fixed_clause(result["original"], span, mine)
        if found is not None:
            clauses.ask((i, n, p, found[1]),
                        _decontextualized(found[0], topics[i], result["original"]),
                        [e["text"] for e in result["evidence"]])  # fmt: skip
    rest_flags: dict[int, list[EditSpan]] = {}
    held: set[tuple[int, int]] = set()
    supported_clauses: dict[int, list[tuple[int, int]]] = {}
    for (i, n, p, end), q in clauses.answers(checker):
        if q > threshold:
            held.add((i, n))
            span = sentence_spans(results[i]["original"])[n]
            supported_clauses.setdefault(i, []).append((span[0], end))
            flag = _rest_flag(results[i], span, end, p)
            if flag is not None:
                rest_flags.setdefault(i, []).append(flag)
    unfixed: dict[int, set[int]] = {}
    for (i, n), _ in failed:
        if (i, n) not in held:
            unfixed.setdefault(i, set()).add(n)
    out = list(results)
    for i in set(unfixed) | set(supported_clauses):
        result = results[i]
        spans = sentence_spans(result["original"])
        edits: list[EditSpan] = []
        for e in result["edits"]:
            m = _sentence_of(spans, e["start"], e["end"])
            if e.get("flagged") and any(a <= e["start"] and e["end"] <= b
                                        for a, b in supported_clauses.get(i, [])):  # fmt: skip
                continue  # a flag in a clause the checker found supported once fixed
            if m is not None and m in unfixed.get(i, set()) and _is_fix(e):
                e = _cited(_as_flag(e), result["original"][slice(*spans[m])], result["evidence"])
            edits.append(e)
        edits = sorted([*edits, *rest_flags.get(i, [])], key=lambda e: (e["start"], e["end"]))
        notes = []
        taken = sum(_is_fix(e) for e in result["edits"]) - sum(_is_fix(e) for e in edits)
        if taken:
            notes.append(f"{taken} fix(es) taken back: the checker finds the sentence "
                         f"unsupported with the fix as well; flagged with no fix")  # fmt: skip
        if rest_flags.get(i):
            notes.append(f"{len(rest_flags[i])} sentence end(s) after a checked fix flagged: "
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
    threshold: float,
) -> list[EditResult]:  # fmt: skip
    """Each gated result with its sentence deletions checked: a deletion of at least
    :data:`_MIN_CHECKED_DELETION` words that starts its sentence is kept only when none of the
    facts it states (:func:`_facts_of`: "Some of his film credits include A, B and C" states
    three) is supported. Otherwise the deletion becomes a flag (no fix, the text kept): a
    sentence that also says something the evidence supports is reported, not deleted. A warning
    counts them."""
    facts = _Questions()  # key: (result, edit)
    for i, result in enumerate(results):
        bodies = [p["text"] for p in result.get("evidence", [])]
        original = result["original"]
        starts = {a for a, _ in sentence_spans(original)}
        for k, e in enumerate(result.get("edits", []) if bodies else []):
            if e.get("flagged") or e["right"].strip() or e["start"] not in starts:
                continue
            if len(_WORD.findall(e["wrong"])) < _MIN_CHECKED_DELETION:
                continue
            for fact in _facts_of(e["wrong"], _subject(topics[i], original)):
                facts.ask((i, k), fact, bodies)
    kept_back: dict[int, set[int]] = {}
    for (i, k), p in facts.answers(checker):
        if p > threshold:
            kept_back.setdefault(i, set()).add(k)
    out = list(results)
    for i, ks in kept_back.items():
        result = results[i]
        edits = [_cited(_as_flag(e), e["wrong"], result["evidence"]) if k in ks else e
                 for k, e in enumerate(result["edits"])]  # fmt: skip
        note = (f"{len(ks)} deletion(s) taken back: the checker finds a fact of the sentence "
                f"supported; flagged with no fix")  # fmt: skip
        out[i] = {**result, "edits": edits, "corrected": apply_edits(result["original"], edits),
                  "warnings": [*result.get("warnings", []), note]}  # fmt: skip
    return out


def _subject(topic: str | None, text: str) -> str:
    """Whom ``text`` is about: the request's ``topic``, else the name ``text`` opens with."""
    return topic or leading_name(text)


def _decontextualized(sentence: str, topic: str | None, text: str) -> str:
    """``sentence`` of ``text`` as the gate scores it: a leading pronoun and "his"/"her" resolved
    to its subject (:func:`_subject`)."""
    return resolve_pronouns(sentence, _subject(topic, text))


def sentence_scores(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None]
) -> list[tuple[list[tuple[int, int]], list[float]] | None]:
    """For each result, its sentences' spans and the checker's P(supported) of each,
    decontextualized ("She won ..." scored as "Marie Curie won ...", the topic or else the name
    the text opens with), against the result's evidence; None for a result without evidence."""
    questions = _Questions()  # key: (result, sentence span)
    for i, result in enumerate(results):
        passages = [p["text"] for p in result.get("evidence", [])]
        if not passages:
            continue
        for span in sentence_spans(result["original"]):
            sentence = result["original"][span[0] : span[1]]
            questions.ask((i, span), _decontextualized(sentence, topics[i], result["original"]),
                          passages)  # fmt: skip
    per_text: dict[int, tuple[list[tuple[int, int]], list[float]]] = {}
    for (i, span), p in questions.answers(checker):
        spans, ps = per_text.setdefault(i, ([], []))
        spans.append(span)
        ps.append(p)
    return [per_text.get(i) for i in range(len(results))]
