"""Editor training examples from real edited texts: a text someone changed, with its original.

SummEdits rows (``../shared/data/real/train_spans/summedits.jsonl``) hold a summary that a
person or a model edited (``text``), the summary before the edit (``original``), the document
(``evidence``), whether the edited summary is still consistent with it (``label``) and the kinds
of edit made (``edit_types``). Each row becomes one editor example (``train_example/1``, the
synthetic pipeline's shape):

- a ``supported`` row: the edited text, copied unchanged (no tags): the editor learns to leave a
  correct real text alone, however it was reworded;
- a ``not_supported`` row: the edited text with every changed run of words tagged; the
  original's words are the correction (``<mark>``), and words that were only added are deleted
  (no ``<mark>``). Words that were only removed (a dropped "not") are tagged on the word before
  them (or after, at the start), whose correction brings them back.

The type of each change comes from the row's ``edit_types`` (:data:`EDIT_TYPES`:
``entity_modification`` -> entity, ``antonym_swap`` -> relation, ``negation_insertion_removal``
-> contradictory, ``hallucinated_fact_insertion`` -> invented). With one kind given, every
change has it; with several, a change that adds or removes a negation is contradictory, one that
only adds words (keeping the original's) is invented, one with a number or a capitalised word is entity, and the rest are
relation (then entity, then the first kind given), each only among the kinds the row names.

Rows are skipped, and counted by reason, when a ``not_supported`` row names no edit kind or has
no change, when more than ``max_changed`` of its words changed (a rewrite, not an edit), or when
two changes would share a word. The document is cut to the ``evidence_words`` words that share
the most with the original and edited texts (:func:`favakit.inference.evidence_reading.fit_evidence`),
so the correction's source is kept. Files in measuring-only folders (``eval/``,
``eval_spans/``) are refused.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from favakit.errors import UsageError
from favakit.prompts import Reference, build_prompt
from favakit.records import (
    SPLIT_FILES,
    TrainExample,
    numbered_jsonl,
    output_folder,
    refuse_measuring_set,
    write_jsonl_atomic,
)
from favakit.tags import ERROR_TYPES, Edit, Segment, Tagged
from favakit.text import WordChange, word_changes

__all__ = ["EDIT_TYPES", "convert_edit_rows", "edit_example", "tag_changes"]

#: SummEdits' edit kinds -> FAVA's error types
EDIT_TYPES = {
    "entity_modification": "entity",
    "antonym_swap": "relation",
    "negation_insertion_removal": "contradictory",
    "hallucinated_fact_insertion": "invented",
}
_NEGATIONS = frozenset(
    ["not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot", "n't"]
)  # fmt: skip
_WORD = re.compile(r"[\w']+")


def _key(text: str) -> list[str]:
    """A text's words without case and punctuation."""
    return _WORD.findall(text.lower())


def _words(text: str) -> set[str]:
    """:func:`_key`'s words as a set, a contracted negation ("didn't") as ``n't``."""
    return {"n't" if w.endswith("n't") else w for w in _key(text)}


def _only_adds(wrong: str, right: str) -> bool:
    """Whether the change keeps every word of ``right`` and adds more."""
    added, kept = _key(wrong), _key(right)
    return len(added) > len(kept) and set(kept) <= set(added)


def _change_type(wrong: str, right: str, kinds: list[str]) -> str:
    """The FAVA type of one change among ``kinds`` (FAVA types, in the row's order)."""
    if len(kinds) == 1:
        return kinds[0]
    negation = (_words(wrong) ^ _words(right)) & _NEGATIONS
    entity_cue = any(
        any(ch.isdigit() for ch in w) or w[:1].isupper() for w in (wrong + " " + right).split()
    )
    for wanted, holds in (
        ("contradictory", bool(negation)),
        ("invented", _only_adds(wrong, right)),
        ("entity", entity_cue),
        ("relation", True),
        ("entity", True),
    ):
        if holds and wanted in kinds:
            return wanted
    return kinds[0]


def _with_neighbour(edited: str, change: WordChange) -> WordChange | None:
    """A removal-only change widened to the word before it (or after, at the start)."""
    before = list(re.finditer(r"\S+", edited[: change.start]))
    if before:
        word = before[-1]
        return WordChange(word.start(), word.end(), f"{word.group()} {change.before}")
    after = re.search(r"\S+", edited[change.end :])
    if after is None:
        return None
    start = change.end + after.start()
    return WordChange(start, start + len(after.group()), f"{change.before} {after.group()}")


