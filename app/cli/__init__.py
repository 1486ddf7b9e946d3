"""The ``favakit`` command line.

Subcommands are loaded lazily: the registry below names, for each, a ``module:function`` that
configures its parser, and only the module of the command being run is imported, so
``favakit --help`` stays fast and torch-free. The configure function adds the arguments and sets
``func`` (a function taking the parsed arguments and returning an exit code). Command modules import nothing heavy at
module level; their functions import what they need when they run.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from favakit import __version__
from favakit.cli_args import given
from favakit.errors import FavakitError

__all__ = ["ACTION_EXAMPLES", "COMMANDS", "EXAMPLES", "main"]

#: name -> ("module:function" that configures the command's parser, one-line help).
COMMANDS: dict[str, tuple[str, str]] = {
    "env": (
        "favakit.cli.env_cmd:configure",
        "report installed extras, versions, GPUs and chosen backends",
    ),
    "tags": ("favakit.cli.tags_cmd:configure", "strip, check, convert and locate error tags"),
    "kb": (
        "favakit.retrieval.cli:configure_kb",
        "build and read knowledge sources (title -> passages)",
    ),
    "index": (
        "favakit.retrieval.cli:configure_index",
        "build dense (FAISS) or BM25 indexes over a knowledge source",
    ),
    "search": (
        "favakit.retrieval.cli:configure_search",
        "search one or more indexes (hybrid by rank fusion)",
    ),
    "synth": (
        "favakit.synth_data.cli:configure",
        "build tagged training data by inserting errors into passages",
    ),
    "train": (
        "favakit.training.cli:configure",
        "fine-tune the editor (LoRA, QLoRA, full), the detector or the checker; 'train merge'"
        " merges an adapter",
    ),
    "edit": (
        "favakit.inference.cli:configure_edit",
        "find and fix hallucinated spans in a text or a JSONL file",
    ),
    "serve": (
        "favakit.inference.cli:configure_serve",
        "serve the gated editor over HTTP (POST /v1/edit, /v1/detect, /v1/verify)",
    ),
    "verify": (
        "favakit.inference.cli:configure_verify",
        "is this claim supported by this evidence? (judges trained on real claims: the cascade "
        "or the checker, `favakit env` says which; or qwen, verifier, encoder, editor, llm)",
    ),
    "eval": (
        "favakit.eval.cli:configure",
        "score editors: detection P/R/F1 per type, FActScore",
    ),
    "demo": (
        "favakit.cli.demo_cmd:configure",
        "run the default editor on shipped example texts, with evidence, views and FActScore",
    ),
    "serve-llm": (
        "favakit.inference.serve_llm_cmd:configure",
        "serve a model over the OpenAI-compatible API (vLLM from its own environment, or transformers)",
    ),
}


#: name -> example command lines shown under its --help (from a clone, after `make demo`, with
#: .venv activated); tests/app/test_cli.py parses every one with the real parser.
EXAMPLES: dict[str, list[str]] = {
    "env": ["favakit env"],
    "tags": [
        "echo 'By <entity><mark>Ulm</mark><delete>Bonn</delete></entity>.' | favakit tags strip"
    ],
    "kb": ["favakit kb build --input app/demo/kb.jsonl --out runs/kb.db"],
    "index": ["favakit index build --kb runs/kb.db --kind bm25 --out runs/bm25"],
    "search": ["favakit search --index runs/bm25 --kb runs/kb.db 'Saturn rings'"],
    "synth": ["favakit synth run --kb runs/kb.db --out runs/synth --n 200"],
    "train": [
        "favakit train --config smollm2_135m_lora data.train_file=runs/synth/train.jsonl "
        "data.limit=200"
    ],
    "edit": [
        "favakit edit 'Saturn is the fourth planet from the Sun.' "
        "--evidence 'Saturn is the sixth planet from the Sun.' --format ansi",
        "favakit edit --input texts.jsonl --output edits.jsonl --kb runs/demo/kb.db "
        "--index runs/demo/bm25",
    ],
    "serve": [
        "favakit serve --port 8080 --kb runs/demo/kb.db --index runs/demo/bm25",
        "favakit serve --backend encoder --port 8080",
    ],
    "verify": [
        "favakit verify 'Saturn has rings.' --evidence 'Saturn has a ring system.'",
        "favakit verify --input claims.jsonl --output verdicts.jsonl --judge encoder",
    ],
    "eval": ["favakit eval detect --gold gold.jsonl --pred edits.jsonl --out report.json"],
    "demo": ["favakit demo --limit 2 --out runs/demo"],
    "serve-llm": ["favakit serve-llm --backend hf --port 8000"],
}

#: "command action" -> example lines shown under that action's --help (the same rules as
#: EXAMPLES); `favakit train`'s actions are words of its own usage, which shows them.
ACTION_EXAMPLES: dict[str, list[str]] = {
    "tags strip": ["favakit tags strip examples/fava_output.txt"],
    "tags original": ["favakit tags original examples/fava_output.txt"],
    "tags spans": ["favakit tags spans --compact examples/fava_output.txt"],
    "tags check": ["favakit tags check --view synthetic examples/synthetic_output.txt"],
    "tags convert": [
        "favakit tags convert --from synthetic --to edit examples/synthetic_output.txt"
    ],
    "kb build": [
        "favakit kb build --input examples/kb_docs.jsonl --out runs/kb.db",
        "favakit kb build --input examples/shop_docs --out runs/shop.db",
    ],
    "kb get": ["favakit kb get --kb runs/kb.db 'Marie Curie'"],
    "kb titles": ["favakit kb titles --kb runs/kb.db"],
    "index build": [
        "favakit index build --kb runs/kb.db --out runs/bm25 --kind bm25",
        "favakit index build --kb runs/kb.db --out runs/dense --encoder minilm",
    ],
    "synth run": ["favakit synth run --kb runs/demo/kb.db --out runs/synth --n 200"],
    "synth finalize": ["favakit synth finalize runs/synth"],
    "synth stats": ["favakit synth stats runs/synth"],
    "synth claims": ["favakit synth claims --kb runs/demo/kb.db --out runs/claims --n 400"],
    "synth convert-fava": [
        "favakit synth convert-fava --input fava_train.jsonl --out runs/fava_favakit.jsonl"
    ],
    "synth from-edits": [
        "favakit synth from-edits --input ../shared/data/real/train_spans/summedits.jsonl "
        "--out runs/real_edits --dev-sources summedits_podcast"
    ],
    "eval detect": [
        "favakit eval detect --gold runs/synth/validation.jsonl --pred pred.jsonl "
        "--out runs/detect.json"
    ],
    "eval factscore": [
        "favakit eval factscore --input examples/bios.jsonl --kb runs/demo/kb.db --facts rules "
        "--out runs/factscore.json"
    ],
    "eval edit-gain": [
        "favakit eval edit-gain --input examples/bios.jsonl --kb runs/demo/kb.db --facts rules "
        "--out runs/gain.json"
    ],
}


class _ExamplesAsWritten(argparse.HelpFormatter):
    """Wraps the description as usual; keeps an examples epilog's lines as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:\n"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def _action_examples(parser: argparse.ArgumentParser, name: str) -> None:
    """Give each action of ``parser`` (a command with actions) its ACTION_EXAMPLES epilog."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for verb, sub in action.choices.items():
                lines = ACTION_EXAMPLES.get(f"{name} {verb}")
                if lines:
                    sub.epilog = "examples:\n" + "\n".join(f"  {line}" for line in lines)
                    sub.formatter_class = _ExamplesAsWritten


#: the options whose value names something, in every command: a blank value (``--out "$DIR"``
#: with DIR unset) is refused. A blank file or folder wrote an index or a synthesis run into the
#: current folder; a blank model, judge or encoder picked the default without a word, and a
#: blank ``--ray`` ran without Ray.
NOT_BLANK_OPTIONS = frozenset({
    # files and folders
    "--out", "--output", "--input", "--kb", "--index", "--queries", "--detector", "--gold",
    "--pred", "--demos", "--cache", "--evidence-file", "--config", "--vllm-env",
    # models, judges, places and marks
    "--tokenizer", "--encoder", "--llm-model", "--checker", "--gate", "--ray", "--host",
    "--allow-host", "--cites", "--by",
})  # fmt: skip


def _refuse_blank_values(parser: argparse.ArgumentParser) -> None:
    """Give each :data:`NOT_BLANK_OPTIONS` option of ``parser`` and its actions' parsers, where
    it converts no value of its own, the :func:`~favakit.cli_args.given` type."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _refuse_blank_values(sub)
        elif action.type is None and NOT_BLANK_OPTIONS & set(action.option_strings):
            action.type = given


