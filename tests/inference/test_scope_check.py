from __future__ import annotations

from favakit.contracts import EditSpan
from favakit.inference.scope_check import scope_conflict, scope_fix

PAGES = [
    "Plus members get: Free next-day delivery on orders over £20. Free returns. Early access to "
    "sales.",
    "Standard delivery takes 3 to 5 working days and costs £3.99. It is free on orders over £50.",
]


def test_a_statement_made_for_all_that_the_evidence_makes_under_a_condition_is_caught() -> None:
    text = (
        "It includes free next-day delivery on all orders, free returns and early access to sales."
    )
    found = scope_conflict(text, PAGES)
    assert found is not None
    assert (found.written, found.condition) == ("all orders", "over £20")
    assert text[found.start : found.end] == "all orders"
    assert found.note().startswith("condition dropped: the text says 'all orders' where the "
                                   "evidence says only 'over £20'")  # fmt: skip
    # the sentence before the condition's is its context: "It is free" is standard delivery's
    found = scope_conflict("Standard delivery is free on every order.", PAGES)
    assert found is not None and found.condition == "over £50"


def test_a_blank_passage_beside_the_evidence_changes_nothing() -> None:
    text = "It includes free next-day delivery on all orders."
    found = scope_conflict(text, ["   ", *PAGES, ""])  # a blank passage once broke the reading
    assert found is not None and found.condition == "over £20"
    assert scope_conflict(text, ["  "]) is None


def test_a_condition_the_text_gives_or_the_evidence_lacks_is_left_to_the_model() -> None:
    # the text's own condition (right or wrong: a bound is the count rule's and the model's)
    assert scope_conflict("Standard delivery is free on every order over £50.", PAGES) is None
    assert scope_conflict("Standard delivery is free on all orders over £30.", PAGES) is None
    # no condition on the word where the statement is, a negated text, an evidence that says "all"
    assert scope_conflict("We ship all orders from Leeds.", PAGES) is None
    assert scope_conflict("Free next-day delivery is not available on all orders.", PAGES) is None
    assert scope_conflict("Delivery is free on all orders.",
                          ["Delivery is free on all orders over £50."]) is None  # fmt: skip


def test_the_fix_writes_the_evidence_s_condition_after_the_text_s_words() -> None:
    text = "Plus costs £79 a year. It includes free next-day delivery on all orders."
    sentence = (23, len(text))
    at = text.index("all")
    flag: EditSpan = {"type": "relation", "start": at, "end": at + 3, "wrong": "all",
                      "right": "all", "flagged": True}  # fmt: skip
    fixed = scope_fix(flag, text, sentence, [{"text": p} for p in PAGES])
    assert fixed is not None and "flagged" not in fixed
    assert (fixed["type"], fixed["wrong"], fixed["right"]) == ("entity", "all orders",
                                                              "all orders over £20")  # fmt: skip
    assert text[fixed["start"] : fixed["end"]] == "all orders"
    # an edit elsewhere in the sentence is not this fix
    elsewhere: EditSpan = {**flag, "start": 23, "end": 25, "wrong": "It", "right": "It"}
    assert scope_fix(elsewhere, text, sentence, [{"text": p} for p in PAGES]) is None


LIBRARY = [
    "Meeting rooms can be booked at Central and Northgate only, for £15 an hour; community groups "
    "pay half price.",
    "A replacement card costs £2.50. The first replacement for a child's card is free.",
    "Adult books returned late are charged 25p a day, up to a maximum of £6 per item.",
    "Adults can borrow up to 15 items at a time.",
]


def test_all_against_names_the_evidence_restricts_to_with_only() -> None:
    text = "Meeting rooms can be booked at all branches for £15 an hour."
    found = scope_conflict(text, LIBRARY)
    assert found is not None
    assert (found.written, found.condition, found.right) == (
        "all branches", "at Central and Northgate only", "Central and Northgate")  # fmt: skip
    # "only" before the preposition reads the same
    assert scope_conflict(text, ["Meeting rooms can be booked only at Central and Northgate."])
    # the names given, another preposition, or no shared statement: left to the model
    assert scope_conflict("Meeting rooms can be booked at Central and Northgate for £15 an hour.",
                          LIBRARY) is None  # fmt: skip
    assert scope_conflict("Meeting rooms can be booked for all groups.", LIBRARY) is None
    assert scope_conflict("All branches offer free Wi-Fi.", LIBRARY) is None


def test_every_against_the_first_the_evidence_names() -> None:
    text = "A replacement card costs £2.50, and every replacement for a child's card is free."
    found = scope_conflict(text, LIBRARY)
    assert found is not None
    assert (found.written, found.right) == ("every replacement", "the first replacement")
    assert scope_conflict(text.replace("every", "the first"), LIBRARY) is None


def test_no_limit_against_the_limit_the_evidence_sets() -> None:
    found = scope_conflict("Late adult books are charged 25p a day with no upper limit.", LIBRARY)
    assert found is not None
    assert found.written == "with no upper limit"
    assert found.right == "up to a maximum of £6 per item"
    assert found.note().startswith("limit denied: the text says 'with no upper limit' where the "
                                   "evidence says 'up to a maximum of £6 per item'")  # fmt: skip
    found = scope_conflict("Adults can borrow unlimited items at a time.", LIBRARY)
    assert found is not None and (found.written, found.right) == ("unlimited", "up to 15")
    # a limit on another statement, or none in the evidence
    assert scope_conflict("Wi-Fi is free with no upper limit.", LIBRARY) is None
    assert scope_conflict("Adults can borrow unlimited items.",
                          ["Adults can borrow items at any branch."]) is None  # fmt: skip


def test_the_fix_writes_the_evidence_s_words_in_place_of_the_text_s() -> None:
    text = "Meeting rooms can be booked at all branches for £15 an hour."
    at = text.index("all branches")
    flag: EditSpan = {"type": "relation", "start": at, "end": at + 12, "wrong": "all branches",
                      "right": "all branches", "flagged": True}  # fmt: skip
    fixed = scope_fix(flag, text, (0, len(text)), [{"text": p} for p in LIBRARY])
    assert fixed is not None and "flagged" not in fixed
    assert (fixed["wrong"], fixed["right"]) == ("all branches", "Central and Northgate")
    text = "Late adult books are charged 25p a day with no upper limit."
    at = text.index("with")
    flag = {**flag, "start": at, "end": len(text) - 1, "wrong": text[at:-1], "right": ""}
    fixed = scope_fix(flag, text, (0, len(text)), [{"text": p} for p in LIBRARY])
    assert fixed is not None and fixed["right"] == "up to a maximum of £6 per item"


def test_all_ages_against_the_age_limit_the_evidence_sets() -> None:
    pages = ["The sauna and steam room are for members aged 18 and over."]
    text = "The sauna and steam room are open to members of all ages."
    found = scope_conflict(text, pages)
    assert found is not None
    assert (found.written, found.right) == ("of all ages", "aged 18 and over")
    assert text[found.start : found.end] == "of all ages"
    # the limit given, or a limit on another statement
    assert scope_conflict("The sauna is open to members aged 18 and over.", pages) is None
    assert scope_conflict("Swimming lessons are for all ages.", pages) is None
