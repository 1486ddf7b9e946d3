"""What an edit of the gate rests on in the evidence: the evidence sentence it cites
(:func:`cite`, :func:`cited`), the articles a text names (:func:`named_articles`), a fix kept
only where the evidence holds its words (:func:`grounded_fix`), and a fix the evidence itself
argues for (:func:`evidence_swap`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from favakit.contracts import Citation, EditSpan
from favakit.decompose import leading_name
from favakit.inference.date_fix import about_subject
from favakit.inference.evidence_reading import shared_words
from favakit.inference.year_check import content_words, matching_sentence, passage_sentences
from favakit.text import STOPWORDS, sentence_spans

__all__ = [
    "cite", "cited", "evidence_swap", "grounded_fix", "named_articles", "named_passages",
]  # fmt: skip


def named_articles(text: str, passages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The passages' texts that ``text`` is checked against: those of the articles whose name it
    gives (every content word of the title before a comma or parenthesis: "Rosalind Franklin was
    a Polish chemist" against Franklin's article, not beside Marie Curie's "Polish-born physicist
    and chemist", whose facts the checker would lend her; "Hampden County, Massachusetts" is not
    named by "Hampshire County"), else all of them (no article named, or passages without titles
    such as evidence given by hand)."""
    named = named_passages(text, passages)
    return [str(p.get("text", "")) for n, p in enumerate(passages) if n in named or not named]


def named_passages(
    text: str, passages: Sequence[Mapping[str, Any]], as_name: bool = False
) -> set[int]:
    """The indexes of the passages whose title's name (:func:`_title_head`) ``text`` gives:
    each of its words is in ``text``; with ``as_name``, one at least written as a name
    (:func:`_naming_words`; "Silene conoidea", "University of Kansas"), for a common word is
    no name there: "unless you have full membership" does not name the page titled
    "Membership" (nor "branches" a page named after its file)."""
    words, naming = shared_words(text), _naming_words(text)
    return {n for n, p in enumerate(passages)
            if (head := _title_head(str(p.get("title") or ""))) and head <= words
            and (head & naming or not as_name)}  # fmt: skip


def _naming_words(text: str) -> set[str]:
    """The words of ``text`` that can give a name, lower-cased as
    :func:`~favakit.inference.evidence_reading.shared_words` reads them: those it writes capitalised, and
    those with a digit."""
    return {w.lower() for w in re.findall(r"\w+", text)
            if len(w) > 2 and (w[0].isupper() or not w.isalpha())}  # fmt: skip


def _title_head(title: str) -> set[str]:
    """The content words of a title's name: before a comma or parenthesis, stopwords aside."""
    return shared_words(re.split(r"[,(]", title, maxsplit=1)[0]) - STOPWORDS


def _whole_words(words: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(words.strip())}(?!\w)", re.IGNORECASE)


def cite(
    sentence: str, fix: str, passages: Sequence[Mapping[str, Any]], context: str = "",
    subject: str | None = None,
) -> Citation | None:  # fmt: skip
    """The evidence sentence an edit of ``sentence`` rests on: the first that holds ``fix`` as
    whole words (when there is a fix); else, of the sentences about the subject where the
    evidence has one (naming a word of ``subject``, by default the name ``context`` opens with,
    or in a passage whose title does: :func:`~favakit.inference.date_fix.about_subject`; an
    invented "awarded the Vennard Medal ... by the Royal Society" in a text about Einstein cites
    Einstein's article, not Newton's "He was president of the Royal Society"), then of those in
    the articles ``context`` names (:func:`named_articles`' rule: "- Invented the steam engine."
    under "Key facts about Isaac Newton:" cites Newton's article, not Ada Lovelace's "notes on
    the engine", where no sentence is about the name the text opens with; a title's common
    word names nothing here unless the text writes it as a name: "unless you have full
    membership" cites the classes page's "even with full membership", not the Membership
    page's "You can freeze your membership"), the one sharing
    the most content words with ``sentence``
    (:func:`~favakit.inference.evidence_reading.shared_words` less stopwords: "Hillary was from
    Australia" is about Hillary, not "from"); between equals, the one whose passage shares the
    most with ``context`` (the whole text: the article it draws on, not one that names the same
    country in passing), then the most words. A sentence about the subject is cited even when it
    shares no word with ``sentence`` (its article's first: "He also won an Olympic gold medal in
    rowing." in a text about Darwin cites Darwin's article, which says nothing of it, not
    Newton's "Newton also built ..." for its "also"); None when no sentence is about the subject
    and none shares a word with it."""
    holds = _whole_words(fix) if fix.strip() else None
    words = shared_words(sentence)
    mine = words - STOPWORDS
    around = shared_words(context) - STOPWORDS
    named = shared_words(leading_name(context) if subject is None else subject) - STOPWORDS
    articles = named_passages(context, passages, as_name=True)
    best: tuple[tuple[bool, bool, bool, int, int, int], int, str] | None = None
    for n, passage in enumerate(passages):
        body = str(passage.get("text", ""))
        topical = len(around & shared_words(body))
        # a lower-cased source (FActScore's) is cited by its sentences too, not whole
        for a, b in sentence_spans(body, cased=body != body.lower()):
            piece = body[a:b].strip()
            theirs = shared_words(piece)
            about = bool(named) and about_subject(named, piece, passage)
            key = (bool(holds and holds.search(piece)), about, n in articles,
                   len(mine & theirs), topical, len(words & theirs))  # fmt: skip
            if (key[0] or key[5] or about) and (best is None or key > best[0]):
                best = (key, n, piece)
    if best is None:
        return None
    found: Citation = {"passage": best[1], "sentence": best[2]}
    title = passages[best[1]].get("title")
    if title:
        found["title"] = str(title)
    return found


