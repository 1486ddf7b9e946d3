"""``favakit demo`` (light at import time)."""

from __future__ import annotations

import argparse

from favakit.cli_args import given, non_negative_int

__all__ = ["configure"]


def _demo(args: argparse.Namespace) -> int:
    from favakit.demo import run_demo
    from favakit.inference.options import gate_settings

    run_demo(
        args.out,
        adapter=args.adapter,
        model=args.model or "",
        limit=args.limit,
        backend=args.backend,
        detector=args.detector,
        gate=gate_settings(args),
    )
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="runs/demo", help="folder for the KB, index and views")
    parser.add_argument(
        "--adapter", type=given, default=None, help="another editor adapter (default: shipped)"
    )
    parser.add_argument("--model", type=given, default=None, help="another base model")
    parser.add_argument(
        "--limit", type=non_negative_int, default=0, help="edit only the first N texts (0: all)"
    )
    parser.add_argument(
        "--backend",
        default="generative",
        choices=["generative", "encoder"],
        help="the generative editor (default) or the encoder detector",
    )
    parser.add_argument("--detector", default=None, help="detector folder (default: shipped)")
    parser.add_argument(
        "--gate", default="auto", metavar="auto|checker|mpnet|qwen|cascade|DIR|off",
        help="the checker's gate over the editor, as in favakit edit (default auto: cascade "
        "where the mpnet and Qwen bases are installed, else mpnet where its base is, else "
        "checker; off: none)",
    )  # fmt: skip
    parser.set_defaults(func=_demo)
