"""Batch runs over JSONL files: ``favakit edit --input`` and ``favakit verify --input``, for
scripts too.

Rows are read and validated before any model loads (a bad row names its file and line), ids must
be unique, results stream out in input order with their row's ``id``, and an output file makes a
run resumable: ids already there are skipped. With Ray (``ray``) each worker builds its own
editor or verifier from the same picklable stage (:class:`EditStage`, :class:`VerifyStage`).
"""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from favakit.contracts import EditInput, EditRequest, EditResult, Verdict, Verifier
from favakit.distributed import RayOptions, map_chunks_in_order
from favakit.errors import UsageError
from favakit.inference.editor import EditorSettings
from favakit.records import (
    JSONL_FORMS,
    JsonlAppender,
    RecordError,
    numbered_jsonl,
    refuse_folder_output,
    refuse_output_in_use,
    refuse_output_over_input,
    valid_rows,
)
from favakit.spec import ClientSpec

if TYPE_CHECKING:
    from favakit.inference.gate import GateSettings

__all__ = [
    "EditStage",
    "Labels",
    "VerifyStage",
    "progress_bar",
    "read_claims",
    "read_edit_requests",
    "read_labels",
    "row_work",
    "run_rows",
]


def read_edit_requests(path: str) -> list[tuple[str, EditRequest]]:
    """``(id, request)`` of every row of a JSONL file (any row :meth:`EditRequest.from_row`
    reads); the id is the row's ``id``, else its line number."""
    try:
        rows = valid_rows(path, _edit_row)
    except RecordError as exc:
        if "no such file" in str(exc) or Path(path).is_dir():
            raise UsageError(str(exc)) from None
        said = str(exc)
        if JSONL_FORMS not in said:
            said += ': --input takes JSONL, one object per line such as {"text": "..."}'
        raise UsageError(
            f'{said}; to check plain text, pass it as an argument (favakit edit "TEXT") '
            f"or on standard input (favakit edit - < {path})"
        ) from None
    return _unique(path, rows, "edit")


def read_claims(path: str) -> list[tuple[str, EditRequest]]:
    """``(id, claim)`` of every row ``{"id"?, "text" | "claim", "evidence"?}`` of a JSONL
    file."""
    try:
        rows = valid_rows(path, _claim_row)
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    return _unique(path, rows, "verify")


@dataclass
class Labels:
    """The labels of an input file's rows: ``read``, ``{id: (supported?, source)}``; and
    ``unread``, the labels of rows whose ``label`` :func:`~favakit.claim_metrics.label_of`
    cannot read (``"REFUTES"``, ``1``), which measure nothing and are said, not dropped
    silently."""

    read: dict[str, tuple[bool, str]]
    unread: list[Any]


def read_labels(path: str) -> Labels:
    """The labels of the rows of a JSONL file (:func:`~favakit.claim_metrics.label_of`), by
    the ids :func:`read_claims` gives them; the source is the row's ``source``, else ``""``."""
    from favakit.claim_metrics import label_of

    labels, unread = {}, []
    for lineno, row in numbered_jsonl(path):
        label = label_of(row)
        if label is not None:
            labels[_row_id(row, lineno)] = (label, str(row.get("source") or ""))
        elif row.get("label") is not None:
            unread.append(row["label"])
    return Labels(labels, unread)


def _row_id(row: dict[str, Any], lineno: int) -> str:
    """A row's id: its ``id``, else its line number (its place, in a JSON array)."""
    return str(row.get("id", lineno))


def _edit_row(row: Any, number: int, where: str) -> tuple[str, EditRequest]:
    return _row_id(row, number), EditRequest.from_row(row, where).for_editing(
        where, "favakit verify"
    )


def _claim_row(row: Any, number: int, where: str) -> tuple[str, EditRequest]:
    return _row_id(row, number), EditRequest.from_claim(row, where)


def _unique(
    path: str, rows: list[tuple[str, EditRequest]], doing: str
) -> list[tuple[str, EditRequest]]:
    if not rows:
        raise UsageError(f"{path} holds no rows: nothing to {doing}")
    counts = Counter(i for i, _ in rows)
    repeated = [f"{i!r} ({n} rows)" for i, n in counts.items() if n > 1]
    if repeated:
        more = f" and {len(repeated) - 3} more" if len(repeated) > 3 else ""
        raise UsageError(f"{path}: ids repeat: {', '.join(repeated[:3])}{more}; give each row "
                         "a unique 'id' (a row with none is known by its line number)")  # fmt: skip
    return rows


