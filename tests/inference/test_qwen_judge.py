"""The tuned Qwen judge's plumbing (``--judge qwen``): evidence cut as the judge was trained,
the threshold and prompt from its ``judge.json``, and the cascade naming it. The shipped adapter
needs the 1.1 GB Qwen base, so the judge here is the tiny Llama with a tiny adapter in a folder
laid out like ``inference/qwen_judge``; the shipped one was checked against its GPU scores
(docs/benchmarks.md, session 24)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from favakit.contracts import EditInput, Verdict, as_request
from favakit.inference.verifiers import CutEvidence, cut_evidence


class Recorder:
    """A verifier that keeps what it was asked and calls everything supported."""

    model = "recorder"

    def __init__(self) -> None:
        self.seen: list[EditInput] = []

    def verify(self, claims: Sequence[EditInput]) -> list[Verdict]:
        self.seen += list(claims)
        return [{"supported": True, "score": 1.0, "judge": self.model} for _ in claims]


LONG = ["The river flows north.", "Filler words about nothing. " * 60, "Oslo lies on a fjord."]


def test_cut_evidence_keeps_the_words_that_share_most_with_the_claim() -> None:
    cut = cut_evidence([{"text": "Oslo lies on a fjord.", "evidence": LONG}], 12)
    (only,) = as_request(cut[0]).evidence or []
    assert "Oslo lies on a fjord." in only.text and "Filler" not in only.text
    assert len(only.text.split()) <= 12
    short = cut_evidence([{"text": "x", "evidence": ["a b c", "d e"]}], 12)
    assert [e.text for e in as_request(short[0]).evidence or []] == ["a b c d e"]  # fits: whole


def test_cut_evidence_ranks_titled_passages_with_their_titles() -> None:
    teams = [{"title": "2016 Colorado team", "text": "The 2016 Colorado team played in Boulder. "
              "They finished the season 19-15."},
             {"title": "2009 Colorado team", "text": "Filler about the stands. " * 3
              + "The Colorado team finished the season 3-9 under its new coach."}]  # fmt: skip
    claim = {"text": "The 2016 Colorado team finished the season 3-9.", "evidence": teams}
    (only,) = as_request(cut_evidence([claim], 12)[0]).evidence or []
    assert only.text == teams[0]["text"]
    untitled = {**claim, "evidence": [t["text"] for t in teams]}
    (plain,) = as_request(cut_evidence([untitled], 12)[0]).evidence or []
    assert plain.text == "The Colorado team finished the season 3-9 under its new coach."


def test_cut_evidence_verifier_passes_cut_claims_to_its_judge() -> None:
    inner = Recorder()
    verdicts = CutEvidence(inner, 12).verify([{"text": "Oslo lies on a fjord.", "evidence": LONG}])
    assert verdicts[0]["supported"] and CutEvidence(inner, 12).model == "recorder"
    (passage,) = as_request(inner.seen[0]).evidence or []
    assert "Filler" not in passage.text
    with pytest.raises(ValueError):
        CutEvidence(inner, 0)


@pytest.fixture()
def judge_folder(judge_folder_with: Callable[[float], Path]) -> Path:
    return judge_folder_with(-1.0)  # judge.json's gate threshold


def test_the_qwen_judge_reads_its_judge_json(judge_folder: Path) -> None:
    from favakit.inference.factory import open_verifier
    from favakit.spec import ClientSpec

    judge = open_verifier("qwen", ClientSpec(backend="hf", device="cpu"))
    assert isinstance(judge, CutEvidence) and judge.words == 20
    assert judge.inner.judge.style == "strict" and judge.inner.judge.threshold == 0.3  # type: ignore[attr-defined]
    claims = [{"text": "saturn is the sixth planet from the sun .",
               "evidence": ["saturn is the sixth planet from the sun .", "titan is its largest moon ."]},
              {"text": "titan is its largest moon .", "evidence": ["mount etna is a volcano in sicily ."]}]  # fmt: skip
    verdicts = judge.verify(claims)
    assert len(verdicts) == 2
    for v in verdicts:
        assert 0.0 <= v["score"] <= 1.0 and v["supported"] == (v["score"] > 0.3)
    stricter = open_verifier("qwen", ClientSpec(backend="hf", device="cpu"), threshold=0.99)
    assert stricter.inner.judge.threshold == 0.99  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="chunk-words and --prompt-style"):
        open_verifier("qwen", ClientSpec(backend="hf"), style="factscore")


def test_on_a_cpu_the_judge_fills_a_pass_up_to_its_token_budget(judge_folder: Path) -> None:
    """judge.json's ``cpu_pass_tokens`` caps the padded tokens of one pass on a CPU (more only
    pads there); the verdicts are those of the usual batches."""
    from favakit.inference.factory import open_verifier
    from favakit.spec import ClientSpec

    claims = [{"text": "titan is its largest moon .", "evidence": ["titan is its largest moon ."]},
              {"text": "saturn is the sixth planet .", "evidence": ["mount etna is in sicily , "
               "an island of italy , and it is one of the most active volcanoes ."]},
              {"text": "etna is a volcano .", "evidence": ["mount etna is a volcano ."]}]  # fmt: skip

    def opened() -> tuple[int | None, list[float]]:
        judge = open_verifier("qwen", ClientSpec(backend="hf", device="cpu"))
        generator = judge.inner.client.generator  # type: ignore[attr-defined]
        return generator.pass_tokens, [v["score"] for v in judge.verify(claims)]

    budget, usual = opened()
    assert budget is None  # no cpu_pass_tokens in judge.json: max_batch prompts a pass
    cfg = json.loads((judge_folder / "judge.json").read_text())
    (judge_folder / "judge.json").write_text(json.dumps({**cfg, "cpu_pass_tokens": 16}))
    budget, fewer = opened()
    assert budget == 16 and fewer == pytest.approx(usual, abs=1e-4)


def test_the_cascade_can_name_the_tuned_judge(
    judge_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from favakit.inference.checker import checker_folder
    from favakit.inference.factory import open_verifier
    from favakit.inference.verifiers import CascadeVerifier, OpenedOnFirstUse
    from favakit.spec import ClientSpec

    checker = tmp_path / "checker"
    shutil.copytree(checker_folder("checker"), checker)
    cfg = json.loads((checker / "checker.json").read_text())
    cfg["cascade"] = {"judge": "qwen", "band": [0.0, 1.0], "second_words": 20}
    (checker / "checker.json").write_text(json.dumps(cfg))
    cascade = open_verifier("cascade", ClientSpec(backend="hf", device="cpu"), checker=str(checker))
    assert isinstance(cascade, CascadeVerifier) and isinstance(cascade.second, OpenedOnFirstUse)
    assert cascade.second.inner is None  # loaded once a claim falls in the band
    (v,) = cascade.verify(
        [{"text": "titan is its largest moon .", "evidence": ["titan is its largest moon ."]}]
    )
    assert isinstance(cascade.second.inner, CutEvidence)
    notice = capsys.readouterr().err  # the pause of its load is said, once
    assert notice.count("favakit: loading ") == 1 and "asks about the claims it is unsure" in notice
    assert "decided" in v["warnings"][-1]  # the band holds every score: the judge decided
    from favakit.inference.verifiers import second_judge_decided

    assert second_judge_decided(v)
    (alone,) = cascade.first.verify([{"text": "titan is its largest moon .", "evidence": ["x"]}])
    assert not second_judge_decided(alone)


def test_judge_scorer_gives_each_sentence_its_verdict_score() -> None:
    from favakit.inference.gate import JudgeScorer

    inner = Recorder()
    scorer = JudgeScorer(inner, 0.4, "recorder")
    assert scorer.score(["a.", "b."], [["x"], ["y", "z"]]) == [(1.0, 1), (1.0, 1)]
    assert [as_request(c).text for c in inner.seen] == ["a.", "b."]
    assert [e.text for e in as_request(inner.seen[1]).evidence or []] == ["y", "z"]


def test_the_qwen_gate_decides_by_the_judge_at_its_gate_threshold(judge_folder: Path) -> None:
    from favakit.inference.factory import open_editor
    from favakit.inference.gate import GateSettings
    from favakit.spec import ClientSpec

    text = "Saturn is the sixth planet from the Sun. Titan is its largest moon."
    request = {"text": text, "evidence": ["Saturn is the sixth planet from the Sun."]}
    # judge.json's gate threshold -1 (below any score): every sentence is left alone
    (alone,) = open_editor(ClientSpec(device="cpu"), "encoder", gate="qwen").edit_many([request])
    assert alone["edits"] == [] and alone["corrected"] == text
    # --gate-threshold 1.0: no sentence is supported, so each is edited or flagged
    strict = open_editor(ClientSpec(device="cpu"), "encoder",
                         gate=GateSettings("qwen", threshold=1.0))  # fmt: skip
    (flagged,) = strict.edit_many([request])
    assert {e["start"] for e in flagged["edits"]} >= {0} and strict.model.endswith(
        "favakit-qwen-judge"
    )
    assert all("checker_score" in e for e in flagged["edits"])


def test_the_shipped_judge_is_installed_with_its_choices() -> None:
    """The package holds the adapter and the choices made on the development split."""
    from favakit.inference.models import qwen_judge

    folder = Path(qwen_judge())
    cfg = json.loads((folder / "judge.json").read_text())
    assert cfg["model"] == "qwen2.5-coder-1.5b" and cfg["style"] == "strict"
    assert 0.0 < cfg["gate_threshold"] <= cfg["threshold"] < 1.0 and cfg["evidence_words"] > 0
    assert cfg["cpu_pass_tokens"] >= 256 and "development" in cfg["cpu_pass_tokens_chosen_on"]
    assert "development split" in cfg["chosen_on"]
    adapter = json.loads((folder / "adapter_config.json").read_text())
    assert adapter["base_model_name_or_path"] == "qwen2.5-coder-1.5b"
    assert (folder / "adapter_model.safetensors").stat().st_size > 1_000_000


def test_the_tuned_judge_asks_one_token_and_scores_as_a_longer_answer_would(
    judge_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdict is read from the first token's log-probabilities, so the tuned judge asks for
    that token alone (no decoding steps after it; prompts sharing their instructions then share
    one pass over them). A spy on the real generator records what it is asked."""
    from favakit.inference.factory import open_verifier
    from favakit.spec import ClientSpec

    judge = open_verifier("qwen", ClientSpec(backend="hf", device="cpu"))
    llm_judge = judge.inner.judge  # type: ignore[attr-defined]
    generator = llm_judge.client.generator
    asked: list[int] = []
    real = generator.generate
    monkeypatch.setattr(generator, "generate",
                        lambda prompts, params: asked.append(params.max_tokens) or real(prompts, params))  # fmt: skip
    claims = [{"text": "saturn is the sixth planet from the sun .",
               "evidence": ["saturn is the sixth planet from the sun ."]},
              {"text": "titan is its largest moon .", "evidence": ["mount etna is a volcano ."]}]  # fmt: skip
    one = [v["score"] for v in judge.verify(claims)]
    assert asked == [1]
    llm_judge.max_tokens = 8  # as every judge asked before: the first token and up to 7 more
    eight = [v["score"] for v in judge.verify(claims)]
    assert asked == [1, 8]
    assert one == pytest.approx(eight, abs=1e-4)


def test_a_verdict_on_cut_evidence_says_how_much_the_judge_read() -> None:
    """Issue 31: no silent truncation. The judge reads 12 of the evidence's words; its verdict
    says so, and a claim whose evidence fits says nothing of a cut."""
    given = sum(len(e.split()) for e in LONG)
    cut, whole = CutEvidence(Recorder(), 12).verify(
        [{"text": "Oslo lies on a fjord.", "evidence": LONG},
         {"text": "Oslo lies on a fjord.", "evidence": ["Oslo lies on a fjord."]}]
    )  # fmt: skip
    (note,) = cut["warnings"]
    read = int(note.split(", ")[-1].split(" of ")[0])
    assert note.startswith("evidence cut: the judge read") and note.endswith(
        f"of its {given} words"
    )
    assert 0 < read <= 12
    assert "warnings" not in whole
