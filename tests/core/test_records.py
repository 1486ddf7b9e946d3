from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from favakit.errors import UsageError
from favakit.records import (
    EditResult,
    JsonlAppender,
    RecordError,
    TrainExample,
    atomic_open,
    completed_ids,
    read_jsonl,
    read_records,
    replace_folder,
    settle_folder,
    valid_rows,
    write_jsonl_atomic,
)


def example(i: int) -> TrainExample:
    return TrainExample(f"ex{i}", f"prompt {i}", "c", ["entity"], "Title")


def test_round_trip_with_schema(tmp_path: Path) -> None:
    path = tmp_path / "train.jsonl"
    assert write_jsonl_atomic(path, [example(i) for i in range(3)]) == 3
    rows = list(read_jsonl(path))
    assert rows[0]["schema"] == "train_example/1"
    assert list(read_records(path, TrainExample)) == [example(i) for i in range(3)]


def test_a_byte_order_mark_before_the_first_row_is_read_past(tmp_path: Path) -> None:
    path = tmp_path / "windows.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"id": "a"}\r\n{"id": "b"}\r\n')
    assert list(read_jsonl(path)) == [{"id": "a"}, {"id": "b"}]
    path.write_bytes(b'{"id": "a"}\n\xef\xbb\xbf{"id": "b"}\n')  # only a file's start has one
    with pytest.raises(RecordError, match=r"windows.jsonl:2: invalid JSON"):
        list(read_jsonl(path))


def test_utf16_with_its_byte_order_mark_is_read(tmp_path: Path) -> None:
    """What Windows PowerShell 5's `>` writes: UTF-16 LE with its mark, CRLF lines; also big
    endian, and a JSON array. A file with the mark whose bytes are not UTF-16 is refused."""
    from favakit.records import numbered_jsonl

    rows = '{"id": "a", "text": "Caf\u00e9 \U0001f600"}\r\n\r\n{"id": "b"}\r\n'
    path = tmp_path / "powershell.jsonl"
    for encoding in ("utf-16", "utf-16-be"):  # utf-16 writes the mark (little endian here)
        mark = b"\xfe\xff" if encoding == "utf-16-be" else b""
        path.write_bytes(mark + rows.encode(encoding))
        assert list(numbered_jsonl(path)) == [(1, {"id": "a", "text": "Caf\u00e9 \U0001f600"}),
                                              (3, {"id": "b"})]  # fmt: skip
    path.write_bytes('[{"id": "a"}]'.encode("utf-16"))
    assert list(read_jsonl(path)) == [{"id": "a"}]
    path.write_bytes('{"id": "a"}\n{"id": \n'.encode("utf-16"))
    with pytest.raises(RecordError, match=r"powershell.jsonl:2: invalid JSON"):
        list(read_jsonl(path))
    path.write_bytes('{"id": "a"}\n{"id": "b"}'.encode("utf-16"))  # a crash's cut: no newline
    assert list(read_jsonl(path, allow_truncated_tail=True)) == [{"id": "a"}, {"id": "b"}]
    path.write_bytes(b"\xff\xfe" + '{"id": "a"}\n'.encode("utf-16-le") + b"\x00\xd8\x41")
    with pytest.raises(RecordError, match=r"powershell.jsonl:2: .*not UTF-16; re-encode"):
        list(read_jsonl(path))


