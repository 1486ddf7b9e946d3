"""The editor pipeline: text -> evidence -> prompt -> generation -> lenient parse -> result.

:class:`GenerativeEditor` takes requests (``text``, optional ``topic``/``prompt`` and caller-given
``evidence``), fetches evidence from a :class:`~favakit.retrieval.search.Searcher` when the caller
gave none, builds the shared editor prompt (:func:`favakit.prompts.build_prompt`, the one
training uses), asks any :class:`~favakit.llm.LLMClient` (in-process transformers, in-process
vLLM, or an OpenAI-compatible endpoint) for the tagged text, parses it leniently and returns an
:class:`~favakit.contracts.EditResult`::

    {"original", "corrected", "edits": [{"type", "start", "end", "wrong", "right"}],
     "evidence": [{"title", "text"}], "repairs": [...], "model", "faithful", "mismatches",
     "warnings", "usage"}

with offsets into the original text. The model's output is aligned to the input rather than
trusted: an edit counts only where its wrong text sits in the input, and ``corrected`` is always
the input with those edits applied. Untagged text the model dropped or rewrote makes the result
``"faithful": false`` with each difference listed in ``mismatches``; the rewritten text is never
passed off as a correction. Long texts are split at sentence ends into windows that fit the
model, edited in one batch, and merged.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from favakit.align import offset_map
from favakit.contracts import (
    EditInput,
    EditRequest,
    EditResult,
    EditSpan,
    Mismatch,
    Passage,
    as_requests,
    edit_span,
)
from favakit.llm import GenerationParams, LLMClient
from favakit.progress import work, work_shown
from favakit.prompts import build_prompt, fewest_references_dropped
from favakit.tags import Edit, parse_lenient

if TYPE_CHECKING:
    from favakit.retrieval.search import Searcher

__all__ = [
    "NO_EVIDENCE",
    "STOP",
    "EditorSettings",
    "GenerativeEditor",
    "align",
    "gather_evidence",
    "split_windows",
]

log = logging.getLogger(__name__)


#: Said in a result (``warnings``) and on stderr when a text had no evidence at all.
NO_EVIDENCE = (
    "no evidence: the text was checked against nothing (give evidence, or a knowledge source "
    "with --kb and --index)"
)


@dataclass
class EditorSettings:
    template: str = "favakit"  # "fava" for FAVA's public checkpoint
    k: int = 5  # evidence passages retrieved per window
    window_chars: int = 1500  # longer texts are split at sentence ends
    max_new_tokens: int = 1024  # cap per window; the budget is set from the window's length
    context_tokens: int = 0  # the model's context; prompts longer lose references (0: unknown)
    keep_bare: bool = False  # keep the content of bare type tags in ``corrected`` (FAVA's code)
    chat_template: Any = None  # a tokenizer, to wrap the prompt in its chat template
    # (prompt, completion) demonstrations put before every prompt: few-shot use of a model that
    # was not trained for editing (the untuned baseline of docs/model_card.md)
    fewshot: list[tuple[str, str]] = field(default_factory=list)
    # Copy-guarded decoding where the backend has it (in-process transformers): the output can
    # only copy the text, add tags and write corrections (favakit.inference.copy_guard).
    copy_guard: bool = True


# The target never holds these: a model that writes one has started a new prompt of its own.
STOP = ("\n[Edited]", "\nRead the following references:")

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")


def split_windows(text: str, max_chars: int) -> list[tuple[int, int]]:
    """Spans ``(start, end)`` of ``text`` holding at most ``max_chars`` characters each, cut at
    sentence ends where possible (then at spaces, then anywhere). Whitespace between windows
    belongs to none of them; every other character belongs to exactly one."""
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    pieces: list[tuple[int, int]] = []  # sentences, without the whitespace around them
    pos = 0
    for m in _SENTENCE_END.finditer(text):
        pieces.append((pos, m.start() + len(m.group(0).rstrip())))
        pos = m.end()
    pieces.append((pos, len(text)))
    windows: list[tuple[int, int]] = []
    for start, end in pieces:
        start, end = _trim(text, start, end)
        while end - start > max_chars:  # one sentence longer than a window
            cut = text.rfind(" ", start + 1, start + max_chars + 1)
            cut = cut if cut > start else start + max_chars
            windows.append(_trim(text, start, cut))
            start, end = _trim(text, cut, end)
        if end <= start:
            continue
        if windows and end - windows[-1][0] <= max_chars:
            windows[-1] = (windows[-1][0], end)
        else:
            windows.append((start, end))
    return [w for w in windows if w[1] > w[0]]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


@dataclass
class Alignment:
    edits: list[EditSpan] = field(default_factory=list)  # offsets into the input
    corrected: str = ""
    mismatches: list[Mismatch] = field(default_factory=list)
    unplaced: int = 0  # edits whose wrong text is not in the input where the model put it


def align(source: str, output: str, keep_bare: bool = False) -> tuple[Alignment, list[str]]:
    """Place the edits of the model's tagged ``output`` onto ``source`` (the text it was asked
    to check). Returns the alignment and the names of the parser's repairs.

    The tag-free text of the output should equal ``source``. Where it does not, the two are
    aligned character by character: an edit is kept where its wrong text matches ``source``
    exactly, and every other difference is a mismatch (whitespace-only differences are not).
    """
    parsed = parse_lenient(output)
    repairs = [r.name for r in parsed.repairs]
    model_text = parsed.tagged.original()
    # position of each segment in the model's tag-free text
    placed: list[tuple[int, int, Edit]] = []
    pos = 0
    for seg in parsed.tagged:
        if isinstance(seg, str):
            pos += len(seg)
        else:
            placed.append((pos, pos + len(seg.wrong), seg))
            pos += len(seg.wrong)
    if model_text == source:
        to_source: Callable[[int], int | None] = lambda i: i  # noqa: E731
        diffs: list[tuple[int, int, int, int]] = []
    else:
        to_source = offset_map(model_text, source).get
        matcher = difflib.SequenceMatcher(None, source, model_text, autojunk=False)
        diffs = [
            (i1, i2, j1, j2)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal" and (source[i1:i2].strip() or model_text[j1:j2].strip())
        ]
    result = Alignment()
    out: list[str] = []
    cursor = 0
    for ms, me, edit in placed:
        s, e = to_source(ms), to_source(me)
        if s is None or e is None or s < cursor or source[s:e] != edit.wrong:
            result.unplaced += 1
            continue
        right = edit.wrong if (edit.bare and keep_bare) else _fitted(edit.right, source, s, e)
        result.edits.append(edit_span(edit.type, s, e, edit.wrong, right))
        out.append(source[cursor:s])
        if right:
            out.append(right)
            cursor = e
        else:  # a deletion: do not leave a doubled space, or a space before punctuation
            cursor = _close_gap(out, source, e)
    out.append(source[cursor:])
    result.corrected = "".join(out)
    result.mismatches = [
        {"start": i1, "end": i2, "expected": source[i1:i2], "got": model_text[j1:j2]}
        for i1, i2, j1, j2 in diffs
    ]
    return result, repairs


def _fitted(right: str, source: str, start: int, end: int) -> str:
    """A correction without the spaces that would double the text's own on either side: the
    model's ``<mark> Liverpool</mark>`` for "formed in Manchester in" is "Liverpool"."""
    if right[:1].isspace() and (start == 0 or source[start - 1].isspace()):
        right = right.lstrip()
    if right[-1:].isspace() and (end == len(source) or source[end].isspace()):
        right = right.rstrip()
    return right


