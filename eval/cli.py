"""``favakit eval detect``, ``factscore`` and ``edit-gain``: argument parsing only (light at
import time); the work is :func:`favakit.eval.detect.detect_files` and :mod:`favakit.eval.runs`."""

from __future__ import annotations

import argparse
from typing import Any

from favakit.cli_args import non_negative, positive_int
from favakit.distributed import add_ray_options, ray_options
from favakit.inference.options import (
    add_gate_options,
    add_judge_options,
    gate_settings,
)
from favakit.spec import ClientSpec, add_model_options

__all__ = ["JUDGES", "configure"]

#: ``--judge`` of factscore and edit-gain (favakit.eval.runs.FACT_JUDGES, named here so that
#: --help imports nothing heavy)
JUDGES = ("checker", "cascade", "qwen", "llm", "verifier", "editor")


def _detect(args: argparse.Namespace) -> int:
    from favakit.eval.detect import detect_files

    detect_files(args.gold, args.pred, by=args.by, out=args.out)
    return 0


def _options(args: argparse.Namespace) -> Any:
    from favakit.eval.runs import ScoreOptions

    return ScoreOptions(
        args.input, args.kb, args.out, judge=args.judge, spec=ClientSpec.from_args(args),
        checker=args.checker,
        chat=args.chat, chunk_words=args.chunk_words, threshold=args.threshold,
        prompt_style=args.prompt_style, gamma=args.gamma, demos=args.demos, facts=args.facts,
        use_atomic_facts=getattr(args, "use_atomic_facts", False), k=args.k,
        retrieval=args.retrieval, cache=args.cache, batch=args.batch,
        method=getattr(args, "method", "factscore"),
        decontextualize=getattr(args, "decontextualize", "none"),
    )  # fmt: skip


def _say_kept_work(args: argparse.Namespace) -> None:
    """Stopped by Ctrl-C, a run says where its rows so far are kept (``OUT.partial.jsonl``)."""
    from favakit.eval.runs import work_path
    from favakit.records import kept_note

    args.on_interrupt = lambda: kept_note(work_path(args.out), "the rows scored so far")


def _factscore(args: argparse.Namespace) -> int:
    from favakit.eval.runs import factscore

    _say_kept_work(args)
    factscore(_options(args), ray_options(args))
    return 0


def _edit_gain(args: argparse.Namespace) -> int:
    from favakit.eval.runs import edit_gain

    _say_kept_work(args)
    edit_gain(_options(args), ClientSpec.from_args(args, prefix="editor-"),
              gate=gate_settings(args))  # fmt: skip
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
        "behind the checker's gate as `favakit edit` runs it (--gate off: the editor alone), "
        "scores the outputs before and after with the same judge and cache, and writes JSON, "
        "Markdown, HTML and PNG charts.",
    )
    _scorer_options(g, "result JSON (+ .md, .html, .png beside it)")
    add_model_options(g, title="editor model (default: the shipped editor)", prefix="editor-")
    add_gate_options(g)
    g.set_defaults(func=_edit_gain)


def _scorer_options(f: argparse.ArgumentParser, out_help: str) -> None:
    f.add_argument("--input", required=True, help='JSONL {"topic", "output", "atomic_facts"?}')
    f.add_argument("--kb", required=True, help="knowledge source (sqlite, FActScore's schema)")
    f.add_argument("--out", required=True, help=out_help)
    f.add_argument(
        "--judge",
        default=None,
        choices=JUDGES,
        help="default: cascade where both its bases are installed (`make setup`) and bf16 is "
        "native (a GPU, or a CPU with AVX512-BF16 or AMX), else "
        "checker; checker when --checker names one; llm when --model or --llm-endpoint names "
        "a model. checker: the encoder checker trained on real labelled pairs, fast "
        "(--checker picks which; docs/checker.md); cascade: the mpnet checker, and the tuned "
        "Qwen judge for the facts it is unsure of, favakit's default judge of real claims; "
        "qwen: that judge alone (slow on a CPU); "
        "llm: an instruct model (--model) asked True or False, as FActScore asks; verifier: "
        "favakit's trained claim verifier (the same question, its own weights; "
        "docs/verifier.md); editor: a fact the editor tags is unsupported. The checker, cascade "
        "and qwen judges ask no language model: --facts llm then needs --model for the facts",
    )
    f.add_argument(
        "--checker", default=None, metavar="auto|checker|mpnet|DIR",
        help="the checker of --judge checker or cascade: 'auto' (the default: mpnet where its "
        "base is installed, else checker), 'mpnet', 'checker' (MiniLM, about seven times "
        "faster) or a checker folder",
    )  # fmt: skip
    add_model_options(f, title="judge model", max_batch=None)
    f.add_argument("--chat", action="store_true", help="ask the judge through its chat template")
    f.add_argument("--gamma", type=non_negative, default=10.0, help="length penalty (0: none)")
    f.add_argument("--demos", action="append", default=None, help="FActScore demos JSON")
    f.add_argument(
        "--facts",
        default="llm",
        choices=["llm", "rules"],
        help="atomic facts from the model shown --demos (FActScore's way), or by rules: "
        "sentences, clauses and list items with pronouns resolved to the topic",
    )
    f.add_argument("-k", type=positive_int, default=5, help="passages per fact")
    add_judge_options(f, "fact")
    f.add_argument("--retrieval", default="bm25", choices=["bm25", "dense"])
    f.add_argument("--cache", default=None, help="sqlite cache of judge/LLM answers")
    f.add_argument(
        "--batch", type=positive_int, default=16, help="responses per batch (and checkpoint)"
    )
    f.add_argument("--max-batch", type=positive_int, default=8, help="prompts generated together")
