"""Sentence splitting, token counting and passage packing (pure Python, no dependencies).

Passages are built from whole sentences, greedily, up to a budget counted in tokens (default 256,
FActScore-sized passages) or in words (100, DPR's passages). Without a tokenizer, subword tokens
are estimated: one per punctuation mark and one per started 6 characters of a word. On Wikipedia
text that over-counts MiniLM's WordPiece tokens by 13-17% on average and under-counts 2-6% of
passages (measured on the shared physics and HotpotQA paragraphs), so a 256 budget keeps
passages within a 256-token encoder window; pass ``count=`` a tokenizer's counter (``favakit kb
build --tokenizer``) for exact budgets.
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import functools
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple, ParamSpec, TypeVar

__all__ = [
    "MONTHS",
    "MONTH_NAME",
    "STOPWORDS",
    "WORD_FORM",
    "count_tokens",
    "count_words",
    "is_heading",
    "keep_case",
    "list_marker_end",
    "month_number",
    "outermost",
    "pack_passages",
    "plain_words",
    "remembered",
    "remembering",
    "sentence_spans",
    "split_sentences",
    "states_nothing",
    "tokenizer_counter",
    "tokenizer_lock",
    "undo_ptb",
    "word_changes",
]

#: Words too common to tell texts apart (articles, prepositions, pronouns, auxiliaries, "not"):
#: what synthetic claims and the gate's word-level flags leave out when they compare words.
STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        "a an the of in on at to for by with from and or but as is was were are be been being has "
        "had have it its this that these those which who whom whose he she his her they their them "
        "also not no than then there into over under after before during between about",
    )
)

#: The months, in order, lower-cased: what date parsing and date rules read.
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")  # fmt: skip

#: A month's name as dates write it, for a regular expression read in any case: in full or its
#: first three letters, a dot allowed after those ("March", "Mar", "Mar.")
MONTH_NAME = "(?:" + "|".join(rf"{m[:3]}(?:{m[3:]}|\.)?" for m in MONTHS) + ")"


def month_number(name: str) -> int:
    """The month (1-12) that a month's name or its abbreviation names ("March", "mar.", "Sept")."""
    short = name.lower()[:3]
    return next(n for n, month in enumerate(MONTHS, 1) if month.startswith(short))


#: A word as the rules compare words: a number's point or comma and a word's inner apostrophe or
#: hyphen kept in ("3.8", "1,200", "don't", "e-mail", "Node.js"), and a plural's closing
#: apostrophe ("developers'"); sentence punctuation left out ("Earth." is "Earth").
WORD_FORM = re.compile(r"\w+(?:[’'.,-]\w+)*['’]?")


def plain_words(text: str) -> list[str]:
    """``text``'s words (:data:`WORD_FORM`), lower case."""
    return WORD_FORM.findall(text.lower())


_TOKEN_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)
# Words that end with a period without ending a sentence.
_ABBREV = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc", "e.g", "i.e", "no",
    "fig", "inc", "ltd", "co", "corp", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
    "sept", "oct", "nov", "dec", "u.s", "u.k", "approx", "ca", "cf", "vol", "gen", "col", "lt",
    "sgt", "capt", "rev", "hon", "pp", "op", "al",
}  # fmt: skip
# A candidate boundary: sentence-final punctuation (and closing quotes/brackets), then space.
_BOUNDARY_RE = re.compile(r"([.!?][\"')\]’”]*)(\s+)(?=[\"'(\[“‘]?[A-Z0-9À-ÖØ-Þ])")
# in text with no capital letters (FActScore's knowledge source), before anything
_UNCASED_BOUNDARY_RE = re.compile(r"([.!?][\"')\]’”]*)(\s+)(?=\S)")
# a list item's number ("1.", "iv.", "(2)", "12)"): at the start of a line, not a sentence
_LIST_NUMBER = r"\(?(?:\d{1,3}|i{1,3}|iv|vi{0,3}|ix|xi{0,3})[.)]"
_LIST_NUMBER_RE = re.compile(_LIST_NUMBER, re.IGNORECASE)
# a list item's marker, a number or a bullet, or a question's or answer's label ("Q:", "A:"),
# with the space after it; roman numbers in lower case only ("V. S. Naipaul" is a name)
_LIST_MARKER_RE = re.compile(rf"[ \t]*(?:[-*•–+]|{_LIST_NUMBER}|(?:Q|A|Question|Answer):)[ \t]+")

