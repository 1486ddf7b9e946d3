"""Numbers out of range are refused at the command line, with the option named, before any
model loads."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable

import pytest

from favakit.cli_args import non_negative, positive, probability, share


@pytest.mark.parametrize(
    ("kind", "good", "bad"),
    [
        (probability, ["0", "1", "0.35", "1e-3"], ["-0.01", "1.5", "nan", "inf", "x", ""]),
        (share, ["0", "0.999"], ["1", "-0.1", "nan"]),
        (positive, ["0.5", "600"], ["0", "-1", "inf", "nan", "ten"]),
        (non_negative, ["0", "50"], ["-1", "inf", "nan"]),
    ],
)
def test_each_type_keeps_its_range(
    kind: Callable[[str], float], good: list[str], bad: list[str]
) -> None:
    for value in good:
        assert kind(value) == float(value)
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
