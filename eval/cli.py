"""``favakit eval detect`` and ``favakit eval factscore`` (light at import time)."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

from favakit.distributed import add_ray_options, map_in_order, ray_options
from favakit.errors import UsageError

__all__ = ["configure"]


def _rows(path: str) -> list[tuple[str | None, dict[str, Any], str]]:
    from favakit.records import numbered_jsonl

    out = []
    for lineno, row in numbered_jsonl(path):
        rid = row.get("id")
        out.append((None if rid is None else str(rid), row, f"{path}:{lineno}"))
    if not out:
        raise UsageError(f"{path} has no rows")
    return out


def _detect(args: argparse.Namespace) -> int:
    from favakit.eval.detect import annotated_from_row, detection_report, markdown_table

    gold, pred = _rows(args.gold), _rows(args.pred)
    by_id = all(i is not None for i, _, _ in gold) and all(i is not None for i, _, _ in pred)
    if by_id:
        preds = {i: (row, where) for i, row, where in pred}
        pairs_raw = []
        for i, row, where in gold:
            if i not in preds:
                raise UsageError(f"{where}: no prediction for id {i!r} in {args.pred}")
            pairs_raw.append((row, where, *preds[i]))
    else:
        if len(gold) != len(pred):
            raise UsageError(
                f"{args.gold} has {len(gold)} rows and {args.pred} {len(pred)}; without ids on "
                "both sides rows are matched by line, so the counts must be equal"
            )
        pairs_raw = [(g[1], g[2], p[1], p[2]) for g, p in zip(gold, pred, strict=True)]
    pairs = [(annotated_from_row(g, gw), annotated_from_row(p, pw)) for g, gw, p, pw in pairs_raw]
    report = detection_report(pairs)
    tables = [markdown_table(report)]
    if args.by:
        groups: dict[str, list[Any]] = {}
        for (g_row, _, _, _), pair in zip(pairs_raw, pairs, strict=True):
            groups.setdefault(str(g_row.get(args.by, "")), []).append(pair)
        report["by"] = {name: detection_report(items) for name, items in sorted(groups.items())}
        tables += [markdown_table(r, f"{args.by} = {n}") for n, r in report["by"].items()]
    text = json.dumps(report, indent=1)
    # files first: a reader that closes stdout early (`| head`) must not cost the reports
    if args.out:
        from favakit.eval.report import bar_chart, write_report
        from favakit.tags import ERROR_TYPES

        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")
        png = out.with_suffix(".png")
        drawn = bar_chart(
            png, "Detection F1 per error type", [*ERROR_TYPES, "any error"],
            {
                "sentence F1": [report["per_type"][t]["f1"] for t in ERROR_TYPES]
                + [report["binary"]["f1"]],
                "span F1": [report["span"]["per_type"][t]["f1"] for t in ERROR_TYPES]
                + [report["span"]["micro"]["f1"]],
            },
        )  # fmt: skip
        write_report(out, "\n".join(tables), [png] if drawn else [], title="favakit detection")
        print(f"wrote {out} (+ .md, .html{', .png' if drawn else ''})", file=sys.stderr)
    print(text)
    return 0


class _Scorer:
    """What ``factscore`` and ``edit-gain`` share: rows, retriever, judge client, judge, facts."""

    def __init__(
        self, args: argparse.Namespace, use_atomic_facts: bool, models: bool = True
    ) -> None:
        """``models=False`` checks the rows and the KB without loading the judge (a Ray
        driver, whose workers load their own)."""
        from favakit.eval.factscore import AtomicFactGenerator, EditorJudge, Judge
        from favakit.llm import ResponseCache
        from favakit.retrieval.evidence import TopicRetriever

        self.rows = [row for _, row, _ in _rows(args.input)]
        for n, row in enumerate(self.rows):
            where = f"{args.input}:{n + 1}"
            if not isinstance(row.get("topic"), str) or not isinstance(row.get("output"), str):
                raise UsageError(f'{where}: expected {{"topic", "output"}}')
            if use_atomic_facts and not isinstance(row.get("atomic_facts"), list):
                raise UsageError(f"{where}: --use-atomic-facts needs 'atomic_facts'")
            if row.get("labels") is not None and (
                not isinstance(row.get("atomic_facts"), list)
                or len(row["labels"]) != len(row["atomic_facts"])
            ):
                raise UsageError(f"{where}: 'labels' must pair with 'atomic_facts'")
        if not use_atomic_facts and not args.demos and args.facts == "llm":
            raise UsageError(
                "give --demos FILE.json (FActScore's {sentence: [facts]}), or "
                "--use-atomic-facts with facts in the input"
            )
        self.retriever = TopicRetriever(args.kb, method=args.retrieval, k=args.k)
        kb = self.retriever.kb
        missing = sorted({r["topic"] for r in self.rows if kb.resolve(r["topic"]) is None})
        if missing:
            raise UsageError(f"{len(missing)} topic(s) not in {args.kb}, e.g. {missing[:3]}")
        if not models:
            return
        editor = None
        if args.judge == "editor":
            from favakit.inference.editor import open_editor

            refuse_judge_options(args, "editor")
            editor = open_editor(
                args.model,
                args.adapter,
                llm_endpoint=args.llm_endpoint,
                backend=args.backend,
                device=args.device,
                api_key=args.llm_api_key,
            )
            self.client = editor.client
        elif args.judge == "verifier":
            from favakit.eval.verify import open_verifier

            refuse_judge_options(args, "verifier")
            verifier = open_verifier(
                args.model,
                args.adapter,
                llm_endpoint=args.llm_endpoint,
                backend=args.backend,
                device=args.device,
                api_key=args.llm_api_key,
                max_batch=args.max_batch,
                chunk_words=args.chunk_words,
                threshold=args.threshold,
            )
            self.client = verifier.client
        else:
            from favakit.inference.generators import open_client

            self.client = open_client(
                args.model,
                args.adapter,
                llm_endpoint=args.llm_endpoint,
                backend=args.backend,
                device=args.device,
                api_key=args.llm_api_key,
                max_batch=args.max_batch,
            )
        if args.cache:
            self.client.cache = ResponseCache(args.cache)
        self.judge: Judge | EditorJudge
        if editor is not None:
            self.judge = EditorJudge(editor)
        elif args.judge == "verifier":
            self.judge = verifier.judge
        else:
            style, threshold = judge_style(args, args.model, chat=args.chat)
            self.judge = Judge(
                self.client,
                chat=args.chat,
                chunk_words=args.chunk_words,
                threshold=threshold,
                style=style,
            )
        self.facts: Any = None
        if not use_atomic_facts and args.facts == "rules":
            from favakit.eval.decompose import RuleFactSplitter

            self.facts = RuleFactSplitter()
        elif not use_atomic_facts:
            demos: dict[str, list[str]] = {}
            for path in args.demos:
                demos.update(json.loads(Path(path).read_text(encoding="utf-8")))
            self.facts = AtomicFactGenerator(self.client, demos)

    def usage(self) -> dict[str, Any]:
        return {**self.client.usage.to_dict(), "verdicts": dict(self.judge.how)}


def _chunks(work: Path, n: int, batch: int, desc: str) -> Any:
    """Yield (appender, chunk of row indices not yet in ``work``), with a progress bar."""
    from tqdm import tqdm

    from favakit.records import JsonlAppender

    with JsonlAppender(work) as done:
        todo = [i for i in range(n) if str(i) not in done]
        with tqdm(total=n, initial=n - len(todo), desc=desc, unit="resp", disable=n < 2) as bar:
            for start in range(0, len(todo), batch):
                chunk = todo[start : start + batch]
                yield done, chunk
                bar.update(len(chunk))


def _finish(out: Path, work: Path, result: dict[str, Any], summary: dict[str, Any]) -> None:
    from favakit.records import atomic_open

    with atomic_open(out) as fh:
        fh.write(json.dumps(result, indent=1) + "\n")
    work.unlink()
    print(json.dumps(summary, indent=1))
    print(f"wrote {out}; usage {result['usage']}", file=sys.stderr)


def _factscore(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from favakit.eval.factscore import aggregate, agreement
    from favakit.records import JsonlAppender, read_jsonl

    ray = ray_options(args)
    sc = _Scorer(args, args.use_atomic_facts, models=ray is None)
    rows = sc.rows
    # without Ray the stage reuses the scorer just built; each Ray worker builds its own
    factory = functools.partial(_factscore_stage, args, None if ray else sc)
    out = Path(args.out)
    work = out.with_name(out.name + ".partial.jsonl")  # per-row decisions: resumable
    n = len(rows)
    with JsonlAppender(work) as done:
        items = [(i, rows[i]) for i in range(n) if str(i) not in done]
        with tqdm(
            total=n, initial=n - len(items), desc="factscore", unit="resp", disable=n < 2
        ) as bar:
            for record in map_in_order(items, factory, ray, args.batch):
                done.append(record)
                bar.update(1)
    by_id = {r["id"]: r for r in read_jsonl(work)}
    decisions = [by_id[str(i)]["decisions"] for i in range(len(rows))]
    result = aggregate(decisions, args.gamma)
    if args.method == "d-factscore":
        d_decisions = [by_id[str(i)].get("d_decisions") for i in range(len(rows))]
        dscore = aggregate(d_decisions, args.gamma)
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
    _finish(out, work, result, summary)
    return 0


def _factscore_stage(args: argparse.Namespace, sc: _Scorer | None = None) -> Any:
    """FActScore's per-chunk work (in this process, or once per Ray worker with its own judge):
    ``[(row index, row)]`` -> the decisions records the work file holds."""
    from favakit.eval.factscore import collect_atoms, score_outputs
    from favakit.eval.successors import link_groups

    sc = sc or _Scorer(args, args.use_atomic_facts)
    retriever, judge = sc.retriever, sc.judge
    molecular = grouper = None
    if args.decontextualize == "molecular":
        from favakit.eval.successors import Decontextualizer

        molecular = Decontextualizer(sc.client)
    if args.method == "d-factscore":
        from favakit.eval.successors import FactGrouper

        grouper = FactGrouper(sc.client)

    def score(items: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
        part = [row for _, row in items]
        atoms = collect_atoms(part, sc.facts, args.use_atomic_facts)
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
                names = retriever.kb.titles_with_base(topic) or [str(retriever.kb.resolve(topic))]
                record["d_decisions"] = link_groups(
                    topic, atoms[j], grouper.groups(topic, atoms[j]), names, retriever.retrieve,
                    judge,
                )  # fmt: skip
            records.append(record)
        return records

    return score


def _edit_gain(args: argparse.Namespace) -> int:
    from favakit.eval.edit_gain import edit_rows, gain_summary
    from favakit.eval.factscore import aggregate, score_outputs
    from favakit.eval.report import bar_chart, edit_gain_markdown, write_report
    from favakit.inference.editor import open_editor
    from favakit.records import read_jsonl
    from favakit.tags import ERROR_TYPES

    sc = _Scorer(args, use_atomic_facts=False)
    if not (args.editor_model or args.editor_adapter or args.editor_endpoint):
        raise UsageError("give the editor: --editor-adapter DIR, --editor-model, --editor-endpoint")
    editor = open_editor(
        args.editor_model,
        args.editor_adapter,
        llm_endpoint=args.editor_endpoint,
        backend=args.backend,
        device=args.device,
    )
    if args.cache and editor.client.cache is None:
        from favakit.llm import ResponseCache

        editor.client.cache = ResponseCache(args.cache)
    rows, retrieve = sc.rows, sc.retriever.retrieve
    out = Path(args.out)
    work = out.with_name(out.name + ".partial.jsonl")
    for done, chunk in _chunks(work, len(rows), args.batch, "edit-gain"):
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
    by_id = {r["id"]: r for r in read_jsonl(work)}
    recs = [by_id[str(i)] for i in range(len(rows))]
    before_all = aggregate([r["before"] for r in recs], args.gamma)
    after_all = aggregate([r["after"] for r in recs], args.gamma)
    result = gain_summary(before_all, after_all, [r["edit"] for r in recs])
    result["decisions_before"] = before_all["decisions"]
    result["decisions_after"] = after_all["decisions"]
    result["edits"] = [r["edit"] for r in recs]
    result["usage"] = {"judge": sc.usage(), "editor": editor.client.usage.to_dict()}
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
    _finish(out, work, result, summary)
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="eval_command", required=True, metavar="COMMAND")
    d = sub.add_parser(
        "detect",
        help="detection P/R/F1 per error type (sentence and span level)",
        description="Gold rows: FAVABench {prompt, output, annotated, model}, or favakit/FAVA "
        "rows {prompt, completion}. Predictions: `favakit edit` output. Matched by id when both "
        "sides have ids, else by line.",
    )
    d.add_argument("--gold", required=True)
    d.add_argument("--pred", required=True)
    d.add_argument("--by", default=None, help="also report per value of this gold field (model)")
    d.add_argument(
        "--out",
        default=None,
        help="write the JSON here, with .md, .html and .png reports beside it",
    )
    d.set_defaults(func=_detect)

    f = sub.add_parser(
        "factscore",
        help="FActScore of {topic, output} rows against a knowledge source",
        description="FActScore (Min et al. 2023) with FActScore's output keys. Facts come from "
        "the input (--use-atomic-facts) or an LLM shown --demos; each is judged against k "
        "passages of the topic's article.",
    )
    _scorer_options(f, "result JSON (work in progress: OUT.partial.jsonl)")
    f.add_argument("--use-atomic-facts", action="store_true")
    f.add_argument(
        "--method",
        default="factscore",
        choices=["factscore", "d-factscore"],
        help="d-factscore: group facts by individual, verify each group against the "
        "article (among those sharing the name) that supports it most",
    )
    f.add_argument(
        "--decontextualize",
        default="none",
        choices=["none", "molecular"],
        help="molecular: add the context that makes an ambiguous subject unique",
    )
    add_ray_options(f)
    f.set_defaults(func=_factscore)

    g = sub.add_parser(
        "edit-gain",
        help="FActScore before and after the editor, facts and respond ratio, edits per type",
        description="Runs the editor on each {topic, output} (evidence: the topic's article), "
        "scores the outputs before and after with the same judge and cache, and writes JSON, "
        "Markdown, HTML and PNG charts.",
    )
    _scorer_options(g, "result JSON (+ .md, .html, .png beside it)")
    g.add_argument("--editor-model", default="", help="the editor's base model")
    g.add_argument("--editor-adapter", default=None, help="the editor's LoRA adapter")
    g.add_argument(
        "--editor-endpoint",
        default=None,
        metavar="URL",
        help="the editor's OpenAI-compatible server",
    )
    g.set_defaults(func=_edit_gain)


# favakit.eval.factscore.JUDGE_STYLES, named here so that --help imports nothing heavy
PROMPT_STYLES = ("factscore", "strict")


def add_judge_options(parser: argparse.ArgumentParser, item: str) -> None:
    """``--chunk-words``, ``--threshold`` and ``--prompt-style``, the options of the judges that
    ask "True or False?" (``verifier`` and ``llm``), for commands that judge each ``item``."""
    parser.add_argument(
        "--chunk-words", type=int, default=None, metavar="N",
        help=f"verifier and llm judges: a {item}'s evidence beyond N words is judged in pieces of "
        f"about N words, and the {item} is supported when one piece supports it (0: whole; "
        "default: the verifier judges evidence beyond 2,000 words in pieces of 400, the llm "
        "judge whole; either cuts evidence too long for its context into pieces that fit)",
    )  # fmt: skip
    parser.add_argument(
        "--threshold", type=float, default=None, metavar="P",
        help=f"verifier and llm judges: a {item} is supported when P(supported) is above P "
        "(default 0.5; the llm judge's qwen2.5-coder-1.5b preset, asked through its chat "
        "template: the value chosen on synthetic claims for its prompt style, docs/verifier.md)",
    )  # fmt: skip
    parser.add_argument(
        "--prompt-style", choices=PROMPT_STYLES, default=None,
        help="llm judge: how it is asked; factscore: FActScore's prompt; strict: every part of "
        f"the {item} must be in the evidence (default: the preset's, docs/verifier.md, else "
        "factscore; the verifier answers factscore only)",
    )  # fmt: skip


def judge_style(args: argparse.Namespace, model: str, chat: bool = True) -> tuple[str, float]:
    """(prompt style, threshold) of the llm judge ``model``: the options, else the preset's for
    its chat template (:func:`~favakit.eval.verify.default_style`), else FActScore's and 0.5."""
    from favakit.eval.verify import default_style, default_threshold

    style = args.prompt_style or (default_style(model) if chat else "factscore")
    threshold = args.threshold
    if threshold is None:
        threshold = default_threshold(model, style) if chat else 0.5
    return style, threshold


