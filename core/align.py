"""Character alignment between two versions of a text (a model's copy and the original)."""

from __future__ import annotations

import difflib

__all__ = ["offset_map"]


def offset_map(src: str, dst: str) -> dict[int, int]:
    """Offsets of ``src`` that have a counterpart in ``dst``, mapped to it: every position
    inside a matching block, and each block's end (so exclusive span ends map too)."""
    if src == dst:
        return {i: i for i in range(len(src) + 1)}
    mapping: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, src, dst, autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        for d in range(size + 1):
            mapping.setdefault(a + d, b + d)
    return mapping