@dataclass
class EditStage:
    """An editor's work on chunks of requests; built where it runs (this process, or each Ray
    worker) from what pickles: the spec and the editor's options."""

    spec: ClientSpec
    kind: str = "generative"
    settings: EditorSettings = field(default_factory=EditorSettings)
    index: Sequence[str] | None = None
    kb: str | None = None
    detector: str | None = None
    gate: GateSettings | None = None  # checker-gated editing (inference/gate.py)

    def __call__(self) -> Callable[[list[EditRequest]], list[EditResult]]:
        from favakit.inference.factory import announce, open_editor

        editor = open_editor(
            self.spec,
            self.kind,
            settings=self.settings,
            index=self.index,
            kb=self.kb,
            detector=self.detector,
            gate=self.gate,
        )
        announce(editor)

        def edit(requests: list[EditRequest]) -> list[EditResult]:
            items: list[EditInput] = list(requests)
            return editor.edit_many(items)

        return edit


@dataclass
class VerifyStage:
    """A verifier's work on chunks of claims (see :class:`EditStage`); ``options`` go to
    :func:`~favakit.inference.factory.open_verifier`, ``cache`` is a sqlite file of the judge's
    answers. A judge other than the editors reads a claim that comes without evidence against
    the ``k`` passages that ``options``' ``index`` (+ ``kb``) finds for it
    (:class:`~favakit.inference.verifiers.RetrievingVerifier`)."""

    kind: str
    spec: ClientSpec
    options: dict[str, Any] = field(default_factory=dict)
    cache: str | None = None
    k: int = 5
    verifier: Verifier | None = None  # set once built

    def __call__(self) -> Callable[[list[EditRequest]], list[Verdict]]:
        from favakit.inference.factory import announce, open_searcher, open_verifier
        from favakit.inference.verifiers import CitedSentences, RetrievingVerifier

        verifier = open_verifier(self.kind, self.spec, **self.options)
        if self.kind in ("encoder", "editor"):
            announce(verifier)  # the editors retrieve their own evidence
        else:
            verifier = RetrievingVerifier(verifier, open_searcher(self.options.get("index"),
                                          self.options.get("kb"), self.spec.device), self.k)  # fmt: skip
        verifier = CitedSentences(verifier)  # a claim's cited sentences, before any retrieval
        if self.cache:
            from favakit.llm import ResponseCache

            client = getattr(verifier, "client", None)
            if client is None or not hasattr(client, "cache"):
                raise UsageError("--cache keeps generated answers: use it with --judge verifier, "
                                 "llm or editor, not the encoder")  # fmt: skip
            client.cache = ResponseCache(self.cache)
        self.verifier = verifier
        return verifier.verify

    def cache_hits(self) -> int:
        client = getattr(self.verifier, "client", None)
        usage = getattr(client, "usage", None)
        return int(getattr(usage, "cache_hits", 0)) if self.cache else 0


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass


#: Seconds per text of about 125 words with its evidence, on the 2-core CPU machine, batched
#: (docs/benchmarks.md, "The shipped encoder detector beside the generative editor"). The
#: generative and cascade editors were measured without the gate, before session 88's faster
#: decoding; with the default gate they have taken about as long since (the demo's texts 4.2 s
#: each, a 1,062-word text 50-57 s, on a CPU with native bf16), so their figures stand for a
#: gated run. The encoder's is the detector alone: its gate adds :data:`GATE_SECONDS_PER_TEXT`.
CPU_SECONDS_PER_TEXT = {"generative": 4.4, "cascade": 3.5, "encoder": 0.05}


#: the words of the texts :data:`CPU_SECONDS_PER_TEXT` was measured on
TEXT_WORDS = 125

#: How many times :data:`CPU_SECONDS_PER_TEXT` an in-process editor takes on a CPU that does
#: not multiply bf16 natively, where it and its gate's Qwen judge run in fp32: ``favakit demo``
#: edited its texts in 12.3-12.9 s each on a 2-core AVX2-only machine against 4.2 s on one with
#: AVX512-BF16 (docs/benchmarks.md, session 89; the encoder, in int8, is left as it is)
FP32_SLOWER = 3.0

