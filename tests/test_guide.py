"""docs/guide.md's checked command blocks, run as a user would and held to what the guide shows.

A ```bash block after a ``<!-- doc-test -->`` line runs line by line in one shell, in a folder
holding ``examples/`` and what `make demo` leaves in ``runs/demo`` (its knowledge source and BM25
index). Every line must exit 0; a ``# => TEXT`` comment is what the line prints on stdout,
compared without whitespace, ``...`` standing for any text. Lines that need a GPU, a server or
``../shared`` stay in unchecked blocks.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide.md"
EXPECT = " # => "


def checked_blocks(text: str) -> list[str]:
    """The bodies of the ```bash blocks that a ``<!-- doc-test -->`` line marks."""
    return re.findall(r"<!-- doc-test -->\n```bash\n(.*?)```", text, re.S)


def logical_lines(block: str) -> list[str]:
    """The block's commands, a backslash-continued command joined into one line."""
    lines: list[str] = []
    pending = ""
    for raw in block.splitlines():
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        lines.append(pending + raw)
        pending = ""
    return [line for line in lines if line.strip()]


def expected_output(line: str) -> str | None:
    return line.split(EXPECT, 1)[1].strip() if EXPECT in line else None


def matches(expected: str, got: str) -> bool:
    """``got`` is ``expected`` with whitespace ignored and ``...`` standing for any text."""
    squeeze = re.compile(r"\s+")
    pattern = ".*".join(re.escape(squeeze.sub("", part)) for part in expected.split("..."))
    return re.fullmatch(pattern, squeeze.sub("", got), re.S) is not None


def test_expected_output_matching() -> None:
    assert matches('[{"a": 1, ...}]', '[\n  {\n    "a": 1,\n    "b": 2\n  }\n]')
    assert not matches('[{"a": 1, ...}]', '[{"a": 2, "b": 1}]')
    assert matches("x ...", "x") and not matches("x", "x y")
    assert matches("in 1867. ...", "in 1867. More.") and not matches("in 1867. ...", "in 1867")


def test_the_guide_checks_its_runnable_blocks() -> None:
    blocks = checked_blocks(GUIDE.read_text(encoding="utf-8"))
    assert len(blocks) >= 4
    commands = [line for b in blocks for line in logical_lines(b)]
    assert sum(expected_output(c) is not None for c in commands) >= 10
    for needed in ("tags strip", "kb build", "search", "synth run", "edit --backend encoder"):
        assert any(needed in c for c in commands), needed


@pytest.fixture(scope="module")
def user_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/ and the demo's runs/demo/kb.db and runs/demo/bm25 (built here, no model)."""
    from importlib.resources import files

    from favakit.retrieval.index import build_index
    from favakit.retrieval.kb import build_kb

    root = tmp_path_factory.mktemp("guide")
    shutil.copytree(ROOT / "examples", root / "examples")
    demo = root / "runs" / "demo"
    demo.mkdir(parents=True)
    build_kb(Path(str(files("favakit.demo") / "kb.jsonl")), demo / "kb.db")
    build_index(demo / "kb.db", demo / "bm25", kind="bm25")
    return root


@pytest.mark.slow
@pytest.mark.parametrize("n", range(len(checked_blocks(GUIDE.read_text(encoding="utf-8")))))
def test_guide_block_prints_what_the_guide_shows(n: int, user_folder: Path) -> None:
    lines = logical_lines(checked_blocks(GUIDE.read_text(encoding="utf-8"))[n])
    logs = user_folder / f".block{n}"
    logs.mkdir()
    # one shell, so that a variable set on one line is there on the next; each line's output
    # and exit status kept apart
    script = "".join(
        f"{{ {line}\n}} >{logs}/out{i} 2>{logs}/err{i}; echo $? >{logs}/rc{i}\n"
        for i, line in enumerate(lines)
    )
    bin_dir = str(Path(sys.executable).parent)  # the venv's favakit
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    done = subprocess.run(
        ["bash", "-c", script], cwd=user_folder, env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for i, line in enumerate(lines):
        rc = (logs / f"rc{i}").read_text().strip()
        err = (logs / f"err{i}").read_text()
        assert rc == "0", (line, err[-2000:])
        assert "Traceback" not in err, (line, err[-2000:])
        expected = expected_output(line)
        got = (logs / f"out{i}").read_text()
        if expected is not None:
            assert matches(expected, got), (line, got[:2000])
