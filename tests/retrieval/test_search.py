from __future__ import annotations

from pathlib import Path

import pytest

from favakit.errors import UsageError
from favakit.retrieval.evidence import CrossEncoderReranker, TopicRetriever, editor_evidence
from favakit.retrieval.index import build_index
from favakit.retrieval.kb import KnowledgeSource, UnknownTitleError, build_kb
from favakit.retrieval.search import Hit, Searcher, TitleMatcher, reciprocal_rank_fusion


@pytest.fixture(scope="module")
def indexes(
    corpus_jsonl: Path, tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("indexes")
    kb = root / "kb.db"
    build_kb(corpus_jsonl, kb, max_tokens=24)
    build_index(kb, root / "dense", encoder=str(tiny_encoder))
    build_index(kb, root / "bm25", kind="bm25")
    return {"kb": kb, "dense": root / "dense", "bm25": root / "bm25"}


def test_bm25_index_folder_search(indexes: dict[str, Path]) -> None:
    hits = Searcher([indexes["bm25"]]).search("rings of ice around the sixth planet", k=3)
    assert hits[0].title == "Saturn" and "ring system" in hits[0].text
    assert hits[0].to_dict().keys() == {"title", "text", "score"}


def test_dense_index_folder_search_returns_kb_passages(indexes: dict[str, Path]) -> None:
    hits = Searcher([indexes["dense"]]).search("lava and ash", k=4)
    assert len(hits) == 4
    kb = KnowledgeSource(indexes["kb"])
    for h in hits:
        assert h.text in kb.get(h.title)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_hybrid_fuses_both_rankings(indexes: dict[str, Path]) -> None:
    dense = Searcher([indexes["dense"]]).search("Saturn rings", k=20)
    bm25 = Searcher([indexes["bm25"]]).search("Saturn rings", k=20)
    fused = Searcher([indexes["dense"], indexes["bm25"]]).search("Saturn rings", k=3)
    expected = reciprocal_rank_fusion([dense, bm25], k=3)
    assert [(h.title, h.text) for h in fused] == [(h.title, h.text) for h in expected]
    with pytest.raises(UsageError, match="weights"):
        Searcher([indexes["dense"]], weights=[1.0, 2.0])


def test_rrf_arithmetic() -> None:
    a, b, c = (Hit(t, t, 0.0) for t in "abc")
    fused = reciprocal_rank_fusion([[a, b], [b, c]], k=3, rrf_k=0.0)
    # b: 1/2 + 1/1 = 1.5; a: 1/1; c: 1/2
    assert [(h.title, h.score) for h in fused] == [("b", 1.5), ("a", 1.0), ("c", 0.5)]


def test_title_matcher_prefers_the_bare_article_and_longest_name(indexes: dict[str, Path]) -> None:
    kb = KnowledgeSource(indexes["kb"])
    matcher = TitleMatcher(kb)
    assert matcher.titles("Did Marie Curie coach with Dick Hanley at the Olympics?") == [
        "Marie Curie",
        "Dick Hanley",
    ]
    assert matcher.titles("no names here at all") == []
    hits = Searcher([indexes["bm25"]], title_match=True).search(
        "When did Pierre Curie study magnetism?", k=2
    )
    assert hits[0].title == "Pierre Curie"


def test_editor_evidence_orders_most_relevant_last_and_adds_the_entity_passage(
    indexes: dict[str, Path],
) -> None:
    searcher = Searcher([indexes["bm25"]])
    text = "Saturn is the sixth planet and has rings of ice."
    ranked = searcher.search(text, k=2)
    ev = editor_evidence(text, searcher, k=2, topic="Volcano")
    assert ev[:2] == ranked[::-1]  # ranked passages, best one nearest the text...
    assert ev[-1].title == "Volcano"  # ...then the topic's own article, nearest of all
    ev2 = editor_evidence("Pierre Curie studied crystals.", searcher, k=1)
    assert [h.title for h in ev2][-1] == "Pierre Curie"
    with pytest.raises(UsageError):
        editor_evidence("  ", searcher)


def test_reranker_orders_by_its_own_scores(indexes: dict[str, Path], tiny_reranker: Path) -> None:
    searcher = Searcher([indexes["bm25"]])
    reranker = CrossEncoderReranker(str(tiny_reranker), device="cpu")
    text = "Curie won the Nobel Prize in Physics in 1903."
    ev = editor_evidence(text, searcher, k=4, entity_passage=False, reranker=reranker)
    scores = reranker.scores(text, [h.text for h in ev])
    assert scores == sorted(scores)  # least relevant first, most relevant last
    assert [h.score for h in ev] == pytest.approx(scores)


def test_topic_retriever_ranks_only_the_topics_passages_and_caches(
    indexes: dict[str, Path],
) -> None:
    retriever = TopicRetriever(str(indexes["kb"]), method="bm25", k=5)
    got = retriever.retrieve("Marie Curie", "She died in 1934.")
    assert {p["title"] for p in got} == {"Marie Curie"}
    assert "1934" in got[0]["text"]
    assert len(got) == len(KnowledgeSource(indexes["kb"]).get("Marie Curie"))
    again = retriever.retrieve("Marie Curie", "She died in 1934.")
    assert again == got and retriever.cache_hits == 1
    with pytest.raises(UnknownTitleError, match="Marie Curie"):
        retriever.retrieve("Marie Curry", "x")


def test_topic_retriever_dense(indexes: dict[str, Path], tiny_encoder: Path) -> None:
    from favakit.retrieval.encoder import DenseEncoder

    enc = DenseEncoder(str(tiny_encoder), device="cpu")
    retriever = TopicRetriever(str(indexes["kb"]), method="dense", encoder=enc, k=1)
    (only,) = retriever.retrieve("Marie Curie", "polonium")
    assert only["title"] == "Marie Curie"


def test_encoder_order_and_normalization(tiny_encoder: Path) -> None:
    import numpy as np

    from favakit.retrieval.encoder import DenseEncoder

    enc = DenseEncoder(str(tiny_encoder), device="cpu", batch_size=2, normalize=True)
    texts = ["saturn", "a volcano is a rupture in the crust", "ice", "marie curie won"]
    vecs = enc.encode(texts)
    one_by_one = np.stack([enc.encode([t])[0] for t in texts])
    np.testing.assert_allclose(vecs, one_by_one, atol=1e-5)  # padding and sorting change nothing
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(enc.encode(texts, sort_by_length=False), vecs, atol=1e-5)


def test_unfinished_index_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a finished favakit index"):
        Searcher([tmp_path])


def test_editor_evidence_adds_the_article_of_each_name_that_opens_a_sentence(
    indexes: dict[str, Path],
) -> None:
    """A paragraph on several subjects is checked against each one's article, beyond the best
    ``k`` passages by words, the article named first nearest the text."""
    searcher = Searcher([indexes["bm25"]])
    text = "Saturn has rings of ice. Pierre Curie studied crystals. Volcano lava is hot."
    ev = editor_evidence(text, searcher, k=1)
    titles = [h.title for h in ev]
    assert {"Saturn", "Pierre Curie", "Volcano"} <= set(titles)
    assert titles[-1] == "Saturn"  # named first: nearest of all
    assert len(titles) == len({h.key for h in ev})  # each passage once
    # without the names' articles, the best passage by words alone
    assert len(editor_evidence(text, searcher, k=1, entity_passage=False)) == 1


def test_the_search_command_refuses_an_empty_query(
    indexes: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty QUERY (an unset shell variable) printed nothing and exited 0."""
    from favakit.cli import main

    for query in ("", "  "):
        assert main(["search", "--index", str(indexes["bm25"]), query]) == 2
        said = capsys.readouterr()
        assert (
            said.err.strip()
            == ("favakit search: error: the QUERY is empty: give the words to search for")
            and not said.out
        )
    assert main(["search", "--index", str(indexes["bm25"]), "Saturn rings"]) == 0
    assert '"title": "Saturn"' in capsys.readouterr().out