def _root_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:  # type: ignore[type-arg]
    parser = argparse.ArgumentParser(
        prog="favakit",
        description="Find, type and fix hallucinated spans in text written by language models.",
        epilog="Run 'favakit COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"favakit {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser, sub


def _parser_named(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser:
    """The parser of the command, and of its action where it has actions, that ``words`` name."""
    for word in words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            break
        parser = subs[0].choices.get(word, parser)
    return parser


def _late_positionals(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    unknown: list[str],
    argv: Sequence[str],
) -> list[str]:
    """``unknown`` less the words that belong to the parser's list positional (``favakit train``'s
    KEY=VALUE overrides), which argparse leaves unparsed when they follow an option such as
    ``--no-progress``; they are added to that list, in order. A word without ``=`` right after an
    unknown option (``--foo bar``) is that option's value, not an override: it stays unknown, so
    the refusal names both."""
    lists = [a for a in parser._actions if not a.option_strings and a.nargs in ("*", "+")]
    if len(lists) != 1:
        return unknown
    given = list(getattr(args, lists[0].dest) or [])
    late = [w for w in unknown if not w.startswith("-")]
    left = []
    for option in (w for w in unknown if w.startswith("-")):
        left.append(option)
        value = _value_after(option, argv)
        if value is not None and (value in late or value in given):
            left.append(value)  # argparse left it unparsed, or took it for an override
            (late if value in late else given).remove(value)
    setattr(args, lists[0].dest, [*given, *late])
    return left


def _value_after(option: str, argv: Sequence[str]) -> str | None:
    """The word after ``option`` in ``argv`` where it looks like that option's value (no ``=``
    in either, and not an option itself), else None."""
    if "=" in option or option not in argv:
        return None
    n = list(argv).index(option)
    after = argv[n + 1] if n + 1 < len(argv) else None
    return after if after is not None and not after.startswith("-") and "=" not in after else None


def _interrupt_note(args: argparse.Namespace) -> str | None:
    """What a command stopped by Ctrl-C kept and how it goes on, where the command said how to
    tell (``args.on_interrupt``, set once it knows where its work goes); never an error of its
    own."""
    tell = getattr(args, "on_interrupt", None)
    try:
        return tell() if tell is not None else None
    except (OSError, ValueError):
        return None


def _closest_option(parser: argparse.ArgumentParser, unknown: list[str]) -> str:
    """'; did you mean --evidence?' for the first unknown option that is near one of the parser's
    own (a typo), else ''."""
    import difflib

    known = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    for word in unknown:
        if word.startswith("--"):
            close = difflib.get_close_matches(word.split("=")[0], known, n=1, cutoff=0.7)
            if close:
                return f"; did you mean {close[0]}?"
    return ""


#: errors of a user's files or disk that a command reports in one line, not a traceback
_USER_FILE_ERRORS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT})


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    parser, sub = _root_parser()
    chosen = next((a for a in args_in if not a.startswith("-")), None)
    for name, (target, help_text) in COMMANDS.items():
        examples = "\n".join(f"  {line}" for line in EXAMPLES.get(name, []))
        p = sub.add_parser(
            name, help=help_text, description=help_text,
            epilog=f"examples:\n{examples}" if examples else None,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )  # fmt: skip
        if name == chosen:
            module, _, function = target.partition(":")
            getattr(importlib.import_module(module), function)(p)
            _action_examples(p, name)
            _refuse_blank_values(p)
    args, unknown = parser.parse_known_args(args_in)
    chosen_parser = _parser_named(parser, args_in)
    unknown = _late_positionals(chosen_parser, args, unknown, args_in)
    if unknown:  # said by the command's (or action's) own parser, with its usage and a guess
        chosen_parser.error(
            f"unrecognized arguments: {' '.join(unknown)}" + _closest_option(chosen_parser, unknown)
        )
    if args.command is None:
        parser.print_help()
        return 0
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:  # libraries that set DEBUG on their own logger
        handler.setLevel(level)
    try:
        code: int = args.func(args)
    except FavakitError as exc:
        print(f"{chosen_parser.prog}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except ModuleNotFoundError as exc:  # an optional package no guard asked for first
        from favakit.deps import missing_dependency

        missing = missing_dependency(exc, "this command")
        if missing is None:
            raise
        print(f"{chosen_parser.prog}: error: {missing}", file=sys.stderr)
        return missing.exit_code
    except KeyboardInterrupt:
        note = _interrupt_note(args)
        print(f"{chosen_parser.prog}: interrupted" + (f"; {note}" if note else ""), file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into `head`: files are written before stdout
        # send what is still buffered nowhere, so the interpreter's exit flush stays quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        if exc.errno not in _USER_FILE_ERRORS:
            raise
        # a file the user may not read or write, or a full disk: what and where, no traceback
        where = f": {exc.filename}" if exc.filename else ""
        print(f"{chosen_parser.prog}: error: {exc.strerror}{where}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())
