"""What a gate's checker keeps of its verdict passes for its token head (kept_marks.py): one key
for one model input however it was padded, and a bounded store that drops the oldest first."""

from __future__ import annotations

from pathlib import Path

import pytest

from favakit.inference.kept_marks import KeptMarks, input_key, read_positions

CHECKER = Path(__file__).resolve().parents[2] / "inference" / "default_checker"


def test_one_input_gives_one_key_however_its_batch_pads_it() -> None:
    transformers = pytest.importorskip("transformers")
    tok = transformers.AutoTokenizer.from_pretrained(str(CHECKER))
    pair = ("Curie won the prize in 1903.", "Marie Curie won the Nobel Prize in Physics in 1903.")
    longer = ("A much longer sentence than the first one, with many more words in it.",
              "Some evidence that is long as well, so that the batch pads the first pair.")  # fmt: skip
    alone = tok([pair[0]], [pair[1]], padding=True)
    padded = tok([pair[0], longer[0]], [pair[1], longer[1]], padding=True)
    assert len(padded["input_ids"][0]) > len(alone["input_ids"][0])  # padding was added

    def key(enc: dict[str, list[list[int]]], row: int) -> bytes:
        return input_key(enc, row, read_positions(enc, row))

    assert key(alone, 0) == key(padded, 0)
    assert read_positions(padded, 0) == list(range(len(alone["input_ids"][0])))
    assert key(padded, 1) != key(padded, 0)
    # the same words split another way between text and evidence are another input
    moved = tok(["Curie won the prize in 1903. Marie"],
                ["Curie won the Nobel Prize in Physics in 1903."], padding=True)  # fmt: skip
    assert key(moved, 0) != key(alone, 0)


def test_the_store_keeps_the_newest_and_counts_what_it_answers() -> None:
    kept = KeptMarks(size=2)
    kept.keep(b"a", [0.25, 0.5])
    kept.keep(b"b", [0.75])
    assert list(kept.get(b"a") or []) == [0.25, 0.5]  # read: now the newest
    kept.keep(b"c", [1.0])  # drops b, the oldest
    assert kept.get(b"b") is None and len(kept) == 2
    assert list(kept.get(b"c") or []) == [1.0]
    assert (kept.hits, kept.kept) == (2, 3)
