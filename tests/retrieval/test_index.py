from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from favakit.errors import UsageError
from favakit.retrieval.index import (
    BM25Index,
    NumpyIndex,
    build_index,
    load_vector_index,
    make_vector_index,
)
from favakit.retrieval.kb import build_kb


def test_faiss_flat_equals_numpy_brute_force() -> None:
    rng = np.random.default_rng(0)
    base = rng.standard_normal((2000, 48)).astype(np.float32)
    queries = rng.standard_normal((200, 48)).astype(np.float32)
    f_scores, f_ids = make_vector_index(base, "flat", backend="faiss").search(queries, 10)
    n_scores, n_ids = make_vector_index(base, "flat", backend="numpy").search(queries, 10)
    brute = queries @ base.T
    expect_ids = np.argsort(-brute, axis=1)[:, :10]
    assert np.array_equal(f_ids, n_ids) and np.array_equal(n_ids, expect_ids)
    np.testing.assert_allclose(f_scores, n_scores, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(n_scores, np.take_along_axis(brute, expect_ids, axis=1), rtol=1e-5)


def test_k_larger_than_index_pads_with_minus_one() -> None:
    base = np.array([[1.0, 0.0], [0.5, 0.1], [0.2, 0.3]], dtype=np.float32)
    for backend in ("faiss", "numpy"):
        _, ids = make_vector_index(base, "flat", backend=backend).search(base[0], 5)
        assert ids[0, :3].tolist() == [0, 1, 2] and ids[0, 3:].tolist() == [-1, -1]


@pytest.mark.parametrize("kind", ["ivf", "hnsw"])
def test_approximate_indexes_find_exact_copies(kind: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    base = rng.standard_normal((3000, 32)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    index = make_vector_index(base, kind, nlist=16, nprobe=16)
    _, ids = index.search(base[:50], 1)
    assert (ids[:, 0] == np.arange(50)).mean() >= 0.95
    index.save(tmp_path)
    _, again = load_vector_index(tmp_path, kind).search(base[:50], 1)
    assert np.array_equal(ids, again)


def test_numpy_index_save_load(tmp_path: Path) -> None:
    base = np.random.default_rng(2).standard_normal((10, 4)).astype(np.float32)
    NumpyIndex(base).save(tmp_path)
    assert np.array_equal(
        load_vector_index(tmp_path, "flat").search(base, 3)[1], NumpyIndex(base).search(base, 3)[1]
    )
    with pytest.raises(UsageError, match="needs FAISS"):
        make_vector_index(base, "hnsw", backend="numpy")


def test_bm25_ranks_the_matching_passage_first(tmp_path: Path) -> None:
    texts = ["the volcano erupted lava", "saturn has rings of ice", "a quiet lake"]
    index = BM25Index.build(texts)
    scores, ids = index.search_text(["rings around saturn", "nothing matches zzz"], 2)
    assert ids[0, 0] == 1 and scores[0, 0] > 0
    assert ids[1].tolist() == [-1, -1]
    index.save(tmp_path)
    assert BM25Index.load(tmp_path).search_text(["lava"], 1)[1][0, 0] == 0


def _index_vectors(folder: Path) -> np.ndarray:
    import faiss

    index = faiss.read_index(str(folder / "index.faiss"))
    return index.reconstruct_n(0, index.ntotal)


def test_build_dense_index_and_resume_after_interrupt(
    corpus_jsonl: Path, tiny_encoder: Path, tmp_path: Path
) -> None:
    kb = tmp_path / "kb.db"
    build_kb(corpus_jsonl, kb, max_tokens=12)
    clean = build_index(kb, tmp_path / "clean", encoder=str(tiny_encoder), shard_size=2)
    assert clean is not None and clean["count"] >= 8 and clean["dim"] == 32

    seen: list[int] = []

    def interrupt_at_three(k: int) -> None:
        seen.append(k)
        if k == 2:
            raise KeyboardInterrupt  # Ctrl-C after the third shard was written

    out = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        build_index(kb, out, encoder=str(tiny_encoder), shard_size=2, on_shard=interrupt_at_three)
    shards = sorted(p.name for p in (out / "shards").glob("emb-*.npy"))
    assert shards == ["emb-000000.npy", "emb-000001.npy", "emb-000002.npy"]
    assert not (out / "meta.json").exists()
    before = {p.name: p.stat().st_mtime_ns for p in (out / "shards").glob("emb-*.npy")}
    seen.clear()
    meta = build_index(kb, out, encoder=str(tiny_encoder), shard_size=2, on_shard=seen.append)
    assert meta is not None and seen[0] == 3  # finished shards were not redone
    assert all((out / "shards" / name).stat().st_mtime_ns == t for name, t in before.items())
    np.testing.assert_array_equal(_index_vectors(out), _index_vectors(tmp_path / "clean"))
    with pytest.raises(UsageError, match="already holds a finished index"):
        build_index(kb, out, encoder=str(tiny_encoder), shard_size=2)
    with pytest.raises(UsageError, match="is a file: it names a folder for the outputs"):
        build_index(kb, kb, encoder=str(tiny_encoder))  # was FileExistsError
    # a folder of other files (a synthesis run) had the index's files written in among them
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "train.jsonl").write_text("{}\n")
    with pytest.raises(UsageError, match=r"holds other files \(train.jsonl\): an index is a "):
        build_index(kb, tmp_path / "run", kind="bm25")
    assert [p.name for p in (tmp_path / "run").iterdir()] == ["train.jsonl"]


def test_shards_split_across_runs_then_merge(
    corpus_jsonl: Path, tiny_encoder: Path, tmp_path: Path
) -> None:
    kb = tmp_path / "kb.db"
    build_kb(corpus_jsonl, kb, max_tokens=12)
    single = build_index(kb, tmp_path / "single", encoder=str(tiny_encoder), shard_size=3)
    out = tmp_path / "split"
    assert build_index(kb, out, encoder=str(tiny_encoder), shard_size=3, shard=(0, 2)) is None
    names = sorted(p.name for p in (out / "shards").glob("emb-*.npy"))
    assert names and all(int(n[4:10]) % 2 == 0 for n in names)
    merged = build_index(kb, out, encoder=str(tiny_encoder), shard_size=3, shard=(1, 2))
    assert merged is not None and single is not None and merged["count"] == single["count"]
    np.testing.assert_array_equal(_index_vectors(out), _index_vectors(tmp_path / "single"))


def test_resume_with_other_settings_is_refused(
    corpus_jsonl: Path, tiny_encoder: Path, tmp_path: Path
) -> None:
    kb = tmp_path / "kb.db"
    build_kb(corpus_jsonl, kb, max_tokens=12)
    out = tmp_path / "idx"
    assert build_index(kb, out, encoder=str(tiny_encoder), shard_size=2, shard=(0, 3)) is None
    with pytest.raises(UsageError, match=r"other settings \(shard_size: 2 there, 5 now\); remove"):
        build_index(kb, out, encoder=str(tiny_encoder), shard_size=5)
    cfg = json.loads((out / "shards" / "config.json").read_text())
    assert cfg["shard_size"] == 2


def test_a_build_that_embedded_nothing_binds_no_settings(
    corpus_jsonl: Path, tiny_encoder: Path, tmp_path: Path
) -> None:
    """An encoder that fails to load left shards/config.json naming it, and every rerun with a
    working encoder was refused until the user found and deleted that file."""
    kb = tmp_path / "kb.db"
    build_kb(corpus_jsonl, kb, max_tokens=12)
    out = tmp_path / "idx"
    broken = tmp_path / "not-an-encoder"
    broken.mkdir()
    (broken / "config.json").write_text("{}")
    with pytest.raises(Exception):  # noqa: B017 - whatever transformers raises for a bad folder
        build_index(kb, out, encoder=str(broken), shard_size=2)
    assert not list((out / "shards").glob("emb-*.npy"))
    meta = build_index(kb, out, encoder=str(tiny_encoder), shard_size=2)
    assert meta is not None and meta["count"] > 0
