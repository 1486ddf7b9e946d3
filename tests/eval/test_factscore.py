"""FActScore pieces on hand-computed cases, and the CLI against a real HTTP judge and KB."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from favakit.eval.factscore import (
    AtomicFactGenerator,
    aggregate,
    agreement,
    is_abstention,
    length_penalty,
    parse_fact_list,
    score_outputs,
)
from favakit.inference.judges import Judge
from favakit.llm import FunctionClient, GenerationParams


def test_length_penalty_at_1_10_and_11_facts() -> None:
    assert length_penalty(1) == pytest.approx(math.exp(-9))
    assert length_penalty(5) == pytest.approx(math.exp(-1))
    assert length_penalty(10) == 1.0 and length_penalty(11) == 1.0
    assert length_penalty(1, gamma=0) == 1.0
    with pytest.raises(ValueError):
        length_penalty(0)


def test_aggregate_with_abstentions_and_penalty() -> None:
    one_true = [{"atom": "a", "is_supported": True}]
    ten = [{"atom": str(i), "is_supported": i < 5} for i in range(10)]
    eleven = [{"atom": str(i), "is_supported": i < 11} for i in range(11)]
    r = aggregate([one_true, None, ten, eleven], gamma=10)
    assert r["respond_ratio"] == 0.75
    assert r["init_score"] == pytest.approx((1.0 + 0.5 + 1.0) / 3)
    assert r["score"] == pytest.approx((math.exp(-9) + 0.5 + 1.0) / 3)
    assert r["num_facts_per_response"] == pytest.approx(22 / 3)
    assert r["decisions"][1] is None
    empty = aggregate([None, None])
    assert empty["score"] == 0.0 and empty["respond_ratio"] == 0.0
    # FActScore's output: same keys, same types
    assert {k: type(v) for k, v in r.items()} == {
        "score": float, "init_score": float, "respond_ratio": float,
        "decisions": list, "num_facts_per_response": float,
    }  # fmt: skip


def test_abstentions() -> None:
    assert is_abstention("") and is_abstention("   \n")
    assert is_abstention("I'm sorry, but I couldn't find any information on this person.")
    assert is_abstention("Lanny is a name. I could not find any information about him.")
    assert not is_abstention("Lanny Flaherty is an American actor.")
    assert not is_abstention("He cannot swim.")  # "cannot" only counts at the start


def test_parse_fact_list() -> None:
    text = "- He is an actor.\n* He was born in 1949.\n2. He is American.\n- He is an actor.\n\nBreak the next"
    assert parse_fact_list(text) == ["He is an actor.", "He was born in 1949.", "He is American."]
    assert parse_fact_list("Sure! Here are the facts:\n- A.\n- B.\nThat is all.") == ["A.", "B."]
    assert parse_fact_list("no list here") == []


def test_atomic_facts_use_fixed_demos_plus_the_closest_one() -> None:
    demos = {f"Demo sentence number {i}.": [f"Fact {i}."] for i in range(3)}
    demos["Marie Curie studied radium in Paris."] = ["Marie Curie studied radium."]
    seen: list[str] = []

    def llm(prompt: str, params: GenerationParams) -> str:
        seen.append(prompt)
        return "- It is one.\n- It is two.\n"

    gen = AtomicFactGenerator(FunctionClient(llm), demos, fixed=2)
    facts = gen.facts(["Pierre Curie studied radium. He lived in Paris.", ""])
    assert facts == [["It is one.", "It is two."], []]  # duplicates across sentences dropped
    assert len(seen) == 2
    assert "Demo sentence number 0." in seen[0] and "Demo sentence number 2." not in seen[0]
    assert "Marie Curie studied radium in Paris." in seen[0]  # BM25 picked the closest demo
    assert seen[0].rstrip().endswith("Pierre Curie studied radium.")


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    from favakit.retrieval.kb import build_kb

    src = tmp_path / "docs.jsonl"
    src.write_text(
        json.dumps({"title": "Ada Lovelace", "text": "Ada Lovelace was an English mathematician. "
                    "She wrote about the Analytical Engine. She was born in 1815."}) + "\n"
        + json.dumps({"title": "Kepler", "text": "Kepler was an astronomer."}) + "\n"
    )  # fmt: skip
    build_kb(src, tmp_path / "kb.db", max_tokens=16)
    return tmp_path / "kb.db"


def _judge_reply(prompt: str) -> str:
    """A scripted judge: True when the fact's year or key word is in the passages."""
    passages, _, question = prompt.rpartition("Input: ")
    fact = question.split(" True or False?")[0]
    key = fact.rstrip(".").split()[-1]
    return "True" if key in passages else "False"


