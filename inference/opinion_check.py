"""An opinion stated as a fact: where the gate flagged a sentence and offered no fix (or let it
pass with a hedge), and the sentence voices a judgement the evidence never makes, the judgement
is deleted as ``subjective``.

FAVA deletes subjective content ("an expression or proposition that lacks universal validity"):
no evidence can fix "It is by far the most beautiful sight in the night sky", and flagging its
words one by one ("far", "most beautiful sight", "night sky") tells a reader less than taking
it out. This module finds a judgement by rule (:func:`opinion_words`): a hedge that marks one
("arguably", "widely regarded as", "who ever lived", "of all time") or an evaluative word
("breathtaking", "beautiful", "overrated"; capitalised in mid-sentence it is part of a name, "A
Beautiful Mind", and does not count). It acts where the gate has already found the sentence
unsupported and every edit there is a flag
(:func:`~favakit.inference.gate_words.flagged_sentences`), and on a sentence the gate let pass
untouched whose judgement is a hedge ("and is widely regarded as the most important architect
of his generation", which the checker reads as supported: :func:`_judged_sentences`); only when
the evidence never uses some of the judgement's words: a judgement the evidence itself reports
in the same words ("legendary", "of all time") is left flagged. Then, as the negation fix does, the checker decides
(:func:`opinion_deletions`):

* a sentence whose judgement is only evaluative words ("introducing *impressive* objectives")
  is scored without them (:func:`without_opinion`, with the words that intensify them, "very",
  "most", and the article mended: "an impressive result" -> "a result"); where the checker
  finds it supported, only those words are deleted;
* else a sentence whose judgement follows a clause opening ("It was built for the 1889 World's
  Fair *and is without doubt the most romantic landmark in Europe*") is scored without that
  clause (:func:`without_clause`); where the checker finds it supported, the clause is deleted;
* otherwise the whole sentence is deleted. That deletion then goes through the gate's deletion
  check (:func:`~favakit.inference.gate_checks.verify_deletions`), which takes it back as a
  flag when a fact the sentence also states is supported, so "Mozart wrote 600 works,
  including symphonies and operas, which are timeless masterpieces" is not deleted for its
  opinion when the checker supports "Mozart wrote 600 works"."""

from __future__ import annotations

import re
from collections.abc import Sequence

from favakit.contracts import EditResult, EditSpan
from favakit.inference.gate_cite import cited
from favakit.inference.gate_edits import Questions, SentenceScorer
from favakit.inference.gate_subject import decontextualized
from favakit.inference.gate_words import flagged_sentences, sentences_replaced
from favakit.tags import apply_edits
from favakit.text import keep_case, sentence_spans

__all__ = ["opinion_deletions", "opinion_words", "without_clause", "without_opinion"]

#: phrases that mark what follows (or precedes) as a judgement, not a fact
_HEDGES = (
    r"arguably|undoubtedly|unquestionably|indisputably|undeniably|frankly|"
    r"without (?:a |any )?doubt|beyond (?:a |any )?doubt|"
    r"(?:widely|generally|often|universally|commonly) (?:regarded|considered|seen|acknowledged|"
    r"hailed|celebrated)(?: as| to be)?(?= )|considered by many|"
    r"many (?:would )?(?:agree|argue|believe|say)|"
    r"in my (?:opinion|view)|of all time|who (?:has |had )?ever lived|"
    r"ever (?:written|made|built|recorded|composed|painted|produced)"
)
#: words that judge rather than describe (the "peacock" words Wikipedia's style guide avoids)
_EVALUATIVE = (
    r"beautiful|breathtaking|stunning|magnificent|spectacular|gorgeous|awe-inspiring|awesome|"
    r"amazing|astonishing|astounding|incredible|wonderful|marvell?ous|fascinating|captivating|"
    r"enchanting|mesmeri[sz]ing|charming|delightful|lovely|picturesque|majestic|glorious|"
    r"sublime|exquisite|admirable|inspiring|inspirational|impressive|overrated|underrated|"
    r"unparalleled|unrivall?ed|unmatched|unsurpassed|peerless|must-see|masterpieces?|"
    r"legendary|timeless|beloved|boring|dull|ugly"
)
_OPINION = re.compile(rf"\b(?:(?P<hedge>{_HEDGES})|(?P<word>{_EVALUATIVE}))\b", re.I)
#: what intensifies an evaluative word, deleted with it ("by far the most beautiful")
_INTENSIFIER = re.compile(
    r"(?:\b(?:most|more|very|so|truly|really|quite|extremely|particularly|incredibly|"
    r"especially|absolutely|simply|utterly|highly)\s+)+$",
    re.I,
)
_ARTICLE = re.compile(r"\b(?P<article>an?)\s+$", re.I)
_NEXT_WORD = re.compile(r"\s*(?P<word>\w+)")
#: where a clause opens: "..., and is", "... and is", "..., which", "; "
_CLAUSE_OPENING = re.compile(r"(?:,\s*|\s+)(?:and|but|while|which|where|making)\b|[,;:]\s", re.I)
_WORDS = re.compile(r"\w+")
_MIN_HEAD_WORDS = 4  # what is left of a sentence without its judgement's clause
_COORDINATED = re.compile(r"^(?:,\s*|\s+and\b)")  # "beautiful and old", "beautiful, old"


