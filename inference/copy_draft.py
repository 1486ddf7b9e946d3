"""Copy-drafted decoding: the editor's greedy output under the copy guard, several tokens a pass.

The editor writes its input again with tags in it, so most of what it writes is known ahead:
where its output stands in the input (the guard's :class:`~favakit.inference.copy_guard.State`),
the input's next tokens are the likely next tokens of the output, and half-way through a tag, or
in a type tag, the tags' usual order tells what comes (:func:`_likely`). Each pass of the model
reads the token just chosen and up to ``draft`` of those likely tokens (the draft), and keeps
the drafted tokens as long as each is the one the guarded greedy choice takes there; the first
that is not is replaced by that choice, and the keys and values of the rest are dropped
(speculative decoding's check, with the input and the grammar as the drafter). So the output is
the guarded greedy output, token for token, up to the rounding of a pass over several tokens at
once, written in a fraction of the passes: a 1,062-word text's 1,690 tokens in 224 passes, not
528, drafting the input alone (docs/benchmarks.md, session 88); the demo's seven texts, two
planted errors in every 50 words, in 97 passes, not 253 with the input alone (session 89).

It decodes one prompt at a time (a batch of one). On a CPU that beats batched decoding, a token
of each of up to 8 prompts a pass, at every size of call measured: a pass costs about as much
either way, and a pass of drafts keeps 4-6 tokens (32 real development rows: 335 passes against
408 batched; docs/benchmarks.md, session 89). On a GPU a
batch's pass costs little more than one prompt's, so there only calls of a few prompts are
drafted (:data:`GPU_DRAFTED_PROMPTS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from favakit.inference.copy_guard import CopyGuard, State, advance
from favakit.tags import ERROR_TYPES, PHRASE_TYPES

__all__ = ["DRAFT_TOKENS", "GPU_DRAFTED_PROMPTS", "copy_drafted", "source_tokens"]

#: Input tokens drafted a pass: on the 1,062-word text, a prototype of this loop took 302
#: passes and 26.7 s with 8, 219 passes and 21.9 s with 16 (bf16, 2 cores; docs/benchmarks.md,
#: session 88)
DRAFT_TOKENS = 16

#: On a GPU, the most prompts of one call drafted one after another; a call of more is decoded
#: in batches, a token of each prompt a pass (as on a CPU before session 89; not measured on a
#: GPU). On a CPU every call is drafted: a draft's pass kept 7.5 tokens on the 1,062-word text
#: (session 88), and with the tags drafted too, calls of 8 real development rows took 0.53-0.80
#: of batched decoding's time (fp32; docs/benchmarks.md, session 89)
GPU_DRAFTED_PROMPTS = 4


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
    tokenize: Callable[[str], list[int]] | None = None,
) -> list[int]:
    """The guarded greedy output's token ids after ``prompt`` (token ids), which must copy
    ``text`` (the input, as bytes; ``source``: its tokens, :func:`source_tokens`): at most
    ``max_tokens``, the end-of-text token last where the model chose it. ``cache_word``: the
    keyword under which ``model`` takes its keys and values; ``counted``: told each chosen
    token, as the part that shows progress counts them; ``tokenize``: a text's token ids (the
    model's tokenizer), for drafts of tags and of the input where the output does not stand at
    one of ``source``'s tokens (without it, those passes draft nothing)."""
    import torch
    from transformers import DynamicCache

    cache = DynamicCache()
    device = model.device

    def run(tokens: Sequence[int]) -> Any:
        with torch.inference_mode():
            out = model(input_ids=torch.tensor([list(tokens)], device=device),
                        use_cache=True, **{cache_word: cache})  # fmt: skip
        return out.logits[0].float()

    scores = run(prompt)[-1]
    out: list[int] = []
    state, closed = State(), b""
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
        state, closed = after, _closed(state, after, closed)
        drafted = _draft(state, text, source, closed, min(draft, max_tokens - len(out)), tokenize)
        passed = run([token, *drafted])  # row j: the scores after the token and j drafted ones
        kept = 0
        for j, candidate in enumerate(drafted):
            if guard.choose(state, text, passed[j]) != candidate:
                break
            after = advance(state, text, guard.pieces[candidate] or b"")
            if after is None:  # never: the guard chose it
                break
            out.append(candidate)
            state, closed, kept = after, _closed(state, after, closed), kept + 1
        if counted is not None and kept:
            counted(kept)
        if kept < len(drafted):
            cache.crop(-(len(drafted) - kept))  # the keys and values of the tokens not kept
        scores = passed[kept]
    return out


