"""A count the evidence contradicts: a rule beneath the checker's score, beside the year rule.

The checkers miss a count or rank a digit away: mpnet reads "The team had 24 players." against "The
team had 23 players." as supported (P 0.99), "the 17th president" against "the 16th president" too
(0.99), and MiniLM "101 floors" against "102 floors" (0.97). A sentence of the text is contradicted
here when a number it gives (digits, words or an ordinal, "debut" and "lead single" ranking first;
not a year, a bound such as "more than 20", though a duration "after eleven *months*" is exact, or
in a negated sentence) counts a word ("23 *players*", "16th *president*", "a six-*year* career", an
age before its number: "at the age of *64*"), the evidence sentence sharing the most of its content
words (at least half, and two) gives another number of the same kind counting the same word, and
the passage holding that sentence never gives the text's number in any form (:func:`_gives`: save
as a count of another thing, "three *weeks*" for "renew it three *times*"), or the text's sentence
is that sentence in its words, the number aside (:func:`_restates`: "£1 for each extra *30*
minutes" against "£1 for each extra 15 minutes", its passage's "rides of up to 30 minutes"
elsewhere). A limit a rule sets (:data:`LIMITS`: "up to 15 items", "within 5 business days") is a
count of its own kind: the same limit on another number contradicts it, an exact number does not; a
count held "at a time" or "at once" is a limit too ("one reservation at a time" is "up to one"). A
part of a counted whole is one too ("two of its five steel supports" counts steel supports as a
part of five): another part of the same whole contradicts it ("three of its five steel supports").
A summary's sentence draws on several evidence sentences and shares half its words with none:
there, an evidence sentence counting the same word contradicts the count where the words around the
two counts (:data:`AROUND` either side) share :data:`AROUND_SHARED` content words or more, and no
passage gives the text's number ("a promotion of *20%* off the first month for new clients" against
"a promotion of 10% off the first month for new clients"). A number the text gives as a bound or an
approximation ("translated into *more than forty* languages", "employs *about 9,000* people") is
contradicted where every number the matching evidence sentence gives counting the same word, exact,
bounded or approximate, allows none of its values ("fourteen languages", "about 900 people"; an
approximation holds its number within a factor of :data:`APPROX_FACTOR`), and the passage never
gives the text's number (:func:`_range_match`). "By" before a number makes a bound only after a
verb of change ("rose by 5%"; "backed by *four* planes" counts planes), and a number the text gives
as a count of another thing does not keep the evidence's out ("backed by *four* planes and six
helicopters" against "six planes and four helicopters"; session 50). The checker then scores the
text at most :data:`~favakit.inference.year_check.CONFLICT_SCORE` and says why
(:meth:`CountConflict.note`).

A count must count the same word on both sides: session 29 tried counts by the year rule alone
and found it fired on supported rows whose sentence gave several counts, or a bound ("grossed
over $800 million" against 873). The choices are measured on training data only
(``scripts/count_rule.py``, ``scripts/rule_firings.py``; docs/benchmarks.md, sessions 31, 44
and 49: the bounds fire on 16 more unsupported training rows and no supported one; session 50:
a percentage, "by" and counts swapped between two things add 7 unsupported rows, no supported
one: 325 and 9).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import NamedTuple

from favakit.inference.number_forms import CURRENCY, quantities
from favakit.inference.number_words import digit_ordinals, spelled_numbers
from favakit.inference.year_check import (
    CONFLICT_SCORE,
    clause_spans,
    content_words,
    matching_sentence,
    negated,
    passage_sentences,
)
from favakit.text import STOPWORDS, outermost, remembered, split_sentences, undo_ptb

__all__ = [
    "ADVERB_COUNTS",
    "APPROX_FACTOR",
    "AROUND",
    "AROUND_SHARED",
    "LIMITS",
    "PATTERN_WORDS",
    "Count",
    "CountConflict",
    "count_conflict",
    "counts",
    "is_statement",
    "rounds_to",
    "shared_around",
    "values_in",
    "words_end",
    "words_start",
]

_YEAR_LIKE = re.compile(r"(?:1\d|20)\d\d")
_BOUND_BEFORE = re.compile(
    r"\b(?:over|under|more than|less than|fewer than|nearly|almost|about|around|approximately|"
    r"roughly|some|at least|at most|up to|close to|circa|estimated|an estimated|upwards of|"
    r"in excess of|as many as|as few as|as much as|top|between|from|to|before|after|"
    r"since|until|till|within|"
    # "between 5 and 10", "five or six"; not "and three of the city's eight libraries"
    r"(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|"
    r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion"
    r"|trillion))%?\s+(?:and|or)|between\s+(?:\S+\s+){1,3}?and|"
    # "rose by 5%" is a change, not a count; "backed by four planes" counts planes
    r"(?:rose|fell|grew|increased|decreased|dropped|climbed|jumped|declined|shrank|risen|fallen|"
    r"grown|gained|lost|cut|reduced|raised|lowered|up|down)\s+by)\s+(?:\$\s?)?$",
    re.IGNORECASE,
)
# "from" bounds a range ("from 5 to 10 players", "from 5-10"), not a source ("a rating from 312
# reviews"): a range's other end follows within a few words
_FROM = re.compile(r"\bfrom\s+(?:\$\s?)?$", re.IGNORECASE)
_RANGE_END = re.compile(r"(?:\s*\S+){0,3}?\s*(?:\bto\b|\buntil\b|\btill\b|\bthrough\b|[-\u2013])",
                        re.IGNORECASE)  # fmt: skip
# "after eleven months of repairs": a duration after "after" is exact, not a bound
_AFTER = re.compile(r"\bafter\s+$", re.IGNORECASE)
_DURATION = re.compile(
    r"\s*(?:minutes?|hours?|days?|weeks?|months?|years?|decades?)\b", re.IGNORECASE
)
# "two of its five", "two of the city's eight": the part of a counted whole
_PART_OF = re.compile(
    r"\s+of\s+(?:(?:the|its|their|his|her|our|your|these|those)\s+)?"
    r"(?:[^\W\d_]+['\u2019]s\s+)?(?:(?:last|first|next|past|previous|final)\s+)?",
    re.IGNORECASE,
)
# "all of their last five matches": a part that is the whole
_ALL_OF = re.compile(r"\ball\b(?=\s+of\s)", re.IGNORECASE)
_BOUND_AFTER = re.compile(r"\s*(?:\+|or (?:more|fewer|less|so)\b|plus\b|-?odd\b)", re.IGNORECASE)
#: Bounds a rule or policy sets ("up to 15 items", "within 5 business days"): a bound of these
#: counts as a count of its own kind, contradicted by the same bound on another number ("within
#: 10 business days" against "within 5 business days"), never by an exact one.
LIMITS = ("up to", "within", "at most", "at least", "no more than", "no fewer than",
          "no later than", "a maximum of", "a minimum of", "maximum of", "minimum of",
          "limited to")  # fmt: skip
_LIMIT_BEFORE = re.compile(
    r"\b(" + "|".join(w.replace(" ", r"\s+") for w in LIMITS) + r")\s+(?:[$\u00a3\u20ac]\s?)?$",
    re.IGNORECASE,
)
# a count held "at a time" or "at once" is a limit ("one reservation at a time" is "up to one"),
# the phrase after the counted word or at most three more words
_AT_A_TIME = re.compile(
    r"(?:\s+[^\W\d_]+){0,3}?\s+at\s+(?:a\s+time|one\s+time|any\s+one\s+time|once)\b",
    re.IGNORECASE,
)
#: Words either side of a count read by the local match, and how many content words the two
#: sides must share (chosen on the training files: session 31, docs/benchmarks.md).
AROUND = 10
AROUND_SHARED = 2
#: The most words of a bare statement (:func:`_statement_match`: "Weight: 1.4 kg."), and the
#: letters of a word that match it to the claim's ("weigh" for "Weight" and "weighs").
STATEMENT_WORDS = 6
STEM_LETTERS = 5
# what a number counts: the word after it, or after a hyphen ("a six-*year* career"; not
# "two-time", a title's count, not of times), read past "studio" ("the second *studio* album"
# counts albums, as "her debut album" does)
_COUNTED = re.compile(r"(?:\s*|-(?!times?\b))(?:studio\s+)?(%|[^\W\d_]+)", re.IGNORECASE)
# an age, written before its number: "at the age of 64", "at age 18", "aged 27" (session 78)
_AGE_BEFORE = re.compile(r"\b(?:age(?:\s+of)?|aged)\s+$", re.IGNORECASE)
# ranks written as words for "first": "her *debut* album", "the *lead* single" (session 78)
_FIRST = re.compile(r"\b(?:debut|lead(?=\s+singles?\b))\b(?=\s+[^\W\d_])", re.IGNORECASE)
# counted words that name no thing of their own: a number "counting" them may count anything
# ("two *other* men", "3 *percent*", "4 *million* dollars")
_NOT_UNITS = frozenset(
    ["percent", "per", "cent", "million", "billion", "trillion", "thousand", "hundred",
     "dollar", "pound", "euro", "yen", "pence", "usd", "gbp", "eur", "other", "more", "new",
     "additional", "further", "extra", "separate", "different", "former"]
)  # fmt: skip
# what a number read as counting a percentage may count as well: "14 per cent", "14 pc"
_PERCENT_WORDS = frozenset(["percent", "per", "cent", "pc", "percentage", "point", "points"])
#: Counts of times written as one word: "renewed twice" is "renewed 2 times"
ADVERB_COUNTS = {"twice": 2, "thrice": 3}
# "twice" as a multiplier ("twice as large", "twice the size") counts no times
_ADVERB_COUNT = re.compile(
    r"\b(twice|thrice)\b(?!\s+(?:as|the|that|this|its|his|her|their)\b)", re.IGNORECASE
)


#: Words before a number that the patterns anchored at its start read (:func:`words_start`):
#: their longest match, :data:`_BOUND_BEFORE`'s "between" three words "and $", spans six
PATTERN_WORDS = 10


def words_start(sentence: str, start: int, words: int = PATTERN_WORDS) -> int:
    """Where the last ``words`` words (whitespace-separated) of ``sentence[:start]`` begin (0
    where it has fewer): the patterns anchored at a number's start (``...$``, each from a word
    boundary and spanning fewer words) find the same match searched from there
    (``pattern.search(sentence, words_start(...), start)``) as in the whole start of the
    sentence, which a long sentence would have them read again for each of its numbers."""
    i = start
    for _ in range(words):
        while i > 0 and sentence[i - 1].isspace():
            i -= 1
        while i > 0 and not sentence[i - 1].isspace():
            i -= 1
        if i == 0:
            break
    return i


def words_end(sentence: str, end: int, words: int) -> int:
    """Where the first ``words`` words of ``sentence[end:]`` end (its end where it has fewer):
    ``sentence[end:words_end(...)].split()`` is ``sentence[end:].split()[:words]``."""
    i, size = end, len(sentence)
    for _ in range(words):
        while i < size and sentence[i].isspace():
            i += 1
        while i < size and not sentence[i].isspace():
            i += 1
    return i


#: a number of a sentence as :func:`_numbers` reads it: start, end, value, as written, ordinal
_Number = tuple[int, int, Decimal, str, bool]
#: a number a text gives as :func:`_given_values` reads it: value, the word it counts, ordinal
_Given = tuple[Decimal, str, bool]


class Count(NamedTuple):
    """A number of a sentence: its value, the word it counts (lower case, a plural's "s" aside,
    to match on; and as written), whether it is an ordinal, how it is written, and the limit it
    is under (:data:`LIMITS`) or the whole it is a part of ("of 5")."""

    value: Decimal
    counted: str
    word: str
    ordinal: bool
    written: str
    start: int
    end: int
    limit: str = ""  # one of LIMITS ("up to"), or "of 5" for a part of five; "" for an exact count


class CountConflict(NamedTuple):
    """The text's number, the word it counts, the evidence's numbers counting that word, and
    the evidence sentence."""

    written: str
    counted: str
    evidence_numbers: tuple[str, ...]
    sentence: str

    def note(self) -> str:
        """What a verdict says of it."""
        others = ", ".join(self._shown(n, alone=True) for n in self.evidence_numbers)
        return (f"count contradicted: the text says {self._shown(self.written)} where the "
                f"evidence says {others} (\"{self.sentence}\"); P(supported) at most "
                f"{CONFLICT_SCORE}")  # fmt: skip

    def _shown(self, number: str, alone: bool = False) -> str:
        """``number`` with what it counts as a reader writes it: "$3000", "15%", "24 players"
        (``alone``: the word left out, as the text's number says it)."""
        if self.counted in CURRENCY:  # "$873 million"; a bound says it: "over $900 million"
            return number if self.counted in number else f"{self.counted}{number}"
        if number.lower() in ADVERB_COUNTS:  # "twice"
            return number
        if self.counted == "%":
            return f"{number}%"
        return number if alone else f"{number} {self.counted}"


def _stem(word: str) -> str:
    w = word.lower()
    if w == "%":
        return "percent"
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


@remembered
def _numbers(sentence: str) -> list[_Number]:
    """Every number of ``sentence``: digits (with a scale word), words, digit ordinals; a span
    inside another's is left out ("16" of "16th"). Remembered within
    :func:`~favakit.text.remembering`."""
    found = [(q.start, q.end, q.value, q.written, False) for q in quantities(sentence)]
    found += [(s.start, s.end, s.value, s.written, s.ordinal)
              for s in spelled_numbers(sentence) + digit_ordinals(sentence)]  # fmt: skip
    found += [(m.start(), m.end(), Decimal(ADVERB_COUNTS[m.group().lower()]), m.group(), False)
              for m in _ADVERB_COUNT.finditer(sentence)]  # fmt: skip
    for m in _FIRST.finditer(sentence):  # "her debut album": a rank, if a word follows it
        word = _COUNTED.match(sentence, m.end())
        if word and word.group(1).lower() not in STOPWORDS:
            found.append((m.start(), m.end(), Decimal(1), m.group(), True))
    return outermost(found, lambda n: (n[0], n[1]))


def values_in(text: str) -> set[Decimal]:
    """The values of every number ``text`` gives, in any form."""
    return {n[2] for n in _numbers(text)}


def _given_values(text: str) -> list[_Given]:
    """Every number ``text`` gives, in any form, with the word it counts ("" where it counts
    none :func:`counts` reads: a year, a bound) and whether it is an ordinal. A negated
    sentence's numbers count their words too."""
    found = []
    for sentence in split_sentences(text):
        counted = {c.start: c.counted for c in counts(sentence, even_negated=True)}
        found += [(n[2], counted.get(n[0]) or _next_word(sentence, n), n[4])
                  for n in _numbers(sentence)]  # fmt: skip
    return found


# a number paired with another by a dash, with no word it counts after the pair: a score ("beat
# them 3-1 at home") or a range of what comes before it, no count of things
_PAIRED = re.compile(r"[-\u2013]\d+\b")
_PAIRED_AFTER = re.compile(r"\b\d+[-\u2013]$")
_PAIRED_COUNT = "score"


def _next_word(sentence: str, number: _Number) -> str:
    """The word after a number :func:`counts` does not read as a count (a bound: "helped by 14
    *new* shops", "more than 20 *players*"), stemmed, as what it counts; "" where none follows
    or it is a stopword; the currency for a sum ("an estimated *$*16 million budget")."""
    ahead = words_start(sentence, number[0])
    before = sentence[ahead : number[0]].rstrip()
    if before and before[-1] in CURRENCY:
        return before[-1]
    second = _PAIRED.match(sentence, number[1])  # "3-1": the word after the pair is counted
    paired = bool(second) or bool(_PAIRED_AFTER.search(sentence, ahead, number[0]))
    word = _COUNTED.match(sentence, second.end() if second else number[1])
    if word is None or (word.group(1) != "%" and word.group(1).lower() in STOPWORDS):
        return _PAIRED_COUNT if paired else ""
    return _stem(word.group(1))


def _counts_other(theirs: str, mine: str) -> bool:
    """Whether a number counting ``theirs`` counts another thing than one counting ``mine``:
    both count words of three letters or more ("three *weeks*" and "three *times*"), neither a
    percentage or a scale word; or one is a sum of money and the other a thing ("£60" and "60
    *minutes*"); or one is a percentage and the other counts any word but a percentage's
    ("sales rose *14%*" and "14 new *shops*", which :func:`counts` reads as counting "new")."""
    if theirs == mine:
        return False
    if "percent" in (theirs, mine):  # a share is no count of things, however it reads
        other = mine if theirs == "percent" else theirs
        return other.isalpha() and other not in _PERCENT_WORDS
    if {theirs, mine} & _NOT_UNITS:
        return False
    money = [w for w in (theirs, mine) if len(w) == 1 and w in CURRENCY]
    if money:
        other = mine if theirs in money else theirs
        return len(other) > 2 and other.isalpha()
    return len(theirs) > 2 and len(mine) > 2 and theirs.isalpha() and mine.isalpha()


def _gives(given: Sequence[_Given], count: Count) -> bool:
    """Whether ``given`` (:func:`_given_values`) holds ``count``'s value, counting its word or
    nothing :func:`counts` reads: the passage gives the text's number, and the rule keeps out.
    A passage that gives it only as a count of something else ("three weeks" for "renew it three
    times"), or only as an ordinal for a count ("about a *third* of which" for "*three* of the
    libraries") or the other way round, does not."""
    if count.limit == f"of {count.value}":
        return False  # "all of their five": a passage giving the whole gives no part of it
    return any(value == count.value and ordinal == count.ordinal
               and not _counts_other(counted, count.counted)
               for value, counted, ordinal in given)  # fmt: skip


def counts(sentence: str, even_negated: bool = False) -> list[Count]:
    """The counts of ``sentence``: numbers followed by the word they count, exact or under a
    limit (:data:`LIMITS`: "up to 15 items"; "up to" for a count held "at a time" or "at
    once"; "of 5" for a part of a counted whole: "two of its five steel supports"); not years,
    not other bounds ("more than 20 players", "20 or more"), none in a negated sentence unless
    ``even_negated``: what a passage gives is read so, as a negated sentence still says what
    its numbers count ("A diversion of nine *miles* is not a small thing." does not give "nine
    *months* of repairs")."""
    return _counts(sentence, even_negated)


@remembered
def _counts(sentence: str, even_negated: bool) -> list[Count]:
    """:func:`counts`, remembered within :func:`~favakit.text.remembering`."""
    read = [(0, len(sentence))]
    if negated(sentence) and not even_negated:
        # a sentence joining statements is read for those not negated ("won all of their last
        # five matches, while Ashdale, who have not won away since August, drop to 11th")
        parts = clause_spans(sentence)
        read = [(a, b) for a, b in parts if len(parts) > 1 and not negated(sentence[a:b])]
    out = []
    numbers = _numbers(sentence)
    for start, end, value, written, ordinal in numbers:
        if not any(a <= start < b for a, b in read):
            continue
        if not ordinal and _YEAR_LIKE.fullmatch(written):
            continue
        if _BOUND_AFTER.match(sentence, end):
            continue
        ahead = words_start(sentence, start)
        limit = _LIMIT_BEFORE.search(sentence, ahead, start)
        exact = _AFTER.search(sentence, ahead, start) and _DURATION.match(sentence, end)
        bounded = _BOUND_BEFORE.search(sentence, ahead, start)
        if bounded and _FROM.search(bounded.group()) and not _RANGE_END.match(sentence, end):
            bounded = None  # "a rating from 312 reviews": no range's start
        if limit is None and not exact and bounded:
            continue
        bound = " ".join(limit.group(1).lower().split()) if limit else ""
        if written.lower() in ADVERB_COUNTS:  # "twice": it counts times
            out.append(Count(value, "time", "times", ordinal, written, start, end, bound))
            continue
        before = sentence[ahead:start].rstrip()
        if before and before[-1] in CURRENCY:  # "$873 million": it counts dollars
            out.append(Count(value, before[-1], before[-1], ordinal, written, start, end, bound))
            continue
        part = _part(sentence, end, numbers)
        if part is not None:
            if not bound:  # "two of its five steel supports": a part of five, of its own kind
                whole, counted, phrase = part
                out.append(Count(value, _stem(counted), phrase, ordinal, written, start, end,
                                 f"of {whole}"))  # fmt: skip
            continue
        word = _COUNTED.match(sentence, end)
        counted = word.group(1) if word else ""
        if _AGE_BEFORE.search(sentence, ahead, start) and not ordinal:
            counted = "age"  # "at the age of 64", "aged 27": a count of years of age
        if counted != "%" and (counted.lower() in STOPWORDS or len(counted) < 2):
            continue
        if not bound and word and _AT_A_TIME.match(sentence, word.end()):
            bound = "up to"
        out.append(Count(value, _stem(counted), counted, ordinal, written, start, end, bound))
    for m in _ALL_OF.finditer(sentence):  # "all of their last five matches": five of five
        part = (
            _part(sentence, m.end(), numbers) if any(a <= m.start() < b for a, b in read) else None
        )
        if part is not None:
            whole, counted, phrase = part
            out.append(Count(whole, _stem(counted), phrase, False, m.group(), m.start(), m.end(),
                             f"of {whole}"))  # fmt: skip
    return sorted(out, key=lambda c: c.start)


def _part(sentence: str, end: int, numbers: Sequence[_Number]) -> tuple[Decimal, str, str] | None:
    """``(the whole, the word it counts, the words from the part's number to that word)`` where
    the number ending at ``end`` is a part of a counted whole ("two *of its five steel*
    supports", "three of the 12 members"), else None."""
    of = _PART_OF.match(sentence, end)
    if of is None:
        return None
    whole = next((n for n in numbers if n[0] == of.end() and not n[4]), None)  # not an ordinal
    word = _COUNTED.match(sentence, whole[1]) if whole else None
    if whole is None or word is None:
        return None
    counted = word.group(1)
    if counted.lower() in STOPWORDS or len(counted) < 2 or counted == "%":
        return None
    return whole[2], counted, sentence[end : word.end()].strip()


def rounds_to(exact: Decimal, rounded: Decimal) -> bool:
    """Whether ``rounded`` is ``exact`` rounded to ``rounded``'s last non-zero digit ("800
    million" of 823 million, "1.5 million" of 1,523,000): an approximation, left to the model."""
    if rounded == 0 or exact == rounded:
        return exact == rounded
    exponent = rounded.normalize().as_tuple().exponent
    step = Decimal(1).scaleb(exponent if isinstance(exponent, int) else 0)
    return (exact / step).quantize(Decimal(1)) * step == rounded


def count_conflict(text: str, evidence: Sequence[str]) -> CountConflict | None:
    """The first count of ``text`` the evidence contradicts (module doc), or None."""
    passages = [undo_ptb(e) for e in evidence]
    sentences = passage_sentences(passages)
    if not sentences:
        return None
    given: dict[int, list[_Given]] = {}  # what each passage gives, read once
    everywhere: list[_Given] | None = None  # what any passage gives
    for claim in split_sentences(undo_ptb(text)):
        mine = counts(claim)
        if not mine:
            continue
        claim_values = _given_values(claim)
        match = matching_sentence(claim, sentences)
        found = None
        if match is not None:
            found = _sentence_match(claim, mine, claim_values, match, passages, given)
        if found is None:
            if everywhere is None:
                everywhere = [g for p in passages for g in _given_values(p)]
            found = _local_match(claim, mine, claim_values, everywhere, sentences)
            found = found or _statement_match(claim, mine, claim_values, everywhere, sentences)
        if found is not None:
            return found
    for claim in split_sentences(undo_ptb(text)):
        found = _range_match(claim, sentences, passages, given) or _fraction_match(claim, sentences)
        if found is not None:
            return found
    return None


def _others(theirs: Sequence[Count], count: Count, claim_values: Sequence[_Given]) -> list[Count]:
    """The counts of an evidence sentence that contradict ``count``: of the same kind, counting
    the same word, under the same limit, a value the claim never gives (``claim_values``, as
    :func:`_given_values` reads them: but as a count of another thing, "backed by *four* planes
    and six helicopters" against "six planes and four helicopters") and, for an exact count,
    not one ``count`` rounds (a limit is a rule's own figure: "up to 20" does not round 15; a rank
    is never rounded: "the *40th* President" against "the 38th President", session 78)."""
    return [c for c in theirs if c.counted == count.counted and c.ordinal == count.ordinal
            and c.limit == count.limit and not _gives(claim_values, c)
            and (count.limit or count.ordinal or not rounds_to(c.value, count.value))]  # fmt: skip


def _sentence_match(
    claim: str, mine: list[Count], claim_values: Sequence[_Given],
    match: tuple[int, str], passages: list[str], given: dict[int, list[_Given]],
) -> CountConflict | None:  # fmt: skip
    """A count of ``claim`` that ``match``, the evidence sentence sharing the most of its content
    words (:func:`~favakit.inference.year_check.matching_sentence`), contradicts, where that
    sentence's passage never gives it (or the claim restates the sentence: :func:`_restates`)."""
    at, best = match
    if at not in given:
        given[at] = _given_values(passages[at])
    theirs = counts(best)
    for count in mine:
        others = _others(theirs, count, claim_values)
        if others and (not _gives(given[at], count) or _restates(claim, count, best)):
            return CountConflict(count.written, count.word,
                                 tuple(dict.fromkeys(c.written for c in others)), best)  # fmt: skip
    return None


def _restates(claim: str, count: Count, sentence: str) -> bool:
    """Whether ``claim`` says ``sentence`` in its words, ``count``'s number aside, and the
    sentence never gives that number: every content word of the claim but that number is the
    sentence's. The claim then gives another number for the sentence's own statement, and its
    passage giving that number about something else does not keep the rule out ("cost £1 for
    each extra *30* minutes" against "cost £1 for each extra 15 minutes" in a passage that also
    prices "one ride of up to 30 minutes"). A sentence that gives it ("the fourth largest
    country in Africa, and the 16th largest in the world") may be what the claim says."""
    words = content_words(claim) - content_words(count.written)
    return count.value not in values_in(sentence) and words <= content_words(sentence)


def _around(sentence: str, count: Count) -> set[str]:
    """The content words within :data:`AROUND` words of ``count`` in ``sentence``, the word it
    counts aside."""
    before = sentence[words_start(sentence, count.start, AROUND) : count.start].split()
    after = sentence[count.end : words_end(sentence, count.end, AROUND)].split()
    return content_words(" ".join(before + after)) - {count.counted, count.word.lower()}


def _local_match(
    claim: str, mine: list[Count], claim_values: Sequence[_Given],
    everywhere: Sequence[_Given], sentences: list[tuple[int, str]],
) -> CountConflict | None:  # fmt: skip
    """A count of ``claim`` that an evidence sentence contradicts where the words around the
    two counts match (at least :data:`AROUND_SHARED` content words in common), though the
    sentences as wholes do not (a summary's sentence draws on several), and that no passage
    gives in any form."""
    theirs: list[list[Count]] = []  # each evidence sentence's counts, read on first need
    for count in mine:
        if _gives(everywhere, count):
            continue
        near = _around(claim, count)
        theirs = theirs or [counts(sentence) for _, sentence in sentences]
        for (_, sentence), its in zip(sentences, theirs, strict=True):
            others = [c for c in _others(its, count, claim_values)
                      if len(near & _around(sentence, c)) >= AROUND_SHARED]  # fmt: skip
            if others:
                return CountConflict(count.written, count.word,
                                     tuple(dict.fromkeys(c.written for c in others)), sentence)  # fmt: skip
    return None


def shared_around(claim: str, written: str, sentence: str, evidence_written: str) -> int:
    """How many content words the words around the count ``written`` in ``claim`` and those
    around the count ``evidence_written`` in the evidence ``sentence`` share (:data:`AROUND`
    either side; the counted words aside); 0 where either is no count there."""
    mine = next((c for c in counts(claim) if c.written == written), None)
    theirs = next((c for c in counts(sentence, even_negated=True)
                   if c.written == evidence_written), None)  # fmt: skip
    if mine is None or theirs is None:
        return 0
    return len(_around(claim, mine) & _around(sentence, theirs))


# a number the text gives as a bound or an approximation, by what it allows: more ("more than
# forty languages"), less ("fewer than 20 staff") or about as many ("about 9,000 people")
def is_statement(sentence: str) -> bool:
    """Whether ``sentence`` is a bare statement of a count: :data:`STATEMENT_WORDS` words at
    most, one number, read as a count ("2 bedrooms.", "Weight: 1.4 kg.")."""
    return (len(sentence.split()) <= STATEMENT_WORDS and len(_numbers(sentence)) == 1
            and len(counts(sentence)) == 1)  # fmt: skip


def _statement_match(
    claim: str, mine: list[Count], claim_values: Sequence[_Given],
    everywhere: Sequence[_Given], sentences: list[tuple[int, str]],
) -> CountConflict | None:  # fmt: skip
    """A count of ``claim`` that a bare statement of the evidence contradicts: a sentence of at
    most :data:`STATEMENT_WORDS` words holding one count and nothing else to read it by ("2
    bedrooms.", "Weight: 1.4 kg.": a record's value, :mod:`favakit.json_evidence`, or a list's
    or a table's row). Such a sentence has no words around its count for :func:`_local_match`
    to match, and shares too few with a claim to be its matching sentence. The claim's count
    counts the same word, no passage gives the claim's value, and the statement's other words
    are none or one of them is the claim's ("Weight" for "weighs", by its first
    :data:`STEM_LETTERS` letters)."""
    claimed = {w[:STEM_LETTERS] for w in content_words(claim)}
    for _, sentence in sentences:
        if not is_statement(sentence):
            continue
        theirs = counts(sentence)
        key = (
            content_words(sentence)
            - content_words(theirs[0].written)
            - {theirs[0].word.lower(), theirs[0].counted}
        )
        if key and not {w[:STEM_LETTERS] for w in key} & claimed:
            continue
        for count in mine:
            if not _gives(everywhere, count) and _others(theirs, count, claim_values):
                return CountConflict(count.written, count.word, (theirs[0].written,), sentence)
    return None


_RANGE_BEFORE = re.compile(
    r"\b(?:(?P<more>over|more than|upwards of|in excess of)|(?P<less>under|less than|fewer than)|"
    r"(?P<about>about|around|approximately|roughly|nearly|almost|some|close to|circa|an "
    r"estimated))\s+(?P<currency>[$\u00a3\u20ac]\s?)?$",
    re.IGNORECASE,
)
# the words that make a number an approximation, as a range's count records them
_APPROXIMATE = frozenset(["about", "around", "approximately", "roughly", "some", "close to",
                          "circa", "an estimated"])  # fmt: skip
#: How far from its number an approximation may be and still hold it: "about 900" holds 450 to
#: 1,800, not 9,000.
APPROX_FACTOR = Decimal(2)


class _Range(NamedTuple):
    """A count and the values it allows: ``low`` to ``high`` (None: no end)."""

    number: Count
    low: Decimal
    high: Decimal | None


def _ranges(sentence: str, bounded_only: bool) -> list[_Range]:
    """The counts of ``sentence`` (not negated) given as a bound or an approximation
    (:data:`_RANGE_BEFORE`), each as the values it allows, its ``written`` form holding the
    bound ("more than forty"); and, unless ``bounded_only``, its exact counts, each allowing
    its own value."""
    if negated(sentence):
        return []
    out = [] if bounded_only else [_Range(c, c.value, c.value) for c in counts(sentence)
                                    if not c.limit and not c.ordinal]  # fmt: skip
    for start, end, value, written, ordinal in _numbers(sentence):
        bound = _RANGE_BEFORE.search(sentence, words_start(sentence, start), start)
        if bound is None or ordinal or _YEAR_LIKE.fullmatch(written):
            continue
        if _BOUND_AFTER.match(sentence, end):
            continue
        currency = (bound.group("currency") or "").strip()
        word = _COUNTED.match(sentence, end)
        counted = currency or (word.group(1) if word else "")
        if not currency and counted != "%" and (counted.lower() in STOPWORDS or len(counted) < 2):
            continue
        kind = bound.group("more") or bound.group("less") or bound.group("about")
        count = Count(value, _stem(counted), counted, False, sentence[bound.start() : end],
                      bound.start(), end, " ".join(kind.lower().split()))  # fmt: skip
        if bound.group("more"):
            out.append(_Range(count, value, None))
        elif bound.group("less"):
            out.append(_Range(count, Decimal(0), value))
        else:
            out.append(_Range(count, value / APPROX_FACTOR, value * APPROX_FACTOR))
    return out


def _apart(a: _Range, b: _Range) -> bool:
    """Whether no value is allowed by both ``a`` and ``b``; or both are approximations of
    different numbers, neither a rounding of the other: "about 280 jobs" against "About 180 jobs
    were lost" restates the evidence's figure with another (an approximation holds its number
    within a factor of :data:`APPROX_FACTOR` only against an exact figure)."""
    if (a.high is not None and a.high < b.low) or (b.high is not None and b.high < a.low):
        return True
    x, y = a.number, b.number
    return (x.limit in _APPROXIMATE and y.limit in _APPROXIMATE and x.value != y.value
            and not rounds_to(x.value, y.value) and not rounds_to(y.value, x.value))  # fmt: skip


def _range_match(
    claim: str, sentences: list[tuple[int, str]], passages: list[str],
    given: dict[int, list[_Given]],
) -> CountConflict | None:  # fmt: skip
    """A bound or approximation of ``claim`` ("more than forty languages") that the evidence
    sentence it matches rules out: each number that sentence gives counting the same word
    allows none of its values ("translated into fourteen languages"), and the sentence's
    passage never gives the claim's number."""
    mine = _ranges(claim, bounded_only=True)
    match = matching_sentence(claim, sentences) if mine else None
    if match is None:
        return None
    at, best = match
    if at not in given:
        given[at] = _given_values(passages[at])
    theirs = _ranges(best, bounded_only=False)
    claim_values = values_in(claim)
    for r in mine:
        same = [t for t in theirs if t.number.counted == r.number.counted]
        if (same and all(_apart(r, t) and t.number.value not in claim_values for t in same)
                and not _gives(given[at], r.number)):  # fmt: skip
            return CountConflict(r.number.written, r.number.word,
                                 tuple(dict.fromkeys(t.number.written for t in same)), best)  # fmt: skip
    return None


# "a third of", "two-thirds of", "half of", "three quarters of": a part of a whole, by its
# value; "about a third less pollen": a change by a part
_FRACTION = re.compile(
    r"\b(?:(?P<n>a|an|one|two|three|four)[\s-]+)?(?P<d>half|thirds?|quarters?|fifths?|tenths?)"
    r"\s+(?P<rel>of|less|more|fewer|lower|higher|smaller|larger)\s+(?P<of>[^.;,]+)",
    re.IGNORECASE,
)
_NUMERATORS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}
_DENOMINATORS = {"half": 2, "third": 3, "quarter": 4, "fifth": 5, "tenth": 10}
#: Content words of the first few words after a fraction's "of" that two fractions must share
#: to be parts of one whole (:func:`_fraction_match`).
FRACTION_SHARED = 2


