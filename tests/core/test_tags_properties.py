"""Property tests for the tag grammar (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from favakit import tags
from favakit.tags import ERROR_TYPES, Edit, Tagged

# Plain text: any characters but angle brackets, plus whole pieces of harmless bracket text
# (text that can never form a known tag, whatever stands next to it).
_chars = st.text(
    alphabet=st.characters(blacklist_characters="<>", blacklist_categories=("Cs",)),
    min_size=1,
    max_size=30,
)
_bracket_text = st.sampled_from(
    [" a < b", "<b>", "</i>", "x > y", "<3", "<ref name=x>", "→ <unknown>"]
)
plain = st.lists(st.one_of(_chars, _bracket_text), min_size=1, max_size=3).map("".join)


@st.composite
def edit_strategy(draw: st.DrawFn) -> Edit:
    typ = draw(st.sampled_from(ERROR_TYPES))
    if draw(st.booleans()):
        return Edit(typ, draw(plain), bare=True)
    wrong = draw(st.one_of(st.just(""), plain))
    right = draw(plain) if not wrong else draw(st.one_of(st.just(""), plain))
    return Edit(typ, wrong, right)


documents = st.lists(st.one_of(plain, edit_strategy()), max_size=12).map(Tagged)
views = st.sampled_from(tags.VIEWS)

# Arbitrary, mostly malformed, tag soup.
_pieces = st.sampled_from(
    [f"<{t}>" for t in ERROR_TYPES]
    + [f"</{t}>" for t in ERROR_TYPES]
    + ["<mark>", "</mark>", "<delete>", "</delete>", "< Mark >", "</DELETE >", "<mark/>"]
    + ["</s>", "<s>", "<|eot_id|>", "<contradiction>", "<numerical>", "<", ">", "/", " ", "\n"]
    + ["word", "é", "中", ".", "<b>", "entity>", "mark>", "/delete>"]
)
tag_soup = st.lists(_pieces, max_size=40).map("".join)


@given(documents, views)
def test_render_parse_round_trip(doc: Tagged, view: tags.View) -> None:
    rendered = doc.render(view)
    assert tags.parse(rendered, view) == doc
    assert tags.render(tags.parse(rendered, view), view) == rendered
    lenient = tags.parse_lenient(rendered, view)
    assert lenient.tagged == doc and lenient.clean


@given(documents)
def test_spans_slice_the_original(doc: Tagged) -> None:
    original = doc.original()
    spans = doc.spans()
    assert len(spans) == len(doc.edits)
    for span, edit in zip(spans, doc.edits, strict=True):
        assert original[span.start : span.end] == edit.wrong == span.wrong
        assert span.right == edit.right and span.type == edit.type
    assert [s.start for s in spans] == sorted(s.start for s in spans)


@given(documents, st.booleans())
def test_strip_is_idempotent(doc: Tagged, keep_bare: bool) -> None:
    once = tags.strip(doc.render(), keep_bare=keep_bare)
    assert not tags.has_tags(once)
    assert tags.strip(once, keep_bare=keep_bare) == once


@given(plain)
def test_strip_leaves_tag_free_text_unchanged(text: str) -> None:
    assert tags.strip(text) == text
    assert tags.original_text(text) == text
    assert tags.spans(text) == []


@given(documents)
def test_view_conversion_round_trips(doc: Tagged) -> None:
    edit_view = doc.render("edit")
    synthetic = tags.convert(edit_view, "edit", "synthetic")
    assert synthetic == doc.render("synthetic")
    assert tags.convert(synthetic, "synthetic", "edit") == edit_view


@given(documents)
def test_corrected_without_tidy_applies_every_edit(doc: Tagged) -> None:
    expected = "".join(s if isinstance(s, str) else s.right for s in doc.segments)
    assert doc.corrected(tidy=False) == expected


@settings(max_examples=300)
@given(st.one_of(tag_soup, st.text(max_size=200)), views)
def test_lenient_never_raises_and_yields_canonical_text(text: str, view: tags.View) -> None:
    result = tags.parse_lenient(text, view)
    assert set(result.counts()) <= set(tags.REPAIRS)
    # the repaired passage is canonical: strict parse of its rendering gives it back
    assert tags.parse(result.tagged.render(view), view) == result.tagged
    original = result.tagged.original()
    for span in result.tagged.spans():
        assert original[span.start : span.end] == span.wrong
    if result.clean:  # no repair needed means strictly valid
        assert tags.parse(text, view) == result.tagged


@given(documents, st.data())
def test_stack_composes_two_layers(base: Tagged, data: st.DataObject) -> None:
    """Errors added in a second pass, away from the first pass's edits, stack on top of them."""
    text = base.original()
    taken = [(s.start, s.end) for s in base.spans()]
    free = [i for i in range(len(text) + 1) if not any(a < i < b for a, b in taken)]
    cut = sorted(set(data.draw(st.lists(st.sampled_from(free), max_size=3)))) if free else []
    # insert a new sentence-level error at each chosen free position
    segs: list[str | Edit] = []
    prev = 0
    for i in cut:
        segs += [text[prev:i], Edit("invented", "NEW")]
        prev = i
    segs.append(text[prev:])
    layer = Tagged(segs)
    stacked = tags.stack(base, layer)
    assert stacked.original() == layer.original()
    assert stacked.corrected(tidy=False) == base.corrected(tidy=False)
    assert len(stacked.edits) == len(base.edits) + len(cut)


