"""Rule-based atomic facts: pronouns resolved to the topic, relative clauses and lists split."""

from __future__ import annotations

from favakit.decompose import RuleFactSplitter, fact_coverage

BIO = (
    "Ada Lovelace was an English mathematician. She worked with Charles Babbage on his "
    "Analytical Engine, which was never built. Her notes include the first published algorithm, "
    "a table of Bernoulli numbers, and remarks on music. She is known for her vision and her "
    'essays "Sketch of the Engine" and "Translator\'s Notes".'
)


def test_facts_are_whole_and_self_contained() -> None:
    facts = RuleFactSplitter(["Ada Lovelace"]).facts([BIO])[0]
    assert facts[0] == "Ada Lovelace was an English mathematician."
    # the pronoun is the topic; the relative clause is a fact about what it follows
    assert "Ada Lovelace worked with Charles Babbage on Ada Lovelace's Analytical Engine." in facts
    assert "Ada Lovelace's Analytical Engine was never built." in facts
    # a list: one fact per item, each with the words that introduce it
    for item in ("the first published algorithm", "a table of Bernoulli numbers",
                 "remarks on music"):  # fmt: skip
        assert f"Ada Lovelace's notes include {item}." in facts
    # quoted titles: one fact each
    titled = [f for f in facts if "Sketch of the Engine" in f or "Translator's Notes" in f]
    assert len(titled) == 2 and all(f.startswith("Ada Lovelace is known for") for f in titled)
    assert all(f.endswith(".") and "She" not in f.split() for f in facts)


def test_without_a_topic_pronouns_stay() -> None:
    facts = RuleFactSplitter().facts(["She was born in 1815. It rained."])[0]
    assert facts == ["She was born in 1815.", "It rained."]


def test_dates_with_commas_are_not_lists() -> None:
    facts = RuleFactSplitter(["X"]).facts(["X was born on December 10, 1815, in London."])[0]
    assert facts == ["X was born on December 10, 1815, in London."]


def test_two_lists_in_one_clause_stay_whole() -> None:
    """ "directed by A and starring B, C, and D" is not one list: never "directed by D"."""
    sentence = (
        "Dusk is a 1999 film directed by Peter Hyams and starring Ann Lee, Bo Ray, and Udo Kier."
    )
    assert RuleFactSplitter().sentence_facts(sentence, "Dusk") == [sentence]
    facts = RuleFactSplitter().sentence_facts("X studied physics, chemistry and biology.", "X")
    assert facts == ["X studied physics.", "X studied chemistry.", "X studied biology."]


def test_coverage_counts_matches_both_ways() -> None:
    human = ["Ada Lovelace was a mathematician.", "Ada Lovelace was English.", "It rained."]
    got = fact_coverage(["Ada Lovelace was an English mathematician.", "Bread is food."], human)
    # word overlap: the compound fact covers both atoms whose words it holds
    assert got == {"generated": 2, "human": 3, "human_covered": 0.6667, "generated_matching": 0.5}


def test_a_text_s_leading_name_and_pronouns_resolved_to_it() -> None:
    from favakit.decompose import leading_name, resolve_pronouns

    assert leading_name("Marie Curie was a physicist. She won two Nobel Prizes.") == "Marie Curie"
    assert leading_name("The Eiffel Tower is in Paris.") == "Eiffel Tower"
    assert leading_name("Ludwig van Beethoven was born in Bonn.") == "Ludwig van Beethoven"
    assert leading_name("He was born in Ulm.") == "" and leading_name("In 1905 he wrote.") == ""
    # a number opens a sentence without naming anyone
    assert leading_name("Forty of the homes will be let.") == ""
    assert leading_name("Twenty-two people were hurt.") == ""
    # an answer to a user names no one: "You" and "We" are not its subject
    assert leading_name("You can return most items within 30 days.") == ""
    assert leading_name("We deliver to England and Wales.") == ""
    # a possessive names its owner: "He taught ..." after it is "Okafor taught ..."
    assert leading_name("Okafor's first commission won a prize.") == "Okafor"
    assert leading_name("Charles' brother was born in 1809.") == "Charles"
    assert leading_name("O'Brien was born in Cork.") == "O'Brien"
    assert (
        resolve_pronouns("She won the prize with her husband.", "Marie Curie")
        == "Marie Curie won the prize with Marie Curie's husband."
    )
    assert resolve_pronouns("She won.", "") == "She won."


def test_a_list_s_markers_are_read_past() -> None:
    from favakit.decompose import leading_name, resolve_opening_person
    from favakit.text import list_marker_end

    # a model's answer as a list: the subject after "1." and the pronoun after "2." are found
    assert leading_name("1. **Isaac Newton** was born in 1643.\n2. He died in 1727.") == (
        "Isaac Newton"
    )
    assert leading_name("- Marie Curie won.") == "Marie Curie"
    assert leading_name("## Early life\n\nMarie Curie was born in 1867.") == "Marie Curie"
    # a question and answer: the subject is in the answer ("When" had been read as the name)
    qa = "Q: When was Alan Turing born?\nA: Alan Turing was born in 1912. He died in 1954."
    assert leading_name(qa) == "Alan Turing"
    # a line is passed over only when it opens with a question
    assert leading_name("Marie Curie was born in Warsaw. Who knew?\nShe won.") == "Marie Curie"
    assert (
        resolve_opening_person("A: He died in 1954.", "Alan Turing")
        == "A: Alan Turing died in 1954."
    )
    assert list_marker_end("V. S. Naipaul wrote.") == 0  # an initial, not a roman number
    # a capitalised opening word names nobody: "The suggests four products" and "Yes was deaf!"
    # had been how an opening "He" was read after "The agent ..." and "Yes. Did ..."
    assert leading_name("The agent calls Samantha. He suggests four products.") == ""
    assert leading_name("Both Leonardo da Vinci and Galileo were Italian.") == ""
    assert leading_name("Yes. He was deaf!") == ""
    assert resolve_opening_person("2. He died in 1727.", "Isaac Newton") == (
        "2. Isaac Newton died in 1727."
    )
    assert resolve_opening_person("- She won.", "Marie Curie") == "- Marie Curie won."
    assert [list_marker_end(t) for t in ("1. A", "(ii) B", "* C", "12) D", "1887. E", "-5 C")] == [
        3, 5, 2, 4, 0, 0
    ]  # fmt: skip


def test_an_answer_s_it_is_read_as_what_its_question_asks_about() -> None:
    from favakit.decompose import read_with_question

    asked = "Q: Who painted the Mona Lisa?"
    assert read_with_question("A: Leonardo da Vinci painted it.", asked) == (
        "A: Leonardo da Vinci painted the Mona Lisa."
    )
    assert read_with_question("Answer: It was painted by Leonardo.", "Question: Who painted "
                              "the Mona Lisa?") == "Answer: The Mona Lisa was painted by Leonardo."  # fmt: skip
    # a question whose object is the answer, an answer without "it", an unlabelled answer, and
    # an unlabelled question: as they are
    assert read_with_question("A: The Salt March.", "Q: What did he lead in 1930?") == (
        "A: The Salt March."
    )
    assert read_with_question("A: Leonardo da Vinci.", asked) == "A: Leonardo da Vinci."
    assert read_with_question("Leonardo painted it.", asked) == "Leonardo painted it."
    assert read_with_question("A: Leonardo painted it.", "Who painted the Mona Lisa?") == (
        "A: Leonardo painted it."
    )
