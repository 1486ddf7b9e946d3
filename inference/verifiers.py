"""Claim verification: is this claim supported by this evidence? (``favakit verify``,
``POST /v1/verify`` on ``favakit serve``).

Every verifier here is a :class:`~favakit.contracts.Verifier`: claims in,
:class:`~favakit.contracts.Verdict`\\ s ``{"supported", "score", "judge"}`` out, where ``score``
is the judge's probability that the claim is supported when it has one.

* :class:`LLMVerifier`: a causal LM asked "True or False?" (:class:`~favakit.inference.judges.Judge`),
  scored by its first answer token's P(True) over P(True) + P(False): favakit's trained verifier
  on the bare prompt it was trained on, or an instruct model through its chat template.
Claims are what editors take: :class:`~favakit.contracts.EditRequest`\\ s or ``{"text",
"evidence"}`` objects.

* :class:`CutEvidence`: another verifier reading each claim's evidence cut to the words that
  share the most with the claim (what the tuned Qwen judge was trained on; it bounds a slow
  judge's time per claim); a verdict on cut evidence says how much the judge read.
* :class:`CascadeVerifier`: two verifiers in turn: the first (the encoder checker) decides
  where it is confident, the second (the LLM judge) decides the claims whose first score falls
  in a band around the first's threshold (the band is chosen on a development split and stored
  with the checker; ``scripts/cascade_band.py``).

* :class:`RetrievingVerifier`: another verifier whose claims that come without evidence get it
  from a knowledge source first (``favakit verify --kb --index`` with any judge); a claim left
  with no evidence at all says so in its verdict's ``warnings`` (:data:`NO_EVIDENCE_CLAIM`).

* :class:`CitedSentences`: another verifier reading, of a claim that names the citation its
  evidence backs (``cites``), only the sentences that carry that citation's mark, and of any
  claim its text without citation marks (:mod:`favakit.citations`); the verdict's ``warnings``
  say what was read.

* :class:`EditorVerifier`: any :class:`~favakit.contracts.Editor` as a verifier: a claim with no
  edit is supported. The encoder detector's score is ``1 - error_probability`` (its most
  confident span of any type, before thresholds); the generative editor gives no probability,
  so its score is 1.0 or 0.0.

:func:`~favakit.inference.factory.open_verifier` builds any of them from a
:class:`~favakit.spec.ClientSpec`.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from favakit.citations import cited_reading
from favakit.contracts import EditInput, Editor, EditRequest, Verdict, Verifier, as_claim, as_claims
from favakit.inference.judges import Check, Judge
from favakit.language import NOT_ENGLISH, language_note
from favakit.llm import LLMClient

if TYPE_CHECKING:
    from favakit.retrieval.search import Searcher

__all__ = [
    "NO_EVIDENCE_CLAIM",
    "STYLES",
    "THRESHOLDS",
    "VERIFIER_PIECE_WORDS",
    "VERIFIER_WHOLE_WORDS",
    "CascadeVerifier",
    "CitedSentences",
    "CutEvidence",
    "EditorVerifier",
    "LLMVerifier",
    "OpenedOnFirstUse",
    "RetrievingVerifier",
    "choose_threshold",
    "cut_evidence",
    "cut_readings",
    "default_style",
    "default_threshold",
    "judged_where_evidence",
    "second_judge_decided",
]

# How a judge model asked through its chat template is asked by default, and the P(supported)
# above which it calls a claim supported, per prompt style; chosen on favakit's own synthetic
# validation claims (never on labelled evaluation data). How, and what they give on real pairs:
# docs/verifier.md. Other models: FActScore's prompt and 0.5.
STYLES: dict[str, str] = {"qwen2.5-coder-1.5b": "strict"}
THRESHOLDS: dict[tuple[str, str], float] = {
    ("qwen2.5-coder-1.5b", "factscore"): 0.75,
    ("qwen2.5-coder-1.5b", "strict"): 0.35,
}

# The trained verifier reads evidence of up to 2,000 words whole and longer evidence in pieces of
# about 400 words: on 148 synthetic claims padded to about 2,500 words, pieces gave 0.646
# balanced accuracy against 0.595 whole (0.707 unpadded); docs/benchmarks.md, "Verifier experiments".
VERIFIER_WHOLE_WORDS = 2000
VERIFIER_PIECE_WORDS = 400


def default_style(model: str) -> str:
    """The prompt style judge ``model`` (a preset name) is asked in through its chat template:
    :data:`STYLES`, else ``"factscore"``."""
    return STYLES.get(model, "factscore")


def default_threshold(model: str, style: str | None = None) -> float:
    """The decision threshold of judge ``model`` (a preset name) asked in ``style`` (default:
    :func:`default_style`) through its chat template: :data:`THRESHOLDS`, else 0.5 (the likelier
    answer)."""
    return THRESHOLDS.get((model, style or default_style(model)), 0.5)


def choose_threshold(labels: list[bool], scores: list[float]) -> tuple[float, float]:
    """(threshold, balanced accuracy): the threshold on P(supported), from 0.05 to 0.95 in steps
    of 0.05, with the best balanced accuracy of ``score > threshold`` against ``labels`` (ties:
    the one nearest 0.5). Meant for a judge's synthetic validation claims, never for labelled
    evaluation data. A result of 0.05 or 0.95 sits at the grid's end: the judge's scores are
    squeezed toward one side and a better threshold may lie beyond it (docs/verifier.md)."""
    if len(labels) != len(scores) or all(labels) or not any(labels):
        raise ValueError("need as many scores as labels, and both labels among them")
    pos = sum(labels)
    neg = len(labels) - pos

    def balanced(t: float) -> float:
        tp = sum(1 for y, s in zip(labels, scores, strict=True) if y and s > t)
        tn = sum(1 for y, s in zip(labels, scores, strict=True) if not y and s <= t)
        return 0.5 * (tp / pos + tn / neg)

    grid = [round(0.05 * i, 2) for i in range(1, 20)]
    best = max(grid, key=lambda t: (round(balanced(t), 9), -abs(t - 0.5)))
    return best, balanced(best)


class LLMVerifier:
    """A :class:`~favakit.inference.judges.Judge` (a causal LM asked "True or False?" about each
    claim, read from its first token's log-probabilities where the backend returns them) as a
    verifier: an instruct model through its chat template, or favakit's trained verifier on the
    bare prompt it was trained on."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self.client: LLMClient = judge.client
        self._lock = threading.Lock()  # the server's threads share one in-process model

    @property
    def model(self) -> str:
        return str(self.client.model)

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]:
        requests = as_claims(claims)
        return judged_where_evidence(requests, self._judged, self.model)

    def _judged(self, requests: list[EditRequest]) -> list[Verdict]:
        checks = [
            Check(
                c.topic or "",
                c.text,
                [{"title": e.title, "text": e.text} for e in c.evidence or []],
            )
            for c in requests
        ]
        with self._lock:
            scored = self.judge.judge_detailed(checks)
        out: list[Verdict] = []
        for ok, p, notes in scored:
            # without log-probabilities the answer's text decides and the score is 1 or 0
            score = round(p, 4) if p is not None else (1.0 if ok else 0.0)
            verdict: Verdict = {"supported": ok, "score": score, "judge": self.model}
            if notes:
                verdict["warnings"] = list(notes)
            out.append(verdict)
        return out


