"""scripts/editor_mix.py: a seeded sample of each file, shuffled together; colliding ids and
measuring-only folders are refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "editor_mix.py"


def _rows(path: Path, prefix: str, n: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(
        json.dumps({"id": f"{prefix}-{i}", "prompt": "p", "completion": "c",
                    "error_types": ["entity"] if i % 2 else []}) + "\n"
        for i in range(n)
    ))  # fmt: skip
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=60)  # fmt: skip


def test_mix_samples_each_file_and_is_seeded(tmp_path: Path) -> None:
    real, synth = _rows(tmp_path / "real.jsonl", "r", 10), _rows(tmp_path / "syn.jsonl", "s", 4)
    outs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.jsonl"
        run = _run(
            "--real", str(real), "--synthetic", str(synth), "--per-file", "6", "--out", str(out)
        )
        assert run.returncode == 0, run.stderr
        outs.append([json.loads(line)["id"] for line in out.read_text().splitlines()])
    assert outs[0] == outs[1]  # the same seed, the same file
    ids = outs[0]
    assert len(ids) == 10 and len(set(ids)) == 10
    assert sum(i.startswith("r-") for i in ids) == 6 and sum(i.startswith("s-") for i in ids) == 4
    assert ids != sorted(ids, key=lambda i: (i[0], int(i[2:])))  # shuffled together
    assert json.loads(run.stdout)["per_type"] == {
        "entity": sum(int(i[2:]) % 2 for i in ids), "none": sum(1 - int(i[2:]) % 2 for i in ids)
    }  # fmt: skip


def test_mix_refuses_colliding_ids_and_measuring_sets(tmp_path: Path) -> None:
    a, b = _rows(tmp_path / "a.jsonl", "x", 3), _rows(tmp_path / "b.jsonl", "x", 3)
    run = _run("--real", str(a), "--synthetic", str(b), "--out", str(tmp_path / "o.jsonl"))
    assert run.returncode != 0 and "more than one file" in run.stderr
    evals = _rows(tmp_path / "eval" / "fm2_test.jsonl", "e", 3)
    run = _run("--real", str(evals), "--synthetic", str(a), "--out", str(tmp_path / "o.jsonl"))
    assert run.returncode != 0 and "Traceback" not in run.stderr and "eval" in run.stderr
    assert not (tmp_path / "o.jsonl").exists()
