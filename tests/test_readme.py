"""The README's Python examples, run as a user would and held to the output the README shows.

Each ```python block of the README's "Python" section runs in a fresh interpreter; the ```text
block after it is what it must print. The examples use the shipped encoder detector and the
shipped MiniLM checker (package data: no base to install)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def python_examples() -> list[tuple[str, str]]:
    """(code, expected output) of each example of the README's "Python" section."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    pairs = re.findall(r"```python\n(.*?)```\s*```text\n(.*?)```", section, re.S)
    return [(code, out) for code, out in pairs]


def test_the_python_section_opens_with_an_editor_and_a_verifier() -> None:
    examples = python_examples()
    assert len(examples) == 2
    assert "open_editor(" in examples[0][0] and "open_verifier(" in examples[1][0]
    # short: the import, the model, the input, the call
    assert all(len([x for x in code.splitlines() if x.strip()]) <= 4 for code, _ in examples)


def _same(got: str, expected: str) -> bool:
    """Equal text, or equal Python literals with floats within 2e-3 (a score printed to four
    places may move in its last place on another CPU)."""
    if got == expected:
        return True
    try:
        a, b = ast.literal_eval(got.strip()), ast.literal_eval(expected.strip())
    except (ValueError, SyntaxError):
        return False
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        return all(abs(a[k] - b[k]) <= 2e-3 if isinstance(b[k], float) else a[k] == b[k] for k in b)
    return False


@pytest.mark.slow
@pytest.mark.parametrize("n", [0, 1], ids=["editor", "verifier"])
def test_readme_python_example_prints_what_the_readme_shows(n: int, tmp_path: Path) -> None:
    code, expected = python_examples()[n]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=tmp_path,
        env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert _same(done.stdout, expected), done.stdout


def shell_examples() -> list[tuple[str, str]]:
    """(command, expected stdout) of each README ```bash block of one command that a ```text
    block follows: what the README says the command prints."""
    text = README.read_text(encoding="utf-8")
    pairs = re.findall(r"```bash\n([^\n]+)\n```\s*```text\n(.*?)```", text, re.S)
    return [(cmd, out) for cmd, out in pairs]


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding what `make demo` leaves for the README's commands: runs/demo/kb.db and
    runs/demo/bm25 (built here from the demo's passages; no model needed)."""
    from importlib.resources import files

    from favakit.retrieval.index import build_index
    from favakit.retrieval.kb import build_kb

    root = tmp_path_factory.mktemp("readme")
    demo = root / "runs" / "demo"
    demo.mkdir(parents=True)
    build_kb(Path(str(files("favakit.demo") / "kb.jsonl")), demo / "kb.db")
    build_index(demo / "kb.db", demo / "bm25", kind="bm25")
    return root


def test_the_readme_shows_its_commands_outputs() -> None:
    commands = [cmd for cmd, _ in shell_examples()]
    assert len(commands) >= 3 and all(cmd.startswith("favakit ") for cmd in commands)
    assert any("--evidence" in c for c in commands) and any("--kb" in c for c in commands)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(len(shell_examples())))
def test_readme_command_prints_what_the_readme_shows(n: int, demo_folder: Path) -> None:
    import shlex

    command, expected = shell_examples()[n]
    bin_dir = str(Path(sys.executable).parent)  # the venv's favakit
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    done = subprocess.run(
        shlex.split(command), capture_output=True, text=True, timeout=600, cwd=demo_folder, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.rstrip() == expected.rstrip(), (command, done.stdout)
