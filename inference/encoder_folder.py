"""Loading a fine-tuned encoder folder (the checker's, the detector's) in any of the forms
favakit writes: int8 package data (:mod:`favakit.inference.int8`), a LoRA adapter over the base
its favakit config names, or a plain transformers folder."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from favakit.deps import require
from favakit.errors import UsageError
from favakit.inference.int8 import INT8_WEIGHTS, load_int8, round_int8

__all__ = ["load_encoder_model"]


def load_encoder_model(
    auto_class: Any, folder: Path, base: str = "", base_rounding: str = "", **head: Any
) -> Any:
    """The model in ``folder``, built by ``auto_class`` (e.g. transformers'
    ``AutoModelForSequenceClassification``). An adapter folder (``adapter_config.json``) is
    merged into its ``base`` (an encoder preset such as ``mpnet``, or a folder; ``head``: the
    classifier's arguments, e.g. ``num_labels``), first rounded as
    :func:`~favakit.inference.int8.pack_int8` stores weights when ``base_rounding`` is
    ``"int8"``, as it was in training."""
    transformers = require("transformers", "train", "loading an encoder")
    if (folder / INT8_WEIGHTS).exists():  # shipped package data
        model = auto_class.from_config(transformers.AutoConfig.from_pretrained(str(folder)))
        model.load_state_dict(load_int8(folder / INT8_WEIGHTS), strict=True)
        return model
    if not (folder / "adapter_config.json").exists():
        return auto_class.from_pretrained(str(folder))
    peft = require("peft", "train", "a LoRA encoder")
    from favakit.retrieval.encoder import resolve_encoder

    base_dir = resolve_encoder(base).model
    try:
        model = auto_class.from_pretrained(base_dir, **head)
    except OSError as exc:
        raise UsageError(f"{folder}: cannot load its base {base_dir!r}: {exc}") from None
    if base_rounding:
        if base_rounding != "int8":
            raise UsageError(f"{folder}: unknown base_rounding {base_rounding!r}")
        model.load_state_dict(round_int8(model.state_dict()))
    with warnings.catch_warnings():  # peft's merge calls a deprecated transformers name
        warnings.simplefilter("ignore", FutureWarning)
        return peft.PeftModel.from_pretrained(model, str(folder)).merge_and_unload()
