"""A fast detector: an encoder that tags error spans and their types in one pass.

The encoder (all-MiniLM-L6-v2 or any BERT-style folder) reads ``[CLS] text [SEP] evidence [SEP]``
and labels every token of the text: ``O``, or ``B-``/``I-`` one of the six error types. Spans are
runs of tokens of one type; a span's confidence is the mean probability of its type over its
tokens, and a span is kept when that reaches its type's threshold (tuned on validation data at
the end of training and stored with the model in ``detector.json``).

Corrections follow the editor's contract (``{"original", "corrected", "edits": [{"type", "start",
"end", "wrong", "right", "confidence"}], ...}``): for ``entity`` and ``relation`` spans the
replacement is the aligned span of the best-matching evidence passage (word-level alignment of
the sentence against the passage); a ``contradictory`` sentence is replaced by the evidence
sentence it contradicts where one matches closely, else deleted; ``invented``, ``subjective``
and ``unverifiable`` spans are deleted. A span with no aligned replacement keeps its text
(``right == wrong``): flagged, no fix offered.

Long texts are cut into windows of whole sentences that fit half the encoder's length; each
window gets the evidence passages that share the most words with it.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from favakit.contracts import EditInput, EditRequest, EditResult, EditSpan, as_requests, edit_span
from favakit.deps import require
from favakit.devices import torch_device
from favakit.errors import UsageError
from favakit.inference.encoder_folder import load_encoder_model
from favakit.tags import ERROR_TYPES, apply_edits
from favakit.text import tokenizer_lock

if TYPE_CHECKING:
    from favakit.inference.editor import GenerativeEditor
    from favakit.retrieval.search import Searcher

__all__ = [
    "DELETED_TYPES",
    "LABELS",
    "Detector",
    "DetectorEditor",
    "SpanPrediction",
    "decode_spans",
    "default_detector",
    "label_tokens",
    "suggest_replacement",
]

LABELS: tuple[str, ...] = ("O", *(f"{p}-{t}" for t in ERROR_TYPES for p in ("B", "I")))
LABEL_ID = {name: i for i, name in enumerate(LABELS)}
DELETED_TYPES = frozenset({"invented", "subjective", "unverifiable"})
CONFIG_NAME = "detector.json"
_WORD = re.compile(r"\w+|[^\w\s]")


def label_tokens(
    offsets: Sequence[tuple[int, int]],
    in_text: Sequence[bool],
    spans: Sequence[tuple[str, int, int]],
) -> list[int]:
    """BIO label ids for tokens with character ``offsets`` into the text; -100 for tokens
    outside the text (``in_text`` false: specials, evidence) so the loss ignores them."""
    labels = []
    prev_span = -1
    for (start, end), inside in zip(offsets, in_text, strict=True):
        if not inside or end <= start:
            labels.append(-100)
            continue
        hit = next((k for k, (_, s, e) in enumerate(spans) if s < end and start < e and s < e), -1)
        if hit < 0:
            labels.append(LABEL_ID["O"])
        else:
            kind = spans[hit][0]
            labels.append(LABEL_ID[("I-" if hit == prev_span else "B-") + kind])
        prev_span = hit
    return labels


@dataclass(frozen=True)
class SpanPrediction:
    type: str
    start: int  # characters into the text
    end: int
    confidence: float


def decode_spans(
    probs: Sequence[Sequence[float]], offsets: Sequence[tuple[int, int]]
) -> list[SpanPrediction]:
    """Spans from per-token label probabilities (text tokens only, with their offsets).

    A span starts at a token whose best label is ``B-x``, or ``I-x`` after a token of another
    type, and runs over the following ``I-x`` tokens; its confidence is the mean of
    ``P(B-x) + P(I-x)`` over its tokens.
    """
    out: list[SpanPrediction] = []
    cur: list[Any] | None = None  # [type, start, end, [confidences]]
    for row, (start, end) in zip(probs, offsets, strict=True):
        best = max(range(len(LABELS)), key=lambda k: row[k])
        name = LABELS[best]
        if name == "O":
            if cur:
                out.append(_close(cur))
            cur = None
            continue
        prefix, kind = name.split("-", 1)
        p = row[LABEL_ID["B-" + kind]] + row[LABEL_ID["I-" + kind]]
        if cur and cur[0] == kind and prefix == "I":
            cur[2] = end
            cur[3].append(p)
        else:
            if cur:
                out.append(_close(cur))
            cur = [kind, start, end, [p]]
    if cur:
        out.append(_close(cur))
    return out


def _close(cur: list[Any]) -> SpanPrediction:
    kind, start, end, ps = cur
    return SpanPrediction(kind, start, end, round(sum(ps) / len(ps), 4))


def _words(text: str) -> list[re.Match[str]]:
    return list(_WORD.finditer(text))


def _sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    from favakit.text import split_sentences

    pos = 0
    for sent in split_sentences(text):
        s = text.find(sent, pos)
        if s < 0:
            continue
        e = s + len(sent)
        pos = e
        if s <= start < e or (s < end <= e):
            return s, max(e, end)
    return 0, len(text)


def suggest_replacement(
    text: str, start: int, end: int, evidence: Sequence[str], kind: str = "entity"
) -> tuple[int, int, str] | None:
    """The evidence's version of ``text[start:end]``, as ``(start, end, replacement)`` (the span
    may widen to the aligned block): for words, the block of the best-matching passage that a
    word alignment of the span's sentence puts in the span's place; for a ``contradictory``
    sentence, the closest evidence sentence. ``None`` when nothing aligns."""
    s0, s1 = _sentence_bounds(text, start, end)
    sent = text[s0:s1]
    if kind == "contradictory":
        from favakit.text import split_sentences

        closest: str | None = None
        best_ratio = 0.6
        for passage in evidence:
            for cand in split_sentences(passage):
                r = difflib.SequenceMatcher(None, sent.lower(), cand.lower()).ratio()
                if r > best_ratio and cand.strip() != sent.strip():
                    closest, best_ratio = cand.strip(), r
        return None if closest is None else (s0, s1, closest)
    words = _words(sent)
    lo, hi = start - s0, end - s0
    idx = [i for i, w in enumerate(words) if w.start() < hi and lo < w.end()]
    if not idx:
        return None
    i0, i1 = idx[0], idx[-1] + 1
    left = [w.group().lower() for w in words]
    best: tuple[int, int, str] | None = None
    best_score = 0.5  # an evidence sentence that aligns with at least half of this one
    from favakit.text import split_sentences

    for passage in (c for p in evidence for c in split_sentences(p)):
        pw = _words(passage)
        sm = difflib.SequenceMatcher(None, left, [w.group().lower() for w in pw], autojunk=False)
        for tag, a0, a1, b0, b1 in sm.get_opcodes():
            if tag != "replace" or a1 <= i0 or i1 <= a0:
                continue
            # the replaced block must be about the span, anchored by matching words around it
            if a0 < i0 - 2 or a1 > i1 + 2 or b1 - b0 > 2 * (a1 - a0) + 4:
                continue
            score = sm.ratio()
            if score > best_score:
                if all(not w[0].isalnum() for w in left[a1:]):
                    # at the end of the sentence the evidence often just goes on ("France and
                    # its largest city"): take as many words as the block replaces
                    b1 = min(b1, b0 + (a1 - a0))
                a, b = min(a0, i0), max(a1, i1)  # the span and the block, whichever is wider
                new = passage[pw[b0].start() : pw[b1 - 1].end()]
                head = sent[words[a].start() : words[a0].start()] if a < a0 else ""
                tail = sent[words[a1 - 1].end() : words[b - 1].end()] if a1 < b else ""
                best = (s0 + words[a].start(), s0 + words[b - 1].end(), head + new + tail)
                best_score = score
    if best is None:
        word = _same_shape(sent, text[start:end], evidence)
        best = None if word is None else (start, end, word)
    if best is not None and best[2].strip().lower() == text[best[0] : best[1]].strip().lower():
        return None
    return best


def _shape(word: str) -> str:
    return "number" if any(c.isdigit() for c in word) else "name" if word[:1].isupper() else ""


def _same_shape(sentence: str, span: str, evidence: Sequence[str]) -> str | None:
    """A reordered sentence defeats the alignment ("won the 1911 Nobel Prize" against "won the
    Nobel Prize in 1921"): then take the one word of the span's shape (a number, a name) in the
    closest evidence sentence that the text's sentence lacks, if there is exactly one."""
    from favakit.text import split_sentences

    words = _words(span)
    shape = _shape(words[0].group()) if len(words) == 1 else ""
    if not shape:
        return None
    mine = {w.group().lower() for w in _words(sentence)}
    best, best_share = None, 0.4
    for passage in evidence:
        for cand in split_sentences(passage):
            theirs = {w.group().lower() for w in _words(cand)}
            share = len(mine & theirs) / max(1, len(mine | theirs))
            if share > best_share:
                best, best_share = cand, share
    if best is None:
        return None
    options = {
        w.group() for w in _words(best)
        if _shape(w.group()) == shape and w.group().lower() not in mine
    }  # fmt: skip
    return options.pop() if len(options) == 1 else None


def _words_share(a: str, b: str) -> int:
    wa = {w.group().lower() for w in _words(a) if len(w.group()) > 2}
    return len(wa & {w.group().lower() for w in _words(b) if len(w.group()) > 2})


def _runs_within(
    units: Sequence[tuple[int, int]],
    budget: int,
    tokens: Callable[[int, int], int],
    split: Callable[[int, int], list[tuple[int, int]]],
) -> list[tuple[int, int]]:
    """Consecutive ``(start, end)`` units joined into runs of at most ``budget`` tokens
    (``tokens(start, end)``); a unit over the budget stands alone, as ``split(start, end)``
    cuts it."""
    runs: list[tuple[int, int]] = []
    cur: tuple[int, int] | None = None
    used = 0
    for s, e in units:
        n = tokens(s, e)
        if n > budget:
            if cur:
                runs.append(cur)
                cur, used = None, 0
            runs.extend(split(s, e))
            continue
        if cur and used + n > budget:
            runs.append(cur)
            cur, used = None, 0
        cur = (cur[0], e) if cur else (s, e)
        used += n
    if cur:
        runs.append(cur)
    return runs


class Detector:
    """A trained detector folder: the encoder (full weights, or a LoRA adapter over its base),
    its tokenizer, and ``detector.json`` (labels, per-type thresholds, lengths)."""

    def __init__(self, folder: str | Path, device: str | None = None, batch_size: int = 16) -> None:
        torch = require("torch", "train", "the encoder detector")
        transformers = require("transformers", "train", "the encoder detector")
        folder = Path(folder)
        cfg_path = folder / CONFIG_NAME
        if not cfg_path.exists():
            raise UsageError(f"{folder} is not a favakit detector (no {CONFIG_NAME})")
        self.config = json.loads(cfg_path.read_text())
        self.thresholds: dict[str, float] = dict(self.config.get("thresholds", {}))
        self.max_length = int(self.config.get("max_length", 384))
        self.device = torch_device(device)
        self.batch_size = batch_size
        transformers.utils.logging.disable_progress_bar()
        transformers.utils.logging.set_verbosity_error()  # the new head's load report is noise
        model = load_encoder_model(
            transformers.AutoModelForTokenClassification, folder, str(self.config.get("base", "")),
            num_labels=len(LABELS),
        )  # fmt: skip
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
        self.model = model.to(self.device).eval()
        self.name = str(self.config.get("name", folder.name))
        self._torch = torch

    # -- spans ----------------------------------------------------------------------------
    def _windows(self, text: str) -> list[tuple[int, int]]:
        """Windows of whole sentences whose tokens fit half the encoder's length; a sentence
        longer than that is read in runs of its words (:meth:`_word_runs`)."""
        from favakit.text import split_sentences

        budget = self.max_length // 2
        sentences: list[tuple[int, int]] = []
        pos = 0
        for sent in split_sentences(text):
            s = text.find(sent, pos)
            if s < 0:
                continue
            pos = s + len(sent)
            sentences.append((s, pos))
        runs = _runs_within(sentences, budget, lambda s, e: self._tokens(text[s:e]),
                            lambda s, e: self._word_runs(text, s, e, budget))  # fmt: skip
        return runs or [(0, len(text))]

    def _tokens(self, text: str) -> int:
        with tokenizer_lock(self.tokenizer):
            return len(self.tokenizer.tokenize(text))

    def _word_runs(self, text: str, start: int, end: int, budget: int) -> list[tuple[int, int]]:
        """``text[start:end]`` (one sentence over ``budget`` tokens) as runs of whole words of at
        most ``budget`` tokens each; a word over the budget (a long URL) is cut every ``budget``
        characters, no more tokens than characters. A 3,000-word text with no full stop was a
        truncation error ("Sequence to truncate too short")."""
        words = [(start + m.start(), start + m.end()) for m in re.finditer(r"\S+", text[start:end])]
        return _runs_within(words, budget, lambda s, e: self._tokens(text[s:e]),
                            lambda s, e: [(k, min(k + budget, e)) for k in range(s, e, budget)])  # fmt: skip

    def _evidence_for(self, window: str, evidence: Sequence[str]) -> str:
        ranked = sorted(evidence, key=lambda p: -_words_share(window, p))
        return " ".join(ranked)

    def spans(
        self, texts: Sequence[str], evidence: Sequence[Sequence[str]], apply_thresholds: bool = True
    ) -> list[list[SpanPrediction]]:
        """Predicted spans for each text (character offsets into it), thresholds applied."""
        torch = self._torch
        jobs: list[tuple[int, int, str, str]] = []  # (text index, window start, window, evidence)
        for n, (text, ev) in enumerate(zip(texts, evidence, strict=True)):
            for s, e in self._windows(text):
                jobs.append((n, s, text[s:e], self._evidence_for(text[s:e], ev)))
        out: list[list[SpanPrediction]] = [[] for _ in texts]
        order = sorted(range(len(jobs)), key=lambda j: len(jobs[j][2]) + len(jobs[j][3]))
        with torch.inference_mode():
            for b in range(0, len(order), self.batch_size):
                batch = [jobs[j] for j in order[b : b + self.batch_size]]
                with tokenizer_lock(self.tokenizer):  # shared by the server's threads
                    enc = self.tokenizer(
                        [j[2] for j in batch],
                        [j[3] or " " for j in batch],
                        truncation="only_second",
                        max_length=self.max_length,
                        padding=True,
                        return_offsets_mapping=True,
                        return_tensors="pt",
                    )
                offsets = enc.pop("offset_mapping").tolist()
                logits = self.model(**enc.to(self.device)).logits.float()
                probs = torch.softmax(logits, dim=-1).cpu().tolist()
                for k, (n, start, _, _) in enumerate(batch):
                    seq = enc.sequence_ids(k)
                    keep = [i for i, sid in enumerate(seq) if sid == 0]
                    for sp in decode_spans(
                        [probs[k][i] for i in keep], [tuple(offsets[k][i]) for i in keep]
                    ):
                        if apply_thresholds and not self._passes(sp):
                            continue
                        out[n].append(
                            SpanPrediction(sp.type, sp.start + start, sp.end + start, sp.confidence)
                        )
        return [sorted(s, key=lambda x: x.start) for s in out]

    # -- the editor's contract ------------------------------------------------------------
    def edit_many(
        self, requests: Sequence[EditInput], apply_thresholds: bool = True
    ) -> list[EditResult]:
        """Results in the editor's format, with the requests' own evidence (no retrieval: see
        :class:`DetectorEditor`)."""
        reqs = as_requests(requests)
        texts = [r.text for r in reqs]
        evidence = [[e.text for e in r.evidence or []] for r in reqs]
        results = []
        for t, ev, found in zip(
            texts, evidence, self.spans(texts, evidence, apply_thresholds=False), strict=True
        ):
            kept = [sp for sp in found if not apply_thresholds or self._passes(sp)]
            res = self._result(t, ev, kept)
            # the most confident span of any type, thresholds aside: 1 - this is how sure the
            # detector is that the text holds no error (favakit verify's score)
            res["error_probability"] = max((sp.confidence for sp in found), default=0.0)
            results.append(res)
        return results

    def _passes(self, sp: SpanPrediction) -> bool:
        return sp.confidence >= self.thresholds.get(sp.type, 0.5)

    def _result(self, text: str, evidence: list[str], spans: list[SpanPrediction]) -> EditResult:
        from favakit.inference.editor import NO_EVIDENCE

        edits: list[EditSpan] = []
        for sp in spans:
            start, end = _to_words(text, sp.start, sp.end)
            if sp.type in DELETED_TYPES:
                start, end = (
                    _sentence_bounds(text, start, end)
                    if _most_of_sentence(text, start, end)
                    else (start, end)
                )
                right = ""
            else:
                suggestion = suggest_replacement(text, start, end, evidence, sp.type)
                if suggestion is not None:
                    start, end, right = suggestion
                else:  # flagged, no fix offered (a contradiction without its evidence: delete)
                    right = "" if sp.type == "contradictory" else text[start:end]
            span = edit_span(sp.type, start, end, text[start:end], right)
            span["confidence"] = sp.confidence
            edits.append(span)
        return {
            "original": text,
            "corrected": apply_edits(text, edits),
            "edits": edits,
            "evidence": [{"title": "", "text": e} for e in evidence],
            "repairs": [],
            "model": self.name,
            "faithful": True,  # the text is never rewritten, only spans of it
            "mismatches": [],
            "warnings": [] if evidence else [NO_EVIDENCE],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0},  # no generation
        }


