"""Training data: prompt and completion tokenized together, the prompt masked by position.

Tokenizing the prompt on its own to find where the completion starts gives the wrong answer
whenever a token spans the boundary; here the whole text is tokenized once and every token that
holds a character of the completion is a label. EOS is appended. An example longer than
``max_length`` loses references (least relevant first) until it fits; the text and the target
are never cut, and examples that cannot fit are dropped and counted.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import Any

from favakit.errors import UsageError
from favakit.prompts import fewest_references_dropped
from favakit.records import valid_rows

__all__ = ["EncodedSet", "check_held_out", "collate", "encode_rows", "load_rows", "pack"]

log = logging.getLogger(__name__)

IGNORE = -100


@dataclass
class EncodedSet:
    examples: list[tuple[list[int], list[int]]] = field(default_factory=list)  # (input_ids, labels)
    truncated: int = 0  # examples shortened by dropping references
    dropped: int = 0  # examples that could not fit max_length
    tokens: int = 0


def load_rows(path: str, limit: int = 0) -> list[dict[str, str]]:
    """The ``{"prompt", "completion"}`` rows of a training file (the first ``limit``, where
    given), every row checked: a file with bad rows is refused naming each."""

    def checked(row: dict[str, Any], _: int, where: str) -> dict[str, str]:
        if not isinstance(row.get("prompt"), str) or not isinstance(row.get("completion"), str):
            claims = isinstance(row, dict) and "label" in row and ("text" in row or "claim" in row)
            hint = (" (this row is a labelled claim: a checker trains on those, "
                    "`favakit train --config minilm_checker`)") if claims else ""  # fmt: skip
            raise UsageError(
                f"{where}: a training row needs string 'prompt' and 'completion'{hint}"
            )
        if not row["completion"].strip():  # the model would learn to answer nothing
            raise UsageError(f"{where}: 'completion' is empty: nothing to learn from this row")
        return {"prompt": row["prompt"], "completion": row["completion"]}

    rows = valid_rows(path, checked)[: limit or None]
    if not rows:
        raise UsageError(f"{path} holds no training rows")
    return rows


def check_held_out(train_rows: list[dict[str, str]], val_rows: list[dict[str, str]]) -> None:
    """``data.validation_file``'s rows against the training rows: refused where every one is a
    training row (the same file given twice: its loss would say nothing of new text), a warning
    where some are."""
    seen = {(r["prompt"], r["completion"]) for r in train_rows}
    shared = sum((r["prompt"], r["completion"]) in seen for r in val_rows)
    if val_rows and shared == len(val_rows):
        raise UsageError(
            f"data.validation_file: its {len(val_rows)} row(s) are all training rows, so its "
            "loss says nothing of new text: give held-out rows, or leave it out to hold out "
            "data.validation_fraction of the training file"
        )
    if shared:
        log.warning("data.validation_file: %d of its %d rows are training rows too",
                    shared, len(val_rows))  # fmt: skip


def _encode(tokenizer: Any, prompt: str, completion: str) -> tuple[list[int], list[int]]:
    enc = tokenizer(prompt + completion, return_offsets_mapping=True, add_special_tokens=True)
    ids = list(enc["input_ids"])
    boundary = len(prompt)
    labels = [
        tid if end > boundary else IGNORE
        for tid, (_, end) in zip(ids, enc["offset_mapping"], strict=True)
    ]
    if tokenizer.eos_token_id is not None:
        ids.append(tokenizer.eos_token_id)
        labels.append(tokenizer.eos_token_id)
    return ids, labels


def _encode_fitted(
    tokenizer: Any, row: dict[str, str], max_length: int
) -> tuple[list[int], list[int], bool]:
    """A row's tokens and labels with the fewest references dropped that fit ``max_length`` (all
    of them where none does), and whether any were."""
    encoded: dict[str, tuple[list[int], list[int]]] = {}

    def fits(prompt: str) -> bool:
        encoded[prompt] = _encode(tokenizer, prompt, row["completion"])
        return len(encoded[prompt][0]) <= max_length

    prompt, dropped = fewest_references_dropped(row["prompt"], fits)
    return (*encoded[prompt], dropped > 0)


def encode_rows(tokenizer: Any, rows: list[dict[str, str]], max_length: int) -> EncodedSet:
    out = EncodedSet()
    for row in rows:
        ids, labels, shortened = _encode_fitted(tokenizer, row, max_length)
        if len(ids) > max_length or all(x == IGNORE for x in labels):
            out.dropped += 1
            continue
        out.truncated += shortened
        out.examples.append((ids, labels))
        out.tokens += len(ids)
    return out


def pack(
    examples: list[tuple[list[int], list[int]]], max_length: int
) -> list[tuple[list[int], list[int]]]:
    """Concatenate short examples into sequences of at most ``max_length`` tokens (in order)."""
    packed: list[tuple[list[int], list[int]]] = []
    ids: list[int] = []
    labels: list[int] = []
    for e_ids, e_labels in examples:
        if ids and len(ids) + len(e_ids) > max_length:
            packed.append((ids, labels))
            ids, labels = [], []
        ids, labels = ids + e_ids, labels + e_labels
    if ids:
        packed.append((ids, labels))
    return packed


def collate(
    batch: list[tuple[list[int], list[int]]], pad_id: int, multiple: int = 0
) -> dict[str, Any]:
    """Right-padded tensors: input_ids, attention_mask, labels (-100 at padding). With
    ``multiple`` the width is rounded up to a multiple of it, so batches come in few shapes."""
    import torch

    width = max(len(ids) for ids, _ in batch)
    if multiple > 0:
        width = -(-width // multiple) * multiple
    input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for i, (ids, lab) in enumerate(batch):
        input_ids[i, : len(ids)] = torch.tensor(ids)
        labels[i, : len(lab)] = torch.tensor(lab)
        mask[i, : len(ids)] = 1
    return {"input_ids": input_ids, "attention_mask": mask, "labels": labels}


def split_validation(
    rows: list[dict[str, str]], fraction: float, seed: int
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    order = list(range(len(rows)))
    random.Random(f"val:{seed}").shuffle(order)
    n_val = max(1, int(len(rows) * fraction)) if fraction > 0 and len(rows) > 1 else 0
    val = {i for i in order[:n_val]}
    return [r for i, r in enumerate(rows) if i not in val], [
        r for i, r in enumerate(rows) if i in val
    ]
