"""A text that cites several sources, read against one of them: the sentences that cite it.

A model's answer with citations ("... in 1969 [1]. It was planned by NASA [2].") or a
paper's citing paragraph (Citation-Integrity's ``<|cit|>`` / ``<|other_cit|>`` marks) says
several things, each backed by its own source. Checked against one source's evidence, only the
sentences that carry that source's mark are its claim; the others cite something else and the
evidence cannot support them. A judge reading the whole text scores it by its least supported
sentence, so a true citation reads as unsupported.

:func:`cited_reading` keeps the sentences carrying one of the marks a caller names (``cites``),
as literal strings (``"[1]"``, ``"<|cit|>"``), and removes every citation mark it recognises
(:data:`CITATION_MARK`: numeric brackets ``[1]``, ``[1, 2]``, ``[1-3]``; special tokens
``<|name|>``, alone or in brackets, ``[<|cit|>]``), with the space before it. A mark written
just after a sentence's end (``"... pandemic.<|other_cit|> Notably, ..."``) belongs to the
sentence it follows. A text carrying marks but none of the named ones is read whole, marks
removed, and says so; so is a text with marks where the caller names none (the checkers read
a claim with ``[1]`` or ``<|cit|>`` in it less well than without: docs/checker.md, "Texts that
cite several sources"). A text carrying no mark is read as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from favakit.text import sentence_spans

__all__ = [
    "CITATION_MARK", "CitedReading", "cited_reading", "outside_marks", "parse_cites", "strip_marks",
]  # fmt: skip

_TOKEN = r"<\|[A-Za-z0-9_]+\|>"
_NUMBERS = r"\d+(?:\s*[-–,]\s*\d+)*"
#: one citation mark: a bracket holding numbers or special tokens, or a bare special token
CITATION_MARK = re.compile(rf"\[\s*(?:{_NUMBERS}|{_TOKEN}(?:\s*(?:,\s*)?{_TOKEN})*)\s*\]|{_TOKEN}")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)])")


@dataclass(frozen=True)
class CitedReading:
    """What a judge reads of ``text``: ``read`` (the cited sentences, marks removed), how many
    of the text's sentences were kept of how many, and a note for the verdict (None where the
    text was read as it is)."""

    read: str
    kept: int
    sentences: int
    note: str | None


def parse_cites(value: object, where: str = "") -> tuple[str, ...]:
    """A row's ``cites``: a mark or a list of marks (non-empty strings); ``ValueError``
    naming the field otherwise."""
    at = f"{where}: " if where else ""
    if value is None:
        return ()
    marks = [value] if isinstance(value, str) else value
    if not isinstance(marks, list) or not all(isinstance(m, str) and m.strip() for m in marks):
        raise ValueError(f"{at}'cites' must be a citation mark or a list of them, such as "
                         f'"[1]" or ["<|cit|>"]')  # fmt: skip
    return tuple(m.strip() for m in marks)


def _numbers(mark: str) -> list[tuple[int, int]] | None:
    """The source numbers a numeric bracket names, as ranges, joined where they touch (``[1, 2,
    4-6]`` -> [(1, 2), (4, 6)]), else None."""
    inner = mark.strip()
    if not re.fullmatch(rf"\[\s*{_NUMBERS}\s*\]", inner):
        return None
    named = sorted((int(low), int(high or low)) for low, _, high in
                   (part.replace("–", "-").partition("-") for part in inner[1:-1].split(",")))  # fmt: skip
    ranges: list[tuple[int, int]] = []
    for first, last in named:
        if ranges and first <= ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], max(last, ranges[-1][1]))
        elif first <= last:
            ranges.append((first, last))
    return ranges


def _holds(mark: str, cite: str) -> bool:
    """Whether a citation mark in the text holds the mark ``cite`` a caller names: ``[1, 3]``
    and ``[1-3]`` hold ``[1]``; any other mark holds ``cite`` where it contains it."""
    wanted, given = _numbers(cite), _numbers(mark)
    if wanted is not None and given is not None:
        return all(any(g0 <= w0 and w1 <= g1 for g0, g1 in given) for w0, w1 in wanted)
    return cite in mark


def _marks(text: str, cites: Sequence[str]) -> list[tuple[int, int, bool]]:
    """``(start, end, named)`` of each citation mark in ``text``: every :data:`CITATION_MARK`
    and every literal occurrence of a mark ``cites`` names; ``named`` where it holds one of
    them."""
    found = [(m.start(), m.end(), any(_holds(m.group(), c) for c in cites))
             for m in CITATION_MARK.finditer(text)]  # fmt: skip
    for c in cites:
        for m in re.finditer(re.escape(c), text):
            if not any(s <= m.start() < e for s, e, _ in found):
                found.append((m.start(), m.end(), True))
    return sorted(found)


def strip_marks(text: str, cites: Sequence[str] = ()) -> str:
    """``text`` with every citation mark removed (:data:`CITATION_MARK`, and the marks
    ``cites`` names), and the space a mark leaves before punctuation or another space; a text
    with no mark, exactly as it is."""
    marks = _marks(text, cites)
    if not marks:
        return text
    out, cursor = [], 0
    for start, end, _ in marks:
        out.append(text[cursor:start] + " ")
        cursor = end
    out.append(text[cursor:])
    plain = _SPACE_BEFORE_PUNCT.sub(r"\1", "".join(out))
    return re.sub(r"[ \t]{2,}", " ", plain).strip()


def outside_marks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The parts of ``text[start:end]`` outside its citation marks (:data:`CITATION_MARK`; a
    mark cut by the span's edge counts whole), spaces trimmed, each holding a letter or digit:
    what a flag over "Texas [1][2]" is left at ("Texas")."""
    cut = [(m.start(), m.end()) for m in CITATION_MARK.finditer(text)
           if m.start() < end and start < m.end()]  # fmt: skip
    parts, at = [], start
    for a, b in [*cut, (end, end)]:
        piece = text[at : max(at, min(a, end))]
        lead = len(piece) - len(piece.lstrip())
        if re.search(r"\w", piece):
            parts.append((at + lead, at + len(piece.rstrip())))
        at = max(at, b)
    return parts


