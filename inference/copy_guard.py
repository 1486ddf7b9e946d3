"""Copy-guarded decoding: the editor's output may only copy the input, add tags, and write
corrections.

The editor's job is to reproduce its input with error tags and corrections in it. A small model
sometimes rewrites a few characters on the way (a dropped comma, a changed word outside any tag),
and favakit then has to refuse the output there (``faithful: false``). The guard rules that out
at decoding time: at every step it allows only the tokens that keep the output on the grammar

    output := (copy | <TYPE> part+ </TYPE>)* EOS
    part   := copy | <delete> copy </delete> | <mark> text </mark>

where TYPE is one of favakit's six error types (:data:`favakit.tags.ERROR_TYPES`), ``copy``
continues the input exactly where the output has got to, ``text`` is any text without ``<``,
no tag or part is empty, and EOS is allowed only once the whole
input is copied and every tag is closed. Everything else is
masked. The model still chooses where the tags go and what the corrections say; it can no longer
alter untagged text or stop early.

It works on bytes, so byte-level BPE tokenizers (GPT-2 style, SmolLM2, Llama 3) and
SentencePiece tokenizers with byte fallback (Llama 2) are both exact. For any other tokenizer
:func:`token_bytes` returns None and the editor decodes unguarded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from favakit.tags import ERROR_TYPES

__all__ = ["CopyGuard", "State", "advance", "token_bytes"]

_TYPES: tuple[bytes, ...] = tuple(t.encode() for t in ERROR_TYPES)
_DELETE, _MARK = b"delete", b"mark"


@dataclass(frozen=True)
class State:
    """Where the output stands: ``pos`` bytes of the input copied; the open type tag (``b""``
    outside any) and the open ``<delete>``/``<mark>`` part in it; the bytes of a tag begun but
    not finished."""

    pos: int = 0
    kind: bytes = b""
    part: bytes = b""
    pending: bytes = b""
    empty: bool = False  # nothing yet inside the tag or part opened last

    @property
    def in_mark(self) -> bool:
        return self.part == _MARK

    def tags(self, source: bytes) -> tuple[bytes, ...]:
        """The tags that may come next: a type tag opens at the top level; inside one, a part
        opens (``<delete>`` only while there is input left to delete) or the type closes; an
        open part only closes."""
        if self.part:
            return () if self.empty else (b"</" + self.part + b">",)
        if self.kind:
            close = () if self.empty else (b"</" + self.kind + b">",)
            delete = (b"<delete>",) if self.pos < len(source) else ()
            return (*delete, b"<mark>", *close)
        return tuple(b"<" + t + b">" for t in _TYPES)

    def after(self, tag: bytes) -> State:
        name = tag.strip(b"</>")
        if tag.startswith(b"</"):
            return State(self.pos, self.kind if self.part else b"")
        if name in (_DELETE, _MARK):
            return State(self.pos, self.kind, name, empty=True)
        return State(self.pos, name, empty=True)


def advance(state: State, source: bytes, data: bytes) -> State | None:
    """The state after ``data`` is appended to the output, or None if ``data`` leaves the
    grammar (changes the input outside ``<mark>``, or writes a tag that cannot come there)."""
    for b in data:
        ch = bytes((b,))
        if state.pending:
            pending = state.pending + ch
            tags = state.tags(source)
            if pending in tags:
                state = replace(state, pending=b"").after(pending)
            elif any(t.startswith(pending) for t in tags):
                state = replace(state, pending=pending)
            elif source.startswith(pending, state.pos):  # an input '<...' copied verbatim
                state = replace(state, pos=state.pos + len(pending), pending=b"", empty=False)
            else:
                return None
        elif ch == b"<":  # a tag begins, or an input '<' is copied; a correction holds none
            literal = not state.in_mark and source.startswith(ch, state.pos)
            if not (state.tags(source) or literal):
                return None
            state = replace(state, pending=ch)
        elif state.in_mark:
            if state.empty:
                state = replace(state, empty=False)
        elif state.pos < len(source) and source[state.pos] == b:
            state = replace(state, pos=state.pos + 1, empty=False)
        else:
            return None
    return state


# -- tokens as bytes ------------------------------------------------------------------------


def _byte_level_alphabet() -> dict[str, int]:
    """The printable stand-in character of each byte in byte-level BPE vocabularies: bytes
    that are printable Latin-1 stand for themselves, the others are shifted past 255 in order."""
    keep = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    shifted = 0
    table = {}
    for b in range(256):
        if b in keep:
            table[chr(b)] = b
        else:
            table[chr(256 + shifted)] = b
            shifted += 1
    return table


_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def token_bytes(tokenizer: Any) -> list[bytes | None] | None:
    """The bytes each token id stands for (None for special tokens), or None when the
    tokenizer is of a kind whose tokens cannot be mapped to bytes exactly."""
    size = len(tokenizer)
    pieces = tokenizer.convert_ids_to_tokens(list(range(size)))
    special = set(tokenizer.all_special_ids)
    alphabet = _byte_level_alphabet()
    vocab_chars = {c for p in pieces if p for c in p}
    if "Ġ" in vocab_chars:  # byte-level BPE
        out: list[bytes | None] = []
        for i, p in enumerate(pieces):
            if i in special or p is None or any(c not in alphabet for c in p):
                out.append(None)  # special or added tokens (e.g. <|im_start|>)
            else:
                out.append(bytes(alphabet[c] for c in p))
        return out
    if "▁" in vocab_chars:  # SentencePiece with byte fallback
        out = []
        for i, p in enumerate(pieces):
            m = _BYTE_TOKEN.fullmatch(p or "")
            if i in special or p is None:
                out.append(None)
            elif m:
                out.append(bytes((int(m.group(1), 16),)))
            else:
                out.append(p.replace("▁", " ").encode())
        return out
    return None


class CopyGuard:
    """The allowed next tokens for a batch of outputs that must copy their inputs.

    Built once per tokenizer (:meth:`for_tokenizer`); :meth:`processor` gives the logits
    processor of one ``generate`` call.
    """

    def __init__(self, pieces: list[bytes | None], eos_id: int) -> None:
        self.pieces = pieces
        self.eos_id = eos_id
        self.by_bytes: dict[bytes, list[int]] = {}
        for i, p in enumerate(pieces):
            if p:
                self.by_bytes.setdefault(p, []).append(i)
        self.longest = max((len(p) for p in self.by_bytes), default=1)
        # tokens that may open, close or finish a tag: checked one by one at every step
        self.angled = [i for i, p in enumerate(pieces) if p and (b"<" in p or b">" in p)]
        self.plain = [i for i, p in enumerate(pieces) if p and b"<" not in p and b">" not in p]
        self.unused = [i for i, p in enumerate(pieces) if not p and i != eos_id]

    @classmethod
    def for_tokenizer(cls, tokenizer: Any) -> CopyGuard | None:
        pieces = token_bytes(tokenizer)
        if pieces is None or tokenizer.eos_token_id is None:
            return None
        return cls(pieces, int(tokenizer.eos_token_id))

    def banned_in_mark(self, state: State, source: bytes) -> list[int]:
        """Inside ``<mark>``, with no tag begun, all text is free: only the special tokens, EOS
        and angled tokens that would write a wrong tag are out (once a ``<`` is written, only
        the rest of ``</mark>`` may follow: :meth:`only`)."""
        return [
            self.eos_id,
            *self.unused,
            *(i for i in self.angled if advance(state, source, self.pieces[i] or b"") is None),
        ]

    def only(self, state: State, source: bytes) -> list[int]:
        """Outside ``<mark>``, or half-way through a tag: the few tokens that continue the
        input or the tag (or EOS)."""
        ok, candidates = [], [*self.angled]
        for tag in state.tags(source):  # the rest of a tag, which may be split over tokens
            if state.pending and tag.startswith(state.pending) and tag != state.pending:
                rest = tag[len(state.pending) :]
                candidates += (i for n in range(len(rest)) for i in self._lookup(rest[: n + 1]))
        if source.startswith(state.pending, state.pos):  # the input, continued
            at = state.pos + len(state.pending)
            ahead = source[at : at + self.longest]
            candidates += (i for n in range(len(ahead)) for i in self._lookup(ahead[: n + 1]))
        if not (state.pending or state.kind) and state.pos >= len(source):
            ok.append(self.eos_id)
        ok += [i for i in candidates if advance(state, source, self.pieces[i] or b"") is not None]
        return ok or [self.eos_id]

    def choose(self, state: State, source: bytes, scores: Any) -> int:
        """The greedy choice after ``state``: the allowed token that ``scores`` (one step's,
        over the vocabulary) rates highest, the lowest id among equals, as ``generate`` picks
        after :meth:`processor` has masked the rest."""
        import torch

        if state.in_mark and not state.pending:
            row = scores.clone()
            row[self.banned_in_mark(state, source)] = float("-inf")
            return int(row.argmax())
        allowed = torch.tensor(sorted(set(self.only(state, source))), device=scores.device)
        return int(allowed[int(scores[allowed].argmax())])

    def _lookup(self, data: bytes) -> list[int]:
        return self.by_bytes.get(data, [])

    def processor(self, sources: Sequence[str], width: int) -> _Processor:
        """A logits processor for a left-padded batch of prompt width ``width`` whose row ``i``
        must copy ``sources[i]`` (one sequence per row: greedy or sampled, no beams)."""
        return _Processor(self, [s.encode() for s in sources], width)


class _Processor:
    """Masks, row by row, the scores of every token that would leave the grammar."""

    def __init__(self, guard: CopyGuard, sources: list[bytes], width: int) -> None:
        self.guard, self.sources, self.width = guard, sources, width
        self.states: list[tuple[int, State | None]] = [(0, State())] * len(sources)

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        g = self.guard
        for row in range(scores.shape[0]):
            new = input_ids[row, self.width :].tolist()
            done, state = self.states[row]
            if g.eos_id in new[done:]:
                state = None  # finished: what it gets next is replaced by padding
            for t in new[done:]:
                if state is not None:
                    state = advance(state, self.sources[row], g.pieces[t] or b"")
            self.states[row] = (len(new), state)
            if state is None:
                continue
            if state.in_mark and not state.pending:  # after a '<' only "</mark>" goes on
                scores[row, g.banned_in_mark(state, self.sources[row])] = float("-inf")
            else:
                ids = g.only(state, self.sources[row])
                kept = scores[row, ids].clone()
                scores[row] = float("-inf")
                scores[row, ids] = kept
        return scores
