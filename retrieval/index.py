"""Vector and BM25 indexes behind one interface, and the sharded, resumable index build.

Vector indexes (inner product; with a normalizing encoder that is cosine):

* ``flat``: exact search (``faiss.IndexFlatIP``), or the numpy fallback with the same results.
* ``ivf``: ``IndexIVFFlat``: ``nlist`` clusters, ``nprobe`` searched. For large corpora.
* ``hnsw``: ``IndexHNSWFlat`` graph (``M`` links, ``efSearch``). For large corpora, no training.

Memory: a flat index holds every vector: 21M Wikipedia passages x 768 dims x 4 bytes is about
65 GB (x 384 dims, MiniLM: 32 GB). IVF-Flat needs the same plus the centroids; HNSW adds about
``M * 2 * 4`` bytes of links per vector (about 5 GB more at M=32). Quantized indexes (IVF-PQ)
are the way below that, at some recall; they are not wrapped here yet.

An index folder holds ``meta.json`` (written last: its presence marks a finished build),
``doc.npy``/``pos.npy`` (KB document rowid and passage position of every entry), and the index
itself (``index.faiss``, ``vectors.npy`` or ``bm25/``). Nothing is pickled.

The build embeds passages in shards of ``shard_size`` under ``shards/``, each written atomically.
A crashed or killed build resumes where it stopped; ``shard=(i, n)`` embeds only every n-th shard
(starting at i) so n machines can share the work; the run that finds every shard present merges
them into the index.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from favakit.config import changed_settings
from favakit.deps import is_available, require
from favakit.distributed import RayOptions, map_in_order
from favakit.errors import UsageError
from favakit.records import atomic_open, output_folder, share_like_open, some_names
from favakit.retrieval.encoder import resolve_encoder
from favakit.retrieval.kb import KnowledgeSource

__all__ = [
    "INDEX_KINDS",
    "SHARDS_DIR",
    "BM25Index",
    "FaissIndex",
    "NumpyIndex",
    "VectorIndex",
    "build_index",
    "load_vector_index",
    "make_vector_index",
    "passage_text",
]

log = logging.getLogger(__name__)
INDEX_KINDS = ("flat", "ivf", "hnsw", "bm25")
FORMAT_VERSION = 1
#: where a dense build keeps the shards it has embedded, inside its folder (a rerun resumes)
SHARDS_DIR = "shards"


def passage_text(title: str, text: str) -> str:
    """What is embedded or BM25-indexed for a passage: its title and its text."""
    return f"{title}. {text}" if title else text


class VectorIndex(Protocol):
    kind: str

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top-k (scores, ids) per query row; ids are -1 where fewer than k entries exist."""
        ...

    def save(self, folder: Path) -> None: ...


def _as_queries(queries: np.ndarray) -> np.ndarray:
    q = np.ascontiguousarray(queries, dtype=np.float32)
    return q[None, :] if q.ndim == 1 else q


class NumpyIndex:
    """Exact inner-product search in numpy: the fallback where FAISS is not installed."""

    kind = "flat"

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        q = _as_queries(queries)
        n = self.vectors.shape[0]
        kk = min(k, n)
        scores = np.full((q.shape[0], k), -np.inf, dtype=np.float32)
        ids = np.full((q.shape[0], k), -1, dtype=np.int64)
        if kk == 0:
            return scores, ids
        for start in range(0, q.shape[0], 256):  # bound the memory of the score matrix
            s = q[start : start + 256] @ self.vectors.T
            part = (
                np.argpartition(-s, kk - 1, axis=1)[:, :kk]
                if kk < n
                else np.tile(np.arange(n), (s.shape[0], 1))
            )
            top = np.take_along_axis(s, part, axis=1)
            order = np.lexsort((part, -top), axis=1)  # score descending, then id ascending
            ids[start : start + 256, :kk] = np.take_along_axis(part, order, axis=1)
            scores[start : start + 256, :kk] = np.take_along_axis(top, order, axis=1)
        return scores, ids

    def save(self, folder: Path) -> None:
        with atomic_open(folder / "vectors.npy", "wb") as fh:
            np.save(fh, self.vectors)


