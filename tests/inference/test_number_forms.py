"""Numbers read as the evidence writes them (inference/number_forms.py): pure text, no model."""

from __future__ import annotations

from decimal import Decimal

from favakit.inference.number_forms import NumberForm, evidence_forms, quantities


def test_quantities_read_separators_decimals_and_scale_words() -> None:
    found = quantities("It cost $2,000 in 2019, 1.5 million people came, and 7000 stayed.")
    assert [(q.written, q.value) for q in found] == [
        ("2,000", Decimal(2000)),
        ("2019", Decimal(2019)),
        ("1.5 million", Decimal(1_500_000)),
        ("7000", Decimal(7000)),
    ]
    # parts of words, codes and malformed groups are not numbers
    assert quantities("the 1970s, a 5km run, XT9000, 1,2345") == []


def test_a_decimal_with_letters_attached_is_never_its_whole_part() -> None:
    """ "$1.1bn" was read as 1 ("1" and then ".1bn" left over), so the count rule capped
    "Revenue reached $1.1bn." against "$1.1 billion." at 0.02; "2.5kg" was read as 2."""
    found = quantities("Revenue reached $1.1bn, £500m and $50K; 2.1TN in all.")
    assert [(q.written, q.value) for q in found] == [
        ("1.1bn", Decimal("1.1e9")),
        ("500m", Decimal("5e8")),
        ("50K", Decimal("5e4")),
        ("2.1TN", Decimal("2.1e12")),
    ]
    # a unit, a time, a version: no number to read, as "5km" never was
    assert quantities("2.5kg, a 500m race, 9.30am, version 2.1.3, 3.6b") == []
    text, forms = evidence_forms("Revenue reached $1.1bn.", ["Revenue reached $1.1 billion."])
    assert text == "Revenue reached $1.1 billion." and forms == [NumberForm("1.1bn", "1.1 billion")]


def test_a_number_the_evidence_writes_another_way_is_read_in_its_form() -> None:
    evidence = ["The company paid $2,000 for the license.", "The city has 1,500,000 residents."]
    text, forms = evidence_forms("It paid $2000, and 1.5 million people live there.", evidence)
    assert text == "It paid $2,000, and 1,500,000 people live there."
    assert forms == [NumberForm("2000", "2,000"), NumberForm("1.5 million", "1,500,000")]
    assert forms[1].note() == 'number read as the evidence writes it: "1.5 million" as "1,500,000"'
    # and the other way round
    assert evidence_forms("It has 1,500,000 people.", ["It has 1.5 million people."])[0] == (
        "It has 1.5 million people."
    )


def test_only_an_equal_value_is_rewritten() -> None:
    evidence = ["The company paid $2,000 for the license; 1,523,000 people live there."]
    for text in ("It paid $3000.", "It paid $2,000.", "About 1.5 million people live there."):
        assert evidence_forms(text, evidence) == (text, [])
    # spaces and case aside, the same form: nothing to rewrite
    assert (
        evidence_forms("It sold 400 MILLION copies.", ["It sold 400\u00a0million copies."])[1] == []
    )
    # a date's leading zero is not another way of writing a number
    assert evidence_forms("Shipped on September 8, 2017.", ["Shipped 2017-09-08."])[1] == []


def test_a_year_is_not_read_as_a_count() -> None:
    evidence = ["About 2,000 troops crossed the river."]
    assert evidence_forms("The troops crossed the river in 2000.", evidence)[1] == []
    # the same word after it, or a currency sign before it on both sides: a count or an amount
    assert (
        evidence_forms("About 2000 troops crossed.", evidence)[0] == "About 2,000 troops crossed."
    )
    assert evidence_forms("It paid $2000.", ["It paid $2,000 in fines."])[0] == "It paid $2,000."


def test_a_number_with_a_half_is_read_by_value() -> None:
    """The mpnet checker gave "The tower is 3.5 metres tall." 0.06 against "three and a half
    metres", and "half a million people" 0.08 against "500,000 inhabitants" (rule 34)."""
    evidence = ["The tower is three and a half metres tall.", "It has 500,000 visitors."]
    text, forms = evidence_forms("It is 3.5 metres tall and has half a million visitors.", evidence)
    assert text == "It is three and a half metres tall and has 500,000 visitors."
    assert forms == [NumberForm("3.5", "three and a half"), NumberForm("half a million", "500,000")]
    # digits before "and a half", and a scale after it
    found = evidence_forms("It took 2 and a half hours; 2.5 million came.",
                           ["It took 2.5 hours; two and a half million came."])  # fmt: skip
    assert found[0] == "It took 2.5 hours; two and a half million came."
    # another value stays as written; "half an hour" and "a half" are no numbers here
    for text in ["It is 4.5 metres tall.", "It took half an hour.", "A half of it is 3 metres."]:
        assert evidence_forms(text, evidence) == (text, []), text


def test_a_news_agencys_mn_mln_and_bln_are_scales() -> None:
    """ "8.4 mn" was read as 8.4, and the mpnet checker gave "The city has 8.4 mn people."
    0.007 against "8.4 million people" (docs/benchmarks.md, session 71)."""
    found = quantities("8.4 mn people, $3bln in aid, 2.5 mln euros and 4 bn more")
    assert [(q.written, q.value) for q in found] == [
        ("8.4 mn", Decimal("8.4e6")),
        ("3bln", Decimal("3e9")),
        ("2.5 mln", Decimal("2.5e6")),
        ("4 bn", Decimal("4e9")),
    ]
    text, forms = evidence_forms("The city has 8.4 mn people.", ["It has 8.4 million people."])
    assert text == "The city has 8.4 million people." and forms == [
        NumberForm("8.4 mn", "8.4 million")
    ]
    assert evidence_forms("The city has 8.4 mn people.", ["It has 8.4 billion people."])[1] == []


def test_without_agency_scales_mn_is_no_scale() -> None:
    """A checker that reads no written forms (the MiniLM checker's ``written_forms: false``)
    reads numbers as before session 71: "8.4 mn" is 8.4, "$3bln" no number."""
    assert [(q.written, q.value) for q in quantities("8.4 mn and $3bln", agency=False)] == [
        ("8.4", Decimal("8.4"))
    ]
    assert (
        evidence_forms("It has 8.4 mn people.", ["It has 8.4 million people."], agency=False)[1]
        == []
    )
