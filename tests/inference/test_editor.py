"""The editor pipeline with scripted generations: windows, alignment, evidence, backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from favakit.contracts import EditRequest
from favakit.errors import UsageError
from favakit.inference.editor import EditorSettings, GenerativeEditor, align, split_windows
from favakit.inference.generators import (
    choose_backend,
    lora_request_kwargs,
    vllm_engine_kwargs,
    vllm_sampling_kwargs,
)
from favakit.llm import FunctionClient, GenerationParams
from favakit.prompts import parse_prompt
from favakit.tags import Edit, Tagged

TEXT = "Marie Curie won the Nobel Prize in 1911. She was born in Paris."


def test_align_faithful_output_gives_offsets_into_the_input() -> None:
    out = (
        "Marie Curie won the Nobel Prize in <entity><delete>1911</delete><mark>1903</mark>"
        "</entity>. She was born in <entity><delete>Paris</delete><mark>Warsaw</mark></entity>."
    )
    got, repairs = align(TEXT, out)
    assert repairs == [] and got.mismatches == [] and got.unplaced == 0
    assert [TEXT[e["start"] : e["end"]] for e in got.edits] == ["1911", "Paris"]
    assert got.corrected == "Marie Curie won the Nobel Prize in 1903. She was born in Warsaw."


def test_align_reports_rewritten_text_and_keeps_only_edits_that_fit() -> None:
    # the model dropped "Nobel" and invented an edit of a word that is not in the input
    out = (
        "Marie Curie won the Prize in <entity><delete>1911</delete><mark>1903</mark></entity>. "
        "She was born in <entity><delete>Lyon</delete><mark>Warsaw</mark></entity>."
    )
    got, _ = align(TEXT, out)
    assert got.mismatches and any(m["expected"].strip() == "Nobel" for m in got.mismatches)
    assert [e["wrong"] for e in got.edits] == ["1911"] and got.unplaced == 1
    # corrected is the input with the placed edit applied: never the model's rewritten text
    assert got.corrected == "Marie Curie won the Nobel Prize in 1903. She was born in Paris."


def test_align_tolerates_whitespace_and_tidies_deletions() -> None:
    got, _ = align(
        "It was   big. Very big.",
        "It was big. <subjective>Very big.</subjective>\n",
    )
    assert got.mismatches == []  # whitespace differences are not unfaithful
    assert got.edits[0]["wrong"] == "Very big." and got.edits[0]["right"] == ""
    assert got.corrected == "It was   big."
    kept, _ = align("It was big. Very big.", "It was big. <subjective>Very big.</subjective>", True)
    assert kept.corrected == "It was big. Very big."  # keep_bare, as FAVA's code does


def test_align_drops_the_spaces_a_correction_would_double() -> None:
    # the shipped editor wrote "<mark> Liverpool</mark>": "formed in  Liverpool" before this
    text = "The Beatles were formed in Manchester in 1960."
    got, _ = align(
        text, "The Beatles were formed in <entity><mark> Liverpool </mark><delete>Manchester"
        "</delete></entity> in 1960.",
    )  # fmt: skip
    assert got.edits[0]["right"] == "Liverpool"
    assert got.corrected == "The Beatles were formed in Liverpool in 1960."
    # a space the text does not have on that side stays: "1960s" -> "1960 s" is the model's
    kept, _ = align(
        "in the 1960s.", "in the <entity><mark>1950 </mark><delete>1960</delete></entity>s."
    )
    assert kept.edits[0]["right"] == "1950 "


@given(st.text(alphabet="ab .!?\n", max_size=300), st.integers(1, 40))
def test_windows_cover_every_character_once(text: str, size: int) -> None:
    windows = split_windows(text, size)
    covered = [i for s, e in windows for i in range(s, e)]
    assert covered == sorted(set(covered))  # ordered, no overlap
    assert all(e - s <= size for s, e in windows)
    assert {i for i, c in enumerate(text) if not c.isspace()} <= set(covered)


def test_windows_cut_at_sentence_ends() -> None:
    text = "One two three. Four five six! Seven eight nine? Ten."
    assert [text[s:e] for s, e in split_windows(text, 30)] == [
        "One two three. Four five six!",
        "Seven eight nine? Ten.",
    ]


def _echo_editor(**settings: object) -> tuple[GenerativeEditor, list[str]]:
    """An editor whose 'model' copies the text and tags every '1911' as an entity error."""
    prompts: list[str] = []

    def model(prompt: str, params: GenerationParams) -> str:
        prompts.append(prompt)
        pieces = parse_prompt(prompt).text.split("1911")
        segments: list[str | Edit] = [pieces[0]]
        for piece in pieces[1:]:
            segments += [Edit("entity", "1911", "1903"), piece]
        return Tagged(segments).render()

    client = FunctionClient(model, model="echo")
    return GenerativeEditor(client, settings=EditorSettings(**settings)), prompts  # type: ignore[arg-type]


def test_long_text_is_edited_in_windows_and_merged() -> None:
    editor, prompts = _echo_editor(window_chars=50)
    text = " ".join(f"Fact {i}: it happened in 1911." for i in range(6))
    res = editor.edit({"text": text, "evidence": ["It happened in 1903."]})
    assert len(prompts) > 2  # several windows
    assert res["faithful"] and len(res["edits"]) == 6
    assert all(text[e["start"] : e["end"]] == "1911" for e in res["edits"])
    assert res["corrected"] == text.replace("1911", "1903")
    assert res["evidence"] == [{"title": "", "text": "It happened in 1903."}]
    assert all("Reference [1]: It happened in 1903." in p for p in prompts)


def test_results_keep_request_order_and_validate_input() -> None:
    editor, _ = _echo_editor()
    out = editor.edit_many(["In 1911.", {"text": "Nothing here."}, EditRequest("Also 1911.")])
    assert [r["original"] for r in out] == ["In 1911.", "Nothing here.", "Also 1911."]
    assert [len(r["edits"]) for r in out] == [1, 0, 1]
    for bad, message in [
        ({"text": ""}, "empty"),
        ({"text": 5}, "must be a string"),
        ({"text": "x", "evidence": "abc"}, "list"),
    ]:
        with pytest.raises(UsageError, match=message):
            editor.edit(bad)


def test_prompt_loses_references_to_fit_the_context() -> None:
    editor, prompts = _echo_editor(context_tokens=120)
    editor.count_tokens = lambda s: len(s.split())
    editor.edit({"text": "It was 1911.", "evidence": [("word " * 40).strip()] * 3})
    assert len(parse_prompt(prompts[0]).references) < 3


def test_vllm_arguments_are_built_from_the_adapter(tmp_path: Path) -> None:
    (tmp_path / "adapter_config.json").write_text(json.dumps({"r": 24}))
    assert lora_request_kwargs(str(tmp_path)) == {
        "lora_name": "favakit",
        "lora_int_id": 1,
        "lora_path": str(tmp_path.resolve()),
    }
    engine = vllm_engine_kwargs("base", str(tmp_path))
    assert engine["enable_lora"] and engine["max_lora_rank"] == 32  # the next rank vLLM takes
    assert "enable_lora" not in vllm_engine_kwargs("base")
    sampling = vllm_sampling_kwargs(GenerationParams(max_tokens=9, stop=("x",), seed=3))
    assert sampling == {"max_tokens": 9, "temperature": 0.0, "top_p": 1.0, "stop": ["x"], "seed": 3}
    with pytest.raises(UsageError, match="adapter_config"):
        lora_request_kwargs(str(tmp_path / "missing"))


def test_backend_choice() -> None:
    assert choose_backend("auto", vllm_importable=True, cuda=True) == "vllm"
    assert choose_backend("auto", vllm_importable=True, cuda=False) == "hf"
    assert choose_backend("auto", vllm_importable=False, cuda=True) == "hf"
    assert choose_backend("hf", vllm_importable=True, cuda=True) == "hf"
    with pytest.raises(UsageError, match="CUDA"):
        choose_backend("vllm", vllm_importable=False, cuda=False)


def test_evidence_is_retrieved_from_a_real_index_when_the_caller_gives_none(
    corpus_jsonl: Path, tmp_path: Path
) -> None:
    from favakit.retrieval.index import build_index
    from favakit.retrieval.kb import build_kb
    from favakit.retrieval.search import Searcher

    build_kb(corpus_jsonl, tmp_path / "kb.db", max_tokens=24)
    build_index(tmp_path / "kb.db", tmp_path / "bm25", kind="bm25")
    editor, prompts = _echo_editor(k=2)
    editor.searcher = Searcher([tmp_path / "bm25"], kb=tmp_path / "kb.db", title_match=True)
    res = editor.edit({"text": "Saturn is the sixth planet from the Sun.", "topic": "Saturn"})
    assert res["evidence"] and any("Saturn" in e["text"] for e in res["evidence"])
    assert parse_prompt(prompts[0]).references == [
        e["text"] if not e["title"] else f"({e['title']}) {e['text']}" for e in res["evidence"]
    ]
    given = editor.edit({"text": "Saturn is far.", "evidence": ["As given."]})
    assert given["evidence"] == [{"title": "", "text": "As given."}]  # used as is, no retrieval


def test_the_editor_runs_in_bf16_where_the_cpu_multiplies_it(
    tiny_llama: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--dtype auto`` loads an in-process editor in bf16 on a CPU with AVX512-BF16 or AMX
    (the shipped editor wrote the same outputs there in about 0.6 of the time), fp32 where bf16
    is emulated; a dtype named stays as named."""
    torch = pytest.importorskip("torch")
    from favakit.inference.factory import open_editor
    from favakit.spec import ClientSpec

    def dtype(spec: ClientSpec) -> object:
        return open_editor(spec).client.generator.model.dtype  # type: ignore[attr-defined]

    monkeypatch.setattr("favakit.deps.cuda_available", lambda: False)
    monkeypatch.setattr("favakit.deps.cpu_has_bf16", lambda: True)
    assert dtype(ClientSpec(str(tiny_llama))) == torch.bfloat16
    assert dtype(ClientSpec(str(tiny_llama), dtype="float32")) == torch.float32
    monkeypatch.setattr("favakit.deps.cpu_has_bf16", lambda: False)
    assert dtype(ClientSpec(str(tiny_llama))) == torch.float32
