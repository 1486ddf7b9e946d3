"""A word of a flagged sentence that the evidence says otherwise in the same words around it
(favakit.inference.word_fix): the candidates found by rule, and the gate's check of them with
the shipped mpnet checker (with a table as the judge: test_gate.py)."""

from __future__ import annotations

from typing import Any

import pytest

from favakit.inference.word_fix import aligned_replacements, word_fixes
from favakit.tags import apply_edits

KAHLO = ("Frida Kahlo was a Mexican painter, born in Coyoacán, Mexico City, in 1907. A bus "
         "accident at the age of 18 left her with lasting pain. She married the painter Diego "
         "Rivera in 1929.")  # fmt: skip
SATURN = "Saturn is the sixth planet from the Sun and the second largest in the Solar System."


def _words(sentence: str, evidence: list[str]) -> list[tuple[str, str]]:
    return [(sentence[a:b], right) for a, b, right, _ in aligned_replacements(sentence, evidence)]


def test_the_evidence_s_word_in_the_same_slot_is_the_candidate() -> None:
    crash = "After a train accident at the age of 18 she lived with lasting pain."
    assert ("train", "bus") in _words(crash, [KAHLO])
    # a statement that ends at the word lines up with an evidence sentence that goes on
    rank = "Jupiter is the fifth planet from the Sun, whereas Saturn is the seventh."
    assert _words(rank, [SATURN]) == [("fifth", "sixth"), ("seventh", "sixth")]
    tax = "The Salt March, a protest against the British tax on tea."
    assert _words(tax, ["He led the Salt March against the British tax on salt."]) == [
        ("tea", "salt")
    ]


def test_no_candidate_without_the_same_words_around_or_where_the_evidence_disagrees() -> None:
    # one word in common beside it is not the same slot
    assert _words("She drove a train to Paris.", [KAHLO]) == []
    # a sentence the evidence states as it is
    assert _words("A bus accident at the age of 18 left her with lasting pain.", [KAHLO]) == []
    # two evidence sentences fill the slot otherwise: no candidate for it
    two = [KAHLO, "A car accident at the age of 18 left her with lasting pain."]
    assert ("train", "bus") not in _words("A train accident at the age of 18 left her.", two)
    # a slot is filled by words of the same shape: not a place by ", among them"
    franklin = ["At King's College London she made X-ray images of DNA, among them Photo 51."]
    assert _words("She made X-ray images of DNA at Cambridge University.", franklin) == []
    # function words alone are not a fix: "a" for "the"
    assert _words("The bus accident at the age of 18 left her with lasting pain.", [KAHLO]) == []


def test_a_number_comes_only_from_the_sentence_the_text_says() -> None:
    ships = ["The Tern, built in 2011, carries 180 passengers and 22 cars. The Petrel, built in "
             "2023, is a hybrid-electric ship for 120 passengers; it carries no vehicles."]  # fmt: skip
    petrel = "The Petrel, built in 2023, is a hybrid-electric ship that carries 120 passengers and 12 cars."
    # "passengers and ... cars" lines up with the Tern's sentence: another ship's count
    assert _words(petrel, ships) == []
    # the sentence the text says gives it: the number is its fix
    tern = "The Tern, built in 2011, carries 180 passengers and 12 cars."
    assert _words(tern, ships) == [("12", "22")]


def _flagged_result(text: str, word: str) -> dict[str, Any]:
    at = text.index(word)
    flag = {"type": "unverifiable", "start": at, "end": at + len(word), "wrong": word, "right": word,
            "flagged": True, "checker_score": 0.01}  # fmt: skip
    return {"original": text, "corrected": text, "edits": [flag],
            "evidence": [{"title": "Frida Kahlo", "text": KAHLO}]}  # fmt: skip


def test_the_shipped_checker_takes_the_evidence_s_word_and_leaves_a_false_one_flagged() -> None:
    from favakit.inference.checker import Checker, checker_folder

    gate = Checker(checker_folder("mpnet"), role="gate")
    wrong = "After a train accident at the age of 18 she lived with lasting pain."
    [fixed] = word_fixes(gate, [_flagged_result(wrong, "train")], ["Frida Kahlo"],
                         gate.gate_threshold)  # fmt: skip
    assert fixed["corrected"] == wrong.replace("train", "bus")
    # a sentence whose slot the evidence fills otherwise, but which the fix would not make
    # true: the checker leaves it flagged
    other = "After a train accident at the age of 18 she moved to Paris."
    result = _flagged_result(other, "train")
    assert word_fixes(gate, [result], ["Frida Kahlo"], gate.gate_threshold) == [result]
    assert apply_edits(other, result["edits"]) == other


