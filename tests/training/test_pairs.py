"""Labelled pairs for the checker: measuring-only sets are refused before a line is read,
FEVER's tokenisation is undone, duplicates go, the development split keeps a claim on one side,
hard negatives and source weights."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from favakit.errors import UsageError
from favakit.training.pairs import (
    Pair,
    dedupe,
    dev_split,
    hard_negatives,
    in_dev_split,
    prepare,
    read_pairs,
    refuse_measuring_set,
    weigh,
)

SHARED_REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "real"


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


ROWS = [
    {"id": "a", "source": "fever", "text": "Soul Food was released by Fox 2000 Pictures .",
     "evidence": ["Soul Food -LRB- 1997 -RRB- was released by Fox 2000 Pictures ."],
     "label": "supported"},
    {"id": "b", "source": "fever_symmetric", "text": "Soul Food was released by Fox 2000 Pictures.",
     "evidence": ["Soul Food (1997) was released by Fox 2000 Pictures."], "label": "supported"},
    {"id": "c", "source": "wice", "text": "Ada was born in 1815 in London.",
     "evidence": ["Ada Lovelace was born in London in 1815."], "label": "not_supported",
     "spans": [{"start": 24, "end": 30}]},
]  # fmt: skip


def test_measuring_only_folders_are_refused_before_reading(tmp_path: Path) -> None:
    for folder in ("eval", "eval_spans"):
        path = _write(tmp_path / "real" / folder / "x.jsonl", ROWS)
        with pytest.raises(UsageError, match="measuring-only"):
            refuse_measuring_set(path)
        with pytest.raises(UsageError, match="measuring-only"):
            prepare([str(_write(tmp_path / "train.jsonl", ROWS)), str(path)])
    refuse_measuring_set(tmp_path / "real" / "train" / "x.jsonl")  # training folders pass


@pytest.mark.skipif(not SHARED_REAL.exists(), reason="../shared/data/real is not beside the repo")
def test_no_file_of_the_real_eval_sets_can_be_trained_on() -> None:
    files = sorted((SHARED_REAL / "eval").glob("*.jsonl")) + sorted(
        (SHARED_REAL / "eval_spans").glob("*.jsonl")
    )
    assert files
    for f in files:
        with pytest.raises(UsageError, match="measuring-only"):
            read_pairs(f)


def test_normalised_deduplicated_and_spans_kept(tmp_path: Path) -> None:
    data = prepare([str(_write(tmp_path / "t.jsonl", ROWS))], dev_fraction=0.0, hard_share=0.0)
    texts = sorted(p.text for p in data.train)
    assert data.stats["duplicates"] == 1  # FEVER-Symmetric's copy of FEVER's claim
    assert "Soul Food was released by Fox 2000 Pictures." in texts
    assert all("-LRB-" not in e and " ." not in e for p in data.train for e in p.evidence)
    (ada,) = [p for p in data.train if p.source == "wice"]
    assert ada.has_spans and ada.text[ada.spans[0][0] : ada.spans[0][1]] == "London"


def test_dev_split_keeps_each_claim_on_one_side() -> None:
    pairs = [
        Pair(f"{s}-{i}", s, f"claim number {i % 40}", [f"evidence {i}"], bool(i % 2))
        for s in ("fever", "fever_symmetric")
        for i in range(200)
    ]
    train, dev = dev_split(pairs, 0.2, seed=3)
    assert 0 < len(dev) < len(pairs) // 2
    assert not {p.text for p in train} & {p.text for p in dev}
    assert dev_split(pairs, 0.2, seed=3) == (train, dev)  # deterministic
    # scripts ask which rows a trained checker never saw: the same answer as the split's
    assert {p.text for p in pairs if in_dev_split(p.text, 0.2, seed=3)} == {p.text for p in dev}
    other = {p.text for p in pairs if in_dev_split(p.text, 0.2, seed=4)}
    assert other and other != {p.text for p in dev}  # the seed moves the split


def test_a_validation_file_is_the_dev_split_and_its_claims_leave_training(tmp_path: Path) -> None:
    train_file = _write(tmp_path / "t.jsonl", ROWS)
    own = {"id": "d", "source": "mine", "text": "Soul Food was released by Fox 2000 Pictures .",
           "evidence": ["Soul Food was released in 1997."], "label": "not_supported"}  # fmt: skip
    dev_file = _write(tmp_path / "mine.jsonl", [own])
    data = prepare([str(train_file)], dev_fraction=0.5, hard_share=0.0, dev_files=[str(dev_file)])
    assert [(p.id, p.source) for p in data.dev] == [("d", "mine")]  # the file's rows, no others
    # FEVER's row has the file's claim (once normalised): it leaves the training side
    assert [p.id for p in data.train] == ["c"] and data.stats["dev_claims_dropped_from_train"] == 1
    measuring = _write(tmp_path / "real" / "eval" / "x.jsonl", [own])
    with pytest.raises(UsageError, match="measuring-only"):
        prepare([str(train_file)], dev_files=[str(measuring)])


def test_hard_negatives_and_weights() -> None:
    pairs = [
        Pair("1", "fm2", "Paris is the capital of France.",
             ["Paris is the capital of France, and Lyon is its third city."], True),
        Pair("2", "fm2", "The tower was built in 1889.", ["The tower was built in 1889."], True),
        Pair("3", "snli", "A man is sleeping.", ["A man sleeps on a bench."], True),
        Pair("4", "snli", "A man is running.", ["A man sleeps on a bench."], False),
    ]  # fmt: skip
    hard = {p.id: p for p in hard_negatives(pairs, share=1.0, seed=0)}
    # an entity of the claim swapped for one of its evidence's
    assert "Lyon" in hard["1-hard"].text and not hard["1-hard"].label
    assert hard["2-hard"].text != pairs[1].text and "1889" not in hard["2-hard"].text
    assert hard["3-hard"].text == "A man is not sleeping."
    assert "4-hard" not in hard  # only supported pairs
    weighted = weigh(pairs, {"snli": 0.5, "fm2": 2}, seed=0)
    assert sum(p.source == "fm2" for p in weighted) == 4
    assert sum(p.source == "snli" for p in weighted) == 1
    assert dedupe(pairs + pairs) == pairs


def test_bad_rows_name_file_and_line(tmp_path: Path) -> None:
    bad = _write(tmp_path / "bad.jsonl", [ROWS[0], {"text": "x", "label": "maybe"}])
    with pytest.raises(UsageError, match=r"bad.jsonl:2: 'label'"):
        read_pairs(bad)
    ok = {"text": "Ada was born in 1815.", "evidence": ["Ada was born in 1815."],
          "label": "not_supported"}  # fmt: skip
    for change, said in [
        ({"label": "SUPPORTS"}, "'label' must be 'supported' or 'not_supported'; not 'SUPPORTS'"),
        ({"label": None}, "'label' must be 'supported' or 'not_supported'; it is missing"),
        ({"spans": [{"begin": 0, "end": 3}]}, "a span is"),
        ({"spans": [[0, 3]]}, "a span is"),
        ({"spans": [{"start": "0", "end": 3}]}, "a span is"),
        ({"spans": {"start": 0, "end": 3}}, "'spans' must be a list"),
        ({"original": 5}, "'original' must be a string"),
        ({"evidence": [3]}, "'evidence' must be a list of strings"),
        ({"evidence": [None]}, "'evidence' must be a list of strings"),
        ({"evidence": [{"title": "Ada"}]}, "'evidence' must be a list of strings"),
        ({"evidence": "Ada was born in 1815."}, "'evidence' must be a list of passages, not one"),
        ({"evidence": []}, "no evidence"),
        ({"evidence": ["  "]}, "no evidence"),
        ({"text": " "}, "'text' is empty"),
    ]:  # each once a traceback, or a row trained on "None", "3" or nothing
        row = _write(tmp_path / "row.jsonl", [{**ok, **change}])
        with pytest.raises(UsageError, match=rf"row.jsonl:1: {re.escape(said)}"):
            read_pairs(row)
    titled = _write(
        tmp_path / "t.jsonl", [{**ok, "evidence": [{"title": "Ada", "text": "Born 1815."}, ""]}]
    )
    assert read_pairs(titled)[0].evidence == ["Ada: Born 1815."]  # the blank passage dropped


def test_a_file_with_several_bad_rows_names_them_all(tmp_path: Path) -> None:
    ok = {"text": "Ada was born in 1815.", "evidence": ["Ada was born in 1815."],
          "label": "supported"}  # fmt: skip
    rows = [ok, {**ok, "label": "SUPPORTS"}, ok, {**ok, "evidence": []}, {**ok, "text": ""}]
    with pytest.raises(UsageError) as caught:
        read_pairs(_write(tmp_path / "mine.jsonl", rows))
    said = str(caught.value)
    assert said.startswith("3 of 5 rows are bad:")
    for line, reason in [(2, "'label' must be"), (4, "no evidence"), (5, "'text' is empty")]:
        assert f"mine.jsonl:{line}: {reason}" in said


def test_favakit_synthetic_claims_are_read_as_a_source(tmp_path: Path) -> None:
    """`favakit synth claims` rows (claim, true/false label, titled passages) train as they are."""
    rows = [
        {"id": "claim-0", "claim": "Ada Lovelace was born in 1815.", "label": True,
         "evidence": [{"title": "Ada Lovelace", "text": "She was born in 1815."}], "kind": "supported"},
        {"id": "claim-1", "claim": "Ada Lovelace was born in 1816.", "label": False,
         "evidence": [{"title": "Ada Lovelace", "text": "She was born in 1815."}], "kind": "swap"},
    ]  # fmt: skip
    got = read_pairs(_write(tmp_path / "train.jsonl", rows))
    assert [(p.text, p.label, p.source) for p in got] == [
        ("Ada Lovelace was born in 1815.", True, "synthetic"),
        ("Ada Lovelace was born in 1816.", False, "synthetic"),
    ]
    assert got[0].evidence == ["Ada Lovelace: She was born in 1815."]
    bad = _write(tmp_path / "bad.jsonl", [{"claim": "x", "label": "supported"}])
    with pytest.raises(
        UsageError, match=r"bad.jsonl:1: 'label' must be true or false; not 'supported'"
    ):
        read_pairs(bad)