def _sentence_of(at: int, spans: Sequence[tuple[int, int]]) -> int:
    """The sentence a mark starting at ``at`` belongs to: the one it lies in, else the last one
    ending at or before it (a mark written after a sentence's full stop)."""
    owner = 0
    for n, (start, end) in enumerate(spans):
        if start <= at < end:
            return n
        if end <= at:
            owner = n
    return owner


def cited_reading(text: str, cites: Sequence[str]) -> CitedReading:
    """The sentences of ``text`` that carry one of the marks ``cites`` names, joined, every
    citation mark removed (see the module's docs). ``cites`` empty: the whole text, marks
    removed; no mark in the text: the text as it is."""
    marks = _marks(text, cites)
    if not marks:
        return CitedReading(text, 1, 1, None)
    if not cites:
        return CitedReading(strip_marks(text), 1, 1, "citation marks removed")
    # sentences are split with each mark blanked out to spaces of its own length, so that
    # offsets hold and a mark never ends or starts a sentence itself
    blank = list(text)
    for start, end, _ in marks:
        blank[start:end] = " " * (end - start)
    spans = sentence_spans("".join(blank)) or [(0, len(text))]
    said = " or ".join(cites)
    kept = sorted({_sentence_of(start, spans) for start, _, named in marks if named})
    if not kept:
        return CitedReading(strip_marks(text, cites), len(spans), len(spans),
                            f"no sentence cites {said}: read the whole text, citation marks "
                            "removed")  # fmt: skip
    read = " ".join(strip_marks(text[spans[n][0] : spans[n][1]], cites) for n in kept)
    note = (f"read the {len(kept)} of {len(spans)} sentences that cite {said}, citation marks "
            "removed" if len(kept) < len(spans) else "citation marks removed")  # fmt: skip
    return CitedReading(read, len(kept), len(spans), note)