class EditorVerifier:
    """An :class:`~favakit.contracts.Editor` as a verifier: a claim it edits is not supported,
    nor is one it checked against no evidence. The score is ``1 - error_probability`` where the
    editor gives one (the encoder), else 1.0 or 0.0 (0.0 without evidence)."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor

    @property
    def model(self) -> str:
        return self.editor.model

    @property
    def client(self) -> object:
        """The editor's generation client (``--cache`` sets its cache; the encoder has none)."""
        return getattr(self.editor, "client", None)

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]:
        from favakit.inference.editor import NO_EVIDENCE

        out: list[Verdict] = []
        requests = as_claims(claims)
        for request, result in zip(requests, self.editor.edit_many(requests), strict=True):
            bare = NO_EVIDENCE in result.get("warnings", [])  # checked against nothing
            supported = not result["edits"] and not bare
            if bare:
                score = 0.0
            elif "error_probability" in result:
                score = round(1.0 - float(result["error_probability"]), 4)
            else:
                score = 1.0 if supported else 0.0
            verdict: Verdict = {"supported": supported, "score": score, "judge": self.model}
            said = [w for w in result.get("warnings", []) if NOT_ENGLISH not in w]  # the text's
            if said:
                verdict["warnings"] = said
            out.append(_noting_language(verdict, request))  # said of the claim, as every judge
        return out


class _Around:
    """What a verifier around another (``inner``) passes through: its name, and its generation
    client where it has one (``--cache`` sets that client's cache)."""

    inner: Verifier

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def client(self) -> object:
        return getattr(self.inner, "client", None)


