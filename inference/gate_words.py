"""Where the gate flags (:mod:`favakit.inference.gate`): at the words of a sentence the evidence
never uses (:func:`unsupported_words`) and the words the checker's token head marks
(:func:`marked_words`), not over whole sentences. The gate's rule places its own flags here
(:func:`narrowed_flag`); its last step (:func:`flags_at_words`) places the flags the editor's
fixes and deletions became. Below :mod:`~favakit.inference.gate_edits`, which imports it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from favakit.citations import CITATION_MARK, outside_marks
from favakit.contracts import EditResult, EditSpan
from favakit.inference.number_words import ORDINAL_UNITS, UNITS
from favakit.tags import apply_edits
from favakit.text import STOPWORDS, list_marker_end, plain_words, sentence_spans, states_nothing

__all__ = [
    "CLAUSE", "FLAG_SPANS", "TOKEN_THRESHOLD", "WORD", "WordMarker", "changed_words",
    "checked_flags", "doubles_a_word", "edits_by_sentence", "flag_clauses_at_words",
    "flag_sentences_at_words", "flag_words_beside", "flagged_sentences", "flags_at_words",
    "function_words_only", "marked_words", "marks_in_flagged_sentences", "narrowed_flag",
    "only_flagged", "repeats_a_member", "sentence_of", "sentences_replaced", "splits_a_word",
    "unsupported_flag", "unsupported_words", "whole_words", "without_layout",
]  # fmt: skip


#: What an unsupported sentence the editor left alone is flagged at: ``words`` (the runs of
#: words the evidence never uses, :func:`unsupported_words`, and those the checker's token head
#: marks, :func:`marked_words`; the whole sentence when there are none) or ``sentences`` (the
#: whole sentence).
FLAG_SPANS = ("words", "sentences")


#: P(unsupported) above which a word the checker's token head marks is flagged too, beside the
#: words the evidence never uses (chosen on the development split's span rows)
TOKEN_THRESHOLD = 0.3


def checked_flags(flags: str) -> str:
    """``flags`` when it is one of :data:`FLAG_SPANS`; else a ValueError that names them."""
    if flags not in FLAG_SPANS:
        raise ValueError(f"flags must be one of {', '.join(FLAG_SPANS)}, not {flags!r}")
    return flags


class WordMarker(Protocol):
    """A judge that can also mark the unsupported words of a text (the encoder
    :class:`~favakit.inference.checker.Checker` with a token head): ``(start, end, P)`` spans."""

    marks_words: bool

    def unsupported_spans(
        self, texts: Sequence[str], evidence: Sequence[Sequence[str]], threshold: float = 0.5
    ) -> list[list[tuple[int, int, float]]]: ...


WORD = re.compile(r"\w+")


# a number with its separators is one word ("9,000", "4:01.32"), as is a possessive
_WORD_FORM = re.compile(r"\d+(?:[.,:]\d+)*(?!\w)|\w+(?:'\w+)?")
# endings taken off before words are compared ("studies", "studied" -> "study"; "moves",
# "moved", "moving" -> "mov"), the first that fits, leaving at least three letters
_ENDINGS = (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("e", ""))
_STEM = 7  # letters a word is compared by, after its ending (chosen on the development split)


# an ordinal is read as its number ("the *fifth* year in a row" uses the evidence's "five
# years"); not "first" or "second", which are as often no count
_CARDINAL_OF = {o: c for o, c in zip(ORDINAL_UNITS[3:], UNITS[3:], strict=True)}


def _form(word: str) -> str:
    """How :func:`unsupported_words` compares a word: lower-cased, an ordinal from "third" on
    as its number, without a possessive "'s" and one of :data:`_ENDINGS`, its first
    :data:`_STEM` letters."""
    word = word.lower().removesuffix("'s")
    word = _CARDINAL_OF.get(word, word)
    for ending, instead in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)] + instead
            break
    return word[:_STEM]


_NEGATIONS = {"not", "no", "never", "nor", "n't", "n\u2019t"}
# beside STOPWORDS: conjunctions, question words, auxiliaries and personal pronouns
_FUNCTION_WORDS = STOPWORDS | frozenset({
    "while", "whereas", "although", "though", "because", "if", "so", "yet", "when", "where",
    "what", "why", "how", "do", "does", "did", "can", "could", "will", "would", "shall",
    "should", "might", "must", "i", "you", "we", "me", "my", "your", "our", "us", "him",
})  # fmt: skip


def function_words_only(words: str) -> bool:
    """Whether ``words`` are function words only (:data:`~favakit.text.STOPWORDS` and
    conjunctions, question words, auxiliaries and pronouns: "in", "while", "When"), negations
    ("not", "never") aside: words that state no fact on their own."""
    found = [w.lower() for w in WORD.findall(words)]
    return all(w in _FUNCTION_WORDS and w not in _NEGATIONS for w in found)


def unsupported_words(
    text: str, sentence: tuple[int, int], passages: Sequence[Mapping[str, Any]]
) -> list[tuple[int, int]]:
    """The character spans of the sentence ``text[a:b]``'s content words (not function words:
    :data:`~favakit.text.STOPWORDS`, conjunctions, question words, auxiliaries and pronouns, so
    that "When was ..." is not flagged at "When"; chosen on the development split's span rows,
    character F1 0.3686 -> 0.3706, with the token head's words 0.4093 -> 0.4142, session 39)
    that no passage uses, compared by :func:`_form`, with
    neighbouring ones joined into one span ("Paris, France"). [] when the evidence uses every
    content word (an error of relation or negation: "not", "before" and "after" are not content
    words), where the whole sentence is the span to flag. A citation mark's number ("[1]") is
    not a word of the sentence."""
    seen = {_form(w) for p in passages for w in _WORD_FORM.findall(str(p.get("text", "")))}
    a, b = sentence
    spans: list[tuple[int, int]] = []
    last = -2  # the index of the last unsupported word
    a = list_marker_end(text, a)  # "2. He died ...": a list's number is not a claim
    marks = [(m.start(), m.end()) for m in CITATION_MARK.finditer(text, a, b)]
    for i, m in enumerate(_WORD_FORM.finditer(text, a, b)):
        if m.group().lower() in _FUNCTION_WORDS or _form(m.group()) in seen:
            continue
        if any(s <= m.start() < e for s, e in marks):
            continue
        if spans and i == last + 1:
            spans[-1] = (spans[-1][0], m.end())
        else:
            spans.append((m.start(), m.end()))
        last = i
    return spans


def _joined(spans: Sequence[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """``spans`` in order, those that overlap or have only spaces and commas between them
    joined into one."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and not text[out[-1][1] : a].strip(" ,"):
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


