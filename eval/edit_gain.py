"""Editing gain: FActScore of outputs before and after the favakit editor, same scorer, same
cache. Reports the change in score, in facts per response and in respond ratio (an editor can
raise a precision score just by deleting content), and the edits per type."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from favakit.contracts import EditInput, Editor, EditResult

__all__ = ["edit_rows", "gain_summary"]


def edit_rows(
    rows: Sequence[Mapping[str, Any]],
    editor: Editor,
    retrieve: Callable[[str, str], list[dict[str, str]]],
) -> list[EditResult | None]:
    """The editor's result for every non-empty output (None for empty ones), with evidence from
    the topic's article (passages nearest the start of the output)."""
    todo = [i for i, r in enumerate(rows) if str(r.get("output") or "").strip()]
    requests: list[EditInput] = [
        {
            "text": rows[i]["output"],
            "topic": rows[i]["topic"],
            "evidence": retrieve(str(rows[i]["topic"]), str(rows[i]["output"])[:1000]),
        }
        for i in todo
    ]
    results: list[EditResult | None] = [None] * len(rows)
    for i, res in zip(todo, editor.edit_many(requests) if requests else [], strict=True):
        results[i] = res
    return results


def gain_summary(
    before: dict[str, Any], after: dict[str, Any], edits: Sequence[Mapping[str, Any] | None]
) -> dict[str, Any]:
    """The gain of editing (see the module); edits (fixes and deletions) and spans flagged with
    no fix are counted apart."""
    done = [e for e in edits if e is not None]
    per_type = Counter(x["type"] for e in done for x in e["edits"] if not x.get("flagged"))
    flagged = Counter(x["type"] for e in done for x in e["edits"] if x.get("flagged"))
    return {
        "n": len(edits),
        "before": {k: v for k, v in before.items() if k != "decisions"},
        "after": {k: v for k, v in after.items() if k != "decisions"},
        "gain": after["score"] - before["score"],
        "init_gain": after["init_score"] - before["init_score"],
        "facts_per_response_change": after["num_facts_per_response"]
        - before["num_facts_per_response"],
        "respond_ratio_change": after["respond_ratio"] - before["respond_ratio"],
        "edits_per_type": dict(per_type),
        "flags_per_type": dict(flagged),
        "texts_edited": sum(1 for e in done if any(not x.get("flagged") for x in e["edits"])),
        "texts_flagged": sum(1 for e in done if any(x.get("flagged") for x in e["edits"])),
        "unfaithful": sum(1 for e in done if not e.get("faithful", True)),
    }
