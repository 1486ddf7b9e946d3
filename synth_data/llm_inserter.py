"""LLM error insertion, FAVA's way: rewrite into a genre, then one error type per call.

For each passage: (1) the LLM rewrites it into one of 16 genres using only its information;
(2) for each chosen error type in turn, the LLM copies the current text, inserting errors of
that one type and marking them in the synthetic view (``<delete>`` the original,
``<mark>`` the error). Asking for all types at once confused FAVA's generator; one type per call
did not. Every pass is validated strictly before it is kept:

* the output parses with the strict grammar (synthetic view);
* it holds at least one edit, every edit of the requested type;
* undoing its edits gives back the pass's input text (whitespace normalized);
* its edits do not overlap the errors of earlier passes.

A pass that fails is retried with another sampling seed (so the response cache cannot hand
back the same failure), then the passage is dropped with a named reason. Work runs stage by
stage over a batch of passages, so the client's concurrency is used.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from favakit.errors import UsageError
from favakit.llm import GenerationParams, LLMClient, LLMError
from favakit.tags import ERROR_TYPES, Edit, Tagged, TagParseError, has_tags, parse, stack

__all__ = ["GENRES", "TYPE_DEFINITIONS", "LLMInserter", "LLMInsertion"]

GENRES = (
    "article", "essay", "blog post", "social media post", "description", "news report",
    "summary", "speech", "presentation intro", "report", "website content", "case study",
    "brochure", "text message", "book intro", "tweet",
)  # fmt: skip

TYPE_DEFINITIONS = {
    "entity": "a word or short phrase naming a person, place, organisation, date or number is "
    "replaced by a wrong one of the same kind; the rest of the sentence stays as it was",
    "relation": "a word that expresses a relation (a verb, preposition, comparative or "
    "adjective) is replaced by a wrong one, such as 'lost' for 'won' or 'after' for 'before'",
    "contradictory": "a whole sentence is rewritten so that it contradicts what the text said",
    "invented": "a new sentence states a fact about something that does not exist: a made-up "
    "person, work, event, place or concept",
    "subjective": "a new sentence states a personal opinion or judgement as if it were a fact",
    "unverifiable": "a new sentence makes a claim that sounds factual but that no public source "
    "could confirm, such as someone's private habits or thoughts",
}

# One short demonstration per type, written for favakit.
_DEMOS = {
    "entity": (
        "The bridge opened in 1932 and links Sydney's business district with the North Shore.",
        "The bridge opened in <entity><delete>1932</delete><mark>1941</mark></entity> and links "
        "<entity><delete>Sydney</delete><mark>Melbourne</mark></entity>'s business district with "
        "the North Shore.",
    ),
    "relation": (
        "The Amazon carries more water than any other river and flows east into the Atlantic.",
        "The Amazon carries <relation><delete>more</delete><mark>less</mark></relation> water than "
        "any other river and flows <relation><delete>east</delete><mark>west</mark></relation> into "
        "the Atlantic.",
    ),
    "contradictory": (
        "Curie won two Nobel Prizes. She was born in Warsaw.",
        "<contradictory><delete>Curie won two Nobel Prizes.</delete><mark>Curie never received a "
        "Nobel Prize.</mark></contradictory> She was born in Warsaw.",
    ),
    "invented": (
        "The museum holds paintings by Rembrandt. It is open every day.",
        "The museum holds paintings by Rembrandt. <invented><mark>Its most visited room shows the "
        "Velmar Codex, a lost atlas of the moon.</mark></invented> It is open every day.",
    ),
    "subjective": (
        "The novel was published in 1851. It follows a whaling voyage.",
        "The novel was published in 1851. <subjective><mark>It is the most beautiful book ever "
        "written.</mark></subjective> It follows a whaling voyage.",
    ),
    "unverifiable": (
        "The composer wrote nine symphonies. He lived in Vienna.",
        "The composer wrote nine symphonies. <unverifiable><mark>He always hummed the tunes to his "
        "cat before writing them down.</mark></unverifiable> He lived in Vienna.",
    ),
}

_SYSTEM = "You edit texts exactly as instructed and output only the edited text."


def rewrite_messages(passage: str, genre: str) -> list[dict[str, str]]:
    user = (
        f"Rewrite the passage below as a {genre}. Use only the information in the passage: do not "
        "add any fact, name, date or number that is not in it. Output only the "
        f"{genre}.\n\nPassage: {passage}"
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def insertion_messages(text: str, typ: str) -> list[dict[str, str]]:
    before, after = _DEMOS[typ]
    replace = typ in ("entity", "relation", "contradictory")
    how = (
        f"write <{typ}><delete>original</delete><mark>changed</mark></{typ}> around each change"
        if replace
        else f"write <{typ}><mark>new sentence</mark></{typ}> around each new sentence"
    )
    user = (
        f"Insert one or two {typ} errors into the text. A {typ} error: "
        f"{TYPE_DEFINITIONS[typ]}. Copy every other character of the text unchanged, and {how}. "
        f"Use no other tags.\n\nExample text: {before}\nExample output: {after}\n\n"
        f"Text: {text}\nOutput:"
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


@dataclass
class LLMInsertion:
    """The outcome for one passage: the tagged text (or None) and why, if it failed."""

    tagged: Tagged | None
    applied: list[str]
    genre: str
    reason: str | None = None


def _collapse(tagged: Tagged) -> Tagged:
    """Single spaces everywhere and no space at either end, as the pass inputs are written."""
    segs: list[str | Edit] = []
    for seg in tagged.segments:
        if isinstance(seg, str):
            segs.append(re.sub(r"\s+", " ", seg))
            continue
        wrong, right = " ".join(seg.wrong.split()), " ".join(seg.right.split())
        if wrong or right:
            segs.append(Edit(seg.type, wrong, "" if seg.bare else right, seg.bare))
    if segs and isinstance(segs[0], str):
        segs[0] = segs[0].lstrip()
    if segs and isinstance(segs[-1], str):
        segs[-1] = segs[-1].rstrip()
    return _attach_spaces(Tagged(segs))


def _attach_spaces(tagged: Tagged) -> Tagged:
    """A deleted (inserted) sentence takes one of the spaces around it, so that removing it
    leaves the text exactly as it was: "A. " + <x>B.</x> + " C." -> "A. " + <x>B. </x> + "C."."""
    segs = list(tagged.segments)
    for i, seg in enumerate(segs):
        if not isinstance(seg, Edit) or seg.right or seg.bare:
            continue
        p_seg = segs[i - 1] if i > 0 else None
        n_seg = segs[i + 1] if i + 1 < len(segs) else None
        prev = p_seg if isinstance(p_seg, str) else None
        nxt = n_seg if isinstance(n_seg, str) else None
        before = p_seg is None or (prev is not None and prev.endswith(" "))
        after = n_seg is None or (nxt is not None and nxt.startswith(" "))
        if not (before and after):
            continue
        if nxt is not None and nxt.startswith(" "):
            segs[i] = Edit(seg.type, seg.wrong + " ", "")
            segs[i + 1] = nxt[1:]
        elif prev is not None and prev.endswith(" "):
            segs[i] = Edit(seg.type, " " + seg.wrong, "")
            segs[i - 1] = prev[:-1]
    return Tagged(segs)


def check_pass(output: str, typ: str, text: str, base: Tagged) -> tuple[Tagged | None, str | None]:
    """Validate one insertion pass; returns the stacked passage or the reason it failed."""
    try:
        layer = parse(output.strip(), view="synthetic")
    except TagParseError:
        return None, "pass_parse_error"
    layer = _collapse(layer)
    types = {e.type for e in layer.edits}
    if types - {typ}:
        return None, "pass_other_type"
    if not layer.edits:
        return None, "pass_missing_type"
    if layer.corrected(tidy=False).split() != text.split():
        return None, "pass_reverse_mismatch"
    if layer.corrected(tidy=False) != text:
        return None, "pass_whitespace_mismatch"
    try:
        return stack(base, layer), None
    except ValueError:
        return None, "pass_overlap"


@dataclass
class _Item:
    passage: str
    types: list[str]
    genre: str
    tagged: Tagged | None = None
    applied: list[str] = field(default_factory=list)
    reason: str | None = None


class LLMInserter:
    """Genre rewrite plus one validated pass per error type, over batches of passages."""

    def __init__(
        self,
        client: LLMClient,
        retries: int = 2,
        genres: bool = True,
        max_tokens: int = 768,
        temperature: float = 0.7,
        max_failures: int = 3,
    ) -> None:
        """``max_failures``: batches failing in a row (after the client's own retries) before
        the run stops with the cause; the rows made so far are kept and the run resumes."""
        self.client = client
        self.max_failures = max_failures
        self.failures = 0  # batches failed in a row
        self.retries = retries
        self.genres = genres
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.rejections: Counter[str] = Counter()

    def plan(self, rng: random.Random, n_errors: int) -> tuple[list[str], str]:
        types = rng.sample(list(ERROR_TYPES), k=min(n_errors, len(ERROR_TYPES)))
        genre = rng.choice(GENRES) if self.genres else "passage"
        return types, genre

    def _params(self, attempt: int, texts: Sequence[str]) -> GenerationParams:
        # The answer is the text again (plus tags): budget twice its words and some room, so a
        # model that rambles stops early. The first try is greedy; retries sample with another
        # seed, which is also another cache key.
        longest = max((len(t.split()) for t in texts), default=0)
        budget = min(self.max_tokens, 2 * longest + 64)
        temp = 0.0 if attempt == 0 else self.temperature
        return GenerationParams(max_tokens=budget, temperature=temp, seed=attempt)

    def run(self, jobs: Sequence[tuple[str, list[str], str]]) -> list[LLMInsertion]:
        """``jobs``: (passage, types in order, genre). Returns one result per job."""
        items = [_Item(p, list(t), g) for p, t, g in jobs]
        self._rewrite(items)
        for step in range(max((len(i.types) for i in items), default=0)):
            self._insert_step(items, step)
        results = []
        for it in items:
            if it.reason is None and not it.applied:
                it.reason = "no_pass_succeeded"
            if it.reason is not None:
                self.rejections[it.reason] += 1
            results.append(
                LLMInsertion(
                    it.tagged if it.reason is None else None, it.applied, it.genre, it.reason
                )
            )
        return results

    def _chat(
        self, todo: list[_Item], prompts: list[list[dict[str, str]]], params: GenerationParams
    ) -> list[Any] | None:
        """One stage's calls; a failed batch marks its passages ``llm_error`` (None returned)."""
        try:
            outs = self.client.chat(prompts, params)
        except LLMError as exc:
            self.failures += 1
            if self.failures >= self.max_failures:
                raise UsageError(
                    f"the LLM failed {self.failures} batches in a row; stopping (the rows made "
                    f"so far are kept: run the same command again to resume). Last error: {exc}"
                ) from None
            for it in todo:
                it.reason = "llm_error"
            return None
        self.failures = 0
        return outs

    def _rewrite(self, items: list[_Item]) -> None:
        todo = [it for it in items if it.genre != "passage"]
        for it in items:
            if it.genre == "passage":
                it.tagged = Tagged([" ".join(it.passage.split())])
        for attempt in range(self.retries + 1):
            if not todo:
                return
            outs = self._chat(
                todo,
                [rewrite_messages(it.passage, it.genre) for it in todo],
                self._params(attempt, [it.passage for it in todo]),
            )
            if outs is None:
                return
            retry = []
            for it, out in zip(todo, outs, strict=True):
                text = " ".join(out.text.split())
                words, source = len(text.split()), len(it.passage.split())
                if not text:
                    it.reason = "rewrite_empty"
                elif has_tags(text):
                    it.reason = "rewrite_has_tags"
                elif not 0.2 * source <= words <= 2.5 * source:
                    it.reason = "rewrite_length"
                else:
                    it.reason, it.tagged = None, Tagged([text])
                    continue
                retry.append(it)
            todo = retry

    def _insert_step(self, items: list[_Item], step: int) -> None:
        todo = [
            it
            for it in items
            if it.reason is None and it.tagged is not None and step < len(it.types)
        ]
        for attempt in range(self.retries + 1):
            if not todo:
                return
            texts = [it.tagged.original() for it in todo if it.tagged is not None]
            prompts = [
                insertion_messages(text, it.types[step])
                for text, it in zip(texts, todo, strict=True)
            ]
            outs = self._chat(todo, prompts, self._params(attempt, texts))
            if outs is None:
                return
            retry = []
            for it, out in zip(todo, outs, strict=True):
                assert it.tagged is not None
                typ = it.types[step]
                stacked, reason = check_pass(out.text, typ, it.tagged.original(), it.tagged)
                if stacked is not None:
                    it.tagged = stacked
                    it.applied.append(typ)
                    continue
                self.rejections[f"attempt_{reason}"] += 1
                if attempt == self.retries:
                    # a type that keeps failing is skipped; the passage keeps its other errors
                    continue
                retry.append(it)
            todo = retry
