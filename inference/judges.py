"""Judges: is this fact supported by these passages?

:class:`Judge` asks a causal LM "True or False?" (FActScore's prompt, or the strict one) and
reads the answer from the first token's log-probabilities where the backend returns them
(:func:`p_supported`, :func:`decide`), else from the text. Evidence longer than the judge is told
to read, or than the model's context, is judged in pieces (:func:`evidence_chunks`) and the fact
is supported when one piece supports it. :class:`EditorJudge` uses an editor instead: a fact it
tags is unsupported; :class:`VerifierJudge` any verifier (the encoder checker, the cascade, the
tuned Qwen judge): a fact is supported when its verdict says so. FActScore (:mod:`favakit.eval.factscore`), the verifiers
(:mod:`favakit.inference.verifiers`) and synthetic claims (:mod:`favakit.synth_data.claims`) all
judge through these.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from favakit.contracts import EditInput, Editor, Verifier
from favakit.errors import UsageError
from favakit.llm import Completion, GenerationParams, LLMClient
from favakit.text import split_sentences

__all__ = [
    "JUDGE_STYLES",
    "Check",
    "EditorJudge",
    "FactJudge",
    "Judge",
    "VerifierJudge",
    "decide",
    "evidence_chunks",
    "evidence_words",
    "factscore_prompt",
    "p_supported",
    "strict_prompt",
]


_YES = ("true", "yes")
_NO = ("false", "no")
_TRUE = re.compile(r"\b(true|supported|yes)\b")
_FALSE = re.compile(r"\b(false|not supported|unsupported|no)\b")


def _true_false(completion: Completion) -> tuple[float | None, float | None]:
    """The best first-token log-probabilities reading "true"/"yes" and "false"/"no"."""
    if not completion.logprobs:
        return None, None
    first = completion.logprobs[0]
    t = max((lp for tok, lp in first.items() if tok.strip().lower() in _YES), default=None)
    f = max((lp for tok, lp in first.items() if tok.strip().lower() in _NO), default=None)
    return t, f


def p_supported(completion: Completion) -> float | None:
    """P(supported) from the first token, renormalized over the two answers: ``exp(t) /
    (exp(t) + exp(f))``; 1.0 or 0.0 when only one answer is among the top tokens; None without
    log-probabilities."""
    t, f = _true_false(completion)
    if t is None and f is None:
        return None
    if t is None or f is None:
        return 1.0 if f is None else 0.0
    return 1.0 / (1.0 + math.exp(f - t))


def decide(completion: Completion) -> tuple[bool, str]:
    """The judge's verdict and how it was read.

    1. ``logprobs``: when the backend returned top log-probabilities for the first generated
       token, compare the best token reading "true" or "yes" with the best reading "false" or
       "no" (case and spaces ignored); used when at least one of them is there.
    2. ``parsed``: else the first of "true"/"supported"/"yes" or "false"/"not supported"/
       "unsupported"/"no" in the answer (as words) decides.
    3. ``default``: an answer with neither counts as not supported.
    """
    t, f = _true_false(completion)
    if t is not None or f is not None:
        return (t is not None and (f is None or t > f)), "logprobs"
    answer = completion.text.lower()
    yes, no = _TRUE.search(answer), _FALSE.search(answer)
    if yes and (not no or yes.start() < no.start()):
        return True, "parsed"
    if no:
        return False, "parsed"
    return False, "default"


@dataclass
class Check:
    topic: str
    fact: str
    passages: list[dict[str, str]]


class FactJudge(Protocol):
    """What FActScore asks of a judge: a verdict per check, and a count of how each was read."""

    how: Counter[str]

    def judge(self, checks: Sequence[Check]) -> list[bool]: ...


def _context(passages: Sequence[Mapping[str, str]]) -> str:
    return "\n\n".join(f"Title: {p['title']}\nText: {p['text']}" for p in passages)


def factscore_prompt(check: Check) -> str:
    """FActScore's judge prompt, the one favakit's trained verifier answers."""
    return (
        f"Answer the question about {check.topic} using only the passages below.\n\n"
        f"{_context(check.passages)}\n\nInput: {check.fact} True or False?\nAnswer:"
    )


def strict_prompt(check: Check) -> str:
    """A prompt for instruct models that spells out what "supported" means: every part of the
    claim stated or directly implied by the passages, no outside knowledge."""
    about = f" The claim is about {check.topic}." if check.topic else ""
    return (
        "Check a claim against the passages below. The claim is True only if the passages "
        "state it or directly imply it, every part of it: names, dates, numbers, places and "
        "roles. If any part of the claim is not in the passages, or the passages say something "
        f"different, the claim is False. Do not use your own knowledge.{about}\n\n"
        f"{_context(check.passages)}\n\nClaim: {check.fact}\nIs the claim True or False?"
    )


# How a Judge asks (``--prompt-style``); both are answered "True" or "False". Measured side by
# side in docs/benchmarks.md, "Verifier experiments".
JUDGE_STYLES: dict[str, Callable[[Check], str]] = {
    "factscore": factscore_prompt,
    "strict": strict_prompt,
}


class Judge:
    """An LLM asked whether the passages support the fact ("True or False?").

    ``style``: the prompt (:data:`JUDGE_STYLES`; default FActScore's). ``chunk_words``: evidence
    longer than that many words is asked about in pieces (:func:`evidence_chunks`) and the fact is
    supported when one piece supports it, scored by the best piece (0 or None: whole);
    ``chunk_above``: evidence of at most that many words stays whole all the same. Evidence too long for the
    model's context is judged in pieces that fit, whatever these say. ``threshold``: with
    log-probabilities the fact is supported when P(supported) is above it (default 0.5: the
    likelier answer)."""

    def __init__(
        self,
        client: LLMClient,
        chat: bool = False,
        top_logprobs: int = 10,
        max_tokens: int = 8,
        chunk_words: int | None = 0,
        threshold: float | None = None,
        style: str = "factscore",
        chunk_above: int = 0,
    ) -> None:
        threshold = 0.5 if threshold is None else threshold
        chunk_words = chunk_words or 0  # None (an option left out): whole
        if style not in JUDGE_STYLES:
            raise UsageError(
                f"--prompt-style must be one of {', '.join(JUDGE_STYLES)}, got {style!r}"
            )
        if chunk_words < 0:
            raise UsageError(f"--chunk-words must be 0 (off) or more, got {chunk_words}")
        if not 0.0 <= threshold < 1.0:
            raise UsageError(f"--threshold must be in [0, 1), got {threshold}")
        self.client = client
        self.chat = chat
        self.top_logprobs = top_logprobs
        self.max_tokens = max_tokens  # the verdict is the first token; more only to parse text
        self.chunk_words = chunk_words
        self.chunk_above = chunk_above  # evidence up to this many words stays whole
        self.threshold = threshold
        self.style = style
        self.how: Counter[str] = Counter()

    prompt = staticmethod(factscore_prompt)  # the trained verifier's (synth claims writes it)

    def judge(self, checks: Sequence[Check]) -> list[bool]:
        return [ok for ok, _ in self.judge_scored(checks)]

    def judge_scored(self, checks: Sequence[Check]) -> list[tuple[bool, float | None]]:
        """Verdicts with P(supported) (:func:`p_supported`; None when the backend gives no
        log-probabilities)."""
        return [(ok, p) for ok, p, _ in self.judge_detailed(checks)]

    def judge_detailed(self, checks: Sequence[Check]) -> list[tuple[bool, float | None, list[str]]]:
        """:meth:`judge_scored` with notes per fact: evidence too long for the model's context
        is judged in pieces that fit (where the backend knows its context and counts tokens),
        the fact supported when one piece supports it, and the note says so."""
        asked, owner = [], []
        notes: list[list[str]] = [[] for _ in checks]
        budget = self._budget()
        for n, c in enumerate(checks):
            whole = evidence_words(c.passages) <= self.chunk_above
            pieces = [c.passages] if whole else evidence_chunks(c.passages, self.chunk_words)
            fitted = [
                f for piece in pieces for f in self._fit(Check(c.topic, c.fact, piece), budget)
            ]
            if len(fitted) > len(pieces):
                self.how["fitted to context"] += 1
                notes[n].append(
                    f"evidence longer than the judge's context ({(budget or 0) + self.max_tokens}"
                    f" tokens): judged in {len(fitted)} pieces, scored by the best"
                )
            asked.extend(fitted)
            owner.extend([n] * len(fitted))
        per: list[list[tuple[bool, float | None]]] = [[] for _ in checks]
        for n, got in zip(owner, self._ask(asked), strict=True):
            per[n].append(got)
        out: list[tuple[bool, float | None, list[str]]] = []
        for verdicts, note in zip(per, notes, strict=True):
            if all(p is not None for _, p in verdicts):
                best = max(p or 0.0 for _, p in verdicts)
                out.append((best > self.threshold, best, note))
            else:  # without probabilities: any piece's True
                out.append((any(ok for ok, _ in verdicts), None, note))
        return out

    def _request(self, check: Check) -> tuple[str, Any]:
        """(endpoint, payload) of the question about ``check``, as the client is asked it."""
        prompt = JUDGE_STYLES[self.style](check)
        if self.chat:
            return "chat", [{"role": "user", "content": prompt}]
        return "completion", prompt

    def _budget(self) -> int | None:
        """Prompt tokens the model's context leaves for a question (None: unknown)."""
        known = getattr(self.client, "context_tokens", None)  # any object with complete/chat
        context = known() if callable(known) else None
        return context - self.max_tokens if context else None

    def _tokens(self, check: Check, budget: int) -> int | None:
        """The question's prompt tokens, or None when it surely fits (its UTF-8 bytes, plus room
        for a chat template, are within ``budget``: no tokenizer makes more tokens than bytes) or
        the backend cannot count."""
        endpoint, payload = self._request(check)
        text = payload if endpoint == "completion" else payload[0]["content"]
        if len(text.encode("utf-8")) + (_CHAT_ROOM if self.chat else 2) <= budget:
            return None
        return self.client.count_tokens(endpoint, payload)

    def _fit(self, check: Check, budget: int | None) -> list[Check]:
        """``check`` as it is if its prompt fits in ``budget`` tokens, else its evidence in the
        fewest pieces found whose prompts each fit."""
        if budget is None:
            return [check]
        n = self._tokens(check, budget)
        if n is None or n <= budget:
            return [check]
        bare = self._tokens(Check(check.topic, check.fact, []), budget) or 0
        if bare >= budget:
            raise UsageError(
                f"the claim {check.fact[:60]!r} is too long for the judge: its prompt alone takes "
                f"{bare} tokens of the model's {budget + self.max_tokens}"
            )
        words = evidence_words(check.passages)
        # words per piece if tokens grow with words as they do in this evidence, less 10%
        size = max(1, int(words * (budget - bare) / (n - bare) * 0.9))
        while True:
            pieces = [
                Check(check.topic, check.fact, chunk)
                for chunk in evidence_chunks(check.passages, size, cut=True)
            ]
            if all((self._tokens(p, budget) or 0) <= budget for p in pieces) or size == 1:
                return pieces
            size = max(1, size // 2)

    def _ask(self, checks: Sequence[Check]) -> list[tuple[bool, float | None]]:
        params = GenerationParams(
            max_tokens=self.max_tokens, temperature=0.0, logprobs=self.top_logprobs
        )
        requests = [self._request(c) for c in checks]
        if self.chat:
            done = self.client.chat([payload for _, payload in requests], params)
        else:
            done = self.client.complete([payload for _, payload in requests], params)
        verdicts = []
        for completion in done:
            verdict, how = decide(completion)
            self.how[how] += 1
            verdicts.append((verdict, p_supported(completion)))
        return verdicts


# room for a chat template around a prompt, in tokens (Qwen's default system turn takes about 30)
_CHAT_ROOM = 256


def evidence_words(passages: Sequence[Mapping[str, str]]) -> int:
    """Words in all the passages' texts."""
    return sum(len(p["text"].split()) for p in passages)


def evidence_chunks(
    passages: list[dict[str, str]], words: int, cut: bool = False
) -> list[list[dict[str, str]]]:
    """The evidence in pieces of at most about ``words`` words, each judged on its own (a
    verifier trained on short evidence reads long documents piece by piece): whole passages
    packed together while they fit, a longer passage cut at sentence ends, each piece under its
    passage's title. ``words`` 0, or evidence that fits, gives one piece: all of it. A sentence
    longer than ``words`` stays whole, unless ``cut``: then it is cut every ``words`` words."""
    if not words or evidence_words(passages) <= words:
        return [passages]
    pieces: list[dict[str, str]] = []
    for p in passages:
        if len(p["text"].split()) <= words:
            pieces.append(p)
            continue
        part: list[str] = []
        size = 0
        for sentence in split_sentences(" ".join(p["text"].split())):
            n = len(sentence.split())
            if part and size + n > words:
                pieces.append({"title": p["title"], "text": " ".join(part)})
                part, size = [], 0
            if cut and n > words:
                tokens = sentence.split()
                pieces.extend(
                    {"title": p["title"], "text": " ".join(tokens[i : i + words])}
                    for i in range(0, n, words)
                )
                continue
            part.append(sentence)  # a sentence longer than ``words`` stays whole
            size += n
        if part:
            pieces.append({"title": p["title"], "text": " ".join(part)})
    chunks: list[list[dict[str, str]]] = []
    size = 0
    for piece in pieces:
        n = len(piece["text"].split())
        if chunks and size + n <= words:
            chunks[-1].append(piece)
            size += n
        else:
            chunks.append([piece])
            size = n
    return chunks


def _as_requests(checks: Sequence[Check]) -> list[EditInput]:
    """Each check as an editor's or verifier's input: the fact, its passages as evidence, its
    topic."""
    return [{"text": c.fact, "evidence": c.passages, "topic": c.topic} for c in checks]


class EditorJudge:
    """The favakit editor as judge: the fact is unsupported when the editor tags any error in
    it, given the same passages as evidence."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.how: Counter[str] = Counter()

    def judge(self, checks: Sequence[Check]) -> list[bool]:
        results = self.editor.edit_many(_as_requests(checks))
        self.how["editor"] += len(results)
        return [not r["edits"] for r in results]


class VerifierJudge:
    """A verifier (:class:`~favakit.contracts.Verifier`) as FActScore's judge: each fact is
    verified against its passages (titles and texts) with the topic it is about, and is
    supported when the verdict says so. ``how`` counts the verdicts by the verifier's name."""

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier
        self.how: Counter[str] = Counter()

    def judge(self, checks: Sequence[Check]) -> list[bool]:
        verdicts = self.verifier.verify(_as_requests(checks))
        self.how[self.verifier.model] += len(verdicts)
        return [bool(v["supported"]) for v in verdicts]
