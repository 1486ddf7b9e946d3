"""Many claims against one document: the trained verifier with and without its shared pass.

A response's claims are usually checked against the same evidence (LLM-AggreFact's layout, a
`favakit verify` file of one answer's facts). The in-process verifier asks for one token, so
prompts that begin with the same evidence can share one pass over it
(`HFGenerator.shared_prefix_tokens`, on by default). This runs the shipped verifier on the same
rows both ways, side by side in one process, and prints one JSON object per measurement:

    python scripts/bench_shared_evidence.py --articles ../shared/data/wiki/wikipedia_physics_10.json \
        --title "Albert Einstein" --claims 16 --words 1500 3000 --out shared.json

Rows: the evidence is the first ``--words`` words of the article (cut at a sentence end), one
passage; the claims are rule facts (`favakit eval factscore --facts rules`) of sentences from
inside that evidence and, as many, from the article after it (mostly not supported by it). Rows
go to the verifier ``--batch`` at a time, as `favakit verify` sends them. Reported per length:
claims/s each way, their ratio, the largest difference in P(supported) and whether every verdict
is the same. Which way runs first alternates from one repeat to the next.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import time
from datetime import date
from pathlib import Path
from typing import Any


def rows_for(text: str, title: str, words: int, claims: int) -> list[dict[str, Any]]:
    """``claims`` verify rows against the first ``words`` words of ``text``: half of the claims
    from inside those words, half from after them."""
    from favakit.decompose import RuleFactSplitter
    from favakit.text import split_sentences

    sentences = split_sentences(text)
    inside: list[str] = []
    count = 0
    for s in sentences:
        if count + len(s.split()) > words and inside:
            break
        inside.append(s)
        count += len(s.split())
    after = sentences[len(inside) :]
    splitter = RuleFactSplitter()

    def facts(pool: list[str], n: int) -> list[str]:
        out: list[str] = []
        step = max(1, len(pool) // max(1, n))
        for s in pool[::step]:
            out += [f for f in splitter.sentence_facts(s, title) if 5 <= len(f.split()) <= 35][:1]
            if len(out) == n:
                break
        return out

    picked = facts(inside, claims // 2) + facts(after, claims - claims // 2)
    evidence = [{"title": title, "text": " ".join(inside)}]
    return [{"text": c, "evidence": evidence, "topic": title} for c in picked]


def run(verifier: Any, rows: list[dict[str, Any]], batch: int) -> tuple[float, list[float]]:
    """(seconds, P(supported) per row) for the rows sent ``batch`` at a time (unrounded: the
    judge's own scores, as the verifier computes its verdicts)."""
    from favakit.inference.judges import Check

    start = time.perf_counter()
    scores: list[float] = []
    for i in range(0, len(rows), batch):
        checks = [Check(r["topic"], r["text"], r["evidence"]) for r in rows[i : i + batch]]
        for _, p, _ in verifier.judge.judge_detailed(checks):
            scores.append(float(p))
    return time.perf_counter() - start, scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--articles", type=Path, required=True, help="JSON list of {title, text}")
    ap.add_argument("--title", default="Albert Einstein")
    ap.add_argument("--claims", type=int, default=16)
    ap.add_argument("--words", type=int, nargs="+", default=[1500, 3000])
    ap.add_argument(
        "--batch", type=int, default=8, help="rows per call (favakit verify's --max-batch)"
    )
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    from favakit.inference.factory import open_verifier
    from favakit.inference.generators import GeneratorClient
    from favakit.inference.verifiers import LLMVerifier
    from favakit.spec import ClientSpec

    articles = {a["title"]: a["text"] for a in json.loads(args.articles.read_text("utf-8"))}
    if args.title not in articles:
        raise SystemExit(f"{args.title!r} is not in {args.articles}")
    verifier = open_verifier("verifier", ClientSpec(max_batch=args.batch))
    # the trained verifier: an in-process LM asked True or False
    assert isinstance(verifier, LLMVerifier) and isinstance(verifier.client, GeneratorClient)
    generator = verifier.client.generator
    default = generator.shared_prefix_tokens
    results = []
    for words in args.words:
        rows = rows_for(articles[args.title], args.title, words, args.claims)
        times: dict[str, list[float]] = {"separate": [], "shared": []}
        scores: dict[str, list[float]] = {}
        for rep in range(args.repeats):
            ways = ["separate", "shared"] if rep % 2 == 0 else ["shared", "separate"]
            for way in ways:
                generator.shared_prefix_tokens = default if way == "shared" else 0
                seconds, got = run(verifier, rows, args.batch)
                times[way].append(seconds)
                scores.setdefault(way, got)
        generator.shared_prefix_tokens = default
        diffs = [abs(a - b) for a, b in zip(scores["separate"], scores["shared"], strict=True)]
        best = {way: min(t) for way, t in times.items()}
        result = {
            "words": words,
            "claims": len(rows),
            "evidence_words": len(rows[0]["evidence"][0]["text"].split()),
            "seconds": {way: [round(t, 2) for t in ts] for way, ts in times.items()},
            "claims_per_s": {way: round(len(rows) / t, 3) for way, t in best.items()},
            "speedup": round(best["separate"] / best["shared"], 2),
            "max_abs_dp": float(f"{max(diffs):.2g}"),
            "same_verdicts": all(
                (a > 0.5) == (b > 0.5)
                for a, b in zip(scores["separate"], scores["shared"], strict=True)
            ),
            "supported": sum(p > 0.5 for p in scores["shared"]),
        }
        print(json.dumps(result), flush=True)
        results.append(result)
    summary = {
        "bench": "shared_evidence",
        "date": date.today().isoformat(),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
        "args": {k: str(v) for k, v in vars(args).items()},
        "results": results,
    }
    print(json.dumps({"peak_rss_gb": summary["peak_rss_gb"]}))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
