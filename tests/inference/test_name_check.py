"""The name rule beneath the checker's score (inference/name_check.py): pure text, no model."""

from __future__ import annotations

from favakit.inference.name_check import name_conflict, names_alike
from favakit.inference.year_check import CONFLICT_SCORE

AMAZON = (
    "The Amazon River flows across South America from the Andes Mountains to the Atlantic Ocean. "
    "Most of its course runs through Brazil."
)
JUPITER = "Jupiter's four largest moons are Io, Europa, Ganymede and Callisto."


def test_a_name_the_matching_evidence_sentence_gives_otherwise_is_contradicted() -> None:
    found = name_conflict("The Amazon River flows from the Andes to the Pacific Ocean.", [AMAZON])
    assert found is not None
    assert (found.written, found.evidence_words) == ("Pacific", "Atlantic")
    assert found.sentence.endswith("to the Atlantic Ocean.")
    note = found.note()
    assert note.startswith("name contradicted: the text says Pacific where the evidence says "
                           "Atlantic") and str(CONFLICT_SCORE) in note  # fmt: skip
    moons = name_conflict("Its four largest moons are Io, Europa, Ganymede and Titan.", [JUPITER])
    assert moons is not None and (moons.written, moons.evidence_words) == ("Titan", "Callisto")
    # the supported sentences are not
    assert (
        name_conflict("The Amazon River flows from the Andes to the Atlantic Ocean.", [AMAZON])
        is None
    )
    assert name_conflict("Most of its course runs through Brazil.", [AMAZON]) is None


def test_a_name_the_passage_gives_elsewhere_is_left_to_the_model() -> None:
    # the text's name is in the passage: it may be right in another way ("Buzz Aldrin ...")
    both = AMAZON + " It does not reach the Pacific Ocean."
    assert (
        name_conflict("The Amazon River flows from the Andes to the Pacific Ocean.", [both]) is None
    )


def test_regions_spellings_abbreviations_negations_and_loose_matches_are_left_alone() -> None:
    uk = ["Danger UXB is a British television series shown on ITV in the United Kingdom."]
    # a broad region where the evidence names a place inside it
    assert (
        name_conflict("Danger UXB is a British television series shown on ITV in Europe.", uk)
        is None
    )
    coronado = ["Francisco Vázquez de Coronado was a Spanish conquistador and explorer."]
    assert name_conflict("Francisco Vasquez de Coronado was a Spanish conquistador and explorer.",
                         coronado) is None  # fmt: skip
    # an abbreviation, a negated sentence, a sentence's first word
    assert name_conflict("Danger UXB is a British television series shown on BBC in the United "
                         "Kingdom.", uk) is None  # fmt: skip
    assert name_conflict("The Amazon River does not flow to the Pacific Ocean.", [AMAZON]) is None
    assert name_conflict("Titan, Io, Europa and Ganymede are the largest moons.", [JUPITER]) is None
    # the evidence's words are not names alone: "the Tibet region of China"
    border = ["It lies in the Himalayas on the border between Nepal and the Tibet region of China."]
    assert (
        name_conflict("It lies in the Himalayas on the border between Nepal and India.", border)
        is None
    )
    # too few words shared with any evidence sentence
    assert name_conflict("She died in Bath in 1817.", ["She died in Winchester in 1817."]) is None
    assert name_conflict("Anything at all.", []) is None


def test_names_alike() -> None:
    assert names_alike("Vasquez", "Vázquez") and names_alike("Tolkien's", "Tolkien")
    assert names_alike("Comic-Con", "Comic") and names_alike("America", "American")
    assert not names_alike("Pacific", "Atlantic") and not names_alike("Titan", "Callisto")
    # abbreviations of name words: the rule once capped "St. Louis" against "Saint Louis"
    assert names_alike("St", "Saint") and names_alike("Street", "St") and names_alike("Mt", "Mount")
    assert not names_alike("St", "Sam") and not names_alike("Mt", "Fort")


def test_an_abbreviated_name_word_is_not_a_contradiction() -> None:
    for text, evidence in [
        ("He grew up in St. Louis.", "He grew up in Saint Louis."),
        ("They climbed Mt. Everest in 1953.", "They climbed Mount Everest in 1953."),
        ("She moved to Ft. Worth in 1990.", "She moved to Fort Worth in 1990."),
        ("He joined Warner Bros. in 1950.", "He joined Warner Brothers in 1950."),
        ("The church of St Mary is old.", "The church of Saint Mary is old."),
    ]:
        assert name_conflict(text, [evidence]) is None, text
        assert name_conflict(evidence, [text]) is None, evidence
    assert name_conflict("He grew up in St. Louis.", ["He grew up in Kansas City."]) is not None

    # a curly apostrophe, and an accent written decomposed ("e" + U+0301) in the evidence
    decomposed = "Cruz declined to model for L'Ore\u0301al."
    assert name_conflict("Cruz declined to model for L\u2019Or\u00e9al.", [decomposed]) is None
    assert names_alike("L\u2019Or\u00e9al", "L'Oreal")


