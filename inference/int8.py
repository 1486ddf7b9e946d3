"""Int8 copies of fully fine-tuned encoders, small enough to ship as package data.

:func:`pack_int8` stores every weight matrix of at least ``min_size`` entries as int8 with one
fp32 scale per row (symmetric, round to nearest) and everything else as it is: MiniLM goes from
90 MB to 23 MB. :func:`load_int8` dequantizes such a file to an fp32 state dict (the detector and
the checker load it that way), and :func:`unpack_int8` writes a plain fp32 folder that
transformers' ``from_pretrained`` reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from favakit.deps import require
from favakit.errors import UsageError
from favakit.records import model_output_folder

__all__ = ["INT8_WEIGHTS", "load_int8", "pack_int8", "round_int8", "unpack_int8"]

INT8_WEIGHTS = "model.int8.safetensors"
_SCALE = ".__scale__"


def pack_int8(
    folder: str | Path, out: str | Path, config_name: str, min_size: int = 65_536
) -> dict[str, Any]:
    """Write ``folder``'s model to ``out`` in int8 (see the module), with the other files of the
    folder; ``config_name`` (favakit's own description of the model) gains ``"weights":
    "int8"``."""
    torch = require("torch", "train", "packing a model in int8")
    from safetensors.torch import load_file, save_file

    src = Path(folder)
    weights = src / "model.safetensors"
    if not weights.exists():
        packed_already = " (it is packed already)" if (src / INT8_WEIGHTS).exists() else ""
        raise UsageError(
            f"{src}: no model.safetensors (pack a fully fine-tuned model){packed_already}"
        )
    if not (src / config_name).exists():
        raise UsageError(f"{src}: no {config_name}; is this the right kind of model folder?")
    dst = model_output_folder(out, src)
    packed: dict[str, Any] = {}
    for name, w in load_file(str(weights)).items():
        if _packed(w, min_size):
            packed[name], packed[name + _SCALE] = _quantize(torch, w)
        else:
            packed[name] = w.contiguous()
    save_file(packed, str(dst / INT8_WEIGHTS), metadata={"format": "favakit-int8/1"})
    for item in src.iterdir():
        if item.is_file() and item.name not in ("model.safetensors", config_name):
            (dst / item.name).write_bytes(item.read_bytes())
    meta = json.loads((src / config_name).read_text())
    meta["weights"] = "int8"
    (dst / config_name).write_text(json.dumps(meta, indent=1) + "\n")
    return {"from_mb": round(weights.stat().st_size / 2**20, 1),
            "to_mb": round((dst / INT8_WEIGHTS).stat().st_size / 2**20, 1), "out": str(dst)}  # fmt: skip


def _packed(w: Any, min_size: int) -> bool:
    return bool(w.is_floating_point() and w.ndim == 2 and w.numel() >= min_size)


def _quantize(torch: Any, w: Any) -> tuple[Any, Any]:
    """int8 values and one fp32 scale per row (symmetric, round to nearest)."""
    scale = (w.abs().amax(dim=1, keepdim=True) / 127).clamp(min=1e-12).float()
    return (w / scale).round().clamp(-127, 127).to(torch.int8), scale


def round_int8(state: dict[str, Any], min_size: int = 65_536) -> dict[str, Any]:
    """``state`` with the weights :func:`pack_int8` would store in int8 rounded as it rounds
    them (back in fp32): what a model trained from a packed copy of a base saw, applied to the
    base itself (a checker adapter over ``base_rounding: int8``)."""
    torch = require("torch", "train", "rounding a model's weights")
    out: dict[str, Any] = {}
    for name, w in state.items():
        if _packed(w, min_size):
            q, scale = _quantize(torch, w.float())
            out[name] = (q.float() * scale).to(w.dtype)
        else:
            out[name] = w
    return out


def load_int8(path: str | Path) -> dict[str, Any]:
    """The state dict of :func:`pack_int8`'s file, dequantized to fp32."""
    from safetensors.torch import load_file

    raw = load_file(str(path))
    return {
        name: (t.float() * raw[name + _SCALE]) if name + _SCALE in raw else t
        for name, t in raw.items()
        if not name.endswith(_SCALE)
    }


def unpack_int8(folder: str | Path, out: str | Path) -> str:
    """A copy of a packed folder with its weights dequantized to a plain fp32
    ``model.safetensors``, which ``transformers``' ``from_pretrained`` loads. Returns ``out``."""
    require("torch", "train", "unpacking an int8 model")
    from safetensors.torch import save_file

    src = Path(folder)
    if not (src / INT8_WEIGHTS).exists():
        raise UsageError(f"{src}: no {INT8_WEIGHTS}; it is not a packed model")
    dst = model_output_folder(out, src)
    state = {k: v.contiguous() for k, v in load_int8(src / INT8_WEIGHTS).items()}
    save_file(state, str(dst / "model.safetensors"), metadata={"format": "pt"})
    for item in src.iterdir():
        if item.is_file() and item.name != INT8_WEIGHTS:
            (dst / item.name).write_bytes(item.read_bytes())
    return str(dst)
