"""World wars written one way before a checker reads them (inference/written_forms.py): pure
text, no model."""

from __future__ import annotations

from favakit.inference.written_forms import WrittenForm, one_form


def test_each_world_war_is_read_one_way() -> None:
    text, forms = one_form(
        "He fought in the Second World War, WW2 and WWII; his father in WW1, the First World "
        "War, World War One and world war 1."
    )
    assert text == (
        "He fought in World War II, World War II and World War II; his father in World War I, "
        "World War I, World War I and World War I."
    )
    assert forms[0] == WrittenForm("the Second World War", "World War II")
    assert forms[0].note() == 'read as "World War II": "the Second World War"'
    assert len(forms) == 7


def test_what_is_already_one_form_or_no_war_is_left_alone() -> None:
    for text in (
        "World War I and World War II ended.",  # the form read
        "the world war of 1870, a World Wars exhibit, WW3 fiction, KWWII",  # no such war
        "The match starts at 3 p.m. and ends at 17:00.",  # times stay as written (rule 37)
    ):
        assert one_form(text) == (text, [])
