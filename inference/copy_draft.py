"""Copy-drafted decoding: the editor's greedy output under the copy guard, several tokens a pass.

The editor writes its input again with tags in it, so most of what it writes is known ahead:
where its output stands in the input (the guard's :class:`~favakit.inference.copy_guard.State`),
the input's next tokens are the likely next tokens of the output. Each pass of the model reads
the token just chosen and up to ``draft`` of those input tokens (the draft), and keeps the
drafted tokens as long as each is the one the guarded greedy choice takes there; the first that
is not is replaced by that choice, and the keys and values of the rest are dropped (speculative
decoding's check, with the input as the drafter). So the output is the guarded greedy output,
token for token, up to the rounding of a pass over several tokens at once, written in a fraction
of the passes: a 1,062-word text's 1,690 tokens in 224 passes, not 528 (docs/benchmarks.md,
session 88).

It decodes one prompt at a time (a batch of one), so it pays where few prompts go to the model
together (one text, or the windows of one long text): a batch writes a token of each of its
prompts a pass, and where many are edited at once, or their texts are dense with edits, batched
decoding is as fast or faster (:data:`DRAFTED_PROMPTS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from favakit.inference.copy_guard import CopyGuard, State, advance

__all__ = ["DRAFTED_PROMPTS", "DRAFT_TOKENS", "copy_drafted", "source_tokens"]

#: Input tokens drafted a pass: on the 1,062-word text, a prototype of this loop took 302
#: passes and 26.7 s with 8, 219 passes and 21.9 s with 16 (bf16, 2 cores; docs/benchmarks.md,
#: session 88)
DRAFT_TOKENS = 16

#: The most prompts of one call drafted one after another; a call of more is decoded in
#: batches, a token of each prompt a pass. A draft's pass kept 7.5 tokens on the 1,062-word text
#: (5 windows: drafted 23 s, batched 36 s) but 2 on the demo's texts, two planted errors in
#: every 50 words (6 windows: drafted 22 s, batched 14 s); docs/benchmarks.md, session 88
DRAFTED_PROMPTS = 4


def source_tokens(
    tokenizer: Any, guard: CopyGuard, source: str
) -> tuple[list[int], dict[int, int]]:
    """``source``'s tokens as ``tokenizer`` writes it alone, and for each byte offset where one
    of them begins, its index: where the output has copied the input up to such an offset, the
    tokens from that index on are the draft."""
    ids: list[int] = tokenizer(source, add_special_tokens=False)["input_ids"]
    starts: dict[int, int] = {}
    at = 0
    for i, token in enumerate(ids):
        starts.setdefault(at, i)
        at += len(guard.pieces[token] or b"")
    return ids, starts


def copy_drafted(
    model: Any,
    guard: CopyGuard,
    prompt: Sequence[int],
    source: tuple[list[int], dict[int, int]],
    text: bytes,
    max_tokens: int,
    *,
    draft: int = DRAFT_TOKENS,
    cache_word: str = "past_key_values",
    counted: Callable[[int], None] | None = None,
) -> list[int]:
    """The guarded greedy output's token ids after ``prompt`` (token ids), which must copy
    ``text`` (the input, as bytes; ``source``: its tokens, :func:`source_tokens`): at most
    ``max_tokens``, the end-of-text token last where the model chose it. ``cache_word``: the
    keyword under which ``model`` takes its keys and values; ``counted``: told each chosen
    token, as the part that shows progress counts them."""
    import torch
    from transformers import DynamicCache

    ids, starts = source
    cache = DynamicCache()
    device = model.device

    def run(tokens: Sequence[int]) -> Any:
        with torch.inference_mode():
            out = model(input_ids=torch.tensor([list(tokens)], device=device),
                        use_cache=True, **{cache_word: cache})  # fmt: skip
        return out.logits[0].float()

    scores = run(prompt)[-1]
    out: list[int] = []
    state = State()
    while len(out) < max_tokens:
        token = guard.choose(state, text, scores)
        out.append(token)
        if counted is not None:
            counted(1)
        if token == guard.eos_id:
            break
        after = advance(state, text, guard.pieces[token] or b"")
        if after is None or len(out) == max_tokens:  # None: only where the guard had no way on
            break
        state = after
        drafted = _draft(state, ids, starts, min(draft, max_tokens - len(out)))
        passed = run([token, *drafted])  # row j: the scores after the token and j drafted ones
        kept = 0
        for j, candidate in enumerate(drafted):
            if guard.choose(state, text, passed[j]) != candidate:
                break
            after = advance(state, text, guard.pieces[candidate] or b"")
            if after is None:  # never: the guard chose it
                break
            out.append(candidate)
            state, kept = after, kept + 1
        if counted is not None and kept:
            counted(kept)
        if kept < len(drafted):
            cache.crop(-(len(drafted) - kept))  # the keys and values of the tokens not kept
        scores = passed[kept]
    return out


def _draft(state: State, ids: list[int], starts: dict[int, int], most: int) -> list[int]:
    """The input's next tokens, where the output has copied it up to a token's start and is in
    no ``<mark>`` (a correction, free text) nor half-way through a tag; else none."""
    if state.in_mark or state.pending or state.pos not in starts:
        return []
    first = starts[state.pos]
    return ids[first : first + most]
