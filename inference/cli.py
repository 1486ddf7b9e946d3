"""Command-line front ends of the inference stage (light at import time)."""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys

__all__ = ["configure_serve_llm"]

log = logging.getLogger(__name__)


def _serve_llm(args: argparse.Namespace) -> int:
    from favakit.deps import is_available

    backend = args.backend
    if backend == "auto":
        cuda = False
        if is_available("torch"):
            import torch

            cuda = bool(torch.cuda.is_available())
        backend = "vllm" if (is_available("vllm") and shutil.which("vllm") and cuda) else "hf"
        print(
            f"favakit serve-llm: backend {backend} (vLLM {'found' if backend == 'vllm' else 'not usable here'})",
            file=sys.stderr,
        )
    api_key = args.api_key or os.environ.get("FAVAKIT_API_KEY") or None
    if backend == "vllm":
        from favakit.inference.llm_server import vllm_serve_argv
        from favakit.inference.models import resolve_model

        argv = vllm_serve_argv(
            resolve_model(args.model, args.adapter),
            adapter=args.adapter,
            host=args.host,
            port=args.port,
            max_lora_rank=args.max_lora_rank,
            api_key=api_key,
        )
        print("favakit serve-llm: exec " + " ".join(argv), file=sys.stderr)
        os.execvp(argv[0], argv)
    import uvicorn

    from favakit.inference.generators import HFGenerator
    from favakit.inference.llm_server import create_app

    generator = HFGenerator.load(
        args.model, adapter=args.adapter, device=args.device, max_batch=args.max_batch
    )
    app = create_app(
        generator, api_key=api_key, max_batch=args.max_batch, batch_window_ms=args.batch_window_ms
    )
    print(
        f"favakit serve-llm: {generator.name} on http://{args.host}:{args.port}/v1", file=sys.stderr
    )
    uvicorn.run(
        app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=30
    )
    return 0


def configure_serve_llm(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model", default="", help="model folder, Hub id, .gguf file, or 'smollm2'"
    )
    parser.add_argument(
        "--adapter",
        default=None,
        help="PEFT adapter folder (its base model if --model is not given)",
    )
    parser.add_argument("--backend", default="auto", choices=["auto", "vllm", "hf"])
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--max-batch", type=int, default=8, help="requests generated together")
    parser.add_argument(
        "--batch-window-ms", type=float, default=50.0, help="how long to wait for a batch to fill"
    )
    parser.add_argument("--device", default=None)
    parser.add_argument(
        "--dtype",
        default="auto",
        choices=["auto", "float32", "bfloat16", "float16"],
        help="weights dtype (auto: bf16 on GPUs that have it, else fp32)",
    )
    parser.add_argument("--max-lora-rank", type=int, default=64, help="vLLM's LoRA rank limit")
    parser.add_argument("--api-key", default=None, help="require this key (or set FAVAKIT_API_KEY)")
    parser.set_defaults(func=_serve_llm)