def _closed(before: State, after: State, closed: bytes) -> bytes:
    """The part (``b"mark"`` or ``b"delete"``) closed last in the open type tag, after a step
    from ``before`` to ``after``; ``b""`` where none is, or no type tag is open."""
    if not after.kind:
        return b""
    if before.part and not after.part:
        return before.part
    return b"" if after.kind != before.kind else closed


def _draft(
    state: State,
    text: bytes,
    source: tuple[list[int], dict[int, int]],
    closed: bytes,
    most: int,
    tokenize: Callable[[str], list[int]] | None,
) -> list[int]:
    """The output's likely next tokens, at most ``most``: where it copies the input from one of
    ``source``'s token starts, the input's next tokens; else (``tokenize`` given) the text that
    likely comes, :func:`_likely`, tokenized afresh."""
    ids, starts = source
    copying = not state.pending and (not state.kind or state.part == b"delete")
    if copying and state.pos in starts:
        first = starts[state.pos]
        return ids[first : first + most]
    if tokenize is None:
        return []
    ahead = _likely(state, text, closed, width=8 * most)
    try:
        # the input cut at a byte that begins no character: that character is dropped
        written = ahead.decode("utf-8") if ahead else ""
    except UnicodeDecodeError as error:
        if error.start == 0:  # the output stands inside a character: nothing to draft
            return []
        written = ahead[: error.start].decode("utf-8")
    return tokenize(written)[:most] if written else []


#: The part a type tag likely holds first: a phrase's correction comes first, in ``<mark>``
#: (``<entity><mark>right</mark><delete>wrong</delete></entity>``); a sentence's error is
#: most often deleted, with no correction (:func:`favakit.tags.render`'s order)
_FIRST_PART = {t.encode(): b"<mark>" if t in PHRASE_TYPES else b"<delete>" for t in ERROR_TYPES}


def _likely(state: State, text: bytes, closed: bytes, width: int) -> bytes:
    """What the output likely writes next, up to ``width`` bytes of the input: the rest of the
    tag begun, where one tag can finish it or the usual order names it (:func:`_next_tag`), the
    tags that then follow in that order, and the input from there; nothing where the type of a
    new tag is to be chosen or a correction (free text) is being written, though a correction
    often begins as the text it replaces (``was not`` -> ``was``), which is drafted."""
    written = b""
    while state.pending or (state.kind and not state.part):
        tag = _next_tag(state, text, closed)
        if tag is None:
            return written
        written += tag[len(state.pending) :]
        after = replace(state, pending=b"").after(tag)
        state, closed = after, _closed(state, after, closed)
    if state.in_mark and not state.empty:  # a correction under way: where it ends is unknown
        return written
    return written + text[state.pos : state.pos + width]


def _next_tag(state: State, text: bytes, closed: bytes) -> bytes | None:
    """The tag the output likely writes next, in a type tag or half-way through a tag: the
    only one that can come, else the one the usual order puts there (the first part, then
    ``<delete>`` after a correction, then the type's closing tag); None where it cannot be told
    (which error type a new tag opens)."""
    options = [t for t in state.tags(text) if t.startswith(state.pending)]
    if len(options) == 1:
        return options[0]
    if not state.kind or state.part:
        return None
    if state.empty:
        usual = _FIRST_PART.get(state.kind, b"<delete>")
    elif closed == b"mark":
        usual = b"<delete>"
    else:
        usual = b"</" + state.kind + b">"
    return usual if usual in options else None
