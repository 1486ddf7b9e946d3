"""What a new user trips over in `favakit edit`: evaluation rows as input, plain-text files,
empty files, mistyped model paths, checks without evidence, and views that hide problems."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from favakit.contracts import EditRequest
from favakit.errors import UsageError
from favakit.inference import views
from favakit.inference.editor import NO_EVIDENCE, GenerativeEditor
from favakit.llm import FunctionClient, GenerationParams
from favakit.prompts import Reference, build_prompt, parse_prompt


def favakit(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "favakit", *args], capture_output=True, text=True, timeout=timeout
    )


def test_rows_of_every_evaluation_shape_become_requests() -> None:
    bench = {"prompt": "Tell me a bio of Ada Lovelace.", "output": "Ada was born in 1815.",
             "annotated": "Ada was born in 1815.", "model": "chatgpt"}  # fmt: skip
    req = EditRequest.from_row(bench)
    assert (req.text, req.prompt, req.evidence) == (bench["output"], bench["prompt"], None)
    refs = [Reference("Ada Lovelace was born in 1815.", "Ada Lovelace"), Reference("No title.")]
    prompt = build_prompt("Ada was born in 1816.", refs)
    row = {"prompt": prompt, "completion": "Ada was born in <entity>...</entity>."}
    req = EditRequest.from_row(row)
    assert req.text == "Ada was born in 1816." and req.evidence == refs
    # the editor rebuilds exactly the prompt of the training row
    assert build_prompt(req.text, req.evidence) == prompt
    with pytest.raises(ValueError, match="missing 'text'"):
        EditRequest.from_row({"id": 3, "topic": "x"}, "f.jsonl:3")


def _echo(prompt: str, params: GenerationParams) -> str:
    return parse_prompt(prompt).text.replace(
        "1816", "<entity><mark>1815</mark><delete>1816</delete></entity>"
    )


def test_a_check_without_evidence_says_so() -> None:
    editor = GenerativeEditor(FunctionClient(_echo, model="echo"))
    bare, backed = editor.edit_many(
        [{"text": "Born in 1816."}, {"text": "Born in 1816.", "evidence": ["Born in 1815."]}]
    )
    assert bare["warnings"] == [NO_EVIDENCE] and backed["warnings"] == []
    assert backed["corrected"] == "Born in 1815."


def test_the_terminal_view_shows_what_the_model_rewrote() -> None:
    result = {"original": "It is red and big.", "corrected": "It is red and big.", "edits": [],
              "faithful": False, "mismatches": [{"start": 6, "end": 9, "expected": "red",
              "got": "blue"}], "warnings": [NO_EVIDENCE]}  # fmt: skip
    text = views.plain(result)
    assert "'red' -> 'blue'" in text and "not applied" in text and "no evidence" in text
    assert "'red' -> 'blue'" in views.ansi(result)


def test_input_files_are_checked_before_the_model_loads(tmp_path: Path) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("Marie Curie was born in Warsaw.\n")
    got = favakit("edit", "--input", str(plain), "--model", str(tmp_path / "no-model"))
    assert got.returncode == 2 and "JSONL" in got.stderr and 'favakit edit "TEXT"' in got.stderr
    assert f"favakit edit - < {plain}" in got.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    got = favakit("edit", "--input", str(empty), "--model", str(tmp_path / "no-model"))
    assert got.returncode == 2 and "holds no rows" in got.stderr
    missing_text = tmp_path / "rows.jsonl"
    missing_text.write_text('{"id": "a", "topic": "x"}\n')
    got = favakit("edit", "--input", str(missing_text))
    assert got.returncode == 2 and "missing 'text'" in got.stderr
    repeated = tmp_path / "repeated.jsonl"
    repeated.write_text('{"id": 5, "text": "a"}\n{"id": 5, "text": "b"}\n{"text": "c"}\n'
                        '{"id": "3", "text": "d"}\n')  # fmt: skip
    got = favakit("verify", "--input", str(repeated), "--judge", "checker")
    assert got.returncode == 2, got.stderr
    assert "ids repeat: '5' (2 rows), '3' (2 rows); give each row a unique 'id'" in got.stderr
    several = tmp_path / "several.jsonl"  # every bad row named in one run, not one a run
    several.write_text('{"text": "a", "evidence": [3]}\n{"text": "b"}\n{"text": ""}\n'
                       '{"txt": "c"}\n{"text": "d", "evidence": "e"}\n')  # fmt: skip
    got = favakit("verify", "--input", str(several), "--judge", "checker")
    assert got.returncode == 2, got.stderr
    assert "4 of 5 rows are bad:" in got.stderr and f"  {several}:1: 'evidence' items" in got.stderr
    assert f"  {several}:3: 'text' is empty" in got.stderr and f"at {several}:5" in got.stderr


def test_a_file_name_given_as_the_text_is_refused_with_how_to_read_it(tmp_path: Path) -> None:
    """`favakit edit notes.txt` checked the text "notes.txt", against nothing, and said only
    that it had no evidence."""
    notes = tmp_path / "notes.txt"
    notes.write_text("The Eiffel Tower is in Berlin.\n")
    got = favakit("edit", str(notes), "--backend", "encoder")
    assert got.returncode == 2 and f"favakit edit - < {notes} reads its text" in got.stderr
    got = favakit("verify", "--claim", "claims.jsonl", "--judge", "checker")  # not there either
    assert got.returncode == 2, got.stderr
    assert "(and there is no such file), not a text to check: favakit verify --input " in got.stderr


@pytest.mark.slow
def test_a_plain_text_file_is_read_from_standard_input(tmp_path: Path) -> None:
    def edit(stdin: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "favakit", "edit", "-", "--backend", "encoder", "--gate", "off",
             "--evidence", "The Eiffel Tower is in Paris.", "--format", "json"],
            input=stdin, capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    got = edit("The Eiffel Tower is in Berlin.\nIt was built in 1889.\n")
    assert got.returncode == 0, got.stderr
    (row,) = [json.loads(line) for line in got.stdout.splitlines()]
    assert row["original"] == "The Eiffel Tower is in Berlin.\nIt was built in 1889.\n"
    empty = edit("  \n")
    assert empty.returncode == 2 and "standard input" in empty.stderr and "empty" in empty.stderr


@pytest.mark.slow
def test_a_mistyped_local_model_path_fails_at_once(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    for spec in (str(tmp_path / "runs" / "modle"), "./runs/modle", "runs/modle"):
        start = time.monotonic()
        got = subprocess.run(
            [sys.executable, "-m", "favakit", "edit", "Some text.", "--model", spec],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip
        assert got.returncode == 2 and "does not exist" in got.stderr, got.stderr
        assert time.monotonic() - start < 20  # the Hub client's retries took about 50 s
    got = favakit("edit", "Some text.", "--adapter", str(tmp_path / "nope"))
    assert got.returncode == 2 and "adapter folder" in got.stderr


@pytest.mark.slow
def test_a_validation_split_is_scored_in_two_commands(
    tiny_llama: Path, tiny_adapter: Path, rows_file: Path, tmp_path: Path
) -> None:
    gold = tmp_path / "validation.jsonl"
    gold.write_text("".join(rows_file.read_text().splitlines(keepends=True)[:3]))
    pred = tmp_path / "pred.jsonl"
    edit = favakit("edit", "--input", str(gold), "--output", str(pred), "--adapter",
                   str(tiny_adapter), "--template", "fava", "--max-new-tokens", "24")  # fmt: skip
    assert edit.returncode == 0, edit.stderr
    results = [json.loads(x) for x in pred.read_text().splitlines()]
    assert [r["original"] for r in results] == [
        parse_prompt(json.loads(x)["prompt"]).text for x in gold.read_text().splitlines()
    ]
    from favakit.inference.editor import NO_EVIDENCE

    assert all(r["evidence"] for r in results)  # the references are the evidence
    assert not [w for r in results for w in r["warnings"] if w.startswith(NO_EVIDENCE[:12])]
    # the default gate ran over every text: its warnings are the only ones (its summary, and a
    # word it fixed from the evidence where it did)
    gate_notes = ("sentence(s)", "flagged word(s) fixed from the evidence")
    assert all(
        r["warnings"] and all(any(n in w for n in gate_notes) for w in r["warnings"])
        for r in results
    ), [r["warnings"] for r in results]
    # the row names the editor (base + adapter) and, the gate being on by default, its judge
    editors = [r["model"].split(", gated by ") for r in results]
    assert all(len(e) == 2 and e[0].endswith("+run") and e[1] for e in editors), editors
    score = favakit("eval", "detect", "--gold", str(gold), "--pred", str(pred))
    assert score.returncode == 0, score.stderr
    assert "macro_f1" in json.loads(score.stdout)


def test_detect_writes_its_reports_even_when_stdout_is_closed(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        '{"id": "a", "completion": "It is <entity><delete>red</delete><mark>blue</mark></entity>."}\n'
    )
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        '{"id": "a", "original": "It is red.", "edits": [{"type": "entity", "start": 6, "end": 9, "right": "blue"}]}\n'
    )
    out = tmp_path / "report" / "d.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "favakit", "eval", "detect", "--gold", str(gold), "--pred",
         str(pred), "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None
    proc.stdout.close()  # like `| head` that has read enough
    proc.wait(timeout=120)
    assert out.exists() and out.with_suffix(".md").exists() and out.with_suffix(".html").exists()
    assert json.loads(out.read_text())["macro_f1"] > 0


def test_usage_errors_name_the_row(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        GenerativeEditor(FunctionClient(_echo, model="echo")).edit({"topic": "no text"})


def test_a_row_with_a_lone_surrogate_is_refused_before_any_model_loads(tmp_path: Path) -> None:
    """Every row is validated first: a lone surrogate (valid JSON, not valid text) names its
    file, line and field, exit 2, no traceback; the same for `verify`."""
    import subprocess
    import sys

    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": "a", "text": "fine"}\n{"id": "b", "text": "bad \\ud800 text"}\n',
                    encoding="utf-8")  # fmt: skip
    for command in ("edit", "verify"):
        done = subprocess.run([sys.executable, "-m", "favakit", command, "--input", str(path)],
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 2, done.stderr[-800:]
        assert f"{path}:2" in done.stderr and "'text'" in done.stderr
        assert "Traceback" not in done.stderr


def test_a_long_cpu_run_says_what_it_will_cost_and_the_faster_ways() -> None:
    from favakit.inference.runs import cost_note

    note = cost_note(300, "generative")
    assert note is not None and "about 22 min" in note and "--backend encoder" in note
    assert "--limit N" in note
    assert cost_note(10, "generative") is None  # under a minute: nothing to warn of
    assert cost_note(300, "encoder") is None and "about 1 min" in str(cost_note(1500, "encoder"))
    # one long text costs as the texts of ~125 words it holds: 8,800 words ran minutes unsaid
    long = cost_note(1, "generative", words=8800)
    assert long is not None and long.startswith("1 text of 8,800 words: ")
    assert "so at least about 5 min" in long
    assert cost_note(1, "generative", words=300) is None
    # a long text costs more than its words say (1,062 words: 155 s, not 37 s): said from 20 s
    assert "so at least about 37 s" in str(cost_note(1, "generative", words=1062))
    assert cost_note(1, "generative", words=500) is None  # 18 s by its words
    # where the CPU has no native bf16 the editor and the gate's judge run in fp32, 3x slower
    slow = cost_note(300, "generative", native_bf16=False)
    assert slow is not None and "without native bf16" in slow and "about 1 h 06 min" in slow
    assert "about 4 min 24 s" in str(cost_note(20, "generative", native_bf16=False))
    assert cost_note(300, "encoder", native_bf16=False) is None  # int8: as it was
    # the encoder's gate costs it far more than the encoder: 8 texts behind the cascade gate
    # took 141 s on an AVX2 CPU with nothing said (the note counted 0.05 s a text)
    gated = cost_note(8, "encoder", native_bf16=False, gate="cascade")
    assert (
        gated is not None and "the encoder editor behind the cascade gate takes about 16 s" in gated
    )
    assert (
        "so about 2 min 11 s; faster: --gate checker (about 0.3 s per text) or --gate off" in gated
    )
    assert cost_note(8, "encoder", native_bf16=False, gate="checker") is None
    assert "about 5 min 44 s" in str(cost_note(300, "encoder", gate="mpnet"))  # bf16: 2.1x


@pytest.mark.slow
def test_verify_reads_a_claim_without_evidence_against_the_knowledge_source(
    corpus_jsonl: Path, tmp_path: Path
) -> None:
    """`favakit verify --kb --index` with the default kind of judge (a checker): a claim that
    comes without evidence is read against the passages a real BM25 index finds for it, which
    the verdict lists; before, the checker read it against nothing and called every such claim
    unsupported. A claim with no evidence at all says so, in its verdict and on stderr."""
    from favakit.retrieval.index import build_index
    from favakit.retrieval.kb import build_kb

    build_kb(corpus_jsonl, tmp_path / "kb.db", max_tokens=24)
    build_index(tmp_path / "kb.db", tmp_path / "bm25", kind="bm25")
    claim = "Pierre Curie was a French physicist."
    run = favakit("verify", "--claim", claim, "--checker", "checker", "--kb",
                  str(tmp_path / "kb.db"), "--index", str(tmp_path / "bm25"))  # fmt: skip
    assert run.returncode == 0, run.stderr
    verdict = json.loads(run.stdout)
    assert verdict["supported"] and "warnings" not in verdict
    assert any(p["title"] == "Pierre Curie" for p in verdict["evidence"])
    bare = favakit("verify", "--claim", claim, "--checker", "checker")
    assert bare.returncode == 0, bare.stderr
    assert not json.loads(bare.stdout)["supported"]
    assert json.loads(bare.stdout)["warnings"][-1].startswith("no evidence: the claim was checked")
    assert "warning: 1 claim(s) had no evidence" in bare.stderr
    blank = favakit("verify", "--claim", claim, "--checker", "checker", "--evidence", "   ")
    assert blank.returncode == 0, blank.stderr  # blank evidence is no evidence, and says so
    assert json.loads(blank.stdout)["warnings"][-1].startswith("no evidence: the claim was")
    # evidence given with the one claim would be read instead of the index, which would be
    # loaded and never asked: refused (it was used as it is, the index unread)
    given = favakit("verify", "--claim", claim, "--checker", "checker", "--evidence",
                    "Pierre Curie was a French physicist.", "--kb", str(tmp_path / "kb.db"),
                    "--index", str(tmp_path / "bm25"))  # fmt: skip
    assert given.returncode == 2
    assert "--evidence: CLAIM's evidence, read instead of the passages --index" in given.stderr


@pytest.mark.slow
def test_outputs_that_name_an_input_or_a_folder_are_refused_before_any_model_loads(
    tmp_path: Path,
) -> None:
    """Each once overwrote a user's file, mixed results into it, or failed with a traceback after
    the work: eval's --out over its --input, edit's HTML page over its --input, verify's
    --output over its --input (every id 'already there': nothing verified), a folder."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        json.dumps({"id": "a", "text": "Paris is in France.", "evidence": ["x"]}) + "\n"
    )
    before = rows.read_text()
    no_model = str(tmp_path / "no-model")  # a model that would load fails: nothing loads first
    for args in (
        ["verify", "--input", str(rows), "--output", str(rows), "--checker", no_model],
        ["edit", "--input", str(rows), "--output", str(rows), "--model", no_model],
        ["edit", "--input", str(rows), "--output", str(rows), "--format", "html", "--model", no_model],
        ["eval", "factscore", "--input", str(rows), "--kb", str(tmp_path / "kb.db"), "--out", str(rows)],
    ):  # fmt: skip
        got = favakit(*args)
        assert got.returncode == 2 and "is the --input file" in got.stderr, (args, got.stderr)
        assert rows.read_text() == before
    got = favakit("verify", "--input", str(rows), "--output", str(tmp_path), "--checker", no_model)
    assert got.returncode == 2 and "is a folder" in got.stderr
    got = favakit(
        "eval", "edit-gain", "--input", str(rows), "--kb", "kb.db", "--out", str(tmp_path)
    )
    assert got.returncode == 2 and "is a folder" in got.stderr


