"""Numbers out of range are refused at the command line, with the option named, before any
model loads."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable

import pytest

from favakit.cli_args import (
    given,
    non_negative,
    non_negative_int,
    port,
    positive,
    positive_int,
    probability,
    share,
    url,
    weights,
)


@pytest.mark.parametrize(
    ("kind", "good", "bad", "number"),
    [
        (probability, ["0", "1", "0.35", "1e-3"], ["-0.01", "1.5", "nan", "inf", "x", ""], float),
        (share, ["0", "0.999"], ["1", "-0.1", "nan"], float),
        (positive, ["0.5", "600"], ["0", "-1", "inf", "nan", "ten"], float),
        (non_negative, ["0", "50"], ["-1", "inf", "nan"], float),
        (positive_int, ["1", "64"], ["0", "-3", "1.5", "x", ""], int),
        (non_negative_int, ["0", "7"], ["-1", "2.0", "nan"], int),
        (port, ["1", "8080", "65535"], ["0", "65536", "-80", "http"], int),
    ],
)
def test_each_type_keeps_its_range(
    kind: Callable[[str], float], good: list[str], bad: list[str], number: type
) -> None:
    for value in good:
        got = kind(value)
        assert got == number(value) and type(got) is number
    for value in bad:
        with pytest.raises(argparse.ArgumentTypeError):
            kind(value)


def test_the_commands_refuse_numbers_out_of_range() -> None:
    for args, said in (
        (["verify", "--claim", "x", "--evidence", "y", "--threshold", "1.5"],
         "argument --threshold: 1.5 is not a probability"),
        (["edit", "x", "--gate-threshold", "-0.1"],
         "argument --gate-threshold: -0.1 is not a probability"),
        (["serve", "--timeout", "0"], "argument --timeout: 0: give a finite number above 0"),
        (["serve-llm", "--max-body-mb", "-1"], "argument --max-body-mb: -1"),
    ):  # fmt: skip
        got = subprocess.run(
            [sys.executable, "-m", "favakit", *args], capture_output=True, text=True, timeout=120
        )
        assert got.returncode == 2 and said in got.stderr, (args, got.stderr)


def test_weights_are_finite_not_negative_and_not_all_zero() -> None:
    assert weights("1,0.5") == [1.0, 0.5] and weights(" 2 ") == [2.0] and weights("0,1") == [0, 1]
    for bad in ("", "x", "1,", "1,-1", "0,0", "inf", "nan", "1;2"):
        with pytest.raises(argparse.ArgumentTypeError):
            weights(bad)


def test_an_endpoint_is_an_http_address() -> None:
    assert url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert url(" https://api.example.com/v1 ") == "https://api.example.com/v1"
    for bad in ("", "notaurl", "localhost:8000", "ftp://x/v1", "http://", "127.0.0.1:8000/v1"):
        with pytest.raises(argparse.ArgumentTypeError):
            url(bad)


def test_given_keeps_a_name_and_refuses_a_blank_one() -> None:
    assert given("smollm2") == "smollm2"
    for blank in ("", "  ", "\t"):
        with pytest.raises(argparse.ArgumentTypeError, match="is empty"):
            given(blank)


def test_counts_sizes_and_ports_are_refused_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each of these ran: `edit --limit -1` left out the last row (rows[:-1]), `--max-batch 0`,
    `kb build --max-tokens 0` and `serve --port 70000` ended in a traceback, `edit -k 0` and
    `--max-new-tokens 0` edited with no evidence or no tokens, `serve --max-chars 0` started
    a server that refused every text, `synth run --batch 0` and `--distractor-words -1` ran, and `--max-passages -1` made
    nothing."""
    from favakit.cli import main

    for args, said in (
        (["edit", "--input", "x.jsonl", "--limit", "-1"], "argument --limit: -1: give a whole "
         "number of 0 or more"),
        (["edit", "x", "-k", "0"], "argument -k: 0: give a whole number of 1 or more"),
        (["edit", "x", "--max-new-tokens", "0"], "argument --max-new-tokens: 0"),
        (["edit", "x", "--window-chars", "-5"], "argument --window-chars: -5"),
        (["edit", "x", "--max-batch", "0"], "argument --max-batch: 0"),
        (["demo", "--limit", "-2"], "argument --limit: -2"),
        (["serve", "--max-chars", "0"], "argument --max-chars: 0"),
        (["serve", "--max-texts", "-1"], "argument --max-texts: -1"),
        (["serve", "--max-pending", "0"], "argument --max-pending: 0"),
        (["serve", "--port", "70000"], "argument --port: 70000 is not a port: give a number "
         "from 1 to 65535"),
        (["serve-llm", "--port", "0"], "argument --port: 0 is not a port"),
        (["serve-llm", "--kv-cache-gb", "0"], "argument --kv-cache-gb: 0"),
        (["kb", "build", "--input", "a", "--out", "b", "--max-tokens", "0"],
         "argument --max-tokens: 0"),
        (["kb", "build", "--input", "a", "--out", "b", "--max-words", "x"],
         "argument --max-words: 'x' is not a whole number"),
        (["index", "build", "--kb", "a", "--out", "b", "--nlist", "0"], "argument --nlist: 0"),
        (["search", "--index", "a", "--queries", "q", "--batch-size", "0"],
         "argument --batch-size: 0"),
        (["eval", "factscore", "--input", "a", "--kb", "b", "--out", "c", "--batch", "0"],
         "argument --batch: 0"),
        (["synth", "run", "--kb", "a", "--out", "b", "--batch", "0"], "argument --batch: 0"),
        (["synth", "run", "--kb", "a", "--out", "b", "--max-passages", "-1"],
         "argument --max-passages: -1"),
        (["synth", "run", "--kb", "a", "--out", "b", "--distractor-words", "-1"],
         "argument --distractor-words: -1: give a whole number of 0 or more"),
        (["synth", "claims", "--kb", "a", "--out", "b", "--lowercase", "-1"],
         "argument --lowercase: -1 is not a probability"),
        (["synth", "from-edits", "--input", "a", "--out", "b", "--max-changed", "3"],
         "argument --max-changed: 3 is not a probability"),
        # an empty name picked the shipped model without a word (`--model "$MODEL"`, unset)
        (["edit", "x", "--llm-endpoint", ""], "argument --llm-endpoint: is empty (a variable "
         "that is not set?)"),
        # and so is an empty file or folder name: `index build --out ""` wrote into the
        # current folder
        (["index", "build", "--kb", "kb.db", "--out", ""], "argument --out: is empty"),
        (["synth", "run", "--kb", "kb.db", "--out", " "], "argument --out: is empty"),
        (["edit", "--input", "x.jsonl", "--output", ""], "argument --output: is empty"),
        (["edit", "x", "--index", "i", "--index", ""], "argument --index: is empty"),
        (["eval", "detect", "--gold", "", "--pred", "p", "--out", "o"], "argument --gold: is "),
        (["verify", "x", "--judge", "llm", "--model", " "], "argument --model: is empty"),
        (["serve-llm", "--adapter", ""], "argument --adapter: is empty"),
        (["demo", "--model", ""], "argument --model: is empty"),
        (["eval", "edit-gain", "--input", "a", "--kb", "b", "--out", "c", "--editor-model", ""],
         "argument --editor-model: is empty"),
        # a misspelt device ended in a traceback from inside torch once the model had loaded
        (["edit", "x", "--device", "gpu"], "argument --device: 'gpu' is not a device: give cpu, "
         "cuda, cuda:N"),
        (["verify", "x", "--device", ""], "argument --device: '' is not a device"),
        (["index", "build", "--kb", "a", "--out", "b", "--device", "cuda1"],
         "argument --device: 'cuda1' is not a device"),
        (["search", "--index", "a", "lava", "--device", "CPU"], "argument --device: 'CPU' is not"),
        (["serve-llm", "--device", "gpu:0"], "argument --device: 'gpu:0' is not a device"),
        # a blank model, judge or encoder picked the default, a blank --ray ran without Ray, a
        # blank --cites was a traceback
        (["edit", "x", "--gate", ""], "argument --gate: is empty"),
        (["verify", "x", "--checker", " "], "argument --checker: is empty"),
        (["verify", "x", "--cites", ""], "argument --cites: is empty"),
        (["serve", "--host", ""], "argument --host: is empty"),
        (["serve-llm", "--allow-host", ""], "argument --allow-host: is empty"),
        (["index", "build", "--kb", "a", "--out", "b", "--encoder", ""],
         "argument --encoder: is empty"),
        (["index", "build", "--kb", "a", "--out", "b", "--ray", ""], "argument --ray: is empty"),
        (["kb", "build", "--input", "a", "--out", "b", "--tokenizer", ""],
         "argument --tokenizer: is empty"),
        (["synth", "run", "--kb", "a", "--out", "b", "--llm-model", ""],
         "argument --llm-model: is empty"),
        (["search", "--index", "a", "x", "--weights", "1,-1"], "argument --weights: '1,-1': each"),
        # an address without its scheme failed later, as an "unknown url type"
        (["edit", "x", "--llm-endpoint", "localhost:8000"], "argument --llm-endpoint: "
         "'localhost:8000' is not an http(s) address"),
        (["synth", "run", "--kb", "a", "--out", "b", "--llm-endpoint", "ftp://x/v1"],
         "argument --llm-endpoint: 'ftp://x/v1' is not"),
        (["eval", "factscore", "--input", "a", "--kb", "b", "--out", "c", "--gamma", "-1"],
         "argument --gamma: -1: give a finite number of 0 or more"),
    ):  # fmt: skip
        with pytest.raises(SystemExit) as stop:
            main(args)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and said in err.splitlines()[-1], (args, err)


def test_open_verifier_refuses_a_threshold_outside_0_to_1() -> None:
    from favakit.errors import UsageError
    from favakit.inference.factory import open_verifier

    with pytest.raises(UsageError, match=r"threshold 2\.0: a probability"):
        open_verifier("checker", threshold=2.0)


def test_changed_options_names_the_flags_set_to_other_than_their_default() -> None:
    import argparse

    from favakit.cli_args import changed_options

    args = argparse.Namespace(a=None, b=5, c=False, d="x")
    options = [("--a", "a", None), ("--b", "b", 5), ("--c", "c", False), ("--d", "d", "y")]
    assert changed_options(args, options) == ["--d"]
    args.a, args.c = "given", True
    assert changed_options(args, options) == ["--a", "--c", "--d"]
