"""`favakit synth claims`: (claim, evidence, label) pairs for training the verifier."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from favakit.errors import UsageError
from favakit.inference.judges import Check, Judge
from favakit.synth_data.claims import KINDS, ClaimConfig, build_claims, overlap


def _rows(folder: Path) -> list[dict]:
    return [
        json.loads(line)
        for name in ("train.jsonl", "validation.jsonl")
        for line in (folder / name).read_text().splitlines()
    ]


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def test_pairs_hold_what_their_labels_say(synth_kb: Path, tmp_path: Path) -> None:
    stats = build_claims(
        synth_kb, tmp_path / "a", ClaimConfig(n=150, val_fraction=0.25, kinds=",".join(KINDS))
    )
    rows = _rows(tmp_path / "a")
    assert stats["rows"] == len(rows) == 150
    assert stats["train"] + stats["validation"] == 150 and stats["validation"] > 0
    kinds = {r["kind"] for r in rows}
    assert kinds == set(KINDS)
    assert 0.35 <= stats["supported_share"] <= 0.65
    for r in rows:
        assert r["completion"] == (" True" if r["label"] else " False")
        assert r["label"] == (r["kind"] == "supported") or r["kind"] in ("question", "pair")
        # the prompt is exactly the judge's, so training and judging see the same text
        assert r["prompt"] == Judge.prompt(Check(r["topic"], r["claim"], r["evidence"]))
        assert 1 <= len(r["evidence"]) <= 4
        evidence = " ".join(e["text"] for e in r["evidence"]).lower()
        topic_words = set(_words(r["source_title"])) | {"s"}  # "Ada Lovelace's"
        if r["kind"] in ("supported", "swap"):
            # every word of a true claim is in the evidence (pronouns resolved to the title);
            # a swap takes its new name from the evidence too: only the roles are wrong
            assert set(_words(r["claim"])) - topic_words <= set(_words(evidence)), r
        if r["kind"] == "swap":
            assert r["claim"].lower() not in evidence
        elif r["kind"] == "related":
            assert overlap(r["claim"], [e["text"] for e in r["evidence"]], r["source_title"]) <= 0.5
        elif r["kind"] == "error":
            assert r["error_type"] in {"entity", "relation", "contradictory", "invented",
                                       "subjective", "unverifiable"}  # fmt: skip
            assert r["claim"].lower() not in evidence  # the error made it differ
        elif r["kind"] == "question":
            assert "?" in r["claim"] and r["detail"] in {"year", "number", "person", "org",
                                                        "place", "name", "word"}  # fmt: skip
            answer = re.split(r"\?\W*(?:is |Answer: |A: )?", r["claim"])[-1].rstrip(".")
            assert answer.lower() in evidence  # wrong answers come from the evidence too
        elif r["kind"] == "pair":
            assert ", and " in r["claim"] and len(r["evidence"]) >= 1
            assert r["label"] == (r["detail"] == "both")
    train = {json.loads(x)["source_title"] for x in (tmp_path / "a/train.jsonl").open()}
    val = {json.loads(x)["source_title"] for x in (tmp_path / "a/validation.jsonl").open()}
    assert train and val and not train & val  # split by article


def test_same_seed_same_pairs_and_cli(synth_kb: Path, tmp_path: Path) -> None:
    build_claims(synth_kb, tmp_path / "a", ClaimConfig(n=40, seed=3))
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "synth", "claims", "--kb", str(synth_kb),
         "--out", str(tmp_path / "b"), "--n", "40", "--seed", "3"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rows"] == 40
    for name in ("train.jsonl", "validation.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    other = build_claims(synth_kb, tmp_path / "c", ClaimConfig(n=40, seed=4))
    assert other["rows"] == 40 and _rows(tmp_path / "c") != _rows(tmp_path / "a")


def test_bad_input_is_refused(synth_kb: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        build_claims(tmp_path / "missing.db", tmp_path / "x", ClaimConfig(n=5))
    with pytest.raises(UsageError, match="--n"):
        ClaimConfig(n=0)
    with pytest.raises(UsageError, match="choose among supported"):
        ClaimConfig(kinds="supported,guess")
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "synth", "claims", "--kb", str(synth_kb),
         "--out", str(tmp_path / "y"), "--max-passages", "0"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "--max-passages" in done.stderr


def test_a_one_article_source_gives_pairs_with_its_own_evidence(tmp_path: Path) -> None:
    """Evidence is padded with other articles' passages while there are other articles; with one
    article the pairs carry fewer passages (this used to loop forever)."""
    from favakit.retrieval.kb import build_kb

    from .conftest import ARTICLES

    title, text = next(iter(ARTICLES.items()))
    src = tmp_path / "one.jsonl"
    src.write_text(json.dumps({"title": title, "text": text}) + "\n")
    build_kb(src, tmp_path / "one.db")
    stats = build_claims(tmp_path / "one.db", tmp_path / "a", ClaimConfig(n=30))
    rows = _rows(tmp_path / "a")
    assert stats["titles"] == 1 and stats["rows"] == len(rows) == 30
    assert all(e["title"].lower() == title.lower() for r in rows for e in r["evidence"])


def test_a_folder_of_the_users_own_training_data_is_not_written_over(
    synth_kb: Path, tmp_path: Path
) -> None:
    """`--out data/` holding a train.jsonl of the user's own had it replaced without a word; a
    folder that an earlier run wrote (its stats.json says so) is written again."""
    from favakit.records import RecordError
    from favakit.synth_data.pipeline import SynthConfig, run_synthesis

    mine = tmp_path / "data"
    mine.mkdir()
    (mine / "train.jsonl").write_text('{"text": "mine"}\n')
    with pytest.raises(RecordError, match=r"holds train.jsonl, which this command would replace"):
        build_claims(synth_kb, mine, ClaimConfig(n=5))
    with pytest.raises(RecordError, match=r"and no config.json of a run of it"):
        run_synthesis(synth_kb, mine, SynthConfig(n=2))
    assert (mine / "train.jsonl").read_text() == '{"text": "mine"}\n'
    assert sorted(p.name for p in mine.iterdir()) == ["train.jsonl"]
    build_claims(synth_kb, tmp_path / "ours", ClaimConfig(n=5))
    assert build_claims(synth_kb, tmp_path / "ours", ClaimConfig(n=6))["rows"] == 6
