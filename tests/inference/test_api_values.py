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


def test_a_judge_refuses_the_models_it_would_not_read() -> None:
    """`verify --judge checker --model smollm2` (or --llm-endpoint, --backend hf, --dtype, an
    api key) ran the checker, the model never loaded; `--judge qwen --checker mpnet` ran Qwen
    alone. Each is refused before any model loads."""
    from favakit import ClientSpec

    for spec, field in (
        (ClientSpec(model="smollm2"), r"model \(--model\)"),
        (ClientSpec(endpoint="http://127.0.0.1:9/v1"), r"endpoint \(--llm-endpoint\)"),
        (ClientSpec(backend="hf"), r"backend \(--backend\)"),
        (ClientSpec(dtype="float32"), r"dtype \(--dtype\)"),
        (ClientSpec(api_key="k"), r"api_key \(--llm-api-key\)"),
    ):
        with pytest.raises(UsageError, match=field + ": the checker judge is an encoder of its"):
            open_verifier("checker", spec)
    for kind in ("qwen", "verifier", "llm", "encoder", "editor"):
        with pytest.raises(UsageError, match=f"the {kind} judge reads none"):
            open_verifier(kind, checker="mpnet")
    for kind in ("qwen", "verifier", "llm"):
        with pytest.raises(UsageError, match=f"detector 'd' names the encoder of the checker, "
                                             f"encoder and editor judges; the {kind} judge"):  # fmt: skip
            open_verifier(kind, detector="d")
