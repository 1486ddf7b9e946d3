"""What one pass of a checker read of its (text, evidence) pair, from the tokenizer's offsets
(favakit.inference.evidence_reading.read_of): the words a verdict says were read."""

from __future__ import annotations

import pytest

from favakit.inference.evidence_reading import (
    Read,
    closest_first,
    closest_pieces,
    fit_evidence,
    most_cut,
    read_of,
    top_pieces,
)


def offsets(text: str, evidence: str, text_end: int, evidence_end: int) -> tuple[list, list]:
    """Offsets and sequence ids as a fast tokenizer gives them for ``[CLS] text [SEP] evidence
    [SEP]``, one token a word, kept up to ``*_end`` characters of each side."""

    def tokens(s: str, end: int) -> list[tuple[int, int]]:
        out, at = [], 0
        for word in s.split():
            start = s.index(word, at)
            at = start + len(word)
            if at <= end:
                out.append((start, at))
        return out

    mine, theirs = tokens(text, text_end), tokens(evidence, evidence_end)
    spans = [(0, 0), *mine, (0, 0), *theirs, (0, 0)]
    sides = [None, *[0] * len(mine), None, *[1] * len(theirs), None]
    return spans, sides


def test_a_pair_read_whole_says_so_and_a_cut_one_counts_the_words_read() -> None:
    text, evidence = "Curie was born in Warsaw.", "Marie Curie was born in Warsaw in 1867."
    whole = read_of((text, evidence), *offsets(text, evidence, len(text), len(evidence)))
    assert whole == Read(8, 8, False)
    cut = read_of((text, evidence), *offsets(text, evidence, len(text), evidence.index(" in 1867")))
    assert cut == Read(6, 8, True)
    both = read_of((text, evidence), *offsets(text, evidence, text.index(" in"), 5))
    assert both == Read(1, 8, True, 3, 5)


def test_a_character_no_token_covers_is_not_a_cut() -> None:
    text, evidence = "Curie was born in Warsaw.", "She was born in Warsaw."
    tokens = offsets(text, evidence, len(text), len(evidence))  # a zero-width space: no token
    read = read_of((text + "\u200b", evidence + "\u200b"), *tokens)
    assert read == Read(5, 5, False)


def test_of_several_passes_the_one_that_left_most_unread_is_named() -> None:
    half, whole, text_cut = Read(50, 100, True), Read(90, 90, False), Read(90, 90, False, 10, 40)
    assert most_cut(None, whole) == whole
    assert most_cut(whole, half) == half and most_cut(half, whole) == half
    assert most_cut(whole, text_cut) == text_cut


def test_token_windows_cover_the_text_within_the_budget_at_sentence_ends_else_spaces() -> None:
    import itertools
    import re

    import pytest

    from favakit.inference.evidence_reading import token_windows

    def spans(s: str) -> list[tuple[int, int]]:  # a token a word or a punctuation mark
        return [m.span() for m in re.finditer(r"\w+|[^\w\s]", s)]

    text = "Marie Curie was born in Warsaw. She moved to Paris in 1891. She won two Nobel prizes."
    windows = token_windows(text, spans(text), 8)
    assert [text[a:b].strip() for a, b, _ in windows] == [
        "Marie Curie was born in Warsaw.", "She moved to Paris in 1891.", "She won two Nobel prizes."
    ]  # fmt: skip
    assert windows[0][0] == 0 and windows[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(windows))  # nothing left out
    assert [n for *_, n in windows] == [7, 7, 6]
    # no sentence end within the budget: cut at the last space; no space: inside the word
    plain = "one two three four five six seven"
    assert [(plain[a:b], n) for a, b, n in token_windows(plain, spans(plain), 3)] == [
        ("one two three", 3), (" four five six", 3), (" seven", 1)
    ]  # fmt: skip
    assert token_windows("abcdef", [(0, 2), (2, 4), (4, 6)], 2) == [(0, 4, 2), (4, 6, 1)]
    assert token_windows(text, spans(text), 100) == [(0, len(text), 20)]
    with pytest.raises(ValueError, match="budget"):
        token_windows(text, spans(text), 0)


# Retrieval's passages from two teams' articles: the text is about the 2016 team, whose article
# says "They finished the season 19-15"; the other's sentence shares more of the text's words.
TEAMS = ["The 2016 Colorado team played in Boulder. They finished the season 19-15.",
         "Filler about the grounds and the stands. " * 3 + "The Colorado team finished the "
         "season 3-9 under its new coach."]  # fmt: skip
TITLES = ["2016 Colorado team", "2009 Colorado team"]
TEXT = "The 2016 Colorado team finished the season 3-9."


def test_the_cut_ranks_a_sentence_with_the_words_its_article_title_shares_with_the_text() -> None:
    # untitled, the other team's sentence (colorado, team, finished, season) outranks "They
    # finished the season 19-15" (finished, season)
    other = "The Colorado team finished the season 3-9 under its new coach."
    assert fit_evidence(TEXT, TEAMS, 12) == other
    # titled, the 2016 article's sentences share 2016, colorado and team through its title
    assert fit_evidence(TEXT, TEAMS, 12, TITLES) == TEAMS[0]


def test_one_article_or_none_ranks_as_untitled_and_titles_must_match_the_passages() -> None:
    untitled = fit_evidence(TEXT, TEAMS, 12)
    for one in (["2016 Colorado team"] * 2, ["2016 Colorado team", ""], ["", ""]):
        assert fit_evidence(TEXT, TEAMS, 12, one) == untitled
    assert fit_evidence(TEXT, ["a b", "c"], 12, TITLES) == "a b c"  # fits: whole, titles unread
    for short in (TEAMS, ["a b", "c"]):  # evidence that fits is checked too
        with pytest.raises(ValueError, match="1 titles for 2 evidence passages"):
            fit_evidence(TEXT, short, 12, TITLES[:1])


def test_the_closest_pieces_are_those_sharing_the_most_words_kept_in_their_order() -> None:
    read = ["The tower was painted in 1900.", "Curie was born in Warsaw.",
            "A Nobel Prize.", "Curie, born in Warsaw, won a Nobel Prize."]  # fmt: skip
    text = "Curie was born in Warsaw and won a Nobel Prize."
    assert closest_pieces(text, read, 2) == [read[1], read[3]]  # order kept, not rank
    assert closest_pieces(text, read, 4) == read and closest_pieces(text, read[:1], 3) == read[:1]


def test_closest_first_orders_pieces_by_the_words_they_share_with_the_text() -> None:
    read = ["The tower was painted in 1900.", "Curie was born in Warsaw.",
            "A Nobel Prize.", "Curie, born in Warsaw, won a Nobel Prize."]  # fmt: skip
    text = "Curie was born in Warsaw and won a Nobel Prize."
    assert closest_first(text, read) == [3, 1, 2, 0]
    assert closest_first(text, []) == []


def test_the_top_pieces_are_the_highest_scored_kept_in_their_order() -> None:
    read = ["a", "b", "c", "d"]
    assert top_pieces([0.1, 0.9, 0.2, 0.5], read, 2) == ["b", "d"]
    assert top_pieces([0.3, 0.3, 0.3, 0.1], read, 1) == ["a"]  # the first of equals
    assert top_pieces([0.0] * 4, read, 5) == read
    with pytest.raises(ValueError, match="3 scores for 4 pieces"):
        top_pieces([0.1, 0.2, 0.3], read, 2)