#: Seconds the gate's judge adds to each text of the encoder editor, in fp32 on a 2-core
#: AVX2-only CPU: 8 texts of ~72 words with ~220 words of evidence took 0.1 s each ungated,
#: 0.4 s behind the MiniLM checker, 2.4 s behind mpnet and 16.4 s behind the cascade (its Qwen
#: judge asked about the sentences mpnet is unsure of; docs/benchmarks.md, session 96). The
#: tuned Qwen judge alone as the gate is counted as the cascade, a floor; a checker folder as
#: mpnet.
GATE_SECONDS_PER_TEXT = {"checker": 0.3, "mpnet": 2.3, "cascade": 16.3}

#: How many times faster each gate runs on a CPU with native bf16 (the MiniLM checker 24 ->
#: 40 claims/s, mpnet 3.3 -> 7.0, the Qwen judge as :data:`FP32_SLOWER` says; docs/benchmarks.md)
GATE_BF16_FASTER = {"checker": 1.65, "mpnet": 2.1, "cascade": FP32_SLOWER}


def gate_cost(gate: str | None, native_bf16: bool = True) -> float:
    """Seconds the gate ``gate`` (a judge as ``--gate`` names it, ``auto`` resolved; None: no
    gate) adds per text of the encoder editor on a 2-core CPU (:data:`GATE_SECONDS_PER_TEXT`)."""
    if gate is None:
        return 0.0
    judge = gate if gate in GATE_SECONDS_PER_TEXT else "cascade" if gate == "qwen" else "mpnet"
    return GATE_SECONDS_PER_TEXT[judge] / (GATE_BF16_FASTER[judge] if native_bf16 else 1.0)


def cost_note(
    texts: int, kind: str, words: int = 0, native_bf16: bool = True, gate: str | None = None
) -> str | None:
    """What a run of ``texts`` texts of ``words`` words in all with an in-process editor of
    ``kind`` will take on a CPU (``native_bf16``: one that multiplies bf16 natively, else
    :data:`FP32_SLOWER` times as long), and the faster ways, said before it starts; None where
    it is quick anyway. ``gate``: the encoder editor's gate, whose judge costs it far more than
    the encoder itself (:func:`gate_cost`; the other editors' figures stand for a gated run).
    A long text costs at least as the texts of :data:`TEXT_WORDS` words it holds (it counted
    as one: a pasted document of 1,000 words ran 80 s with nothing said), and is said from a
    floor of 20 s, since it costs more than its words say."""
    from favakit.progress import duration

    per = CPU_SECONDS_PER_TEXT.get(kind)
    fp32 = not native_bf16 and kind != "encoder"  # the encoder runs in int8 either way
    if per is not None and fp32:
        per *= FP32_SLOWER
    if per is not None and kind == "encoder":
        per += gate_cost(gate, native_bf16)
    units = max(texts, words / TEXT_WORDS)
    # a long text's windows each read their own evidence, and the gate reads each sentence
    # against all of it: 1,000 words of the demo's articles took 80 s, 1,062 words with four
    # facts changed 155 s (98-113 s since session 87, the gate's first look stopping at a
    # supporting piece; 50-57 s since session 88, the editor drafting from its input in bf16),
    # where their words alone say 35-37 s, so its figure is a floor
    long = units > texts * 1.5
    if per is None or units * per < (20 if long else 60):
        return None
    what = f"{texts} texts" if texts > 1 else "1 text"
    at_least = "at least " if long else ""
    if long:
        what += f" of {words:,} words"
    cpu = "a 2-core CPU without native bf16" if not native_bf16 else "a 2-core CPU"
    editor = f"the {kind} editor" + (
        f" behind the {gate} gate" if kind == "encoder" and gate else ""
    )
    note = (
        f"{what}: on {cpu} {editor} takes about {per:.2g} s per text of "
        f"~{TEXT_WORDS} words (docs/benchmarks.md), so {at_least}about {duration(units * per)}"
    )
    quick = CPU_SECONDS_PER_TEXT["encoder"] + gate_cost("checker", native_bf16)
    if kind != "encoder":
        note += f"; faster: --backend encoder --gate checker (about {quick:.1g} s per text), a GPU"
        note += (
            ", a vLLM server (--llm-endpoint), or --limit N to try a few first"
            if texts > 1
            else " or a vLLM server (--llm-endpoint)"
        )
    elif gate not in (None, "checker"):
        note += f"; faster: --gate checker (about {quick:.1g} s per text) or --gate off"
    return note


