"""A decoder's last layer run at the kept positions only (favakit.inference.last_positions):
the same next-token scores there as the whole pass, on small random Llama and Qwen2 models,
with prompts padded on the right after a shared start held in a cache, as a judge's one-token
pass runs them."""

from __future__ import annotations

import contextlib
import copy
import inspect
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from favakit.inference.last_positions import kept_positions_only, stands_in  # noqa: E402

SIZES = {"hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4,
         "num_key_value_heads": 2, "intermediate_size": 96, "vocab_size": 150,
         "max_position_embeddings": 128}  # fmt: skip


def _model(kind: str, seed: int, **extra: Any) -> Any:
    torch.manual_seed(seed)
    if kind == "llama":
        config = transformers.LlamaConfig(**SIZES, **extra)
        model = transformers.LlamaForCausalLM(config)
    else:
        config = transformers.Qwen2Config(**SIZES, **extra)
        model = transformers.Qwen2ForCausalLM(config)
    return model.eval()


def _scores(model: Any, kept: bool, seed: int) -> Any:
    """Next-token scores at each row's last position: a start of 11 tokens run once into a
    cache, then three rows of 9, 4 and 1 tokens of their own, padded on the right."""
    gen = torch.Generator().manual_seed(seed)
    start = torch.randint(3, 150, (1, 11), generator=gen)
    own = [torch.randint(3, 150, (n,), generator=gen).tolist() for n in (9, 4, 1)]
    width = max(len(r) for r in own)
    ids = torch.tensor([r + [0] * (width - len(r)) for r in own])
    mask = torch.tensor([[1] * (11 + len(r)) + [0] * (width - len(r)) for r in own])
    positions = torch.arange(11, 11 + width).expand(len(own), -1)
    last = [len(r) - 1 for r in own]
    # the keys and values go in and come out as `cache` (transformers 5), `past_key_values` before
    word = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
    with torch.inference_mode():
        cache = getattr(model(input_ids=start, use_cache=True), word)
        cache = copy.deepcopy(cache)
        cache.batch_repeat_interleave(len(own))
        run = kept_positions_only(model, last) if kept else contextlib.nullcontext()
        layer = model.model.layers[-1]
        with run:
            assert (model.model.layers[-1] is not layer) == kept  # stood in for
            logits = model(input_ids=ids, attention_mask=mask, position_ids=positions,
                           use_cache=True, **{word: cache}).logits  # fmt: skip
        assert model.model.layers[-1] is layer  # and put back
    return logits[torch.arange(len(own)), torch.tensor(last)]


@pytest.mark.parametrize("kind", ["llama", "qwen2"])
@pytest.mark.parametrize("seed", [0, 1])
def test_same_scores_as_the_whole_pass(kind: str, seed: int) -> None:
    model = _model(kind, seed)
    assert stands_in(model)
    whole = _scores(model, kept=False, seed=seed)
    kept = _scores(model, kept=True, seed=seed)
    assert torch.allclose(whole, kept, atol=1e-5), (whole - kept).abs().max()
    # each row's own position was computed, not one row's for all
    assert not torch.allclose(kept[0], kept[1], atol=1e-3)


def test_eager_attention_gives_the_same_scores() -> None:
    model = _model("qwen2", 2)
    model.config._attn_implementation = "eager"
    assert torch.allclose(_scores(model, False, 2), _scores(model, True, 2), atol=1e-5)


def test_a_sliding_window_or_another_architecture_runs_whole() -> None:
    sliding = _model("qwen2", 0, use_sliding_window=True, sliding_window=8, max_window_layers=0)
    assert not stands_in(sliding)
    gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=2, n_embd=32, n_head=2))
    assert not stands_in(gpt2)
    layers = gpt2.transformer.h
    last = layers[-1]
    with kept_positions_only(gpt2, [0]):
        assert layers[-1] is last


def test_a_judges_one_token_pass_runs_the_shortened_layer(
    tiny_llama: Path, monkeypatch: Any
) -> None:
    """HFGenerator's shared pass enters the stand-in once a pass, with each prompt's last
    position (the answers against the whole layer's are held by test_shared_prefix.py, which
    runs with it on)."""
    from favakit.inference import generators
    from favakit.inference.generators import HFGenerator
    from favakit.llm import GenerationParams

    gen = HFGenerator.load(str(tiny_llama), device="cpu", max_batch=8)
    seen: list[list[int]] = []
    real = generators.kept_positions_only
    monkeypatch.setattr(generators, "kept_positions_only",
                        lambda model, kept: seen.append(list(kept)) or real(model, kept))  # fmt: skip
    evidence = " ".join(["marie curie was born in warsaw in 1867 ."] * 12)
    prompts = [f"{evidence} input : {c} answer :" for c in ("curie .", "paris was warsaw .")]
    params = GenerationParams(max_tokens=1, temperature=0.0, logprobs=5)
    shortened = gen.generate(prompts, params)
    assert len(seen) == 1 and len(seen[0]) == 2 and seen[0][0] < seen[0][1]
    gen.kept_positions_only = False
    whole = gen.generate(prompts, params)
    assert len(seen) == 1  # off: not entered
    for a, b in zip(shortened, whole, strict=True):
        assert a.text == b.text
        assert a.logprobs is not None and b.logprobs is not None
        for token, value in b.logprobs[0].items():
            assert a.logprobs[0][token] == pytest.approx(value, abs=1e-4)