#: Said in a verdict's ``warnings`` (and counted on stderr) when a claim had no evidence at all.
NO_EVIDENCE_CLAIM = (
    "no evidence: the claim was checked against nothing (give evidence, or a knowledge source "
    "with --kb and --index)"
)


def judged_where_evidence(
    requests: Sequence[EditRequest],
    judge: Callable[[list[EditRequest]], list[Verdict]],
    model: str,
) -> list[Verdict]:
    """``judge``'s verdicts on the requests that have evidence, in order; a request with none
    (no passage with text) is not supported, score 0.0, :data:`NO_EVIDENCE_CLAIM` in its
    warnings, and no judge is asked about it: a judge asked about a claim against nothing
    answers from its wording alone (the MiniLM checker called "just a string" supported,
    P 0.88, before session 76)."""
    asked = [r for r in requests if r.evidence]
    judged = iter(judge(asked) if asked else [])
    verdicts = [next(judged) if r.evidence else _no_evidence_verdict(model) for r in requests]
    return [_noting_language(v, r) for v, r in zip(verdicts, requests, strict=True)]


def _noting_language(verdict: Verdict, request: EditRequest) -> Verdict:
    """``verdict`` with a warning where its claim or evidence does not read as English
    (:func:`~favakit.language.language_note`): every judge was trained, or is asked, in
    English."""
    note = language_note(request.text, [e.text for e in request.evidence or []], "claim")
    return {**verdict, "warnings": [*verdict.get("warnings", []), note]} if note else verdict


def _no_evidence_verdict(model: str) -> Verdict:
    """The verdict on a claim checked against nothing: not supported."""
    return {"supported": False, "score": 0.0, "judge": model, "warnings": [NO_EVIDENCE_CLAIM]}


class RetrievingVerifier(_Around):
    """``inner`` verifies each claim against its own evidence, or, for a claim that comes with
    none, the ``k`` passages ``searcher`` finds for it (as the editor retrieves for a text:
    :func:`~favakit.inference.editor.gather_evidence`; the verdict lists them as ``evidence``).
    A claim left with no evidence at all (no searcher, or nothing found) is not supported, and
    its verdict's ``warnings`` say so (:data:`NO_EVIDENCE_CLAIM`; every judge answers so,
    :func:`judged_where_evidence`)."""

    def __init__(self, inner: Verifier, searcher: Searcher | None = None, k: int = 5) -> None:
        self.inner, self.searcher, self.k = inner, searcher, k

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]:
        from favakit.inference.editor import gather_evidence

        reqs = as_claims(claims)
        found = [gather_evidence(r, r.text, self.searcher, self.k) for r in reqs]
        asked: list[EditInput] = [{"text": r.text, "topic": r.topic or "", "evidence": list(ev)}
                                  for r, ev in zip(reqs, found, strict=True)]  # fmt: skip
        out = self.inner.verify(asked)
        for verdict, r, ev in zip(out, reqs, found, strict=True):
            if not ev and NO_EVIDENCE_CLAIM not in verdict.get("warnings", []):
                verdict["warnings"] = [*verdict.get("warnings", []), NO_EVIDENCE_CLAIM]
            elif r.evidence is None:
                verdict["evidence"] = list(ev)
        return out


class CitedSentences(_Around):
    """``inner`` verifies, of each claim that names the marks of the citation its evidence backs
    (``cites``: ``"[1]"``, ``"<|cit|>"``), only the sentences carrying one of them, every
    citation mark removed (:func:`~favakit.citations.cited_reading`): the rest of the text
    cites other sources, which this evidence cannot support. A claim without ``cites`` is
    read whole, its citation marks removed (a claim with none, as it is). The verdict's
    ``warnings`` say what was read."""

    def __init__(self, inner: Verifier) -> None:
        self.inner = inner

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]:
        reqs = as_claims(claims)
        readings = [cited_reading(r.text, r.cites) for r in reqs]
        asked: list[EditInput] = [dataclasses.replace(r, text=read.read, cites=())
                                  for r, read in zip(reqs, readings, strict=True)]  # fmt: skip
        out = self.inner.verify(asked)
        for verdict, read in zip(out, readings, strict=True):
            if read.note:
                verdict["warnings"] = [read.note, *verdict.get("warnings", [])]
        return out


def cut_evidence(claims: Sequence[EditInput], words: int) -> list[EditInput]:
    """Each claim with its evidence cut to the ``words`` words that share the most with it
    (:func:`~favakit.inference.evidence_reading.fit_evidence`, which reads the passages' titles
    where they name several articles; evidence that fits stays whole), as one passage."""
    return [claim for claim, _ in cut_readings(claims, words)]