RECALL = ("The recall covers kettles in black and silver with batch numbers from 2503 to 2601, "
          "printed on the base. Kettles in white are not affected, as they use a different "
          "handle.\n\nCustomers should stop using the kettle at once and contact Brightway for a "
          "full refund or a free replacement kettle. They do not need a receipt. Brightway will "
          "send a prepaid bag so that the kettle can be returned by post, or customers can take "
          "it back to the shop where they bought it.\n\nThe kettles were sold by Homestore, "
          "ValueMart and on Brightway's own website for £34.99. The company said the fault had "
          "been traced to a supplier that changed the plastic used in the handle's fixing "
          "without telling it, and that kettles made since February 2026 use a new fixing.\n\n"
          "For more information, customers can call Brightway on 0800 555 0142, open from 8 am "
          "to 8 pm on weekdays and from 9 am to 5 pm on Saturdays.")  # fmt: skip


@pytest.mark.slow  # 4 s or more on 2 cores
def test_a_fix_holds_where_its_statement_is_supported_and_beside_the_sentence_s_fixes() -> None:
    """ "changed the *metal* used in the handle's fixing, and the helpline is open *every day*":
    the sentence so fixed is still wrong, its first statement is not; "metal" -> "plastic" is
    made and "every day" stays flagged. A sentence that already holds a fix is read with it."""
    from favakit.inference.checker import Checker, checker_folder

    gate = Checker(checker_folder("mpnet"), role="gate")
    text = ("The fault was traced to a supplier that changed the metal used in the handle's "
            "fixing, and the helpline is open from 8 am to 8 pm every day.")  # fmt: skip
    flags = []
    for word in ("metal", "every day"):
        at = text.index(word)
        flags.append({"type": "relation", "start": at, "end": at + len(word), "wrong": word,
                      "right": word, "flagged": True, "checker_score": 0.01})  # fmt: skip
    result = {"original": text, "corrected": text, "edits": flags,
              "evidence": [{"title": "recall", "text": RECALL}]}  # fmt: skip
    [fixed] = word_fixes(gate, [result], [None], gate.threshold)
    assert fixed["corrected"] == text.replace("metal", "plastic")
    assert [(e["wrong"], e["right"], bool(e.get("flagged"))) for e in fixed["edits"]] == [
        ("metal", "plastic", False), ("every day", "every day", True)]  # fmt: skip
    # the same flag in a sentence with a fix elsewhere: the fix is kept beside the new one
    at = text.index("8 pm")
    made = {"type": "entity", "start": at, "end": at + 4, "wrong": "8 pm", "right": "8 pm"}
    beside = {**result, "edits": [flags[0], made, flags[1]]}
    [fixed] = word_fixes(gate, [beside], [None], gate.threshold)
    assert ("metal", "plastic") in [(e["wrong"], e["right"]) for e in fixed["edits"]]
    assert made in fixed["edits"]


def test_a_number_in_the_same_slot_of_the_sentence_said_in_another_order() -> None:
    """ "unless your next dose is due in less than *6* hours" against "unless it is less than
    12 hours before your next dose": the sentences line up in no order, but the number has the
    same two words before it and the word it counts after it, in the sentence the text says."""
    leaflet = ["If you forget a dose, take it as soon as you remember, unless it is less than 12 "
               "hours before your next dose. Do not take more than 80 mg a day."]  # fmt: skip
    text = ("If you forget a dose, take it as soon as you remember, unless your next dose is due "
            "in less than 6 hours.")  # fmt: skip
    assert _words(text, leaflet) == [("6", "12")]
    assert _words("Do not take more than 90 mg in a day.", leaflet) == [("90", "80")]
    # the evidence's own number, or another word after it, gives nothing
    assert _words(text.replace("6", "12"), leaflet) == []
    assert _words(text.replace("6 hours", "6 days"), leaflet) == []
