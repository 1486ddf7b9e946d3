"""scripts/flag_spans.py: the two ways the gate flags an unsupported sentence the editor left
alone, compared against the words real span rows mark, on the gate's own rule."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType


def test_word_flags_and_sentence_flags_are_scored_against_the_marked_words(
    bench_script: Callable[[str], ModuleType],
) -> None:
    flag_spans = bench_script("flag_spans")
    text = "Curie was born in Warsaw. She moved to Lisbon in 1891."
    row = {"source": "summedits_news", "text": text, "label": "not_supported",
           "original": "Curie was born in Warsaw. She moved to Paris in 1891.",
           "evidence": ["Marie Curie was born in Warsaw. In 1891 she moved to Paris."]}  # fmt: skip
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
