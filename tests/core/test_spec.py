"""A ClientSpec refuses values that cannot name a model or a place to run it, when made: a
blank adapter or endpoint (an unset variable) had the shipped model run without a word."""

from __future__ import annotations

import pytest

from favakit.spec import ClientSpec


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"backend": "cuda"}, "backend must be one of auto, vllm, hf, not 'cuda'"),
        ({"dtype": "fp16"}, "dtype must be one of auto, float32, bfloat16, float16"),
        ({"max_batch": 0}, "max_batch must be at least 1, not 0"),
        ({"device": "gpu"}, "'gpu' is not a device"),
        ({"adapter": ""}, "adapter is empty: give None for none"),
        ({"endpoint": " "}, "endpoint is empty"),
        ({"endpoint": "localhost:8000"}, "endpoint 'localhost:8000' is not an http"),
        ({"model": "  "}, "model is blank: give '' .* for the shipped model"),
    ],
)
def test_a_spec_refuses_what_names_nothing(changes: dict[str, object], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        ClientSpec(**changes)  # type: ignore[arg-type]


def test_a_spec_keeps_what_it_is_given() -> None:
    spec = ClientSpec("smollm2", adapter="runs/a", endpoint=None, device="cpu", max_batch=2)
    assert spec.names_model and spec.with_(model="").adapter == "runs/a"
    assert not ClientSpec().names_model  # '' is the shipped model