def narrowed_flag(
    flag: EditSpan, text: str, passages: Sequence[Mapping[str, Any]],
    marked: Sequence[tuple[int, int]] = (), flags: str = "words",
) -> list[EditSpan]:  # fmt: skip
    """``flag`` (a sentence or clause of ``text`` flagged with no fix) as the gate reports it:
    with ``flags="words"``, one flag (the same type, score and citation) per run of its words the
    evidence never uses (:func:`unsupported_words`) or ``marked`` gives; as it is when there are
    none, or with ``flags="sentences"``."""
    if checked_flags(flags) == "sentences":
        return [flag]
    words = _joined([*unsupported_words(text, (flag["start"], flag["end"]), passages),
                     *(s for s in marked if flag["start"] <= s[0] and s[1] <= flag["end"])],
                    text)  # fmt: skip
    words = [part for a, b in words for part in outside_marks(text, a, b)]  # never at a "[1]"
    return [{**flag, "start": a, "end": b, "wrong": text[a:b], "right": text[a:b]}
            for a, b in words] or [flag]  # fmt: skip


def flag_words_beside(result: EditResult) -> EditResult:
    """``result`` with, in each sentence that holds a flag, the runs of its words the evidence
    never uses (:func:`unsupported_words`) flagged too, where no edit is: an editor's fix that
    the evidence does not ground is flagged at the editor's words ("Fleming *won* the Nobel
    Prize in Physics"), and the wrong word is often another ("Physics"). Each added flag has
    the type, score and citation of its sentence's first flag. Chosen on the development
    split's span rows (docs/benchmarks.md, session 32)."""
    text, edits = result["original"], result.get("edits", [])
    passages = result.get("evidence", [])
    if not passages:
        return result
    spans = sentence_spans(text)
    first: dict[int, EditSpan] = {}
    for e in edits:
        n = sentence_of(spans, e["start"], e["end"])
        if e.get("flagged") and n is not None:
            first.setdefault(n, e)
    added: list[EditSpan] = []
    for n, flag in sorted(first.items()):
        for a, b in unsupported_words(text, spans[n], passages):
            if any(e["start"] < b and a < e["end"] for e in [*edits, *added]):
                continue
            added.append({**flag, "start": a, "end": b, "wrong": text[a:b], "right": text[a:b]})
    if not added:
        return result
    return {**result, "edits": sorted([*edits, *added], key=lambda e: (e["start"], e["end"]))}


