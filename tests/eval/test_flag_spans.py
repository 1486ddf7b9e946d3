"""scripts/flag_spans.py: the two ways the gate flags an unsupported sentence the editor left
alone, compared against the words real span rows mark, on the gate's own rule."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def test_word_flags_and_sentence_flags_are_scored_against_the_marked_words(
    bench_script: Callable[[str], ModuleType],
) -> None:
    flag_spans = bench_script("flag_spans")
    text = "Curie was born in Warsaw. She moved to Lisbon in 1891."
    row = {"source": "summedits_news", "text": text, "label": "not_supported",
           "original": "Curie was born in Warsaw. She moved to Paris in 1891.",
           "evidence": ["Marie Curie was born in Warsaw. In 1891 she moved to the city of Paris."]}  # fmt: skip
    # (not "she moved to Paris": the name rule would read "Lisbon" after the same three words
    # and fix it, session 51, and no flag would be left to score)
    gold = flag_spans.marked(row)
    assert gold == set(range(text.index("Lisbon"), text.index("Lisbon") + 6))
    assert flag_spans.marked({**row, "label": "supported"}) is None
    sentences = [(0, 25), (26, len(text))]
    # the second sentence is unsupported (score 0.1 at threshold 0.5): flagged whole, or at
    # "Lisbon", the one word the evidence never uses
    whole = flag_spans.flagged_chars(row, sentences, [0.9, 0.1], 0.5, "sentences")
    words = flag_spans.flagged_chars(row, sentences, [0.9, 0.1], 0.5, "words")
    assert words == gold and gold < whole and min(whole) == 26
    report = flag_spans.compare([row], [gold], [(sentences, [0.9, 0.1])], 0.5)
    assert report["summedits"]["words"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert report["all"]["sentences"]["precision"] == round(6 / len(whole), 4)
    assert "wice" not in report  # no row of that family


class _Table:
    """The gate's judge as a table: P(supported) 0.9 for the first sentence, 0 for any other
    text (the :class:`~favakit.inference.gate_edits.SentenceScorer` contract)."""

    name, gate_threshold, threshold = "table", 0.5, 0.5

    def score(self, texts, evidence, *, enough=None):  # type: ignore[no-untyped-def]
        return [(0.9 if t == "Curie was born in Warsaw." else 0.0, 1) for t in texts]


def test_the_default_pipeline_is_measured_again_from_the_editors_cached_output(
    bench_script: Callable[[str], ModuleType], tmp_path: Path
) -> None:
    """``--editor CACHE``: with every row's raw editor result cached no editor is loaded; the
    whole gate (GatedEditor) runs on the cached result. The cached editor rewrote the wrong
    clause into "Paris": the gate flags it, narrowed to "Lisbon", the word the evidence never
    uses."""
    flag_spans = bench_script("flag_spans")
    text = "Curie was born in Warsaw. She moved to Lisbon in 1891."
    row = {"id": "r1", "source": "summedits_news", "text": text, "label": "not_supported",
           "original": "Curie was born in Warsaw. She moved to Paris in 1891.",
           "evidence": ["Marie Curie was born in Warsaw. In 1891 she moved to the city of Paris."]}  # fmt: skip
    # (not "she moved to Paris": the name rule would read "Lisbon" after the same three words
    # and fix it, session 51, and no flag would be left to score)
    clause = text.index("She")
    raw = {"original": text, "corrected": text[:clause] + "Paris.",
           "evidence": [{"title": "", "text": row["evidence"][0]}],
           "edits": [{"type": "entity", "start": clause, "end": len(text) - 1,
                      "wrong": text[clause:-1], "right": "Paris"}]}  # fmt: skip
    cache = tmp_path / "raw.jsonl"
    cache.write_text(json.dumps({"id": "r1", "raw": raw}) + "\n")
    gold = flag_spans.marked(row)
    report = flag_spans.beside([row], [gold], _Table(), cache)
    assert report["all"]["default"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert report["summedits"]["rows"] == 1 and "wice" not in report
