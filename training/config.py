"""The training config: one dataclass, YAML presets in ``presets/``, ``key=value`` overrides."""

from __future__ import annotations

import glob
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

from favakit.config import list_presets, load_config
from favakit.devices import DEVICE_FORMS, check_device_name
from favakit.errors import UsageError
from favakit.records import refuse_measuring_set

__all__ = [
    "DataConfig",
    "LoraSettings",
    "TrainConfig",
    "load_train_config",
    "presets",
    "validate_config",
]


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
    # Pad every batch to a multiple of this many tokens (0: to its longest row). On the CPU each
    # new batch shape costs memory that is never given back; a few shapes keep the peak flat.
    pad_multiple: int = 0
    # checker: weight per source (2 repeats it, 0.5 keeps half), and the share of supported pairs
    # turned into rule-made hard negatives (favakit.training.pairs)
    source_weights: dict[str, float] = field(default_factory=dict)
    hard_negatives: float = 0.3
    # checker, detector: batches of rows of similar length, in random order (less padding: the
    # detector trains 1.5-1.8x faster on a CPU); false draws each batch's rows at random
    length_buckets: bool = True


@dataclass
class TrainConfig:
    # editor: a causal LM that rewrites the text with tags; detector: an encoder that labels
    # the text's tokens (favakit.training.detector)
    task: Literal["editor", "detector", "checker"] = "editor"
    model: str = (
        ""  # editor: folder, Hub id, .gguf file, or "smollm2"; detector: "minilm" or a folder
    )
    method: Literal["lora", "qlora", "full"] = "lora"
    lora: LoraSettings = field(default_factory=LoraSettings)
    # editor, lora/qlora: start from this adapter folder's weights (its rank and targets; the
    # `lora` settings are then unused), e.g. the shipped editor, to train it further on new data
    init_adapter: str = ""
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


#: settings a task's trainer never reads: one changed from its default is refused, not ignored
UNREAD_BY_TASK: dict[str, tuple[str, ...]] = {
    "editor": ("data.source_weights", "data.hard_negatives", "data.length_buckets"),
    "detector": ("eval_every", "eval_generate", "gradient_checkpointing", "data.packing",
                 "data.pad_multiple", "data.source_weights", "data.hard_negatives"),
    "checker": ("grad_accum", "eval_generate", "gradient_checkpointing", "data.packing",
                "data.pad_multiple"),
}  # fmt: skip


def _unread_settings(cfg: TrainConfig) -> list[str]:
    """``key=value`` for each setting ``cfg.task`` does not read that differs from its default."""
    defaults = TrainConfig()
    changed = []
    for key in UNREAD_BY_TASK.get(cfg.task, ()):
        mine, default = cfg, defaults
        *parents, name = key.split(".")
        for part in parents:
            mine, default = getattr(mine, part), getattr(default, part)
        if getattr(mine, name) != getattr(default, name):
            changed.append(f"{key}={getattr(mine, name)}")
    return changed