def test_a_json_array_of_objects_is_read_as_rows(tmp_path: Path) -> None:
    from favakit.records import numbered_jsonl

    path = tmp_path / "rows.json"
    path.write_bytes(b'\xef\xbb\xbf\n  [{"id": "a"},\n {"id": "b"}]\n')
    assert list(numbered_jsonl(path)) == [(1, {"id": "a"}), (2, {"id": "b"})]
    path.write_text('[{"id": "a"}, 3]')
    with pytest.raises(
        RecordError, match=r"rows.json: item 2 of the array: expected a JSON object"
    ):
        list(read_jsonl(path))
    path.write_text('[{"id": "a"},')  # cut short
    with pytest.raises(RecordError, match=r"starts with '\[' but is not one JSON array"):
        list(read_jsonl(path))


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("one.json", '{\n  "text": "t",\n  "evidence": ["e"]\n}\n',
         r"one.json:1: invalid JSON .*one JSON object over several lines"),
        ("claims.csv", "text,evidence\nParis is in France.,Paris is in France.\n",
         r"claims.csv:1: invalid JSON .*looks like a table"),
        ("broken.jsonl", '{"id": "a"}\n{"id": \n',  # an ordinary bad line: no hint
         r"broken.jsonl:2: invalid JSON \([^)]*\)$"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_json_lines_is_told_what_is_read(
    tmp_path: Path, name: str, content: str, said: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(RecordError, match=said):
        list(read_jsonl(path))


def test_bad_rows_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "prompt": "p", "completion": "c"}\n\nnot json\n')
    with pytest.raises(RecordError, match=r"bad.jsonl:3: invalid JSON"):
        list(read_jsonl(path))
    path.write_text('{"id": "a", "prompt": "p"}\n')
    with pytest.raises(RecordError, match=r"bad.jsonl:1: missing field\(s\) \['completion'\]"):
        list(read_records(path, TrainExample))
    path.write_text('{"id": "a", "prompt": "p", "completion": "c", "error_types": ["numerical"]}\n')
    with pytest.raises(RecordError, match="unknown error type"):
        list(read_records(path, TrainExample))
    path.write_text('{"schema": "edit_result/1", "id": "a", "prompt": "p", "completion": "c"}\n')
    with pytest.raises(RecordError, match="schema 'edit_result/1' is not 'train_example/1'"):
        list(read_records(path, TrainExample))
    path.write_text('{"id": "a", "prompt": "p", "completion": "c", "extra": 1}\n')
    with pytest.raises(RecordError, match=r"unknown field\(s\) \['extra'\]"):
        list(read_records(path, TrainExample))
    with pytest.raises(RecordError, match="no such file"):
        list(read_jsonl(tmp_path / "missing.jsonl"))
    with pytest.raises(RecordError, match="is a folder: give a JSONL file"):
        list(read_jsonl(tmp_path))  # was IsADirectoryError, a traceback in every command
    from favakit.records import refuse_folder_output, refuse_output_over_input

    with pytest.raises(RecordError, match="is a folder: the output is a file"):
        refuse_folder_output(tmp_path)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("{}\n")
    alias = tmp_path / "sub" / ".." / "rows.jsonl"
    (tmp_path / "sub").mkdir()
    with pytest.raises(RecordError, match="is the --input file"):
        refuse_output_over_input(alias, {"--kb": None, "--input": rows})  # the same file
    refuse_output_over_input(tmp_path / "new.jsonl", {"--input": rows})  # not there yet: fine
    from favakit.records import output_folder

    with pytest.raises(RecordError, match=r"--out .*rows\.jsonl is a file: it names a folder"):
        output_folder(rows)  # synth, index build, training: FileExistsError tracebacks once
    assert output_folder(tmp_path / "a" / "b").is_dir()


def test_a_model_is_written_into_a_folder_of_its_own(tmp_path: Path) -> None:
    """`train merge --out` naming a synthesis run replaced its config.json with the model's."""
    from favakit.records import model_output_folder

    run = tmp_path / "synth"
    run.mkdir()
    (run / "config.json").write_text('{"inserter": "rules"}')
    (run / "train.jsonl").write_text("{}\n")
    with pytest.raises(RecordError, match=r"holds other files \(config.json, train.jsonl\) "
                                          r"and no model: .* such as .*synth/model"):  # fmt: skip
        model_output_folder(run, tmp_path / "adapter")
    assert (run / "config.json").read_text() == '{"inserter": "rules"}'
    with pytest.raises(RecordError, match="is the folder the model is read from"):
        model_output_folder(tmp_path / "adapter" / ".." / "adapter", tmp_path / "adapter")
    with pytest.raises(RecordError, match="is a file: it names a folder for the model"):
        model_output_folder(run / "train.jsonl", tmp_path / "adapter")
    # new, empty, or an earlier model (replaced) are fine
    assert model_output_folder(tmp_path / "new" / "model", run).is_dir()
    (tmp_path / "old").mkdir()
    for name in ("config.json", "model.int8.safetensors", "tokenizer.json"):
        (tmp_path / "old" / name).write_text("x")
    assert model_output_folder(tmp_path / "old", run) == tmp_path / "old"


def _positive(row: dict, number: int, where: str) -> int:
    if row["n"] <= 0:
        raise ValueError(f"{where}: 'n' must be positive, not {row['n']}")
    return row["n"]


def test_valid_rows_names_every_bad_row_once_the_file_is_read(tmp_path: Path) -> None:
    """A file with many bad rows used to be refused at the first, one run per row mended."""
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"n": n}) + "\n" for n in [1, 0, 2, -1, -2, -3, -4, 5]))
    with pytest.raises(UsageError) as caught:
        valid_rows(path, _positive)
    said = str(caught.value).splitlines()
    assert said == [
        "5 of 8 rows are bad:",
        f"  {path}:2: 'n' must be positive, not 0",
        f"  {path}:4: 'n' must be positive, not -1",
        f"  {path}:5: 'n' must be positive, not -2",
        f"  and 2 more, at {path}:6, 7",
    ]
    path.write_text('{"n": 1}\n{"n": 0}\n')  # one bad row: its reason alone, as before
    with pytest.raises(UsageError, match=r"^\S*rows.jsonl:2: 'n' must be positive, not 0$"):
        valid_rows(path, _positive)
    path.write_text('{"n": 1}\n{"n": 2}\n')
    assert valid_rows(path, _positive) == [1, 2]
    path.write_text('{"n": 0}\nnot json\n{"n": 0}\n')  # a line that is not JSON stops at once
    with pytest.raises(RecordError, match=r"rows.jsonl:2: invalid JSON"):
        valid_rows(path, _positive)


