"""Places of birth and death fixed from an article's lead (inference/place_fix.py): the role is
read past a date, and only the subject's one place for it is a fix."""

from __future__ import annotations

from favakit.contracts import EditSpan
from favakit.inference.place_fix import role_place_fix, role_places

MARROW = {"title": "", "text": "Ilse Marrow (born 12 June 1948 in Groningen, Netherlands; died 3 "
          "February 2019 in Halifax, Nova Scotia) was a Dutch-Canadian marine biologist. She "
          "studied biology at Utrecht."}  # fmt: skip
TEXT = "Ilse Marrow was a marine biologist, born in Amsterdam in 1948."


def _flag(text: str) -> EditSpan:
    return {"type": "unverifiable", "start": 0, "end": len(text), "wrong": text, "right": text,
            "flagged": True}  # fmt: skip


def test_places_are_read_past_a_date_with_where_they_are() -> None:
    assert [p[2:] for p in role_places(MARROW["text"])] == [
        ("born", "Groningen", ", Netherlands"), ("died", "Halifax", ", Nova Scotia")]  # fmt: skip
    assert [p[2:4] for p in role_places("He was born in 1948 in Groningen.")] == [
        ("born", "Groningen")]  # fmt: skip
    assert [p[2:4] for p in role_places("Born on March 3, 1901, at Ulm, she moved.")] == [
        ("born", "Ulm")]  # fmt: skip
    # a role and a place further apart are not read as one
    assert role_places("She was born to a family of farmers who moved in 1950 to Paris.") == []


def test_a_place_of_birth_the_lead_gives_otherwise_is_fixed() -> None:
    fixed = role_place_fix(_flag(TEXT), TEXT, (0, len(TEXT)), [MARROW], "Ilse Marrow")
    assert fixed is not None and "flagged" not in fixed
    assert (fixed["type"], fixed["wrong"], fixed["right"]) == ("entity", "Amsterdam", "Groningen")
    assert TEXT[fixed["start"] : fixed["end"]] == "Amsterdam"
    died = "Ilse Marrow died in Toronto in 2019."
    fixed = role_place_fix(_flag(died), died, (0, len(died)), [MARROW], "Ilse Marrow")
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("Toronto", "Halifax")


def test_no_fix_for_a_right_place_a_country_a_region_or_another_persons() -> None:
    def fix(text: str, passages: list[dict[str, str]], subject: str = "Ilse Marrow") -> object:
        return role_place_fix(_flag(text), text, (0, len(text)), passages, subject)

    for right in ("Groningen", "the Netherlands", "Netherlands", "Europe", "Gronigen"):
        assert fix(TEXT.replace("Amsterdam", right), [MARROW]) is None, right
    assert fix("Ilse Marrow died in Nova Scotia in 2019.", [MARROW]) is None  # the region
    other = {"title": "", "text": MARROW["text"].replace("Ilse Marrow", "Ann Moray")}
    assert fix(TEXT, [other]) is None
    assert fix(TEXT, [MARROW], subject="") is None
    # the evidence gives two places of birth: which is right is not known
    twice = {"title": "Ilse Marrow", "text": "Marrow was born in Delft."}
    assert fix(TEXT, [MARROW, twice]) is None
    # the edit must hold the place
    edit = {**_flag(TEXT), "start": 0, "end": 11}
    assert role_place_fix(edit, TEXT, (0, len(TEXT)), [MARROW], "Ilse Marrow") is None


def test_the_gates_rule_fix_takes_it_with_its_citation() -> None:
    from favakit.inference.gate_rule_fixes import rule_fix

    passages = [{"id": "0", **MARROW}]
    fixed = rule_fix(TEXT, (0, len(TEXT)), passages, None, 0.01)
    assert fixed is not None and (fixed["wrong"], fixed["right"]) == ("Amsterdam", "Groningen")
    assert fixed["cites"]["sentence"].startswith("Ilse Marrow (born 12 June 1948 in Groningen")
