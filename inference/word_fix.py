"""A word of a flagged sentence that the evidence says otherwise in the same words around it:
the evidence's word is the candidate fix.

"After a train accident at the age of 18 she lived with lasting pain." against "A bus accident
at the age of 18 left her with lasting pain." is flagged: the sentence and the evidence line up
word for word around "train", and the evidence has "bus" in its place. Names, years and counts
have rules of their own beneath the checker (:mod:`~favakit.inference.name_check`,
:mod:`~favakit.inference.year_check`); this one takes any word, so it asks more before it
offers a fix (:func:`aligned_replacements`):

- the stretch is flagged, in a sentence whose every edit is a flag, and an evidence sentence
  lines up with the sentence so that the stretch, one to three words, differs from as many
  words of the same shape (words, capitalised or not, with digits or not, each as the one it
  replaces), with a content word on each side, and the evidence never uses the sentence's
  words there (a word it uses may be right in another way);
- the tokens next to the stretch are the same: one at least on each side, four in all ("a ...
  accident at the"), or three before it where the sentence ends after it ("Saturn is the
  seventh."), so the stretch fills the same slot in the same statement; a number needs two
  before it and the word it counts after it, in the evidence sentence the sentence says
  ("due in less than *6* hours" against "less than 12 hours before your next dose");
- every evidence sentence that lines up so gives the same words;
- a number is taken only from the evidence sentence the sentence says
  (:func:`~favakit.inference.year_check.matching_sentence`): "The Petrel ... carries 120
  passengers and *12* cars." lines up around "passengers and ... cars" with "The Tern ...
  carries 180 passengers and 22 cars.", another ship's count;

and the checker must then find the sentence with the evidence's words supported
(:func:`word_fixes`), as a negation's fix is checked. The fix replaces the flags over it, and
cites the evidence sentence it came from; the sentence's other flags stay (the checker, which
reads a sentence as a whole, often finds a sentence supported once one word is right when
another part of it is still wrong). It is the gate's last look at a text, after the flags are
put at words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

from favakit.contracts import Citation, EditResult, EditSpan
from favakit.inference.evidence_reading import shared_words
from favakit.inference.gate_edits import Questions, SentenceScorer
from favakit.inference.gate_subject import decontextualized
from favakit.inference.gate_words import edits_by_sentence, sentences_replaced
from favakit.inference.year_check import clause_spans, matching_sentence, passage_sentences
from favakit.tags import apply_edits
from favakit.text import STOPWORDS, keep_case, sentence_spans

__all__ = ["aligned_replacements", "word_fixes"]

_WORD = re.compile(r"\w+(?:[-'\u2019.]\w+)*|[^\w\s]")
_MOST_WORDS = 3
_MOST_ASKED = 3  # candidate fixes a sentence the checker is asked about
_AROUND = 4  # same tokens next to the stretch, both sides together
#: a flag's type a fix of the words under it keeps (the editor's, where its fix was taken back:
#: "relation" for a verb); else the fix is typed ``entity``
_SWAP_TYPES = ("entity", "relation", "contradictory")


def _content(words: Sequence[str]) -> bool:
    return any(w[0].isalnum() and w.lower() not in STOPWORDS for w in words)


def _shape(token: str) -> tuple[bool, bool, bool]:
    """What a word in a slot must share with the word it replaces: a word (not punctuation),
    capitalised or not, with digits or not."""
    return token[0].isalnum(), token[0].isupper(), any(c.isdigit() for c in token)


def _same_around(mine: list[str], theirs: list[str], a1: int, a2: int, b1: int, b2: int) -> bool:
    """Whether the tokens next to the stretch are the same in both: at least one on each side
    and :data:`_AROUND` in all, counting up to three a side; or three before it, where the
    text's sentence ends after it."""
    before = 0
    while before < 3 and before < min(a1, b1) and mine[a1 - before - 1] == theirs[b1 - before - 1]:
        before += 1
    after = 0
    while (after < 3 and a2 + after < len(mine) and b2 + after < len(theirs)
           and mine[a2 + after] == theirs[b2 + after]):  # fmt: skip
        after += 1
    if before >= 3 and a2 == len(mine):
        return True  # the statement ends there: "..., whereas Saturn is the seventh."
    return before >= 1 and after >= 1 and before + after >= _AROUND


def _counts_in_place(mine: list[str], theirs: list[str]) -> list[tuple[int, int]]:
    """``(i, j)`` for each number ``mine[i]`` with the same two tokens before it and the same
    word after it (what it counts) as another number ``theirs[j]``: a count in the same slot of
    the sentence the text says, however the rest of it is ordered ("unless your next dose is due
    in less than *6* hours" against "unless it is less than 12 hours before your next dose")."""
    found = []
    for i in range(2, len(mine) - 1):
        if not any(c.isdigit() for c in mine[i]) or not mine[i + 1].isalpha():
            continue
        found += [(i, j) for j in range(2, len(theirs) - 1)
                  if any(c.isdigit() for c in theirs[j]) and theirs[j] != mine[i]
                  and theirs[j - 2 : j] == mine[i - 2 : i] and theirs[j + 1] == mine[i + 1]]  # fmt: skip
    return found


