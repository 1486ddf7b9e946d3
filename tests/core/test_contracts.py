"""The contracts: every editor and verifier favakit builds satisfies the protocols of
favakit.contracts, and requests are validated one way everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from favakit.contracts import Editor, EditRequest, Verifier, as_request
from favakit.errors import UsageError
from favakit.inference.detector import Detector, DetectorEditor, default_detector
from favakit.inference.editor import GenerativeEditor
from favakit.inference.judges import Judge
from favakit.inference.verifiers import EditorVerifier, LLMVerifier
from favakit.llm import FunctionClient
from favakit.spec import ClientSpec


def _echo(prompt: str, params: object) -> str:
    """A 'model' that copies the text it is asked to check and tags nothing."""
    return prompt.rsplit("\n", 2)[-2] if "\n" in prompt else prompt


def test_every_backend_is_an_editor_or_a_verifier() -> None:
    generative = GenerativeEditor(FunctionClient(_echo, model="echo"))
    encoder = DetectorEditor(Detector(default_detector()))
    cascade = DetectorEditor(Detector(default_detector()), generative=generative)
    for editor in (generative, encoder, cascade, Detector(default_detector())):
        assert isinstance(editor, Editor), editor
    judge = Judge(FunctionClient(lambda p, _: "True", model="judge"))
    for verifier in (LLMVerifier(judge), EditorVerifier(encoder), EditorVerifier(generative)):
        assert isinstance(verifier, Verifier), verifier
    assert not isinstance(generative, Verifier) and not isinstance(LLMVerifier(judge), Editor)


def test_verdicts_have_the_declared_keys_and_types() -> None:
    judge = Judge(FunctionClient(lambda p, _: "False", model="judge"))
    claims = [{"text": "Ada was born in 1815.", "evidence": ["Ada was born in 1815."]}]
    for verifier in (
        LLMVerifier(judge),
        EditorVerifier(DetectorEditor(Detector(default_detector()))),
    ):
        (verdict,) = verifier.verify(claims)
        assert set(verdict) <= {"supported", "score", "judge", "warnings", "id"}
        assert isinstance(verdict["supported"], bool) and 0.0 <= verdict["score"] <= 1.0
        assert verdict["judge"] == verifier.model
    # an answer read from text (no log-probabilities) scores 1 or 0
    assert LLMVerifier(judge).verify(claims)[0] == {
        "supported": False,
        "score": 0.0,
        "judge": "judge",
    }


def test_requests_are_validated_with_the_field_named() -> None:
    assert as_request("a text").text == "a text"
    req = as_request({"text": "t", "evidence": ["e", {"title": "T", "text": "f"}]})
    assert req.passages() == [{"title": "", "text": "e"}, {"title": "T", "text": "f"}]
    assert EditRequest.from_claim({"claim": "c"}).text == "c"
    with pytest.raises(UsageError, match="request 3: 'text' is empty"):
        as_request({"text": " "}, 3)
    with pytest.raises(ValueError, match=r"'evidence' must be a list of passages, not one string"):
        EditRequest.from_obj({"text": "t", "evidence": "e"})
    with pytest.raises(ValueError, match="'evidence' must be a list of strings"):
        EditRequest.from_obj({"text": "t", "evidence": 3})


def test_one_text_given_where_a_list_is_asked_is_refused() -> None:
    """`editor.edit_many("a text")` was read as one request per character, and refused at the
    first space: "request 3: 'text' is empty"."""
    from favakit.contracts import as_claims, as_requests

    with pytest.raises(UsageError, match=r"^expected a list of texts, and got one str: give "
                                         r"\[item\] for one \(a string on its own"):  # fmt: skip
        as_requests("The Eiffel Tower is in Berlin.")
    with pytest.raises(UsageError, match=r"^expected a list of claims, and got one dict: give "
                                         r"\[item\] for one$"):  # fmt: skip
        as_claims({"text": "t", "evidence": ["e"]})
    assert [r.text for r in as_requests(("a", {"text": "b"}))] == ["a", "b"]
    assert [r.text for r in as_claims([{"claim": "c"}])] == ["c"]
    editor = DetectorEditor(Detector(default_detector()))  # the real editors read them so
    with pytest.raises(UsageError, match="expected a list of texts"):
        editor.edit_many("The Eiffel Tower is in Berlin.")  # type: ignore[arg-type]


def test_evidence_passages_of_only_spaces_are_no_evidence() -> None:
    req = as_request({"text": "t", "evidence": ["  ", {"title": "T", "text": "\n"}, "e"]})
    assert req.passages() == [{"title": "", "text": "e"}]
    blank = as_request({"text": "t", "evidence": [" \t"]})
    assert blank.evidence == [] and blank.passages() == []  # given, so nothing is retrieved


def test_client_spec_checks_its_fields() -> None:
    assert not ClientSpec().names_model and ClientSpec(adapter="a").names_model
    assert ClientSpec().with_(model="m").model == "m"
    with pytest.raises(ValueError, match="backend"):
        ClientSpec(backend="encoder")
    with pytest.raises(ValueError, match="max_batch"):
        ClientSpec(max_batch=0)


def test_client_spec_from_flags() -> None:
    import argparse

    from favakit.spec import add_model_options

    parser = argparse.ArgumentParser()
    add_model_options(parser, backends=("auto", "vllm", "hf", "encoder"))
    add_model_options(parser, prefix="editor-")
    args = parser.parse_args(
        ["--adapter", "A", "--llm-endpoint", "http://h/v1", "--backend", "encoder",
         "--max-batch", "4", "--editor-model", "E", "--editor-endpoint", "http://e/v1"]
    )  # fmt: skip
    spec = ClientSpec.from_args(args)
    assert (spec.adapter, spec.endpoint, spec.backend, spec.max_batch) == (
        "A", "http://h/v1", "auto", 4
    )  # fmt: skip
    editor = ClientSpec.from_args(args, prefix="editor-")
    assert (editor.model, editor.adapter, editor.endpoint, editor.max_batch) == (
        "E", None, "http://e/v1", 4
    )  # fmt: skip


def test_unknown_kinds_are_refused_before_anything_loads(tmp_path: Path) -> None:
    from favakit.inference.factory import open_editor, open_verifier

    with pytest.raises(UsageError, match="editor kind"):
        open_editor(ClientSpec(), kind="magic")
    with pytest.raises(UsageError, match="judge must be one of"):
        open_verifier("magic")
    with pytest.raises(UsageError, match="--threshold"):
        open_verifier("encoder", threshold=0.5)
    with pytest.raises(UsageError, match="--kb needs --index"):
        open_editor(ClientSpec(), kind="encoder", kb=str(tmp_path / "kb.db"))
