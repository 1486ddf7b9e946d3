"""``favakit train``, ``favakit train merge`` and ``favakit train pack-detector`` (light at import
time)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["configure"]


#: the options beside KEY=VALUE: (flag, attribute, default), and the actions that read each
#: ("run": a training run; the others are the words that name an action)
_OPTIONS = (
    ("--config", "config", None), ("--dry-run", "dry_run", False), ("--resume", "resume", False),
    ("--no-progress", "no_progress", False), ("--adapter", "adapter", None),
    ("--out", "out", None), ("--detector", "detector", None), ("--model", "model", ""),
)  # fmt: skip
_PACKING = ("pack-detector", "pack-checker", "unpack-checker")
_READ_BY = {
    "--config": ("run",), "--dry-run": ("run",), "--resume": ("run",), "--no-progress": ("run",),
    "--adapter": ("merge",), "--detector": _PACKING, "--out": ("run", "merge", *_PACKING),
    "--model": ("run", "merge"),
}  # fmt: skip
#: a training run's options that stand for a setting
_SETTING_OF = {"--out": "output_dir", "--model": "model"}


def _refuse_unread(args: argparse.Namespace, action: str) -> None:
    """Refuse the options ``action`` would not read: they used to be dropped without a word
    (``favakit train --config X --out DIR`` trained into the preset's folder)."""
    from favakit.cli_args import changed_options
    from favakit.errors import UsageError

    unread = [f for f in changed_options(args, _OPTIONS) if action not in _READ_BY[f]]
    if not unread:
        return
    doing = "a training run" if action == "run" else f"`favakit train {action}`"
    said = [f"{flag} (read by {_readers(flag)})" for flag in unread]
    hint = ""
    if action == "run" and "--adapter" in unread:
        hint = "; a training run starts from an adapter with init_adapter=DIR"
    raise UsageError(f"{doing} does not read {', '.join(said)}{hint}")


def _readers(flag: str) -> str:
    """Who reads ``flag``, in words: "a training run and train merge"."""
    verbs = [a for a in _READ_BY[flag] if a != "run"]
    names = ["a training run"] if "run" in _READ_BY[flag] else []
    return " and ".join(names + ([f"train {', '.join(verbs)}"] if verbs else []))


def _run_overrides(args: argparse.Namespace) -> list[str]:
    """A training run's KEY=VALUE overrides, with ``--out`` and ``--model`` as the settings they
    stand for (``output_dir``, ``model``); the same setting given both ways is refused."""
    from favakit.errors import UsageError

    overrides = list(args.overrides)
    for flag, dest, _ in _OPTIONS:
        key, value = _SETTING_OF.get(flag), getattr(args, dest)
        if key is None or not value:
            continue
        if any(o.split("=", 1)[0].strip() == key for o in overrides):
            raise UsageError(f"{flag} and {key}= both set {key}: give one")
        overrides.append(f"{key}={value}")
    return overrides


def _train(args: argparse.Namespace) -> int:
    from favakit.config import dump_config
    from favakit.errors import UsageError
    from favakit.training.config import load_train_config, presets, validate_config

    first = args.overrides[0] if args.overrides else ""
    action = first if first in ("merge", *_PACKING) else "run"
    _refuse_unread(args, action)
    if args.overrides[:1] == ["merge"]:  # `favakit train merge --adapter DIR --out DIR`
        if not args.adapter or not args.out or len(args.overrides) > 1:
            raise UsageError("usage: favakit train merge --adapter DIR --out DIR [--model BASE]")
        from favakit.inference.models import merge_adapter

        print(merge_adapter(args.adapter, args.out, model=args.model))
        return 0
    if args.overrides[:1] == [
        "pack-detector"
    ]:  # `favakit train pack-detector --detector DIR --out DIR`
        if not args.detector or not args.out or len(args.overrides) > 1:
            raise UsageError("usage: favakit train pack-detector --detector DIR --out DIR")
        from favakit.inference.detector import pack_int8

        print(json.dumps(pack_int8(args.detector, args.out)))
        return 0
    if args.overrides[:1] in (["pack-checker"], ["unpack-checker"]):
        # `favakit train pack-checker --detector DIR --out DIR` (int8, as the checker ships);
        # `unpack-checker` writes it back as a plain transformers folder
        verb = args.overrides[0]
        if not args.detector or not args.out or len(args.overrides) > 1:
            raise UsageError(f"usage: favakit train {verb} --detector DIR --out DIR")
        from favakit.inference.checker import pack_checker, unpack_checker

        if verb == "pack-checker":
            print(json.dumps(pack_checker(args.detector, args.out)))
        else:
            print(unpack_checker(args.detector, args.out))
        return 0
    if args.config is None:
        print("give --config PRESET|FILE.yaml; presets: " + ", ".join(presets()))
        return 2
    cfg = load_train_config(args.config, _run_overrides(args))
    if args.dry_run:
        validate_config(cfg)  # says what the run would refuse (the trainers validate their own)
        sys.stdout.write(dump_config(cfg))
        return 0
    import logging

    from favakit.training.recipe import train

    # A bar where a person watches; a line per logged step (loss, tokens/s, ETA) everywhere else
    # (a log file, CI), with the run's notes (the data it read, the step it resumed at), and
    # always in output_dir/train_log.jsonl.
    bar = sys.stderr.isatty() and not args.no_progress
    if not bar and logging.getLogger().level > logging.INFO:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
        steps = logging.getLogger("favakit.training")  # the editor's, detector's, checker's
        steps.addHandler(handler)
        steps.setLevel(logging.INFO)
        steps.propagate = False
    args.on_interrupt = lambda: _kept_checkpoint(cfg.output_dir, cfg.save_every)
    print(json.dumps(train(cfg, resume=args.resume, progress=bar), indent=2))
    return 0


def _kept_checkpoint(output_dir: str, save_every: int) -> str:
    """Where a stopped run's last checkpoint is and how to go on, or that none was written."""
    from favakit.records import kept_note
    from favakit.training.runtime import CHECKPOINT_DIR

    kept = kept_note(Path(output_dir) / CHECKPOINT_DIR, "the steps trained up to the last checkpoint",
                     again="the same command with --resume goes on from there")  # fmt: skip
    every = f"one every {save_every} steps" if save_every else "save_every=0: only at the end"
    return kept or f"no checkpoint was written yet ({every}): a new run starts from the beginning"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "favakit train --config PRESET|FILE.yaml [KEY=VALUE ...] [--out DIR] [--dry-run] [--resume]\n"
        "favakit train merge --adapter DIR --out DIR [--model BASE]\n"
        "favakit train pack-detector --detector DIR --out DIR   (int8 weights, about 4x smaller)\n"
        "favakit train pack-checker --detector DIR --out DIR    (the same for a checker)\n"
        "favakit train unpack-checker --detector DIR --out DIR  (int8 checker -> plain "
        "transformers folder)"
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="KEY=VALUE",
        help="e.g. lr=1e-4 lora.r=8 data.train_file=x.jsonl (or 'merge', 'pack-detector', "
        "'pack-checker', 'unpack-checker')",
    )
    from favakit.training.config import presets

    parser.add_argument(
        "--config", default=None, help=f"a preset ({', '.join(presets())}) or a YAML file"
    )
    parser.add_argument("--dry-run", action="store_true", help="print the resolved config and stop")
    parser.add_argument("--resume", action="store_true", help="continue from output_dir/checkpoint")
    parser.add_argument(
        "--no-progress", action="store_true", help="a log line per step instead of a progress bar"
    )
    parser.add_argument("--adapter", default=None, help="merge: the LoRA adapter folder")
    parser.add_argument(
        "--out",
        default=None,
        help="where to write the result: a training run's folder (output_dir=), or merge's and "
        "pack-*'s",
    )
    parser.add_argument(
        "--detector", default=None, help="pack-detector / pack-checker: the model folder"
    )
    parser.add_argument(
        "--model",
        default="",
        help="the base model: a training run's (model=), or merge's (default: the adapter's)",
    )
    parser.set_defaults(func=_train)
