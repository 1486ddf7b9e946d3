"""Detection metrics on hand-computed cases."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from favakit.errors import UsageError
from favakit.eval.detect import Annotated, annotated_from_row, detection_report, prf

# three sentences: [0, 20) [21, 41) [42, 56)
TEXT = "Curie won in 1921. Curie was a cook. It is good."


def _spans(*edits: tuple[str, str, str]) -> Annotated:
    """Edits given by (type, wrong, right), located in TEXT by their first occurrence."""
    out = []
    for t, wrong, right in edits:
        start = TEXT.index(wrong)
        out.append((t, start, start + len(wrong), right))
    return Annotated(TEXT, out)


def test_prf_arithmetic_and_zero_division() -> None:
    assert prf(2, 1, 1) == {"precision": 0.6667, "recall": 0.6667, "f1": 0.6667}
    assert prf(0, 0, 3) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert prf(1, 0, 0) == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_sentence_level_per_type_binary_and_macro() -> None:
    gold = _spans(
        ("entity", "1921", "1911"),
        ("relation", "cook", "chemist"),
        ("subjective", "It is good.", ""),
    )
    # right sentence for entity (wrong fix), relation missed, a false subjective in sentence 2
    pred = _spans(("entity", "1921", "1903"), ("subjective", "was a cook", ""))
    r = detection_report([(gold, pred)])
    assert r["n"] == 1 and r["sentences"] == 3
    assert r["per_type"]["entity"] == {
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
        "support": 1,
        "predicted": 1,
    }
    assert r["per_type"]["relation"]["recall"] == 0.0 and r["per_type"]["relation"]["support"] == 1
    # subjective: gold in sentence 3, predicted in sentence 2 -> tp 0, fp 1, fn 1
    assert r["per_type"]["subjective"] == {
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
        "support": 1,
        "predicted": 1,
    }
    # binary: sentences 1 and 2 flagged in both, sentence 3 only in gold -> P 1, R 2/3
    assert r["binary"]["precision"] == 1.0 and r["binary"]["recall"] == 0.6667
    assert r["macro_f1"] == round(1.0 / 6, 4)  # only entity scores
    # edit accuracy: one matched entity edit, wrong replacement
    assert r["edit_accuracy"] == {"accuracy": 0.0, "matched_edits": 1}


def test_span_level_by_character_overlap() -> None:
    gold = _spans(("entity", "Curie won in 1921", "x"))  # 17 characters
    pred = _spans(("entity", "1921", "x"), ("invented", "cook", ""))
    span = detection_report([(gold, pred)])["span"]
    assert span["per_type"]["entity"]["precision"] == 1.0
    assert span["per_type"]["entity"]["recall"] == round(4 / 17, 4)
    assert span["per_type"]["invented"]["precision"] == 0.0
    assert span["micro"]["precision"] == 0.5  # 4 of 8 predicted characters are right


def test_predictions_on_a_differently_spaced_text_are_mapped() -> None:
    gold = _spans(("entity", "1921", "1911"))
    spaced = "Curie  won in 1921.  Curie was a cook. It is good."
    start = spaced.index("1921")
    pred = Annotated(spaced, [("entity", start, start + 4, "1911")])
    r = detection_report([(gold, pred)])
    assert r["per_type"]["entity"]["f1"] == 1.0 and r["edit_accuracy"]["accuracy"] == 1.0


def test_row_shapes() -> None:
    fava = annotated_from_row(
        {"prompt": "p", "output": "x", "model": "m",
         "annotated": "Curie won in <entity><delete>1921</delete><mark>1911</mark></entity>."}
    )  # fmt: skip
    assert fava.text == "Curie won in 1921." and fava.edits == [("entity", 13, 17, "1911")]
    assert fava.group == "m"
    result = annotated_from_row(
        {"original": "abc", "edits": [{"type": "entity", "start": 0, "end": 1, "right": "z"}]}
    )
    assert result.edits == [("entity", 0, 1, "z")]
    with pytest.raises(UsageError, match="outside the text"):
        annotated_from_row({"original": "abc", "edits": [{"type": "entity", "start": 2, "end": 9}]})
    with pytest.raises(UsageError, match="expected an edit result"):
        annotated_from_row({"text": "abc"})


def test_cli_matches_by_id_and_writes_markdown(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "pred.jsonl"
    gold.write_text(
        json.dumps({"id": "a", "completion": "It is <entity><delete>red</delete><mark>blue</mark></entity>."}) + "\n"
        + json.dumps({"id": "b", "completion": "Fine text."}) + "\n"
    )  # fmt: skip
    pred.write_text(  # in the other order: matched by id
        json.dumps({"id": "b", "original": "Fine text.", "edits": []}) + "\n"
        + json.dumps({"id": "a", "original": "It is red.", "edits": [{"type": "entity", "start": 6, "end": 9, "wrong": "red", "right": "blue"}]}) + "\n"
    )  # fmt: skip
    out = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "favakit", "eval", "detect", "--gold", str(gold), "--pred", str(pred), "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["n"] == 2 and report["per_type"]["entity"]["f1"] == 1.0
    assert json.loads(out.read_text()) == report
    assert "| entity | 1.000 | 1.000 | 1.000 | 1 |" in out.with_suffix(".md").read_text()
    assert "<table>" in out.with_suffix(".html").read_text() and out.with_suffix(".png").exists()
    pred.write_text(json.dumps({"id": "zz", "original": "x", "edits": []}) + "\n")
    bad = subprocess.run(
        [sys.executable, "-m", "favakit", "eval", "detect", "--gold", str(gold), "--pred", str(pred)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "no prediction for id" in bad.stderr


GOLD_A = {"id": "a", "completion": "It is <entity><delete>red</delete><mark>blue</mark></entity>."}
PRED_A = {"id": "a", "original": "It is red.", "edits": [{"type": "entity", "start": 6, "end": 9}]}


@pytest.mark.parametrize(
    ("gold", "pred", "message"),
    [  # each of these used to give a score: F1 0.5, rows matched by line, F1 1.0, a traceback
        ([GOLD_A], [PRED_A, PRED_A], "id 'a' again"),
        ([GOLD_A, {**GOLD_A, "id": "b"}], [PRED_A, {k: v for k, v in PRED_A.items() if k != "id"}],
         "has no id, others in the file do"),
        ([GOLD_A], [{**PRED_A, "original": "Paris is in France, on the Seine."}], "not the text"),
        ([GOLD_A], [{**PRED_A, "original": 42}], "'original' must be a string"),
    ],
)  # fmt: skip
def test_eval_detect_refuses_what_it_cannot_score(
    tmp_path: Path, gold: list[Any], pred: list[Any], message: str
) -> None:
    from favakit.eval.detect import detect_files

    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gold))
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pred))
    with pytest.raises(UsageError, match=message):
        detect_files(str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"))
    # the same text, spaced or cased differently, or a character changed, is still the text
    near = {**PRED_A, "original": "It  is red. "}
    (tmp_path / "p.jsonl").write_text(json.dumps(near) + "\n")
    (tmp_path / "g.jsonl").write_text(json.dumps(GOLD_A) + "\n")
    assert detect_files(str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"))["n"] == 1


def test_an_out_that_is_a_folder_is_refused_before_the_work(tmp_path: Path) -> None:
    """It ended in IsADirectoryError once the report was made."""
    from favakit.eval.detect import detect_files
    from favakit.records import RecordError

    (tmp_path / "g.jsonl").write_text(json.dumps(GOLD_A) + "\n")
    with pytest.raises(RecordError, match=r"is a folder: the output is a file, such as .*report"):
        detect_files(str(tmp_path / "g.jsonl"), str(tmp_path / "missing.jsonl"), out=str(tmp_path))


def test_an_out_that_is_another_file_is_refused_and_an_earlier_report_replaced(
    tmp_path: Path,
) -> None:
    """`--out train.jsonl` replaced a training file, and `--out notes.json` the user's notes.md."""
    from favakit.eval.detect import detect_files
    from favakit.records import RecordError

    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text(json.dumps(GOLD_A) + "\n")
    pred.write_text(json.dumps(PRED_A) + "\n")
    with pytest.raises(RecordError, match=r"g.jsonl exists and is no detection report"):
        detect_files(str(gold), str(pred), out=str(gold))
    (tmp_path / "notes.md").write_text("# mine\n")
    with pytest.raises(RecordError, match=r"notes.md exists, and the detection report's .md"):
        detect_files(str(gold), str(pred), out=str(tmp_path / "notes.json"))
    with pytest.raises(RecordError, match=r"names the .html file written beside"):
        detect_files(str(gold), str(pred), out=str(tmp_path / "r.html"))
    assert (tmp_path / "notes.md").read_text() == "# mine\n" and gold.read_text().startswith("{")
    report = tmp_path / "report.json"
    for _ in range(2):  # made, then made again over itself and the files beside it
        assert detect_files(str(gold), str(pred), out=str(report))["n"] == 1
    assert (tmp_path / "report.md").exists()


