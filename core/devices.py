"""Where a model runs: the names ``--device`` (and ``ClientSpec.device``, training's ``device``)
take, and the one place a model's device is chosen and checked.

:func:`check_device_name` reads a name without importing torch, so the command line refuses a
misspelt ``--device`` before anything loads; :func:`torch_device` is what every model loader
calls: no name means a CUDA GPU where torch sees one, else the CPU, and a named device this
PyTorch cannot use is refused in one line, not a traceback from inside torch.
"""

from __future__ import annotations

import re

from favakit.errors import UsageError

__all__ = ["DEVICE_FORMS", "check_device_name", "torch_device"]

#: what a device name may be, for messages
DEVICE_FORMS = "cpu, cuda, cuda:N, mps, xpu or xpu:N"
_NAME = re.compile(r"(cpu|mps|(cuda|xpu)(:\d+)?)")


def check_device_name(name: str) -> str:
    """``name`` when it is a device name (:data:`DEVICE_FORMS`); else ``ValueError``. Whether
    this machine has that device is :func:`torch_device`'s question."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a device: give {DEVICE_FORMS}")
    return name


def torch_device(device: str | None) -> str:
    """The device a model loads on: ``device`` when this PyTorch can use it (``UsageError``
    saying why not, else), or with none named (None or ""), ``cuda`` where torch sees a GPU and
    ``cpu`` elsewhere."""
    import torch

    if not device:
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        check_device_name(device)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    kind, _, index = device.partition(":")
    if kind == "cpu":
        return device
    backend = getattr(torch, kind) if kind in ("cuda", "xpu") else torch.backends.mps
    if not backend.is_available():
        raise UsageError(
            f"device {device!r}: this PyTorch ({torch.__version__}) cannot use {kind} here; "
            "leave the device out (a GPU where there is one, else the CPU) or give cpu"
        )
    count = backend.device_count() if kind != "mps" else 1
    if index and int(index) >= count:
        raise UsageError(
            f"device {device!r}: this machine has {count} {kind} device(s), numbered from 0"
        )
    return device