def aligned_replacements(sentence: str, evidence: Sequence[str]) -> list[tuple[int, int, str, str]]:
    """``(start, end, right, evidence sentence)`` for each stretch of ``sentence`` (character
    offsets) that the evidence fills otherwise in the same words around it (module doc), with
    the evidence's words, where every evidence sentence that lines up so gives the same words;
    in the order of the sentence. The whole sentence is lined up with each evidence sentence,
    and so is each statement of a sentence joining several
    (:func:`~favakit.inference.year_check.clause_spans`)."""
    found: dict[tuple[int, int], dict[str, str]] = {}
    given = set().union(*(shared_words(e) for e in evidence)) if evidence else set()
    sentences = passage_sentences(evidence)  # split once: the match and every line-up read them
    match = matching_sentence(sentence, sentences)
    said = match[1] if match else None  # the evidence sentence the sentence says
    parts = clause_spans(sentence)  # each statement too: the evidence may state them apart
    for s, t in [(0, len(sentence)), *(parts if len(parts) > 1 else [])]:
        at = list(_WORD.finditer(sentence, s, t))
        while at and not at[-1].group()[0].isalnum():
            at.pop()  # the closing stop: "the seventh." lines up with "the sixth planet ..."
        mine = [m.group().lower() for m in at]
        for _, other in sentences:
            there = list(_WORD.finditer(other))
            theirs = [m.group().lower() for m in there]
            if len(set(mine) & set(theirs)) < _AROUND - 1:
                continue  # too few words in common to line up around a slot
            matcher = SequenceMatcher(None, mine, theirs, autojunk=False)
            for op, a1, a2, b1, b2 in matcher.get_opcodes():
                if op == "replace" and a2 == len(mine):  # the statement ends: as many words
                    b2 = min(b2, b1 + a2 - a1)
                if op != "replace" or a2 - a1 != b2 - b1 or a2 - a1 > _MOST_WORDS:
                    continue  # as many words in place of as many, three at most
                if not _content(mine[a1:a2]) or not _content(theirs[b1:b2]):
                    continue
                wrong = [m.group() for m in at[a1:a2]]
                if [_shape(w) for w in wrong] != [_shape(t.group()) for t in there[b1:b2]]:
                    continue  # "at Cambridge University" is no slot for ", among them"
                if shared_words(" ".join(mine[a1:a2])) & given:
                    continue  # a word the evidence uses may be right in another way
                if other != said and any(c.isdigit() for w in wrong for c in w):
                    continue  # a number from another statement's sentence (module doc)
                if _same_around(mine, theirs, a1, a2, b1, b2):
                    start, end = at[a1].start(), at[a2 - 1].end()
                    right = other[there[b1].start() : there[b2 - 1].end()]
                    found.setdefault((start, end), {}).setdefault(
                        keep_case(sentence[start:end], right), other
                    )
            if other != said:
                continue
            for a1, b1 in _counts_in_place(mine, theirs):  # the sentence said in other order
                if not shared_words(mine[a1]) & given:
                    start, end = at[a1].start(), at[a1].end()
                    found.setdefault((start, end), {}).setdefault(there[b1].group(), other)
    return [(start, end, *next(iter(fills.items())))
            for (start, end), fills in sorted(found.items()) if len(fills) == 1]  # fmt: skip


