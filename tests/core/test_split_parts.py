"""Writes of gigabytes into favakit's cache check the disk's room first, and a disk that fills
on the way leaves no partial file behind: a clear error in place of an OSError after minutes."""

from __future__ import annotations

import errno
import hashlib
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest

from favakit.errors import UsageError
from favakit.split_parts import join_checked, removed_if_the_disk_fills, require_free_space


class _Usage(NamedTuple):
    total: int
    used: int
    free: int


def test_a_join_the_disk_has_no_room_for_is_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    part = tmp_path / "part.bin"
    part.write_bytes(b"x" * 1000)
    target = tmp_path / "cache" / "whole.bin"
    sha = hashlib.sha256(b"x" * 1000).hexdigest()
    monkeypatch.setattr(shutil, "disk_usage", lambda path: _Usage(10**9, 10**9, 10**6))
    with pytest.raises(UsageError, match=r"joining toy's parts needs about 1 MB free in .*"
                       r"; 1 MB free there: .*FAVAKIT_CACHE"):  # fmt: skip
        join_checked([part], target, 1000, sha, "toy")
    assert not list((tmp_path / "cache").iterdir())  # nothing written
    monkeypatch.undo()
    assert join_checked([part], target, 1000, sha, "toy").read_bytes() == b"x" * 1000
    require_free_space(tmp_path / "not" / "made" / "yet", 1000, "a write")  # its parent's disk


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_write_that_fills_the_disk_removes_what_it_wrote(tmp_path: Path, kind: str) -> None:
    partial = tmp_path / "partial"
    said = r"converting toy once needs about 2\.0 GB free"
    with (
        pytest.raises(UsageError, match=said),
        removed_if_the_disk_fills(partial, 2 * 10**9, "converting toy once"),
    ):
        if kind == "file":
            partial.write_bytes(b"half")
        else:
            (partial / "sub").mkdir(parents=True)
            (partial / "sub" / "model.safetensors").write_bytes(b"half")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert not partial.exists()
    # any other error passes through, and what was written is left alone
    with pytest.raises(PermissionError), removed_if_the_disk_fills(partial, 1, "x"):
        partial.write_bytes(b"kept")
        raise PermissionError(errno.EACCES, "denied")
    assert partial.exists()
