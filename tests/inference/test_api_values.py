"""The Python API refuses the values the command line refuses: a blank judge or checker (the
default ran instead) and a gate threshold that is no probability (every sentence was edited,
or none)."""

from __future__ import annotations

import pytest

from favakit import GateSettings, open_verifier
from favakit.errors import UsageError


def test_gate_settings_refuse_a_blank_judge_and_a_threshold_outside_0_to_1() -> None:
    assert GateSettings("checker", 0.35).threshold == 0.35
    with pytest.raises(ValueError, match="judge is empty"):
        GateSettings(" ")
    for threshold in (-0.1, 1.5):
        with pytest.raises(ValueError, match=f"threshold {threshold}: a probability"):
            GateSettings("checker", threshold)


def test_open_verifier_refuses_a_blank_checker() -> None:
    for name in ("checker", "detector"):
        with pytest.raises(UsageError, match=f"{name} is empty"):
            open_verifier("checker", **{name: ""})