#: A row's expected cost, in words, for the time left (:func:`row_work`): what every row costs
#: beside its words, and the evidence words past which a row costs no more (each model cuts
#: what it reads, but a text of several sentences is read sentence by sentence). Fitted on one
#: run, the default judge on the development split's 2,201 rows: the time left it gives was
#: off by 5% of the run on average, against 29% by the count of rows (docs/benchmarks.md,
#: session 80).
ROW_OVERHEAD_WORDS, EVIDENCE_WORDS_READ = 10, 1000


def row_work(request: EditRequest) -> float:
    """How long ``request`` is expected to take, as a weight: its text's words and its
    evidence's (no more than :data:`EVIDENCE_WORDS_READ`), plus :data:`ROW_OVERHEAD_WORDS`.
    A run whose long rows come last (a file sorted by source) then shows a time left that
    holds, where a count of rows would promise the end minutes too soon."""
    evidence = sum(len(e.text.split()) for e in request.evidence or [])
    return ROW_OVERHEAD_WORDS + len(request.text.split()) + min(evidence, EVIDENCE_WORDS_READ)


def progress_bar(
    total: int, show: bool, desc: str, unit: str, weights: Sequence[float] | None = None
) -> Any:
    """A :class:`~favakit.progress.Progress` on stderr (rate, time left, by ``weights``, each
    item's expected cost, where given; plain lines when stderr is not a terminal), or one that
    shows nothing (``show`` false, or one item)."""
    if not show or total <= 1:
        return _NoBar()
    from favakit.progress import Progress

    return Progress(total, f"{unit}s", f"favakit {desc}", weights=weights)


def _refuse_another(output: str | None, field: str, written: set[str], now: set[str]) -> None:
    if now - written:
        there = ", ".join(sorted(written))
        raise UsageError(
            f"{output} holds rows by {field} {there}, and this run's {field} is "
            f"{', '.join(sorted(now - written))}: resuming would mix the two in one file; give "
            "another --output, or the same options as the run that wrote it"
        )


def run_rows(
    rows: Sequence[tuple[str, EditRequest]],
    stage: Callable[[], Callable[[list[EditRequest]], list[Any]]],
    *,
    ray: RayOptions | None = None,
    batch: int = 8,
    output: str | None = None,
    emit: Callable[[dict[str, Any]], None] | None = None,
    progress: bool = False,
    desc: str = "edit",
    unit: str = "text",
    inputs: Mapping[str, str | None] | None = None,
    same: str | None = None,
) -> list[dict[str, Any]]:
    """Run ``stage`` over ``rows`` in chunks of ``batch``; each result gets its row's ``id``.

    Results go to ``output`` (JSONL, appended; ids already there are skipped) or to ``emit`` as
    they arrive; all of this run's results are returned. ``inputs`` (flag -> path): files the
    output must not be. ``same``: a result field (the judge, the model) that this run's results
    must share with the rows already in ``output``: a run resumed with another judge is refused
    at its first results, before any is written, rather than mixing two judges' rows in one
    file. Without ``ray`` the stage is built once here, before the output is opened."""
    if output:
        refuse_folder_output(output)  # before the stage loads its models
        refuse_output_over_input(output, inputs or {})
        refuse_output_in_use(output)
    if ray is None:
        work = stage()
        stage = lambda: work  # noqa: E731
    results: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        appender = stack.enter_context(JsonlAppender(output, note=same)) if output else None
        written = appender.noted if appender is not None else set()
        todo = [(i, r) for i, r in rows if appender is None or i not in appender]
        if appender is not None and len(todo) < len(rows):
            # whose they are, since a finished file is not read again: a run with another
            # judge or model would otherwise only say that nothing is left to do
            by = f" (their {same}: {', '.join(sorted(written))})" if same and written else ""
            print(
                f"favakit {desc}: {len(rows) - len(todo)} id(s) already in {output}{by}",
                file=sys.stderr,
            )
        weights = [row_work(r) for _, r in todo] if progress else None
        bar = stack.enter_context(progress_bar(len(todo), progress, desc, unit, weights))
        ids = iter([rid for rid, _ in todo])
        for chunk in map_chunks_in_order([r for _, r in todo], stage, ray, batch):
            if written and same is not None:
                _refuse_another(output, same, written, {str(res.get(same)) for res in chunk})
                written = set()  # checked once: this run's results are all the same
            for res in chunk:
                out = {"id": next(ids), **res}
                results.append(out)
                if appender is not None:
                    appender.append(out)
                elif emit is not None:
                    emit(out)
            bar.advance(len(chunk))  # a chunk's results come at once: count them so
    return results