def _to_words(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a span to whole words and trim its spaces."""
    while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while end < len(text) and end > 0 and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _most_of_sentence(text: str, start: int, end: int) -> bool:
    s, e = _sentence_bounds(text, start, end)
    return (end - start) >= 0.6 * (e - s)


DEFAULT_DETECTOR_NAME = "favakit-detector-minilm"


def pack_int8(folder: str | Path, out: str | Path, min_size: int = 65_536) -> dict[str, Any]:
    """Write a smaller copy of a fully fine-tuned detector (:func:`favakit.inference.int8.pack_int8`):
    MiniLM: 90 MB -> 23 MB. ``Detector`` dequantizes on load."""
    from favakit.inference.int8 import pack_int8 as pack

    return pack(folder, out, CONFIG_NAME, min_size)


def default_detector() -> str:
    """The detector folder shipped in the package (``inference/default_detector``)."""
    from favakit.inference.models import shipped_folder

    return shipped_folder(
        "default_detector", CONFIG_NAME,
        "this install has no shipped detector (inference/default_detector is missing): "
        "train one with `favakit train --config minilm_detector ...` and pass --detector DIR",
    )  # fmt: skip


@dataclass(frozen=True)
class _Kind:
    """What ``favakit edit`` prints as the editor's client kind."""

    kind: str


class DetectorEditor:
    """An :class:`~favakit.contracts.Editor` over the encoder detector, with evidence from the
    requests or a searcher.

    ``generative`` (a :class:`~favakit.inference.editor.GenerativeEditor`) makes it a cascade: the
    encoder reads every window, and only the windows where it finds a span go to the generative
    editor, whose result for them is the answer; the rest are returned unchanged.
    """

    def __init__(
        self,
        detector: Detector,
        searcher: Searcher | None = None,
        k: int = 2,
        generative: GenerativeEditor | None = None,
    ) -> None:
        self.detector = detector
        self.searcher = searcher if generative is None else generative.searcher
        self.k = k
        self.generative = generative
        self.client = _Kind("cascade" if generative is not None else "encoder")
        self.windows_sent = 0  # cascade: windows that went to the generative editor
        self.windows_seen = 0

    @property
    def model(self) -> str:
        if self.generative is not None:
            return f"{self.detector.name}>{self.generative.model}"
        return self.detector.name

    def edit(self, request: EditInput) -> EditResult:
        return self.edit_many([request])[0]

    def edit_many(self, requests: Sequence[EditInput]) -> list[EditResult]:
        from favakit.inference.editor import NO_EVIDENCE, gather_evidence

        reqs = as_requests(requests)
        evidence = [gather_evidence(r, r.text, self.searcher, self.k) for r in reqs]
        plain = [[e["text"] for e in ev] for ev in evidence]
        if self.generative is None:
            results = self.detector.edit_many(
                [{"text": r.text, "evidence": ev} for r, ev in zip(reqs, plain, strict=True)]
            )
        else:
            results = self._cascade(reqs, plain)
        for res, ev in zip(results, evidence, strict=True):
            res["evidence"] = ev
            res["model"] = self.model
            res["warnings"] = [] if ev else [NO_EVIDENCE]
        return results

    def _cascade(self, reqs: Sequence[EditRequest], evidence: list[list[str]]) -> list[EditResult]:
        spans = self.detector.spans([r.text for r in reqs], evidence)
        jobs = []  # (request index, window start, window end)
        for n, req in enumerate(reqs):
            for s, e in self.detector._windows(req.text):
                self.windows_seen += 1
                if any(s <= sp.start < e for sp in spans[n]):
                    jobs.append((n, s, e))
        self.windows_sent += len(jobs)
        assert self.generative is not None
        done = self.generative.edit_many(
            [{"text": reqs[n].text[s:e], "evidence": evidence[n]} for n, s, e in jobs]
        ) if jobs else []  # fmt: skip
        results = []
        for n, req in enumerate(reqs):
            res = self.detector._result(req.text, evidence[n], [])
            res["error_probability"] = max((sp.confidence for sp in spans[n]), default=0.0)
            pieces, pos = [], 0
            for (m, s, e), got in zip(jobs, done, strict=True):
                if m != n:
                    continue
                for ed in got["edits"]:
                    moved = ed.copy()
                    moved["start"], moved["end"] = ed["start"] + s, ed["end"] + s
                    res["edits"].append(moved)
                for mm in got.get("mismatches", []):
                    shifted = mm.copy()
                    shifted["start"], shifted["end"] = mm["start"] + s, mm["end"] + s
                    res["mismatches"].append(shifted)
                res["repairs"].extend(got["repairs"])
                if "usage" in got:
                    res["usage"]["prompt_tokens"] += got["usage"]["prompt_tokens"]
                    res["usage"]["completion_tokens"] += got["usage"]["completion_tokens"]
                pieces += [req.text[pos:s], got["corrected"]]
                pos = e
            pieces.append(req.text[pos:])
            res["corrected"] = "".join(pieces)
            res["faithful"] = not res["mismatches"]
            results.append(res)
        return results
