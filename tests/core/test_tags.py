"""Golden cases for the tag grammar, written for favakit.

The first group follows the worked examples of FAVA's taxonomy (an entity edit, a contradictory
sentence, an invented sentence, a subjective sentence) in our own words.
"""

from __future__ import annotations

import pytest

from favakit import tags
from favakit.tags import Edit, Tagged

ENTITY = "It was written by <entity><mark>Lester del Rey</mark><delete>Andy Weir</delete></entity>."
CONTRADICTORY = (
    "Marie Curie won two Nobel Prizes. <contradictory><delete>She never received a Nobel "
    "Prize.</delete></contradictory> She was born in Warsaw."
)
INVENTED = (
    "Curie discovered polonium. <invented><delete>She also built the Curie Telescope, which "
    "first observed Neptune's rings in 1921.</delete></invented> She died in 1934."
)
SUBJECTIVE = "Curie studied in Paris. <subjective>She was the greatest mind of any century.</subjective> She taught at the Sorbonne."


def test_entity_edit() -> None:
    t = tags.parse(ENTITY)
    assert t.segments == ("It was written by ", Edit("entity", "Andy Weir", "Lester del Rey"), ".")
    assert t.original() == "It was written by Andy Weir."
    assert t.corrected() == "It was written by Lester del Rey."
    (span,) = t.spans()
    assert t.original()[span.start : span.end] == "Andy Weir"
    assert (span.start, span.end, span.right) == (18, 27, "Lester del Rey")
    assert t.render() == ENTITY


def test_contradictory_sentence_is_deleted() -> None:
    t = tags.parse(CONTRADICTORY)
    assert t.edits == [Edit("contradictory", "She never received a Nobel Prize.")]
    assert t.corrected() == "Marie Curie won two Nobel Prizes. She was born in Warsaw."
    assert "never received" in t.original()


def test_invented_sentence_is_deleted() -> None:
    t = tags.parse(INVENTED)
    assert [e.type for e in t.edits] == ["invented"]
    assert t.corrected() == "Curie discovered polonium. She died in 1934."


def test_subjective_bare_tag_dropped_by_default_and_kept_on_request() -> None:
    t = tags.parse(SUBJECTIVE)
    (edit,) = t.edits
    assert edit == Edit("subjective", "She was the greatest mind of any century.", bare=True)
    assert t.corrected() == "Curie studied in Paris. She taught at the Sorbonne."
    assert t.corrected(keep_bare=True) == t.original()
    assert t.render() == SUBJECTIVE  # bare stays bare


def test_relation_and_unverifiable() -> None:
    text = (
        "Einstein was born <relation><mark>before</mark><delete>after</delete></relation> Bohr. "
        "<unverifiable><delete>He hummed Bach while shaving.</delete></unverifiable>"
    )
    t = tags.parse(text)
    assert [(e.type, e.wrong, e.right) for e in t.edits] == [
        ("relation", "after", "before"),
        ("unverifiable", "He hummed Bach while shaving.", ""),
    ]
    assert t.corrected() == "Einstein was born before Bohr."


def test_insertion_has_an_empty_span() -> None:
    t = tags.parse("Curie won the prize <entity><mark>in 1903 </mark></entity>with Pierre.")
    (span,) = t.spans()
    assert span.start == span.end == len("Curie won the prize ")
    assert t.original() == "Curie won the prize with Pierre."
    assert t.corrected() == "Curie won the prize in 1903 with Pierre."


def test_synthetic_view_swaps_roles() -> None:
    synthetic = (
        "It was written by <entity><delete>Lester del Rey</delete><mark>Andy Weir</mark></entity>."
    )
    t = tags.parse(synthetic, view="synthetic")
    assert t == tags.parse(ENTITY)
    assert tags.convert(synthetic, "synthetic", "edit") == ENTITY
    assert tags.convert(ENTITY, "edit", "synthetic") == synthetic
    # the error inserter's invented sentence: <mark> holds the inserted (wrong) text
    t2 = tags.parse("A. <invented><mark>B is fake.</mark></invented>", view="synthetic")
    assert t2.edits == [Edit("invented", "B is fake.")]
    assert t2.render("edit") == "A. <invented><delete>B is fake.</delete></invented>"


def test_non_ascii_text_and_offsets_in_code_points() -> None:
    text = "Der Film wurde von <entity><mark>Björk</mark><delete>Sigur Rós</delete></entity> vertont. 東京は<entity><mark>日本</mark><delete>中国</delete></entity>の首都です。"
    t = tags.parse(text)
    original = t.original()
    assert original == "Der Film wurde von Sigur Rós vertont. 東京は中国の首都です。"
    assert [original[s.start : s.end] for s in t.spans()] == ["Sigur Rós", "中国"]
    assert t.corrected() == "Der Film wurde von Björk vertont. 東京は日本の首都です。"


def test_twenty_five_edits_strip_completely() -> None:
    parts = [
        f"Item {i} is <entity><mark>R{i}</mark><delete>W{i}</delete></entity>." for i in range(25)
    ]
    text = " ".join(parts)
    t = tags.parse(text)
    assert len(t.edits) == 25
    stripped = tags.strip(text)
    assert not tags.has_tags(stripped) and "<" not in stripped
    assert stripped == " ".join(f"Item {i} is R{i}." for i in range(25))
    assert all(t.original()[s.start : s.end] == f"W{i}" for i, s in enumerate(t.spans()))


