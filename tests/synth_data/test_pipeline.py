from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from favakit import tags
from favakit.errors import UsageError
from favakit.records import TrainExample, read_jsonl, read_records
from favakit.retrieval.kb import KnowledgeSource
from favakit.synth_data.pipeline import SynthConfig, run_synthesis

CFG = {"n": 40, "seed": 5, "min_words": 20, "val_fraction": 0.25, "references": 2}


def _text_of(prompt: str) -> str:
    return prompt.split("\n[Text] ", 1)[1].rsplit("\n[Edited] ", 1)[0]


def test_examples_are_valid_and_split_by_title(synth_kb: Path, tmp_path: Path) -> None:
    stats = run_synthesis(synth_kb, tmp_path, SynthConfig(**CFG))
    train = list(read_records(tmp_path / "train.jsonl", TrainExample))
    val = list(read_records(tmp_path / "validation.jsonl", TrainExample))
    assert len(train) + len(val) == stats["examples"] == 40
    assert {e.source_title for e in train}.isdisjoint({e.source_title for e in val})
    kb = KnowledgeSource(synth_kb)
    for ex in train + val:
        tagged = tags.parse(ex.completion)  # strictly valid
        assert _text_of(ex.prompt) == tagged.original()
        gold = kb.get(ex.source_title)[int(ex.id.rsplit("#", 1)[1].split("@")[0])]
        assert tagged.corrected() == gold
        assert sorted({e.type for e in tagged.edits}) == sorted(ex.error_types)
        assert 1 <= len(tagged.edits) <= 4
        assert "Reference [1]" in ex.prompt and ex.prompt.count("Reference [") == 3  # gold + 2
        assert gold.split()[0] in ex.prompt.split("[Text]")[0]  # the gold passage is a reference
    assert sum(stats["errors_per_type"].values()) == stats["errors"]
    assert (tmp_path / "hf" / "dataset_dict.json").exists()


def test_interrupted_and_crashed_runs_resume_to_the_same_examples(
    synth_kb: Path, tmp_path: Path
) -> None:
    clean = tmp_path / "clean"
    run_synthesis(synth_kb, clean, SynthConfig(**CFG))

    out = tmp_path / "resumed"
    count = {"n": 0}

    def stop_after_15(row: dict) -> None:  # type: ignore[type-arg]
        count["n"] += 1
        if count["n"] == 15:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_synthesis(synth_kb, out, SynthConfig(**CFG), on_row=stop_after_15)
    assert not (out / "train.jsonl").exists()
    # a kill in the middle of a write leaves half a line: the resumed run must cope
    with (out / "log.jsonl").open("a") as fh:
        fh.write('{"id": "Ada Lovelace#0@3", "status": "ok", "exam')
    seen: list[str] = []
    run_synthesis(synth_kb, out, SynthConfig(**CFG), on_row=lambda r: seen.append(r["id"]))
    assert len(seen) >= 40 - 15  # the 15 finished rows were not redone
    for name in ("train.jsonl", "validation.jsonl"):
        assert (out / name).read_bytes() == (clean / name).read_bytes()


def test_settings_change_is_refused_and_llm_needs_an_endpoint(
    synth_kb: Path, tmp_path: Path
) -> None:
    run_synthesis(synth_kb, tmp_path, SynthConfig(**{**CFG, "n": 5}))
    with pytest.raises(UsageError, match=r"other settings \(seed: 5 there, 6 now\); give the same"):
        run_synthesis(synth_kb, tmp_path, SynthConfig(**{**CFG, "n": 5, "seed": 6}))
    # asking for more examples with the same settings extends the run
    stats = run_synthesis(synth_kb, tmp_path, SynthConfig(**{**CFG, "n": 8}))
    assert stats["examples"] == 8 and stats["run"]["examples_this_run"] == 3
    with pytest.raises(UsageError, match="--llm-endpoint"):
        run_synthesis(synth_kb, tmp_path / "llm", SynthConfig(**{**CFG, "inserter": "llm"}))
    with pytest.raises(UsageError, match="unknown inserter"):
        SynthConfig(inserter="gpt")


def test_cli_run_and_stats(synth_kb: Path, tmp_path: Path) -> None:
    def favakit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "favakit", *args], capture_output=True, text=True, timeout=300
        )

    run = favakit(
        "synth",
        "run",
        "--kb",
        str(synth_kb),
        "--out",
        str(tmp_path),
        "--n",
        "12",
        "--seed",
        "1",
        "-q",
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["examples"] == 12
    stats = favakit("synth", "stats", str(tmp_path))
    assert "examples: 12" in stats.stdout and "entity" in stats.stdout
    first = (tmp_path / "train.jsonl").read_text().splitlines()[0]
    check = subprocess.run(
        [sys.executable, "-m", "favakit", "tags", "check"],
        input=json.loads(first)["completion"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stderr


def test_two_shards_together_make_a_full_run(synth_kb: Path, tmp_path: Path) -> None:
    from favakit.synth_data.pipeline import finalize

    cfg = SynthConfig(**{**CFG, "n": 20})
    first = run_synthesis(synth_kb, tmp_path, cfg, shard=(0, 2))
    assert first["examples"] == 10  # only this shard's log so far
    run_synthesis(synth_kb, tmp_path, cfg, shard=(1, 2))
    stats = finalize(tmp_path)
    assert stats["examples"] == 20
    ids = [e.id for e in read_records(tmp_path / "train.jsonl", TrainExample)]
    ids += [e.id for e in read_records(tmp_path / "validation.jsonl", TrainExample)]
    assert len(set(ids)) == 20  # no passage variant made twice
    with pytest.raises(UsageError, match="expected i/n"):
        run_synthesis(synth_kb, tmp_path, cfg, shard=(2, 2))


def test_progress_counts_a_batch_when_its_examples_come(
    synth_kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch's examples come at once: counted one by one, the first would read as having
    taken the whole batch's time, and the time left would be several times too long."""
    import io

    from favakit import progress

    out = io.StringIO()

    class EveryLine(progress.Progress):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **{**kwargs, "out": out, "every_s": 0, "tty": False})

    monkeypatch.setattr(progress, "Progress", EveryLine)
    stats = run_synthesis(synth_kb, tmp_path, SynthConfig(**{**CFG, "n": 12, "batch": 5}),
                          progress=True)  # fmt: skip
    assert stats["examples"] == 12
    counts = [int(line.split(":", 1)[1].split("/")[0]) for line in out.getvalue().splitlines()]
    batches = -(-sum(1 for _ in read_jsonl(tmp_path / "log.jsonl")) // 5)
    assert counts == sorted(set(counts)) and counts[-1] == 12
    assert len(counts) <= batches < 12  # a line a batch, not one an example