def validate_config(cfg: TrainConfig) -> None:
    """Reject settings that cannot mean anything, before any file is written or model loaded."""
    unread = _unread_settings(cfg)
    if unread:
        raise UsageError(
            f"{', '.join(unread)}: task={cfg.task} does not read "
            f"{'this setting' if len(unread) == 1 else 'these settings'}; remove "
            f"{'it' if len(unread) == 1 else 'them'} (docs/training.md lists each task's)"
        )
    checks: list[tuple[bool, str]] = [
        (
            cfg.max_steps >= 0,
            f"max_steps={cfg.max_steps}: use 0 (run the epochs) or a positive count",
        ),
        (cfg.epochs > 0, f"epochs={cfg.epochs}: must be positive"),
        (cfg.lr > 0, f"lr={cfg.lr}: must be positive"),
        (0 <= cfg.warmup_ratio < 1, f"warmup_ratio={cfg.warmup_ratio}: must be in [0, 1)"),
        (cfg.weight_decay >= 0, f"weight_decay={cfg.weight_decay}: must be >= 0"),
        (cfg.batch_size >= 1, f"batch_size={cfg.batch_size}: must be at least 1"),
        (cfg.grad_accum >= 1, f"grad_accum={cfg.grad_accum}: must be at least 1"),
        (cfg.max_grad_norm > 0, f"max_grad_norm={cfg.max_grad_norm}: must be positive"),
        (cfg.log_every >= 1, f"log_every={cfg.log_every}: must be at least 1"),
        (cfg.eval_every >= 0, f"eval_every={cfg.eval_every}: must be >= 0 (0: only at the end)"),
        (cfg.save_every >= 0, f"save_every={cfg.save_every}: must be >= 0 (0: only at the end)"),
        (cfg.eval_generate >= 0, f"eval_generate={cfg.eval_generate}: must be >= 0"),
        (cfg.data.max_length >= 16, f"data.max_length={cfg.data.max_length}: must be >= 16"),
        (cfg.data.limit >= 0, f"data.limit={cfg.data.limit}: must be >= 0 (0: all rows)"),
        (
            cfg.data.pad_multiple >= 0,
            f"data.pad_multiple={cfg.data.pad_multiple}: must be >= 0 (0: no bucketing)",
        ),
        (
            0 <= cfg.data.validation_fraction < 1,
            f"data.validation_fraction={cfg.data.validation_fraction}: must be in [0, 1)",
        ),
    ]
    if cfg.method in ("lora", "qlora"):
        checks += [
            (cfg.lora.r >= 1, f"lora.r={cfg.lora.r}: must be at least 1"),
            (cfg.lora.alpha > 0, f"lora.alpha={cfg.lora.alpha}: must be positive"),
            (0 <= cfg.lora.dropout < 1, f"lora.dropout={cfg.lora.dropout}: must be in [0, 1)"),
            (bool(cfg.lora.target_modules), "lora.target_modules is empty"),
        ]
    if cfg.init_adapter:
        checks += [
            (cfg.task == "editor" and cfg.method in ("lora", "qlora"),
             f"init_adapter needs task=editor with method=lora or qlora, not {cfg.task}/{cfg.method}"),
            ((Path(cfg.init_adapter).expanduser() / "adapter_config.json").is_file(),
             f"init_adapter={cfg.init_adapter!r}: not an adapter folder (no adapter_config.json)"),
        ]  # fmt: skip
    for ok, message in checks:
        if not ok:
            raise UsageError(message)
    if cfg.device:
        try:
            check_device_name(cfg.device)
        except ValueError:
            raise UsageError(
                f"device={cfg.device!r}: give {DEVICE_FORMS}, or leave it empty for a GPU "
                "where there is one"
            ) from None
    for key in ("train_file", "validation_file"):
        _check_data(cfg, key)


def data_files(spec: str, key: str = "data.train_file") -> list[str]:
    """The files of a checker's ``data.train_file`` or ``data.validation_file`` (``key``):
    comma-separated files or globs, in order."""
    files: list[str] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        found = sorted(glob.glob(part)) if any(c in part for c in "*?[") else [part]
        if not found:
            raise UsageError(f"{key}: {part!r} matches no file")
        files += found
    return files


def _check_data(cfg: TrainConfig, key: str) -> None:
    """A data file the run would read is there and is a file (a checker's setting may name
    several, or globs); else refused, as the run would refuse it once its model had loaded."""
    spec = getattr(cfg.data, key)
    if not spec:
        return
    for name in data_files(spec, f"data.{key}") if cfg.task == "checker" else [spec]:
        path = Path(name)
        if not path.exists():
            raise UsageError(f"data.{key}: {name}: no such file")
        if path.is_dir():
            raise UsageError(f"data.{key}: {name} is a folder: give a JSONL file")
        refuse_measuring_set(path)  # refused by --dry-run too, not once the model has loaded


def presets() -> list[str]:
    return list_presets(files("favakit.training") / "presets")


def load_train_config(
    source: str | None, overrides: list[str] | tuple[str, ...] = ()
) -> TrainConfig:
    """A preset name or YAML file, then ``key.sub=value`` overrides, type-checked."""
    return load_config(
        TrainConfig, source, list(overrides), presets=files("favakit.training") / "presets"
    )
