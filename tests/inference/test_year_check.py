"""The year rule beneath the checker's score (inference/year_check.py): pure text, no model."""

from __future__ import annotations

from favakit.inference.year_check import CONFLICT_SCORE, year_conflict

NOBEL = "Marie Curie won the Nobel Prize in Chemistry in 1911."


def test_a_year_the_matching_evidence_sentence_gives_otherwise_is_contradicted() -> None:
    found = year_conflict("Marie Curie won the Nobel Prize in Chemistry in 1921.", [NOBEL])
    assert found is not None
    assert (found.year, found.evidence_years, found.sentence) == ("1921", ("1911",), NOBEL)
    assert "1921" in found.note() and "1911" in found.note() and str(CONFLICT_SCORE) in found.note()


def test_a_year_the_evidence_gives_anywhere_is_not_contradicted() -> None:
    assert year_conflict("Marie Curie won the Nobel Prize in Chemistry in 1911.", [NOBEL]) is None
    # given in another passage, in a range written short, or as a number with a separator
    assert year_conflict("She won it again in 1921.", [NOBEL, "Curie won again in 1921."]) is None
    assert (
        year_conflict(
            "Curie won the Chemistry prize in 1912.", ["Curie won the Chemistry prize in 1911-12."]
        )
        is None
    )
    assert (
        year_conflict(
            "The firm paid 2000 dollars in fines in 2019.",
            ["The firm paid 2,000 dollars in fines in 2019."],
        )
        is None
    )


def test_the_rule_needs_an_evidence_sentence_about_the_same_thing() -> None:
    # the only sentence with another year shares fewer than half of the claim's content words
    evidence = ["Curie moved to Paris in 1891 to study physics and mathematics at the Sorbonne."]
    assert year_conflict("Curie received the Nobel Prize in Chemistry in 1921.", evidence) is None
    # a matching sentence without another year: nothing contradicts, the model decides
    assert (
        year_conflict(
            "Curie won the Nobel Prize in Chemistry in 1921.",
            ["Curie won the Nobel Prize in Chemistry."],
        )
        is None
    )
    # numbers that are not years are left to the model
    assert (
        year_conflict(
            "The company had 300 employees in 2019.", ["The company had 200 employees in 2019."]
        )
        is None
    )


def test_each_sentence_of_a_text_is_matched_on_its_own() -> None:
    text = "Albert Einstein developed the theory of relativity. He was born in Ulm in 1897."
    evidence = [
        "Albert Einstein developed the theory of relativity.",
        "Einstein was born in Ulm in 1879.",
    ]
    found = year_conflict(text, evidence)
    assert found is not None and (found.year, found.evidence_years) == ("1897", ("1879",))
    # a year the text gives itself is not another year: only the one that differs counts
    both = year_conflict(
        "Einstein was born in 1879 and died in 1956.",
        ["Einstein was born in 1879 and died in 1955."],
    )
    assert both is not None and (both.year, both.evidence_years) == ("1956", ("1955",))


def test_each_statement_of_a_sentence_is_matched_on_its_own_too() -> None:
    # two statements in one sentence, stated in two sentences by the evidence: the sentence as
    # a whole matches the first evidence sentence best, whose 1903 it gives itself
    text = ("She shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri Becquerel, "
            "and won the Nobel Prize in Chemistry in 1921 for discovering polonium and radium.")  # fmt: skip
    evidence = [
        "Curie shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri Becquerel. "
        "In 1911 she won the Nobel Prize in Chemistry alone, for discovering the elements "
        "polonium and radium."
    ]
    found = year_conflict(text, evidence)
    assert found is not None and (found.year, found.evidence_years) == ("1921", ("1911",))
    assert year_conflict(text.replace("1921", "1911"), evidence) is None
    # a statement's own year before the sentence's: as a whole, this sentence matches Galileo's
    # sentence, whose passage lacks Leonardo's (right) 1452
    two = "Leonardo was born in 1452, while Galileo was born in 1574."
    lives = ["Leonardo da Vinci was an Italian painter, born in Vinci in 1452.",
             "Galileo Galilei was an Italian astronomer, born in Pisa in 1564."]  # fmt: skip
    found = year_conflict(two, lives)
    assert found is not None and (found.year, found.evidence_years) == ("1574", ("1564",))
    assert year_conflict(two.replace("1574", "1564"), lives) is None
    # a sentence about two people is not compared with the first one's article alone: its
    # second year is not the first person's
    both = "Marie Curie was born in Warsaw in 1867; Albert Einstein was born in Ulm in 1879."
    articles = ["Marie Curie was a Polish-born physicist and chemist who worked in France. She "
                "was born in Warsaw in 1867 and died in 1934.",
                "Albert Einstein was a theoretical physicist, born on 14 March 1879 in Ulm."]  # fmt: skip
    assert year_conflict(both, articles) is None
    found = year_conflict(both.replace("1879", "1889"), articles)
    assert found is not None and (found.year, found.evidence_years) == ("1889", ("1879",))


