"""How a checker reads a (text, evidence) pair: the text's sentences (:func:`text_units`), the
evidence cut to the sentences that share the most words with the text, their articles' titles
counted where the passages name several (:func:`fit_evidence`, what training shows the
checker), or in pieces (:func:`pieces`), and what one pass of the model read of its pair once
the tokenizer cut it to ``max_length`` tokens (:class:`Read`), which a verdict states. Pure
Python: the training data, the judges' prompts and the checker share it (docs/checker.md,
"Inference")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from favakit.text import sentence_spans, split_sentences

__all__ = [
    "MIN_SENTENCE_WORDS",
    "Read",
    "closest_first",
    "closest_pieces",
    "cut_note",
    "fit_evidence",
    "most_cut",
    "pieces",
    "read_of",
    "reading_units",
    "shared_words",
    "text_units",
    "token_windows",
    "top_pieces",
]

#: A sentence shorter than this many words ("Yes!", "Sure.") is read with the one after it.
MIN_SENTENCE_WORDS = 4


def text_units(text: str) -> list[str]:
    """``text``'s sentences as a ``sentences`` reading scores them: a sentence of fewer than
    :data:`MIN_SENTENCE_WORDS` words joined to the next (the last to the one before)."""
    units: list[str] = []
    carry = ""
    for sentence in split_sentences(text):
        joined = f"{carry} {sentence}".strip()
        if len(joined.split()) < MIN_SENTENCE_WORDS:
            carry = joined
            continue
        units.append(joined)
        carry = ""
    if carry:
        if units:
            units[-1] = f"{units[-1]} {carry}"
        else:
            units.append(carry)
    return units or [text]


def shared_words(text: str) -> set[str]:
    """The words of ``text`` that count when texts are matched by the words they share
    (lower-cased, longer than two letters): how evidence sentences are ranked against a claim."""
    return {w for w in re.findall(r"\w+", text.lower()) if len(w) > 2}


def reading_units(evidence: Sequence[str], max_words: int) -> list[str]:
    """``evidence``'s sentences, as :func:`fit_evidence` ranks them: a sentence longer than
    ``max_words`` (lower-case or unpunctuated text, such as a speech transcript, reads as one
    sentence) is split into consecutive windows of ``max_words // 3`` words, so that the cut can
    gather the places of it that matter rather than keep its start (docs/checker.md)."""
    units: list[str] = []
    window = max(1, max_words // 3)
    for e in evidence:
        for sentence in split_sentences(e):
            words = sentence.split()
            if len(words) <= max_words:
                units.append(sentence)
            else:
                units += [" ".join(words[i : i + window]) for i in range(0, len(words), window)]
    return units


def cut_note(reader: str, read: int | str, given: int) -> str:
    """What a verdict says where :func:`fit_evidence` cut the evidence: ``reader`` ("the
    checker", "the judge") read ``read`` of its ``given`` words."""
    return (f"evidence cut: {reader} read the sentences sharing the most words with the text, "
            f"{read} of its {given} words")  # fmt: skip


def fit_evidence(text: str, evidence: Sequence[str], max_words: int,
                 titles: Sequence[str] | None = None) -> str:  # fmt: skip
    """The evidence sentences that share the most with ``text``, in their order, within
    ``max_words`` words (all of it when it fits). What training shows the checker. A sentence
    longer than ``max_words`` is ranked in windows (:func:`reading_units`).

    ``titles``: each passage's title, where the evidence carries them (retrieval's passages). If
    they name two articles or more, a sentence also shares what its title shares with the text:
    "It finished the season 19-15" in the article "2016-17 Colorado Buffaloes" outranks "The
    Buffaloes finished the season 3-9" in another team's (docs/checker.md, "Titled passages")."""
    if titles is not None and len(titles) != len(evidence):
        raise ValueError(f"{len(titles)} titles for {len(evidence)} evidence passages")
    whole = " ".join(evidence)
    if len(whole.split()) <= max_words:
        return whole
    want = shared_words(text)
    named = list(titles) if titles and len({t for t in titles if t}) > 1 else [""] * len(evidence)
    sentences: list[str] = []
    shared: list[int] = []
    for passage, title in zip(evidence, named, strict=True):
        about = want & shared_words(title)
        for sentence in reading_units([passage], max_words):
            sentences.append(sentence)
            shared.append(len(want & shared_words(sentence) | about))
    ranked = sorted(range(len(sentences)), key=lambda i: -shared[i])
    keep: set[int] = set()
    size = 0
    for i in ranked:
        n = len(sentences[i].split())
        if size + n > max_words and keep:
            continue
        keep.add(i)
        size += n
        if size >= max_words:
            break
    return " ".join(sentences[i] for i in sorted(keep))


def pieces(evidence: Sequence[str], max_words: int) -> list[str]:
    """The evidence in pieces of at most about ``max_words`` words, sentences kept whole (but
    one longer than ``max_words``, cut every ``max_words`` words) and short passages packed
    together (:func:`~favakit.inference.judges.evidence_chunks`)."""
    from favakit.inference.judges import evidence_chunks

    chunks = evidence_chunks([{"title": "", "text": e} for e in evidence], max_words, cut=True)
    return [" ".join(p["text"] for p in chunk) for chunk in chunks]


def closest_first(text: str, read: Sequence[str]) -> list[int]:
    """The indices of ``read`` (:func:`pieces`), those sharing the most words with ``text``
    (:func:`shared_words`) first, equals in their order."""
    return _highest_first(_shared_counts(text, read))


def closest_pieces(text: str, read: Sequence[str], most: int) -> list[str]:
    """The ``most`` of ``read`` (:func:`pieces`) that share the most words with ``text``
    (:func:`shared_words`), in their order: a sentence of a long text is not read against the
    pieces of evidence other windows of the text retrieved for their own sentences."""
    return top_pieces(_shared_counts(text, read), read, most)


def top_pieces(scores: Sequence[float], read: Sequence[str], most: int) -> list[str]:
    """The ``most`` of ``read`` with the highest ``scores`` (one each; the first of equals),
    in their order."""
    if len(scores) != len(read):
        raise ValueError(f"{len(scores)} scores for {len(read)} pieces")
    if len(read) <= most:
        return list(read)
    return [read[i] for i in sorted(_highest_first(scores)[:most])]


def _shared_counts(text: str, read: Sequence[str]) -> list[int]:
    """How many of its words (:func:`shared_words`) each of ``read`` shares with ``text``."""
    want = shared_words(text)
    return [len(want & shared_words(piece)) for piece in read]


def _highest_first(scores: Sequence[float]) -> list[int]:
    """The indices of ``scores``, the highest first, equals in their order."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def token_windows(
    text: str, offsets: Sequence[Sequence[int]], budget: int
) -> list[tuple[int, int, int]]:
    """``text`` in windows of at most ``budget`` of its tokens (``offsets``: each token's
    character span, as ``return_offsets_mapping`` gives them for the text alone, in order):
    ``(start, end, tokens)`` each, covering the whole text. A window ends at the last sentence end
    that keeps it within the budget, else at the last space, else inside a word."""
    if budget < 1:
        raise ValueError("budget must be at least 1")
    ends = [end for _, end in sentence_spans(text)]
    windows: list[tuple[int, int, int]] = []
    first, begin = 0, 0
    while len(offsets) - first > budget:
        start = offsets[first][0]  # where the window's first token starts
        limit = offsets[first + budget][0]  # where the first token past the budget starts
        cut = max((e for e in ends if start < e <= limit), default=0)
        if not cut:
            spaces = [m.start() for m in re.finditer(r"\s", text[start:limit])]
            cut = start + spaces[-1] if spaces and spaces[-1] > 0 else limit
        after = next(k for k in range(first + 1, first + budget + 1) if offsets[k][0] >= cut)
        windows.append((begin, cut, after - first))
        first, begin = after, cut
    windows.append((begin, len(text), len(offsets) - first))
    return windows


class Read(NamedTuple):
    """What one pass of the model read of a (text, evidence) pair: the evidence words it read of
    those it was given, whether the tokenizer's ``max_length`` cut the evidence short, and the
    text's words read where it cut the text too."""

    evidence_words: int
    evidence_given: int
    evidence_cut: bool
    text_words: int | None = None
    text_given: int | None = None


def read_of(
    pair: tuple[str, str], offsets: Sequence[Sequence[int]], sides: Sequence[int | None]
) -> Read:
    """What the tokenizer kept of ``pair``: its last kept token's end on each side (its
    ``offsets``, as ``return_offsets_mapping`` gives them; ``sides``, its sequence ids), in
    whitespace words."""
    ends: dict[int, int] = {0: 0, 1: 0}
    for (_, end), side in zip(offsets, sides, strict=True):
        if side is not None:
            ends[side] = max(ends[side], end)
    text, evidence = pair
    # a word after the last token kept was cut (a character no token covers, such as a
    # zero-width space, was not)
    text_cut = bool(re.search(r"\w", text[ends[0] :]))
    return Read(len(evidence[: ends[1]].split()), len(evidence.split()),
                bool(re.search(r"\w", evidence[ends[1] :])),
                len(text[: ends[0]].split()) if text_cut else None,
                len(text.split()) if text_cut else None)  # fmt: skip


def _share_read(r: Read) -> tuple[float, float]:
    """The share of its evidence, then of its text, that a pass read."""
    text = r.text_words / max(1, r.text_given or 1) if r.text_words is not None else 1.0
    return (r.evidence_words / max(1, r.evidence_given), text)


def most_cut(a: Read | None, b: Read) -> Read:
    """Of two passes' :class:`Read`, the one that left more of what it was given unread."""
    return b if a is None else min(a, b, key=_share_read)
