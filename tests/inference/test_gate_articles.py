"""The gate's fix check reads a fixed sentence against the articles it names
(inference/gate_cite.py, named_articles; inference/gate_edits.py, Questions.ask(..., named=True)):
packed beside another article, the checker lends a person that article's facts."""

from __future__ import annotations

from favakit.inference.gate_cite import cite, named_articles
from favakit.inference.gate_edits import Questions

CURIE = {"title": "Marie Curie", "text": "Marie Curie was a Polish-born physicist and chemist "
         "who worked in France. She was born in Warsaw in 1867 and died in 1934."}  # fmt: skip
FRANKLIN = {"title": "Rosalind Franklin", "text": "Rosalind Franklin was an English chemist, "
            "born in London in 1920. At King's College London she made X-ray images of DNA."}  # fmt: skip


def test_a_sentence_is_read_against_the_articles_whose_title_it_names() -> None:
    assert named_articles("Rosalind Franklin was a Polish chemist.", [CURIE, FRANKLIN]) == [
        FRANKLIN["text"]]  # fmt: skip
    # two named: both, in order; a name given in part, none, or no titles: every passage
    both = "Marie Curie and Rosalind Franklin were chemists."
    assert named_articles(both, [CURIE, FRANKLIN]) == [CURIE["text"], FRANKLIN["text"]]
    for text in ("Curie and Franklin were chemists.", "She was a chemist."):
        assert named_articles(text, [CURIE, FRANKLIN]) == [CURIE["text"], FRANKLIN["text"]]
    untitled = [{"text": CURIE["text"]}, {"title": "", "text": FRANKLIN["text"]}]
    assert named_articles("Rosalind Franklin was a chemist.", untitled) == [
        CURIE["text"], FRANKLIN["text"]]  # fmt: skip
    # a title's name is what comes before a comma or parenthesis, stopwords aside
    county = {"title": "Hampden County, Massachusetts", "text": "Hampden County is a county."}
    town = {"title": "Amherst, Massachusetts", "text": "Amherst is a town in Hampshire County."}
    assert named_articles("Amherst is in Hampshire County.", [county, town]) == [town["text"]]
    beatles = {"title": "The Beatles", "text": "The Beatles were a band."}
    assert named_articles("The Beatles were a rock band.", [beatles, FRANKLIN]) == [
        beatles["text"]]  # fmt: skip
    python = {"title": "Python (programming language)", "text": "Python is a language."}
    assert named_articles("Python 3.0 came out in 2008.", [python, FRANKLIN]) == [
        python["text"]]  # fmt: skip


def test_the_shipped_checker_no_longer_lends_one_article_s_facts_to_another_person() -> None:
    """With the real MiniLM checker: Curie's "Polish-born ... chemist" packed beside Franklin's
    article made "Rosalind Franklin was a Polish chemist" look supported (above the gate
    threshold); read against the article it names it is not, and that article still supports the
    true sentence."""
    from favakit.inference.checker import Checker, checker_folder

    checker = Checker(checker_folder("checker"), role="gate")
    wrong = "Rosalind Franklin was a Polish chemist born in 1920 in London."
    right = "Rosalind Franklin was an English chemist born in 1920 in London."
    named, packed = Questions(), Questions()
    for text in (wrong, right):
        named.ask(text, text, [CURIE, FRANKLIN], named=True)
        packed.ask(text, text, [{"text": CURIE["text"]}, {"text": FRANKLIN["text"]}])
    (_, mixed), _ = packed.answers(checker)
    (_, alone), (_, own) = named.answers(checker)
    assert mixed > checker.gate_threshold  # the miss, read as one source
    assert alone <= checker.gate_threshold < own


def test_a_common_word_names_no_article_a_citation_prefers() -> None:
    """A page titled by a common word is named, for a citation, only where the text writes that
    word as a name: "unless you have full membership" rests on the classes page's rule, not the
    Membership page. The fix check still reads a text against every page whose title's words it
    has (a narrower reading: a fix must hold against it)."""
    membership = {"title": "Membership",
                  "text": "You can freeze your full membership for a month at no charge."}  # fmt: skip
    classes = {"title": "Classes", "text": "If you cancel a class late, you pay a fee, even "
               "with full membership. Classes run every day."}  # fmt: skip
    text = "If you cancel late, you pay £4, unless you have full membership."
    found = cite(text, "", [membership, classes], text)
    assert found is not None and found["title"] == "Classes"
    assert found["sentence"].startswith("If you cancel a class late")
    # the same text names the page by its word where it writes it as a name
    named = "Membership: if you cancel late, you pay £4, unless you have full membership."
    assert cite(named, "", [membership, classes], named)["title"] == "Membership"  # type: ignore[index]
    assert named_articles(text, [membership, classes]) == [membership["text"]]