def opinion_words(sentence: str) -> list[tuple[int, int, bool]]:
    """The spans of ``sentence`` that voice a judgement (offsets into it), each with whether it
    is an evaluative word (else a hedge; see the module). A word capitalised after the
    sentence's first word is taken for part of a name and skipped."""
    opening = len(sentence) - len(sentence.lstrip())
    found = []
    for m in _OPINION.finditer(sentence):
        if m.start() > opening and m.group(0)[0].isupper():
            continue  # "A Beautiful Mind", "The Amazing Race": a name, not a judgement
        found.append((m.start(), m.end(), m.group("word") is not None))
    return found


def _word_deletion(sentence: str, start: int, end: int) -> tuple[int, int, str]:
    """The edit that takes the evaluative word ``sentence[start:end]`` out: with the words that
    intensify it before it and a coordination after it ("very beautiful and" of "a very
    beautiful and old city"), and the article before it mended for the word that then follows
    it ("an impressive result" -> "a result"), or the next word capitalised where the sentence
    opens with it ("Beautiful gardens" -> "Gardens"). ``(start, end, replacement)``."""
    before = _INTENSIFIER.search(sentence[:start])
    if before is not None:
        start = before.start()
    after = _COORDINATED.match(sentence[end:])
    if after is not None:
        end += after.end()
    article = _ARTICLE.search(sentence[:start])
    if article is None and sentence[:start].strip():
        return start, end, ""
    if article is None:  # the sentence's first words: the next word takes the capital
        next_word = _NEXT_WORD.match(sentence[end:])
        if next_word is None:
            return start, end, ""
        word = next_word.group("word")
        return start, end + next_word.end(), word[:1].upper() + word[1:]
    following = sentence[end:].lstrip()[:1].lower()
    right = "an" if following in tuple("aeiou") else "a"
    if right == article.group("article").lower():
        return start, end, ""  # "a stunning tower" -> "a tower": the article stands
    return article.start(), end, keep_case(article.group("article"), right)


def without_opinion(sentence: str) -> tuple[list[tuple[int, int, str]], str] | None:
    """The edits that take the evaluative words of ``sentence`` out (:func:`_word_deletion`;
    offsets into it), and the sentence so edited; None when it voices no judgement, one that
    is not only evaluative words (a hedge: the whole sentence is the opinion), or an evaluative
    word no word follows ("The view is stunning."), which is what the sentence says."""
    found = opinion_words(sentence)
    if not found or not all(evaluative for _, _, evaluative in found):
        return None
    cuts = [_word_deletion(sentence, a, b) for a, b, _ in found]
    if any(not _NEXT_WORD.match(sentence[end:]) for _, end, _ in cuts):
        return None  # "it is stunning.": the judgement is what the sentence says
    edits = [{"type": "subjective", "start": a, "end": b, "right": r} for a, b, r in cuts]
    return cuts, apply_edits(sentence, edits)


def _unused_opinion(sentence: str, evidence: str, hedges_only: bool = False) -> bool:
    """Whether ``sentence`` voices a judgement (:func:`opinion_words`; with ``hedges_only``, by a
    hedge, :data:`_HEDGES`, not an evaluative word) in words the evidence (lower-cased, joined)
    never uses: "widely regarded as the greatest band of all time" against "among the
    best-selling music acts of all time" does. Of the sentences of every training row, 12 hold
    such a hedge, every one in a row labelled not supported (docs/benchmarks.md, session 49)."""
    return any(sentence[a:b].lower() not in evidence
               for a, b, evaluative in opinion_words(sentence)
               if not (hedges_only and evaluative))  # fmt: skip


def _opinion_edits(
    original: str, sentence: tuple[int, int], cuts: Sequence[tuple[int, int, str]], score: float
) -> list[EditSpan]:  # fmt: skip
    """The ``subjective`` edits of ``sentence`` (a span of ``original``): ``cuts`` (offsets into
    the sentence, :func:`without_opinion`), or the whole sentence's deletion when there are
    none; each with the sentence's checker ``score``."""
    a, b = sentence
    where = [(a + s, a + e, right) for s, e, right in cuts] or [(a, b, "")]
    return [{"type": "subjective", "start": s, "end": e, "wrong": original[s:e], "right": right,
             "checker_score": score} for s, e, right in where]  # fmt: skip


def without_clause(sentence: str) -> tuple[list[tuple[int, int, str]], str] | None:
    """The edit that takes out the clause of ``sentence`` holding its first judgement, from the
    last clause opening before it to the sentence's end ("It was built for the 1889 World's
    Fair *and is without doubt the most romantic landmark in Europe*."), and the sentence so
    edited; None when no clause opens before the judgement or the part before it is shorter
    than :data:`_MIN_HEAD_WORDS` words."""
    found = opinion_words(sentence)
    if not found:
        return None
    openings = list(_CLAUSE_OPENING.finditer(sentence, 0, found[0][0]))
    if not openings:
        return None
    start = openings[-1].start()
    end = len(sentence.rstrip().rstrip(".!?"))
    head = sentence[:start]
    if len(_WORDS.findall(head)) < _MIN_HEAD_WORDS:
        return None
    return [(start, end, "")], head + sentence[end:]


