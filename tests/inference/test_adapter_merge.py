"""An adapter loaded for generation is merged into its base: the model runs no LoRA pass per
layer (in bf16 on a CPU the unmerged pass cost the tuned Qwen judge most of its time,
docs/benchmarks.md, session 58) and answers as the adapter over its base does."""

from __future__ import annotations

from pathlib import Path


def test_an_adapter_is_merged_on_load_and_answers_as_the_unmerged_adapter(
    tiny_llama: Path, tiny_adapter: Path
) -> None:
    import peft
    import torch
    from transformers import AutoModelForCausalLM

    from favakit.inference.models import load_causal_lm

    model, tok, _ = load_causal_lm(str(tiny_llama), adapter=str(tiny_adapter), device="cpu",
                                   dtype="float32")  # fmt: skip
    assert not isinstance(model, peft.PeftModel)
    assert not any("lora" in name for name, _ in model.named_modules())
    base = AutoModelForCausalLM.from_pretrained(tiny_llama, dtype=torch.float32).eval()
    ids = tok("saturn is the sixth planet from the sun .", return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        plain = base(ids).logits
        unmerged = peft.PeftModel.from_pretrained(base, str(tiny_adapter)).eval()(ids).logits
        merged = model(ids).logits
    assert not torch.allclose(plain, unmerged, atol=1e-4)  # the adapter changes the answer
    assert torch.allclose(merged, unmerged, atol=1e-4)
