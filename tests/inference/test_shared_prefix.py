"""Prompts that share their start (claims against the same evidence) are scored from one pass
over what they share: the same first token and log-probabilities as each prompt run alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from favakit.inference.generators import passes, shared_prefix_groups

pytest.importorskip("torch")


def test_groups_hold_prompts_with_the_same_start() -> None:
    a = [1, 2, 3, 4, 5, 6]
    b = [1, 2, 3, 4, 5, 7, 8]
    c = [9, 9, 9, 9]
    d = [1, 2, 3, 4, 9]
    groups = shared_prefix_groups([a, b, c, d], min_shared=4)
    assert groups == [([0, 1, 3], 4)]  # c shares nothing; sorted order: a < b < d
    assert shared_prefix_groups([a, b, c, d], min_shared=5) == [([0, 1], 5)]
    assert shared_prefix_groups([a, c], min_shared=1) == []


def test_every_prompt_keeps_a_token_of_its_own() -> None:
    same = [5, 6, 7, 8]
    longer = [5, 6, 7, 8, 9]
    groups = shared_prefix_groups([same, list(same), longer], min_shared=2)
    assert groups == [([0, 1, 2], 3)]  # not 4: the identical prompts need their last token


def test_one_prompt_that_shares_little_does_not_cut_the_rest() -> None:
    doc = list(range(100, 200))
    rows = [[*doc, 1, 2], [*doc, 1, 3], [*doc[:10], 7, 7]]
    groups = shared_prefix_groups(rows, min_shared=5)
    assert groups == [([0, 1], 101)]  # the third would cut 101 shared tokens to 10


def test_passes_hold_max_batch_prompts_or_what_fits_the_token_budget() -> None:
    order = [4, 0, 3, 1, 2]  # shortest first
    assert passes(order, [5, 5, 5, 5, 5], max_batch=2) == [[4, 0], [3, 1], [2]]
    # 512 padded tokens a pass: short prompts together, a long one alone, and one longer than
    # the budget still runs (alone)
    cut = passes(order, [60, 60, 200, 300, 900], max_batch=8, budget=512)
    assert cut == [[4, 0], [3], [1], [2]]
    assert passes(order, [60, 60, 60, 60, 60], max_batch=8, budget=512) == [order]
    assert passes(order, [60, 60, 60, 60, 60], max_batch=3, budget=512) == [[4, 0, 3], [1, 2]]
    assert passes([], [], max_batch=8, budget=512) == []


def _prompts() -> list[str]:
    evidence = " ".join(["marie curie was born in warsaw in 1867 ."] * 12)  # >64 tokens
    claims = ["marie curie was born in warsaw .", "marie curie was born in paris in 1867 .",
              "curie .", "paris was born in 1867 in warsaw warsaw warsaw ."]  # fmt: skip
    rows = [f"{evidence} input : {c} true or false ? answer :" for c in claims]
    return [*rows, "warsaw was born in paris ."]  # one that shares nothing


@pytest.mark.parametrize(("with_adapter", "budget"), [(False, None), (True, None), (False, 30)])
def test_shared_pass_gives_what_each_prompt_gives_alone(
    tiny_llama: Path, tiny_adapter: Path, with_adapter: bool, budget: int | None, monkeypatch: Any
) -> None:
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams

    gen = HFGenerator.load(
        str(tiny_llama), adapter=str(tiny_adapter) if with_adapter else None, device="cpu",
        max_batch=3,  # the group of four runs its own tokens in two batches
    )  # fmt: skip
    gen.pass_tokens = budget  # 30: the claims' own 8, 13, 15 and 16 tokens: two, then one a pass
    cut: list[list[list[int]]] = []
    monkeypatch.setattr(
        "favakit.inference.generators.passes", lambda *a: cut.append(passes(*a)) or cut[-1]
    )
    calls: list[int] = []
    shared = gen._shared
    monkeypatch.setattr(
        gen, "_shared", lambda ids, n, p: calls.append(len(ids)) or shared(ids, n, p)
    )
    params = GenerationParams(max_tokens=1, temperature=0.0, logprobs=5)
    prompts = _prompts()
    together = gen.generate(prompts, params)
    assert calls == [4]  # the four claims went through the shared pass, the fifth did not
    assert [len(p) for p in cut[0]] == ([3, 1] if budget is None else [2, 1, 1])
    gen.shared_prefix_tokens = 0  # each prompt alone, the usual way: generate() on all of it
    for prompt, got in zip(prompts, together, strict=True):
        alone = gen.generate([prompt], params)[0]
        assert got.text == alone.text
        assert got.prompt_tokens == alone.prompt_tokens
        assert (got.completion_tokens, got.finish_reason) == (alone.completion_tokens,
                                                             alone.finish_reason)  # fmt: skip
        assert got.logprobs is not None and alone.logprobs is not None
        assert got.logprobs[0].keys() == alone.logprobs[0].keys()
        for token, value in alone.logprobs[0].items():
            assert got.logprobs[0][token] == pytest.approx(value, abs=1e-4)


def test_one_prompt_a_call_reuses_the_start_it_shares_with_earlier_calls(
    tiny_llama: Path, monkeypatch: Any
) -> None:
    """A judge asked about one claim at a time: from the second call on, the instructions its
    prompts share are run once and kept; each answer is what the usual path gives."""
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams

    gen = HFGenerator.load(str(tiny_llama), device="cpu")
    params = GenerationParams(max_tokens=1, temperature=0.0, logprobs=5)
    prompts = _prompts()
    gen.shared_prefix_tokens = 0
    usual = [gen.generate([p], params)[0] for p in prompts]
    gen.shared_prefix_tokens = 64
    calls: list[int] = []
    shared = gen._shared
    monkeypatch.setattr(gen, "_shared", lambda ids, n, p: calls.append(n) or shared(ids, n, p))
    got = [gen.generate([p], params)[0] for p in prompts]
    # the first claim had no earlier call to share with; the second shares its evidence and
    # first words with it; the third and fourth share the evidence and "input :" (the kept
    # start shrinks to that once, then stays); the fifth shares nothing
    assert len(calls) == 3 and calls[0] > calls[1] == calls[2] >= 64
    assert gen._start is not None and len(gen._start[0]) == calls[2]
    kept = gen._start[1]
    gen.generate([prompts[2]], params)
    assert gen._start[1] is kept  # the start was not run again
    for mine, theirs in zip(got, usual, strict=True):
        assert (mine.text, mine.prompt_tokens) == (theirs.text, theirs.prompt_tokens)
        assert mine.logprobs is not None and theirs.logprobs is not None
        assert mine.logprobs[0].keys() == theirs.logprobs[0].keys()
        for token, value in theirs.logprobs[0].items():
            assert mine.logprobs[0][token] == pytest.approx(value, abs=1e-4)


def test_longer_answers_and_sampling_take_the_usual_path(
    tiny_llama: Path, monkeypatch: Any
) -> None:
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams

    gen = HFGenerator.load(str(tiny_llama), device="cpu")
    monkeypatch.setattr(gen, "_shared", lambda *a: pytest.fail("shared pass used"))
    prompts = _prompts()
    assert len(gen.generate(prompts, GenerationParams(max_tokens=3, temperature=0.0))) == 5
    assert len(gen.generate(prompts, GenerationParams(max_tokens=1, temperature=0.7, seed=1))) == 5


def test_a_model_whose_config_changes_its_scores_takes_the_usual_path(
    tiny_llama: Path, monkeypatch: Any
) -> None:
    """A repetition penalty (Qwen's generation config has one) changes the scores generate()
    picks from; the shared pass reads raw scores, so it stands aside."""
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams

    gen = HFGenerator.load(str(tiny_llama), device="cpu")
    gen.model.generation_config.repetition_penalty = 1.3
    monkeypatch.setattr(gen, "_shared", lambda *a: pytest.fail("shared pass used"))
    params = GenerationParams(max_tokens=1, temperature=0.0, logprobs=3)
    prompts = _prompts()
    together = gen.generate(prompts, params)
    assert [g.text for g in together] == [gen.generate([p], params)[0].text for p in prompts]


def test_thousands_of_prompts_are_grouped_quickly() -> None:
    """Many claims against one document (and many with nothing shared) stay cheap to group:
    no recursion limit, no quadratic scan over prompts that share too little."""
    doc = list(range(1000, 1100))
    rows = [[*doc, i] for i in range(3000)] + [[i, i + 1, i + 2] for i in range(3000)]
    groups = shared_prefix_groups(rows, min_shared=64)
    assert groups == [(list(range(3000)), 100)]
