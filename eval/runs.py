"""Whole scoring runs: FActScore of a file of responses (``favakit eval factscore``) and the
FActScore gain of an editor (``favakit eval edit-gain``), for the CLI and for scripts.

Both read ``{"topic", "output", "atomic_facts"?, "labels"?}`` rows, check them and the knowledge
source before any model loads, work in batches of ``batch`` responses written to
``OUT.partial.jsonl`` (a rerun resumes there), and write ``OUT`` (JSON) at the end::

    from favakit.eval.runs import ScoreOptions, factscore
    summary = factscore(ScoreOptions("bios.jsonl", "kb.db", "out.json", judge="verifier",
                                     facts="rules"))
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import astuple, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from favakit.config import changed_settings
from favakit.distributed import RayOptions, map_chunks_in_order
from favakit.errors import UsageError
from favakit.eval.report import REPORT_FILES
from favakit.inference.editor import GenerativeEditor
from favakit.inference.judges import EditorJudge, Judge, VerifierJudge
from favakit.records import (
    JsonlAppender,
    atomic_open,
    read_jsonl,
    refuse_folder_output,
    refuse_output_in_use,
    refuse_output_over_input,
    refuse_replacing_other,
    valid_rows,
)
from favakit.spec import ClientSpec

if TYPE_CHECKING:
    from favakit.inference.gate import GateSettings
    from favakit.llm import LLMClient
    from favakit.progress import Progress

__all__ = [
    "FACT_JUDGES", "VERIFIER_JUDGES", "ScoreOptions", "Scorer", "edit_gain", "fact_judge",
    "factscore", "response_work",
]  # fmt: skip

#: FActScore's judges that are favakit verifiers asking no language model: the encoder checker
#: (the default), the cascade and the tuned Qwen judge (docs/checker.md)
VERIFIER_JUDGES = ("checker", "cascade", "qwen")
#: every judge ``--judge`` names
FACT_JUDGES = (*VERIFIER_JUDGES, "llm", "verifier", "editor")


#: a response's cost before its facts (retrieval, the call), in facts
RESPONSE_OVERHEAD_FACTS = 1.0
#: words of a response per fact it is expected to give, where its facts are not given
WORDS_PER_FACT = 10.0


def response_work(row: dict[str, Any], use_atomic_facts: bool) -> float:
    """How long scoring ``row`` is expected to take, as a weight for the time left: its facts
    (given in ``atomic_facts``, or one for every :data:`WORDS_PER_FACT` words of its output),
    each judged on its own, plus :data:`RESPONSE_OVERHEAD_FACTS`. A file whose long responses
    come last then shows a time left that holds."""
    facts = row.get("atomic_facts")
    if use_atomic_facts and isinstance(facts, list):
        n = float(len(facts))
    else:
        output = row.get("output")
        n = len(output.split()) / WORDS_PER_FACT if isinstance(output, str) else 0.0
    return RESPONSE_OVERHEAD_FACTS + n


@dataclass
class ScoreOptions:
    """What a FActScore run needs (the flags of ``favakit eval factscore``)."""

    input: str  # JSONL {"topic", "output", "atomic_facts"?, "labels"?}
    kb: str  # knowledge source (sqlite)
    out: str  # result JSON
    # checker, cascade, qwen, llm, verifier, editor; None: fact_judge()'s default
    judge: str | None = None
    spec: ClientSpec = field(default_factory=ClientSpec)  # the judge's model (or the facts')
    checker: str | None = None  # which checker the checker and cascade judges use
    chat: bool = False  # ask the llm judge through its chat template
    chunk_words: int | None = None
    threshold: float | None = None
    prompt_style: str | None = None
    gamma: float = 10.0  # length penalty
    demos: list[str] | None = None  # FActScore demos JSON files (facts="llm")
    facts: str = "llm"  # llm (shown demos) or rules
    use_atomic_facts: bool = False  # facts from the input's atomic_facts
    k: int = 5  # passages per fact
    retrieval: str = "bm25"
    cache: str | None = None  # sqlite cache of the judge's answers
    batch: int = 16  # responses per batch (and checkpoint)
    method: str = "factscore"  # or d-factscore
    decontextualize: str = "none"  # or molecular


def _rows(path: str, use_atomic_facts: bool) -> list[dict[str, Any]]:
    """The rows ``{"topic", "output", "atomic_facts"?, "labels"?}`` of a responses file, each
    checked (every bad row named, by its line)."""

    def checked(row: dict[str, Any], _: int, where: str) -> dict[str, Any]:
        if not isinstance(row.get("topic"), str) or not isinstance(row.get("output"), str):
            raise UsageError(f'{where}: expected {{"topic", "output"}}')
        if use_atomic_facts and not isinstance(row.get("atomic_facts"), list):
            raise UsageError(f"{where}: --use-atomic-facts needs 'atomic_facts'")
        if row.get("labels") is not None and (
            not isinstance(row.get("atomic_facts"), list)
            or len(row["labels"]) != len(row["atomic_facts"])
        ):
            raise UsageError(f"{where}: 'labels' must pair with 'atomic_facts'")
        return row

    rows = valid_rows(path, checked)
    if not rows:
        raise UsageError(f"{path} has no rows")
    return rows


class Scorer:
    """What ``factscore`` and ``edit-gain`` share: rows, retriever, judge client, judge, facts."""

    def __init__(self, opts: ScoreOptions, models: bool = True) -> None:
        """``models=False`` checks the rows and the KB without loading the judge (a Ray
        driver, whose workers load their own)."""
        from favakit.retrieval.evidence import TopicRetriever

        self.rows = _rows(opts.input, opts.use_atomic_facts)
        if opts.demos and (opts.use_atomic_facts or opts.facts == "rules"):
            raise UsageError(
                "--demos show the language model how to split facts (--facts llm); with "
                f"{'--use-atomic-facts' if opts.use_atomic_facts else '--facts rules'} no model "
                "splits them, so --demos would change nothing: leave it out"
            )
        if not opts.use_atomic_facts and not opts.demos and opts.facts == "llm":
            raise UsageError(
                "give --demos FILE.json (FActScore's {sentence: [facts]}), or "
                "--use-atomic-facts with facts in the input, or --facts rules"
            )
        self.kind = fact_judge(opts)
        if self.kind not in FACT_JUDGES:
            raise UsageError(f"judge must be one of {', '.join(FACT_JUDGES)}, not {self.kind!r}")
        asks_lm = [need for need, asked in (
            ("--facts llm", opts.facts == "llm" and not opts.use_atomic_facts),
            ("--decontextualize molecular", opts.decontextualize == "molecular"),
            ("--method d-factscore", opts.method == "d-factscore"),
        ) if asked]  # fmt: skip
        if self.kind in VERIFIER_JUDGES and asks_lm and not opts.spec.names_model:
            instead = [f"leave out {need}" for need in asks_lm if need != "--facts llm"]
            if "--facts llm" in asks_lm:
                instead.insert(0, "give --facts rules or --use-atomic-facts")
            raise UsageError(
                f"{' and '.join(asks_lm)} ask(s) a language model, and --judge {self.kind} is "
                f"none: name one with --model or --llm-endpoint, or {', or '.join(instead)}"
            )
        if self.kind in VERIFIER_JUDGES and not asks_lm and opts.spec.names_model:
            raise UsageError(
                f"--model, --adapter and --llm-endpoint name the model that splits facts (--facts "
                f"llm), decontextualizes them or runs d-factscore; --judge {self.kind} judges "
                "with its own, and nothing here asks a language model: leave them out"
            )
        if opts.checker and self.kind not in ("checker", "cascade"):
            raise UsageError("--checker is for --judge checker or cascade")
        if opts.chat and self.kind in VERIFIER_JUDGES:
            raise UsageError("--chat is for --judge llm")
        self.retriever = TopicRetriever(opts.kb, method=opts.retrieval, k=opts.k)
        kb = self.retriever.kb
        missing = sorted({r["topic"] for r in self.rows if kb.resolve(r["topic"]) is None})
        if missing:
            named = ", ".join(repr(t) for t in missing[:3]) + (" ..." if len(missing) > 3 else "")
            raise UsageError(
                f"{len(missing)} topic(s) are not articles of {opts.kb}: {named}; each response "
                "is judged against its topic's article: add those articles (favakit kb build) "
                "or leave out their rows"
            )
        if models:
            self._load(opts)

    def _load(self, opts: ScoreOptions) -> None:
        from favakit.decompose import RuleFactSplitter
        from favakit.eval.factscore import AtomicFactGenerator
        from favakit.inference.factory import open_editor, open_verifier
        from favakit.inference.generators import open_client
        from favakit.inference.verifiers import LLMVerifier
        from favakit.llm import ResponseCache

        self.judge: Judge | EditorJudge | VerifierJudge
        # the client that splits and rewrites facts (and, for an LM judge, judges them)
        self.client: LLMClient | None = None
        kind = self.kind
        if kind in VERIFIER_JUDGES:
            # the verifier's own model; a named model is the facts' (--facts llm), and so are
            # --backend and --dtype then: without one they are the cascade's and qwen's LLM's
            spec = ClientSpec(device=opts.spec.device, max_batch=opts.spec.max_batch)
            if kind != "checker" and not opts.spec.names_model:
                spec = spec.with_(backend=opts.spec.backend, dtype=opts.spec.dtype)
            self.judge = VerifierJudge(open_verifier(
                kind, spec, chunk_words=opts.chunk_words, threshold=opts.threshold,
                style=opts.prompt_style, checker=opts.checker,
            ))  # fmt: skip
            if opts.spec.names_model:
                self.client = open_client(opts.spec)
        elif kind == "editor":
            if opts.chunk_words or opts.threshold is not None or opts.prompt_style:
                raise UsageError(
                    "--chunk-words, --threshold and --prompt-style are for --judge verifier or llm"
                )
            editor = open_editor(opts.spec)  # kind "generative": an LM behind a client
            assert isinstance(editor, GenerativeEditor)
            self.client = editor.client
            self.judge = EditorJudge(editor)
        elif kind == "llm" and not opts.spec.names_model:
            # FActScore's judge has no default model: the client raises the usual error
            self.client = open_client(opts.spec)
        else:
            verifier = open_verifier(
                kind, opts.spec, chunk_words=opts.chunk_words, threshold=opts.threshold,
                style=opts.prompt_style, chat=opts.chat,
            )  # fmt: skip
            assert isinstance(verifier, LLMVerifier)
            self.client, self.judge = verifier.client, verifier.judge
        if opts.cache and self.client is not None:  # a verifier judge answers without one
            self.client.cache = ResponseCache(opts.cache)
        self.facts: Any = None
        if not opts.use_atomic_facts and opts.facts == "rules":
            self.facts = RuleFactSplitter()
        elif not opts.use_atomic_facts:
            demos: dict[str, list[str]] = {}
            for path in opts.demos or []:
                demos.update(json.loads(Path(path).read_text(encoding="utf-8")))
            self.facts = AtomicFactGenerator(self.lm, demos)

    @property
    def lm(self) -> LLMClient:
        """The language model that splits and rewrites facts (a run that needs one and has no
        judge that is one names one: checked before anything loads)."""
        assert self.client is not None, "checked in Scorer.__init__"
        return self.client

    def usage(self) -> dict[str, Any]:
        used = self.client.usage.to_dict() if self.client is not None else {}
        return {**used, "verdicts": dict(self.judge.how)}


def _say_missing_base(opts: ScoreOptions, command: str) -> None:
    """Where the judge is favakit's default, whether it is a lesser one only because a base
    is not installed (:func:`~favakit.inference.factory.say_missing_base`)."""
    if opts.judge or opts.checker or opts.spec.names_model:
        return
    from favakit.inference.factory import say_missing_base

    say_missing_base(f"favakit eval {command}")


def fact_judge(opts: ScoreOptions) -> str:
    """The judge a run uses: ``opts.judge``, else the llm judge where a model is named (as
    FActScore asks one), else the checker ``opts.checker`` names, else favakit's default judge
    of real claims (:func:`~favakit.inference.factory.auto_judge`: the cascade where both its
    bases are installed, else the encoder checker; docs/checker.md)."""
    if opts.judge:
        return opts.judge
    from favakit.inference.factory import default_judge

    return default_judge(opts.spec.names_model, bool(opts.checker), model_judge="llm")


@dataclass
class _Work:
    """A run's per-row work beside its ``--out`` (``OUT.partial.jsonl``: a killed run resumes
    from it) and the settings its rows are made under (``OUT.partial.json`` beside it)."""

    path: Path
    settings: dict[str, Any]

    def begin(self) -> None:
        """The settings written where this run starts the work file (not where it resumes one,
        nor where it fails before its first row: no settings file is left without work)."""
        if not self.path.exists():
            self.path.with_suffix(".json").write_text(
                json.dumps(self.settings, indent=1) + "\n", encoding="utf-8"
            )


def work_path(out: str | Path) -> Path:
    """Where a run writing ``out`` keeps its per-row work (``OUT.partial.jsonl``)."""
    out = Path(out)
    return out.with_name(out.name + ".partial.jsonl")


#: each command's result: the keys that tell an earlier one, in words, the files beside it
_RESULTS: dict[str, tuple[tuple[str, ...], str, tuple[str, ...]]] = {
    "factscore": (("score", "usage"), "FActScore result", ()),
    "edit-gain": (("gain", "usage"), "editing-gain result", (*REPORT_FILES, ".edits.png")),
}


def _work_file(out: Path, command: str, opts: ScoreOptions, **more: Any) -> _Work:
    """The work of a run writing ``out``, checked: a run under other settings (another command,
    input, judge or editor) refuses unfinished work rather than mix its rows into a result."""
    refuse_folder_output(out, "result.json")
    refuse_output_over_input(out, {"--input": opts.input, "--kb": opts.kb, "--cache": opts.cache})
    result_keys, what, beside = _RESULTS[command]
    refuse_replacing_other(out, result_keys, what, beside)
    work = work_path(out)
    refuse_output_in_use(work)  # another run on this --out, now
    noted = work.with_suffix(".json")
    settings = _run_settings(command, opts, **more)
    if work.exists() and noted.exists():
        before = json.loads(noted.read_text(encoding="utf-8"))
        keys = ["command"] if before.get("command") != command else list(settings)
        differ = changed_settings({k: before.get(k) for k in keys}, {k: settings[k] for k in keys})
        if differ:
            raise UsageError(
                f"{work} holds the unfinished work of another run ({differ}): give "
                f"another --out, or delete it and {noted.name} to start again"
            )
    return _Work(work, settings)


def _run_settings(command: str, opts: ScoreOptions, **more: Any) -> dict[str, Any]:
    """What a run's per-row results depend on (``gamma`` only weighs them at the end)."""
    import hashlib

    spec = opts.spec
    return {
        "command": command,
        "input_sha256": hashlib.sha256(Path(opts.input).read_bytes()).hexdigest()
        if Path(opts.input).is_file() else None,  # (the scorer then says what is wrong)
        "kb": str(Path(opts.kb).resolve()),
        "judge": fact_judge(opts), "checker": opts.checker, "model": spec.model,
        "adapter": spec.adapter, "endpoint": spec.endpoint, "chat": opts.chat,
        "chunk_words": opts.chunk_words, "threshold": opts.threshold,
        "prompt_style": opts.prompt_style, "facts": opts.facts, "demos": opts.demos,
        "use_atomic_facts": opts.use_atomic_facts, "k": opts.k, "retrieval": opts.retrieval,
        "method": opts.method, "decontextualize": opts.decontextualize, **more,
    }  # fmt: skip