_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d(?![\w])|(?<![\w.])\d(?![\w])")


def grounded_fix(edit: EditSpan, sentence: str, passages: Sequence[Mapping[str, Any]]) -> EditSpan:
    """``edit`` with a fix the evidence holds: kept when the evidence has its words (a content
    word or a number among them: "Lanny Flaherty's" -> "No" is not grounded by a "no"), a number
    only where the evidence sentence the sentence says gives it (:func:`_another_statements`); a
    number the evidence lacks replaced by the one number of the closest evidence sentence that
    differs from the wrong one (``"1979" -> "14"`` with evidence "born ... 1879" becomes
    ``"1979" -> "1879"``); a number the evidence gives only inside a longer one ("4" of "4.5")
    and not whole in the sentence's closest evidence sentence is no fix; otherwise the edit
    becomes a flag (no fix offered). A fix that drops
    words of the wrong span the evidence writes beside it takes them back
    (:func:`_with_words_kept`). Deletions and flags pass as they are."""
    right = edit["right"]
    holds = _whole_words(right)
    # words any text has ("No", "a", "is") are not evidence for a fix: it needs a content word
    # (longer than two letters) or a number
    telling = bool(shared_words(right)) or bool(_NUMBER.search(right))
    if edit.get("flagged") or not right.strip():
        return edit
    wrong = edit["wrong"].strip()
    if telling and any(holds.search(str(p.get("text", ""))) for p in passages):
        number = right.strip() if _NUMBER.fullmatch(right.strip()) else ""
        whole = _whole_number(number, sentence, passages) if number else ""
        if (
            number
            and not whole
            and not any(number in _NUMBER.findall(str(p.get("text", ""))) for p in passages)
        ):  # "312" -> "4", the evidence's "4.5 stars": a fragment of a number is no fix
            return {**edit, "right": edit["wrong"], "flagged": True}
        if number and _another_statements(edit["wrong"], whole or number, sentence, passages):
            return {**edit, "right": edit["wrong"], "flagged": True}
        right = _lower_as_written(right, wrong, holds, passages)
        if not number:
            right = _with_words_kept(right, wrong, passages)
        return {**edit, "right": right.replace(number, whole) if whole else right}
    if _NUMBER.fullmatch(wrong):
        closest = cite(sentence, "", passages)
        numbers = {m.group(0) for m in _NUMBER.finditer(closest["sentence"])} if closest else set()
        numbers.discard(wrong)
        same = {n for n in numbers if len(n) == len(wrong)} or numbers
        if len(same) == 1:
            return {**edit, "right": edit["wrong"].replace(wrong, same.pop())}
    return {**edit, "right": edit["wrong"], "flagged": True}


_ARTICLES = frozenset({"a", "an", "the"})


def _with_words_kept(right: str, wrong: str, passages: Sequence[Mapping[str, Any]]) -> str:
    """``right`` with the words of ``wrong`` it drops at either end where the evidence writes
    them beside it: the aligned evidence span, not a fragment of it ("a *piano concerto*" ->
    "violin", the evidence's "a violin concerto": "violin concerto"). An article the wrong span
    opens with and the fix drops comes back as the evidence writes it ("a German collector" ->
    "American", the evidence's "an American collector": "an American collector")."""
    mine, fix = wrong.split(), right.strip().split()
    if len(mine) < 2 or not fix:
        return right
    evidence = [str(p.get("text", "")) for p in passages]
    lowered = [w.lower() for w in fix]
    for k in range(1, len(mine)):
        head, tail = mine[:k], mine[k:]
        for words, kept, at_end in ((fix + tail, tail, True), (head + fix, head, False)):
            ours = [w.lower() for w in kept]
            if (lowered[-len(ours) :] if at_end else lowered[: len(ours)]) == ours:
                continue  # the fix has those words already
            found = _written_with_article(" ".join(words), evidence)
            if found is None:
                continue
            article = found if at_end and mine[0].lower() in _ARTICLES else ""
            if article and lowered[0] not in _ARTICLES and k > 1:
                return f"{article} {' '.join(words)}"
            return " ".join(words)
    return right


