"""Labelled (claim, evidence) pairs and span rows for training the checker (``task: checker``).

Rows are the shape of ``../shared/data/real`` and of ``favakit verify --input``::

    {"id", "source"?, "text", "evidence": [str | {"title", "text"}], "label": "supported" |
     "not_supported", "spans"?: [{"start", "end"}], "original"?: str}

``spans`` marks the unsupported characters of ``text`` (a span row); ``original`` is the text
before an edit (the edited words are then the unsupported span). Any user's own data in this
shape works the same way. favakit's own synthetic claims (``favakit synth claims``: ``claim``
and a true/false ``label``) are read as they are, as the source ``synthetic``.

What this module does with them, in order (:func:`prepare`):

1. read every file, refusing files of measuring-only sets (:func:`refuse_measuring_set`: a
   folder named ``eval`` or ``eval_spans``) before reading a line;
2. normalise FEVER's tokenisation (``-LRB-``, spaces before punctuation: :func:`normalize`);
3. drop duplicates (the same claim and evidence; FEVER-Symmetric repeats FEVER's claims);
4. carve a development split per source, grouped by claim, so the same claim is never on both
   sides (:func:`dev_split`): checkpoints and thresholds are chosen on it, never on eval sets;
   or, given ``data.validation_file``, read the development rows from those files and drop
   every training pair whose claim is among theirs;
5. add hard negatives made by rules from the supported training pairs' own evidence (an entity
   of the claim swapped for another entity of the evidence, a number changed, a negation):
   :func:`hard_negatives`;
6. weight the sources (``source:weight``; 2 repeats a source twice, 0.5 keeps half of it).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeGuard

from favakit.errors import UsageError
from favakit.records import refuse_measuring_set, valid_rows
from favakit.text import undo_ptb as normalize
from favakit.text import word_changes

__all__ = [
    "Pair",
    "dev_split",
    "edited_spans",
    "hard_negatives",
    "in_dev_split",
    "normalize",
    "pair_key",
    "prepare",
    "read_pairs",
    "refuse_measuring_set",
    "weigh",
]


@dataclass
class Pair:
    id: str
    source: str
    text: str
    evidence: list[str]
    label: bool  # supported
    spans: list[tuple[int, int]] = field(default_factory=list)  # unsupported characters of text
    has_spans: bool = False  # the row says where (no spans on a not-supported row: unknown)


def pair_key(pair: Pair) -> str:
    """A pair's identity (its normalised text and evidence): how a teacher's scores
    (``notes.teacher_scores``) find the pairs they were made for."""
    joined = pair.text + "\0" + "\0".join(pair.evidence)
    return hashlib.sha1(joined.encode("utf-8")).hexdigest()


def _evidence_text(item: Any) -> str | None:
    """A passage as the checker reads it (``title: text``), or None where it is neither a string
    nor a ``{"title"?, "text"}`` object of strings."""
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and isinstance(item.get("text"), str):
        title = item.get("title") or ""
        if isinstance(title, str):
            return f"{title}: {item['text']}" if title else item["text"]
    return None


def _spans(given: Any, text: str, where: str) -> list[tuple[int, int]]:
    """A row's ``spans``: objects of integer ``start`` < ``end`` within ``text``."""
    spans = []
    for sp in given:
        s, e = (sp.get("start"), sp.get("end")) if isinstance(sp, dict) else (None, None)
        if not (_is_int(s) and _is_int(e)):
            raise UsageError(f'{where}: a span is {{"start": int, "end": int}}, not {sp!r}')
        if not 0 <= s < e <= len(text):
            raise UsageError(f"{where}: span {s}-{e} is outside the text")
        spans.append((s, e))
    return spans


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def read_pairs(path: str | Path) -> list[Pair]:
    """The rows of one JSONL file, validated (file and line in every error)."""
    refuse_measuring_set(path)
    out = valid_rows(path, lambda row, lineno, where: _pair(row, lineno, where, Path(path).stem))
    if not out:
        raise UsageError(f"{path} holds no rows")
    return out


