"""Evidence for the editor and for FActScore.

Editor evidence (FAVA's recipe, with its two findings built in): the top-k passages for the text
(and the prompt that produced it, when known), plus the lead passage of the entity's own article
(+3.1 FActScore in FAVA's ablation), ordered by relevance (+1.7) with the most relevant passage
last, nearest the text in the prompt. An optional cross-encoder reranks the candidates.

FActScore evidence: for each atomic fact, the k passages of the topic's own article that rank
highest against ``topic + " " + fact`` (BM25 or dense), cached per topic and per fact.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from favakit.decompose import leading_name
from favakit.deps import require
from favakit.devices import torch_device
from favakit.errors import UsageError
from favakit.retrieval.kb import KnowledgeSource, UnknownTitleError
from favakit.retrieval.search import Hit, Searcher, TitleMatcher
from favakit.text import split_sentences, tokenizer_lock

__all__ = ["CrossEncoderReranker", "TopicRetriever", "editor_evidence"]

log = logging.getLogger(__name__)


class CrossEncoderReranker:
    """Scores (query, passage) pairs with a sequence-classification model from a folder."""

    def __init__(
        self, model: str, device: str | None = None, batch_size: int = 32, max_length: int = 512
    ) -> None:
        torch = require("torch", "train", "reranking")
        transformers = require("transformers", "train", "reranking")
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(model)
            self.model = transformers.AutoModelForSequenceClassification.from_pretrained(model)
        except OSError as exc:
            raise UsageError(f"cannot load reranker {model!r}: {exc}") from None
        self.device = torch_device(device)
        self.model.to(self.device).eval()
        self.batch_size, self.max_length, self._torch = batch_size, max_length, torch

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        out: list[float] = []
        with self._torch.inference_mode():
            for i in range(0, len(passages), self.batch_size):
                batch = list(passages[i : i + self.batch_size])
                with tokenizer_lock(self.tokenizer):  # shared by a server's threads
                    enc = self.tokenizer(
                        [query] * len(batch),
                        batch,
                        padding=True,
                        truncation=True,
                        max_length=self.max_length,
                        return_tensors="pt",
                    )
                enc = enc.to(self.device)
                logits = self.model(**enc).logits.float()
                # one logit: relevance; two or more: the last class is "relevant"
                col = logits[:, -1] if logits.shape[-1] > 1 else logits[:, 0]
                out.extend(col.cpu().tolist())
        return out


def editor_evidence(
    text: str,
    searcher: Searcher,
    *,
    prompt: str | None = None,
    topic: str | None = None,
    k: int = 5,
    entity_passage: bool = True,
    reranker: CrossEncoderReranker | None = None,
) -> list[Hit]:
    """Evidence passages for editing ``text``, least relevant first, most relevant last."""
    if not text.strip():
        raise UsageError("cannot retrieve evidence for empty text")
    query = f"{prompt.strip()} {text}" if prompt else text
    hits = searcher.search(query, k)
    extra: list[Hit] = []
    if entity_passage:
        if topic:
            try:
                p = searcher.kb.lead(topic)
                extra = [Hit(p.title, p.text, 0.0, p.doc, p.index)]
            except UnknownTitleError:
                log.info("topic %r is not in the knowledge source; no entity passage", topic)
        else:
            matcher = searcher.title_matcher or TitleMatcher(searcher.kb)
            extra = matcher.hits(prompt or text, limit=1)
            extra += _subject_hits(text, matcher, _MAX_SUBJECTS)
    candidates, seen = list(hits), {h.key for h in hits}
    for h in extra:  # each passage once
        if h.key not in seen:
            candidates.append(h)
            seen.add(h.key)
    if reranker is not None and candidates:
        scores = reranker.scores(query, [h.text for h in candidates])
        ranked = sorted(zip(candidates, scores, strict=True), key=lambda x: -x[1])
        candidates = [Hit(h.title, h.text, s, h.doc, h.index) for h, s in ranked]
    # Most relevant last. Without a reranker that is the search order reversed, with the
    # entity passage nearest of all (FAVA found the entity's own article helps most).
    if reranker is None:  # the article named first nearest of all
        return list(hits)[::-1] + candidates[len(hits) :][::-1]
    return candidates[::-1]


#: the most articles of names that open a text's sentences added to its evidence
_MAX_SUBJECTS = 4


def _subject_hits(text: str, matcher: TitleMatcher, limit: int) -> list[Hit]:
    """The lead passages of the articles whose names open the sentences of ``text`` (at most
    ``limit``, in order): a paragraph on three people ("Alan Turing was born ... Ada Lovelace
    was born ... Rosalind Franklin was born ...") is checked against each one's article, not
    only the best ``k`` by words, which may leave one out."""
    names = dict.fromkeys(n for n in (leading_name(s) for s in split_sentences(text)) if n)
    titles = list(dict.fromkeys(t for name in names for t in matcher.titles(name, limit=1)))
    leads = [matcher.kb.lead(t) for t in titles[:limit]]
    return [Hit(p.title, p.text, 0.0, p.doc, p.index) for p in leads]


class TopicRetriever:
    """Top-k passages of a topic's own article for a fact (FActScore's retrieval), cached."""

    def __init__(
        self,
        kb: KnowledgeSource | str,
        method: str = "bm25",
        encoder: Any = None,
        k: int = 5,
        max_topics: int = 512,
    ) -> None:
        if method not in ("bm25", "dense"):
            raise UsageError(f"unknown retrieval method {method!r}; choose bm25 or dense")
        self.kb = KnowledgeSource(kb) if isinstance(kb, str) else kb
        self.method = method
        self.k = k
        self._encoder = encoder
        self._topics: OrderedDict[str, tuple[list[str], Any]] = OrderedDict()
        self._cache: dict[tuple[str, str, int], list[dict[str, str]]] = {}
        self.max_topics = max_topics
        self.calls = 0
        self.cache_hits = 0

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from favakit.retrieval.encoder import DenseEncoder

            self._encoder = DenseEncoder("minilm")
        return self._encoder

    def _topic(self, topic: str) -> tuple[str, list[str], Any]:
        title = self.kb.resolve(topic)
        if title is None:
            raise UnknownTitleError(topic, self.kb.closest_titles(topic))
        if title not in self._topics:
            passages = self.kb.get(title)
            if self.method == "bm25":
                from favakit.retrieval.index import BM25Index

                model: Any = BM25Index.build(passages)
            else:
                model = self.encoder.encode(passages)
            self._topics[title] = (passages, model)
            if len(self._topics) > self.max_topics:
                self._topics.popitem(last=False)
        self._topics.move_to_end(title)
        passages, model = self._topics[title]
        return title, passages, model

    def retrieve(self, topic: str, fact: str, k: int | None = None) -> list[dict[str, str]]:
        """``[{"title", "text"}]``, best first, for ``topic + " " + fact``."""
        k = k or self.k
        self.calls += 1
        key = (topic, fact, k)
        if key in self._cache:
            self.cache_hits += 1
            return self._cache[key]
        title, passages, model = self._topic(topic)
        query = f"{topic} {fact}".strip()
        kk = min(k, len(passages))
        if self.method == "bm25":
            _, ids = model.search_text([query], kk)
            order = [int(i) for i in ids[0] if i >= 0]
            # passages sharing no word with the query still count, in document order
            order += [i for i in range(len(passages)) if i not in order][: kk - len(order)]
        else:
            sims = model @ self.encoder.encode([query])[0]
            order = [int(i) for i in np.argsort(-sims, kind="stable")[:kk]]
        result = [{"title": title, "text": passages[i]} for i in order]
        self._cache[key] = result
        return result