def marked_words(
    judge: object, results: Sequence[EditResult],
    scored: Sequence[tuple[Sequence[tuple[int, int]], Sequence[float]] | None], threshold: float,
) -> list[dict[int, list[tuple[int, int]]]]:  # fmt: skip
    """For each result, the words its judge's token head marks unsupported (P above
    :data:`TOKEN_THRESHOLD`; :class:`WordMarker`) in each sentence the gate will flag: scored at
    or below ``threshold`` and holding no edit. By sentence index, as spans of the result's
    text; empty for a judge with no token head (the tuned Qwen judge) or a result not scored."""
    asks: list[tuple[int, int, tuple[int, int]]] = []  # (result, sentence, its span)
    for i, (result, s) in enumerate(zip(results, scored, strict=True)):
        if s is None:
            continue
        spans, scores = s
        text = result["original"]
        edited = {sentence_of(spans, e["start"], e["end"]) for e in result.get("edits", [])}
        for n, ((a, b), p) in enumerate(zip(spans, scores, strict=True)):
            if p <= threshold and n not in edited and text[a:b].strip():
                asks.append((i, n, (a, b)))
    return _token_marks(judge, results, asks)


def _token_marks(
    judge: object, results: Sequence[EditResult],
    asks: Sequence[tuple[int, int, tuple[int, int]]],
) -> list[dict[int, list[tuple[int, int]]]]:  # fmt: skip
    """The words ``judge``'s token head marks in each asked sentence ``(result, sentence index,
    its span)``, by result and sentence index, in one batch; empty for a judge with none."""
    out: list[dict[int, list[tuple[int, int]]]] = [{} for _ in results]
    if not asks or not getattr(judge, "marks_words", False):
        return out
    marker: WordMarker = judge  # type: ignore[assignment]
    texts = [results[i]["original"][a:b] for i, _, (a, b) in asks]
    evidence = [[str(e.get("text", "")) for e in results[i].get("evidence", [])]
                for i, _, _ in asks]  # fmt: skip
    found = marker.unsupported_spans(texts, evidence, TOKEN_THRESHOLD)
    for (i, n, (a, _)), words in zip(asks, found, strict=True):
        # a mark of function words alone ("while", "When") states nothing to flag (chosen on
        # the development split's span rows: character F1 0.4088 -> 0.4093, session 39)
        text = results[i]["original"]
        # a mark of part of a number is a mark of the number ("9" of "9,000")
        out[i][n] = [_widened(text, a + s, a + e) for s, e, _ in words
                     if not function_words_only(text[a + s : a + e])]  # fmt: skip
    return out