MOZART = ("Wolfgang Amadeus Mozart was an Austrian composer, born in Salzburg in 1756. He wrote "
          "more than 600 works. Mozart moved to Vienna in 1781. He died there in 1791.")  # fmt: skip


def test_a_place_of_birth_or_death_is_contradicted_where_the_passage_names_the_place_elsewhere(
) -> None:  # fmt: skip
    # "Vienna" is in the passage (he moved there), but one is born in one place
    found = name_conflict("Mozart was born in Vienna in 1756.", [MOZART])
    assert found is not None and (found.written, found.evidence_words) == ("Vienna", "Salzburg")
    # a sentence joining his birth and his works matches the works' sentence best; his birth
    # is still compared with the passage's sentence about it
    joined = name_conflict("Mozart was born in Vienna in 1756 and wrote more than 600 works.",
                           [MOZART])  # fmt: skip
    assert joined is not None and joined.sentence.endswith("born in Salzburg in 1756.")
    assert name_conflict("Mozart was born in Salzburg in 1756 and wrote more than 600 works.",
                         [MOZART]) is None  # fmt: skip
    # a spelling of the evidence's own place is not another place
    prussia = ["Sandow was born in Königsberg, Prussia, in 1867."]
    assert name_conflict("He was born in Königberg, Prussia, in 1867.", prussia) is None
    # another person's birthplace in the passage is not his
    father = ["Mozart wrote more than 600 works. His father Leopold was born in Augsburg."]
    assert name_conflict("Mozart was born in Vienna and wrote more than 600 works.", father) is None


EINSTEIN = ("Albert Einstein was born in Ulm, in the Kingdom of W\u00fcrttemberg in the German "
            "Empire, on 14 March 1879. In 1880, the family moved to Munich, where his father "
            "founded an electrical company.")  # fmt: skip


def test_a_text_that_ends_at_a_name_is_read_against_the_evidence_s_clause_up_to_its_comma(
) -> None:  # fmt: skip
    """The evidence goes on past the name ("Ulm, in the Kingdom of ..."): the text's name
    stands against the words before the comma, not against the rest of the sentence (session
    77: all three checkers called "born in Munich" supported, 0.90-0.99)."""
    found = name_conflict("Einstein was born in Munich.", [EINSTEIN])
    assert found is not None and (found.written, found.evidence_words) == ("Munich", "Ulm")
    assert name_conflict("Einstein was born in Ulm.", [EINSTEIN]) is None
    # the place the evidence's place lies in, named after the comma, is no contradiction
    assert name_conflict("Einstein was born in Germany.", [EINSTEIN]) is None  # "German Empire"
    assert name_conflict("Einstein was born in Württemberg.", [EINSTEIN]) is None
    bavaria = name_conflict("Einstein was born in Bavaria.", [EINSTEIN])
    assert bavaria is not None and bavaria.evidence_words == "Ulm"
    tower = ["The Eiffel Tower is in Paris, France, and was built in 1889."]
    berlin = name_conflict("The Eiffel Tower is in Berlin.", tower)
    assert berlin is not None and berlin.evidence_words == "Paris"
    assert name_conflict("The Eiffel Tower is in Paris.", tower) is None
    assert name_conflict("The Eiffel Tower is in France.", tower) is None  # given after the comma
    # a name the passage gives elsewhere is still the model's, outside a place one has once
    assert name_conflict("In 1880, the family moved to Ulm.", [EINSTEIN]) is None
    assert name_conflict("In 1880, the family moved to Berlin.", [EINSTEIN]) is not None


ARISTOTLE = ("Aristotle (384\u2013322 BC) was an Ancient Greek philosopher. He was born in the city "
             "of Stagira in northern Greece during the Classical period. Shortly after Plato "
             "died, Aristotle left Athens.")  # fmt: skip


def test_a_birthplace_after_a_year_or_the_kind_of_place_is_read_at_its_name() -> None:
    """The place is the name after a year or "the city of": "born in the city of Stagira in
    northern Greece ...", "born in 384 BC in Stagira" (session 77: the default judge called
    "Aristotle was born in Athens." supported, 0.99, against the retrieved article)."""
    found = name_conflict("Aristotle was born in Athens.", [ARISTOTLE])
    assert found is not None and (found.written, found.evidence_words) == ("Athens", "Stagira")
    assert found.sentence.startswith("He was born in the city of Stagira")
    assert name_conflict("Aristotle was born in Stagira.", [ARISTOTLE]) is None
    assert name_conflict("Aristotle was born in Greece.", [ARISTOTLE]) is None  # it lies there
    dated = ["Aristotle was born in 384 BC in Stagira, Chalcidice, 55 km east of Thessaloniki."]
    found = name_conflict("Aristotle was born in Athens.", dated)
    assert found is not None and found.evidence_words == "Stagira"
    assert name_conflict("Aristotle was born in Chalcidice.", dated) is None
    # words that are not a year or a kind of place leave the stretch as it was: no place read
    same_year = ["Aristotle was born in the same year as Philip of Macedon."]
    assert name_conflict("Aristotle was born in Athens.", same_year) is None


