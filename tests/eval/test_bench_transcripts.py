"""scripts/bench_transcripts.py: each probe row hides its own evidence, flattened, in a long
text that favakit's sentence splitter reads as one sentence."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType


def _row(n: int, source: str, label: str, words: int) -> dict[str, object]:
    body = " ".join(f"word{n}x{i}" for i in range(words - 1))
    return {"id": f"{source}-{n}", "source": source, "label": label,
            "text": f"Claim {n}.", "evidence": [f"Fact {n} says {body}. It ends here!"]}  # fmt: skip


def test_each_row_hides_its_own_evidence_in_one_long_unpunctuated_sentence(
    bench_script: Callable[[str], ModuleType],
) -> None:
    from favakit.text import split_sentences

    bench = bench_script("bench_transcripts")
    rows = [_row(n, "fever", ("supported", "not_supported")[n % 2], 20 + n) for n in range(40)]
    rows.append(_row(99, "wice", "supported", 20))  # a source not asked for
    rows.append(_row(98, "fever", "supported", 200))  # too much evidence to hide
    probe = bench.transcripts(rows, {"fever"}, per_label=3, seed=0)
    assert [r["label"] for r in probe] == ["supported"] * 3 + ["not_supported"] * 3
    assert {r["id"] for r in probe} == {f"fever-{n}-t" for n in range(6)}
    for r in probe:
        (evidence,) = r["evidence"]
        assert len(split_sentences(evidence)) == 1 and len(evidence.split()) >= 300
        assert evidence == evidence.lower() and not set(".!?;:") & set(evidence)
        n = int(r["id"].split("-")[1])
        own = bench.flattened(" ".join(rows[n]["evidence"]))  # type: ignore[arg-type]
        assert f" {own} " in f" {evidence} " and r["text"] == rows[n]["text"]
    assert bench.transcripts(rows, {"fever"}, 3, seed=0) == probe  # seeded
    assert bench.transcripts(rows, {"fever"}, 3, seed=1) != probe