class FaissIndex:
    """A FAISS index (flat, IVF or HNSW), moved to the GPUs when faiss-gpu is present."""

    def __init__(self, index: Any, kind: str, gpu: bool = False) -> None:
        self.faiss = require("faiss", "retrieval", "FAISS indexes")
        self.kind = kind
        self.cpu_index = index
        self.index = index
        if gpu and hasattr(self.faiss, "index_cpu_to_all_gpus") and self.faiss.get_num_gpus() > 0:
            self.index = self.faiss.index_cpu_to_all_gpus(index)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        scores, ids = self.index.search(_as_queries(queries), k)
        return scores.astype(np.float32), ids.astype(np.int64)

    def set_params(self, nprobe: int | None = None, ef_search: int | None = None) -> None:
        if nprobe is not None and hasattr(self.cpu_index, "nprobe"):
            self.cpu_index.nprobe = nprobe
            if self.index is not self.cpu_index:
                self.faiss.GpuParameterSpace().set_index_parameter(self.index, "nprobe", nprobe)
        if ef_search is not None and hasattr(self.cpu_index, "hnsw"):
            self.cpu_index.hnsw.efSearch = ef_search

    def save(self, folder: Path) -> None:
        tmp = folder / ".index.faiss.tmp"
        self.faiss.write_index(self.cpu_index, str(tmp))
        share_like_open(tmp)
        os.replace(tmp, folder / "index.faiss")


