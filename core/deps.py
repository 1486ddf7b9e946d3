"""Optional-dependency guards: one clear error naming the extra to install."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from favakit.errors import MissingDependencyError

__all__ = [
    "CPU_TORCH",
    "bf16_native",
    "bf16_wanted",
    "cpu_has_bf16",
    "cuda_available",
    "is_available",
    "missing_dependency",
    "quiet_library_warnings",
    "require",
]

# import name -> distribution name, where they differ
_DIST = {"faiss": "faiss-cpu", "yaml": "pyyaml", "sklearn": "scikit-learn"}
#: the extras that depend on torch
_TORCH_EXTRAS = frozenset({"train", "all"})
#: PyTorch's own index of CPU builds
CPU_TORCH = "pip install torch --index-url https://download.pytorch.org/whl/cpu"


def is_available(module: str) -> bool:
    """True when ``module`` can be imported (checked without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def cuda_available() -> bool:
    """True when torch is installed and sees a CUDA GPU (torch is imported only if installed)."""
    if not is_available("torch"):
        return False
    import torch

    return bool(torch.cuda.is_available())


def cpu_has_bf16() -> bool:
    """True where the CPU multiplies bf16 natively (AVX512-BF16 or AMX): bf16 autocast is then
    faster than fp32 (elsewhere it is emulated and slower)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            flags = fh.read()
    except OSError:
        return False
    return any(f in flags.split() for f in ("avx512_bf16", "amx_bf16"))


def bf16_native(device: str) -> bool:
    """Whether ``device`` ("cpu", "cuda", "cuda:N", ...) multiplies bf16 natively: a CUDA GPU
    that supports it, or a CPU with :func:`cpu_has_bf16`; what ``precision: auto`` decides by."""
    if device.startswith("cuda"):
        import torch

        return bool(torch.cuda.is_bf16_supported())
    return device == "cpu" and cpu_has_bf16()


def bf16_wanted(precision: str, device: str) -> bool:
    """``precision`` (``auto``, ``bf16`` or ``fp32``) on ``device``: bf16 when asked for, or
    ``auto`` where the device has it natively (:func:`bf16_native`)."""
    return precision == "bf16" or (precision == "auto" and bf16_native(device))


def require(module: str, extra: str, purpose: str = "") -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming ``favakit[extra]``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise _missing(module, extra, purpose, exc) from exc


def missing_dependency(
    exc: ModuleNotFoundError, purpose: str = ""
) -> MissingDependencyError | None:
    """The error :func:`require` would have raised for an import of an optional package that
    failed where no guard asked first (``numpy`` in a base install), else None: a module that
    is no extra's is a bug to show, not a package to install."""
    root = (exc.name or "").split(".")[0]
    extra = _extra_of(root)
    return None if extra is None else _missing(root, extra, purpose, exc)


def _extra_of(module: str) -> str | None:
    """The first extra of the installed favakit's metadata (pyproject.toml's
    optional-dependencies) that brings the package imported as ``module``, else None."""
    from importlib.metadata import PackageNotFoundError, metadata, requires

    from packaging.requirements import Requirement

    try:
        reqs = [Requirement(r) for r in requires("favakit") or []]
        extras = metadata("favakit").get_all("Provides-Extra") or []
    except PackageNotFoundError:
        return None
    imported_as = {dist: name for name, dist in _DIST.items()}
    for req in reqs:
        if req.marker is None or req.name == "favakit":  # `all` names favakit's other extras
            continue
        if imported_as.get(req.name, req.name.replace("-", "_")) != module:
            continue
        return next((e for e in extras if req.marker.evaluate({"extra": e})), None)
    return None


def _missing(module: str, extra: str, purpose: str, exc: ImportError) -> MissingDependencyError:
    what = f"{purpose} needs" if purpose else "this needs"
    dist = _DIST.get(module.split(".")[0], module.split(".")[0])
    # the extra would pull torch, whose plain requirement is a multi-GB CUDA build
    cpu = (f" (without a GPU, install the CPU build of torch first: {CPU_TORCH})"
           if extra in _TORCH_EXTRAS and not is_available("torch") else "")  # fmt: skip
    return MissingDependencyError(
        f"{what} the package {dist!r}, which is not installed ({exc}); "
        f"install it with: pip install 'favakit[{extra}]'{cpu}"
    )


def quiet_library_warnings() -> None:
    """Silence library warnings that favakit's users cannot act on (they name library internals
    that favakit does not call itself), such as transformers' FutureWarning about
    ``is_gradient_checkpointing`` that PEFT triggers on every adapter load."""
    import warnings

    warnings.filterwarnings(
        "ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning
    )
