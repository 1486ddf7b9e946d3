"""The training config: one dataclass, YAML presets in ``presets/``, ``key=value`` overrides."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any, Literal

from favakit.config import list_presets, load_config

__all__ = ["DataConfig", "LoraSettings", "TrainConfig", "load_train_config", "presets"]


@dataclass
class LoraSettings:
    r: int = 16
    alpha: float = 32.0
    dropout: float = 0.0
    target_modules: list[str] = field(
        default_factory=lambda: [
            "q_proj",
            "k_proj",
            "v_proj",
            "o_proj",
            "gate_proj",
            "up_proj",
            "down_proj",
        ]
    )


@dataclass
class DataConfig:
    train_file: str = ""  # JSONL of {"prompt", "completion"} (favakit or FAVA rows)
    validation_file: str = ""  # optional; without it, validation_fraction of train is held out
    validation_fraction: float = 0.05
    max_length: int = 2048
    packing: bool = False
    limit: int = 0  # use at most this many training rows (0: all)


@dataclass
class TrainConfig:
    model: str = ""  # folder, Hub id, .gguf file, or "smollm2"
    method: Literal["lora", "qlora", "full"] = "lora"
    lora: LoraSettings = field(default_factory=LoraSettings)
    data: DataConfig = field(default_factory=DataConfig)
    output_dir: str = "runs/train"
    epochs: float = 2.0
    max_steps: int = 0  # stop after this many optimizer steps (0: run the epochs)
    lr: float = 2e-4
    warmup_ratio: float = 0.03
    weight_decay: float = 0.0
    schedule: Literal["cosine", "linear", "constant"] = "cosine"
    batch_size: int = 4  # per device, per micro-step
    grad_accum: int = 1
    max_grad_norm: float = 1.0
    precision: Literal["auto", "bf16", "fp32"] = (
        "auto"  # auto: bf16 on GPUs that have it, else fp32
    )
    gradient_checkpointing: bool = False
    seed: int = 0
    log_every: int = 10
    eval_every: int = 100  # validation loss every N optimizer steps (0: only at the end)
    save_every: int = 100  # checkpoint every N optimizer steps (0: only at the end)
    eval_generate: int = 0  # also decode this many validation examples and score them
    device: str = ""  # "" picks cuda when available
    notes: dict[str, Any] = field(default_factory=dict)  # free text carried into the model card


def presets() -> list[str]:
    return list_presets(files("favakit.training") / "presets")


def load_train_config(
    source: str | None, overrides: list[str] | tuple[str, ...] = ()
) -> TrainConfig:
    """A preset name or YAML file, then ``key.sub=value`` overrides, type-checked."""
    return load_config(
        TrainConfig, source, list(overrides), presets=files("favakit.training") / "presets"
    )
