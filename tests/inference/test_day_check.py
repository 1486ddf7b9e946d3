"""The day rule beneath the checker's score (inference/day_check.py): pure text, no model."""

from __future__ import annotations

from favakit.inference.day_check import day_conflict, day_dates
from favakit.inference.year_check import CONFLICT_SCORE

BIO = ["Mike Friedrich (born March 27, 1949) is an American comic book writer and publisher."]


def test_another_day_of_the_month_the_matching_sentence_gives_is_a_conflict() -> None:
    found = day_conflict("Mike Friedrich was born on March 17, 1949.", BIO)
    assert found is not None
    assert (found.written, found.evidence_dates) == ("March 17, 1949", ("March 27, 1949",))
    note = found.note()
    assert "March 17, 1949" in note and "March 27, 1949" in note and str(CONFLICT_SCORE) in note
    # the day in another order, or without a year, is read the same way
    assert day_conflict("Mike Friedrich was born on 17 March 1949.", BIO) is not None
    assert day_conflict("Mike Friedrich was born on the 17th of March.", BIO) is not None


def test_the_same_day_another_month_or_year_or_a_negation_is_left_to_the_model() -> None:
    assert day_conflict("Mike Friedrich was born on 27 March 1949.", BIO) is None
    assert day_conflict("Mike Friedrich was born on March 27.", BIO) is None
    # another month, or another year (the year rule's), is no conflict of days
    assert day_conflict("Mike Friedrich was born on April 17, 1949.", BIO) is None
    assert day_conflict("Mike Friedrich was born on March 17, 1950.", BIO) is None
    assert day_conflict("Mike Friedrich was not born on March 17, 1949.", BIO) is None
    # a month and year alone give no day
    assert day_conflict("Mike Friedrich was born in March 1949.", BIO) is None


def test_a_day_the_passage_gives_elsewhere_keeps_the_rule_out() -> None:
    film = [
        "The film premiered at Cannes on May 11, 2016. It was released in France on May 19, 2016."
    ]
    assert day_conflict("The film was released in France on May 19, 2016.", film) is None
    assert day_conflict("The film premiered at Cannes on May 19, 2016.", film) is None
    assert day_conflict("The film was released in France on May 21, 2016.", film) is not None


def test_the_rule_needs_an_evidence_sentence_about_the_same_thing() -> None:
    other = ["The bridge opened to traffic on March 27, 1949, after four years of work."]
    assert day_conflict("Mike Friedrich was born on March 17, 1949.", other) is None


def test_dates_are_read_in_either_order_with_or_without_a_year() -> None:
    got = day_dates("(10 February 1894 - 29 Dec. 1986); on Sept 9th and March 2001")
    assert [(d.month, d.day, d.year) for d in got] == [(2, 10, 1894), (12, 29, 1986), (9, 9, 0)]


def test_a_range_of_days_gives_each_of_its_days_and_a_text_s_range_is_left() -> None:
    festival = ["The festival runs March 6-8 in the park, with a parade on the first day."]
    assert day_conflict("The festival runs March 7 in the park.", festival) is None
    found = day_conflict("The festival runs March 9 in the park.", festival)
    assert found is not None and found.evidence_dates == ("March 6-8",)
    assert found.evidence_days == ()  # a range is no one day to fix to
    assert day_conflict("The festival runs March 9-11 in the park.", festival) is None
    got = day_dates("on 6\u20138 June and May 3 to 5, 2019")
    assert [(d.month, d.day, d.last, d.year) for d in got] == [(6, 6, 8, 0), (5, 3, 5, 2019)]