def _fractions(sentence: str) -> list[tuple[Decimal, str, str, set[str], str]]:
    """``(value, as written, the word after it, what it is of, those words as written)`` of each
    fraction in ``sentence`` (not a negated one): the word after is "of", "less" ...; what it is
    of, the content words of the four words after that."""
    if negated(sentence):
        return []
    out = []
    for m in _FRACTION.finditer(sentence):
        n = _NUMERATORS[m.group("n").lower()] if m.group("n") else 1
        d = _DENOMINATORS[m.group("d").lower().removesuffix("s")]
        words = " ".join(m.group("of").split()[:4])
        out.append((Decimal(n) / Decimal(d), sentence[m.start() : m.end("d")],
                    m.group("rel").lower(), content_words(words), f"{m.group('rel')} {words}"))  # fmt: skip
    return out


def _fraction_match(claim: str, sentences: list[tuple[int, str]]) -> CountConflict | None:
    """A fraction of ``claim`` that an evidence sentence gives otherwise for the same whole
    ("almost *a third* of the council's spending" against "almost half of the council's
    spending"; "about *two-thirds* less pollen" against "about a third less pollen"): the same
    word after both, and the four words after that share :data:`FRACTION_SHARED` content words
    (or all there are); no evidence fraction of that whole has the claim's value."""
    for value, written, relation, of, phrase in _fractions(claim):
        need = min(FRACTION_SHARED, len(of))
        if not need:
            continue
        theirs = [(v, w, sentence) for _, sentence in sentences
                  for v, w, r, o, _ in _fractions(sentence)
                  if r == relation and len(of & o) >= need]  # fmt: skip
        if theirs and all(v != value for v, _, _ in theirs):
            return CountConflict(written, phrase,
                                 tuple(dict.fromkeys(w for _, w, _ in theirs)), theirs[0][2])  # fmt: skip
    return None