def _one_word(text: str, i: int) -> bool:
    """Whether ``text[i - 1]`` and ``text[i]`` belong to one word: two letters or digits, or a
    digit beside the point or comma inside a number ("3.8", "1,200")."""
    if not 0 < i < len(text):
        return False
    left, right = text[i - 1], text[i]
    if left.isalnum() and right.isalnum():
        return True
    if left in ".," and right.isdigit():
        return i >= 2 and text[i - 2].isdigit()
    return left.isdigit() and right in ".," and i + 1 < len(text) and text[i + 1].isdigit()


def splits_a_word(edit: EditSpan, text: str) -> bool:
    """Whether ``edit`` starts or ends inside a word or number of ``text`` (an editor's tag
    around "seven" of "seventh", or the "8" of "Python 3.8"): its fix would leave a broken word
    ("sixthth") or a number's fragment changed ("3.9" for "3.10")."""
    return edit["start"] < edit["end"] and (
        _one_word(text, edit["start"]) or _one_word(text, edit["end"])
    )


def doubles_a_word(edit: EditSpan, text: str) -> bool:
    """Whether ``edit``'s fix repeats the word beside it, as the text did not ("the
    *developers'* test machine" -> "test": "the test test machine"; "returned *to* Earth" ->
    "to to")."""
    right, wrong = plain_words(edit["right"]), plain_words(edit["wrong"])
    if edit.get("flagged") or not right:
        return False
    before = plain_words(text[: edit["start"]])[-1:]
    after = plain_words(text[edit["end"] :])[:1]
    doubled_before = bool(before) and before == right[:1] and before != wrong[:1]
    doubled_after = bool(after) and after == right[-1:] and after != wrong[-1:]
    return doubled_before or doubled_after


_LIST_JOIN = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


def repeats_a_member(edit: EditSpan, text: str, sentence: tuple[int, int]) -> bool:
    """Whether ``edit``'s fix puts in place of a member of a list (words between commas, "and"
    and "or") a member the list already has, as the text did not ("sold at Homestore,
    ValueMart and *Argos*" -> "ValueMart": "ValueMart and ValueMart")."""
    if edit.get("flagged") or not plain_words(edit["right"]):
        return False
    a, b = sentence
    fixed = text[a : edit["start"]] + edit["right"] + text[edit["end"] : b]
    at = edit["start"] - a
    members, start = [], 0
    for m in [*_LIST_JOIN.finditer(fixed), None]:
        end = m.start() if m else len(fixed.rstrip(" .!?;:\n"))
        members.append((start, end))
        start = m.end() if m else end
    mine = next(((s, t) for s, t in members if s <= at < t), None)
    if mine is None or mine != (at, at + len(edit["right"])):
        return False  # the fix is not a member of its own
    right = plain_words(edit["right"])
    if len(members) < 3 or plain_words(edit["wrong"]) == right:
        return False  # no list: "born in Paris and moved to *London*" -> "Paris" may be right
    # the first member holds the words that lead into the list: "sold in red, blue and green"
    return any((plain_words(fixed[s:t])[-len(right):] if k == 0 else plain_words(fixed[s:t]))
               == right for k, (s, t) in enumerate(members) if (s, t) != mine)  # fmt: skip


def whole_words(edit: EditSpan, text: str) -> EditSpan:
    """``edit`` widened to the whole words (and numbers: "3.8") it touches, its wrong text read
    again from ``text``."""
    a, b = _widened(text, edit["start"], edit["end"])
    return {**edit, "start": a, "end": b, "wrong": text[a:b]}


def _widened(text: str, a: int, b: int) -> tuple[int, int]:
    """``text[a:b]`` widened to the whole words and numbers it touches."""
    while _one_word(text, a):
        a -= 1
    while _one_word(text, b):
        b += 1
    return a, b