def test_tag_free_text_is_unchanged() -> None:
    text = "Nothing to fix here, even with a < b and <b>html</b>.\n"
    assert tags.strip(text) == text
    assert tags.parse(text).segments == (text,)


def test_deletion_tidies_only_the_doubled_space() -> None:
    t = tags.parse("by <entity><delete>Andy Weir</delete></entity>. Next  line.")
    assert t.corrected() == "by. Next  line."
    assert t.corrected(tidy=False) == "by . Next  line."


@pytest.mark.parametrize(
    ("text", "rule", "offset"),
    [
        ("Hello <mark>x</mark> there", "part_outside_type", 6),
        ("A <entity><mark>B</mark>", "unclosed_type", 24),
        ("A </entity>", "orphan_close", 2),
        ("<entity><mark>a</mark><delete>b</delete></relation>", "mismatched_close", 40),
        ("x</s>", "special_token", 1),
        ("<Entity>a</Entity>", "tag_spelling", 0),
        ("<entity> <mark>a</mark></entity>", "whitespace_between_parts", 9),
    ],
)
def test_strict_error_names_rule_and_position(text: str, rule: str, offset: int) -> None:
    with pytest.raises(tags.TagParseError) as info:
        tags.parse(text)
    err = info.value
    assert (err.rule, err.position) == (rule, offset)
    assert f"offset {offset}" in str(err) and "line 1" in str(err)
    assert "^" in str(err)


def test_error_position_reports_line_and_column() -> None:
    with pytest.raises(tags.TagParseError) as info:
        tags.parse("first line\nsecond <delete>x</delete>")
    assert (info.value.line, info.value.column) == (2, 8)


def test_edit_validation() -> None:
    with pytest.raises(ValueError, match="unknown error type"):
        Edit("numerical", "a", "b")
    with pytest.raises(ValueError, match="bare"):
        Edit("subjective", "a", "b", bare=True)
    with pytest.raises(ValueError, match="needs"):
        Edit("entity", "", "")
    with pytest.raises(ValueError, match="markup"):
        Edit("entity", "a <mark>b</mark>", "c")
    with pytest.raises(ValueError, match="markup"):
        Tagged(["x </entity>"])
    assert Edit("unverifiable", "x").label == 5


def test_tagged_merges_adjacent_text() -> None:
    assert Tagged(["a", "", "b", Edit("entity", "c", "d"), "e"]).segments == (
        "ab",
        Edit("entity", "c", "d"),
        "e",
    )


def test_unknown_view_is_rejected() -> None:
    with pytest.raises(ValueError, match="view"):
        tags.parse("x", view="html")  # type: ignore[arg-type]


def test_every_repair_rule_is_documented() -> None:
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "tags.md").read_text(encoding="utf-8")
    assert all(f"| `{name}` |" in doc for name in tags.REPAIRS)


@pytest.mark.parametrize(
    ("tagged", "expected"),
    [
        # an aside deleted with both its commas
        ("Curie, <invented><delete>who also invented the telescope</delete></invented>, was born"
         " in Warsaw.", "Curie was born in Warsaw."),
        ("In 1903, <invented><delete>after a long fight</delete></invented>, she won.",
         "In 1903 she won."),
        # no comma or conjunction left hanging before the clause's end
        ("She won two prizes, <invented><delete>and a medal</delete></invented>.",
         "She won two prizes."),
        ("She was a physicist and <subjective><delete>the finest ever</delete></subjective>.",
         "She was a physicist."),
        ("She was a physicist, and <subjective><delete>the finest ever</delete></subjective>",
         "She was a physicist"),
        ("It is red, <subjective><delete>beautiful</delete></subjective> and round.",
         "It is red and round."),
        # no empty brackets, no doubled space, whole sentences go cleanly
        ("He lived in Paris (<invented><delete>France</delete></invented>) for years.",
         "He lived in Paris for years."),
        ("<invented><delete>She invented X.</delete></invented> She was born in Warsaw.",
         "She was born in Warsaw."),
        ("She was born in Warsaw. <invented><delete>She invented X.</delete></invented>",
         "She was born in Warsaw."),
        # text away from a deletion is never touched
        ("Red, and <entity><delete>blue</delete><mark>green</mark></entity>, and (x) .",
         "Red, and green, and (x) ."),
    ],
)  # fmt: skip
def test_the_corrected_text_reads_on_around_a_deletion(tagged: str, expected: str) -> None:
    assert tags.corrected_text(tagged) == expected


def test_apply_edits_mends_deletions_and_keeps_the_first_of_overlapping_edits() -> None:
    text = "Curie was born in Warsaw in 1867. She was the finest scientist who ever lived."
    done = tags.apply_edits(
        text,
        [
            {"type": "subjective", "start": 34, "end": len(text), "right": ""},
            {"type": "entity", "start": 18, "end": 24, "right": "Paris"},
            {"type": "entity", "start": 18, "end": 20, "right": "x"},  # overlaps: dropped
        ],
    )
    assert done == "Curie was born in Paris in 1867."
    aside = "Curie, who invented the telescope, was born in Warsaw."
    assert tags.apply_edits(aside, [{"type": "invented", "start": 7, "end": 33, "right": ""}]) == (
        "Curie was born in Warsaw."
    )
    # a text that itself holds tag markup is still edited, without mending
    assert tags.apply_edits("a <entity> b", [{"type": "entity", "start": 0, "end": 1,
                                              "right": "A"}]) == "A <entity> b"  # fmt: skip
