from __future__ import annotations

from favakit.inference.polarity_check import denying_clause, polarity_conflict

WARRANTY = (
    "All furniture comes with a two-year warranty against manufacturing defects. The warranty "
    "does not cover damage caused by misuse, normal wear and tear, or items bought from the "
    "clearance section."
)


def test_a_statement_the_evidence_denies_in_its_own_words_is_contradicted() -> None:
    found = polarity_conflict("The warranty covers damage caused by normal wear and tear.",
                              [WARRANTY])  # fmt: skip
    assert found is not None
    assert found.clause.startswith("The warranty does not cover damage caused by misuse")
    assert found.note().startswith(
        "statement denied: the text says 'The warranty covers damage caused by normal wear and "
        "tear.' where the evidence says 'The warranty does not cover"
    )
    # the words may come in another order and form: "covered" is "cover"
    assert polarity_conflict("Items bought from the clearance section are covered by the warranty.",
                             [WARRANTY]) is not None  # fmt: skip
    assert polarity_conflict("Humans are the preferred prey of the great white shark.",
                             ["Humans are not the preferred prey of the great white shark."])  # fmt: skip


def test_what_the_evidence_does_not_deny_is_left_to_the_model() -> None:
    # the evidence's own statement, and one its denial does not govern
    assert polarity_conflict(
        "All furniture comes with a two-year warranty against manufacturing defects.", [WARRANTY]
    ) is None  # fmt: skip
    winter = ["Winter is the coldest season of the year in polar and temperate zones (winter does "
              "not occur in the tropical zone)."]  # fmt: skip
    assert polarity_conflict("Winter is the coldest season in temperate zones.", winter) is None
    # a text that is negated or denies by its words is the model's to read
    assert (
        polarity_conflict("The warranty does not cover normal wear and tear.", [WARRANTY]) is None
    )
    assert polarity_conflict("The authorities have found no evidence of poison.",
                             ["The authorities have not found any evidence of poison."]) is None  # fmt: skip
    # "not only", "no longer": not a denial of the statement
    assert denying_clause("She wrote novels and poems.",
                          "She wrote not only novels but also poems.") is None  # fmt: skip
    assert denying_clause("Yugoslavia was part of the group.",
                          "Yugoslavia is no longer part of the group.") is None  # fmt: skip
    # a denial that leaves two of the text's words out says something else
    assert denying_clause("Perishable food can be returned within 30 days.",
                          "Gift cards, perishable food and personalised items cannot be "
                          "returned.") is None  # fmt: skip