def _close_gap(out: list[str], source: str, end: int) -> int:
    """After deleting up to ``end``: drop the space the deletion leaves doubled (or left before
    punctuation); returns where copying the source resumes."""
    before = "".join(out[-1:])
    if before.endswith(" ") and source[end : end + 1] == " ":
        return end + 1
    if before.endswith(" ") and (end == len(source) or source[end] in ".,;:!?"):
        out[-1] = before.rstrip(" ")
    return end


class GenerativeEditor:
    """Runs the pipeline for batches of requests through one generation client (a
    :class:`~favakit.contracts.Editor`)."""

    def __init__(
        self,
        client: LLMClient,
        searcher: Searcher | None = None,
        settings: EditorSettings | None = None,
        count_tokens: Callable[[str], int] | None = None,
    ) -> None:
        self.client = client
        self.searcher = searcher
        self.settings = settings or EditorSettings()
        self.count_tokens = count_tokens

    @property
    def model(self) -> str:
        return self.client.model

    def evidence(self, request: EditRequest, text: str) -> list[Passage]:
        return gather_evidence(request, text, self.searcher, self.settings.k)

    def _prompt(self, text: str, evidence: list[Passage], question: str | None) -> str:
        s = self.settings
        prompt = build_prompt(
            text, evidence, template=s.template, question=question, chat=s.chat_template
        )
        if s.fewshot:
            prompt = "".join(f"{p}{c}\n\n" for p, c in s.fewshot) + prompt
        if s.context_tokens and self.count_tokens is not None:
            budget, count = s.context_tokens - self._max_tokens(text), self.count_tokens
            prompt, _ = fewest_references_dropped(prompt, lambda p: count(p) <= budget)
        return prompt

    def _max_tokens(self, text: str) -> int:
        # the output repeats the text with tags and corrections: about a token per 2 characters
        # at worst, plus room for the tags; rounded up to a multiple of 128 so that windows of
        # similar length share a budget and are generated in one batch (a row stops at its EOS)
        need = -(-(len(text) // 2 + 64) // 128) * 128
        return min(self.settings.max_new_tokens, need)

    def edit(self, request: EditInput) -> EditResult:
        return self.edit_many([request])[0]

    def edit_many(self, requests: Sequence[EditInput]) -> list[EditResult]:
        """Results in the order of ``requests``; all windows go to the model as one batch."""
        reqs = as_requests(requests)
        jobs: list[_Window] = []
        for n, req in enumerate(reqs):
            for start, end in split_windows(req.text, self.settings.window_chars):
                window = req.text[start:end]
                ev = self.evidence(req, window)
                prompt = self._prompt(window, ev, req.prompt)
                jobs.append(_Window(n, start, window, ev, prompt, self._max_tokens(window)))
        by_budget: dict[int, list[_Window]] = {}
        for job in jobs:
            by_budget.setdefault(job.budget, []).append(job)
        parts = f"{len(jobs)} window{'s' if len(jobs) > 1 else ''}"
        steps = self._expected_steps(list(by_budget.values())) if work_shown() else None
        with work(f"editing {parts} with {self.model}", None, "token", steps):  # the model counts
            for budget, group in by_budget.items():
                self._generate(group, budget)
        results = [self._empty(req) for req in reqs]
        corrected: list[list[tuple[int, int, str]]] = [[] for _ in reqs]
        for job in jobs:
            got, repairs = align(job.text, job.output, keep_bare=self.settings.keep_bare)
            res, shift = results[job.n], job.start
            for e in got.edits:
                res["edits"].append({**e, "start": e["start"] + shift, "end": e["end"] + shift})
            for m in got.mismatches:
                res["mismatches"].append(
                    {**m, "start": m["start"] + shift, "end": m["end"] + shift}
                )
            if job.finish == "length":
                repairs = [*repairs, "output_cut_at_token_limit"]
            res["repairs"].extend([*repairs, *["edit_not_in_text"] * got.unplaced])
            seen = {(e["title"], e["text"]) for e in res["evidence"]}
            res["evidence"].extend(e for e in job.evidence if (e["title"], e["text"]) not in seen)
            corrected[job.n].append((job.start, job.start + len(job.text), got.corrected))
            res["usage"]["prompt_tokens"] += job.usage[0]
            res["usage"]["completion_tokens"] += job.usage[1]
        for req, res, windows in zip(reqs, results, corrected, strict=True):
            res["corrected"] = _stitch(req.text, windows)
            res["faithful"] = not res["mismatches"]
            if not res["evidence"]:
                res["warnings"].append(NO_EVIDENCE)
        return results

    def _expected_steps(self, groups: list[list[_Window]]) -> int | None:
        """About how many tokens the model counts over ``groups``: the output copies its
        window with the tags and corrections added (:data:`TAGS_ALLOWANCE`). A group generated
        in one batch counts a step per token of its longest output; one written a window at a
        time (copy-drafted, :meth:`_drafted`) counts every window's tokens. None where the
        model's tokens are not counted here."""
        count = self.count_tokens
        if count is None:
            return None
        steps = 0
        for group in groups:
            tokens = [count(job.text) for job in group]
            steps += sum(tokens) if self._drafted(len(group)) else max(tokens)
        return round(steps * TAGS_ALLOWANCE)

    def _drafted(self, windows: int) -> bool:
        """Whether the in-process model writes each of ``windows`` guarded windows asked for in
        one call alone, drafting from its text (:mod:`~favakit.inference.copy_draft`)."""
        generator = getattr(self.client, "generator", None)
        guarded = self.settings.copy_guard and getattr(self.client, "copy_guard", False)
        return bool(guarded and generator is not None and generator.copy_drafts(None, windows))

    def _generate(self, group: list[_Window], budget: int) -> None:
        """The model's output for each window of ``group``, in one call."""
        guarded = self.settings.copy_guard and getattr(self.client, "copy_guard", False)
        params = GenerationParams(
            max_tokens=budget,
            temperature=0.0,
            stop=STOP,
            copy_sources=tuple(job.text for job in group) if guarded else (),
        )
        done = self.client.complete([job.prompt for job in group], params)
        for job, completion in zip(group, done, strict=True):
            job.output, job.finish = completion.text, completion.finish_reason
            job.usage = (completion.prompt_tokens, completion.completion_tokens)

    def _empty(self, req: EditRequest) -> EditResult:
        return {
            "original": req.text,
            "corrected": req.text,
            "edits": [],
            "evidence": [],
            "repairs": [],
            "model": self.model,
            "faithful": True,
            "mismatches": [],
            "warnings": [],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0},  # summed over the windows
        }


#: An output's steps over its window's tokens: 528 steps for the 475 of a 1,062-word text of
#: the demo's articles in 5 windows (2 calls), four facts changed, with the default editor
#: (2026-12-06); more edits write more
TAGS_ALLOWANCE = 1.1


@dataclass
class _Window:
    """One window of one request on its way through the model."""

    n: int  # the request it belongs to
    start: int  # its offset in the request's text
    text: str
    evidence: list[Passage]
    prompt: str
    budget: int  # max new tokens
    output: str = ""
    finish: str | None = None
    usage: tuple[int, int] = (0, 0)  # prompt and completion tokens


def _stitch(text: str, windows: list[tuple[int, int, str]]) -> str:
    """The text with each window replaced by its corrected version (gaps kept verbatim)."""
    out, cursor = [], 0
    for start, end, corrected in windows:
        out.append(text[cursor:start])
        out.append(corrected)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def gather_evidence(
    request: EditRequest, text: str, searcher: Searcher | None, k: int
) -> list[Passage]:
    """The request's own evidence, else the ``k`` passages ``searcher`` finds for ``text``."""
    if request.evidence is not None:
        return request.passages()
    if searcher is None:
        return []
    from favakit.retrieval.evidence import editor_evidence

    hits = editor_evidence(text, searcher, prompt=request.prompt, topic=request.topic, k=k)
    return [{"title": h.title, "text": h.text} for h in hits]