def _pair(row: Any, lineno: int, where: str, stem: str) -> Pair:
    """One validated row of a pairs file (``stem``: the file's name, the row's default source
    and id prefix)."""
    if not isinstance(row, dict):
        raise UsageError(f"{where}: expected an object with a 'text' string")
    synthetic = "text" not in row and isinstance(row.get("claim"), str)
    if synthetic:  # a row of `favakit synth claims`: a true/false label
        said = row.get("label")
        label = ("supported" if said else "not_supported") if isinstance(said, bool) else None
        row = {**row, "text": row["claim"], "source": row.get("source") or "synthetic",
               "label": label}  # fmt: skip
    if not isinstance(row.get("text"), str):
        raise UsageError(f"{where}: expected an object with a 'text' string")
    label = row.get("label")
    if label not in ("supported", "not_supported"):
        want = "true or false" if synthetic else "'supported' or 'not_supported'"
        given = said if synthetic else label
        got = "it is missing" if given is None else f"not {given!r}"
        raise UsageError(f"{where}: 'label' must be {want}; {got}")
    text = row["text"]
    if not text.strip():
        raise UsageError(f"{where}: 'text' is empty")
    given = row.get("evidence") or []
    if isinstance(given, str):
        raise UsageError(f"{where}: 'evidence' must be a list of passages, not one string: "
                         'write ["..."] (one string per passage)')  # fmt: skip
    passages = [_evidence_text(e) for e in given] if isinstance(given, list) else [None]
    if None in passages:
        raise UsageError(f"{where}: 'evidence' must be a list of strings or "
                         '{"title", "text"} objects')  # fmt: skip
    evidence = [e for e in passages if e and e.strip()]  # blank passages say nothing
    if not evidence:
        raise UsageError(f"{where}: no evidence: a pair teaches the checker only with the "
                         "evidence its label was given against")  # fmt: skip
    spans: list[tuple[int, int]] = []
    has_spans = False
    if row.get("spans") is not None:
        if not isinstance(row["spans"], list):
            raise UsageError(f"{where}: 'spans' must be a list")
        spans, has_spans = _spans(row["spans"], text, where), True
    elif row.get("original") is not None:
        if not isinstance(row["original"], str):
            raise UsageError(
                f"{where}: 'original' must be a string (the text before it was edited)"
            )
        if label == "not_supported":
            spans, has_spans = edited_spans(row["original"], text), True
    source = str(row.get("source") or stem)
    return Pair(str(row.get("id", f"{stem}-{lineno}")), source, text, evidence,
                label == "supported", spans, has_spans)  # fmt: skip


def edited_spans(original: str, edited: str) -> list[tuple[int, int]]:
    """The characters of ``edited`` that are not in ``original`` (word-level diff)."""
    return [(c.start, c.end) for c in word_changes(original, edited) if c.end > c.start]


def _key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def dedupe(pairs: Iterable[Pair]) -> list[Pair]:
    """The first of each (claim, evidence) pair, compared without case and punctuation."""
    seen: set[tuple[str, str]] = set()
    out = []
    for p in pairs:
        k = (_key(p.text), _key(" ".join(p.evidence)))
        if k not in seen:
            seen.add(k)
            out.append(p)
    return out