@pytest.mark.slow
def test_verify_measures_itself_against_labelled_rows(tmp_path: Path) -> None:
    """Rows that carry labels (favakit's real-data rows, a user's own) get balanced accuracy and
    ROC AUC on stderr, computed from the verdicts the run printed; rows without labels nothing."""
    ev = ["Marie Curie was born in Warsaw in 1867. She won the Nobel Prize in Physics in 1903."]
    rows = [("a", "Marie Curie was born in Warsaw.", "supported"),
            ("b", "Marie Curie won the Nobel Prize in Physics in 1903.", "supported"),
            ("c", "Marie Curie was born in Vienna.", "not_supported"),
            ("d", "Marie Curie won the Nobel Prize in Physics in 1925.", "not_supported")]  # fmt: skip
    source = {"a": "birth", "c": "birth", "b": "prize", "d": "prize"}
    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t, "evidence": ev, "label": y,
                                        "source": source[i]}) + "\n"
                            for i, t, y in rows))  # fmt: skip
    out = tmp_path / "verdicts.jsonl"
    run = ["verify", "--input", str(path), "--judge", "checker", "--checker", "checker"]
    got = favakit(*run, "--output", str(out))
    assert got.returncode == 0, got.stderr
    said = {v["id"]: v["supported"] for v in map(json.loads, out.read_text().splitlines())}
    pos = (said["a"] + said["b"]) / 2
    neg = ((not said["c"]) + (not said["d"])) / 2
    measured = (f"against the rows' labels (4 claims, 2 supported): balanced accuracy "
                f"{(pos + neg) / 2:.3f}")  # fmt: skip
    assert measured in got.stderr, got.stderr
    again = favakit(*run, "--output", str(out))  # resumed: nothing left, the file still measured
    assert "nothing new to verify" in again.stderr and measured in again.stderr, again.stderr
    assert "ROC AUC" in got.stderr
    birth = (said["a"] + (not said["c"])) / 2
    prize = (said["b"] + (not said["d"])) / 2
    assert (
        f"per source: birth {birth:.3f} (2), prize {prize:.3f} (2); mean over the 2 sources "
        f"{(birth + prize) / 2:.3f}" in got.stderr
    ), got.stderr
    path.write_text("".join(json.dumps({"id": i, "text": t, "evidence": ev, "label": y}) + "\n"
                            for i, t, y in rows[:2]))  # fmt: skip
    got = favakit("verify", "--input", str(path), "--judge", "checker", "--checker", "checker")
    share = (said["a"] + said["b"]) / 2  # the same claims, the same verdicts
    assert f"every labelled claim is supported; {share:.3f} of them called so" in got.stderr
    path.write_text("".join(json.dumps({"id": i, "text": t, "evidence": ev}) + "\n"
                            for i, t, _ in rows))  # fmt: skip
    got = favakit("verify", "--input", str(path), "--judge", "checker", "--checker", "checker")
    assert got.returncode == 0 and "against the rows' labels" not in got.stderr
    assert "'label'" not in got.stderr
    # labels in another dataset's spelling measure nothing, and the run says so
    spelled = {"a": "SUPPORTS", "b": "supported", "c": "REFUTES", "d": 0}
    path.write_text("".join(json.dumps({"id": i, "text": t, "evidence": ev, "label": spelled[i]})
                            + "\n" for i, t, _ in rows))  # fmt: skip
    got = favakit("verify", "--input", str(path), "--judge", "checker", "--checker", "checker")
    assert got.returncode == 0, got.stderr
    assert ("warning: 3 row(s) carry a 'label' favakit does not read ('REFUTES', 'SUPPORTS', 0)"
            in got.stderr), got.stderr  # fmt: skip
    assert "against the rows' labels (1 claims, 1 supported)" in got.stderr