def _progress(weights: list[float], todo: list[int], desc: str) -> Progress:
    """The progress of a run of ``len(weights)`` responses with ``todo`` still to score (the
    rest done by an earlier run, counted first): its time left weighs each of ``todo`` by
    ``weights``."""
    from favakit.progress import Progress

    n, before = len(weights), len(weights) - len(todo)
    # the rows done before are not this run's work: their weight would only offset the sums
    return Progress(n, "responses", f"favakit {desc}", initial=before,
                    weights=[0.0] * before + [weights[i] for i in todo])  # fmt: skip


def _chunks(
    work: Path, weights: list[float], batch: int, desc: str
) -> Iterator[tuple[JsonlAppender, list[int]]]:
    """Yield (appender, chunk of row indices not yet in ``work``), with its progress, its time
    left by ``weights`` (one per row)."""
    with JsonlAppender(work) as done:
        todo = [i for i in range(len(weights)) if str(i) not in done]
        with _progress(weights, todo, desc) as progress:
            for start in range(0, len(todo), batch):
                chunk = todo[start : start + batch]
                yield done, chunk
                progress.advance(len(chunk))


def _finish(out: Path, work: Path, result: dict[str, Any], summary: dict[str, Any]) -> None:
    with atomic_open(out) as fh:
        fh.write(json.dumps(result, indent=1) + "\n")
    work.unlink()
    work.with_suffix(".json").unlink(missing_ok=True)  # its settings
    print(json.dumps(summary, indent=1))
    print(f"wrote {out}; usage {json.dumps(result['usage'])}", file=sys.stderr)


