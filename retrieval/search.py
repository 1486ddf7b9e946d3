"""Searching index folders: dense, BM25, title match, and their fusion.

``Searcher([dir1, dir2, ...])`` opens one or more index folders built by
:func:`favakit.retrieval.index.build_index`; with more than one (say a dense and a BM25 index) it
fuses their rankings by reciprocal rank fusion, ``score = sum_i w_i / (rrf_k + rank_i)``. With
``title_match=True`` a third ranking joins the fusion: articles whose title (qualifier removed)
appears in the query, e.g. "Ed Wood" in "Were Scott Derrickson and Ed Wood of the same
nationality?".
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from favakit.errors import UsageError
from favakit.retrieval.index import BM25Index, VectorIndex, load_vector_index
from favakit.retrieval.kb import KnowledgeSource, base_name

__all__ = ["Hit", "OpenIndex", "Searcher", "TitleMatcher", "reciprocal_rank_fusion"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Hit:
    title: str
    text: str
    score: float
    doc: int = -1
    index: int = -1

    @property
    def key(self) -> tuple[int, int] | tuple[str, str]:
        return (self.doc, self.index) if self.doc >= 0 else (self.title, self.text)

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "text": self.text, "score": round(float(self.score), 6)}


class OpenIndex:
    """One loaded index folder."""

    def __init__(
        self, folder: str | Path, kb: KnowledgeSource | None = None, device: str | None = None
    ) -> None:
        self.folder = Path(folder)
        meta_path = self.folder / "meta.json"
        if not meta_path.exists():
            raise UsageError(
                f"{str(self.folder)!r} is not a finished favakit index (no meta.json); "
                "build it with 'favakit index build'"
            )
        self.meta: dict[str, Any] = json.loads(meta_path.read_text())
        self.kind: str = self.meta["kind"]
        if kb is None:
            kb = KnowledgeSource(self.meta["kb"])
        if len(kb) != self.meta["kb_documents"]:
            raise UsageError(
                f"index {self.folder} was built on a KB of {self.meta['kb_documents']} documents, "
                f"but {kb.path} has {len(kb)}: rebuild the index"
            )
        self.kb = kb
        self.doc = np.load(self.folder / "doc.npy")
        self.pos = np.load(self.folder / "pos.npy")
        self.device = device
        self._encoder: Any = None
        self.vectors: VectorIndex | None = None
        self.bm25: BM25Index | None = None
        if self.kind == "bm25":
            self.bm25 = BM25Index.load(self.folder)
        else:
            self.vectors = load_vector_index(self.folder, self.kind)

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from favakit.retrieval.encoder import DenseEncoder

            self._encoder = DenseEncoder(self.meta["encoder"], device=self.device)
        return self._encoder

    def search_ids(self, queries: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        if self.bm25 is not None:
            return self.bm25.search_text(queries, k)
        assert self.vectors is not None
        return self.vectors.search(self.encoder.encode(list(queries)), k)

    def hit(self, entry: int, score: float) -> Hit:
        p = self.kb.passage(int(self.doc[entry]), int(self.pos[entry]))
        return Hit(p.title, p.text, float(score), p.doc, p.index)

    def search(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        scores, ids = self.search_ids(queries, k)
        return [
            [self.hit(int(i), float(s)) for s, i in zip(srow, irow, strict=True) if i >= 0]
            for srow, irow in zip(scores, ids, strict=True)
        ]


_WORD_RE = re.compile(r"[\w'’.-]+|[^\w\s]")
_STOP = {
    "the", "a", "an", "of", "in", "on", "and", "or", "is", "was", "were", "are", "be", "to",
    "for", "by", "with", "as", "at", "from", "which", "what", "who", "whom", "when", "where",
    "how", "did", "does", "do", "that", "this", "it", "he", "she", "they", "his", "her",
}  # fmt: skip


class TitleMatcher:
    """Find knowledge-source articles whose name occurs in a text (longest matches first)."""

    def __init__(self, kb: KnowledgeSource, max_words: int = 8) -> None:
        self.kb = kb
        self.max_words = max_words

    def titles(self, text: str, limit: int = 5) -> list[str]:
        words = [w.strip(".'’") for w in _WORD_RE.findall(text)]
        spans: list[tuple[int, int, str]] = []
        for n in range(min(self.max_words, len(words)), 0, -1):
            for i in range(len(words) - n + 1):
                gram = words[i : i + n]
                if not gram[0][:1].isupper() and not gram[0][:1].isdigit():
                    continue  # names start with a capital or a digit
                if n == 1 and (gram[0].lower() in _STOP or len(gram[0]) < 3):
                    continue
                if any(a <= i < b or a < i + n <= b for a, b, _ in spans):
                    continue  # inside a longer match already found
                name = " ".join(gram)
                found = self.kb.titles_with_base(name)
                if found:
                    # the bare title first ("Ed Wood"), then qualified ones ("Ed Wood (film)")
                    found.sort(key=lambda t: (base_name(t) != t.casefold(), len(t), t))
                    spans.append((i, i + n, found[0]))
        spans.sort(key=lambda s: s[0])
        out: list[str] = []
        for _, _, title in spans:
            if title not in out:
                out.append(title)
        return out[:limit]

    def hits(self, text: str, limit: int = 5) -> list[Hit]:
        """The lead passage of each matched article, in order of appearance in the text."""
        result = []
        for rank, title in enumerate(self.titles(text, limit)):
            p = self.kb.lead(title)
            result.append(Hit(p.title, p.text, 1.0 / (1 + rank), p.doc, p.index))
        return result


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Hit]],
    k: int,
    weights: Sequence[float] | None = None,
    rrf_k: float = 60.0,
) -> list[Hit]:
    """Fuse ranked lists: each hit scores ``sum(w / (rrf_k + rank))`` over the lists it is in."""
    weights = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    fused: dict[Any, float] = {}
    first: dict[Any, Hit] = {}
    for ranking, w in zip(rankings, weights, strict=True):
        for rank, hit in enumerate(ranking, start=1):
            fused[hit.key] = fused.get(hit.key, 0.0) + w / (rrf_k + rank)
            first.setdefault(hit.key, hit)
    order = sorted(fused, key=lambda key: -fused[key])[:k]
    return [
        Hit(first[key].title, first[key].text, fused[key], first[key].doc, first[key].index)
        for key in order
    ]


class Searcher:
    """Search one index folder, or fuse several (and optionally title matches) by RRF."""

    def __init__(
        self,
        folders: Sequence[str | Path],
        kb: str | Path | KnowledgeSource | None = None,
        weights: Sequence[float] | None = None,
        title_match: bool = False,
        title_weight: float = 1.0,
        depth: int = 50,
        device: str | None = None,
    ) -> None:
        if not folders:
            raise UsageError("give at least one index folder")
        if isinstance(kb, (str, Path)):
            kb = KnowledgeSource(kb)
        self.indexes: list[OpenIndex] = []
        for folder in folders:
            idx = OpenIndex(folder, kb=kb, device=device)
            kb = kb or idx.kb  # share one KB connection between indexes
            self.indexes.append(idx)
        self.kb: KnowledgeSource = self.indexes[0].kb
        self.weights = list(weights) if weights else [1.0] * len(self.indexes)
        if len(self.weights) != len(self.indexes):
            raise UsageError(f"{len(self.weights)} weights for {len(self.indexes)} indexes")
        self.title_matcher = TitleMatcher(self.kb) if title_match else None
        self.title_weight = title_weight
        self.depth = depth

    def search_many(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        if k < 1:
            raise UsageError("k must be at least 1")
        if len(self.indexes) == 1 and self.title_matcher is None:
            return self.indexes[0].search(queries, k)
        depth = max(k, self.depth)
        per_index = [idx.search(queries, depth) for idx in self.indexes]
        results = []
        for qi, query in enumerate(queries):
            rankings = [ranked[qi] for ranked in per_index]
            weights = list(self.weights)
            if self.title_matcher is not None:
                rankings.append(self.title_matcher.hits(query))
                weights.append(self.title_weight)
            results.append(reciprocal_rank_fusion(rankings, k, weights))
        return results

    def search(self, query: str, k: int = 5) -> list[Hit]:
        return self.search_many([query], k)[0]
