"""``favakit train``, ``favakit train merge`` and ``favakit train pack-detector`` (light at import
time)."""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["configure"]


def _train(args: argparse.Namespace) -> int:
    from favakit.config import dump_config
    from favakit.errors import UsageError
    from favakit.training.config import load_train_config, presets, validate_config

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
    cfg = load_train_config(args.config, args.overrides)
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
    print(json.dumps(train(cfg, resume=args.resume, progress=bar), indent=2))
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "favakit train --config PRESET|FILE.yaml [KEY=VALUE ...] [--dry-run] [--resume]\n"
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
    parser.add_argument("--out", default=None, help="merge / pack-*: where to write the result")
    parser.add_argument(
        "--detector", default=None, help="pack-detector / pack-checker: the model folder"
    )
    parser.add_argument("--model", default="", help="merge: base model (default: the adapter's)")
    parser.set_defaults(func=_train)