def make_vector_index(
    vectors: np.ndarray,
    kind: str = "flat",
    backend: str = "auto",
    nlist: int | None = None,
    nprobe: int = 16,
    hnsw_m: int = 32,
    ef_construction: int = 80,
    ef_search: int = 128,
    gpu: bool = True,
    seed: int = 0,
) -> VectorIndex:
    """Build an inner-product index over ``vectors`` (float32, one row per entry)."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, dim = vectors.shape
    if backend == "numpy" or (backend == "auto" and not is_available("faiss")):
        if kind != "flat":
            raise UsageError(f"a {kind!r} index needs FAISS: pip install 'favakit[retrieval]'")
        return NumpyIndex(vectors)
    faiss = require("faiss", "retrieval", "FAISS indexes")
    if kind == "flat":
        index = faiss.IndexFlatIP(dim)
    elif kind == "ivf":
        nlist = nlist or max(1, min(int(4 * math.sqrt(n)), n // 39 or 1))
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(seed)
        sample = vectors[rng.choice(n, size=min(n, 256 * nlist), replace=False)]
        index.train(sample)
        index.nprobe = min(nprobe, nlist)
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = ef_construction
        index.hnsw.efSearch = ef_search
    else:
        raise UsageError(f"unknown vector index kind {kind!r}; choose flat, ivf or hnsw")
    index.add(vectors)
    return FaissIndex(index, kind, gpu=gpu)


def load_vector_index(folder: Path, kind: str, gpu: bool = True) -> VectorIndex:
    if (folder / "index.faiss").exists():
        faiss = require("faiss", "retrieval", f"the FAISS index in {folder}")
        return FaissIndex(faiss.read_index(str(folder / "index.faiss")), kind, gpu=gpu)
    if (folder / "vectors.npy").exists():
        return NumpyIndex(np.load(folder / "vectors.npy"))
    raise UsageError(f"{folder} holds no index file (index.faiss or vectors.npy)")


class BM25Index:
    """BM25 (bm25s, Lucene variant) over title + text, English stop words removed."""

    kind = "bm25"

    def __init__(self, model: Any) -> None:
        self.model = model
        self.bm25s = require("bm25s", "retrieval", "BM25 search")

    @classmethod
    def build(cls, texts: Sequence[str], k1: float = 1.5, b: float = 0.75) -> BM25Index:
        bm25s = require("bm25s", "retrieval", "BM25 search")
        model = bm25s.BM25(k1=k1, b=b)
        tokens = bm25s.tokenize(list(texts), stopwords="en", show_progress=False)
        model.index(tokens, show_progress=False)
        return cls(model)

    def search_text(self, queries: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        n_docs = int(self.model.scores["num_docs"])
        kk = min(k, n_docs)
        scores = np.zeros((len(queries), k), dtype=np.float32)
        ids = np.full((len(queries), k), -1, dtype=np.int64)
        if kk == 0 or not queries:
            return scores, ids
        tokens = self.bm25s.tokenize(list(queries), stopwords="en", show_progress=False)
        docs, s = self.model.retrieve(tokens, k=kk, show_progress=False, n_threads=1)
        ids[:, :kk], scores[:, :kk] = docs, s
        ids[:, :kk][scores[:, :kk] <= 0] = -1  # no query term in common: not a match
        return scores, ids

    def save(self, folder: Path) -> None:
        tmp = folder / ".bm25.tmp"
        self.model.save(str(tmp), show_progress=False)
        share_like_open(tmp)
        os.replace(tmp, folder / "bm25")

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        bm25s = require("bm25s", "retrieval", "BM25 search")
        return cls(bm25s.BM25.load(str(folder / "bm25"), show_progress=False))


# ------------------------------------------------------------------------------------------------
# The build


def _save_npy(path: Path, array: np.ndarray) -> None:
    with atomic_open(path, "wb") as fh:
        np.save(fh, array)


def _embed_stage(
    kb_path: str, encoder: str, device: str | None, batch_size: int, progress: bool
) -> Callable[[list[tuple[int, int, int, int]]], list[Any]]:
    """The per-shard work of an index build, in this process or in a Ray worker: shards
    ``(k, first doc, first position, count)`` -> their vectors."""
    from favakit.retrieval.encoder import DenseEncoder

    model = DenseEncoder(encoder, device=device, batch_size=batch_size)

    def embed(shards: list[tuple[int, int, int, int]]) -> list[Any]:
        out = []
        with KnowledgeSource(kb_path) as kb:
            for k, doc, index, count in shards:
                texts = [passage_text(p.title, p.text) for p in kb.passages(doc, index, count)]
                out.append(model.encode(texts, progress=progress, desc=f"shard {k}"))
        return out

    return embed


def _write_json(path: Path, obj: Any) -> None:
    with atomic_open(path) as fh:
        json.dump(obj, fh, indent=2)


#: what a build writes into its folder (a build killed part way leaves some of them, and
#: hidden ``.*.tmp`` files being written)
_INDEX_FILES = frozenset({SHARDS_DIR, "meta.json", "doc.npy", "pos.npy", "index.faiss",
                          "vectors.npy", "bm25"})  # fmt: skip


def _refuse_a_folder_of_other_files(folder: Path) -> None:
    """An index is a folder of its own: ``--out`` naming a folder that holds other files (a
    synthesis run, ``runs/`` itself) had the index's files written in among them."""
    if not folder.is_dir():
        return
    others = [
        p.name for p in folder.iterdir()
        if p.name not in _INDEX_FILES and not (p.name.startswith(".") and p.name.endswith(".tmp"))
    ]  # fmt: skip
    if others:
        raise UsageError(
            f"--out {folder} holds other files ({some_names(others)}): an index is a folder of "
            "its own; "
            f"give a new one, such as {folder / 'index'}"
        )