def test_score_outputs_with_a_real_kb(kb: Path) -> None:
    from favakit.retrieval.evidence import TopicRetriever

    retriever = TopicRetriever(str(kb), k=2)
    judge = Judge(FunctionClient(lambda p, _: _judge_reply(p)))
    rows = [
        {"topic": "Ada Lovelace", "output": "x", "atomic_facts": ["She was born in 1815.", "She was born in 1820."]},
        {"topic": "Kepler", "output": "I'm sorry, I don't know.", "atomic_facts": ["x"]},
    ]  # fmt: skip
    decisions = score_outputs(rows, retriever.retrieve, judge, use_atomic_facts=True)
    assert decisions == [
        [{"atom": "She was born in 1815.", "is_supported": True},
         {"atom": "She was born in 1820.", "is_supported": False}],
        None,
    ]  # fmt: skip
    assert judge.how == {"parsed": 2}
    labels = {"She was born in 1815.": "S", "She was born in 1820.": "NS"}
    assert agreement(decisions, [labels, None])["accuracy"] == 1.0
    assert agreement(decisions, [{"She was born in 1815.": "NS"}, None]) == {
        "facts": 1, "accuracy": 0.0,
        "S": {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0},
        "NS": {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 1},
        "human_supported_share": 0.0,
    }  # fmt: skip


def test_unfinished_work_resumes_only_under_its_own_settings(kb: Path, tmp_path: Path) -> None:
    """A killed run's rows (OUT.partial.jsonl) resume only in a run of the same command, input and
    judge: edit-gain once read a factscore run's rows and failed with KeyError: 'before'."""
    from favakit.errors import UsageError
    from favakit.eval.runs import ScoreOptions, _work_file, fact_judge
    from favakit.records import RecordError

    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps({"topic": "Ada Lovelace", "output": "Ada was born in 1815."}) + "\n")
    out = tmp_path / "fs.json"
    opts = ScoreOptions(input=str(inp), kb=str(kb), out=str(out), facts="rules")
    work = _work_file(out, "factscore", opts)
    assert not list(tmp_path.glob("fs.json.partial*"))  # nothing written before the first row
    work.begin()
    work.path.write_text(json.dumps({"id": "0", "decisions": None}) + "\n")  # then killed
    assert _work_file(out, "factscore", opts).path == work.path  # the same run resumes
    with pytest.raises(UsageError, match="command: 'factscore' there, 'edit-gain' now"):
        _work_file(out, "edit-gain", opts)
    default = fact_judge(opts)  # the cascade where both its bases are installed, else checker
    with pytest.raises(UsageError, match=f"judge: '{default}' there, 'verifier' now"):
        _work_file(out, "factscore", ScoreOptions(**{**opts.__dict__, "judge": "verifier"}))
    inp.write_text(json.dumps({"topic": "Ada Lovelace", "output": "Ada was born in 1816."}) + "\n")
    with pytest.raises(UsageError, match="input_sha256"):
        _work_file(out, "factscore", opts)
    with pytest.raises(RecordError, match="is a folder"):
        _work_file(tmp_path, "factscore", opts)
    # a file that is no earlier result was replaced by the result (a training file, say)
    mine = tmp_path / "train.jsonl"
    mine.write_text('{"prompt": "p", "completion": "c"}\n')
    with pytest.raises(RecordError, match="exists and is no FActScore result"):
        _work_file(mine, "factscore", opts)
    (tmp_path / "gain.md").write_text("# notes\n")  # edit-gain writes its .md beside its --out
    with pytest.raises(RecordError, match=r"gain.md exists, and the editing-gain result's .md"):
        _work_file(tmp_path / "gain.json", "edit-gain", opts)
    out.write_text(json.dumps({"score": 0.5, "usage": {}}))  # an earlier result: replaced
    inp.write_text(json.dumps({"topic": "Ada Lovelace", "output": "Ada was born in 1815."}) + "\n")
    assert _work_file(out, "factscore", opts).path == work.path