def _written_with_article(words: str, evidence: Sequence[str]) -> str | None:
    """The article the evidence writes before ``words`` ("" where none), where it writes them
    as whole words; None where it never does."""
    pattern = re.compile(rf"(?:\b(a|an|the)\s+)?(?<!\w){re.escape(words)}(?!\w)", re.IGNORECASE)
    for text in evidence:
        m = pattern.search(text)
        if m is not None:
            return m.group(1) or ""
    return None


def _lower_as_written(
    right: str, wrong: str, holds: re.Pattern[str], passages: Sequence[Mapping[str, Any]]
) -> str:
    """``right`` with its first letter lower-cased where the editor capitalised a fix of a
    lower-case word in mid-sentence and the evidence writes the fix in lower case ("She wrote
    *four* books" -> "Three", the evidence's "She wrote three books": "three")."""
    if not (right.lstrip()[:1].isupper() and wrong[:1].islower()):
        return right
    for p in passages:
        for m in holds.finditer(str(p.get("text", ""))):
            if m.group()[:1].islower():
                at = len(right) - len(right.lstrip())
                return right[:at] + right[at].lower() + right[at + 1 :]
    return right


def _another_statements(
    wrong: str, number: str, sentence: str, passages: Sequence[Mapping[str, Any]]
) -> bool:
    """Whether ``number``, an editor's fix of ``wrong`` in ``sentence``, is missing from the
    evidence sentence that sentence says (:func:`~favakit.inference.year_check.matching_sentence`)
    where that evidence sentence says the words around ``wrong`` too (two content words of the
    four either side): it is then another statement's number ("The Petrel ... carries 120
    passengers and 12 cars." -> "22", from "The Tern ... carries 180 passengers and 22 cars.",
    where the Petrel's sentence says it carries no vehicles), and the edit is a flag."""
    said = matching_sentence(
        sentence, passage_sentences([str(p.get("text", "")) for p in passages])
    )
    at = sentence.find(wrong.strip())
    if said is None or at < 0 or number in _NUMBER.findall(said[1]):
        return False
    near = sentence[:at].split()[-4:] + sentence[at + len(wrong.strip()) :].split()[:4]
    return len(content_words(" ".join(near)) & content_words(said[1])) >= 2


def _whole_number(number: str, sentence: str, passages: Sequence[Mapping[str, Any]]) -> str:
    """The number of the evidence sentence closest to ``sentence`` that ``number`` is the start
    of ("15.5" for "15", "1,400" for "1"), where that sentence never gives ``number`` alone; ""
    otherwise. A fix is the whole number the evidence gives, never a fragment of it."""
    closest = cite(sentence, "", passages)
    if not closest:
        return ""
    numbers = [m.group(0) for m in _NUMBER.finditer(closest["sentence"])]
    if number in numbers:
        return ""
    longer = {n for n in numbers if re.match(re.escape(number) + r"[.,]\d", n)}
    return longer.pop() if len(longer) == 1 else ""


def cited(
    span: EditSpan, sentence: str, passages: Sequence[Mapping[str, Any]], context: str = "",
    subject: str | None = None,
) -> EditSpan:  # fmt: skip
    """``span`` with ``cites`` (:func:`cite`; a flag has no fix to look for) where one is found."""
    fix = "" if span.get("flagged") else span["right"]
    found = cite(sentence, fix, passages, context, subject)
    return {**span, "cites": found} if found else span


def evidence_swap(edit: EditSpan, passages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``edit`` replaces words the evidence never has with words it has (``"1978" ->
    "1979"`` where only 1979 is in the evidence): a fix the evidence itself argues for."""
    wrong, right = edit["wrong"].strip(), edit["right"].strip()
    if edit.get("flagged") or not right or not wrong or wrong.lower() == right.lower():
        return False
    bodies = [str(p.get("text", "")) for p in passages]
    has_right, has_wrong = _whole_words(right), _whole_words(wrong)
    return any(has_right.search(b) for b in bodies) and not any(has_wrong.search(b) for b in bodies)