def tag_changes(original: str, edited: str, kinds: list[str], max_changed: float = 0.5) -> Tagged:
    """``edited`` with each change from ``original`` tagged as one of ``kinds`` (FAVA types);
    ``ValueError`` (its message a skip reason) when it cannot be tagged as an edit."""
    changes = []
    for change in word_changes(original, edited):
        widened = change if change.end > change.start else _with_neighbour(edited, change)
        if widened is None:
            raise ValueError("nothing_left")
        changes.append(widened)
    if not changes:
        raise ValueError("unchanged")
    changed = sum(len(edited[c.start : c.end].split()) for c in changes)
    if changed > max_changed * max(1, len(edited.split())):
        raise ValueError("rewritten")
    segments: list[Segment] = []
    at = 0
    for c in changes:
        if c.start < at:
            raise ValueError("overlapping_changes")
        wrong = edited[c.start : c.end]
        if _key(wrong) == _key(c.before):  # punctuation or case only: not an error
            continue
        if c.start > at:
            segments.append(edited[at : c.start])
        segments.append(Edit(_change_type(wrong, c.before, kinds), wrong, c.before))
        at = c.end
    if not any(isinstance(s, Edit) for s in segments):
        raise ValueError("cosmetic_only")
    if at < len(edited):
        segments.append(edited[at:])
    tagged = Tagged(segments)
    if _key(tagged.corrected(tidy=False)) != _key(original):
        raise ValueError("does_not_restore")
    return tagged


def edit_example(
    row: dict[str, Any],
    evidence_words: int = 220,
    max_changed: float = 0.5,
    template: str = "favakit",
) -> TrainExample:
    """One row as an editor example; ``ValueError`` (its message a skip reason) when it cannot
    be one."""
    from favakit.inference.evidence_reading import fit_evidence

    text, original = row.get("text"), row.get("original")
    evidence = row.get("evidence")
    if not isinstance(text, str) or not text.strip() or not isinstance(evidence, list):
        raise ValueError("bad_row")
    if row.get("label") == "supported":
        tagged = Tagged([text])
    elif row.get("label") == "not_supported":
        if not isinstance(original, str) or not original.strip():
            raise ValueError("no_original")
        kinds = [EDIT_TYPES[k] for k in row.get("edit_types") or [] if k in EDIT_TYPES]
        if not kinds:
            raise ValueError("no_edit_type")
        tagged = tag_changes(original, text, list(dict.fromkeys(kinds)), max_changed)
    else:
        raise ValueError("bad_label")
    query = f"{original or ''} {text}"
    reference = Reference(fit_evidence(query, [str(e) for e in evidence], evidence_words))
    prompt = build_prompt(tagged.original(), [reference], template=template)
    types = sorted({e.type for e in tagged.edits}, key=ERROR_TYPES.index)
    return TrainExample(str(row.get("id", "")), prompt, tagged.render("edit"), types,
                        str(row.get("source", "")))  # fmt: skip


#: what a row skipped for the shape of its fields lacks (the other reasons are its edit's)
_WHY_SKIPPED = {
    "bad_row": "a row needs a non-empty 'text' and an 'evidence' list",
    "bad_label": "'label' must be 'supported' or 'not_supported'",
    "no_original": "an unsupported row needs 'original', its text before the edit",
    "no_edit_type": "an unsupported row needs 'edit_types', SummEdits' names of its edits",
}


def convert_edit_rows(
    inputs: Iterable[str | Path],
    out: str | Path,
    dev_sources: Iterable[str] = (),
    evidence_words: int = 220,
    max_changed: float = 0.5,
    template: str = "favakit",
) -> dict[str, Any]:
    """Convert edited-text rows into ``out/train.jsonl`` and ``out/validation.jsonl`` (the rows
    of ``dev_sources``: a development split by source); returns and writes ``stats.json``."""
    files = [Path(p) for p in inputs]
    for path in files:
        refuse_measuring_set(path)
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
    dev = set(dev_sources)
    kept: dict[str, list[TrainExample]] = {"train": [], "validation": []}
    skipped: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    types: Counter[str] = Counter()
    problems: list[str] = []
    for path in files:
        for lineno, row in numbered_jsonl(path):
            try:
                example = edit_example(row, evidence_words, max_changed, template)
            except ValueError as exc:
                skipped[str(exc)] += 1
                if len(problems) < 10:
                    problems.append(f"{path}:{lineno}: {exc}")
                continue
            kept["validation" if example.source_title in dev else "train"].append(example)
            sources[example.source_title] += 1
            types.update(example.error_types or ["none"])
    if not sources:  # every row skipped: an empty training set is no result
        reasons = ", ".join(f"{k} x{n} ({_WHY_SKIPPED.get(k, k)})" for k, n in skipped.items())
        first = f"; the first: {problems[0]}" if problems else ""
        raise UsageError(
            f"none of the {sum(skipped.values())} rows could be used: {reasons or 'no rows'}{first}"
        )
    unknown = dev - set(sources)
    if unknown:
        raise UsageError(f"--dev-sources {sorted(unknown)}: no kept row has that source")
    folder = output_folder(out, writes=SPLIT_FILES, marker="stats.json")
    for split, rows in kept.items():
        write_jsonl_atomic(folder / f"{split}.jsonl", [r.to_dict() for r in rows])
    stats = {
        "inputs": [str(p) for p in files],
        "train": len(kept["train"]), "validation": len(kept["validation"]),
        "dev_sources": sorted(dev), "sources": dict(sorted(sources.items())),
        "types": dict(sorted(types.items())), "skipped": dict(sorted(skipped.items())),
        "first_problems": problems, "evidence_words": evidence_words, "max_changed": max_changed,
    }  # fmt: skip
    (folder / "stats.json").write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
    return stats
