"""FActScore verification benchmark and check on FActScore's human-labelled Lanny Flaherty bio.

    python scripts/bench_eval.py --flaherty ../shared/data/factscore/flaherty_wikipedia.json \
        --model smollm2 --work runs/flaherty --out docs/results/bench_eval.json

From the file (IBM FactReasoner's copy of one FActScore annotation: a model's bio, 26 atomic
facts labelled S/NS by people, 53 Wikipedia passages, 21 of them different) it writes a
knowledge source of the passages (one article per title, each passage once) and a ``favakit eval factscore`` input row with the facts and
their labels. Then it verifies the 26 facts three ways, side by side in one process, with the
same in-process judge:

- ``one_at_a_time``: one judge call per fact, no cache;
- ``batched``: all facts in batches of ``--max-batch``, answers cached in a fresh sqlite file;
- ``cached``: the same again, every answer from the cache.

Each prints facts/s and the agreement with the human labels; the FActScore of the batched run is
compared with the human one (the share of facts labelled S; 26 facts, so no length penalty).

With ``--judges`` it scores the facts instead with favakit's own judges, side by side, as
``favakit eval factscore`` runs them (:class:`favakit.eval.runs.Scorer`; no language model):
``checker`` (MiniLM), ``mpnet``, ``cascade``, ``qwen``::

    python scripts/bench_eval.py --flaherty ../shared/data/factscore/flaherty_wikipedia.json \
        --judges checker,mpnet,cascade --work runs/flaherty --out docs/results/factscore_flaherty.json

Each gives FActScore, agreement, balanced accuracy against the human labels, facts/s (a lazily
loaded judge loaded first) and its decision per fact, by the fact's id.
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
    for ctx in data["contexts"]:  # the file lists a passage once per fact it was found for
        texts = by_title.setdefault(ctx["title"], [])
        if ctx["text"] not in texts:
            texts.append(ctx["text"])
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
    ap.add_argument(
        "--judges", default=None,
        help="comma list of checker, mpnet, cascade, qwen: favakit's judges instead of --model",
    )  # fmt: skip
    args = ap.parse_args()
    if args.judges:
        results = own_judges(args)
        _write(args, results)
        return 0

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
    _write(args, results)
    return 0


def _write(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    if args.out:
        meta = {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "date": time.strftime("%Y-%m-%d"),
            "args": {k: str(v) for k, v in vars(args).items() if k != "out"},
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"machine": meta, "results": results}, indent=1) + "\n")


#: ``--judges`` names: (``--judge``, ``--checker``) of ``favakit eval factscore``
OWN_JUDGES = {"checker": ("checker", "checker"), "mpnet": ("checker", "mpnet"),
              "cascade": ("cascade", None), "qwen": ("qwen", None)}  # fmt: skip


def own_judges(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The facts scored by each of ``args.judges`` (:data:`OWN_JUDGES`), as ``favakit eval
    factscore --use-atomic-facts`` scores them: one result per judge."""
    from favakit.eval.factscore import aggregate, agreement, score_outputs
    from favakit.eval.runs import ScoreOptions, Scorer
    from favakit.inference.judges import VerifierJudge
    from favakit.inference.verifiers import OpenedOnFirstUse

    data = json.loads(args.flaherty.read_text(encoding="utf-8"))
    kb, row = prepare(args.flaherty, args.work)
    ids = {a["text"]: a["id"] for a in data["atoms"]}
    labels = [dict(zip(row["atomic_facts"], row["labels"], strict=True))]
    human = sum(lab == "S" for lab in row["labels"]) / len(row["labels"])
    results = []
    for name in args.judges.split(","):
        if name not in OWN_JUDGES:
            raise SystemExit(f"--judges: {name!r} is not one of {', '.join(OWN_JUDGES)}")
        kind, checker = OWN_JUDGES[name]
        opts = ScoreOptions(str(args.work / "input.jsonl"), str(kb), str(args.work / "none.json"),
                            judge=kind, checker=checker, use_atomic_facts=True, k=args.k)  # fmt: skip
        scorer = Scorer(opts)
        judge = scorer.judge
        second = (
            getattr(judge.verifier, "second", None) if isinstance(judge, VerifierJudge) else None
        )
        if isinstance(second, OpenedOnFirstUse):
            second.open()  # the cascade's judge loaded before the clock starts
        t0 = time.perf_counter()
        decisions = score_outputs([row], scorer.retriever.retrieve, scorer.judge, None, True)
        seconds = time.perf_counter() - t0
        agree, scored = agreement(decisions, labels), aggregate(decisions)
        # the data set's facts by id: no text of it is kept here
        by_id = [{"atom_id": ids[d["atom"]], "is_supported": d["is_supported"]}
                 for d in decisions[0] or []]  # fmt: skip
        out = {
            "judge": name,
            "verdicts": dict(scorer.judge.how),
            "facts": len(row["atomic_facts"]),
            "seconds": round(seconds, 2),
            "facts_per_s": round(len(row["atomic_facts"]) / seconds, 2),
            # FActScore's length penalty applies under 10 facts; the human share has none
            "factscore": round(scored["score"], 4),
            "init_score": round(scored["init_score"], 4),
            "human_factscore": round(human, 4),
            "balanced_accuracy": round((agree["S"]["recall"] + agree["NS"]["recall"]) / 2, 4),
            "agreement": agree,
            "decisions": by_id,
        }
        print(json.dumps({k: v for k, v in out.items() if k != "decisions"}), flush=True)
        results.append(out)
    return results


if __name__ == "__main__":
    raise SystemExit(main())