def test_topics_the_kb_lacks_are_named_before_any_model(kb: Path, tmp_path: Path) -> None:
    from favakit.errors import UsageError
    from favakit.eval.runs import ScoreOptions, Scorer

    inp = tmp_path / "in.jsonl"
    topics = ["Ada Lovelace", "Zed", "Ypsilon", "Xu", "Wim"]
    inp.write_text("".join(json.dumps({"topic": t, "output": "x."}) + "\n" for t in topics))
    opts = ScoreOptions(input=str(inp), kb=str(kb), out=str(tmp_path / "fs.json"), facts="rules")
    with pytest.raises(UsageError) as caught:
        Scorer(opts, models=False)
    assert str(caught.value).startswith(
        f"4 topic(s) are not articles of {kb}: 'Wim', 'Xu', 'Ypsilon' ...; each response"
    )


def test_a_cache_no_answer_would_go_into_is_refused(kb: Path, tmp_path: Path) -> None:
    """`--judge checker --cache c.db` ran, and the cache stayed empty without a word."""
    from favakit.errors import UsageError
    from favakit.eval.runs import ScoreOptions, factscore

    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps({"topic": "Ada Lovelace", "output": "Ada was born in 1815."}) + "\n")
    opts = ScoreOptions(input=str(inp), kb=str(kb), out=str(tmp_path / "fs.json"), facts="rules",
                        judge="checker", cache=str(tmp_path / "c.db"))  # fmt: skip
    with pytest.raises(UsageError, match=r"--cache keeps the answers of --judge verifier, llm or "
                                         r"editor .*not of --judge checker"):  # fmt: skip
        factscore(opts)
    assert not (tmp_path / "c.db").exists() and not (tmp_path / "fs.json").exists()


def test_bad_response_rows_are_named_by_their_lines(tmp_path: Path) -> None:
    """Rows were numbered by their place among rows, so a blank line put every later number out
    by one; and only the first bad row was named."""
    from favakit.errors import UsageError
    from favakit.eval.runs import _rows

    good = json.dumps({"topic": "Ada Lovelace", "output": "Ada was born in 1815."})
    inp = tmp_path / "in.jsonl"
    inp.write_text(f"{good}\n\n" + json.dumps({"topic": "Ada"}) + "\n")
    with pytest.raises(UsageError, match=r"in.jsonl:3: expected \{\"topic\", \"output\"\}$"):
        _rows(str(inp), use_atomic_facts=False)
    inp.write_text(f"{good}\n{good}\n" + json.dumps({"topic": "Ada", "output": "x", "labels": ["S"]})
                   + "\n" + json.dumps({"output": "y"}) + "\n")  # fmt: skip
    with pytest.raises(UsageError) as caught:
        _rows(str(inp), use_atomic_facts=True)
    said = str(caught.value).splitlines()
    assert said[0] == "4 of 4 rows are bad:" and len(said) == 5
    assert said[3].endswith("in.jsonl:3: --use-atomic-facts needs 'atomic_facts'")
    assert said[4].endswith("in.jsonl:4")


