"""A decoder's last layer run only at the positions whose next-token scores are read.

A judge's one-token pass (:meth:`favakit.inference.generators.HFGenerator._shared`) reads one
position of each prompt: its last. The model's head already scores only those positions
(``logits_to_keep``); the last decoder layer still computed every position's queries,
attention output and feed-forward, though only those positions' outputs reach the head. The
keys and values of every position are still needed (each kept position attends to them), but
they are the small part of a layer: in Qwen2.5-1.5B two key-value heads (256 of 1,536 wide)
against the queries, the attention output and an 8,960-wide feed-forward. The layer is one of
28 there, so about 3% of the pass (docs/benchmarks.md, session 75).

:func:`kept_positions_only` stands a layer in for the last one that computes each prompt's
kept position with the layer's own weights, and returns the layer's input unchanged at every
other position (which nothing reads). Scores match the whole pass's to float rounding. Only
Llama-style layers (Llama, Qwen2: pre-norm, rotary, grouped keys and values) of full attention
are stood in for; other models run whole. This is the decoder counterpart of
:mod:`favakit.inference.cls_pass`.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["kept_positions_only", "stands_in"]

#: decoder layers built as Llama's: input norm, attention (q/k/v/o projections, rotary), a
#: residual, post-attention norm, feed-forward, a residual
_LAYERS = {"LlamaDecoderLayer", "Qwen2DecoderLayer"}


def stands_in(model: Any) -> bool:
    """Whether :func:`kept_positions_only` can shorten ``model``'s last layer."""
    return _layers(model) is not None


@contextlib.contextmanager
def kept_positions_only(model: Any, kept: Sequence[int]) -> Iterator[None]:
    """Within the block, ``model``'s last decoder layer computes, for row ``b`` of the batch,
    only position ``kept[b]`` (an index into the positions of this call's input, not counting
    a cache's); its other positions return the layer's input. Each kept position attends to
    every position before it, so rows must be padded on the right (after their kept position),
    as a one-token pass pads them. Where :func:`stands_in` is false, nothing changes. Not
    thread-safe on its own: hold the model's lock."""
    layers = _layers(model)
    if layers is None:
        yield
        return
    whole = layers[-1]
    layers[-1] = _stand_in_class()(whole, list(kept))
    try:
        yield
    finally:
        layers[-1] = whole


def _layers(model: Any) -> Any:
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    config = getattr(base, "config", None)
    layers = getattr(getattr(base, "model", None), "layers", None)
    if config is None or layers is None or len(layers) == 0:
        return None
    if type(layers[-1]).__name__ not in _LAYERS:
        return None
    types = getattr(config, "layer_types", None)
    if types and types[len(layers) - 1] != "full_attention":
        return None  # a sliding window: its mask is not the plain causal one built below
    if getattr(config, "_attn_implementation", "eager") not in ("eager", "sdpa"):
        return None
    return layers


@functools.cache
def _stand_in_class() -> Any:
    """The stand-in layer's class, made on first use (so importing this module needs no torch)."""
    import torch

    class KeptPositions(torch.nn.Module):
        """A Llama-style decoder layer run at one position of each row only."""

        def __init__(self, layer: Any, kept: list[int]) -> None:
            super().__init__()
            self.layer = layer
            self.kept = kept

        def forward(self, hidden_states: Any, attention_mask: Any = None, position_ids: Any = None,
                    cache: Any = None, past_key_values: Any = None, use_cache: Any = False,
                    position_embeddings: Any = None, **kwargs: Any) -> Any:  # fmt: skip
            cache = cache if cache is not None else past_key_values
            if position_embeddings is None or len(self.kept) != hidden_states.shape[0]:
                raise ValueError("kept_positions_only: one kept position per row is needed")
            return _kept_forward(torch, self.layer, hidden_states, self.kept, cache,
                                 position_embeddings)  # fmt: skip

    return KeptPositions


def _kept_forward(
    torch: Any, layer: Any, hidden: Any, kept: list[int], cache: Any, rotary: Any
) -> Any:
    """The layer's output at ``kept[b]`` of each row ``b`` (the input elsewhere). Each kept
    position attends to every earlier position of its row, the cache's included: prompts are
    padded on the right, so that is the causal mask with the padding left out."""
    attn = layer.self_attn
    rows = torch.arange(hidden.shape[0], device=hidden.device)
    at = torch.tensor(kept, device=hidden.device)
    size = attn.head_dim
    normed = layer.input_layernorm(hidden)
    mine = normed[rows, at].unsqueeze(1)  # (batch, 1, hidden)
    query = attn.q_proj(mine).view(hidden.shape[0], 1, -1, size).transpose(1, 2)
    key = attn.k_proj(normed).view(*hidden.shape[:2], -1, size).transpose(1, 2)
    value = attn.v_proj(normed).view(*hidden.shape[:2], -1, size).transpose(1, 2)
    # the model's own rotary embedding (its modeling module's), for the kept rows' queries and
    # every row's keys
    rotate = sys.modules[type(attn).__module__].apply_rotary_pos_emb
    cos, sin = rotary
    query, _ = rotate(query, query, cos[rows, at].unsqueeze(1), sin[rows, at].unsqueeze(1))
    key, _ = rotate(key, key, cos, sin)
    if cache is not None:
        key, value = cache.update(key, value, attn.layer_idx)
    earlier = key.shape[2] - hidden.shape[1]  # the cache's positions, before this call's
    groups = query.shape[1] // key.shape[1]
    key, value = key.repeat_interleave(groups, dim=1), value.repeat_interleave(groups, dim=1)
    mask = torch.arange(key.shape[2], device=hidden.device)[None, :] <= (at + earlier)[:, None]
    context = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=mask[:, None, None, :], scale=attn.scaling
    )
    attended = hidden[rows, at].unsqueeze(1) + attn.o_proj(
        context.transpose(1, 2).reshape(hidden.shape[0], 1, -1)
    )
    out = attended + layer.mlp(layer.post_attention_layernorm(attended))
    result = hidden.clone()
    result[rows, at] = out.squeeze(1)
    return result
