"""Inference benchmark: the editor service under load, and batched vs one-at-a-time generation.

    python scripts/bench_inference.py --model smollm2 --out docs/results/bench_inference.json

1. ``generation``: the editor prompts of ``--prompts`` texts generated in-process by one
   :class:`~favakit.inference.generators.HFGenerator`, first one request at a time, then in
   batches of ``--max-batch``, side by side in the same process; tokens/s of each and the ratio.
2. ``load``: ``favakit serve`` started as its own process on loopback (in-process generation,
   batched across requests), then ``--clients`` concurrent clients each sending ``--requests``
   ``POST /v1/edit`` requests; errors, p50/p99 latency and throughput.

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
    from favakit.inference.editor import STOP, Editor, EditorSettings
    from favakit.inference.generators import GeneratorClient, HFGenerator
    from favakit.llm import GenerationParams
    from favakit.prompts import build_prompt

    gen = HFGenerator.load(args.model, adapter=args.adapter, device=args.device or None)
    editor = Editor(GeneratorClient(gen), settings=EditorSettings())
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
    server = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 600
        while True:
            try:
                urllib.request.urlopen(url + "/health", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    err = server.stderr.read() if server.stderr else ""
                    raise RuntimeError(f"favakit serve did not start: {err[-2000:]}") from None
                time.sleep(0.5)

        def client(c: int) -> list[tuple[float, int]]:
            out = []
            for r in range(args.requests):
                data = json.dumps(_body(c * args.requests + r)).encode()
                req = urllib.request.Request(
                    url + "/v1/edit", data=data, headers={"Content-Type": "application/json"}
                )
                t0 = time.perf_counter()
                try:
                    with urllib.request.urlopen(req, timeout=900) as resp:
                        status = resp.status
                        json.loads(resp.read())
                except urllib.error.HTTPError as exc:
                    status = exc.code
                except OSError:
                    status = 0
                out.append((time.perf_counter() - t0, status))
            return out

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.clients) as pool:
            results = [x for chunk in pool.map(client, range(args.clients)) for x in chunk]
        wall = time.perf_counter() - t0
    finally:
        server.terminate()
        server.wait(timeout=60)
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


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--device", default="")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--requests", type=int, default=10, help="per client")
    ap.add_argument("--prompts", type=int, default=16, help="for the generation comparison")
    ap.add_argument("--max-batch", type=int, default=16)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--steps", default="generation,load")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    rows = []
    for step in args.steps.split(","):
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