@pytest.mark.slow
def test_evidence_from_a_file_and_given_evidence_never_silently_ignored(tmp_path: Path) -> None:
    """`--evidence-file` reads a document as one passage (Markdown as its prose); `--evidence`
    beside `--input` was ignored without a word (each row carries its own)."""
    page = tmp_path / "returns.md"
    page.write_text("# Returns\n\nItems can be returned within **30 days**.\n\n"
                    "## Fees\n\n- Returns by post cost £4.95\n")  # fmt: skip
    claim = ["verify", "--judge", "checker", "--checker", "checker", "--evidence-file", str(page)]
    got = favakit(*claim, "--claim", "Returns by post cost £5.95.")
    verdict = json.loads(got.stdout)
    assert got.returncode == 0 and verdict["supported"] is False, got.stderr
    assert any("Returns by post cost £4.95" in w for w in verdict["warnings"])  # the list item
    assert "**" not in got.stdout and "#" not in got.stdout  # read as prose, not as markup
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"text": "x", "evidence": ["y"]}) + "\n")
    for flag, value in (("--evidence", "zzz"), ("--evidence-file", str(page))):
        for args in (["verify", "--input", str(rows)], ["edit", "--input", str(rows)]):
            got = favakit(*args, flag, value)
            assert got.returncode == 2 and "the rows of --input carry their own" in got.stderr
    got = favakit("edit", "x", "--evidence-file", str(tmp_path / "missing.txt"))
    assert got.returncode == 2 and "missing.txt: no such file" in got.stderr
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Caf\xe9".encode("latin-1"))
    got = favakit("edit", "x", "--evidence-file", str(latin))
    assert got.returncode == 2 and "latin.txt: not UTF-8; re-encode it as UTF-8" in got.stderr