def test_stack_rejects_overlap_and_mismatch() -> None:
    import pytest

    base = tags.parse(
        "He was born in <entity><mark>Ulm</mark><delete>Bonn</delete></entity> in 1879."
    )
    ok = tags.stack(
        base,
        tags.parse(
            "He was born in Bonn in <entity><mark>1879</mark><delete>1880</delete></entity>."
        ),
    )
    assert (
        ok.corrected() == "He was born in Ulm in 1879."
        and ok.original() == "He was born in Bonn in 1880."
    )
    with pytest.raises(ValueError, match="overlaps"):
        tags.stack(
            base,
            tags.parse(
                "He was born in <entity><mark>Bonn</mark><delete>Rome</delete></entity> in 1879."
            ),
        )
    with pytest.raises(ValueError, match="does not fit"):
        tags.stack(base, tags.parse("She was born in Bonn in 1879."))


@settings(max_examples=400)
@given(st.one_of(tag_soup, st.text(max_size=200)), views, st.booleans(), st.booleans())
def test_no_output_of_the_lenient_parser_holds_tag_markup(
    text: str, view: tags.View, keep_bare: bool, tidy: bool
) -> None:
    """Dropping a tag can join the text around it into a new one (``<mark<entity>>``), also
    across an edit's boundary; whatever the output, no tag of the grammar survives in it."""
    tagged = tags.parse_lenient(text, view).tagged
    for out in (tagged.original(), tagged.corrected(keep_bare=keep_bare, tidy=tidy)):
        assert not tags.has_tags(out), (text, out)
    original = tagged.original()
    for span in tagged.spans():
        assert original[span.start : span.end] == span.wrong


def test_joined_tags_never_survive() -> None:
    for text in ("It was <mark<entity>> by Weir.", "a <<mark>mark> b", "< <mark>mark> x",
                 "It was <mark<entity>>x</entity> by Weir.", "<" * 50 + "mark>" * 50):  # fmt: skip
        tagged = tags.parse_lenient(text).tagged
        for out in (tags.strip(text), tags.original_text(text), tagged.corrected(keep_bare=True)):
            assert not tags.has_tags(out), (text, out)
    assert tags.original_text("It was <mark<entity>> by Weir.").startswith("It was ")


def _seconds(text: str) -> float:
    """Seconds to strip ``text`` and read its original, the best of two, with the garbage
    collector paused: its passes cost in proportion to everything the test process holds,
    which is not the parser's work."""
    import gc
    import time

    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(2):
            started = time.perf_counter()
            tags.strip(text)
            tags.original_text(text)
            best = min(best, (time.perf_counter() - started) / 2)
    finally:
        gc.enable()
    return best


@pytest.mark.slow
def test_adversarial_input_is_read_in_linear_time() -> None:
    """1 MB of each input that made the tokenizer backtrack (``<`` then 20 kB of spaces took
    10.7 s) is read in under a second; inputs made of nothing but tags (a tag every 3 to 14
    characters) take time in proportion to their length: 4x the text (250 kB), at most 8x the
    time."""
    size = 1_000_000
    for text in ("<" + " " * size, "<" + " " * (size // 2) + "/" + " " * (size // 2),
                 "<entity" + " " * size + "x>", "<|" + "a" * size, "</" * (size // 2),
                 "<" * (size // 10) + "mark>" * (size // 10)):  # fmt: skip
        assert _seconds(text) < 1.0, (text[:20], len(text))
    for unit in ("<entity>", "<mark<entity>>", "<s>", "<mark>x</mark>"):
        quarter, whole = unit * (size // 16 // len(unit)), unit * (size // 4 // len(unit))
        small, large = _seconds(quarter), _seconds(whole)
        assert large < 8 * small and large < 2.0, (unit, f"{small:.2f} s", f"{large:.2f} s")