def build_index(
    kb_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    encoder: str = "minilm",
    kind: str = "flat",
    shard_size: int = 20_000,
    shard: tuple[int, int] | None = None,
    batch_size: int = 64,
    device: str | None = None,
    backend: str = "auto",
    nlist: int | None = None,
    progress: bool = False,
    on_shard: Callable[[int], None] | None = None,
    ray: RayOptions | None = None,
) -> dict[str, Any] | None:
    """Build an index folder from a knowledge source. Returns the meta, or None when this run
    (one of several ``shard=(i, n)`` runs) embedded its shards but others are still missing.

    ``ray``: embed the missing shards in a pool of Ray actors (each loads the encoder once and
    reads its shards' passages from ``kb_path``, which must exist at that path on every node);
    this process writes each shard as it comes back, so resuming works as without Ray."""
    if kind not in INDEX_KINDS:
        raise UsageError(f"unknown index kind {kind!r}; choose one of {', '.join(INDEX_KINDS)}")
    if shard_size < 1:
        raise UsageError("shard_size must be at least 1")
    i_shard, n_shards = shard or (0, 1)
    if not 0 <= i_shard < n_shards:
        raise UsageError(f"--shard {i_shard}/{n_shards}: expected i/n with 0 <= i < n")
    if kind != "bm25":
        if Path(encoder).is_dir():
            encoder = str(Path(encoder).resolve())  # the index must find its encoder from anywhere
        preset = resolve_encoder(encoder)  # a missing folder or package is named before any work
    _refuse_a_folder_of_other_files(Path(out))
    folder = output_folder(out)
    if (folder / "meta.json").exists():
        raise UsageError(
            f"{folder} already holds a finished index; remove it or choose another --out"
        )
    t0 = time.perf_counter()
    with KnowledgeSource(kb_path) as kb:
        n_docs = len(kb)
        passages = list(kb.passages()) if kind == "bm25" else None
        doc_ids: list[int] = []
        positions: list[int] = []
        if kind == "bm25":
            assert passages is not None
            doc_ids = [p.doc for p in passages]
            positions = [p.index for p in passages]
            index: Any = BM25Index.build([passage_text(p.title, p.text) for p in passages])
            dim = 0
            encoder_name = None
            normalize = None
        else:
            enc_cfg = {"encoder": encoder, "shard_size": shard_size, "kb_documents": n_docs}
            shards_dir = folder / SHARDS_DIR
            shards_dir.mkdir(exist_ok=True)
            cfg_path = shards_dir / "config.json"
            # settings left by a run that embedded nothing (its encoder failed to load) bind nothing
            if cfg_path.exists() and any(shards_dir.glob("emb-*.npy")):
                said = changed_settings(json.loads(cfg_path.read_text()), enc_cfg)
                if said:
                    raise UsageError(
                        f"{shards_dir} holds shards made with other settings ({said}); "
                        "remove that folder or choose another --out"
                    )
            else:
                _write_json(cfg_path, enc_cfg)
            # one pass over the passages: ids, and where each shard starts
            starts: list[tuple[int, int]] = []
            for p in kb.passages():
                if len(doc_ids) % shard_size == 0:
                    starts.append((p.doc, p.index))
                doc_ids.append(p.doc)
                positions.append(p.index)
            todo = [
                (k, *start, min(shard_size, len(doc_ids) - k * shard_size))
                for k, start in enumerate(starts)
                if k % n_shards == i_shard and not (shards_dir / f"emb-{k:06d}.npy").exists()
            ]
            stage = functools.partial(
                _embed_stage, str(kb_path), encoder, device, batch_size, progress and ray is None
            )
            embedded = 0
            for (k, *_), vecs in zip(todo, map_in_order(todo, stage, ray, 1), strict=True):
                _save_npy(shards_dir / f"emb-{k:06d}.npy", vecs)
                embedded += 1
                if on_shard is not None:
                    on_shard(k)
            todo_total = len(starts)
            missing = [
                k for k in range(todo_total) if not (shards_dir / f"emb-{k:06d}.npy").exists()
            ]
            log.info(
                "embedded %d shard(s) this run; %d of %d missing",
                embedded,
                len(missing),
                todo_total,
            )
            if missing:
                print(
                    f"shard {i_shard}/{n_shards}: done; {len(missing)} of {todo_total} shards still "
                    "missing (run the other shards, then this command again without --shard to merge)"
                )
                return None
            vectors = np.concatenate(
                [np.load(shards_dir / f"emb-{k:06d}.npy") for k in range(todo_total)]
            )
            encoder_name, normalize = preset.name, preset.normalize
            dim = int(vectors.shape[1])
            index = make_vector_index(vectors, kind, backend=backend, nlist=nlist)
        index.save(folder)
        _save_npy(folder / "doc.npy", np.asarray(doc_ids, dtype=np.int64))
        _save_npy(folder / "pos.npy", np.asarray(positions, dtype=np.int32))
        meta = {
            "favakit_index": FORMAT_VERSION,
            "kind": kind,
            "backend": "faiss"
            if (folder / "index.faiss").exists()
            else ("bm25s" if kind == "bm25" else "numpy"),
            "encoder": encoder_name if kind != "bm25" else None,
            "normalize": normalize,
            "dim": dim,
            "count": len(doc_ids),
            "kb": str(Path(kb_path).resolve()),
            "kb_documents": n_docs,
            "build_seconds": round(time.perf_counter() - t0, 2),
        }
        _write_json(folder / "meta.json", meta)
    return meta
