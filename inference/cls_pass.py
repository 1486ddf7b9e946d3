"""An encoder's last layer run for its first position ([CLS]) only, for a sequence verdict.

A checker's sequence head reads one position of the last layer: BERT's pooler and MPNet's
classification head both take ``hidden[:, 0]``. The last layer still needs every position's
keys and values, but its queries, attention output and feed-forward need only that one, and
those are most of a layer's work: about 14% of MiniLM's pass (6 layers) at 256 tokens, 7% of
mpnet's (12) (docs/benchmarks.md, session 73). :func:`first_position_only` stands a layer in
for the last one that computes just that row, with the layer's own weights; the scores match
the whole pass's to float rounding. A pass that needs every position (the token head's marks)
runs without it. Architectures other than BERT's and MPNet's run whole.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterator
from typing import Any

__all__ = ["first_position_only", "stands_in"]


def stands_in(model: Any) -> bool:
    """Whether :func:`first_position_only` can shorten ``model``'s last layer: a BERT or MPNet
    sequence classifier (``model.bert`` / ``model.mpnet``) whose head reads position 0."""
    return _layers(model) is not None


@contextlib.contextmanager
def first_position_only(model: Any) -> Iterator[None]:
    """Within the block, ``model``'s last encoder layer computes position 0 only (its output
    has one position); where :func:`stands_in` is false, nothing changes. Not thread-safe on
    its own: hold the model's lock."""
    found = _layers(model)
    if found is None:
        yield
        return
    layers, kind = found
    whole = layers[-1]
    layers[-1] = _first_position_layer()(whole, kind)
    try:
        yield
    finally:
        layers[-1] = whole


#: the sequence classifiers whose head reads position 0 only, and the attribute of their encoder
_CLASSIFIERS = {"BertForSequenceClassification": "bert", "MPNetForSequenceClassification": "mpnet"}


def _layers(model: Any) -> tuple[Any, str] | None:
    kind = _CLASSIFIERS.get(type(model).__name__)
    if kind is None or getattr(model.config, "is_decoder", False):
        return None  # a token classifier, say, reads every position
    layers = getattr(getattr(getattr(model, kind, None), "encoder", None), "layer", None)
    return (layers, kind) if layers is not None and len(layers) > 0 else None


@functools.cache
def _first_position_layer() -> Any:
    """The stand-in layer's class, made on first use (so importing this module needs no torch)."""
    import torch

    class FirstPosition(torch.nn.Module):
        """A BERT or MPNet encoder layer run for position 0 only: what the layer returns, with
        one position."""

        def __init__(self, layer: Any, kind: str) -> None:
            super().__init__()
            self.layer = layer
            self.kind = kind

        def forward(self, hidden: Any, attention_mask: Any = None, third: Any = None,
                    **kwargs: Any) -> Any:  # fmt: skip
            if self.kind == "bert":  # third: encoder states, which an encoder has none of
                return _bert_first(torch, self.layer, hidden, attention_mask)
            bias = third if third is not None else kwargs.get("position_bias")
            return (_mpnet_first(torch, self.layer, hidden, attention_mask, bias),)

    return FirstPosition


def _heads(x: Any, size: int) -> Any:
    """(batch, positions, hidden) -> (batch, heads, positions, head size)."""
    return x.view(x.shape[0], x.shape[1], -1, size).transpose(1, 2)


def _merged(x: Any) -> Any:
    """(batch, heads, 1, head size) -> (batch, 1, hidden)."""
    return x.transpose(1, 2).reshape(x.shape[0], 1, -1)


def _bert_first(torch: Any, layer: Any, hidden: Any, mask: Any) -> Any:
    """A BERT layer's output at position 0; attention as the layer's own SDPA path computes it."""
    attention = layer.attention.self
    first, size = hidden[:, :1], attention.attention_head_size
    context = torch.nn.functional.scaled_dot_product_attention(
        _heads(attention.query(first), size), _heads(attention.key(hidden), size),
        _heads(attention.value(hidden), size),
        attn_mask=mask[:, :, :1, :] if mask is not None else None, scale=attention.scaling,
    )  # fmt: skip
    attended = layer.attention.output(_merged(context), first)
    return layer.output(layer.intermediate(attended), attended)


def _mpnet_first(torch: Any, layer: Any, hidden: Any, mask: Any, bias: Any) -> Any:
    """An MPNet layer's output at position 0, in the operations of its own attention: scores,
    plus the relative position bias and the mask, softmax, values."""
    attention = layer.attention.attn
    first, size = hidden[:, :1], attention.attention_head_size
    keys = _heads(attention.k(hidden), size)
    scores = torch.matmul(_heads(attention.q(first), size), keys.transpose(-1, -2))
    scores = scores / math.sqrt(size)
    if bias is not None:
        scores += bias[:, :, :1, :]
    if mask is not None:
        scores = scores + mask[:, :, :1, :]
    probs = torch.nn.functional.softmax(scores, dim=-1)
    context = _merged(torch.matmul(probs, _heads(attention.v(hidden), size)))
    attended = layer.attention.LayerNorm(attention.o(context) + first)
    return layer.output(layer.intermediate(attended), attended)
