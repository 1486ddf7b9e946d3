"""scripts/fix_doubts.py on small files: the rows it asks the judge about are the development
rows the checker scores under the cascade's band with no rule's finding (every supported one, a
seeded sample of the unsupported ones that does not move when a row joins), and the report
counts, per label and threshold, the rows the judge calls supported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fix_doubts.py"
RULE = "year contradicted: the text says 1971 where ...; P(supported) at most 0.02"


def _run(*args: object) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_sample_then_report(tmp_path: Path) -> None:
    labels = {"s1": "supported", "s2": "supported", "s3": "supported", "rule": "supported"}
    labels |= {f"u{i}": "not_supported" for i in range(10)}
    rows = _write(tmp_path / "dev_rows.jsonl",
                  [{"id": i, "source": "fever", "text": i, "evidence": ["e"], "label": label}
                   for i, label in labels.items()])  # fmt: skip
    scores = {"s1": 0.001, "s2": 0.01, "s3": 0.5, "rule": 0.002} | {
        f"u{i}": 0.003 for i in range(10)
    }
    verdicts = _write(tmp_path / "checker.jsonl",
                      [{"id": i, "score": p, "warnings": [RULE] if i == "rule" else []}
                       for i, p in scores.items()])  # fmt: skip
    asked = tmp_path / "asked.jsonl"
    meta = json.loads(_run("sample", "--rows", rows, "--scores", verdicts, "--checker", "mpnet",
                           "--unsupported", 4, "--out", asked))  # fmt: skip
    # s3 is above the band (0.022, the mpnet checker's), "rule" capped by a rule
    assert meta == {"band_low": 0.022, "supported": 2, "unsupported": 10, "unsupported_asked": 4,
                    "seed": 56}  # fmt: skip
    picked = [json.loads(line)["id"] for line in asked.open()]
    assert picked[:2] == ["s1", "s2"] and len(picked) == 6
    # one more unsupported row: those sampled before stay sampled, but where the new one sorts in
    _write(verdicts, [*map(json.loads, verdicts.open()), {"id": "u10", "score": 0.0}])
    _write(rows, [*map(json.loads, rows.open()), {"id": "u10", "label": "not_supported"}])
    again = tmp_path / "again.jsonl"
    _run("sample", "--rows", rows, "--scores", verdicts, "--unsupported", 4, "--out", again)
    repicked = [json.loads(line)["id"] for line in again.open()]
    assert len(set(picked[2:]) - set(repicked)) <= 1
    judge = _write(tmp_path / "judge.jsonl",
                   [{"id": i, "score": {"s1": 0.9, "s2": 0.1}.get(i, 0.3 if i == picked[2] else 0.0)}
                    for i in picked])  # fmt: skip
    report = json.loads(_run("report", "--rows", rows, "--asked", asked, "--judge", judge,
                             "--thresholds", 0.05, 0.5))  # fmt: skip
    assert report["judged"] == 6
    assert report["thresholds"]["0.05"] == {
        "supported_called_supported": "2/2", "unsupported_called_supported": "1/4",
        "unsupported_estimated_of_all": 2.5,
    }  # fmt: skip
    assert report["thresholds"]["0.5"]["supported_called_supported"] == "1/2"
    assert report["thresholds"]["0.5"]["unsupported_called_supported"] == "0/4"
