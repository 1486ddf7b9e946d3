"""Real edited texts (SummEdits' shape) as editor examples: the diff against the original is
tagged, the original's words are the corrections, consistent rows stay untagged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from favakit.errors import UsageError
from favakit.prompts import parse_prompt
from favakit.records import TrainExample, read_records
from favakit.synth_data.real_edits import convert_edit_rows, edit_example, tag_changes
from favakit.tags import parse

DOC = ["Marie Curie was born in Warsaw in 1867. She did not accept the offer from Paris."]


def _row(text: str, label: str = "not_supported", kinds: list[str] | None = None,
         source: str = "news", original: str = "Marie Curie was born in Warsaw in 1867.") -> dict:  # fmt: skip
    return {"id": f"r-{text[:8]}", "source": source, "text": text, "evidence": DOC,
            "label": label, "original": original, "edit_types": kinds or []}  # fmt: skip


def test_a_swapped_entity_is_tagged_with_the_originals_words_as_its_fix() -> None:
    ex = edit_example(
        _row("Marie Curie was born in Krakow in 1869.", kinds=["entity_modification"])
    )
    tagged = parse(ex.completion)
    assert [(e.type, e.wrong, e.right) for e in tagged.edits] == [
        ("entity", "Krakow", "Warsaw"), ("entity", "1869.", "1867.")]  # fmt: skip
    assert tagged.original() == "Marie Curie was born in Krakow in 1869."
    assert parse_prompt(ex.prompt).text == tagged.original()
    assert "Warsaw" in parse_prompt(ex.prompt).references[0]  # the fix's source is shown


def test_a_removed_negation_is_tagged_on_its_neighbour_and_brought_back() -> None:
    original = "She did not accept the offer."
    tagged = tag_changes(original, "She did accept the offer.", ["contradictory"])
    (edit,) = tagged.edits
    assert (edit.type, edit.wrong, edit.right) == ("contradictory", "did", "did not")
    assert tagged.corrected() == original


def test_several_kinds_split_by_what_each_change_does() -> None:
    original = "The firm did not raise prices in 2021 and kept its staff."
    edited = "The firm did raise prices in 2019 and kept its staff, its founder said."
    kinds = ["entity", "contradictory", "invented", "relation"]
    tagged = tag_changes(original, edited, kinds, max_changed=0.6)
    got = {(e.type, e.wrong, e.right) for e in tagged.edits}
    assert got == {("contradictory", "did", "did not"), ("entity", "2019", "2021"),
                   ("invented", "staff, its founder said.", "staff.")}  # fmt: skip


def test_supported_rows_are_copied_and_bad_rows_are_skipped_with_a_reason() -> None:
    kept = edit_example(_row("Marie Curie was born in Warsaw, in 1867.", label="supported"))
    assert kept.completion == "Marie Curie was born in Warsaw, in 1867." and not kept.error_types
    with pytest.raises(ValueError, match="no_edit_type"):
        edit_example(_row("Marie Curie was born in Krakow in 1867."))
    with pytest.raises(ValueError, match="cosmetic_only"):  # punctuation is not an error
        edit_example(_row("Marie Curie was born in Warsaw, in 1867.", kinds=["antonym_swap"]))
    with pytest.raises(ValueError, match="rewritten"):
        edit_example(_row("Curie, a chemist from Poland, won two prizes.", kinds=["antonym_swap"]))


def test_the_command_splits_by_source_and_refuses_measuring_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from favakit.cli import main

    rows = [_row("Marie Curie was born in Krakow in 1867.", kinds=["entity_modification"]),
            _row("Marie Curie was born in Warsaw in 1867.", label="supported", source="chat"),
            _row("Marie Curie was born in Krakow in 1867.")]  # fmt: skip
    src = tmp_path / "train_spans" / "edits.jsonl"
    src.parent.mkdir()
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "tagged"
    assert main(["synth", "from-edits", "--input", str(src), "--out", str(out),
                 "--dev-sources", "chat"]) == 0  # fmt: skip
    stats = json.loads((out / "stats.json").read_text())
    assert (stats["train"], stats["validation"], stats["skipped"]) == (1, 1, {"no_edit_type": 1})
    (train,) = read_records(out / "train.jsonl", TrainExample)
    assert train.error_types == ["entity"] and train.source_title == "news"
    measuring = tmp_path / "eval_spans" / "edits.jsonl"
    measuring.parent.mkdir()
    measuring.write_text(src.read_text())
    assert main(["synth", "from-edits", "--input", str(measuring), "--out", str(out)]) != 0
    assert "measuring-only folder (eval_spans/)" in capsys.readouterr().err
    with pytest.raises(UsageError, match="measuring-only"):
        convert_edit_rows([measuring], out)
    # a file none of whose rows can be used is refused, not written as an empty training set
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps({"text": "x", "evidence": ["y"], "label": "SUPPORTS"}) + "\n")
    with pytest.raises(UsageError, match=r"none of the 1 rows could be used: bad_label x1 \('label' "
                                         r"must be 'supported' or 'not_supported'\)"):  # fmt: skip
        convert_edit_rows([claims], tmp_path / "empty")
    assert not (tmp_path / "empty").exists()