def test_every_bad_prediction_and_every_missing_one_is_counted(tmp_path: Path) -> None:
    from favakit.eval.detect import detect_files

    gold = [GOLD_A, {**GOLD_A, "id": "b"}, {**GOLD_A, "id": "c"}]
    broken = [{**PRED_A, "original": 42}, {**PRED_A, "id": "b", "edits": [{"type": "entity"}]},
              {**PRED_A, "id": "c"}]  # fmt: skip
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gold))
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in broken))
    with pytest.raises(UsageError) as caught:
        detect_files(str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"))
    said = str(caught.value).splitlines()
    assert said[0] == "2 of 3 rows are bad:" and "p.jsonl:1: 'original' must be" in said[1]
    assert "p.jsonl:2: an edit needs type, start and end" in said[2]
    (tmp_path / "p.jsonl").write_text(json.dumps(PRED_A) + "\n")
    with pytest.raises(UsageError, match=r"g.jsonl:2: no prediction for id 'b' in .*p.jsonl "
                                         r"\(and 1 more gold rows have none\)$"):  # fmt: skip
        detect_files(str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"))


def test_by_a_field_no_gold_row_has_is_refused_not_grouped_as_one(tmp_path: Path) -> None:
    """`--by modle` (a typo) used to give one group named "" with every row."""
    from favakit.eval.detect import detect_files

    (tmp_path / "g.jsonl").write_text(json.dumps({**GOLD_A, "model": "m1"}) + "\n")
    (tmp_path / "p.jsonl").write_text(json.dumps(PRED_A) + "\n")
    gold, pred = str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl")
    with pytest.raises(
        UsageError, match=r"--by modle: no gold row has that field \(theirs: .*model"
    ):
        detect_files(gold, pred, by="modle")
    assert list(detect_files(gold, pred, by="model")["by"]) == ["m1"]


def test_invalid_utf8_is_named_with_its_line_not_a_traceback(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_bytes(b'{"id": "a", "text": "fine"}\n{"id": "b", "text": "caf\xe9"}\n')
    (tmp_path / "g.jsonl").write_text(json.dumps(GOLD_A) + "\n")
    for args in (["edit", "--input", str(rows), "--backend", "encoder"],
                 ["eval", "detect", "--gold", str(tmp_path / "g.jsonl"), "--pred", str(rows)]):  # fmt: skip
        run = subprocess.run(
            [sys.executable, "-m", "favakit", *args], capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 2, run.stderr[-2000:]
        assert f"{rows}:2: not UTF-8 (byte 0xe9" in run.stderr and "Traceback" not in run.stderr