def test_only_years_given_as_exact_dates_count() -> None:
    """Chosen on the training files' rows (model-free): these forms were most of the supported
    rows the rule fired on."""
    from favakit.inference.year_check import exact_years

    assert exact_years("In 1921, she won it again, and in 1922.") == ["1921", "1922"]
    assert exact_years("He was born on 14 March 1879.") == ["1879"]
    assert exact_years("She was born in the 1970's.") == []  # a decade
    assert exact_years("Anne Rice was born in the 1940 's.") == []
    assert exact_years("It was released before 2005.") == []  # a bound
    assert exact_years("She was born in 1992 or later.") == []
    assert exact_years("Harrison Ford stars in Blade Runner 2049.") == []  # part of a name
    assert exact_years("Halsey did not sign a contract in 2018.") == []  # negated: the model's
    evidence = ["Anne Rice (born October 4, 1941) is an American author."]
    assert year_conflict("Anne Rice was born in the 1940's.", evidence) is None
    found = year_conflict("Anne Rice was born on October 4, 1944.", evidence)
    assert found is not None and found.year == "1944"


def test_numbers_are_read_with_their_separators_and_short_ranges() -> None:
    from favakit.inference.year_check import numbers_in

    assert numbers_in("paid $2,000 in 2019, then 1.5") == ["2000", "2019", "1.5"]
    assert numbers_in("second in 1983 -- 84 and 1911-12") == [
        "1983",
        "84",
        "1911",
        "12",
        "1984",
        "1912",
    ]


def test_a_year_in_a_passage_about_something_else_does_not_back_the_text() -> None:
    """Retrieved evidence holds passages of several articles: the demo's Einstein passage gives
    1921 (his Physics prize), which says nothing of Curie's Chemistry prize."""
    einstein = "Albert Einstein received the 1921 Nobel Prize in Physics."
    curie = "Marie Curie was born in Warsaw. In 1911 she won the Nobel Prize in Chemistry alone."
    text = "She won the Nobel Prize in Chemistry in 1921 for discovering polonium and radium."
    found = year_conflict(text, [einstein, curie])
    assert found is not None and (found.year, found.evidence_years) == ("1921", ("1911",))
    # the same year in the matching sentence's own passage backs it
    assert year_conflict(text, [einstein, curie + " She visited Warsaw in 1921."]) is None


def test_between_equal_sentences_the_claims_own_passage_is_compared() -> None:
    franklin = "Rosalind Franklin was an English chemist. Franklin died in 1958, at the age of 37."
    lovelace = "Ada Lovelace was an English mathematician. She died in 1852 at the age of 36."
    assert (
        year_conflict("Ada Lovelace died in 1852 at the age of 36.", [franklin, lovelace]) is None
    )
    found = year_conflict("Ada Lovelace died in 1854 at the age of 36.", [franklin, lovelace])
    assert found is not None and (found.year, found.evidence_years) == ("1854", ("1852",))