def test_a_folder_given_as_an_evidence_file_is_named_as_one(tmp_path: Path) -> None:
    """It was called "no such file", which a folder that is there plainly is not."""
    from favakit.errors import UsageError
    from favakit.inference.cli import _evidence_file

    with pytest.raises(UsageError, match=rf"--evidence-file {tmp_path} is a folder: give one "
                                         r"file per passage"):  # fmt: skip
        _evidence_file(str(tmp_path))
    with pytest.raises(UsageError, match=r"missing.txt: no such file$"):
        _evidence_file(str(tmp_path / "missing.txt"))


@pytest.mark.slow
def test_the_html_page_goes_into_a_folder_not_made_yet(tmp_path: Path) -> None:
    """`--format html --output new/page.html` failed with a traceback after the work was done;
    the JSONL outputs always made their folder."""
    page = tmp_path / "new" / "sub" / "edits.html"
    got = favakit("edit", "The Eiffel Tower is in Berlin.", "--evidence", "It is in Paris.",
                  "--backend", "encoder", "--gate", "off", "--format", "html",
                  "--output", str(page))  # fmt: skip
    assert got.returncode == 0, got.stderr[-800:]
    assert page.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    assert [p.name for p in page.parent.iterdir()] == ["edits.html"]  # no temporary file left
    again = favakit("edit", "The Eiffel Tower is in Berlin.", "--evidence", "It is in Paris.",
                    "--backend", "encoder", "--gate", "off", "--format", "html",
                    "--output", str(page))  # fmt: skip
    assert again.returncode == 0, again.stderr[-800:]  # an earlier page of edits: replaced