def _refuse_an_unused_cache(opts: ScoreOptions) -> None:
    """``factscore --cache`` where nothing would go into it: a checker, cascade or Qwen judge
    keeps no answers there, and rule-split facts ask no model (it ran, the cache empty). In
    ``edit-gain`` the cache keeps the editor's answers, so it is never unused there."""
    judge = fact_judge(opts)
    if opts.cache and judge in VERIFIER_JUDGES and not opts.spec.names_model:
        raise UsageError(f"--cache keeps the answers of --judge verifier, llm or editor (and of "
                         f"a --model splitting facts), not of --judge {judge}: leave it out")  # fmt: skip


def _refuse_unread_model_flags(opts: ScoreOptions) -> None:
    """``factscore --judge checker --dtype bfloat16`` with no model named: nothing reads them
    (the checker is an encoder of its own). In ``edit-gain`` they are the editor's too."""
    if fact_judge(opts) != "checker" or opts.spec.names_model:
        return
    given = [flag for flag, value in (("--dtype", opts.spec.dtype),
                                      ("--backend", opts.spec.backend)) if value != "auto"]  # fmt: skip
    if given:
        raise UsageError(f"{' and '.join(given)}: the checker judge is an encoder of its own and "
                         "reads no language model; they are for --judge cascade, qwen, llm, "
                         "verifier and editor, or the --model that splits facts")  # fmt: skip


