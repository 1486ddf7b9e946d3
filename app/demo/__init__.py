"""``favakit demo``: the whole job on a small, self-contained example.

The package ships ``kb.jsonl``, about 30 encyclopedic passages written for favakit, and
``texts.jsonl``, short texts about those topics with planted errors of every type (each row holds
the planted errors as a tagged text in the edit view). The demo builds a knowledge source and a
BM25 index from the passages, runs the default editor on the texts with evidence retrieved from
that source, prints each text coloured by error type next to what was planted, writes the HTML
view, and scores the texts before and after editing with FActScore.

FActScore here takes each sentence as one fact and asks favakit's claim verifier (the shipped
adapter over SmolLM2, one token per fact) whether the topic's passages support it; with
``backend="encoder"`` the encoder detector judges (a fact with no span found is supported). The
verifier is a separate model from the editor, but a small one trained on favakit's synthetic
errors: on real claims it is near chance (docs/verifier.md), so read the two scores as a
demonstration of the pipeline, not as a measure of factuality.

Each stage that takes more than a few seconds shows its progress, rate and time left.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from favakit.inference.gate import GateSettings

__all__ = ["build_demo_knowledge", "demo_texts", "run_demo"]


def _data(name: str) -> Path:
    return Path(str(files("favakit.demo") / name))


def demo_texts() -> list[dict[str, Any]]:
    """The demo rows: ``{"id", "topic", "text", "planted"}`` (``text`` is the planted text's
    original view, the one the editor sees)."""
    from favakit.tags import parse

    rows = []
    for line in _data("texts.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            row["text"] = parse(row["planted"]).original()
            rows.append(row)
    return rows


CHUNK = 8  # texts edited together (the in-process batch), between progress lines


#: what the demo writes into its folder
DEMO_FILES = ("kb.db", "bm25", "edits.jsonl", "edits.html", "demo.json")


def _refuse_a_folder_not_the_demos(folder: Path) -> None:
    """The demo's ``--out`` holds nothing of the demo's names, or an earlier demo's: ``--out
    runs`` replaced a user's own ``runs/kb.db`` with the demo's 30 articles."""
    from favakit.errors import UsageError

    kb = folder / "kb.db"
    if kb.exists():
        if not _is_demo_kb(kb):
            raise UsageError(
                f"--out {folder} holds a kb.db that is not the demo's, which the demo would "
                f"replace: give another --out, such as {folder / 'demo'}"
            )
        return
    theirs = [name for name in DEMO_FILES if (folder / name).exists()]
    if theirs:
        raise UsageError(
            f"--out {folder} holds {', '.join(theirs)}, which the demo would replace, and no demo "
            f"knowledge source: give another --out, such as {folder / 'demo'}"
        )


def _is_demo_kb(path: Path) -> bool:
    """Whether ``path`` is a knowledge source of the demo's articles (an earlier demo's)."""
    from favakit.errors import FavakitError
    from favakit.retrieval.kb import KnowledgeSource

    wanted = {json.loads(line)["title"] for line in _data("kb.jsonl").read_text().splitlines()
              if line.strip()}  # fmt: skip
    try:
        with KnowledgeSource(path) as kb:
            return set(kb.titles()) == wanted
    except FavakitError:
        return False


def build_demo_knowledge(folder: Path) -> tuple[Path, Path, int, int]:
    """The demo's knowledge source (``kb.db``) and BM25 index (``bm25/``) in ``folder``, built
    afresh each run, so a second ``make demo`` rebuilds the first one's index instead of stopping
    at it. Returns the two paths and the numbers of articles and passages."""
    from favakit.retrieval.index import build_index
    from favakit.retrieval.kb import build_kb

    kb_path, index = folder / "kb.db", folder / "bm25"
    stats = build_kb(_data("kb.jsonl"), kb_path)
    if (index / "meta.json").exists():  # an index this demo built before; anything else stays
        shutil.rmtree(index)
    build_index(kb_path, index, kind="bm25")
    return kb_path, index, stats.documents, stats.passages


def _say(out: TextIO, line: str = "") -> None:
    print(line, file=out, flush=True)


def run_demo(
    out_dir: str | Path,
    *,
    adapter: str | None = None,
    model: str = "",
    limit: int = 0,
    color: bool | None = None,
    out: TextIO = sys.stdout,
    backend: str = "generative",
    detector: str | None = None,
    gate: str | GateSettings | None = "auto",
) -> dict[str, Any]:
    """Run the demo into ``out_dir``; returns its figures (also written as ``demo.json``).

    ``backend="encoder"`` runs the encoder detector (``detector``, default the shipped one)
    instead of the generative editor, for finding, fixing and judging alike. ``gate``: the
    checker's gate over the editor, as ``favakit edit --gate`` (a judge's name or
    :class:`~favakit.inference.gate.GateSettings`; None: no gate)."""
    from favakit.deps import require

    # every stage after the first runs a model in this process: say so before the first runs
    for module, extra in (("torch", "train"), ("transformers", "train"), ("numpy", "retrieval")):
        require(module, extra, "the demo")
    from favakit.contracts import Editor
    from favakit.errors import UsageError
    from favakit.eval.detect import annotated_from_row, detection_report
    from favakit.eval.factscore import aggregate
    from favakit.inference import views
    from favakit.inference.editor import EditorSettings
    from favakit.inference.factory import open_editor, open_verifier
    from favakit.inference.judges import Check, EditorJudge, FactJudge
    from favakit.inference.verifiers import LLMVerifier
    from favakit.progress import Progress
    from favakit.records import output_folder, write_jsonl_atomic
    from favakit.retrieval.evidence import TopicRetriever
    from favakit.spec import ClientSpec
    from favakit.tags import parse
    from favakit.text import split_sentences

    if backend == "encoder" and (model or adapter):
        raise UsageError("--model and --adapter name the generative editor's model; --backend "
                         "encoder runs the encoder detector (--detector names another)")  # fmt: skip
    if backend != "encoder" and detector is not None:  # refused before the knowledge source
        raise UsageError(f"--detector {detector}: a detector serves --backend encoder; the "
                         "demo's generative editor reads none")  # fmt: skip
    if Path(out_dir).is_dir():
        _refuse_a_folder_not_the_demos(Path(out_dir))
    folder = output_folder(out_dir)
    color = out.isatty() if color is None else color
    t0 = time.perf_counter()

    _say(out, "== 1. a knowledge source from the demo passages, and a BM25 index over it")
    kb_path, index, documents, passages = build_demo_knowledge(folder)
    _say(out, f"{documents} articles, {passages} passages -> {kb_path}")

    if backend == "encoder":
        _say(out, "\n== 2. the encoder detector on texts with planted errors")
    else:
        _say(out, "\n== 2. the default editor on texts with planted errors")
    editor: Editor = open_editor(
        ClientSpec(model=model, adapter=adapter),
        "encoder" if backend == "encoder" else "generative",
        settings=EditorSettings(k=2),
        index=[str(index)],
        kb=str(kb_path),
        detector=detector,
        gate=gate,
    )
    _say(out, f"model: {editor.model}")
    rows = demo_texts()[: limit or None]
    t_edit = time.perf_counter()
    results = []
    with Progress(len(rows), "texts", "editing", out=out) as progress:
        for start in range(0, len(rows), CHUNK):  # a batch at a time: progress between them
            part = rows[start : start + CHUNK]
            results += editor.edit_many([{"text": r["text"], "topic": r["topic"]} for r in part])
            progress.advance(len(part))
    edit_seconds = time.perf_counter() - t_edit
    results = [{"id": r["id"], **res} for r, res in zip(rows, results, strict=True)]
    for row, res in zip(rows, results, strict=True):
        planted = [f"{e.type}: {e.wrong!r}" for e in parse(row["planted"]).edits]
        view = views.ansi(res) if color else views.plain(res)
        _say(out, view)
        _say(out, f"   planted: {'; '.join(planted) or 'nothing (a correct text)'}")
    write_jsonl_atomic(folder / "edits.jsonl", results)
    (folder / "edits.html").write_text(views.html_page(results), encoding="utf-8")
    _say(out, f"\nHTML view: {folder / 'edits.html'}")

    pairs = [
        (annotated_from_row({"tagged": r["planted"]}), annotated_from_row(res))
        for r, res in zip(rows, results, strict=True)
    ]
    report = detection_report(pairs)
    _say(
        out,
        f"planted errors found (sentence level, {len(rows)} texts): binary F1 "
        f"{report['binary']['f1']:.2f}, macro F1 over the six types {report['macro_f1']:.2f}",
    )

    who = "encoder" if backend == "encoder" else "favakit's claim verifier"
    _say(out, f"\n== 3. FActScore before and after editing (one fact per sentence; judge: {who})")
    retriever = TopicRetriever(str(kb_path), k=2)
    judge: FactJudge
    if backend == "encoder":
        judge = EditorJudge(editor)
    else:
        verifier = open_verifier("verifier")
        assert isinstance(verifier, LLMVerifier)
        judge = verifier.judge

    def score(texts: list[str], when: str) -> dict[str, Any]:
        checks = [
            (i, Check(r["topic"], s, retriever.retrieve(r["topic"], s)))
            for i, (r, text) in enumerate(zip(rows, texts, strict=True))
            for s in split_sentences(text)
        ]
        verdicts: list[bool] = []
        with Progress(len(checks), "facts", f"judging {when}", out=out) as progress:
            for start in range(0, len(checks), 4 * CHUNK):
                part = [c for _, c in checks[start : start + 4 * CHUNK]]
                verdicts += judge.judge(part)
                progress.advance(len(part))
        decisions: list[list[dict[str, Any]] | None] = [None] * len(rows)
        for (i, check), ok in zip(checks, verdicts, strict=True):
            decisions[i] = (decisions[i] or []) + [{"atom": check.fact, "is_supported": ok}]
        return aggregate(decisions, gamma=0)

    before = score([r["text"] for r in rows], "before")
    after = score([res["corrected"] for res in results], "after")
    _say(
        out,
        f"FActScore before {before['init_score']:.3f} "
        f"({before['num_facts_per_response']:.1f} facts per text), after "
        f"{after['init_score']:.3f} ({after['num_facts_per_response']:.1f} facts per text)",
    )
    figures = {
        "model": editor.model,
        "texts": len(rows),
        "edits": sum(len(r["edits"]) for r in results),
        "faithful": sum(1 for r in results if r["faithful"]),
        "binary_f1": report["binary"]["f1"],
        "macro_f1": report["macro_f1"],
        "factscore_before": before["init_score"],
        "factscore_after": after["init_score"],
        "edit_seconds": round(edit_seconds, 1),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    (folder / "demo.json").write_text(json.dumps(figures, indent=2), encoding="utf-8")
    _say(out, f"\ndone in {figures['seconds']} s; figures in {folder / 'demo.json'}")
    return figures
