"""favakit's merge of plain LoRA adapters gives peft's merged weights bit for bit, and leaves
anything else to peft (a real tiny Llama and real peft adapters; nothing mocked)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from favakit.inference import lora_merge
from favakit.inference.lora_merge import merge_plain_lora, plain_lora_scale

peft = pytest.importorskip("peft")
transformers = pytest.importorskip("transformers")
safetensors_torch = pytest.importorskip("safetensors.torch")


def _adapter(
    base: Path, out: Path, file_dtype: torch.dtype = torch.float32, **lora: object
) -> Path:
    """A LoRA adapter over ``base`` with random A and B (a trained one's B is not zero),
    saved as peft saves it, its tensors then stored in ``file_dtype``."""
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_pretrained(base)
    config = peft.LoraConfig(r=4, lora_alpha=8, init_lora_weights=False,
                             target_modules=["q_proj", "v_proj", "down_proj"], **lora)  # fmt: skip
    peft.get_peft_model(model, config).save_pretrained(out)
    weights = out / "adapter_model.safetensors"
    tensors = safetensors_torch.load_file(weights)
    safetensors_torch.save_file({k: v.to(file_dtype) for k, v in tensors.items()}, weights)
    return out


def _by_peft(base: Path, adapter: Path, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    model = transformers.AutoModelForCausalLM.from_pretrained(base, dtype=dtype)
    return peft.PeftModel.from_pretrained(model, str(adapter)).merge_and_unload().state_dict()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("file_dtype", [torch.float32, torch.float16])
def test_the_merge_is_peft_s_bit_for_bit(
    tiny_llama: Path, tmp_path: Path, dtype: torch.dtype, file_dtype: torch.dtype,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    adapter = _adapter(tiny_llama, tmp_path / "adapter", file_dtype)
    expected = _by_peft(tiny_llama, adapter, dtype)
    monkeypatch.setattr(lora_merge, "BLOCK_ELEMENTS", 100)  # several blocks of rows a layer
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_llama, dtype=dtype)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    assert merge_plain_lora(model, adapter) is True
    got = model.state_dict()
    assert got.keys() == expected.keys()
    changed = [k for k in got if not torch.equal(got[k], before[k])]
    assert len(changed) == 2 * 3  # q, v and down in each of the two layers
    assert all(torch.equal(got[k], expected[k]) for k in got)


def test_load_causal_lm_merges_a_shipped_style_adapter_as_peft_would(
    tiny_llama: Path, tmp_path: Path
) -> None:
    from favakit.inference.models import load_causal_lm

    adapter = _adapter(tiny_llama, tmp_path / "adapter", torch.float16)
    expected = _by_peft(tiny_llama, adapter, torch.float32)
    model, _, _ = load_causal_lm(str(tiny_llama), str(adapter), device="cpu")
    got = model.state_dict()
    assert not any("lora" in k for k in got)
    assert all(torch.equal(got[k], expected[k]) for k in expected)


@pytest.mark.parametrize(
    "lora",
    [{"use_dora": True}, {"modules_to_save": ["lm_head"]}, {"rank_pattern": {"q_proj": 2}}],
)  # fmt: skip
def test_other_adapters_are_left_to_peft_untouched(
    tiny_llama: Path, tmp_path: Path, lora: dict[str, object]
) -> None:
    from favakit.inference.models import load_causal_lm

    adapter = _adapter(tiny_llama, tmp_path / "adapter", **lora)
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_llama)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    assert merge_plain_lora(model, adapter) is False
    assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())
    merged, _, _ = load_causal_lm(str(tiny_llama), str(adapter), device="cpu")  # by peft
    expected = _by_peft(tiny_llama, adapter, torch.float32)
    assert all(torch.equal(merged.state_dict()[k], expected[k]) for k in expected)


def test_a_file_that_does_not_fit_the_model_changes_nothing(
    tiny_llama: Path, tmp_path: Path
) -> None:
    adapter = _adapter(tiny_llama, tmp_path / "adapter")
    weights = adapter / "adapter_model.safetensors"
    tensors = safetensors_torch.load_file(weights)
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_llama)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    first_b = next(k for k in sorted(tensors) if ".lora_B." in k)
    for broken in (
        {k: v for k, v in tensors.items() if k != first_b},  # an A without its B
        {**tensors, first_b: tensors[first_b][:, :2].contiguous()},  # the wrong rank
        {**tensors, "base_model.model.model.norm.weight": torch.ones(4)},  # not a LoRA pair
        {k.replace("q_proj", "no_such_proj"): v for k, v in tensors.items()},  # no such layer
    ):
        safetensors_torch.save_file(broken, weights)
        assert merge_plain_lora(model, adapter) is False
    assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())


def test_the_scale_is_peft_s() -> None:
    plain = {"peft_type": "LORA", "r": 16, "lora_alpha": 32}
    assert plain_lora_scale(plain) == 2.0
    assert plain_lora_scale({**plain, "use_rslora": True}) == 8.0  # alpha / sqrt(r)
    for other in ({"peft_type": "IA3"}, {"use_dora": True}, {"fan_in_fan_out": True},
                  {"alpha_pattern": {"q": 4}}, {"bias": "all"}, {"lora_bias": True}, {"r": 0}):  # fmt: skip
        assert plain_lora_scale({**plain, **other}) is None
