"""eval/edit_gain.py: the gain summary counts edits (fixes, deletions) apart from spans flagged
with no fix, and the report shows both."""

from __future__ import annotations

from favakit.eval.edit_gain import gain_summary
from favakit.eval.report import edit_gain_markdown


def test_flags_are_counted_apart_from_edits() -> None:
    scores = {"score": 0.5, "init_score": 0.5, "num_facts_per_response": 2.0,
              "respond_ratio": 1.0}  # fmt: skip
    fix = {"type": "entity", "start": 0, "end": 4, "wrong": "1820", "right": "1815"}
    flag = {"type": "unverifiable", "start": 5, "end": 9, "wrong": "Rome", "right": "Rome",
            "flagged": True}  # fmt: skip
    edits = [{"edits": [fix, flag]}, {"edits": [flag]}, {"edits": []}, None]
    got = gain_summary(scores, {**scores, "score": 0.75}, edits)
    assert got["edits_per_type"] == {"entity": 1} and got["texts_edited"] == 1
    assert got["flags_per_type"] == {"unverifiable": 2} and got["texts_flagged"] == 2
    assert got["n"] == 4 and got["gain"] == 0.25
    page = edit_gain_markdown(got)
    assert "4 responses; 1 edited; 2 with spans flagged with no fix;" in page
    assert "| edits | 1 | 0 | 0 | 0 | 0 | 0 |" in page
    assert "| flagged, no fix | 0 | 0 | 0 | 0 | 0 | 2 |" in page
