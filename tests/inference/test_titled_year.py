"""A work's year in brackets after its title (inference/titled_year.py): pure text, no model."""

from __future__ import annotations

from favakit.inference.titled_year import titled_year_conflict, titled_years

ALBUMS = [
    "In 2009 she founded a label, on which she released the albums Deep Water (2009), "
    "Salt Road (2010), Let Me In (2012) and the Long Way Home (2014)."
]


def test_titles_are_the_capitalised_runs_before_a_bracketed_year() -> None:
    got = [(t, y) for t, y, _ in titled_years(ALBUMS[0])]
    assert got == [("Deep Water", "2009"), ("Salt Road", "2010"), ("Let Me In", "2012"),
                   ("Long Way Home", "2014")]  # fmt: skip


def test_another_year_for_a_bracketed_title_is_a_conflict() -> None:
    found = titled_year_conflict("She released Long Way Home in 2010.", ALBUMS)
    assert found is not None and (found.year, found.evidence_years) == ("2010", ("2014",))
    assert "Long Way Home (2014)" in found.sentence
    assert titled_year_conflict("The 2012 album Let Me In was her third.", ALBUMS) is None
    assert titled_year_conflict("The 2010 album Let Me In was her third.", ALBUMS) is not None


def test_the_title_s_own_year_a_far_year_or_a_negation_is_left_to_the_model() -> None:
    assert titled_year_conflict("She released Long Way Home in 2014.", ALBUMS) is None
    # the year is about something else, many words away from the title
    assert (
        titled_year_conflict(
            "Long Way Home, her fourth album for the label, followed a tour in 2010.", ALBUMS
        )
        is None
    )
    assert titled_year_conflict("She did not release Long Way Home in 2010.", ALBUMS) is None
    # two years in one sentence: which goes with the title is not read
    assert (
        titled_year_conflict("She released Long Way Home in 2010 and toured in 2011.", ALBUMS)
        is None
    )
