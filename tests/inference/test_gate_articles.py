"""The gate reads its evidence article by article (inference/gate_edits.py, Questions): a
text's score is its best article's, so facts of two articles are never read as one."""

from __future__ import annotations

from favakit.inference.gate_edits import Questions, articles

CURIE = {"title": "Marie Curie", "text": "Marie Curie was a Polish-born physicist and chemist."}
FRANKLIN = {"title": "Rosalind Franklin", "text": "Rosalind Franklin was an English chemist."}


class _Judge:
    """Scores a text 0.9 against evidence that holds every one of its words, else 0.1 (a
    stand-in for the checker: the model itself is tested in test_shipped_checker.py)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, list[str]]] = []

    def score(self, texts, evidence):  # type: ignore[no-untyped-def]
        self.asked += list(zip(texts, evidence, strict=True))
        out = []
        for text, ev in zip(texts, evidence, strict=True):
            words = set(" ".join(ev).lower().replace("-", " ").replace(".", "").split())
            ok = set(text.lower().rstrip(".").split()) <= words
            out.append((0.9 if ok else 0.1, 1))
        return out


def test_passages_are_grouped_by_title_and_untitled_ones_read_together() -> None:
    again = {"title": "Marie Curie", "text": "She was born in Warsaw."}
    assert articles([CURIE, FRANKLIN, again]) == [
        [CURIE["text"], again["text"]], [FRANKLIN["text"]]
    ]  # fmt: skip
    assert articles([{"text": "a."}, {"title": "", "text": "b."}]) == [["a.", "b."]]


def test_a_claim_is_scored_by_its_best_article_never_by_two_read_as_one() -> None:
    questions = Questions()
    questions.ask("mixed", "Rosalind Franklin was a Polish chemist.", [CURIE, FRANKLIN])
    questions.ask("own", "Rosalind Franklin was an English chemist.", [CURIE, FRANKLIN])
    judge = _Judge()
    assert questions.answers(judge) == [("mixed", 0.1), ("own", 0.9)]
    # each article in its own question: four, in one call
    assert [ev for _, ev in judge.asked] == [[CURIE["text"]], [FRANKLIN["text"]]] * 2
    # read together (one untitled source), the words of both would support the mixed claim
    joined = Questions()
    joined.ask("mixed", "Rosalind Franklin was a Polish chemist.", [
        {"text": CURIE["text"]}, {"text": FRANKLIN["text"]}])  # fmt: skip
    assert joined.answers(_Judge()) == [("mixed", 0.9)]


def test_the_shipped_checker_no_longer_reads_two_articles_as_one() -> None:
    """With the real MiniLM checker: Curie's "Polish-born ... chemist" read beside Franklin's
    article made "Rosalind Franklin was a Polish chemist" look supported (0.57 at a gate
    threshold of 0.10); article by article it is not, and her own article still supports the
    true sentence."""
    from favakit.inference.checker import Checker, checker_folder

    curie = {**CURIE, "text": "Marie Curie was a Polish-born physicist and chemist who worked "
             "in France. She was born in Warsaw in 1867 and died in 1934."}  # fmt: skip
    franklin = {**FRANKLIN, "text": "Rosalind Franklin was an English chemist, born in London "
                "in 1920. At King's College London she made X-ray diffraction images of DNA."}  # fmt: skip
    checker = Checker(checker_folder("checker"), role="gate")
    wrong = "Rosalind Franklin was a Polish chemist born in 1920 in London."
    right = "Rosalind Franklin was an English chemist born in 1920 in London."
    by_article, together = Questions(), Questions()
    for text in (wrong, right):
        by_article.ask(text, text, [curie, franklin])
        together.ask(text, text, [{"text": curie["text"]}, {"text": franklin["text"]}])
    (_, mixed), _ = together.answers(checker)
    (_, alone), (_, own) = by_article.answers(checker)
    assert mixed > checker.gate_threshold  # the miss, read as one source
    assert alone <= checker.gate_threshold < own