def test_a_bounded_year_is_read_against_the_same_bound_around_the_same_words() -> None:
    """A summary's sentence joins two of the report's; "since 2001" is a bound, no exact date,
    and is read against the evidence's "since" where the words around share two or more."""
    report = ["Linden College won the men's eights at the Kessel Regatta on Saturday, beating "
              "the favourites by two-thirds of a length. It was Linden's first win in the event "
              "since 2011."]  # fmt: skip
    text = ("Linden College won the men's eights at the Kessel Regatta, beating the favourites "
            "for their first win in the event since 2001.")  # fmt: skip
    found = year_conflict(text, report)
    assert found is not None and (found.year, found.evidence_years) == ("2001", ("2011",))
    assert found.sentence == "It was Linden's first win in the event since 2011."
    # the year given anywhere, another bound, other words around it, or a negated sentence: none
    assert year_conflict(text, [report[0] + " The club was founded in 2001."]) is None
    assert year_conflict(text.replace("since 2001", "before 2001"), report) is None
    assert year_conflict("The river has flooded every spring since 2001.", report) is None
    assert year_conflict(text.replace("their first", "not their first"), report) is None


def test_an_exact_year_is_read_against_another_around_the_same_words() -> None:
    """ "which will open in 2028" shares half its sentence's words with no evidence sentence; the
    words around the year match "The centre will open in 2027 and employ about 60 researchers."."""
    report = ["The University of Wexmoor has won a grant of £18 million to build a research "
              "centre for battery recycling. The centre will open in 2027 and employ about 60 "
              "researchers."]  # fmt: skip
    text = ("The University of Wexmoor has won £18 million for a battery recycling centre, "
            "which will open in 2028 and employ about 60 researchers.")  # fmt: skip
    found = year_conflict(text, report)
    assert found is not None and (found.year, found.evidence_years) == ("2028", ("2027",))
    # a year the text's sentence gives itself is no other year: "a 2010 film based on the 2005
    # book" against "a spin-off of the 2005 book"
    book = ["The show is a spin-off of the 2005 book Freakonomics by Steven Levitt."]
    film = "Freakonomics is a 2010 documentary film based on the 2005 book Freakonomics."
    assert year_conflict(film, book) is None


def test_negated_remembers_only_short_sentences_so_its_memory_stays_small() -> None:
    from favakit.inference.year_check import _negated, negated

    long_text = "The bridge was open. " * 100 + "It is not open now."
    before = _negated.cache_info().currsize
    assert negated(long_text) is True  # read, not remembered
    assert negated("The bridge is not open.") is True
    assert negated("The bridge is open.") is False
    assert _negated.cache_info().currsize <= before + 2
    assert _negated.cache_info().maxsize == 4096


def test_a_long_passage_is_read_by_the_rules_in_windows_of_whole_sentences() -> None:
    from types import SimpleNamespace

    from favakit.inference.checker import Checker
    from favakit.inference.year_check import LONG_PASSAGE_WORDS, local_passages

    filler = " ".join(
        f"The town built bridge number {n} across the river that year." for n in range(30)
    )
    article = (
        f"Ada Moss was born in 1706 in Boston. {filler} Ada Moss died in 1790 in Philadelphia."
    )
    assert len(article.split()) > LONG_PASSAGE_WORDS
    windows = local_passages([article])
    assert len(windows) > 2 and " ".join(windows) == article  # whole sentences, in order
    assert local_passages(["Ada Moss was born in 1706."]) == ["Ada Moss was born in 1706."]
    claim = "Ada Moss was born in 1790 in Boston."
    # the whole article gives 1790 (her death), so the rule kept out; her birth's window does not
    assert year_conflict(claim, [article]) is None
    found = year_conflict(claim, windows)
    assert found is not None and found.evidence_years == ("1706",)
    rules = dict.fromkeys(["year_check", "day_check", "count_check", "name_check",
                           "polarity_check", "scope_check", "swap_check", "unseen_check"], True)  # fmt: skip
    assert Checker.conflict(SimpleNamespace(**rules), claim, [article]) is not None  # type: ignore[arg-type]