def factscore(opts: ScoreOptions, ray: RayOptions | None = None) -> dict[str, Any]:
    """FActScore of ``opts.input``, written to ``opts.out``; returns (and prints) the summary.
    With ``ray`` the responses are scored by a pool of workers, each with its own judge."""
    from favakit.eval.factscore import aggregate, agreement

    out = Path(opts.out)
    _refuse_an_unused_cache(opts)
    _refuse_unread_model_flags(opts)
    work = _work_file(out, "factscore", opts)  # before the judge loads
    sc = Scorer(opts, models=ray is None)
    _say_missing_base(opts, "factscore")
    rows = sc.rows
    # without Ray the stage reuses the scorer just built; each Ray worker builds its own
    factory = _FactscoreStage(opts, None if ray else sc)
    n = len(rows)
    work.begin()
    with JsonlAppender(work.path) as done:
        items = [(i, rows[i]) for i in range(n) if str(i) not in done]
        weights = [response_work(r, opts.use_atomic_facts) for r in rows]
        with _progress(weights, [i for i, _ in items], "factscore") as progress:
            for chunk in map_chunks_in_order(items, factory, ray, opts.batch):
                for record in chunk:
                    done.append(record)
                progress.advance(len(chunk))  # a chunk's results come at once
    by_id = {r["id"]: r for r in read_jsonl(work.path)}
    decisions = [by_id[str(i)]["decisions"] for i in range(len(rows))]
    result = aggregate(decisions, opts.gamma)
    if opts.method == "d-factscore":
        d_decisions = [by_id[str(i)].get("d_decisions") for i in range(len(rows))]
        dscore = aggregate(d_decisions, opts.gamma)
        result.update(
            d_factscore=dscore["score"], d_init_score=dscore["init_score"], d_decisions=d_decisions
        )
    result["n"] = len(rows)
    result["usage"] = (
        sc.usage() if ray is None else {"note": "--ray: each worker counts its own usage"}
    )
    labels = [
        dict(zip(r["atomic_facts"], r["labels"], strict=True)) if r.get("labels") else None
        for r in rows
    ]
    if any(labels):
        result["agreement"] = agreement(decisions, labels)
    keys = ("score", "init_score", "d_factscore", "respond_ratio", "num_facts_per_response", "n")
    summary = {k: result[k] for k in keys if k in result}
    if "agreement" in result:
        summary["agreement"] = result["agreement"]
    _finish(out, work.path, result, summary)
    return summary


