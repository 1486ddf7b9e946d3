"""Files favakit writes get the mode `open` would give them (0644 under umask 022), so another
user or a serving account can read adapters, indexes and data sets."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from favakit.records import atomic_open, share_like_open, write_jsonl_atomic


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_atomic_writes_follow_the_umask(tmp_path: Path, umask_022: None) -> None:
    write_jsonl_atomic(tmp_path / "train.jsonl", [{"a": 1}])
    with atomic_open(tmp_path / "doc.npy", "wb") as fh:
        fh.write(b"x")
    assert _mode(tmp_path / "train.jsonl") == 0o644
    assert _mode(tmp_path / "doc.npy") == 0o644
    os.umask(0o077)
    write_jsonl_atomic(tmp_path / "private.jsonl", [{"a": 1}])
    assert _mode(tmp_path / "private.jsonl") == 0o600


def test_files_written_by_libraries_are_opened_up(tmp_path: Path, umask_022: None) -> None:
    folder = tmp_path / "adapter"
    (folder / "sub").mkdir(parents=True)
    for name in ("adapter_model.safetensors", "sub/x.json"):
        (folder / name).write_bytes(b"{}")
        (folder / name).chmod(0o600)  # as safetensors leaves them
    share_like_open(folder)
    assert _mode(folder / "adapter_model.safetensors") == 0o644
    assert _mode(folder / "sub" / "x.json") == 0o644


def test_trained_adapter_and_index_files_are_readable_by_others(
    tiny_llama: Path, rows_file: Path, corpus_jsonl: Path, tmp_path: Path, umask_022: None
) -> None:
    from favakit.retrieval.index import build_index
    from favakit.retrieval.kb import build_kb
    from favakit.training.config import load_train_config
    from favakit.training.recipe import train

    cfg = load_train_config(
        "tiny_cpu",
        [
            f"model={tiny_llama}",
            f"data.train_file={rows_file}",
            f"output_dir={tmp_path / 'run'}",
            "max_steps=2",
        ],
    )
    adapter = Path(train(cfg)["output"])
    assert _mode(adapter / "adapter_model.safetensors") == 0o644
    build_kb(corpus_jsonl, tmp_path / "kb.db")
    build_index(tmp_path / "kb.db", tmp_path / "bm25", kind="bm25")
    files = [p for p in (tmp_path / "bm25").rglob("*") if p.is_file()]
    assert files and all(_mode(p) == 0o644 for p in files), {p.name: oct(_mode(p)) for p in files}
