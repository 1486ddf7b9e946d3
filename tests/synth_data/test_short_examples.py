"""Short examples for small models: windows of a few sentences, 1-2 references, examples
without errors, one whitespace normalisation, and a validation split that is never empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from favakit import tags
from favakit.errors import UsageError
from favakit.prompts import parse_prompt
from favakit.records import TrainExample, read_records
from favakit.retrieval.kb import build_kb
from favakit.synth_data.pipeline import SynthConfig, run_synthesis, validation_titles
from favakit.text import split_sentences

SHORT = {
    "n": 80,
    "seed": 3,
    "window": "2-3",
    "references": 1,
    "no_error_fraction": 0.25,
    "val_fraction": 0.2,
    "variants": 6,
}


def _examples(out: Path) -> list[TrainExample]:
    return [
        *read_records(out / "train.jsonl", TrainExample),
        *read_records(out / "validation.jsonl", TrainExample),
    ]


def test_windows_references_and_examples_without_errors(synth_kb: Path, tmp_path: Path) -> None:
    stats = run_synthesis(synth_kb, tmp_path, SynthConfig(**SHORT))  # type: ignore[arg-type]
    examples = _examples(tmp_path)
    assert len(examples) == stats["examples"] == 80
    clean = 0
    for ex in examples:
        tagged = tags.parse(ex.completion)
        parsed = parse_prompt(ex.prompt)
        assert parsed.text == tagged.original()
        assert 2 <= len(split_sentences(tagged.corrected())) <= 3  # the window, errors undone
        assert 1 <= len(parsed.references) <= 2
        # the gold reference holds the whole window (the correct text)
        assert any(tagged.corrected() in ref for ref in parsed.references)
        clean += not tagged.edits
        assert sorted({e.type for e in tagged.edits}) == sorted(ex.error_types)
    assert stats["no_error_examples"] == clean
    assert 0.12 <= clean / len(examples) <= 0.4  # asked for 25%
    counts = [ex.prompt.count("Reference [") for ex in examples]
    assert 1 in counts and 2 in counts


def test_windows_need_the_rules_inserter_and_a_valid_range() -> None:
    with pytest.raises(UsageError, match="MIN-MAX"):
        SynthConfig(window="5-2")
    with pytest.raises(UsageError, match="rules inserter"):
        SynthConfig(window="2-4", inserter="llm")
    with pytest.raises(UsageError, match="no_error_fraction"):
        SynthConfig(no_error_fraction=1.0)


def test_prompt_and_completion_share_one_whitespace_normalisation(tmp_path: Path) -> None:
    text = (
        "The\u00a0Danube flows through ten countries.  It rises in the Black\u00a0Forest. "
        "It flows into the Black Sea in 1829.\nVienna lies on its banks."
    )
    src = tmp_path / "a.jsonl"
    src.write_text(json.dumps({"title": "Danube", "text": text}) + "\n")
    build_kb(src, tmp_path / "kb.db")
    for window in ("", "2-4"):
        out = tmp_path / f"out{window}"
        cfg = SynthConfig(n=4, min_words=5, min_sentences=2, val_fraction=0.0, window=window)
        run_synthesis(tmp_path / "kb.db", out, cfg)
        for ex in _examples(out):
            assert "\u00a0" not in ex.prompt and "\u00a0" not in ex.completion
            assert "  " not in ex.completion
            assert parse_prompt(ex.prompt).text == tags.parse(ex.completion).original()


def test_validation_split_is_never_empty_with_two_titles_or_more() -> None:
    cfg = SynthConfig(val_fraction=0.01)
    for seed in range(20):
        cfg.seed = seed
        titles = {f"Article {i}" for i in range(10)}
        held = validation_titles(titles, cfg)
        assert held and held < titles
    assert validation_titles({"Only one"}, cfg) == set()
    assert validation_titles({"A", "B"}, SynthConfig(val_fraction=0.0)) == set()


def test_a_small_source_gets_a_validation_split(synth_kb: Path, tmp_path: Path) -> None:
    run_synthesis(synth_kb, tmp_path, SynthConfig(n=30, min_words=20, val_fraction=0.01))
    assert list(read_records(tmp_path / "validation.jsonl", TrainExample))


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--llm-model", "m", "--no-genres"],
         "--llm-model, --no-genres: options of the llm and mix inserters, and --inserter rules"),
        (["--inserter", "llm", "--llm-endpoint", "http://127.0.0.1:9/v1", "--llm-model", "m",
          "--llm-fraction", "0.3"], "--llm-fraction shares passages between the rules and the LLM"),
        (["--window-words", "30", "--context-words", "60"],
         "--window-words, --context-words: sizes of --window's examples; give --window MIN-MAX"),
    ],
)  # fmt: skip
def test_synth_run_refuses_options_its_choices_would_ignore(
    synth_kb: Path, tmp_path: Path, flags: list[str], said: str
) -> None:
    import subprocess
    import sys

    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "favakit", "synth", "run", "--kb", str(synth_kb), "--out", str(out),
         "--n", "5", "-q", *flags], capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not out.exists()


def test_synth_run_s_defaults_are_what_its_refusals_compare_with() -> None:
    """The refusals compare with the parser's defaults: a run given none is never refused."""
    import argparse

    from favakit.synth_data.cli import _refuse_unread, configure

    parser = argparse.ArgumentParser()
    configure(parser)
    for extra in ([], ["--inserter", "mix"], ["--window", "2-4", "--window-words", "30"]):
        _refuse_unread(parser.parse_args(["run", "--kb", "k.db", "--out", "o", *extra]))
