"""The language note in verdicts, edits and the commands' summaries (favakit.language)."""

from __future__ import annotations

import pytest

from favakit.language import NOT_ENGLISH


def test_every_judge_s_verdict_and_the_gate_s_edits_carry_the_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Verdicts made through judged_where_evidence (the checker, the cascade, the LLM judges),
    and the gate's results, say where their text does not read as English; `favakit verify`
    and `edit` count them at the end."""
    from favakit.contracts import EditRequest
    from favakit.inference.cli import _say_not_english
    from favakit.inference.gate import _noting_language
    from favakit.inference.verifiers import judged_where_evidence

    claims = [EditRequest.from_claim({"text": t, "evidence": ["Die Hauptstadt ist Berlin."]})
              for t in ("Berlin ist die Hauptstadt von Deutschland.", "Berlin is a city.")]  # fmt: skip
    verdicts = judged_where_evidence(
        claims, lambda asked: [{"supported": True, "score": 0.9, "judge": "j"} for _ in asked], "j"
    )
    assert verdicts[0]["warnings"][0].startswith(f"the claim {NOT_ENGLISH} (words such as")
    assert "warnings" not in verdicts[1]  # the evidence, a few words, passes unwarned
    result = {"original": "Paris is in France.", "corrected": "Paris is in France.",
              "edits": [], "evidence": [{"title": "", "text": "Москва — столица России."}],
              "warnings": ["kept"]}  # fmt: skip
    noted = _noting_language(result)  # type: ignore[arg-type]
    assert noted["warnings"][0] == "kept"
    assert noted["warnings"][1].startswith(f"the evidence {NOT_ENGLISH} (Cyrillic letters)")
    _say_not_english([dict(v) for v in verdicts], "verify", "claim")
    assert "favakit verify: warning: 1 claim(s), or their evidence, do not read as English" in (
        capsys.readouterr().err
    )


@pytest.mark.slow
def test_the_editor_as_judge_says_it_of_the_claim() -> None:
    """`verify --judge encoder`: the shipped detector (a real model, ungated) as the judge."""
    from favakit.inference.factory import open_verifier
    from favakit.spec import ClientSpec

    verifier = open_verifier("encoder", ClientSpec(device="cpu"))
    german, english = verifier.verify([
        {"text": "Berlin ist die Hauptstadt von Deutschland.",
         "evidence": ["Die Hauptstadt Deutschlands ist Berlin."]},
        {"text": "Berlin is the capital of Germany.",
         "evidence": ["Berlin is the capital of Germany."]},
    ])  # fmt: skip
    assert [w for w in german.get("warnings", []) if NOT_ENGLISH in w] == [
        "the claim does not read as English (words such as 'ist', 'die'): favakit's models were "
        "trained on English text, and what they say of other languages is untested"
    ]
    assert not any(NOT_ENGLISH in w for w in english.get("warnings", []))