def _bucket(text: str, seed: int) -> float:
    digest = hashlib.sha256(f"{seed}:{_key(text)}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def in_dev_split(text: str, fraction: float, seed: int = 0) -> bool:
    """Whether :func:`dev_split` holds out the claim ``text`` (as it is after
    :func:`normalize`): a script can then measure a trained checker on rows it never saw."""
    return _bucket(text, seed) < fraction


def dev_split(
    pairs: Sequence[Pair], fraction: float, seed: int = 0
) -> tuple[list[Pair], list[Pair]]:
    """(train, dev): about ``fraction`` of every source's claims held out, a claim (and every
    pair of it, across sources: FEVER-Symmetric's copies go with FEVER's) on one side only."""
    train: list[Pair] = []
    dev: list[Pair] = []
    for p in pairs:
        (dev if in_dev_split(p.text, fraction, seed) else train).append(p)
    return train, dev


_NUMBER = re.compile(r"\b\d[\d,.]*\b")
_ENTITY = re.compile(r"\b[A-Z][\w'-]+(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][\w'-]+)*")
_NEGATABLE = re.compile(r"\b(is|was|are|were|has|had|can|will|does|did)\b")


def _swap_entity(text: str, evidence: str, rng: random.Random) -> str | None:
    mine = [m for m in _ENTITY.finditer(text) if m.start() > 0 and m.group(0) in evidence]
    others = sorted({m.group(0) for m in _ENTITY.finditer(evidence)} - set(_ENTITY.findall(text)))
    others = [o for o in others if len(o) > 2]
    if not mine or not others:
        return None
    m = rng.choice(mine)
    return text[: m.start()] + rng.choice(others) + text[m.end() :]


def _change_number(text: str, rng: random.Random) -> str | None:
    nums = list(_NUMBER.finditer(text))
    if not nums:
        return None
    m = rng.choice(nums)
    digits = m.group(0).replace(",", "")
    try:
        value = float(digits)
    except ValueError:
        return None
    if value.is_integer() and 1000 <= value <= 2100:  # a year
        new = str(int(value) + rng.choice([-11, -3, -1, 1, 2, 7, 10]))
    else:
        new = str(int(value * rng.choice([2, 3, 10]) + rng.choice([1, 2]))) if value else "3"
    return text[: m.start()] + new + text[m.end() :]


def _negate(text: str) -> str | None:
    m = _NEGATABLE.search(text)
    if not m or " not " in text or "n't" in text:
        return None
    return text[: m.end()] + " not" + text[m.end() :]


def hard_negatives(pairs: Sequence[Pair], share: float, seed: int = 0) -> list[Pair]:
    """Not-supported pairs made from ``share`` of the supported ones: the claim with one entity
    swapped for another entity of its own evidence, else one number changed, else negated."""
    rng = random.Random(f"hard:{seed}")
    out = []
    for p in pairs:
        if not p.label or rng.random() >= share:
            continue
        evidence = " ".join(p.evidence)
        made = _swap_entity(p.text, evidence, rng) or _change_number(p.text, rng) or _negate(p.text)
        if made and made != p.text:
            out.append(replace(p, id=p.id + "-hard", text=made, label=False, spans=[],
                               has_spans=False, source=p.source + "+hard"))  # fmt: skip
    return out


def weigh(pairs: Sequence[Pair], weights: dict[str, float], seed: int = 0) -> list[Pair]:
    """Each source's pairs repeated or thinned to its weight (default 1), shuffled."""
    rng = random.Random(f"weigh:{seed}")
    by_source: dict[str, list[Pair]] = {}
    for p in pairs:
        by_source.setdefault(p.source, []).append(p)
    out: list[Pair] = []
    for source, rows in sorted(by_source.items()):
        w = weights.get(source, weights.get(source.split("+")[0], 1.0))
        whole, part = int(w), w - int(w)
        out += rows * whole
        out += rng.sample(rows, round(part * len(rows)))
    rng.shuffle(out)
    return out


def _read_normalized(files: Sequence[str]) -> list[Pair]:
    """The pairs of ``files`` with FEVER's tokenisation undone (span offsets kept only where the
    text did not change)."""
    out = []
    for f in files:
        for p in read_pairs(f):
            text = normalize(p.text)
            spans = p.spans if text == p.text else []
            out.append(
                replace(p, text=text, evidence=[normalize(e) for e in p.evidence], spans=spans,
                        has_spans=p.has_spans and (text == p.text or not p.spans))
            )  # fmt: skip
    return out


@dataclass
class Prepared:
    train: list[Pair]
    dev: list[Pair]
    stats: dict[str, Any]


def prepare(
    files: Sequence[str],
    dev_fraction: float = 0.05,
    weights: dict[str, float] | None = None,
    hard_share: float = 0.3,
    seed: int = 0,
    limit: int = 0,
    dev_files: Sequence[str] = (),
) -> Prepared:
    """Training and development pairs from ``files`` (see the module docstring); with
    ``dev_files`` (``data.validation_file``) the development rows are theirs, and no training
    pair keeps a claim of theirs."""
    for f in [*files, *dev_files]:  # before reading any of them
        refuse_measuring_set(f)
    rows = _read_normalized(files)
    unique = dedupe(rows)
    if dev_files:  # the user's own development rows; their claims leave the training side
        dev = dedupe(_read_normalized(dev_files))
        held = {_key(p.text) for p in dev}
        train = [p for p in unique if _key(p.text) not in held]
    else:
        train, dev = dev_split(unique, dev_fraction, seed)
    hard = hard_negatives(train, hard_share, seed)
    mixed = weigh(train + hard, weights or {}, seed)
    if limit:
        mixed = mixed[:limit]
    count: dict[str, int] = {}
    for p in mixed:
        count[p.source] = count.get(p.source, 0) + 1
    stats = {
        "read": len(rows),
        "duplicates": len(rows) - len(unique),
        "train": len(mixed),
        "dev": len(dev),
        "hard_negatives": len(hard),
        "train_per_source": dict(sorted(count.items())),
        "dev_supported": sum(p.label for p in dev),
    }
    if dev_files:
        stats["dev_claims_dropped_from_train"] = len(unique) - len(train)
    return Prepared(mixed, dev, stats)
