"""Retrieval benchmark: recall on HotpotQA, embedding throughput, ANN latency and recall.

    python scripts/bench_retrieval.py --hotpot ../shared/data/wiki/hotpot_dev_distractor_100.json \
        --work /tmp/bench_retrieval --out docs/bench_retrieval.json

Parts (each prints one JSON object per measurement; all of them go to --out):

* ``recall``: a KB of every context paragraph of the questions, a MiniLM flat index and a BM25
  index; each question searches with its text; recall@2 and recall@5 of the gold supporting
  titles for dense, BM25, their fusion, and each with title match. Fusion weights are chosen on
  the first half of the questions (dev) and reported on the second half (test) and on all.
* ``embed``: MiniLM passages/s on this machine, length-sorted batches vs arrival order, side by
  side in one process.
* ``ann``: flat vs IVF vs HNSW (and the numpy fallback) on synthetic clustered vectors: build
  time, single-query latency p50/p99, recall@10 against exact search.
* ``pack`` (not in the default parts): ``kb build``'s passage packing of unpunctuated articles
  (a lower-cased dump reads as one sentence an article), favakit's counter kept as a running sum
  against the same counter recounted at every word, side by side; the passages must be equal.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from favakit.retrieval.index import build_index, make_vector_index
from favakit.retrieval.kb import KnowledgeSource, build_kb
from favakit.retrieval.search import Searcher

RESULTS: list[dict[str, Any]] = []


def emit(**row: Any) -> None:
    RESULTS.append(row)
    print(json.dumps(row), flush=True)


def recall_at(hits: list[list[str]], gold: list[list[str]], k: int) -> float:
    per_q = [len(set(h[:k]) & set(g)) / len(set(g)) for h, g in zip(hits, gold, strict=True)]
    return round(float(np.mean(per_q)), 4)


def bench_recall(hotpot: Path, work: Path) -> None:
    data = json.loads(hotpot.read_text(encoding="utf-8"))
    questions = [row["question"] for row in data]
    gold = [sorted(set(row["supporting_facts"]["title"])) for row in data]
    kb_path = work / "kb.db"
    if not kb_path.exists():
        stats = build_kb(hotpot, kb_path, fmt="hotpot")
        emit(part="recall", step="kb", documents=stats.documents, passages=stats.passages)
    for kind in ("flat", "bm25"):
        folder = work / kind
        if not (folder / "meta.json").exists():
            meta = build_index(kb_path, folder, encoder="minilm", kind=kind)
            assert meta is not None
            emit(
                part="recall",
                step=f"index-{kind}",
                seconds=meta["build_seconds"],
                count=meta["count"],
            )
    kb = KnowledgeSource(kb_path)
    dev, test = slice(0, len(data) // 2), slice(len(data) // 2, len(data))

    def run(
        folders: list[str], weights: list[float] | None, title: bool, title_weight: float = 1.0
    ) -> list[list[str]]:
        s = Searcher(
            [work / f for f in folders],
            kb=kb,
            weights=weights,
            title_match=title,
            title_weight=title_weight,
        )
        return [[h.title for h in hits] for hits in s.search_many(questions, k=5)]

    def report(name: str, titles: list[list[str]], **extra: Any) -> None:
        emit(
            part="recall",
            method=name,
            **extra,
            recall_at_2=recall_at(titles, gold, 2),
            recall_at_5=recall_at(titles, gold, 5),
            test_recall_at_2=recall_at(titles[test], gold[test], 2),
            test_recall_at_5=recall_at(titles[test], gold[test], 5),
        )

    report("dense (minilm flat)", run(["flat"], None, False))
    report("bm25", run(["bm25"], None, False))
    report("hybrid rrf 1:1", run(["flat", "bm25"], None, False))
    # choose the fusion and title-match weights on the dev half only
    best: tuple[float, float, float] | None = None
    best_score = -1.0
    for w_bm25 in (0.5, 1.0, 2.0):
        for w_title in (0.0, 0.5, 1.0, 2.0):
            titles = run(["flat", "bm25"], [1.0, w_bm25], w_title > 0, w_title or 1.0)
            score = recall_at(titles[dev], gold[dev], 5) + recall_at(titles[dev], gold[dev], 2)
            if score > best_score:
                best, best_score = (1.0, w_bm25, w_title), score
    assert best is not None
    report("dense + title match", run(["flat"], None, True))
    report("bm25 + title match", run(["bm25"], None, True))
    titles = run(["flat", "bm25"], [best[0], best[1]], best[2] > 0, best[2] or 1.0)
    report(
        "hybrid, weights chosen on dev half",
        titles,
        weights={"dense": best[0], "bm25": best[1], "title": best[2]},
    )


def bench_embed(work: Path, n: int) -> None:
    from favakit.retrieval.encoder import DenseEncoder

    kb = KnowledgeSource(work / "kb.db")
    texts = [p.text for _, p in zip(range(n), kb.passages(), strict=False)]
    enc = DenseEncoder("minilm", device="cpu", batch_size=32)
    enc.encode(texts[:32])  # warm-up
    timings: dict[str, list[float]] = {"sorted": [], "arrival": []}
    for _ in range(2):  # interleaved, so machine noise hits both alike
        for mode in ("sorted", "arrival"):
            t0 = time.perf_counter()
            enc.encode(texts, sort_by_length=mode == "sorted")
            timings[mode].append(time.perf_counter() - t0)
    sorted_s, arrival_s = min(timings["sorted"]), min(timings["arrival"])
    emit(
        part="embed",
        encoder="minilm",
        device="cpu",
        passages=len(texts),
        batch_size=32,
        passages_per_s_sorted=round(len(texts) / sorted_s, 1),
        passages_per_s_arrival=round(len(texts) / arrival_s, 1),
        speedup_sorted_vs_arrival=round(arrival_s / sorted_s, 2),
    )


def embedding_like_vectors(
    n: int, dim: int, rng: np.random.Generator, latent: int = 64
) -> np.ndarray:
    """Unit vectors with the structure of text embeddings: clustered, low intrinsic dimension
    (a 64-d latent mixture projected to ``dim``), plus a little isotropic noise."""
    centers = rng.standard_normal((200, latent)).astype(np.float32)
    z = centers[rng.integers(0, 200, n)] + 0.5 * rng.standard_normal((n, latent)).astype(np.float32)
    proj = rng.standard_normal((latent, dim)).astype(np.float32) / np.sqrt(latent)
    x = z @ proj + 0.05 * rng.standard_normal((n, dim)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return np.asarray(x, dtype=np.float32)


def isotropic_cluster_vectors(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """Well-separated clusters with isotropic noise in all ``dim`` dimensions."""
    centers = rng.standard_normal((200, dim)).astype(np.float32)
    x = centers[rng.integers(0, 200, n)] + 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return np.asarray(x, dtype=np.float32)


def bench_ann(n: int, dim: int, n_queries: int, dataset: str) -> None:
    from favakit.retrieval.index import FaissIndex

    rng = np.random.default_rng(0)
    make = embedding_like_vectors if dataset == "embedding-like" else isotropic_cluster_vectors
    data = make(n + n_queries, dim, rng)
    base, queries = data[:n], data[n:]  # held-out points from the same distribution
    truth: np.ndarray | None = None
    sweeps: list[tuple[str, str, str | None, list[int]]] = [
        ("flat", "faiss", None, [0]),
        ("flat", "numpy", None, [0]),
        ("ivf", "faiss", "nprobe", [4, 16, 64]),
        ("hnsw", "faiss", "ef_search", [32, 128, 512]),
    ]
    for kind, backend, knob, values in sweeps:
        t0 = time.perf_counter()
        index = make_vector_index(base, kind, backend=backend, gpu=False)
        build_s = time.perf_counter() - t0
        for value in values:
            if knob is not None:
                assert isinstance(index, FaissIndex)
                index.set_params(**{knob: value})
            _, ids = index.search(queries, 10)  # batch search gives the recall
            if truth is None:
                truth = ids
            recall = float(
                np.mean([len(set(a) & set(b)) / 10 for a, b in zip(ids, truth, strict=True)])
            )
            lat = []
            for q in queries[:300]:  # one query at a time, as a server sees them
                t = time.perf_counter()
                index.search(q, 10)
                lat.append((time.perf_counter() - t) * 1000)
            lat.sort()
            emit(
                part="ann",
                data=dataset,
                kind=kind,
                backend=backend,
                n=n,
                dim=dim,
                params={knob: value} if knob else {},
                build_s=round(build_s, 2),
                p50_ms=round(statistics.median(lat), 3),
                p99_ms=round(lat[int(0.99 * (len(lat) - 1))], 3),
                recall_at_10_vs_flat=round(recall, 4),
            )


def bench_pack(articles: int, words: int) -> None:
    from favakit.text import count_tokens, pack_passages

    texts = [" ".join(f"word{(i + j) % 500}" for j in range(words)) for i in range(articles)]
    timed: dict[str, float] = {}
    packed: dict[str, list[list[str]]] = {}
    for name, count in (("running count", count_tokens), ("recounted", lambda t: count_tokens(t))):
        start = time.perf_counter()
        packed[name] = [pack_passages(t, 256, count=count) for t in texts]
        timed[name] = time.perf_counter() - start
    assert packed["running count"] == packed["recounted"]
    emit(part="pack", articles=articles, words_each=words, seconds=timed,
         speedup=round(timed["recounted"] / timed["running count"], 1))  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--hotpot", type=Path, default=Path("../shared/data/wiki/hotpot_dev_distractor_100.json")
    )
    ap.add_argument("--work", type=Path, default=Path("/tmp/favakit_bench_retrieval"))
    ap.add_argument("--parts", default="recall,embed,ann")
    ap.add_argument("--embed-passages", type=int, default=512)
    ap.add_argument("--ann-n", type=int, default=100_000)
    ap.add_argument("--ann-dim", type=int, default=384)
    ap.add_argument("--ann-queries", type=int, default=1000)
    ap.add_argument("--pack-articles", type=int, default=600)
    ap.add_argument("--pack-words", type=int, default=300)
    ap.add_argument("--out", type=Path, default=None, help="write all results here as JSON")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    parts = set(args.parts.split(","))
    emit(
        part="machine",
        python=sys.version.split()[0],
        platform=platform.platform(),
        date=time.strftime("%Y-%m-%d"),
    )
    if "recall" in parts:
        bench_recall(args.hotpot, args.work)
    if "embed" in parts:
        bench_embed(args.work, args.embed_passages)
    if "ann" in parts:
        for dataset in ("embedding-like", "isotropic-clusters"):
            bench_ann(args.ann_n, args.ann_dim, args.ann_queries, dataset)
    if "pack" in parts:
        bench_pack(args.pack_articles, args.pack_words)
    if args.out:
        args.out.write_text(json.dumps(RESULTS, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