def _smaller_fixes(sentence: str) -> list[tuple[tuple[tuple[int, int, str], ...], str]]:
    """The deletions smaller than the whole of a sentence voicing a judgement, in the order
    preferred: its evaluative words (:func:`without_opinion`), then its clause
    (:func:`without_clause`); each as ``(cuts, the sentence so edited)``."""
    found = (without_opinion(sentence), without_clause(sentence))
    return [(tuple(cuts), rest) for cuts, rest in (f for f in found if f is not None)]


def _judged_sentences(
    result: EditResult, spans: Sequence[tuple[int, int]], evidence: str
) -> dict[int, list[EditSpan]]:
    """The sentences of ``result`` (by index in ``spans``) whose judgement may be deleted, each
    with its flags: those the gate only flagged (:func:`~favakit.inference.gate_words.
    flagged_sentences`), and those it let pass untouched that voice a judgement by a hedge the
    evidence never uses (:func:`_unused_opinion`), with none: the checker reads "He received the
    Royal Gold Medal in 2021 and is widely regarded as the most important African architect of
    his generation." as supported."""
    judged = flagged_sentences(result)
    if not result.get("evidence"):
        return judged
    edited = {n for n, (a, b) in enumerate(spans)
              for e in result.get("edits", []) if a <= e["start"] < b}  # fmt: skip
    original = result["original"]
    for n, (a, b) in enumerate(spans):
        if (
            n not in edited
            and n not in judged
            and _unused_opinion(original[a:b], evidence, hedges_only=True)
        ):
            judged[n] = []
    return judged


def opinion_deletions(
    checker: SentenceScorer, results: Sequence[EditResult], topics: Sequence[str | None],
    threshold: float,
) -> list[EditResult]:  # fmt: skip
    """Each gated result with every sentence that the gate only flagged, or let pass with a
    hedge (:func:`_judged_sentences`), and that voices a judgement the evidence never makes
    (:func:`_unused_opinion`; no flag reaching across the sentence's bounds) edited as
    ``subjective``, its flags (if any) replaced by the smallest deletion
    that leaves it supported: its evaluative words (:func:`without_opinion`), else the clause
    holding the judgement (:func:`without_clause`), where the checker finds the sentence so
    edited supported (decontextualized as the gate scores sentences, above ``threshold``);
    else the whole sentence. Each edit cites the evidence sentence closest to the sentence. A
    warning counts them. Results without evidence pass as they are."""
    spans_of = [sentence_spans(r["original"]) for r in results]
    candidates: dict[tuple[int, int], float] = {}  # (result, sentence) -> its checker score
    questions = Questions()  # key: (result, sentence, preference, cuts)
    for i, result in enumerate(results):
        original = result["original"]
        spans = spans_of[i]
        evidence = " ".join(str(p.get("text", "")) for p in result.get("evidence", [])).lower()
        for n, flags in _judged_sentences(result, spans, evidence).items():
            a, b = spans[n]
            if any(not a <= f["start"] <= f["end"] <= b for f in flags):
                continue
            if not _unused_opinion(original[a:b], evidence):
                continue
            candidates[(i, n)] = min((f.get("checker_score", 0.0) for f in flags), default=1.0)
            if not flags:  # a sentence the gate let pass: its own score, for its edits
                questions.ask((i, n, -1, ()), decontextualized(original[a:b], topics[i],
                              original, a), result["evidence"])  # fmt: skip
            for k, (cuts, rest) in enumerate(_smaller_fixes(original[a:b])):
                questions.ask((i, n, k, cuts), decontextualized(rest, topics[i], original, a),
                              result["evidence"])  # fmt: skip
    smallest: dict[tuple[int, int], tuple[int, tuple[tuple[int, int, str], ...]]] = {}
    for (i, n, k, cuts), p in questions.answers(checker):
        if k < 0:
            candidates[(i, n)] = p
        elif p > threshold and ((i, n) not in smallest or k < smallest[(i, n)][0]):
            smallest[(i, n)] = (k, cuts)  # the first preferred of those supported
    made: dict[int, dict[int, list[EditSpan]]] = {}
    for (i, n), score in candidates.items():
        result = results[i]
        sentence = spans_of[i][n]
        said = result["original"][slice(*sentence)]
        cuts = smallest.get((i, n), (0, ()))[1]  # none supported: the whole sentence
        edits = _opinion_edits(result["original"], sentence, cuts, score)
        made.setdefault(i, {})[n] = [cited(e, said, result["evidence"], result["original"])
                                     for e in edits]  # fmt: skip
    out = list(results)
    for i, by_sentence in made.items():
        note = (f"{len(by_sentence)} sentence(s) voice a judgement the evidence never makes: "
                f"it is deleted as subjective")  # fmt: skip
        out[i] = sentences_replaced(results[i], spans_of[i], by_sentence, note)
    return out
