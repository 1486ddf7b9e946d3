"""``favakit serve-llm``: argument parsing only (light at import time); the servers are
:func:`favakit.inference.llm_server.serve_hf` and :func:`favakit.inference.vllm_server.serve_vllm`."""

from __future__ import annotations

import argparse
import sys

from favakit.cli_args import (
    changed_options,
    device,
    given,
    non_negative,
    non_negative_int,
    port,
    positive,
    positive_int,
)
from favakit.errors import UsageError
from favakit.inference.http_guard import add_http_options
from favakit.spec import ClientSpec

__all__ = ["configure"]


def _serve_llm(args: argparse.Namespace) -> int:
    from favakit.inference.http_guard import (
        allowed_hosts,
        api_key,
        http_limits,
        keyless_note,
        require_free_port,
    )
    from favakit.inference.llm_server import serve_hf
    from favakit.inference.models import default_editor
    from favakit.inference.vllm_server import VLLMOptions, find_vllm_python, serve_vllm

    require_free_port(args.host, args.port)  # before the model loads (or vLLM starts)
    key = api_key(args)
    spec = ClientSpec.from_args(args)
    if not (spec.model or spec.adapter):
        spec = spec.with_(adapter=default_editor())  # the shipped editor, over SmolLM2
    backend = args.backend
    if backend == "auto":
        try:
            find_vllm_python(args.vllm_env)
            backend = "vllm"
        except UsageError:
            backend = "hf"
    other = "vllm" if backend == "hf" else "hf"
    given = changed_options(args, args.backend_options[other])
    if given:
        picked = " (--backend auto picked it)" if args.backend == "auto" else ""
        raise UsageError(f"{', '.join(given)}: options of the {other} backend, and this server "
                         f"runs {backend}{picked}")  # fmt: skip
    print(f"favakit serve-llm: backend {backend} (asked: {args.backend})", file=sys.stderr)
    note = keyless_note(args.host, key)
    if note:
        print(f"favakit serve-llm: {note}", file=sys.stderr)
    if backend == "hf":
        return serve_hf(
            spec, args.host, args.port, key, args.batch_window_ms, args.timeout,
            http_limits(args), allowed_hosts(args.host, args.allow_host),
        )  # fmt: skip
    options = VLLMOptions(
        args.vllm_env, args.max_lora_rank, args.reserved_cpus, args.merge_adapter,
        args.max_model_len, args.kv_cache_gb,
    )  # fmt: skip
    return serve_vllm(spec, args.host, args.port, key, options, args.max_batch)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model", type=given, default=None, help="model folder, Hub id, .gguf file, or 'smollm2'"
    )
    parser.add_argument(
        "--adapter", type=given, default=None, help="PEFT adapter folder (its base model if --model is not given)"
    )  # fmt: skip
    parser.add_argument("--backend", default="auto", choices=["auto", "vllm", "hf"])
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=port, default=8000)
    parser.add_argument(
        "--max-batch", type=positive_int, default=None,
        help="requests generated together (hf: default 8; vllm: --max-num-seqs, vLLM's default)",
    )  # fmt: skip
    parser.add_argument(
        "--batch-window-ms",
        type=non_negative,
        default=50.0,
        help="how long to wait for a batch to fill",
    )
    parser.add_argument(
        "--device", type=device, default=None,
        help="cpu, cuda, cuda:1 (default: a GPU if any)",
    )  # fmt: skip
    parser.add_argument(
        "--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"],
        help="weights dtype (auto: bf16 on GPUs that have it, else fp32)",
    )  # fmt: skip
    parser.add_argument("--api-key", default=None, help="require this key (or set FAVAKIT_API_KEY)")
    h = parser.add_argument_group("requests (hf backend; vLLM sets its own)")
    h.add_argument(
        "--timeout", type=positive, default=600.0, help="seconds per request before a 504"
    )
    add_http_options(h, max_body_bytes=8_000_000)
    v = parser.add_argument_group("vLLM backend")
    v.add_argument(
        "--vllm-env", default=None, metavar="DIR",
        help="virtual environment with vLLM (default: $FAVAKIT_VLLM_ENV, else ./.venv-vllm; "
        "`make vllm` creates it)",
    )  # fmt: skip
    v.add_argument("--max-lora-rank", type=positive_int, default=64, help="vLLM's LoRA rank limit")
    v.add_argument(
        "--reserved-cpus", type=non_negative_int, default=None,
        help="CPU build: cores kept out of vLLM's compute threads for its scheduler (vLLM's "
        "default 1; 0 computes on every core)",
    )  # fmt: skip
    v.add_argument(
        "--merge-adapter", default="auto", choices=["auto", "yes", "no"],
        help="serve the adapter merged into its base (auto: on the CPU, where vLLM's LoRA path "
        "is slow) instead of as a LoRA module",
    )  # fmt: skip
    v.add_argument(
        "--max-model-len",
        type=positive_int,
        default=2048,
        help="context length vLLM reserves per sequence",
    )
    v.add_argument(
        "--kv-cache-gb", type=positive_int, default=2,
        help="KV cache on the CPU, whole GiB (VLLM_CPU_KVCACHE_SPACE; a GPU sizes its own)",
    )  # fmt: skip
    parser.set_defaults(func=_serve_llm, backend_options={"hf": _options(h), "vllm": _options(v)})


def _options(group: argparse._ArgumentGroup) -> list[tuple[str, str, object]]:
    """(flag, attribute, default) of each option of one backend's group: the other backend
    refuses them (:func:`_serve_llm`)."""
    return [(max(a.option_strings, key=len), a.dest, a.default) for a in group._group_actions]
