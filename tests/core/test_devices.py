"""A device is named in one form everywhere and checked where a model loads: a misspelt or
missing device is refused in one line (it was a traceback from inside torch, after loading)."""

from __future__ import annotations

import pytest
import torch

from favakit.devices import check_device_name, torch_device
from favakit.errors import UsageError
from favakit.spec import ClientSpec


def test_device_names_take_the_forms_torch_reads() -> None:
    for name in ("cpu", "cuda", "cuda:0", "cuda:12", "mps", "xpu", "xpu:1"):
        assert check_device_name(name) == name
    for name in ("", " cpu", "CPU", "gpu", "cuda:", "cuda:x", "cuda:-1", "bogus", "cpu:0:0"):
        with pytest.raises(ValueError, match="is not a device: give cpu, cuda, cuda:N"):
            check_device_name(name)


def test_a_spec_refuses_a_misspelt_device_when_made() -> None:
    assert ClientSpec(device="cuda:1").device == "cuda:1"
    with pytest.raises(ValueError, match="'gpu' is not a device"):
        ClientSpec(device="gpu")


def test_the_model_device_is_the_named_one_or_what_torch_sees() -> None:
    assert torch_device("cpu") == "cpu"
    want = "cuda" if torch.cuda.is_available() else "cpu"
    assert torch_device(None) == want and torch_device("") == want
    with pytest.raises(UsageError, match="is not a device"):
        torch_device("bogus")


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine where torch sees no GPU")
def test_a_device_this_torch_cannot_use_is_refused_by_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("cuda", "cuda:1"):
        with pytest.raises(UsageError, match=f"device '{name}': this PyTorch .* cannot use cuda"):
            torch_device(name)
    from favakit.cli import main

    # `favakit verify --device cuda` on a CPU machine: a traceback from torch, before
    args = ["verify", "x", "--evidence", "x", "--judge", "checker", "--checker", "checker"]
    assert main([*args, "--device", "cuda"]) == 2
    assert "device 'cuda': this PyTorch" in capsys.readouterr().err


def test_training_refuses_a_misspelt_device_before_it_loads_anything() -> None:
    from favakit.training.config import load_train_config, validate_config

    cfg = load_train_config("tiny_cpu", ["device=gpu"])
    with pytest.raises(UsageError, match="device='gpu': give cpu, cuda"):
        validate_config(cfg)
    validate_config(load_train_config("tiny_cpu", ["device=cpu"]))
