"""The last encoder layer run for [CLS] only (favakit.inference.cls_pass): the same sequence
scores as the whole pass, on small random BERT and MPNet classifiers with padded batches."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from favakit.inference.cls_pass import first_position_only, stands_in  # noqa: E402

SIZES = {"hidden_size": 32, "num_hidden_layers": 3, "num_attention_heads": 4,
         "intermediate_size": 64, "vocab_size": 120, "max_position_embeddings": 80}  # fmt: skip


def _batch(seed: int) -> dict[str, object]:
    """Three rows of different lengths, padded on the right."""
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, 120, (3, 40), generator=gen)
    mask = torch.ones(3, 40, dtype=torch.long)
    mask[1, 25:] = 0
    mask[2, 9:] = 0
    return {"input_ids": ids, "attention_mask": mask}


def _model(kind: str, seed: int, attn: str = "sdpa") -> object:
    torch.manual_seed(seed)
    if kind == "bert":
        config = transformers.BertConfig(num_labels=2, **SIZES)
        config._attn_implementation = attn
        return transformers.BertForSequenceClassification(config).eval()
    config = transformers.MPNetConfig(num_labels=2, **SIZES)
    return transformers.MPNetForSequenceClassification(config).eval()


@pytest.mark.parametrize("kind", ["bert", "mpnet"])
@pytest.mark.parametrize("seed", [0, 1])
def test_same_scores_as_the_whole_pass(kind: str, seed: int) -> None:
    model = _model(kind, seed)
    batch = _batch(seed)
    last = model.base_model.encoder.layer[-1]
    with torch.inference_mode():
        whole = model(**batch).logits
        with first_position_only(model):
            assert model.base_model.encoder.layer[-1] is not last  # stood in for
            first = model(**batch).logits
    assert model.base_model.encoder.layer[-1] is last  # and put back
    assert torch.allclose(whole, first, atol=1e-5), (whole, first)
    # it is the padded rows' own scores, not the batch's first row's
    assert not torch.allclose(first[0], first[2], atol=1e-3)


def test_bert_eager_attention_gives_the_same_scores() -> None:
    model = _model("bert", 3, attn="eager")
    batch = _batch(3)
    with torch.inference_mode():
        whole = model(**batch).logits
        with first_position_only(model):
            first = model(**batch).logits
    assert torch.allclose(whole, first, atol=1e-5)


def test_bf16_autocast_scores_within_rounding() -> None:
    model = _model("bert", 4)
    batch = _batch(4)
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
        whole = torch.softmax(model(**batch).logits.float(), -1)
        with first_position_only(model):
            first = torch.softmax(model(**batch).logits.float(), -1)
    assert (whole - first).abs().max() < 0.02


def test_other_architectures_run_whole() -> None:
    config = transformers.DistilBertConfig(
        vocab_size=120, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=80
    )
    model = transformers.DistilBertForSequenceClassification(config).eval()
    assert not stands_in(model)
    assert stands_in(_model("bert", 0)) and stands_in(_model("mpnet", 0))
    # a token classifier of the same encoder reads every position: never stood in for
    tokens = transformers.BertForTokenClassification(transformers.BertConfig(**SIZES)).eval()
    assert not stands_in(tokens)
    with first_position_only(tokens):
        assert tokens(**_batch(0)).logits.shape[1] == 40
    layers = list(model.distilbert.transformer.layer)
    with torch.inference_mode(), first_position_only(model):
        assert list(model.distilbert.transformer.layer) == layers
        model(**_batch(0))


def test_the_layer_is_put_back_after_an_error() -> None:
    model = _model("bert", 0)
    last = model.bert.encoder.layer[-1]
    with pytest.raises(RuntimeError), first_position_only(model):
        raise RuntimeError("boom")
    assert model.bert.encoder.layer[-1] is last