def unsupported_flag(text: str, start: int, end: int, score: float) -> EditSpan:
    """A flag (no fix, type ``unverifiable``) over ``text[start:end]``, which the checker scored
    ``score``."""
    return {"type": "unverifiable", "start": start, "end": end, "wrong": text[start:end],
            "right": text[start:end], "flagged": True, "checker_score": round(score, 4)}  # fmt: skip


def edits_by_sentence(
    edits: Sequence[EditSpan], spans: Sequence[tuple[int, int]]
) -> dict[int, list[EditSpan]]:
    """The sentences (by index in ``spans``) that hold edits of ``edits``, with those edits (an
    edit across two sentences in the first: :func:`sentence_of`)."""
    held: dict[int, list[EditSpan]] = {}
    for e in edits:
        n = sentence_of(spans, e["start"], e["end"])
        if n is not None:
            held.setdefault(n, []).append(e)
    return held


def sentences_replaced(
    result: EditResult, spans: Sequence[tuple[int, int]],
    replacements: Mapping[int, Sequence[EditSpan]], note: str,
) -> EditResult:  # fmt: skip
    """``result`` with the edits of each sentence that ``replacements`` names (by index in
    ``spans``, :func:`sentence_of`) replaced by the edits it gives, the text made again, and
    ``note`` added to its warnings: how the gate's later checks put their fix in a sentence's
    place."""
    kept = [
        e for e in result["edits"] if sentence_of(spans, e["start"], e["end"]) not in replacements
    ]
    edits = sorted([*kept, *(e for es in replacements.values() for e in es)],
                   key=lambda e: (e["start"], e["end"]))  # fmt: skip
    return {**result, "edits": edits, "corrected": apply_edits(result["original"], edits),
            "warnings": [*result.get("warnings", []), note]}  # fmt: skip


def only_flagged(
    edits: Sequence[EditSpan], spans: Sequence[tuple[int, int]]
) -> dict[int, list[EditSpan]]:
    """The sentences (by index in ``spans``) whose every edit of ``edits`` is a flag, with those
    flags."""
    held = edits_by_sentence(edits, spans)
    return {n: es for n, es in held.items() if all(e.get("flagged") for e in es)}


def flagged_sentences(result: EditResult) -> dict[int, list[EditSpan]]:
    """The sentences of ``result``'s text (by index) whose every edit is a flag, with those
    flags (:func:`only_flagged`); {} for a result without evidence."""
    if not result.get("evidence"):
        return {}
    return only_flagged(result.get("edits", []), sentence_spans(result["original"]))


def marks_in_flagged_sentences(
    judge: object, results: Sequence[EditResult],
    known: Sequence[Mapping[int, Sequence[tuple[int, int]]]],
) -> list[dict[int, Sequence[tuple[int, int]]]]:  # fmt: skip
    """``known`` (:func:`marked_words`, by result and sentence index) with the words the token
    head marks in every other sentence that holds only flags (:func:`flagged_sentences`): those
    the editor's fixes and deletions became, which :func:`flag_sentences_at_words` flags
    again."""
    spans = [sentence_spans(r["original"]) for r in results]
    asks = [(i, n, spans[i][n]) for i, r in enumerate(results)
            for n in flagged_sentences(r) if n not in known[i]]  # fmt: skip
    more = _token_marks(judge, results, asks)
    return [{**k, **m} for k, m in zip(known, more, strict=True)]