def test_a_page_of_the_user_s_own_is_not_replaced_by_the_edits_page(tmp_path: Path) -> None:
    from favakit.inference.cli import _refuse_replacing_another_page
    from favakit.inference.views import html_page

    mine = tmp_path / "index.html"
    mine.write_text("<!doctype html><title>my notes</title>")
    with pytest.raises(UsageError, match=r"index.html exists and is no page of favakit's edits"):
        _refuse_replacing_another_page(mine)
    mine.write_text(html_page([]))  # favakit's own page, made before: replaced
    _refuse_replacing_another_page(mine)
    _refuse_replacing_another_page(tmp_path / "new.html")


def test_verify_refuses_the_editor_s_options_for_a_judge_that_does_not_read_them(
    tmp_path: Path,
) -> None:
    """`--max-new-tokens`, `--template`, ... shape the generative editor; given with a checker
    judge they would change nothing, so they are refused before any model loads."""
    missing = str(tmp_path / "no-such-checker")  # never opened: the refusal comes first
    done = favakit("verify", "--claim", "It is in Paris.", "--evidence", "It is in Paris.",
                   "--judge", "checker", "--checker", missing, "--max-new-tokens", "5",
                   "--no-copy-guard")  # fmt: skip
    assert done.returncode == 2
    assert ("--max-new-tokens, --no-copy-guard: options of the generative editor, for --judge "
            "editor; --judge checker does not read them") in done.stderr  # fmt: skip
    # -k with no index to retrieve from (the claim was judged against nothing, -k unread)
    done = favakit("verify", "--claim", "It is in Paris.", "--judge", "checker", "--checker",
                   missing, "-k", "3")  # fmt: skip
    assert done.returncode == 2
    assert "-k is how many passages --index retrieves per text" in done.stderr, done.stderr
    import argparse

    from favakit.inference.options import add_editor_options, editing_options_given

    parser = argparse.ArgumentParser()
    add_editor_options(parser)
    assert editing_options_given(parser.parse_args([])) == []  # the defaults: none given
    assert editing_options_given(parser.parse_args(["--template", "fava", "--keep-bare"])) == [
        "--template",
        "--keep-bare",
    ]


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--backend", "encoder", "--template", "fava", "--max-new-tokens", "5"],
         "--template, --max-new-tokens: options of the generative editor, and --backend encoder "
         "generates nothing"),
        (["--gate", "off", "--gate-threshold", "0.3", "--gate-flags", "sentences"],
         "--gate-threshold, --gate-flags: options of the gate, and --gate off has none"),
        (["--detector", "inference/default_detector"],  # the generative editor, the default
         "a detector serves the encoder and cascade editors (--backend encoder or cascade)"),
        # evidence given by hand is read whole: -k (passages retrieved) was dropped
        (["-k", "3"], "-k is how many passages --index retrieves per text: give --index DIR"),
        # and an index given beside it was loaded and never asked
        (["--index", "runs/no-such-index"],
         "--evidence: TEXT's evidence, read instead of the passages --index would retrieve"),
    ],
)  # fmt: skip
def test_edit_refuses_options_that_its_other_choices_would_ignore(
    flags: list[str], said: str
) -> None:
    done = favakit("edit", "The Eiffel Tower is in Berlin.", "--evidence",
                   "The Eiffel Tower is in Paris.", *flags)  # fmt: skip
    assert done.returncode == 2 and said in done.stderr, done.stderr


def test_edit_refuses_topic_with_input_and_limit_with_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`edit --input rows.jsonl --topic X` ran with the rows' own topics and `edit TEXT --limit
    2` with one text, the flag dropped without a word (each is "with TEXT" / "with --input")."""
    from favakit.cli import main

    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"text": "x", "evidence": ["y"]}) + "\n")
    out = tmp_path / "out.jsonl"
    for args, said in (
        (["--input", str(rows), "--output", str(out), "--topic", "Paris"],
         '--topic goes with TEXT; the rows of --input carry their own ("topic")'),
        (["Paris is in Germany.", "--limit", "2"],
         "--limit counts the rows of --input; one TEXT is one text"),
    ):  # fmt: skip
        assert main(["edit", *args, "--backend", "encoder", "--gate", "off"]) == 2
        assert said in capsys.readouterr().err
    assert not out.exists()
