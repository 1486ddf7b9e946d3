"""The token head's scores a gate's checker keeps from its verdict passes.

The gate scores each sentence against each evidence piece (:meth:`Checker.read_pairs
<favakit.inference.checker.Checker.read_pairs>`), then marks the words of the unsupported ones
with the token head (:meth:`Checker.token_scores
<favakit.inference.checker.Checker.token_scores>`), pairing the same sentence with the same
pieces. Where the two passes give the model the same input token for token (a sentence with no
number rewritten into the evidence's form, a pair that fits the model's length), the second pass
would run the model again on it. A :class:`KeptMarks` holds what the first pass's last hidden
states gave the token head, keyed by the model's exact input, so that the second pass runs the
model only on the pairs it has not seen.

A kept score was computed in another batch (other rows, other padding), so it can differ from a
fresh one in the last bits; on the development split's span rows the flagged words were the same
(docs/benchmarks.md, session 68).
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["KEPT_MARKS", "KeptMarks", "input_key", "read_positions"]

#: How many passes' token scores a checker keeps, the oldest dropped first (each at most the
#: model's length in 4-byte floats, keyed by as many token ids: about 8 MB at 256 tokens).
KEPT_MARKS = 4096


def read_positions(enc: Mapping[str, Any], row: int) -> list[int]:
    """The positions of row ``row`` of a tokenizer's batch ``enc`` (lists or tensors) that its
    attention mask reads: all but the padding."""
    return [i for i, m in enumerate(_row(enc["attention_mask"], row)) if m]


def input_key(enc: Mapping[str, Any], row: int, read: Sequence[int]) -> bytes:
    """The model's input in row ``row`` of a tokenizer's batch ``enc``: its token ids and, where
    the model takes them, token types, at the positions it reads (``read``:
    :func:`read_positions`), so two batches padded differently give one key for one input."""
    parts = []
    for name in ("input_ids", "token_type_ids"):
        if name in enc:
            values = _row(enc[name], row)
            parts.append(array("i", [values[i] for i in read]).tobytes())
    return b"|".join(parts)


def _row(values: Any, row: int) -> list[int]:
    got = values[row]
    return got.tolist() if hasattr(got, "tolist") else list(got)


class KeptMarks:
    """The token head's P(unsupported) at every position a pass read, by :func:`input_key`;
    at most ``size`` passes, the oldest dropped first. Shared by a checker's roles (one model)
    and safe for a server's threads."""

    def __init__(self, size: int = KEPT_MARKS) -> None:
        self.size = size
        self._kept: OrderedDict[bytes, array[float]] = OrderedDict()
        self._lock = threading.Lock()
        #: passes answered from what was kept, and passes kept: what the tests and benchmarks read
        self.hits = 0
        self.kept = 0

    def __len__(self) -> int:
        return len(self._kept)

    def keep(self, key: bytes, scores: Sequence[float]) -> None:
        """Keep one pass's scores, one per position it read (:func:`read_positions`)."""
        with self._lock:
            self._kept[key] = array("f", scores)
            self._kept.move_to_end(key)
            self.kept += 1
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def get(self, key: bytes) -> array[float] | None:
        """The kept scores of the pass that read ``key``, or None."""
        with self._lock:
            got = self._kept.get(key)
            if got is not None:
                self._kept.move_to_end(key)
                self.hits += 1
            return got