def word_fixes(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    threshold: float,
) -> list[EditResult]:  # fmt: skip
    """Each gated result with a fix for each sentence that holds a flagged stretch the evidence
    fills otherwise in the same words around it (:func:`aligned_replacements`, up to
    :data:`_MOST_ASKED` a sentence, none over the sentence's fixes) where the checker finds the
    sentence, with its fixes made (where they alone do not make it supported) and the
    evidence's words in the stretch, supported (its score,
    decontextualized as the gate scores sentences, above ``threshold``; the best scored where
    several are): the flags over the stretch replaced by that fix (typed as the first of those
    flags is where that is a swap's type, :data:`_SWAP_TYPES`, else ``entity``; citing the
    evidence sentence), the sentence's other flags dropped (the checker finds the sentence
    supported once fixed: "Return shipping is free for Plus members; *everyone else* pays a flat
    fee of £5.95." loses its flag at "everyone else", the evidence's "other customers", when
    "5.95" -> "4.95" makes it supported). Where the whole sentence so fixed is not supported, the
    sentence up to the end of the fix's statement (:func:`_clause_end`) may be: the fix is made
    and the flags after that statement stay ("changed the *metal* used in the handle's fixing,
    and the helpline is open *every day*": "metal" -> "plastic", "every day" still flagged). A
    warning counts them."""
    questions = Questions()  # key: (result, sentence, the fix, where the part scored ends)
    for i, result in enumerate(results):
        passages: Sequence[Mapping[str, Any]] = result.get("evidence", [])
        original = result["original"]
        spans = sentence_spans(original)
        texts = [str(p.get("text", "")) for p in passages]
        for n, (flags, fixes) in _with_flags(result, spans).items():
            a, b = spans[n]
            candidates = [c for c in aligned_replacements(original[a:b], texts)
                          if _over(flags, a + c[0], a + c[1])
                          and not _over(fixes, a + c[0], a + c[1])]  # fmt: skip
            if candidates and fixes:  # is the sentence supported with its own fixes alone?
                questions.ask((i, n, None, b), decontextualized(
                    _made(original, a, b, fixes), topics[i], original, a), passages)  # fmt: skip
            for start, end, right, source in candidates[:_MOST_ASKED]:
                fix: EditSpan = {"type": "entity", "start": a + start, "end": a + end,
                                 "wrong": original[a + start : a + end], "right": right,
                                 "cites": _citation(source, passages)}  # fmt: skip
                made = [*fixes, fix]
                questions.ask((i, n, fix, b), decontextualized(
                    _made(original, a, b, made), topics[i], original, a), passages)  # fmt: skip
                cut = _clause_end(original[a:b], start, end)
                if cut is not None:  # the fix's statement, where others follow it
                    part = _made(original, a, a + cut, made)
                    questions.ask((i, n, fix, a + cut),
                                  decontextualized(part, topics[i], original, a), passages)  # fmt: skip
    best: dict[tuple[int, int], tuple[float, EditSpan, int]] = {}
    answers = questions.answers(checker)
    # a sentence its fixes already make supported needs no further fix (its flags are a
    # paraphrase's words: "*everyone else* pays a flat fee of £4.95" is not made "other customers")
    done = {(i, n) for (i, n, fix, _), p in answers if fix is None and p > threshold}
    for (i, n, fix, upto), p in answers:
        if fix is None or p <= threshold or (i, n) in done:
            continue
        held = best.get((i, n))
        # the whole sentence supported before its first statement alone, then the higher score
        if held is None or (upto, p) > (held[2], held[0]):
            best[(i, n)] = (p, fix, upto)
    out = list(results)
    for i in sorted({i for i, _ in best}):
        spans = sentence_spans(out[i]["original"])
        sentences = _with_flags(out[i], spans)
        replacements: dict[int, list[EditSpan]] = {}
        for (j, n), (_, fix, upto) in best.items():
            if j == i:
                flags, fixes = sentences[n]
                over = _over(flags, fix["start"], fix["end"])
                score = min(f.get("checker_score", 0.0) for f in over)
                typed = next((f["type"] for f in over if f["type"] in _SWAP_TYPES), "entity")
                # the sentence (or the fix's statement) so fixed is supported: its other flags
                # there go, as verify_fixes drops a flag in a sentence its fix makes supported;
                # those after the statement stay, and so do its fixes
                after = [f for f in flags if f["start"] >= upto]
                replacements[n] = [{**fix, "type": typed, "checker_score": score}, *fixes, *after]
        note = (f"{len(replacements)} flagged word(s) fixed from the evidence sentence that says "
                f"otherwise in the same words around them: the checker finds the sentence "
                f"supported so fixed")  # fmt: skip
        out[i] = sentences_replaced(out[i], spans, replacements, note)
    return out


def _with_flags(
    result: EditResult, spans: Sequence[tuple[int, int]]
) -> dict[int, tuple[list[EditSpan], list[EditSpan]]]:
    """The sentences of ``result`` (by index in ``spans``) that hold a flag, each with its flags
    and its other edits (fixes and deletions); {} for a result without evidence."""
    if not result.get("evidence"):
        return {}
    return {n: ([e for e in edits if e.get("flagged")], [e for e in edits if not e.get("flagged")])
            for n, edits in edits_by_sentence(result["edits"], spans).items()
            if any(e.get("flagged") for e in edits)}  # fmt: skip


def _made(original: str, a: int, b: int, edits: Sequence[EditSpan]) -> str:
    """``original[a:b]`` with those of ``edits`` that lie inside it made."""
    inside = [{**e, "start": e["start"] - a, "end": e["end"] - a}
              for e in edits if a <= e["start"] and e["end"] <= b]  # fmt: skip
    return apply_edits(original[a:b], inside)


def _clause_end(sentence: str, start: int, end: int) -> int | None:
    """Where the statement of ``sentence`` holding ``[start, end)`` ends, where another
    statement follows it (:func:`~favakit.inference.year_check.clause_spans`) and the sentence
    up to there holds four words or more; None otherwise."""
    for s, t in clause_spans(sentence)[:-1]:
        if s <= start and end <= t:
            return t if len(_WORD.findall(sentence[:t])) >= _AROUND else None
    return None


def _over(flags: Sequence[EditSpan], start: int, end: int) -> list[EditSpan]:
    """The flags of ``flags`` that overlap ``[start, end)``."""
    return [f for f in flags if f["start"] < end and start < f["end"]]


def _citation(sentence: str, passages: Sequence[Mapping[str, Any]]) -> Citation:
    """The citation of an evidence ``sentence``: the first passage holding it, with its title."""
    for n, passage in enumerate(passages):
        if sentence in str(passage.get("text", "")):
            cites: Citation = {"passage": n, "sentence": sentence}
            if passage.get("title"):
                cites["title"] = str(passage["title"])
            return cites
    return {"sentence": sentence}
