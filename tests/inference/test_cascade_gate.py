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
