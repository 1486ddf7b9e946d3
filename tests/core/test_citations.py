"""A text citing several sources, read against one of them (favakit.citations)."""

from __future__ import annotations

import pytest

from favakit.citations import cited_reading, outside_marks, parse_cites, strip_marks
from favakit.contracts import EditRequest

ANSWER = "Apollo 11 landed in 1969 [1]. It was run by the US Navy [2]. The crew was three [1, 3]."
PAPER = (
    "Distress rose during the pandemic.<|other_cit|> Notably, older adults had severe disease "
    "more often,<|multi_cit|> as did men [<|cit|>]. This may explain the difference."
)


def test_the_sentences_citing_a_source_are_read_marks_removed() -> None:
    read = cited_reading(ANSWER, ["[1]"])
    assert read.read == "Apollo 11 landed in 1969. The crew was three."
    assert (read.kept, read.sentences) == (2, 3)
    assert read.note == "read the 2 of 3 sentences that cite [1], citation marks removed"


def test_a_numbered_source_is_found_in_lists_and_ranges() -> None:
    assert cited_reading(ANSWER, ["[3]"]).read == "The crew was three."
    assert cited_reading("A is B [2-4]. C is D [5].", ["[3]"]).read == "A is B."
    assert cited_reading("A is B [2–4]. C is D [5].", ["[5]"]).read == "C is D."
    assert cited_reading("A is B [1, 2, 3]. C is D [5].", ["[1-3]"]).read == "A is B."
    # a range is compared by its ends, never spelled out (a request could name a billion)
    assert cited_reading("A is B [1-999999999999]. C is D.", ["[7]"]).read == "A is B."


def test_a_mark_after_the_full_stop_belongs_to_the_sentence_before() -> None:
    read = cited_reading(PAPER, ["<|cit|>", "<|multi_cit|>"])
    assert read.read == "Notably, older adults had severe disease more often, as did men."
    assert (read.kept, read.sentences) == (1, 3)
    other = cited_reading(PAPER, ["<|other_cit|>"])
    assert other.read == "Distress rose during the pandemic."


def test_no_named_mark_reads_the_whole_text_and_says_so() -> None:
    read = cited_reading(ANSWER, ["[7]"])
    assert read.read == "Apollo 11 landed in 1969. It was run by the US Navy. The crew was three."
    assert read.note is not None and read.note.startswith("no sentence cites [7]")


def test_a_text_without_marks_or_without_cites_is_read_as_it_is() -> None:
    plain = "Apollo 11 landed in 1969. It was run by NASA."
    assert cited_reading(plain, ["[1]"]).read == plain
    assert cited_reading(plain, ["[1]"]).note is None
    whole = cited_reading(ANSWER, [])  # no cites: the whole text, marks removed
    assert whole.read == "Apollo 11 landed in 1969. It was run by the US Navy. The crew was three."
    assert whole.note == "citation marks removed"
    sic = "Square brackets [sic] stay."
    assert cited_reading(sic, ["[1]"]).read == sic


def test_a_single_cited_sentence_loses_only_its_marks() -> None:
    read = cited_reading("Male sex was a factor for ACE2 expression [<|cit|>].", ["<|cit|>"])
    assert read.read == "Male sex was a factor for ACE2 expression."
    assert read.note == "citation marks removed"


def test_a_named_mark_of_any_form_is_found_and_removed() -> None:
    text = "Tea came to Europe in 1610 (Smith 2020). Coffee came later (Jones 2019)."
    read = cited_reading(text, ["(Smith 2020)"])
    assert read.read == "Tea came to Europe in 1610."
    assert strip_marks("x [2] y (Smith 2020).", ["(Smith 2020)"]) == "x y."
    assert strip_marks(" FEVER 's text , as  written . ") == " FEVER 's text , as  written . "


def test_cites_are_validated_where_a_row_gives_them() -> None:
    assert parse_cites("[1]") == ("[1]",)
    assert parse_cites(["<|cit|>", " [2] "]) == ("<|cit|>", "[2]")
    assert parse_cites(None) == ()
    for bad in (3, ["[1]", ""], [None], {"mark": "[1]"}):
        with pytest.raises(ValueError, match="'cites' must be"):
            parse_cites(bad, "row 4")
    req = EditRequest.from_claim({"text": ANSWER, "evidence": ["x"], "cites": "[1]"})
    assert req.cites == ("[1]",)
    with pytest.raises(ValueError, match="line 2: 'cites' must be"):
        EditRequest.from_obj({"text": "A.", "cites": 1}, "line 2")


def test_the_parts_of_a_span_outside_its_marks() -> None:
    text = "It launched from Texas [1][2]. Collins [3] orbited."
    at = text.index("Texas")
    assert [text[a:b] for a, b in outside_marks(text, at, at + len("Texas [1][2"))] == ["Texas"]
    assert outside_marks(text, text.index("[1]"), text.index("[2]") + 3) == []
    start, end = text.index("Collins"), len(text) - 1
    assert [text[a:b] for a, b in outside_marks(text, start, end)] == ["Collins", "orbited"]
    assert outside_marks("No marks.", 0, 8) == [(0, 8)]
