"""FActScore verification benchmark and check on FActScore's human-labelled Lanny Flaherty bio.

    python scripts/bench_eval.py --flaherty ../shared/data/factscore/flaherty_wikipedia.json \
        --model smollm2 --work runs/flaherty --out docs/results/bench_eval.json

From the file (IBM FactReasoner's copy of one FActScore annotation: a model's bio, 26 atomic
facts labelled S/NS by people, 53 Wikipedia passages) it writes a knowledge source of the
passages (one article per title) and a ``favakit eval factscore`` input row with the facts and
their labels. Then it verifies the 26 facts three ways, side by side in one process, with the
same in-process judge:

- ``one_at_a_time``: one judge call per fact, no cache;
- ``batched``: all facts in batches of ``--max-batch``, answers cached in a fresh sqlite file;
- ``cached``: the same again, every answer from the cache.

Each prints facts/s and the agreement with the human labels; the FActScore of the batched run is
compared with the human one (the share of facts labelled S; 26 facts, so no length penalty).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any


def prepare(flaherty: Path, work: Path) -> tuple[Path, dict[str, Any]]:
    from favakit.retrieval.kb import build_kb

    data = json.loads(flaherty.read_text(encoding="utf-8"))
    work.mkdir(parents=True, exist_ok=True)
    by_title: dict[str, list[str]] = {}
    for ctx in data["contexts"]:
        by_title.setdefault(ctx["title"], []).append(ctx["text"])
    docs = work / "contexts.jsonl"
    docs.write_text(
        "".join(
            json.dumps({"title": t, "text": "\n\n".join(x)}) + "\n" for t, x in by_title.items()
        )
    )
    kb = work / "kb.db"
    if not kb.exists():
        build_kb(docs, kb)
    row = {
        "topic": data["topic"],
        "output": data["output"],
        "atomic_facts": [a["text"] for a in data["atoms"]],
        "labels": [a["label"] for a in data["atoms"]],
    }
    (work / "input.jsonl").write_text(json.dumps(row) + "\n")
    return kb, row


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--flaherty", type=Path, required=True)
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--device", default=None)
    ap.add_argument("--chat", action="store_true", help="ask through the chat template")
    ap.add_argument("--max-batch", type=int, default=8)
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--work", type=Path, default=Path("runs/flaherty"))
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    from favakit.eval.factscore import aggregate, agreement, score_outputs
    from favakit.inference.generators import GeneratorClient, HFGenerator
    from favakit.inference.judges import Judge
    from favakit.llm import ResponseCache
    from favakit.retrieval.evidence import TopicRetriever

    kb, row = prepare(args.flaherty, args.work)
    labels = [dict(zip(row["atomic_facts"], row["labels"], strict=True))]
    human = sum(lab == "S" for lab in row["labels"]) / len(row["labels"])
    retriever = TopicRetriever(str(kb), k=args.k)
    generator = HFGenerator.load(args.model, adapter=args.adapter, device=args.device)
    cache_path = args.work / "judge_cache.db"
    cache_path.unlink(missing_ok=True)
    results = []
    for mode in ("one_at_a_time", "batched", "cached"):
        generator.max_batch = 1 if mode == "one_at_a_time" else args.max_batch
        cache = None if mode == "one_at_a_time" else ResponseCache(cache_path)
        client = GeneratorClient(generator, cache=cache, max_concurrency=1)
        judge = Judge(client, chat=args.chat)
        t0 = time.perf_counter()
        if mode == "one_at_a_time":
            decisions: list[Any] = [[]]
            for fact in row["atomic_facts"]:
                one = score_outputs(
                    [{**row, "atomic_facts": [fact]}], retriever.retrieve, judge, None, True
                )[0]
                decisions[0] += one or []
        else:
            decisions = score_outputs([row], retriever.retrieve, judge, None, True)
        seconds = time.perf_counter() - t0
        scores = aggregate(decisions)
        out = {
            "mode": mode,
            "facts": len(row["atomic_facts"]),
            "seconds": round(seconds, 2),
            "facts_per_s": round(len(row["atomic_facts"]) / seconds, 2),
            "judge_calls": client.usage.calls,
            "cache_hits": client.usage.cache_hits,
            "verdicts": dict(judge.how),
            "factscore": round(scores["score"], 4),
            "human_factscore": round(human, 4),
            "agreement": agreement(decisions, labels),
        }
        print(json.dumps(out), flush=True)
        results.append(out)
    base = results[0]["facts_per_s"]
    for r in results:
        r["speed_vs_one_at_a_time"] = round(r["facts_per_s"] / base, 2)
    if args.out:
        meta = {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "date": time.strftime("%Y-%m-%d"),
            "args": {k: str(v) for k, v in vars(args).items() if k != "out"},
        }
        args.out.write_text(json.dumps({"machine": meta, "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