def flag_sentences_at_words(
    result: EditResult, marked: Mapping[int, Sequence[tuple[int, int]]] | None = None
) -> EditResult:
    """``result`` with each sentence whose every edit is a flag (:func:`flagged_sentences`: a
    fix or deletion the gate or its checks took back) flagged as the gate flags an unsupported
    sentence the editor left alone: at the words the evidence never uses and those ``marked``
    gives for the sentence's index (:func:`narrowed_flag`), each flag with the type, score and
    citation of the sentence's first. The editor's flags stay where neither marks any word. A
    taken-back fix says the sentence is wrong, not where (chosen on the development split's
    span rows: docs/benchmarks.md, session 34)."""
    flagged = flagged_sentences(result)
    if not flagged:
        return result
    text, passages = result["original"], result.get("evidence", [])
    spans = sentence_spans(text)
    out = [e for e in result.get("edits", [])
           if sentence_of(spans, e["start"], e["end"]) not in flagged]  # fmt: skip
    for n, flags in flagged.items():
        a, b = spans[n]
        whole: EditSpan = {**flags[0], "start": a, "end": b, "wrong": text[a:b], "right": text[a:b]}
        at = narrowed_flag(whole, text, passages, (marked or {}).get(n, []))
        out += flags if at == [whole] else at
    return {**result, "edits": sorted(out, key=lambda e: (e["start"], e["end"]))}


CLAUSE = 5  # words: an edit this long rewrites a clause, not a name or a word


def flag_clauses_at_words(result: EditResult) -> EditResult:
    """``result`` with each flag of :data:`CLAUSE` words or more narrowed to the runs of its
    words the evidence never uses (:func:`narrowed_flag`; kept whole when there are none), as
    the gate flags an unsupported sentence the editor left alone: a fix or deletion taken back
    over a whole sentence ("The document is a transcript of a 15-minute self-guided meditation
    aid ...") is flagged where the evidence does not back it."""
    passages = result.get("evidence", [])
    if not passages:
        return result
    text = result["original"]
    out: list[EditSpan] = []
    for e in result.get("edits", []):
        long = e.get("flagged") and len(WORD.findall(e["wrong"])) >= CLAUSE
        out += narrowed_flag(e, text, passages) if long else [e]
    return {**result, "edits": sorted(out, key=lambda e: (e["start"], e["end"]))}


def flags_at_words(
    result: EditResult, marked: Mapping[int, Sequence[tuple[int, int]]] | None = None
) -> EditResult:
    """The gate's last step with ``flags="words"``: each sentence holding only flags flagged
    again at its words (:func:`flag_sentences_at_words`, with the token head's ``marked`` words
    by sentence index: :func:`marks_in_flagged_sentences`), long flags narrowed to their words
    (:func:`flag_clauses_at_words`), then each flagged sentence's words the evidence never uses
    flagged too (:func:`flag_words_beside`). A result without evidence comes back as it is."""
    return flag_words_beside(flag_clauses_at_words(flag_sentences_at_words(result, marked)))


_FLAG_EDGE = " \t\n,;:!?"


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _layout_end(text: str, at: int) -> int:
    """Where the list marker of the line holding ``text[at]`` ends (its start when it has
    none: :func:`~favakit.text.list_marker_end`)."""
    return list_marker_end(text, _line_start(text, at))