def test_cli_with_an_http_judge_caches_and_resumes(
    kb: Path, tmp_path: Path, openai_server: Any
) -> None:
    server = openai_server(_judge_reply)
    inp = tmp_path / "in.jsonl"
    inp.write_text(
        json.dumps({"topic": "Ada Lovelace", "output": "Ada was born in 1815.",
                    "atomic_facts": ["She was born in 1815.", "She was an astronomer."],
                    "labels": ["S", "NS"]}) + "\n"
        + json.dumps({"topic": "Kepler", "output": "", "atomic_facts": []}) + "\n"
    )  # fmt: skip
    out = tmp_path / "fs.json"
    cmd = [sys.executable, "-m", "favakit", "eval", "factscore", "--input", str(inp), "--kb",
           str(kb), "--use-atomic-facts", "--llm-endpoint", server.url, "--model", "judge",
           "--cache", str(tmp_path / "cache.db"), "--out", str(out)]  # fmt: skip
    # an interrupted earlier run left row 0 done: it is not judged again
    partial = tmp_path / "fs.json.partial.jsonl"
    kept = [{"atom": "She was born in 1815.", "is_supported": False}]
    partial.write_text(json.dumps({"id": "0", "decisions": kept}) + "\n")
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(out.read_text())["decisions"][0] == kept and not server.requests
    assert not partial.exists()

    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    result = json.loads(out.read_text())
    assert result["decisions"][1] is None and result["respond_ratio"] == 0.5
    assert [d["is_supported"] for d in result["decisions"][0]] == [True, False]
    assert result["init_score"] == 0.5
    assert result["score"] == pytest.approx(0.5 * math.exp(1 - 10 / 2))
    assert result["agreement"]["accuracy"] == 1.0
    calls = len(server.requests)
    assert calls == 2
    rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0 and len(server.requests) == calls  # all from the cache
    assert json.loads(out.read_text())["score"] == result["score"]

    missing = subprocess.run(
        [*cmd[:6], str(inp), "--kb", str(kb), "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert missing.returncode == 2 and "give --demos FILE.json" in missing.stderr


@pytest.mark.slow
def test_a_named_checker_judges_where_no_model_is_named(kb: Path, tmp_path: Path) -> None:
    """`favakit eval factscore` with no --judge and no model, `--checker checker`: the shipped
    MiniLM checker (a real model) judges each fact against the passages of the topic's article
    in a real KB; the usage names it. Facts split by an LLM need a model the default judge (the
    cascade where both its bases are installed, else the checker) is not: a clear error before
    anything loads."""
    from favakit.inference.factory import auto_judge

    inp = tmp_path / "in.jsonl"
    facts = ["Ada Lovelace was born in 1815.", "Ada Lovelace was a French painter."]
    inp.write_text(json.dumps({"topic": "Ada Lovelace", "output": " ".join(facts),
                               "atomic_facts": facts, "labels": ["S", "NS"]}) + "\n")  # fmt: skip
    out = tmp_path / "fs.json"
    cmd = [sys.executable, "-m", "favakit", "eval", "factscore", "--input", str(inp), "--kb",
           str(kb), "--out", str(out)]  # fmt: skip
    run = subprocess.run([*cmd, "--use-atomic-facts", "--checker", "checker"],
                         capture_output=True, text=True, timeout=180)  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(out.read_text())
    assert [d["is_supported"] for d in result["decisions"][0]] == [True, False]
    assert result["usage"] == {"verdicts": {"favakit-checker-minilm": 2}}
    assert result["agreement"]["accuracy"] == 1.0 and result["init_score"] == 0.5

    demos = tmp_path / "demos.json"
    demos.write_text(json.dumps({"He is a cook.": ["He is a cook."]}))
    for extra, message in (
        (["--demos", str(demos)],
         f"--facts llm ask(s) a language model, and --judge {auto_judge()}"),
        (["--use-atomic-facts", "--judge", "llm", "--model", "x", "--checker", "mpnet"],
         "--checker is for --judge checker or cascade"),
        (["--use-atomic-facts", "--chat"], "--chat is for --judge llm"),
        (["--use-atomic-facts", "--demos", str(demos)],
         "with --use-atomic-facts no model splits them, so --demos would change nothing"),
        (["--facts", "rules", "--demos", str(demos)], "with --facts rules no model splits them"),
        # the model went unused without a word (usage: 0 calls)
        (["--facts", "rules", "--judge", "checker", "--model", "smollm2"],
         "--judge checker judges with its own, and nothing here asks a language model: leave"),
        # the judge's own model's flags with no model named: the checker reads none (they
        # were dropped without a word, and the cascade's and qwen's LLM never saw them)
        (["--use-atomic-facts", "--judge", "checker", "--dtype", "bfloat16"],
         "--dtype: the checker judge is an encoder of its own and reads no language model"),
        # it said "or give --facts rules", which was given
        (["--facts", "rules", "--judge", "checker", "--method", "d-factscore"],
         "is none: name one with --model or --llm-endpoint, or leave out --method d-factscore"),
    ):  # fmt: skip
        bad = subprocess.run([*cmd, *extra], capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr


def test_the_eval_cli_names_every_judge_the_scorer_runs() -> None:
    """`--judge`'s choices (declared in the light CLI module) are the scorer's judges."""
    from favakit.eval.cli import JUDGES
    from favakit.eval.runs import FACT_JUDGES

    assert JUDGES == FACT_JUDGES


def _everything(prompt: str) -> str:
    """Scripted models for edit-gain: the editor, the fact splitter and the judge."""
    from favakit.prompts import parse_prompt
    from favakit.tags import Edit, Tagged

    if "[Edited]" in prompt:  # the editor: 1820 is wrong, 1815 right
        head, found, tail = parse_prompt(prompt).text.partition("1820")
        return Tagged([head, Edit("entity", "1820", "1815"), tail] if found else [head]).render()
    if "Break the following sentence" in prompt:
        return "- " + prompt.rsplit("one per line: ", 1)[1].strip() + "\n"
    return _judge_reply(prompt)


def _edit_gain(kb: Path, tmp_path: Path, url: str, output: str, *gate: str) -> dict[str, Any]:
    """`favakit eval edit-gain` on one {topic, output} row with the scripted editor and judge at
    ``url``; the result JSON (its .md, .html and .png lie beside tmp_path/gain.json)."""
    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps({"topic": "Ada Lovelace", "output": output}) + "\n")
    demos = tmp_path / "demos.json"
    demos.write_text(json.dumps({"He is a cook.": ["He is a cook."]}))
    out = tmp_path / "gain.json"
    run = subprocess.run(
        [sys.executable, "-m", "favakit", "eval", "edit-gain", "--input", str(inp), "--kb", str(kb),
         "--demos", str(demos), "--llm-endpoint", url, "--model", "judge",
         "--editor-endpoint", url, "--editor-model", "editor", "--gamma", "0", *gate,
         "--out", str(out)],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return json.loads(out.read_text())


def test_edit_gain_cli_reports_before_after_and_edits(
    kb: Path, tmp_path: Path, openai_server: Any
) -> None:
    server = openai_server(_everything)
    text = "Ada Lovelace was born in 1820. She was an English mathematician."
    result = _edit_gain(kb, tmp_path, server.url, text, "--gate", "off")
    out = tmp_path / "gain.json"
    assert "gated" not in result["editor"]
    assert result["before"]["init_score"] == 0.5 and result["after"]["init_score"] == 1.0
    assert result["gain"] == 0.5 and result["facts_per_response_change"] == 0.0
    assert result["edits_per_type"] == {"entity": 1} and result["texts_edited"] == 1
    assert result["flags_per_type"] == {} and result["texts_flagged"] == 0
    assert result["edits"][0]["corrected"].startswith("Ada Lovelace was born in 1815.")
    assert "| FActScore | 0.500 | 1.000 | +0.500 |" in out.with_suffix(".md").read_text()
    page = out.with_suffix(".html").read_text()
    assert "<table>" in page and "data:image/png;base64," in page  # charts embedded
    assert out.with_suffix(".png").stat().st_size > 1000


@pytest.mark.slow
@pytest.mark.parametrize(("threshold", "gain"), [(0.0, 0.0), (1.0, 1.0)])
def test_edit_gain_runs_the_editor_behind_the_gate(
    kb: Path, tmp_path: Path, openai_server: Any, threshold: float, gain: float
) -> None:
    """By default edit-gain measures what `favakit edit` does: the shipped checker's gate over
    the editor. At threshold 0 every sentence counts as supported, so the gate drops the edit;
    at 1 none does, so the edit stays (the real checker, the scripted editor and judge). At 1
    no fixed sentence is supported either, so the fix check would take the fix back: it is
    off here (`--gate-fixes unchecked`); tests/inference/test_gate.py tests the check."""
    server = openai_server(_everything)
    gate = ("--gate", "checker", "--gate-threshold", str(threshold), "--gate-fixes", "unchecked")
    result = _edit_gain(kb, tmp_path, server.url, "Ada Lovelace was born in 1820.", *gate)
    assert result["editor"].endswith("gated by favakit-checker-minilm")
    assert result["gain"] == gain and result["texts_edited"] == (gain > 0)


@pytest.mark.slow  # 4 s or more on 2 cores
def test_cli_on_ray_gives_the_same_decisions(
    ray_cluster: Any, kb: Path, tmp_path: Path, openai_server: Any
) -> None:
    """``--ray``: each worker builds its own judge client; the decisions equal one process's."""
    from favakit.cli import main

    server = openai_server(_judge_reply)
    facts = [["She was born in 1815.", "She was an astronomer."], ["He was an astronomer."],
             ["He was born in 1600."]]  # fmt: skip
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps({"topic": t, "output": " ".join(f), "atomic_facts": f}) + "\n"
                           for t, f in zip(["Ada Lovelace", "Kepler", "Kepler"], facts, strict=True)))  # fmt: skip
    common = ["eval", "factscore", "--input", str(inp), "--kb", str(kb), "--use-atomic-facts",
              "--llm-endpoint", server.url, "--model", "judge", "--batch", "2"]  # fmt: skip
    assert main([*common, "--out", str(tmp_path / "plain.json")]) == 0
    assert main([*common, "--out", str(tmp_path / "ray.json"), "--ray", "local"]) == 0
    plain, on_ray = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("plain", "ray"))
    assert on_ray["decisions"] == plain["decisions"] and on_ray["score"] == plain["score"]
    assert [[d["is_supported"] for d in ds] for ds in plain["decisions"]] == [
        [True, False],
        [True],
        [False],
    ]