@dataclass
class _FactscoreStage:
    """FActScore's per-chunk work (in this process, or once per Ray worker with its own judge):
    ``[(row index, row)]`` -> the decisions records the work file holds."""

    opts: ScoreOptions
    scorer: Scorer | None = None

    def __call__(self) -> Callable[[list[tuple[int, dict[str, Any]]]], list[dict[str, Any]]]:
        from favakit.eval.factscore import collect_atoms, score_outputs
        from favakit.eval.successors import Decontextualizer, FactGrouper, link_groups

        opts = self.opts
        sc = self.scorer or Scorer(opts)
        retriever, judge = sc.retriever, sc.judge
        molecular = Decontextualizer(sc.lm) if opts.decontextualize == "molecular" else None
        grouper = FactGrouper(sc.lm) if opts.method == "d-factscore" else None

        def score(items: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
            part = [row for _, row in items]
            atoms = collect_atoms(part, sc.facts, opts.use_atomic_facts)
            if molecular is not None:
                atoms = {
                    j: molecular.molecular(part[j]["topic"], part[j]["output"], fs)
                    for j, fs in atoms.items()
                }
            decisions = score_outputs(part, retriever.retrieve, judge, atoms=atoms)
            records = []
            for j, ((i, row), d) in enumerate(zip(items, decisions, strict=True)):
                record: dict[str, Any] = {"id": str(i), "decisions": d}
                if grouper is not None and d:
                    topic = row["topic"]
                    kb = retriever.kb
                    names = kb.titles_with_base(topic) or [str(kb.resolve(topic))]
                    record["d_decisions"] = link_groups(
                        topic, atoms[j], grouper.groups(topic, atoms[j]), names,
                        retriever.retrieve, judge,
                    )  # fmt: skip
                records.append(record)
            return records

        return score


def edit_gain(
    opts: ScoreOptions, editor_spec: ClientSpec, gate: GateSettings | None = None
) -> dict[str, Any]:
    """FActScore of ``opts.input`` before and after the editor ``editor_spec`` describes (the
    topic's article as evidence), behind the checker ``gate`` names (as ``favakit edit`` runs
    it; None: the editor alone), with edits per type; writes JSON, Markdown, HTML and charts at
    ``opts.out``; returns (and prints) the summary."""
    from favakit.eval.edit_gain import edit_rows, gain_summary
    from favakit.eval.factscore import aggregate, score_outputs
    from favakit.eval.report import bar_chart, edit_gain_markdown, write_report
    from favakit.inference.factory import open_editor
    from favakit.llm import ResponseCache
    from favakit.tags import ERROR_TYPES

    out = Path(opts.out)
    work = _work_file(out, "edit-gain", opts, editor=[editor_spec.model, editor_spec.adapter,
                      editor_spec.endpoint], gate=None if gate is None else list(astuple(gate)))  # fmt: skip
    sc = Scorer(opts)  # the judge loads, then the editor
    _say_missing_base(opts, "edit-gain")
    # kind "generative"; naming no model: the shipped editor
    editor = open_editor(editor_spec, gate=gate)
    inner = getattr(editor, "editor", editor)  # a GatedEditor's editor, or the editor itself
    assert isinstance(inner, GenerativeEditor)
    client = inner.client
    if opts.cache and client.cache is None:
        client.cache = ResponseCache(opts.cache)
    rows, retrieve = sc.rows, sc.retriever.retrieve
    work.begin()
    weights = [response_work(r, opts.use_atomic_facts) for r in rows]
    for done, chunk in _chunks(work.path, weights, opts.batch, "edit-gain"):
        part = [rows[i] for i in chunk]
        edits = edit_rows(part, editor, retrieve)
        edited = [
            {**r, "output": e["corrected"] if e is not None else r["output"]}
            for r, e in zip(part, edits, strict=True)
        ]
        before = score_outputs(part, retrieve, sc.judge, sc.facts)
        after = score_outputs(edited, retrieve, sc.judge, sc.facts)
        for i, e, b, a in zip(chunk, edits, before, after, strict=True):
            done.append({"id": str(i), "edit": e, "before": b, "after": a})
    by_id = {r["id"]: r for r in read_jsonl(work.path)}
    recs = [by_id[str(i)] for i in range(len(rows))]
    before_all = aggregate([r["before"] for r in recs], opts.gamma)
    after_all = aggregate([r["after"] for r in recs], opts.gamma)
    result = gain_summary(before_all, after_all, [r["edit"] for r in recs])
    result["decisions_before"] = before_all["decisions"]
    result["decisions_after"] = after_all["decisions"]
    result["edits"] = [r["edit"] for r in recs]
    result["editor"] = editor.model
    result["usage"] = {"judge": sc.usage(), "editor": client.usage.to_dict()}
    png = out.with_suffix(".png")
    keys = ("score", "init_score", "respond_ratio")
    charts = []
    if bar_chart(
        png, "FActScore before and after editing", list(keys),
        {"before": [before_all[k] for k in keys], "after": [after_all[k] for k in keys]},
    ):  # fmt: skip
        charts.append(png)
    per_type = out.with_name(out.stem + ".edits.png")
    if bar_chart(
        per_type, "Edits per error type", list(ERROR_TYPES),
        {"edits": [result["edits_per_type"].get(t, 0) for t in ERROR_TYPES]},
    ):  # fmt: skip
        charts.append(per_type)
    write_report(out, edit_gain_markdown(result), charts, title="favakit editing gain")
    summary = {k: result[k] for k in ("gain", "init_gain", "facts_per_response_change",
                                      "respond_ratio_change", "edits_per_type", "n")}  # fmt: skip
    _finish(out, work.path, result, summary)
    return summary