def refuse_judge_options(args: argparse.Namespace, judge: str) -> None:
    """``UsageError`` when a True-or-False judge's option is given to ``judge``, which has none
    (``verifier``: it answers FActScore's prompt only)."""
    if judge == "verifier":
        if args.prompt_style not in (None, "factscore"):
            raise UsageError(
                "--prompt-style: the trained verifier answers the factscore prompt only"
            )
        return
    if args.chunk_words or args.threshold is not None or args.prompt_style:
        raise UsageError(
            "--chunk-words, --threshold and --prompt-style are for --judge verifier or llm"
        )


def _scorer_options(f: argparse.ArgumentParser, out_help: str) -> None:
    f.add_argument("--input", required=True, help='JSONL {"topic", "output", "atomic_facts"?}')
    f.add_argument("--kb", required=True, help="knowledge source (sqlite, FActScore's schema)")
    f.add_argument("--out", required=True, help=out_help)
    f.add_argument(
        "--judge",
        default="llm",
        choices=["llm", "verifier", "editor"],
        help="llm: an instruct model (--model) asked True or False; verifier: favakit's trained "
        "claim verifier (the same question, its own weights; docs/verifier.md); editor: a fact "
        "the editor tags is unsupported",
    )
    f.add_argument("--model", default="", help="judge model folder, Hub id, .gguf or 'smollm2'")
    f.add_argument("--adapter", default=None)
    f.add_argument("--llm-endpoint", default=None, metavar="URL")
    f.add_argument("--llm-api-key", default=None)
    f.add_argument("--backend", default="auto", choices=["auto", "vllm", "hf"])
    f.add_argument("--device", default=None)
    f.add_argument("--chat", action="store_true", help="ask the judge through its chat template")
    f.add_argument("--gamma", type=float, default=10.0, help="length penalty (0: none)")
    f.add_argument("--demos", action="append", default=None, help="FActScore demos JSON")
    f.add_argument(
        "--facts",
        default="llm",
        choices=["llm", "rules"],
        help="atomic facts from the model shown --demos (FActScore's way), or by rules: "
        "sentences, clauses and list items with pronouns resolved to the topic",
    )
    f.add_argument("-k", type=int, default=5, help="passages per fact")
    add_judge_options(f, "fact")
    f.add_argument("--retrieval", default="bm25", choices=["bm25", "dense"])
    f.add_argument("--cache", default=None, help="sqlite cache of judge/LLM answers")
    f.add_argument("--batch", type=int, default=16, help="responses per batch (and checkpoint)")
    f.add_argument("--max-batch", type=int, default=8, help="prompts generated together")
