"""``favakit synth``: build tagged training data (light at import time)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from favakit.cli_args import changed_options, non_negative_int, positive_int, probability, url
from favakit.distributed import add_ray_options
from favakit.errors import UsageError

__all__ = ["configure"]


def _run(args: argparse.Namespace) -> int:
    from favakit.distributed import parse_shard, ray_options
    from favakit.synth_data.pipeline import SynthConfig, run_synthesis

    _refuse_unread(args)
    cfg = SynthConfig(
        n=args.n,
        inserter=args.inserter,
        seed=args.seed,
        val_fraction=args.val_fraction,
        references=args.references,
        template=args.template,
        variants=args.variants,
        llm_fraction=args.llm_fraction,
        llm_endpoint=args.llm_endpoint or "",
        llm_model=args.llm_model or "",
        llm_concurrency=args.llm_concurrency,
        genres=not args.no_genres,
        max_passages=args.max_passages,
        batch=args.batch,
        window=args.window,
        window_words=args.window_words,
        context_words=args.context_words,
        distractor_words=args.distractor_words,
        no_error_fraction=args.no_error_fraction,
    )
    from favakit.records import kept_note

    args.on_interrupt = lambda: kept_note(args.out, "the passages processed so far")
    stats = run_synthesis(
        args.kb, args.out, cfg, progress=not args.quiet, shard=parse_shard(args.shard),
        ray=ray_options(args),
    )  # fmt: skip
    print(json.dumps(stats))
    return 0


#: `synth run`'s options of the LLM inserter, and of --window's sizes: (flag, attribute, default)
LLM_OPTIONS = (
    ("--llm-endpoint", "llm_endpoint", None),
    ("--llm-model", "llm_model", None),
    ("--llm-fraction", "llm_fraction", 0.5),
    ("--llm-concurrency", "llm_concurrency", 8),
    ("--no-genres", "no_genres", False),
)
WINDOW_SIZES = (("--window-words", "window_words", 80), ("--context-words", "context_words", 100))
_DEFAULT = {dest: default for _, dest, default in (*LLM_OPTIONS, *WINDOW_SIZES)}


def _refuse_unread(args: argparse.Namespace) -> None:
    """Options the chosen inserter or text shape never reads, given anyway: refused, not
    ignored (the LLM's with the rules inserter, --llm-fraction outside mix, and the window's
    sizes without --window)."""
    llm = changed_options(args, LLM_OPTIONS)
    if args.inserter == "rules" and llm:
        raise UsageError(f"{', '.join(llm)}: options of the llm and mix inserters, and "
                         "--inserter rules asks no model")  # fmt: skip
    if args.inserter == "llm" and args.llm_fraction != _DEFAULT["llm_fraction"]:
        raise UsageError("--llm-fraction shares passages between the rules and the LLM with "
                         "--inserter mix; --inserter llm gives it every passage")  # fmt: skip
    sizes = changed_options(args, WINDOW_SIZES)
    if sizes and not args.window:
        raise UsageError(f"{', '.join(sizes)}: sizes of --window's examples; give --window "
                         "MIN-MAX, or leave them out for whole passages")  # fmt: skip


def _finalize_cmd(args: argparse.Namespace) -> int:
    from favakit.synth_data.pipeline import finalize

    print(json.dumps(finalize(args.dir)))
    return 0


def _convert(args: argparse.Namespace) -> int:
    from favakit.synth_data.fava import convert_fava_rows

    report = convert_fava_rows(args.input, args.out, template=args.template, lenient=args.lenient)
    print(json.dumps(report, indent=2))
    return 0


def _from_edits(args: argparse.Namespace) -> int:
    from favakit.synth_data.real_edits import convert_edit_rows

    dev = [s for s in args.dev_sources.split(",") if s]
    stats = convert_edit_rows(args.input, args.out, dev, evidence_words=args.evidence_words,
                              max_changed=args.max_changed, template=args.template)  # fmt: skip
    print(json.dumps(stats, indent=1))
    return 0


def _claims(args: argparse.Namespace) -> int:
    from favakit.synth_data.claims import ClaimConfig, build_claims

    cfg = ClaimConfig(
        n=args.n,
        seed=args.seed,
        val_fraction=args.val_fraction,
        max_passages=args.max_passages,
        lowercase=args.lowercase,
        kinds=args.kinds,
    )
    print(json.dumps(build_claims(args.kb, args.out, cfg)))
    return 0


def _stats(args: argparse.Namespace) -> int:
    path = Path(args.dir) / "stats.json"
    if not path.exists():
        raise UsageError(f"{path} does not exist; run 'favakit synth run --out {args.dir}' first")
    stats = json.loads(path.read_text())
    print(
        f"examples: {stats['examples']} (train {stats['train']}, validation {stats['validation']})"
    )
    print(
        f"errors: {stats['errors']}, {stats['mean_errors_per_passage']} per passage {stats['errors_per_passage']}"
    )
    for typ, n in stats["errors_per_type"].items():
        print(f"  {typ:<14} {n:>6}  {100 * stats['share_per_type'][typ]:5.1f}%")
    print(f"rejected: {stats['rejected'] or 'none'}")
    print(f"genres: {stats['genres']}")
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="synth_command", metavar="ACTION", required=True)
    p = sub.add_parser(
        "run", help="insert errors into knowledge-source passages; write train/validation JSONL"
    )
    p.add_argument(
        "--kb", required=True, help="knowledge-source sqlite file (seed passages and distractors)"
    )
    p.add_argument(
        "--out", required=True, help="output folder (resumes if it holds an unfinished run)"
    )
    p.add_argument("--n", type=int, default=1000, help="number of examples (default 1000)")
    p.add_argument(
        "--inserter",
        default="rules",
        choices=["rules", "llm", "mix"],
        help="error inserter (default rules)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--val-fraction", type=float, default=0.05, help="share of source titles held out"
    )
    p.add_argument(
        "--references", type=int, default=4, help="retrieved distractor passages per example"
    )
    p.add_argument(
        "--template", default="favakit", choices=["favakit", "fava"], help="prompt template"
    )
    p.add_argument("--variants", type=int, default=8, help="at most this many examples per passage")
    p.add_argument(
        "--llm-endpoint",
        type=url,
        default=None,
        help="OpenAI-compatible server for llm/mix, e.g. http://127.0.0.1:8000/v1",
    )
    p.add_argument("--llm-model", default=None, help="model name the server knows")
    p.add_argument(
        "--llm-fraction",
        type=float,
        default=_DEFAULT["llm_fraction"],
        help="share of passages for the LLM with --inserter mix",
    )
    p.add_argument(
        "--llm-concurrency", type=positive_int, default=_DEFAULT["llm_concurrency"],
        help="LLM requests in flight",
    )  # fmt: skip
    p.add_argument(
        "--no-genres", action="store_true", help="skip the genre rewrite on the LLM path"
    )
    p.add_argument(
        "--max-passages",
        type=non_negative_int,
        default=0,
        help="stop after trying this many passages (0: no cap)",
    )
    p.add_argument(
        "--batch",
        type=positive_int,
        default=32,
        help="passages handled together (LLM stages run batched)",
    )
    p.add_argument(
        "--shard", default=None, help="i/n: this machine's share of the job (see docs/synth.md)"
    )
    add_ray_options(p)
    w = p.add_argument_group("short examples (rules inserter)")
    w.add_argument(
        "--window",
        default="",
        metavar="MIN-MAX",
        help="each text is a window of MIN-MAX sentences of a passage, e.g. 2-5 (default: whole "
        "passages); with it, --references is the most distractors (0..N drawn per example)",
    )
    w.add_argument(
        "--window-words",
        type=positive_int,
        default=_DEFAULT["window_words"],
        help="most words in a window",
    )
    w.add_argument(
        "--context-words",
        type=positive_int,
        default=_DEFAULT["context_words"],
        help="the gold reference: the window and its neighbouring sentences, at most this long",
    )
    w.add_argument(
        "--distractor-words",
        type=non_negative_int,
        default=50,
        help="distractor references cut to this length (0: whole)",
    )
    w.add_argument(
        "--no-error-fraction",
        type=float,
        default=0.0,
        help="share of examples left without errors (the editor learns to leave correct text)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_run)
    p = sub.add_parser(
        "finalize", help="rebuild train/validation/stats from all logs of a run folder"
    )
    p.add_argument("dir")
    p.set_defaults(func=_finalize_cmd)
    p = sub.add_parser(
        "convert-fava", help="convert FAVA's released {prompt, completion} rows to favakit's format"
    )
    p.add_argument("--input", required=True, help="FAVA training JSONL")
    p.add_argument("--out", required=True, help="output JSONL of favakit training rows")
    p.add_argument("--template", default="favakit", choices=["favakit", "fava"])
    p.add_argument(
        "--lenient", action="store_true", help="repair malformed tags instead of dropping the row"
    )
    p.set_defaults(func=_convert)
    p = sub.add_parser(
        "from-edits",
        help="editor examples from real edited texts with their originals (SummEdits rows: "
        "`text`, `original`, `evidence`, `label`, `edit_types`); the original's words are the "
        "corrections, consistent rows are copied unchanged",
    )
    p.add_argument("--input", required=True, action="append", help="JSONL of edited rows (repeat)")
    p.add_argument("--out", required=True, help="output folder: train/validation.jsonl, stats.json")
    p.add_argument(
        "--dev-sources", default="", help="sources held out as validation.jsonl, comma-separated"
    )
    p.add_argument(
        "--evidence-words", type=positive_int, default=220,
        help="the document cut to the words nearest the texts (default 220)",
    )  # fmt: skip
    p.add_argument(
        "--max-changed", type=probability, default=0.5,
        help="skip rows with more than this share of words changed (default 0.5)",
    )  # fmt: skip
    p.add_argument("--template", default="favakit", choices=["favakit", "fava"])
    p.set_defaults(func=_from_edits)
    p = sub.add_parser(
        "claims",
        help="(claim, evidence, label) pairs for training a verifier (favakit verify --judge "
        "verifier): true facts of passages, the same after an error rule or a swap of names from "
        "the evidence, merely related evidence, questions with answers, and joined pairs",
    )
    p.add_argument("--kb", required=True, help="knowledge source (favakit kb build)")
    p.add_argument("--out", required=True, help="output folder: train/validation.jsonl, stats.json")
    p.add_argument("--n", type=int, default=2000, help="number of pairs (default 2000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--val-fraction", type=float, default=0.08, help="share of articles held out (default 0.08)"
    )
    p.add_argument("--max-passages", type=int, default=4, help="most evidence passages per pair")
    p.add_argument(
        "--lowercase",
        type=probability,
        default=0.3,
        help="share of pairs with lower-cased evidence",
    )
    p.add_argument(
        "--kinds",
        default="supported,error,related",
        help="kinds of pair to make, comma-separated, among supported, error, swap, related, "
        "question, pair (default: supported,error,related, the shipped verifier's)",
    )
    p.set_defaults(func=_claims)
    p = sub.add_parser("stats", help="summarize a synthesis output folder")
    p.add_argument("dir")
    p.set_defaults(func=_stats)
