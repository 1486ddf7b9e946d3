"""Numbers written in words and digit ordinals (inference/number_words.py): pure text, no model."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from favakit.inference.count_check import count_conflict
from favakit.inference.number_words import digit_ordinals, spelled_numbers


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("The team had twenty-three players.", [("twenty-three", 23, False)]),
        ("It has one hundred and two floors.", [("one hundred and two", 102, False)]),
        ("It has a hundred rooms.", [("a hundred", 100, False)]),
        ("three thousand five hundred men", [("three thousand five hundred", 3500, False)]),
        ("two million residents", [("two million", 2_000_000, False)]),
        ("He was the seventeenth president.", [("seventeenth", 17, True)]),
        ("the three hundred and sixty-fifth day", [("three hundred and sixty-fifth", 365, True)]),
        ("Forty Two", [("Forty Two", 42, False)]),
    ],
)
def test_a_number_in_words_is_read_whole_with_its_value(
    text: str, found: list[tuple[str, int, bool]]
) -> None:
    got = spelled_numbers(text)
    assert [(s.written, s.value, s.ordinal) for s in got] == [
        (w, Decimal(v), o) for w, v, o in found
    ]
    assert all(text[s.start : s.end] == s.written for s in got)


def test_numbers_a_comma_or_an_and_between_units_keeps_apart() -> None:
    assert [s.value for s in spelled_numbers("one, two, three")] == [1, 2, 3]
    assert [s.value for s in spelled_numbers("six and seven")] == [6, 7]
    # two units in a row are two numbers, not 11; a lone "a" or "and" is no number
    assert [s.value for s in spelled_numbers("page one two")] == [1, 2]
    assert spelled_numbers("bread and butter, a great deal") == []


def test_digit_ordinals_are_read_with_their_values() -> None:
    got = digit_ordinals("the 16th and 22nd, not 3 or 1st-rate")
    assert [(s.written, s.value) for s in got] == [("16th", 16), ("22nd", 22), ("1st", 1)]
    assert all(s.ordinal for s in got)


def test_numbers_written_in_words_read_back_to_their_values() -> None:
    from favakit.inference.number_words import in_words

    for n in (0, 7, 11, 20, 23, 100, 102, 365, 999):
        (read,) = spelled_numbers(in_words(n))
        assert (read.value, read.written) == (n, in_words(n))
    with pytest.raises(ValueError, match="0 to 999"):
        in_words(1000)


_PIECES = [
    "one",
    "Twenty",
    "hundred",
    "and",
    "a",
    "thousandth",
    "ſix",
    "Kelvin",
    "é",
    "-",
    " ",
    "seventy-first",
    "tens",
    "Hundreds",
    "oneness",
    "nine,",
    "\u212aing",
    "THIRD",
    "x2",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_the_quick_test_for_number_words_never_misses_one(text: str) -> None:
    """spelled_numbers' word test (a number holds one of its words) reads the
    same numbers as reading every word: the rules call it on thousands of sentences a claim."""
    from favakit.inference.number_words import _spelled_numbers

    assert spelled_numbers(text) == _spelled_numbers(text)


def test_half_a_scale_is_half_of_it_never_the_scale() -> None:
    """The count rule read "half a million people" as "a million" and capped "The city has half
    a million people." against "500,000 people" at 0.02 (rule 35)."""
    found = spelled_numbers("half a million people, half a hundred, half an hour, a million")
    assert [(s.written, s.value) for s in found] == [
        ("half a million", Decimal(500_000)),
        ("half a hundred", Decimal(50)),
        ("a million", Decimal(1_000_000)),
    ]
    evidence = ["The city has 500,000 people."]
    assert count_conflict("The city has half a million people.", evidence) is None
    assert count_conflict("The city has 500,000 people.", ["It has half a million people."]) is None
    wrong = count_conflict("The city has half a million people.", ["The city has 600,000 people."])
    assert wrong is not None and wrong.written == "half a million"
