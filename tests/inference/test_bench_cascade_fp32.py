"""scripts/bench_cascade_fp32.py on made-up verdicts: the development rows inside a band, each
band's development mean with the judge deciding inside it, the speed expected from the speed
claims that fall inside it, and the best band only where it keeps the speed and gains."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_cascade_fp32.py"
THRESHOLD = 0.5


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _files(tmp_path: Path) -> dict[str, Path]:
    """100 development rows of two sources, the checker's score of row i being i/100. The
    checker is wrong on the rows scored 0.46-0.54; the judge scored only those from 0.47 to
    0.53, and is right on them."""
    rows, checker, judge = [], [], []
    for i in range(100):
        score = i / 100
        wrong = 0.46 <= score <= 0.54
        supported = (score > THRESHOLD) != wrong
        rows.append({"id": f"r{i}", "source": "ab"[i % 2], "text": "t", "evidence": ["e"],
                     "label": "supported" if supported else "not_supported"})  # fmt: skip
        checker.append({"id": f"r{i}", "score": score, "supported": score > THRESHOLD})
        if 0.47 <= score <= 0.53:
            judge.append({"id": f"r{i}", "score": 0.5, "supported": supported == wrong})
    speed = [{"id": f"s{i}", "score": s, "supported": s > THRESHOLD}
             for i, s in enumerate([0.5, 0.02, 0.98, 0.01, 0.99, 0.03, 0.97, 0.04, 0.96, 0.6])]  # fmt: skip
    folder = tmp_path / "checker"
    folder.mkdir()
    (folder / "checker.json").write_text(json.dumps({"threshold": THRESHOLD}))
    return {
        "rows": _write(tmp_path / "dev_rows.jsonl", rows),
        "checker": _write(tmp_path / "dev_checker.jsonl", checker),
        "judge": _write(tmp_path / "dev_judge.jsonl", judge),
        "speed": _write(tmp_path / "speed.jsonl", speed),
        "folder": folder,
    }


def _run(files: dict[str, Path], out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    base = ["--dev-rows", str(files["rows"]), "--dev-checker", str(files["checker"]),
            "--checker", str(files["folder"]), "--out", str(out)]  # fmt: skip
    return subprocess.run([sys.executable, str(SCRIPT), *base, *args], capture_output=True,
                          text=True, timeout=120)  # fmt: skip


def test_the_rows_a_band_holds_are_those_nearest_the_threshold(tmp_path: Path) -> None:
    files = _files(tmp_path)
    out = tmp_path / "band.jsonl"
    done = _run(files, out, "--rows-for", "0.05")
    assert done.returncode == 0, done.stderr
    ids = {json.loads(line)["id"] for line in out.read_text().splitlines()}
    assert {"r48", "r49", "r50", "r51", "r52"} <= ids
    assert all(abs(int(i[1:]) / 100 - THRESHOLD) <= 0.03 + 1e-9 for i in ids)


def test_the_best_band_keeps_the_speed_and_beats_the_checker_alone(tmp_path: Path) -> None:
    files = _files(tmp_path)
    out = tmp_path / "report.json"
    speed = ["--dev-judge", str(files["judge"]), "--speed-checker", str(files["speed"])]
    done = _run(files, out, *speed, "--checker-seconds", "0.1", "--judge-seconds", "1.0")
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    shares = report["shares"]
    # a band is reported only while the judge has scored every development row inside it
    assert 0 < len(shares) < 10
    assert all(low >= 0.47 and high <= 0.53 for low, high in (r["band"] for r in shares))
    means = [r["dev_mean_balanced_accuracy"] for r in shares]
    assert means == sorted(means) and means[-1] > report["checker_alone_dev_mean"]
    for r in shares:  # the speed claims inside the band, counted
        low, high = r["band"]
        asked = sum(low <= s <= high for s in (0.5, 0.02, 0.98, 0.01, 0.99, 0.03, 0.97, 0.04,
                                                0.96, 0.6)) / 10  # fmt: skip
        assert r["speed_claims_asked"] == asked
        assert r["expected_claims_per_s"] == round(1 / (0.1 + asked), 3)
    best = report["best"]
    assert best["dev_mean_balanced_accuracy"] == max(means)
    assert best["share"] == min(r["share"] for r in shares if r["dev_mean_balanced_accuracy"]
                                == max(means))  # fmt: skip
    # a judge too slow to keep 1.1 claims/s in any band: none is named
    done = _run(files, out, *speed, "--checker-seconds", "0.1", "--judge-seconds", "20")
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["best"] is None
    assert "null" in done.stdout