WAKSBERG = ("David Jonathan Waksberg, born December 14, 1956 in New York City, was a leading "
            "activist in the Soviet Jewry Movement. In the 1980s he moved to California and "
            "worked in San Francisco.")  # fmt: skip


def test_a_birthplace_after_a_date_is_read_at_its_role_not_by_alignment() -> None:
    """ "born December 14, 1956 in New York City": a date between "born" and "in" is still a
    place one has once, and the two places are compared at their roles (session 77: the
    sentences' other "was" and "in" threw the word alignment, and the default judge called
    "born in San Francisco" supported, 0.99, San Francisco being where he worked)."""
    found = name_conflict("David Waksberg was born in San Francisco.", [WAKSBERG])
    assert found is not None and (found.written, found.evidence_words) == (
        "San Francisco", "New York City")  # fmt: skip
    assert name_conflict("David Waksberg was born in New York City.", [WAKSBERG]) is None
    assert name_conflict("David Waksberg was born in New York.", [WAKSBERG]) is None
    # a month after "born in" is a time, not a place: left to the date rules and the model
    jeter = ["Derek Jeter was born on June 26, 1974, in Pequannock Township, New Jersey."]
    assert name_conflict("Jeter was born in December of 1974.", jeter) is None
    assert name_conflict("Derek Jeter was born in Newark.", jeter) is not None
    # a person the sentence is not about keeps his own birthplace
    father = ["Mozart wrote more than 600 works. His father Leopold was born on 14 November "
              "1719 in Augsburg."]  # fmt: skip
    assert name_conflict("Mozart was born in Vienna and wrote more than 600 works.", father) is None
    # a second person's birth in the text is not compared with the first person's sentence
    curie = ["Marie Curie was a physicist. She was born on 7 November 1867 in Warsaw."]
    text = "Marie Curie was born in Warsaw in 1867; Albert Einstein was born in Ulm in 1879."
    assert name_conflict(text, curie) is None


def test_a_person_given_another_s_words_is_contradicted() -> None:
    """A summary gives one councillor's vote and words to another the report names elsewhere:
    the two names sit between the same title and the same three words."""
    report = ["Councillor Dev Mahajan, who leads the planning committee, said the town needed "
              "homes. Councillor Ruth Ellingham, who voted against, said the roads could not "
              "take the extra traffic."]  # fmt: skip
    text = "Councillor Dev Mahajan, who voted against, warned that the roads could not cope."
    found = name_conflict(text, report)
    assert found is not None
    assert (found.written, found.evidence_words) == ("Dev Mahajan", "Ruth Ellingham")
    # the right person, words after the name that say nothing but "said", or another title: none
    assert name_conflict(text.replace("Dev Mahajan", "Ruth Ellingham"), report) is None
    assert name_conflict("Councillor Dev Mahajan said the roads could cope.", report) is None
    assert name_conflict(text.replace("Councillor", "Mayor"), report) is None


def test_a_name_after_the_evidence_s_same_words_is_contradicted_where_no_sentence_matches() -> None:
    """A summary's sentence joins several of the evidence's: "The researchers, at the University
    of *Copenhagen*, said ..." matches the quote's sentence best, not the one naming Aarhus after
    the same three words; a name no passage writes is read there. A name the passage writes
    elsewhere, or words before it that are all stopwords, keep the rule out."""
    study = ["Researchers at the University of Aarhus recruited 96 healthy volunteers. The study "
             "was too small to say whether napping every day would slow memory decline, said "
             "the lead author."]  # fmt: skip
    text = ("The researchers, at the University of Copenhagen, said the study shows that napping "
            "every day slows memory decline.")  # fmt: skip
    found = name_conflict(text, study)
    assert found is not None and (found.written, found.evidence_words) == ("Copenhagen", "Aarhus")
    assert name_conflict(text, [study[0] + " Copenhagen is near."]) is None
    assert name_conflict("It is in the Copenhagen office.", ["It is in the Aarhus office."]) is None


def test_a_quote_given_to_another_person_reads_past_the_pronoun_that_follows_the_name() -> None:
    """ "City manager Rosa Klein said *her* team had stopped playing" against "Ashdale's
    manager, Pete Walsh, said *his* team had ...": a person's pronoun follows the person, so
    the words after the two names are the same."""
    report = ['"We were second best in the first half," said City manager Rosa Klein. '
              "Ashdale's manager, Pete Walsh, said his team had stopped playing after the "
              "equaliser."]  # fmt: skip
    text = "City manager Rosa Klein said her team had stopped playing after the equaliser."
    found = name_conflict(text, report)
    assert found is not None and found.speaker
    assert (found.written, found.evidence_words) == ("Rosa Klein", "Pete Walsh")
    assert (
        name_conflict(text.replace("Rosa Klein", "Pete Walsh").replace("her", "his"), report)
        is None
    )
