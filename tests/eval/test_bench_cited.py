"""scripts/bench_cited.py: development claims composed into texts that cite two sources, and the
claim's own sentence found again by its citation (favakit.citations)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from favakit.citations import cited_reading


def _rows() -> list[dict[str, object]]:
    claims = ["Paris is in France.", "Rome is in Italy.", "Oslo is in Norway.", "Lima is in Peru"]
    return [{"id": str(n), "source": "fever", "text": c, "evidence": ["e"],
             "label": "supported" if n % 2 else "not_supported"}
            for n, c in enumerate(claims)]  # fmt: skip


def test_each_claim_beside_another_cited_elsewhere_and_found_again(
    bench_script: Callable[[str], ModuleType],
) -> None:
    bench = bench_script("bench_cited")
    rows = _rows()
    both = bench.composed(rows, seed=3)
    assert [r["label"] for r in both] == [r["label"] for r in rows]  # labels stay the claim's
    orders = set()
    for row, made in zip(rows, both, strict=True):
        text = str(made["text"])
        assert text.count(bench.CITED) == 1 and text.count(bench.OTHER) == 1
        own = str(row["text"]).rstrip(".")
        orders.add(text.startswith(own))
        assert cited_reading(text, [bench.CITED]).read == own + "."  # the claim, marks removed
        beside = cited_reading(text, [bench.OTHER]).read
        assert beside != own + "." and beside.endswith(".")
    assert orders == {True, False}  # the claim comes first in some texts, second in others
    assert bench._marked("A is B.", "1", True) == "A is B [1]."
    assert bench._marked("A is B", "<|x|>", False) == "A is B.<|x|>"
