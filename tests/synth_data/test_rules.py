from __future__ import annotations

import random

import pytest

from favakit.synth_data.rules import (
    _OPPOSITE,
    EntityPools,
    RuleInserter,
    mentions,
    name_kind,
    sentence_spans,
)
from favakit.tags import ERROR_TYPES, parse

from .conftest import ARTICLES

TEXT = ARTICLES["Ada Lovelace"]


@pytest.fixture(scope="module")
def inserter() -> RuleInserter:
    pools = EntityPools.from_passages(ARTICLES.items())
    return RuleInserter(pools, forbidden=" ".join(ARTICLES.values()).split())


def test_pools_know_people_by_their_life_spans() -> None:
    pools = EntityPools.from_passages(ARTICLES.items())
    assert {"Ada", "Charles", "Grace", "Alan"} <= pools.first_names
    assert name_kind("Isaac Newton", pools.first_names) is None  # no life span: unknown kind
    assert name_kind("Charles Babbage", pools.first_names) == "person"
    assert name_kind("Royal Society") == "org" and name_kind("Black Sea") == "place"
    assert "Grace Hopper" in pools.candidates("Alan Turing")


def test_sentence_spans_slice_sentences() -> None:
    spans = sentence_spans(TEXT)
    assert len(spans) == 5 and TEXT[spans[-1][0] : spans[-1][1]] == "She died in London in 1852."


@pytest.mark.parametrize("typ", ERROR_TYPES)
def test_each_rule_makes_one_valid_edit_of_its_type(inserter: RuleInserter, typ: str) -> None:
    title = "Lake Baikal" if typ == "relation" else "Ada Lovelace"
    text = ARTICLES[title]
    tagged, applied = inserter.insert(text, title, [typ], random.Random(3))
    assert applied == [typ]
    (edit,) = tagged.edits
    assert edit.type == typ and edit.wrong and edit.wrong not in text
    assert parse(tagged.render()) == tagged
    assert tagged.corrected() == text  # applying the edits gives the gold passage back
    if typ in ("invented", "subjective", "unverifiable"):
        assert edit.right == "" and edit.wrong.endswith(".") and edit.wrong[0].isupper()
    else:
        assert edit.right and edit.right in text


def test_rule_details(inserter: RuleInserter) -> None:
    rel, _ = inserter.insert(ARTICLES["Lake Baikal"], "Lake Baikal", ["relation"], random.Random(0))
    (e,) = rel.edits
    assert _OPPOSITE[e.right.lower()] == e.wrong.lower()
    con, _ = inserter.insert(TEXT, "Ada Lovelace", ["contradictory"], random.Random(0))
    (c,) = con.edits
    assert " not " in c.wrong or " never " in c.wrong
    assert c.wrong.replace(" not", "").replace("never ", "") == c.right
    sub, _ = inserter.insert(TEXT, "Ada Lovelace", ["subjective"], random.Random(0))
    assert "Ada Lovelace" in sub.edits[0].wrong and " its " not in sub.edits[0].wrong


def test_deterministic_for_a_seed_and_limit(inserter: RuleInserter) -> None:
    a = inserter.insert(TEXT, "Ada Lovelace", list(ERROR_TYPES), random.Random(42), limit=3)
    b = inserter.insert(TEXT, "Ada Lovelace", list(ERROR_TYPES), random.Random(42), limit=3)
    assert a == b and len(a[1]) == 3
    c = inserter.insert(TEXT, "Ada Lovelace", list(ERROR_TYPES), random.Random(43), limit=3)
    assert c != a


def test_invented_names_are_not_in_the_corpus(inserter: RuleInserter) -> None:
    corpus = " ".join(ARTICLES.values()).lower()
    for seed in range(20):
        tagged, _ = inserter.insert(TEXT, "Ada Lovelace", ["invented"], random.Random(seed))
        words = [w for w in tagged.edits[0].wrong.split() if w[:1].isupper()]
        fake = [
            w
            for w in words
            if w.lower() not in corpus
            and w not in {"In", "The", "A", "Scholars", "Ada", "Lovelace"}
        ]
        assert fake, tagged.edits[0].wrong


def test_subjects_and_people() -> None:
    from favakit.synth_data.rules import _subject

    assert _subject("Giuseppe Verdi (film)") == "the film Giuseppe Verdi"
    assert _subject("Gone in 60 Seconds (2000 film)") == "the film Gone in 60 Seconds"
    assert _subject("Dick Hanley (swimmer)") == "Dick Hanley"
    pools = EntityPools.from_passages(ARTICLES.items())
    ins = RuleInserter(pools)
    assert ins._person("Grace Hopper", ARTICLES["Grace Hopper"]) == (True, "she", "her")
    assert ins._person("Alan Turing", ARTICLES["Alan Turing"]) == (True, "he", "his")
    assert ins._person("Royal Society", ARTICLES["Royal Society"])[0] is False
    assert ins._person("Ada Lovelace (film)", ARTICLES["Ada Lovelace"])[0] is False


def test_mentions_find_years_numbers_and_names_by_kind() -> None:
    text = (
        "Albert Einstein was born in Ulm, Germany, in 1879 and joined the University of Berlin "
        "with 3 others; the Mid-America Regional Council met in Thorofon-Ergon."
    )
    found = [(text[a:b], kind) for a, b, kind in mentions(text, {"Albert"})]
    assert found == [
        ("Albert Einstein", "person"), ("Ulm", "word"), ("1879", "year"),
        ("University of Berlin", "org"), ("3", "number"), ("Mid-America Regional Council", "org"),
    ]  # fmt: skip
    # alone: "Germany" follows a name, "Regional" sits inside one, "Thorofon" is half of a word