def test_response_work_weighs_facts_and_a_resumed_run_counts_its_done_rows_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The time left of `eval factscore` and `edit-gain` weighs each response by its facts (the
    given ones, or one per ten words of output), and a resumed run counts the rows done before
    first, weighing only the rows it scores itself."""
    import io

    from favakit import progress as progress_module
    from favakit.eval.runs import RESPONSE_OVERHEAD_FACTS, _progress, response_work

    row = {"topic": "Ada", "output": " ".join(["word"] * 40), "atomic_facts": ["a", "b", "c"]}
    assert response_work(row, use_atomic_facts=True) == RESPONSE_OVERHEAD_FACTS + 3
    assert response_work(row, use_atomic_facts=False) == RESPONSE_OVERHEAD_FACTS + 4
    assert response_work({"topic": "Ada", "output": ""}, True) == RESPONSE_OVERHEAD_FACTS
    assert response_work({"topic": "Ada", "output": None}, False) == RESPONSE_OVERHEAD_FACTS
    now = [0.0]
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: now[0])
    # rows 0 and 2 done before; this run scores row 1 (weight 2) in 10 s: row 3's 4 to come
    resumed = _progress([1.0, 2.0, 3.0, 4.0], todo=[1, 3], desc="factscore")
    resumed.out = io.StringIO()
    assert resumed.initial == 2 and resumed.total == 4
    now[0] = 10.0
    resumed.advance(1)
    assert resumed.line().endswith("3/4 responses, 10.0 s each, 10 s so far, about 20 s left")
    fresh = _progress([1.0, 3.0], todo=[0, 1], desc="factscore")
    fresh.out = io.StringIO()
    now[0] = 20.0
    fresh.advance(1)  # by the count this would say 10 s left; by the weights, 30
    assert fresh.line().endswith("about 30 s left")


def test_factscore_says_when_its_default_judge_is_the_minilm_checker_for_want_of_a_base(
    kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real CLI and the shipped MiniLM checker as the judge; only what is installed is set."""
    from favakit.cli import main

    monkeypatch.setattr("favakit.inference.checker.auto_checker", lambda: "checker")
    monkeypatch.setattr("favakit.inference.models.split_gguf_ready", lambda preset: False)
    inp = tmp_path / "in.jsonl"
    facts = ["She was born in 1815."]
    inp.write_text(json.dumps({"topic": "Ada Lovelace", "output": facts[0], "atomic_facts": facts}))
    common = ["eval", "factscore", "--input", str(inp), "--kb", str(kb), "--use-atomic-facts"]
    assert main([*common, "--out", str(tmp_path / "a.json")]) == 0
    err = capsys.readouterr().err
    assert "favakit eval factscore: note: the mpnet checker's base is not installed" in err, err
    assert json.loads((tmp_path / "a.json").read_text())["usage"] == {
        "verdicts": {"favakit-checker-minilm": 1}
    }
    assert main([*common, "--checker", "checker", "--out", str(tmp_path / "b.json")]) == 0
    assert "note:" not in capsys.readouterr().err