def test_atomic_write_leaves_old_file_on_failure(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    write_jsonl_atomic(path, [{"id": "old"}])

    def rows():  # type: ignore[no-untyped-def]
        yield {"id": "new"}
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_jsonl_atomic(path, rows())
    assert [r["id"] for r in read_jsonl(path)] == ["old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]  # no temporary left


def _folder(path: Path, text: str) -> Path:
    path.mkdir()
    (path / "state.json").write_text(text)
    return path


def test_replace_folder_swaps_a_finished_folder_in(tmp_path: Path) -> None:
    ckpt = _folder(tmp_path / "checkpoint", "step 4")
    replace_folder(_folder(tmp_path / "checkpoint.partial", "step 8"), ckpt)
    assert (ckpt / "state.json").read_text() == "step 8"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]


def test_a_kill_between_the_renames_leaves_the_old_folder_to_find(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    ckpt = _folder(tmp_path / "checkpoint", "step 4")
    new = _folder(tmp_path / "checkpoint.partial", "step 8")
    real_replace, calls = os.replace, []

    def dies_on_the_second(src: object, dst: object) -> None:
        calls.append(dst)
        if len(calls) == 2:  # the old folder has moved aside; the new one is not yet in
            raise KeyboardInterrupt
        real_replace(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", dies_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        replace_folder(new, ckpt)
    monkeypatch.setattr(os, "replace", real_replace)
    assert not ckpt.exists()  # a plain reader would find no checkpoint at all here
    assert (settle_folder(ckpt) / "state.json").read_text() == "step 4"
    assert not (tmp_path / "checkpoint.old").exists()
    # the next save works from there, and a swap cut short before its clean-up settles too
    replace_folder(new, ckpt)
    _folder(tmp_path / "checkpoint.old", "step 4")
    assert (settle_folder(ckpt) / "state.json").read_text() == "step 8"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]


def test_atomic_open_binary(tmp_path: Path) -> None:
    with atomic_open(tmp_path / "x.bin", "wb") as fh:
        fh.write(b"\x00\x01")
    assert (tmp_path / "x.bin").read_bytes() == b"\x00\x01"


def test_appender_resumes_by_id_and_cuts_a_truncated_tail(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with JsonlAppender(path) as out:
        for i in range(3):
            out.append(example(i))
    # simulate a crash in the middle of writing a fourth line
    with path.open("a") as fh:
        fh.write('{"schema": "train_example/1", "id": "ex3", "pro')
    assert completed_ids(path) == {"ex0", "ex1", "ex2"}
    with JsonlAppender(path) as out:
        assert "ex1" in out and "ex3" not in out and len(out) == 3
        for i in range(5):
            if f"ex{i}" not in out:
                out.append(example(i))
    ids = [r["id"] for r in read_jsonl(path)]
    assert ids == ["ex0", "ex1", "ex2", "ex3", "ex4"]
    assert path.read_text().endswith("\n")


def test_a_second_run_on_an_output_being_written_is_refused(tmp_path: Path) -> None:
    """Two runs on one output once wrote 386 verdicts for 349 claims (each id of the second run
    twice), and the second could cut the first's line in the middle as if a crash had left it."""
    import subprocess
    import sys

    path = tmp_path / "out.jsonl"
    with JsonlAppender(path) as first:
        first.append({"id": "a"})
        with pytest.raises(RecordError, match="is being written by another run"):
            JsonlAppender(path).__enter__()
        code = (
            "import sys\nfrom favakit.records import JsonlAppender, RecordError\n"
            "try:\n    JsonlAppender(sys.argv[1]).__enter__()\n"
            "except RecordError as exc:\n    print(exc)\n"
        )
        got = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60
        )
        assert "is being written by another run" in got.stdout, got
        from favakit.records import refuse_output_in_use

        with pytest.raises(RecordError, match="is being written by another run"):
            refuse_output_in_use(path)  # asked before a job loads its models
        first.append({"id": "b"})
    refuse_output_in_use(path)
    refuse_output_in_use(tmp_path / "not-there.jsonl")
    with JsonlAppender(path) as again:  # the lock ends with the run
        assert again.done == {"a", "b"}


def test_appender_truncated_only_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"id": "x"')
    with JsonlAppender(path) as out:
        assert len(out) == 0
        out.append({"id": "y"})
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["y"]


def test_appender_keeps_a_whole_last_row_that_lacks_only_its_newline(tmp_path: Path) -> None:
    """The row was read as done and then cut as if truncated: it was never made again."""
    path = tmp_path / "run.jsonl"
    path.write_text('{"id": "a"}\n{"id": "b"}')
    with JsonlAppender(path) as out:
        assert out.done == {"a", "b"}
        out.append({"id": "c"})
    assert path.read_text() == '{"id": "a"}\n{"id": "b"}\n{"id": "c"}\n'


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"line one\nmy notes, with no newline at the end", "its last line does not open a JSON"),
        (b"some notes\n", "run.jsonl:1: not a JSON object: it is not an output"),
        (
            b'{"title": "A", "text": "x"}\n',
            "run.jsonl:1: a row without 'id': it is not an output",
        ),
        (b'[{"id": "a"}]', "holds a JSON array: it is not an output this command writes"),
        ('{"id": "a"}\n'.encode("utf-16"), "is UTF-16 text, and favakit's outputs are UTF-8"),
    ],
)
def test_appender_refuses_a_file_it_did_not_write_and_leaves_it_as_it_was(
    tmp_path: Path, content: bytes, said: str
) -> None:
    """A user's file given as the output lost its last line (cut as a crash's half-written
    row) before its first line was found not to be JSON; one without ids was appended to."""
    from favakit.records import refuse_output_in_use

    path = tmp_path / "run.jsonl"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=re.escape(said)):
        refuse_output_in_use(path)  # what a command asks before its models load
    with pytest.raises(RecordError, match=re.escape(said)):
        JsonlAppender(path).__enter__()
    assert path.read_bytes() == content


def test_appender_requires_key(tmp_path: Path) -> None:
    with JsonlAppender(tmp_path / "a.jsonl") as out, pytest.raises(RecordError, match="no 'id'"):
        out.append({"name": "x"})


def test_edit_result_defaults() -> None:
    r = EditResult.from_dict({"id": "1", "original": "a", "corrected": "b"})
    assert r.to_dict() == {
        "schema": "edit_result/1",
        "id": "1",
        "original": "a",
        "corrected": "b",
        "edits": [],
        "evidence": [],
        "repairs": [],
        "model": "",
    }
