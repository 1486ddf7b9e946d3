from __future__ import annotations

import json
from pathlib import Path

import pytest

from favakit.errors import UsageError
from favakit.prompts import build_prompt, parse_prompt
from favakit.records import TrainExample, read_records
from favakit.synth_data.fava import convert_fava_rows

TEXT = "It was written by Andy Weir. It sold well."
GOOD = "It was written by <entity><mark>Lester del Rey</mark><delete>Andy Weir</delete></entity>. It sold well."


def test_parse_prompt_inverts_both_templates() -> None:
    for template in ("fava", "favakit"):
        prompt = build_prompt(
            TEXT, ["Ref one.", "Ref two."], template=template, question="Who wrote it?"
        )
        parsed = parse_prompt(prompt)
        assert parsed.text == TEXT and parsed.references[-1] == "Ref two."
        assert parsed.references[0].endswith("Ref one.")


def test_convert_reports_bad_rows_and_keeps_good_ones(tmp_path: Path) -> None:
    fava_prompt = build_prompt(TEXT, ["Lester del Rey wrote it."], template="fava")
    rows = [
        {"prompt": fava_prompt, "completion": GOOD + "</s>"},  # FAVA's EOS: repaired with --lenient
        {"prompt": fava_prompt, "completion": GOOD},
        {"prompt": fava_prompt, "completion": "It was <mark>x</mark> by Andy Weir. It sold well."},
        {"prompt": fava_prompt, "completion": "Something else entirely."},
        {"prompt": "no markers here", "completion": GOOD},
    ]
    src = tmp_path / "fava.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    strict = convert_fava_rows(src, tmp_path / "strict.jsonl")
    assert strict["counts"] == {"tag_error": 2, "kept": 1, "text_mismatch": 1, "bad_prompt": 1}
    lenient = convert_fava_rows(src, tmp_path / "lenient.jsonl", lenient=True)
    # the EOS row is repaired and kept; the row with a stray <mark> is repaired, but its text
    # ("It was  by Andy Weir.") is not the prompt's, so it is still dropped
    assert lenient["counts"] == {"tag_error": 2, "kept": 2, "text_mismatch": 2, "bad_prompt": 1}
    assert lenient["repairs"] == {"special_token": 1, "part_outside_type": 1}
    (first, *_) = read_records(tmp_path / "lenient.jsonl", TrainExample)
    assert first.completion == GOOD and first.error_types == ["entity"]
    assert parse_prompt(first.prompt).references == ["Lester del Rey wrote it."]
    assert "[Text] It was written by Andy Weir. It sold well.\n[Edited] " in first.prompt


def test_a_file_none_of_whose_rows_converts_is_refused(tmp_path: Path) -> None:
    """It used to write an empty training file and exit 0."""
    src = tmp_path / "claims.jsonl"
    src.write_text(json.dumps({"text": TEXT, "label": "supported"}) + "\n")
    with pytest.raises(UsageError, match=r"none of the rows of .*claims.jsonl could be converted "
                                         r"\(bad_row x1\); the first: .*claims.jsonl:1: needs "
                                         r"string 'prompt' and 'completion'"):  # fmt: skip
        convert_fava_rows(src, tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


def test_an_out_that_is_a_folder_is_refused_before_the_rows_are_read(tmp_path: Path) -> None:
    """It read and converted every row, then failed writing (IsADirectoryError)."""
    from favakit.records import RecordError

    with pytest.raises(RecordError, match=r"is a folder: the output is a file, such as .*fava_fav"):
        convert_fava_rows(tmp_path / "not-read.jsonl", tmp_path)


def test_an_out_of_other_rows_is_refused_and_an_earlier_conversion_replaced(tmp_path: Path) -> None:
    """An existing file was replaced by the converted rows, whatever it held."""
    from favakit.records import RecordError

    src = tmp_path / "fava.jsonl"
    src.write_text(json.dumps({"prompt": build_prompt(TEXT, ["x"], template="fava"),
                               "completion": GOOD}) + "\n")  # fmt: skip
    mine = tmp_path / "claims.jsonl"
    mine.write_text(json.dumps({"text": TEXT, "label": "supported"}) + "\n")
    with pytest.raises(RecordError, match=r"claims.jsonl exists and holds no train_example/1 "):
        convert_fava_rows(src, mine)
    assert json.loads(mine.read_text())["label"] == "supported"
    out = tmp_path / "out.jsonl"
    for _ in range(2):  # written, then written again over itself
        assert convert_fava_rows(src, out)["counts"] == {"kept": 1}
