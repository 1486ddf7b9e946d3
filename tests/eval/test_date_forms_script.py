"""scripts/date_forms.py: the claims it makes from development evidence, and the rows it counts
as rewritten (no model)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType


def test_claims_write_the_evidence_date_in_misread_forms_and_move_the_day(
    bench_script: Callable[[str], ModuleType],
) -> None:
    date_forms = bench_script("date_forms")
    rows = [
        {"id": "a", "source": "x", "label": "supported",
         "evidence": ["Founded in May 1990. The hall opened on 31 March 2001 in Leeds."]},
        {"id": "b", "source": "x", "label": "supported", "evidence": ["No date here, 1990."]},
    ]  # fmt: skip
    made = date_forms.redated(rows)
    assert [(c["text"], c["label"]) for c in made] == [
        ("The hall opened on 2001-03-31 in Leeds.", "supported"),
        ("The hall opened on 31 Mar 2001 in Leeds.", "supported"),
        # the last day of March moves back a day, never to 32 March
        ("The hall opened on 2001-03-30 in Leeds.", "not_supported"),
        ("The hall opened on 30 Mar 2001 in Leeds.", "not_supported"),
    ]
    assert {c["id"] for c in made} == {"a"}


def test_a_row_counts_as_rewritten_where_its_text_or_its_evidence_is(
    bench_script: Callable[[str], ModuleType],
) -> None:
    rewrites = bench_script("date_forms").rewrites
    assert rewrites("Opened on 2001-03-31.", ["Opened on 31 March 2001."])
    assert rewrites("Opened on 31 March 2001.", ["Opened 31 Mar 2001."])
    assert not rewrites("Opened on March 31, 2001.", ["Opened on 31 March 2001."])
    assert not rewrites("See /news/2001-03-31/.", ["No date."])