Counter = Callable[[str], int]


def count_tokens(text: str) -> int:
    """Estimated subword count: a punctuation mark is one, a word one per started 6 characters."""
    return sum(
        -(-len(t) // 6) if t[0].isalnum() or t[0] == "_" else 1 for t in _TOKEN_RE.findall(text)
    )


_TOKENIZER_LOCKS: weakref.WeakKeyDictionary[Any, threading.RLock] = weakref.WeakKeyDictionary()
_LOCKS_LOCK = threading.Lock()


def tokenizer_lock(tokenizer: Any) -> threading.RLock:
    """The one lock of ``tokenizer``: hold it around every call of a tokenizer that threads
    share. A fast (Rust) tokenizer keeps padding and truncation as state set per call, so two
    threads encoding at once can get each other's padding (batches of unequal lengths) or a
    "borrowed" error."""
    with _LOCKS_LOCK:
        lock = _TOKENIZER_LOCKS.get(tokenizer)
        if lock is None:
            lock = _TOKENIZER_LOCKS[tokenizer] = threading.RLock()
        return lock


def tokenizer_counter(tokenizer: Any) -> Counter:
    """Exact counts from a Hugging Face tokenizer (special tokens excluded); thread-safe. A
    text longer than the tokenizer's model reads is counted without its warning ("... will
    result in indexing errors"): it is counted, not fed to a model."""

    def count(text: str) -> int:
        with tokenizer_lock(tokenizer):
            return len(tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    return count


def count_words(text: str) -> int:
    return len(text.split())


_HEADING_RE = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+\S")


def is_heading(line: str) -> bool:
    """Whether ``line`` is a Markdown heading ("## Early life"): a title of what follows,
    stating nothing the gate could check."""
    return bool(_HEADING_RE.match(line))


_ASKED_RE = re.compile(r"[ \t]*(?:Q|Question)[ \t]*:[ \t]+\S")


def states_nothing(line: str) -> bool:
    """Whether ``line`` states nothing the gate could check: a Markdown heading
    (:func:`is_heading`) or a question put to the model, labelled as a Q&A labels it ("Q: When
    was Alan Turing born?"), which the text answers."""
    return is_heading(line) or bool(_ASKED_RE.match(line))


def list_marker_end(text: str, start: int = 0) -> int:
    """Where a list item's marker that opens ``text[start:]`` ("- ", "* ", "• ", "1. ", "2) ",
    "iv. ", and a question's or answer's label, "Q: ", "A: ") ends, else ``start``: what the
    gate reads past and never flags, since a list's numbering and bullets are layout, not
    claims."""
    m = _LIST_MARKER_RE.match(text, start)
    return m.end() if m else start


_P = ParamSpec("_P")
_T = TypeVar("_T")


def outermost(found: Iterable[_T], span: Callable[[_T], tuple[int, int]]) -> list[_T]:
    """Of things found in a text at ``span(thing)`` (start, end), those no earlier or longer one
    overlaps, in order: where two overlap, the one that starts first, then the longer ("three and
    a half" over "three", "3 March 2001" over "March 2001")."""
    kept: list[_T] = []
    for thing in sorted(found, key=lambda t: (span(t)[0], -span(t)[1])):
        if not kept or span(thing)[0] >= span(kept[-1])[1]:
            kept.append(thing)
    return kept


# what remembering() holds while it is open: (reader, its arguments) -> its result
_REMEMBERED: contextvars.ContextVar[dict[tuple[object, ...], tuple[Any, ...]] | None] = (
    contextvars.ContextVar("favakit_remembered", default=None)
)


@contextlib.contextmanager
def remembering() -> Iterator[None]:
    """Within the block, :func:`split_sentences`, :func:`undo_ptb` and the readers made with
    :func:`remembered` read each text once and give the same result again (a new list each
    time). The checkers
    open it for one call: their rules beneath the model read the same evidence several times
    each. Nothing is kept after the block (nested blocks share the outer one's)."""
    token = _REMEMBERED.set({}) if _REMEMBERED.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _REMEMBERED.reset(token)


def _recall(key: tuple[object, ...], read: Callable[[], tuple[Any, ...]]) -> tuple[Any, ...]:
    """``read()``, read once for ``key`` within :func:`remembering` (every time outside it)."""
    memo = _REMEMBERED.get()
    if memo is None:
        return read()
    got = memo.get(key)
    if got is None:
        got = memo[key] = read()
    return got


def remembered(read: Callable[_P, list[_T]]) -> Callable[_P, list[_T]]:
    """``read`` (a pure function of hashable arguments that returns a list), remembered within
    :func:`remembering`."""

    @functools.wraps(read)
    def reader(*args: _P.args, **kwargs: _P.kwargs) -> list[_T]:
        if _REMEMBERED.get() is None:
            return read(*args, **kwargs)
        key = (read, args, tuple(sorted(kwargs.items())))
        return list(_recall(key, lambda: tuple(read(*args, **kwargs))))

    return reader


def split_sentences(text: str, cased: bool = True) -> list[str]:
    """Split prose into sentences; blank lines and line breaks always end a sentence. A sentence
    ends at ``.``, ``!`` or ``?`` before a capital letter or a digit: lower-cased text ("the cat
    sat. the dog ran.", FActScore's knowledge source) stays one sentence per line, unless
    ``cased`` is False: then before anything (abbreviations, initials and a line's list number,
    "1. ", aside either way). Remembered within :func:`remembering`."""
    return _split_sentences(text, cased)


@remembered
def _split_sentences(text: str, cased: bool) -> list[str]:
    boundary = _BOUNDARY_RE if cased else _UNCASED_BOUNDARY_RE
    sentences: list[str] = []
    for block in re.split(r"\n+", text):
        block = block.strip()
        if not block:
            continue
        start = 0
        for m in boundary.finditer(block):
            end = m.end(1)
            words = block[start:end].split()
            last = words[-1].rstrip(".!?\"')]’”").lower() if words else ""
            if m.group(1)[0] == "." and (
                last in _ABBREV or (len(last) == 1 and last.isalpha())  # "J. R. R. Tolkien"
            ):
                continue
            if start == 0 and _LIST_NUMBER_RE.fullmatch(block[:end]):  # "1. Newton was ..."
                continue
            sentences.append(block[start:end].strip())
            start = m.end()
        tail = block[start:].strip()
        if tail:
            sentences.append(tail)
    return sentences


def sentence_spans(text: str, cased: bool = True) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of :func:`split_sentences`'s sentences in ``text``."""
    spans, cursor = [], 0
    for sentence in split_sentences(text, cased):
        start = text.find(sentence, cursor)
        if start < 0:  # cannot happen: sentences are stripped slices of the text
            raise AssertionError(f"sentence not found in text: {sentence[:40]!r}")
        spans.append((start, start + len(sentence)))
        cursor = start + len(sentence)
    return spans


def _cut_word(word: str, budget: int, count: Counter) -> list[str]:
    """Cut a whitespace-free string into the longest prefixes that fit (binary search; a
    prefix never counts more than the whole)."""
    pieces = []
    start = 0
    while start < len(word):
        lo, hi = start + 1, len(word)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(word[start:mid]) <= budget:
                lo = mid
            else:
                hi = mid - 1
        pieces.append(word[start:lo])
        start = lo
    return pieces


def _split_long(sentence: str, budget: int, count: Counter, additive: bool = False) -> list[str]:
    """Cut a sentence longer than the budget into word runs that fit. ``additive``: ``count``
    of words joined by spaces is the sum of their counts, so a run's count is kept as it grows
    (a 10,000-word unpunctuated dump is read in one pass, not counted again at every word)."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for word in sentence.split():
        n = count(word)
        if n > budget:  # a single "word" over budget (a URL, a formula): hard cut
            if current:
                pieces.append(" ".join(current))
                current, used = [], 0
            pieces.extend(_cut_word(word, budget, count))
            continue
        if current and (
            used + n > budget if additive else count(" ".join([*current, word])) > budget
        ):
            pieces.append(" ".join(current))
            current, used = [], 0
        current.append(word)
        used += n
    if current:
        pieces.append(" ".join(current))
    return pieces


def pack_passages(
    text: str | Iterable[str], max_tokens: int = 256, count: Counter = count_tokens
) -> list[str]:
    """Pack whole sentences into passages of at most ``max_tokens`` (as ``count`` counts).

    ``text`` is one string or a list of sections; a passage never spans two sections. A sentence
    longer than the budget is split at word boundaries.
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    sections = [text] if isinstance(text, str) else list(text)
    additive = count in (count_tokens, count_words)  # joining with spaces adds nothing
    passages: list[str] = []
    for section in sections:
        current: list[str] = []
        used = 0
        for sentence in split_sentences(section):
            n = count(sentence)
            pieces = (
                [sentence]
                if n <= max_tokens
                else _split_long(sentence, max_tokens, count, additive)
            )
            for piece in pieces:
                n = count(piece)
                over = used + n > max_tokens or (
                    not additive and count(" ".join([*current, piece])) > max_tokens
                )
                if current and over:
                    passages.append(" ".join(current))
                    current, used = [], 0
                current.append(piece)
                used += n
        if current:
            passages.append(" ".join(current))
    return passages


_FEVER = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
    "-COLON-": ":",
    "``": '"',
    "''": '"',
}
_SPACE_BEFORE = re.compile(r" +([.,;:!?%)\]}]|'s\b|n't\b|'re\b|'ve\b|'ll\b|'d\b|'m\b)")
_SPACE_AFTER = re.compile(r"([(\[{$]) +")


def keep_case(original: str, replacement: str) -> str:
    """``replacement`` cased as ``original`` is: all capitals, capitalised ("Wasn't" -> "Was"),
    or as it is."""
    if original.isupper():
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


#: the spaces that group a number's digits ("1\u00a0200", "12\u202f500"): no-break, narrow
#: no-break, thin and figure spaces; a plain space between digits is left alone (ambiguous)
_DIGIT_GROUP = re.compile(r"(?<=\d)[\u00a0\u202f\u2009\u2007](?=\d{3}(?!\d))")
_GROUP_SPACES = frozenset("\u00a0\u202f\u2009\u2007")
_WIDE_DIGITS = str.maketrans(
    "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19", "0123456789"
)
_WIDE_DIGIT = re.compile("[\uff10-\uff19]")


def undo_ptb(text: str) -> str:
    """FEVER's tokenisation undone (``-LRB-`` -> ``(``, no space before punctuation), spaces
    collapsed; other text is only stripped of doubled spaces. Digits are read as digits: a
    no-break or thin space grouping a number's digits becomes a comma ("1\u00a0200" ->
    "1,200", which the rules read as one number, not as 200), and full-width digits become
    ASCII ones. Remembered within :func:`remembering` (the rules beneath a checker read each
    passage this way several times in a call)."""
    read: str = _recall((_undo_ptb, text), lambda: (_undo_ptb(text),))[0]
    return read


def _undo_ptb(text: str) -> str:
    if not _GROUP_SPACES.isdisjoint(text):
        text = _DIGIT_GROUP.sub(",", text)
    if _WIDE_DIGIT.search(text):
        text = text.translate(_WIDE_DIGITS)
    if "-LRB-" in text or "-LSB-" in text or " ," in text or " ." in text or "``" in text:
        for k, v in _FEVER.items():
            text = text.replace(k, v)
        text = _SPACE_BEFORE.sub(r"\1", text)
        text = _SPACE_AFTER.sub(r"\1", text)
    return " ".join(text.split())


class WordChange(NamedTuple):
    """One change between two versions of a text, found word by word: ``edited[start:end]``
    (whole words; empty where words were only removed) stands where ``original`` has
    ``before`` (whole words; empty where words were only added)."""

    start: int
    end: int
    before: str


def word_changes(original: str, edited: str) -> list[WordChange]:
    """The changes that turn ``original`` into ``edited``, in order (words are runs of
    non-space characters; punctuation stays on its word)."""
    new = [(m.start(), m.end()) for m in re.finditer(r"\S+", edited)]
    old = [(m.start(), m.end()) for m in re.finditer(r"\S+", original)]
    matcher = difflib.SequenceMatcher(
        None, [original[a:b] for a, b in old], [edited[a:b] for a, b in new], autojunk=False
    )
    out = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        before = original[old[i1][0] : old[i2 - 1][1]] if i2 > i1 else ""
        if j2 > j1:
            out.append(WordChange(new[j1][0], new[j2 - 1][1], before))
        else:  # only removed: the place between the neighbouring words
            at = new[j1][0] if j1 < len(new) else len(edited)
            out.append(WordChange(at, at, before))
    return out
