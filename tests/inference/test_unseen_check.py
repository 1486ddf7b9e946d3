"""The unseen-name rule beneath the checker's score (inference/unseen_check.py): pure text."""

from __future__ import annotations

from favakit.inference.unseen_check import MIN_EVIDENCE_WORDS, unseen_name

# a report of more than MIN_EVIDENCE_WORDS words that names no funder
REPORT = (
    "The study, led by Dr Ines Carvalho of the University of Oporto and Dr Tomas Lindqvist of "
    "Lund University, followed 40 colonies of the buff-tailed bumblebee over ten weeks. "
) + " ".join(f"Colony {n} was weighed every week and its pollen was counted." for n in range(20))


def test_a_name_the_long_evidence_never_gives_is_unsupported() -> None:
    assert len(REPORT.split()) >= MIN_EVIDENCE_WORDS
    text = "The study, funded by the European Research Council, was led by Ines Carvalho."
    found = unseen_name(text, [REPORT])
    assert found is not None and found.written == "European Research Council"
    assert found.note().startswith("name not in the evidence: the text names 'European Research")


def test_names_the_evidence_gives_a_word_of_short_evidence_and_one_words_are_left_alone() -> None:
    # every name here shares a word with the report ("Lund", "Oporto"), or is one word
    assert unseen_name("Researchers from Lund University and Oporto ran it.", [REPORT]) is None
    assert unseen_name("It was done in Sweden with one species.", [REPORT]) is None
    # a sentence's first word is no name of its own; an abbreviation is left alone
    assert unseen_name("Funding came from the ERC Council.", [REPORT]) is None
    # a short passage leaves out names a claim rightly gives (its article's title)
    short = "It stars an actor who was born in the 1960s."
    assert unseen_name("The Thin Red Line stars an actor.", [short]) is None
    assert unseen_name("The Thin Red Line stars an actor.", [REPORT]) is not None


def test_a_name_the_evidence_writes_by_its_initials_in_capitals_is_seen() -> None:
    """ "United States" against a document writing "U.S." was capped at 0.02; the initials count
    only in capitals ("us", "is" are words, not initials)."""
    text = "They toured the United States and Canada in 2010."
    for initials in ("U.S.", "US"):
        assert (
            unseen_name(text, [REPORT + f" They toured the {initials} and Canada in 2010."]) is None
        )
    found = unseen_name(text, [REPORT + " They told us they toured Canada in 2010."])
    assert found is not None and found.written == "United States"