def cut_readings(claims: Sequence[EditInput], words: int) -> list[tuple[EditInput, str | None]]:
    """Each claim as :func:`cut_evidence` gives it, with what its verdict says of the cut:
    None where the evidence fits whole, else how many of its words the judge read."""
    from favakit.inference.evidence_reading import cut_note, fit_evidence

    out: list[tuple[EditInput, str | None]] = []
    for n, c in enumerate(claims):
        r = as_claim(c, n)
        evidence = r.evidence or []
        text = fit_evidence(r.text, [e.text for e in evidence], words, [e.title for e in evidence])
        given, read = sum(len(e.text.split()) for e in evidence), len(text.split())
        note = cut_note("the judge", read, given) if read < given else None
        out.append(({"text": r.text, "topic": r.topic or "", "evidence": [text]}, note))
    return out


class CutEvidence(_Around):
    """``inner`` verifies each claim against its evidence cut to ``words`` words
    (:func:`cut_evidence`): the tuned Qwen judge reads evidence as it was trained to. A verdict
    on cut evidence says so in its ``warnings`` (:func:`cut_readings`)."""

    def __init__(self, inner: Verifier, words: int) -> None:
        if words < 1:
            raise ValueError(f"evidence words must be at least 1, not {words}")
        self.inner, self.words = inner, words

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]:
        readings = cut_readings(claims, self.words)
        verdicts = self.inner.verify([claim for claim, _ in readings])
        return [v if note is None else {**v, "warnings": [note, *v.get("warnings", [])]}
                for v, (_, note) in zip(verdicts, readings, strict=True)]  # fmt: skip


class OpenedOnFirstUse:
    """A verifier named ``model`` that ``opens`` (builds: loads its weights) at its first
    :meth:`verify`, once, under a lock: a cascade's second judge costs its load only where a
    claim falls in the band. ``notice``, where given, goes to stderr as it starts loading (a
    pause of seconds that would otherwise say nothing)."""

    def __init__(
        self, model: str, opens: Callable[[], Verifier], notice: str | None = None
    ) -> None:
        self._model, self._opens, self._notice = model, opens, notice
        self._inner: Verifier | None = None
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return self._model

    @property
    def inner(self) -> Verifier | None:
        """The verifier once built (a claim reached it), else None."""
        return self._inner

    def open(self) -> Verifier:
        """The verifier, built now if it was not yet (a server builds it before its first
        request)."""
        with self._lock:
            if self._inner is None:
                if self._notice:
                    print(self._notice, file=sys.stderr, flush=True)
                self._inner = self._opens()
            return self._inner

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]:
        return self.open().verify(claims)


class CascadeVerifier:
    """``first`` verifies every claim; a claim whose first score lies in ``band`` (``low``,
    ``high``, inclusive) is verified again by ``second``, whose verdict stands, with a warning
    that says so. ``second`` reads the evidence cut to the ``second_words`` words that share the
    most with the claim (:func:`~favakit.inference.evidence_reading.fit_evidence`): a slow judge's time
    per claim stays bounded. Every verdict names the cascade as its judge."""

    def __init__(self, first: Verifier, second: Verifier, band: tuple[float, float],
                 second_words: int = 400) -> None:  # fmt: skip
        low, high = band
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"cascade band {band}: want 0 <= low <= high <= 1")
        self.first, self.second, self.band = first, second, (float(low), float(high))
        self.second_words = second_words

    @property
    def model(self) -> str:
        return f"{self.first.model}+{self.second.model}"

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]:
        verdicts: list[Verdict] = [{**v, "judge": self.model} for v in self.first.verify(claims)]
        low, high = self.band
        unsure = [i for i, v in enumerate(verdicts) if low <= v["score"] <= high]
        if unsure:
            second = CutEvidence(self.second, self.second_words)  # its verdicts say the cut
            again = second.verify([claims[i] for i in unsure])
            for i, v in zip(unsure, again, strict=True):
                note = (f"{self.first.model} unsure (score {verdicts[i]['score']}, band "
                        f"{low}-{high}): {self.second.model}{_DECIDED}")  # fmt: skip
                verdicts[i] = {**v, "judge": self.model, "warnings": [*v.get("warnings", []), note]}
        return verdicts


#: How a cascade's warning ends where its second judge decided the verdict.
_DECIDED = " decided"


def second_judge_decided(verdict: Verdict) -> bool:
    """Whether a :class:`CascadeVerifier` verdict is its second judge's (its warning says so)."""
    return any(str(w).endswith(_DECIDED) for w in verdict.get("warnings") or [])
