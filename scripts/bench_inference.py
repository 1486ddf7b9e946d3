"""Inference benchmark: the editor service under load, and batched vs one-at-a-time generation.

    python scripts/bench_inference.py --model smollm2 --out docs/results/bench_inference.json

1. ``generation``: the editor prompts of ``--prompts`` texts generated in-process by one
   :class:`~favakit.inference.generators.HFGenerator`, first one request at a time, then in
   batches of ``--max-batch``, side by side in the same process; tokens/s of each and the ratio.
2. ``load``: ``favakit serve`` started as its own process on loopback (in-process generation,
   batched across requests), then ``--clients`` concurrent clients each sending ``--requests``
   ``POST /v1/edit`` requests; errors, p50/p99 latency and throughput.

3. ``engines``: the editor service on each generation engine, side by side in one run, the same
   requests: ``hf`` is ``favakit serve`` generating in-process with transformers (batched across
   requests), ``vllm`` is ``favakit serve --llm-endpoint`` in front of ``favakit serve-llm
   --backend vllm``. For each engine and each ``--engine-clients`` count: requests/s and
   completion tokens/s (the ``usage`` of the edit results), p50/p99 latency. Time to first token
   is the latency of a one-token completion of an editor prompt on the engine's own server
   (``serve-llm --backend hf`` or ``vllm``), idle, median of 5. Both run without the copy guard
   (vLLM's server has none), so they do the same work; ``hf-guarded`` adds the in-process
   default, ``vllm-bf16`` vLLM with bf16 weights (``vllm`` runs fp32, like the transformers
   backend on the CPU).

    python scripts/bench_inference.py --steps engines --engines hf,vllm \
        --engine-clients 1,8,32 --out docs/results/bench_engines.json

4. ``parity``: the same greedy generation through ``serve-llm --backend vllm`` and in-process
   transformers (fp32, unguarded) on the prompts of ``--parity-rows`` (favakit training rows, e.g.
   the validation split): how many texts are identical, and where each other one first differs.

Each step prints one JSON object; ``--out`` writes them all with the machine's description.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

TEXTS = [
    ("Marie Curie won the Nobel Prize in Chemistry in 1921.", "Marie Curie won the 1911 Nobel Prize in Chemistry."),
    ("Saturn is the fourth planet from the Sun.", "Saturn is the sixth planet from the Sun."),
    ("Mount Etna is a volcano in Sardinia.", "Mount Etna is an active volcano in Sicily."),
    ("The Danube flows into the North Sea.", "The Danube flows into the Black Sea."),
    ("Titan is the smallest moon of Saturn.", "Titan is the largest moon of Saturn."),
    ("Pierre Curie was born in Lyon in 1859.", "Pierre Curie was born in Paris in 1859."),
    ("The Eiffel Tower was finished in 1901.", "The Eiffel Tower was completed in 1889."),
    ("Lake Baikal is the shallowest lake in Asia.", "Lake Baikal is the deepest lake in the world."),
]  # fmt: skip


def _body(i: int) -> dict[str, Any]:
    text, evidence = TEXTS[i % len(TEXTS)]
    return {"text": text, "evidence": [evidence]}


def bench_generation(args: argparse.Namespace) -> dict[str, Any]:
    from favakit.inference.editor import STOP, EditorSettings, GenerativeEditor
    from favakit.inference.generators import GeneratorClient, HFGenerator
    from favakit.llm import GenerationParams
    from favakit.prompts import build_prompt

    gen = HFGenerator.load(args.model, adapter=args.adapter, device=args.device or None)
    editor = GenerativeEditor(GeneratorClient(gen), settings=EditorSettings())
    prompts = [
        build_prompt(b["text"], b["evidence"], template=editor.settings.template)
        for b in (_body(i) for i in range(args.prompts))
    ]
    params = GenerationParams(max_tokens=args.max_new_tokens, temperature=0.0, stop=STOP)
    gen.generate(prompts[:2], params)  # warm-up
    row: dict[str, Any] = {"step": "generation", "model": gen.name, "prompts": len(prompts)}
    for label, batch in (("one_at_a_time", 1), (f"batch_{args.max_batch}", args.max_batch)):
        gen.max_batch = batch
        t0 = time.perf_counter()
        outs = gen.generate(prompts, params)
        seconds = time.perf_counter() - t0
        tokens = sum(o.completion_tokens for o in outs)
        row[label] = {
            "seconds": round(seconds, 2),
            "completion_tokens": tokens,
            "tokens_per_s": round(tokens / seconds, 1),
        }
    row["batched_vs_sequential"] = round(
        row[f"batch_{args.max_batch}"]["tokens_per_s"] / row["one_at_a_time"]["tokens_per_s"], 2
    )
    return row


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bench_load(args: argparse.Namespace) -> dict[str, Any]:
    port = _free_port()
    cmd = [
        sys.executable, "-m", "favakit", "serve", "--model", args.model, "--port", str(port),
        "--max-batch", str(args.max_batch), "--max-new-tokens", str(args.max_new_tokens),
    ]  # fmt: skip
    if args.adapter:
        cmd += ["--adapter", args.adapter]
    if args.device:
        cmd += ["--device", args.device]
    url = f"http://127.0.0.1:{port}"
    server = _start(cmd, url, "favakit serve")
    try:

        def client(c: int) -> list[tuple[float, int]]:
            out = []
            for r in range(args.requests):
                t0 = time.perf_counter()
                status, _ = _post(url + "/v1/edit", _body(c * args.requests + r))
                out.append((time.perf_counter() - t0, status))
            return out

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.clients) as pool:
            results = [x for chunk in pool.map(client, range(args.clients)) for x in chunk]
        wall = time.perf_counter() - t0
    finally:
        _stop(server)
    latencies = sorted(t for t, _ in results)
    errors = sum(1 for _, s in results if s != 200)
    return {
        "step": "load",
        "clients": args.clients,
        "requests": len(results),
        "errors": errors,
        "p50_s": round(statistics.median(latencies), 2),
        "p99_s": round(latencies[max(0, int(len(latencies) * 0.99) - 1)], 2),
        "mean_s": round(statistics.fmean(latencies), 2),
        "requests_per_s": round(len(results) / wall, 2),
        "wall_s": round(wall, 1),
        "max_batch": args.max_batch,
        "max_new_tokens": args.max_new_tokens,
    }


def _wait_health(proc: subprocess.Popen[str], url: str, what: str, timeout: float = 900) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url + "/health", timeout=2)
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                err = proc.stderr.read() if proc.stderr else ""
                raise RuntimeError(f"{what} did not start: {err[-3000:]}") from None
            time.sleep(0.5)


def _start(cmd: list[str], url: str, what: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _wait_health(proc, url, what)
    return proc


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=30)


def _post(url: str, body: Any, timeout: float = 900) -> tuple[int, Any]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except OSError:
        return 0, None


def _edit_load(url: str, clients: int, per_client: int) -> dict[str, Any]:
    def client(c: int) -> list[tuple[float, int, int]]:
        out = []
        for r in range(per_client):
            t0 = time.perf_counter()
            status, res = _post(url + "/v1/edit", _body(c * per_client + r))
            tokens = int(res["usage"]["completion_tokens"]) if status == 200 else 0
            out.append((time.perf_counter() - t0, status, tokens))
        return out

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        results = [x for chunk in pool.map(client, range(clients)) for x in chunk]
    wall = time.perf_counter() - t0
    latencies = sorted(t for t, _, _ in results)
    return {
        "clients": clients,
        "requests": len(results),
        "errors": sum(1 for _, s, _ in results if s != 200),
        "requests_per_s": round(len(results) / wall, 3),
        "completion_tokens_per_s": round(sum(n for _, _, n in results) / wall, 1),
        "p50_s": round(statistics.median(latencies), 2),
        "p99_s": round(latencies[max(0, int(len(latencies) * 0.99) - 1)], 2),
        "wall_s": round(wall, 1),
    }


def _ttft(llm_url: str, model: str, n: int = 5) -> float:
    from favakit.prompts import build_prompt

    times = []
    for i in range(n + 1):  # the first one warms up
        body = _body(i)
        prompt = build_prompt(body["text"], body["evidence"], template="fava")
        t0 = time.perf_counter()
        status, _ = _post(
            llm_url + "/v1/completions",
            {"model": model, "prompt": prompt, "max_tokens": 1, "temperature": 0.0},
        )
        if status != 200:
            raise RuntimeError(f"{llm_url}: one-token completion failed ({status})")
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times[1:]), 3)


def bench_engines(args: argparse.Namespace) -> list[dict[str, Any]]:
    favakit = [sys.executable, "-m", "favakit"]
    model_flags = (["--model", args.model] if args.model else []) + (
        ["--adapter", args.adapter] if args.adapter else []
    )
    rows = []
    for engine in args.engines.split(","):
        backend = "vllm" if engine.startswith("vllm") else "hf"
        dtype = ["--dtype", "bfloat16"] if "-bf16" in engine else []
        if engine.endswith("-allcores"):  # vLLM computes on every core (reserves none)
            dtype += ["--reserved-cpus", "0"]
        llm_port, port = _free_port(), _free_port()
        llm_url, url = f"http://127.0.0.1:{llm_port}", f"http://127.0.0.1:{port}"
        t0 = time.perf_counter()
        llm = _start(
            [
                *favakit,
                "serve-llm",
                "--backend",
                backend,
                "--port",
                str(llm_port),
                *model_flags,
                *dtype,
            ],
            llm_url,
            f"serve-llm --backend {backend}",
        )
        started = round(time.perf_counter() - t0, 1)
        try:
            models = json.loads(urllib.request.urlopen(llm_url + "/v1/models").read())["data"]
            ids = [m["id"] for m in models]
            served = "favakit" if "favakit" in ids else ids[0]
            ttft = _ttft(llm_url, served)
            if backend == "vllm":
                serve_cmd = [*favakit, "serve", "--llm-endpoint", llm_url]  # the vLLM server
            else:  # in-process: the generation server was only for time to first token
                _stop(llm)
                serve_cmd = [*favakit, "serve", *model_flags, "--max-batch", str(args.max_batch)]
            if engine != "hf-guarded":
                serve_cmd.append("--no-copy-guard")
            server = _start([*serve_cmd, "--port", str(port)], url, "favakit serve")
            try:
                _post(url + "/v1/edit", _body(0))  # warm-up
                loads = [
                    _edit_load(url, c, max(2, args.engine_requests // c))
                    for c in (int(x) for x in args.engine_clients.split(","))
                ]
            finally:
                _stop(server)
        finally:
            if llm.poll() is None:
                _stop(llm)
        row = {"step": "engines", "engine": engine, "server_start_s": started,
               "time_to_first_token_s": ttft, "load": loads}  # fmt: skip
        print(json.dumps(row), flush=True)
        rows.append(row)
    by = {r["engine"]: r for r in rows}
    for name, row in by.items():
        if name.startswith("vllm") and "hf" in by:
            ratios = {
                str(a["clients"]): round(b["requests_per_s"] / a["requests_per_s"], 2)
                for a, b in zip(by["hf"]["load"], row["load"], strict=True)
            }
            rows.append({"step": "engines", f"{name}_vs_hf_requests_per_s": ratios})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def bench_parity(args: argparse.Namespace) -> dict[str, Any]:
    from favakit.inference.editor import STOP
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams, OpenAIClient

    rows = [json.loads(x) for x in Path(args.parity_rows).read_text().splitlines() if x.strip()]
    prompts = [r["prompt"] for r in rows[: args.parity_n]]
    params = GenerationParams(max_tokens=args.parity_max_tokens, temperature=0.0, stop=STOP)
    model_flags = (["--model", args.model] if args.model else []) + (
        ["--adapter", args.adapter] if args.adapter else []
    )
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    llm = _start(
        [sys.executable, "-m", "favakit", "serve-llm", "--backend", "vllm", "--port", str(port),
         *model_flags], url, "serve-llm --backend vllm",
    )  # fmt: skip
    try:
        ids = [
            m["id"] for m in json.loads(urllib.request.urlopen(url + "/v1/models").read())["data"]
        ]
        served = "favakit" if "favakit" in ids else ids[0]
        t0 = time.perf_counter()
        got = [c.text for c in OpenAIClient(url, model=served).complete(prompts, params)]
        vllm_s = time.perf_counter() - t0
    finally:
        _stop(llm)
    gen = HFGenerator.load(args.model, adapter=args.adapter, device="cpu", max_batch=8)
    t0 = time.perf_counter()
    want = [g.text for g in gen.generate(prompts, params)]
    hf_s = time.perf_counter() - t0
    differ = []
    for i, (a, b) in enumerate(zip(want, got, strict=True)):
        if a != b:
            at = next(
                (k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)),
            )
            differ.append({"row": rows[i].get("id", i), "first_difference_at_char": at,
                           "transformers": a[max(0, at - 30) : at + 30],
                           "vllm": b[max(0, at - 30) : at + 30]})  # fmt: skip
    return {
        "step": "parity",
        "prompts": len(prompts),
        "identical": len(prompts) - len(differ),
        "differences": differ,
        "seconds": {"vllm": round(vllm_s, 1), "transformers": round(hf_s, 1)},
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--model", default="", help="default: the shipped editor")
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--device", default="")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--requests", type=int, default=10, help="per client")
    ap.add_argument("--prompts", type=int, default=16, help="for the generation comparison")
    ap.add_argument("--max-batch", type=int, default=16)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--steps", default="generation,load", help="generation, load, engines, parity")
    ap.add_argument("--engines", default="hf,vllm", help="hf, hf-guarded, vllm (fp32), vllm-bf16")
    ap.add_argument("--parity-rows", default=None, help="training rows whose prompts to compare")
    ap.add_argument("--parity-n", type=int, default=20)
    ap.add_argument("--parity-max-tokens", type=int, default=384)
    ap.add_argument("--engine-clients", default="1,8,32")
    ap.add_argument(
        "--engine-requests", type=int, default=32, help="requests per client count (>= 2 each)"
    )
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not (args.model or args.adapter):
        from favakit.inference.models import default_editor

        args.adapter = default_editor()
    rows: list[dict[str, Any]] = []
    for step in args.steps.split(","):
        if step == "engines":
            rows += bench_engines(args)
            continue
        if step == "parity":
            rows.append(bench_parity(args))
            print(json.dumps(rows[-1]), flush=True)
            continue
        row = bench_generation(args) if step == "generation" else bench_load(args)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.out:
        gpu = None
        try:
            import torch

            gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
        except ImportError:
            pass
        meta = {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "gpu": gpu,
            "date": time.strftime("%Y-%m-%d"),
            "args": {k: v for k, v in vars(args).items() if k != "out"},
        }
        args.out.write_text(json.dumps({"machine": meta, "results": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