def _kept_to_words(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without a list marker it opens with, or spaces and punctuation at its
    ends ("1737." -> "1737"; "U.S." keeps its last period, as an abbreviation's)."""
    start = max(start, _layout_end(text, start))
    while start < end and text[start] in _FLAG_EDGE + ".":
        start += 1
    while start < end and text[end - 1] in _FLAG_EDGE:
        end -= 1
    if end - start > 1 and text[end - 1] == "." and "." not in text[start : end - 1].split()[-1]:
        end -= 1
    return start, end


def _line_at(text: str, at: int) -> str:
    end = text.find("\n", at)
    return text[_line_start(text, at) : end if end >= 0 else len(text)]


def without_layout(result: EditResult) -> EditResult:
    """``result`` without edits of layout: an edit inside a list item's marker ("2." of a
    numbered answer) or on a line that states nothing (a Markdown heading, "## Career", or a
    Q&A's question, :func:`~favakit.text.states_nothing`) is dropped, and each flag (no fix
    offered) is kept to its words (:func:`_kept_to_words`: "3. He" -> "He", "1737." ->
    "1737"); a flag of nothing but them is dropped. A swap (an ``entity`` or ``relation`` fix) is
    kept to the words it changes (:func:`changed_words`). A flag inside a fix or a deletion
    (a sentence deleted from the space before it, and flagged at its words for an edit the
    editor appended after it) is dropped: edits never overlap. An edit whose correction is its
    wrong text is a flag. The gate's last step."""
    text = result["original"]
    out: list[EditSpan] = []
    for e in result.get("edits", []):
        if e["end"] <= _layout_end(text, e["start"]) or states_nothing(_line_at(text, e["start"])):
            continue  # wholly inside "1. " or "- ", or a heading or question
        if not e.get("flagged") and e["right"] == e["wrong"]:
            e = {**e, "flagged": True}  # a correction equal to the wrong text: no fix offered
        if not e.get("flagged"):
            e = changed_words(e)
        else:
            start, end = _kept_to_words(text, e["start"], e["end"])
            if start >= end:
                continue
            e = {**e, "start": start, "end": end, "wrong": text[start:end],
                 "right": text[start:end]}  # fmt: skip
        out.append(e)
    changes = [e for e in out if not e.get("flagged")]
    out = [e for e in out if not e.get("flagged") or not any(
        c["start"] < e["end"] and e["start"] < c["end"] for c in changes)]  # fmt: skip
    if out == result.get("edits", []):
        return result
    return {**result, "edits": out, "corrected": apply_edits(text, out)}


_TOKEN = re.compile(r"\S+")


def changed_words(edit: EditSpan) -> EditSpan:
    """``edit``, a swap (an ``entity`` or ``relation`` fix), without the words its wrong text and
    its fix share at either end (one word at least left to each): the editor's "Nitrogen is
    released as a by-product." -> "Oxygen is released as a by-product." is the fix "Nitrogen"
    -> "Oxygen", and "born in 1979" -> "born in 1879" is "1979" -> "1879", so that the span
    shown and measured is the wrong words, as FAVA marks a swap. A ``contradictory`` fix keeps
    its whole statement (FAVA marks the sentence that a negation turns), and a deletion, an
    insertion or a flag comes back as it is."""
    wrong, right = edit["wrong"], edit["right"]
    mine, theirs = list(_TOKEN.finditer(wrong)), list(_TOKEN.finditer(right))
    most = min(len(mine), len(theirs)) - 1  # words the two may share, ends together
    if most < 1 or edit.get("flagged") or edit["type"] not in ("entity", "relation"):
        return edit
    before = 0
    while before < most and mine[before].group() == theirs[before].group():
        before += 1
    after = 0
    while before + after < most and mine[-1 - after].group() == theirs[-1 - after].group():
        after += 1
    if not before and not after:
        return edit
    a, b = mine[before].start(), mine[-1 - after].end()
    c, d = theirs[before].start(), theirs[-1 - after].end()
    start = edit["start"] + a
    return {**edit, "start": start, "end": start + b - a, "wrong": wrong[a:b], "right": right[c:d]}


def sentence_of(spans: Sequence[tuple[int, int]], start: int, end: int) -> int | None:
    """The index of the sentence that holds ``[start, end)`` (an edit across two sentences
    belongs to the first); None outside every sentence."""
    for n, (a, b) in enumerate(spans):
        if a <= start < b or (start == end and a <= start <= b):
            return n
    return None


def is_fix(edit: EditSpan) -> bool:
    """Whether ``edit`` replaces words (not a flag, not a deletion)."""
    return (
        not edit.get("flagged") and bool(edit["right"].strip()) and edit["right"] != edit["wrong"]
    )


def as_flag(edit: EditSpan) -> EditSpan:
    """``edit`` with its fix taken back: the span flagged, the text left as it is."""
    flag: EditSpan = {**edit, "right": edit["wrong"], "flagged": True}
    flag.pop("cites", None)
    return flag
