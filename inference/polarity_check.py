"""A statement its evidence denies: a rule beneath the checker's score, beside the year, count and
name rules.

The checkers read a sentence against a denial of it as support when the two share nearly every
word: against "The warranty does not cover damage caused by misuse, normal wear and tear, or
items bought from the clearance section.", the MiniLM checker scores "The warranty covers damage
caused by normal wear and tear." 0.89, and the mpnet gate left it alone. A sentence of the text
is denied here when

- it is not negated itself ("not", "cannot": "residents who cannot visit a branch" is the
  evidence's own statement), nor denies by its words ("no", "without", "failed to", "refused"
  ...): "He did not die in 2000" against "He died in 1990" is supported, and is left to the
  model;
- the evidence has a sentence that matches it
  (:func:`~favakit.inference.year_check.matching_sentence`), and a sentence of the evidence (that one or another: "Perishable food can be returned within
  30 days." shares as many words with "Customers may return most items within 30 days ...")
  holds a clause (:func:`denying_clause`: the sentence cut at ``;``, parentheses, "but",
  "although", "though", "while", "whereas", "except", "however", "yet", "that", ", which",
  ", who"; "A stadium *that is not an all-seater* has areas ..." does not deny "An all-seater
  stadium is a stadium.") that is negated ("not", "never", "cannot", "-n't"; not "not only",
  "not until", "never again" ..., nor "no longer", which says it once was);
- one of the first two content words after the negation (what it governs) is a word of the text's
  sentence: "winter does not *occur* in the tropical zone" does not deny "Winter is the coldest
  season in temperate zones";
- and that clause holds every content word of the text's sentence but at most :data:`MISSING`,
  :data:`SHARED` at least, as words or by their stem ("covered" is "cover"). Two kinds of word
  the clause may lack beyond those:

  - the other members of a list of the text's (:func:`_in_lists`), one member of which the
    clause holds whole: "We deliver to England, Scotland, Wales and Northern Ireland." against
    "We do not deliver to Northern Ireland, the Channel Islands or outside the UK.";
  - the text's restriction of time, place or measure (:func:`_adjunct_words`: from its first
    such preposition on, every word before it held but at most :data:`MISSING`), and a purpose
    it opens with ("To save space, "; not needed for the matching sentence either), where the
    denial has no words of its own after the negation: "Perishable food can be returned within
    30 days." against "Gift cards, perishable food and personalised items cannot be returned.";
    "To save space, Tidewater deletes old files from the source after each backup." against
    "Tidewater never deletes files from the source." (session 46; no further training row)
    ("The model was not released in Japan." does not deny "The model was released in the US in
    2010.": "Japan" is its own). A denial of any place or time ("not allowed anywhere on the
    ships", "never ... at any time") counts as one with no words of its own, and needs two of
    the text's words, not :data:`SHARED`: "Smoking is allowed on the outside decks." against
    "Smoking, including e-cigarettes, is not allowed anywhere on the ships." (session 47; no
    further training row).

A denial by "no" (:func:`none_clause`) is read as well: "There are no late charges on children's
books or on items borrowed with a Silver card." denies "Children's books are charged 10p a day
when they are returned late.", whose words name the thing denied ("late charges") and one member
of what it is denied for ("children's books"), whatever else they say of it; a text that says
something is free, waived or exempt is the model's to read. So is a day a page says closed
(:func:`closed_clause`): "Millbrook is ... also open on Sundays." against the opening-hours
table's row "Branch: Millbrook; ...; Sunday: closed" or "Millbrook is closed on Sundays.". And an
exception the evidence refuses (:func:`exception_clause`): "you are charged £4, unless you have
full membership" against "you are charged £4, even with full membership". And a member of a
list the evidence says is not offered (:func:`unoffered_member_clause`): "runs on Linux, macOS
and Windows" against "It runs on Linux and macOS. Windows is not supported." (it fires on no
row of the training files, session 46). And a change the evidence finds no effect on
(:func:`no_effect_clause`): "which also reduced the survival of worker bees" against "The
researchers did not find any effect on the survival of worker bees" (session 50: no row of the
training files has such a finding; written for model summaries of studies).

A sentence that is negated in one clause is read for its others: "We deliver to ... Northern
Ireland, but not to the Channel Islands." for its first. Auxiliaries ("can", "does") are not
content words here: "can be returned" and "cannot be returned" share "returned". The choices
are measured on the training files only (``scripts/rule_firings.py``; docs/checker.md,
docs/benchmarks.md, sessions 42 to 44).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import NamedTuple

from favakit.inference.year_check import (
    CONFLICT_SCORE,
    content_words,
    matching_sentence,
    negated,
    passage_sentences,
)
from favakit.text import STOPWORDS, plain_words, remembered, split_sentences, undo_ptb

__all__ = [
    "LIST_WORDS",
    "MISSING",
    "SHARED",
    "PolarityConflict",
    "closed_clause",
    "denied_members",
    "denied_words",
    "denying_clause",
    "exception_clause",
    "list_members",
    "no_effect_clause",
    "none_clause",
    "polarity_conflict",
    "statement_denial",
    "statement_denials",
    "unoffered_member_clause",
]

#: Content words of the text's sentence the denying clause may lack, and how many it must share.
MISSING = 1
SHARED = 3
#: The most words a bare denial's thing holds ("No business parking lot."), and what before the
#: claim's words of it puts them in the future or under a condition.
STATEMENT_WORDS = 4
_NOT_NOW = frozenset({"expected", "will", "back", "until", "once", "when", "if", "soon",
                      "whether", "unless", "may", "might", "could", "would"})  # fmt: skip
_BARE_DENIAL = re.compile(r"^\s*(?:no|not)\s+(?P<thing>[^\W\d][^.;:,!?()]*?)\s*[.!]?\s*$",
                          re.IGNORECASE)  # fmt: skip
_BARE_STATE = re.compile(r"^\s*(?:[^\W\d][\w'-]*\s+){0,2}(?P<state>[^\W\d]{4,})\s*[.!]?\s*$")
_BARE_NOT = re.compile(
    r"^\s*(?P<thing>[^\W\d][\w'-]*(?:\s+[\w'-]+){0,2})\s+not\s+(?P<state>[^\W\d]+)\s*[.!]?\s*$",
    re.IGNORECASE,
)
#: The most words a list's middle member holds ("Northern Ireland"); longer, it is a clause.
LIST_WORDS = 3

# where a sentence's statement ends and an adjunct of detail begins: "Emergency waiting times also
# improved*, with* 61% of patients seen within four hours"
_WITH_ADJUNCT = re.compile(r",\s+(?:with|as)\s+")
_CLAUSE_CUT = re.compile(
    r"[;()]|\s+(?:but|although|though|while|whereas|except|however|yet|that)\b"
    r"|,\s*(?:which|who|whom)\b",
    re.IGNORECASE,
)
_DENIAL = re.compile(r"\b(?:not|never|cannot)\b|n['\u2019]t\b", re.IGNORECASE)
_NOT_A_DENIAL = re.compile(
    r"(?:not|n['\u2019]t)\s+(?:only|just|merely|simply|solely|exclusively|entirely|least|until|till|long|"
    r"far|unlike|always|necessarily|all|every|much|quite|yet|to mention)\b"
    r"|never\s+(?:before|again)\b",
    re.IGNORECASE,
)
# a sentence that denies by its words, not by "not": left to the model, as a negated one is
_DENIES_ITSELF = re.compile(
    r"\b(?:no|none|nothing|nobody|neither|nor|without|unable|fail(?:s|ed)?|refuse[sd]?|"
    r"lack(?:s|ed)?|den(?:y|ies|ied))\b",
    re.IGNORECASE,
)
# "there are no late charges on children's books": a thing denied, and what it is denied for
_NONE_FOR = re.compile(
    r"\b(?:there\s+(?:is|are|was|were|will\s+be)\s+)?no\s+(?P<thing>[\w'-]+(?:\s+[\w'-]+)?)"
    r"\s+(?:on|for|to|in|at|from)\s+(?P<scope>[^;.]+)",
    re.IGNORECASE,
)
_MEMBER_CUT = re.compile(r"\s*,\s*|\s+(?:or|and|nor)\s+(?:(?:on|for|to|in|at|from)\s+)?")
_POSSESSIVE = re.compile(r"'s\b")
# opening hours: a claim that says open on a day, an evidence that says closed on it
_DAY_WORD = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?|weekdays?|weekends?"
_DAY = re.compile(rf"\b(?:{_DAY_WORD})\b", re.IGNORECASE)
_OPEN = re.compile(r"\bopens?\b", re.IGNORECASE)
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_CLOSED_ON = re.compile(
    rf"\bclosed\s+(?:on|at)\s+(?:all\s+)?(?P<day>{_DAY_WORD})\b"
    rf"|\b(?P<row>{_DAY_WORD})\s*:\s*closed\b",
    re.IGNORECASE,
)
# "Windows is not supported": a thing, of up to three words, said not to be offered
_NOT_OFFERED_END = re.compile(
    r"(?:is|are)(?:\s+not|n['\u2019]t)\s+"
    r"(?:supported|available|offered|accepted|allowed|included|provided|sold|stocked|affected|covered)\b",
    re.IGNORECASE,
)
_NOT_OFFERED = re.compile(
    r"(?P<subject>[^\W\d_][\w.+'-]*(?:\s+[^\W\d_][\w.+'-]*){0,2})\s+" + _NOT_OFFERED_END.pattern,
    re.IGNORECASE,
)
_PERSONS = frozenset(["you", "your", "we", "our", "they", "their", "them", "us", "me", "my"])
# an exception a claim makes, and an evidence's "even" that holds to the statement there
_EXCEPT = re.compile(r"\b(?:unless|except(?:\s+(?:for|with|if|when))?)\s+(?P<phrase>[^,.;]+)",
                     re.IGNORECASE)  # fmt: skip
_EVEN = re.compile(r"\beven\s+(?:with|if|for|when|though|on)\s+(?P<phrase>[^,.;]+)",
                   re.IGNORECASE)  # fmt: skip
# a claim that something is owed by none: "free of late charges", "fees are waived"
_NOTHING_OWED = re.compile(r"\b(?:free|waive[sd]?|exempt)\b", re.IGNORECASE)
# a comma list: "A, B, C and D" (the first member's start is found by list_members)
_LIST = re.compile(
    r"(?P<before>[^,;]*?)\s*,\s*(?P<middle>[^,;]+?(?:,\s*[^,;]+?)*?)\s*,?\s+(?:and|or)\s+"
    r"(?P<last>[^,;]+)"
)
# a denial of any place or time: it denies a claim's own restriction of place or time too
_ANYWHERE = re.compile(r"\s+(?:\w+\s+)?(?:anywhere|at\s+any\s+time|ever)\b", re.IGNORECASE)
_ANYWHERE_DENIED = re.compile(
    r"(?:\b(?:not|never|cannot)|n['\u2019]t)" + _ANYWHERE.pattern, re.IGNORECASE
)
# where a claim's restriction of time, place or measure starts
_ADJUNCT = re.compile(
    r"\b(?:within|in|on|at|for|after|before|during|until|since|by|over|under|from)\b",
    re.IGNORECASE,
)
# a purpose a claim opens with: "To save space, Tidewater deletes ..."
_PURPOSE = re.compile(r"\s*(?:to|in order to|so as to)\s+[^,;]+,\s*", re.IGNORECASE)
# words that carry no content of a statement's own: "can" is not a word "cannot" lacks
_AUXILIARIES = frozenset(
    [
        "can",
        "cannot",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "should",
        "will",
        "would",
        "do",
        "does",
        "did",
    ]
)
#: words the stopword list keeps that say nothing the evidence must repeat: auxiliaries ("can
#: be returned" and "cannot be returned" share "returned"), whom an instruction is told to
#: ("*You* should take ...") and the "if" of a condition, whose words are read
_NOT_READ = _AUXILIARIES | _PERSONS | {"if"}
_SUFFIX = re.compile(r"(?:ing|ed|es|s|d)$")
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?")


class PolarityConflict(NamedTuple):
    """The text's sentence and the evidence clause that denies it; ``bare`` where that clause
    is a bare statement (:func:`statement_denial`: "No lift.")."""

    sentence: str
    clause: str
    bare: bool = False

    def note(self) -> str:
        """What a verdict says of it."""
        return (f"statement denied: the text says {self.sentence!r} where the evidence says "
                f"{self.clause!r}; P(supported) at most {CONFLICT_SCORE}")  # fmt: skip


def _stem(word: str) -> str:
    """A word's stem, as far as the rule needs one ("covered", "covers" -> "cover")."""
    return _SUFFIX.sub("", word) if len(word) > 4 else word


def _same(a: str, b: str) -> bool:
    """Whether two stems are one word's ("prefer" and "preferr", "return" and "return")."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= 4 and long.startswith(short))


def _read(word: str) -> bool:
    """Whether :func:`_stems` reads a lower-cased ``word``: it is its own content word (not a
    stopword) and no "n't" form."""
    return word in content_words(word) and word not in _NOT_READ


def _stems(text: str) -> list[str]:
    """The stems of ``text``'s content words, in their order."""
    return [
        _stem(w)
        for w in (w.lower().replace("\u2019", "'") for w in _WORD.findall(text))
        if _read(w)
    ]


def _covered(words: set[str], theirs: Sequence[str]) -> set[str]:
    """The stems of ``words`` that one of ``theirs`` is a form of (:func:`_same`): the same
    stem, one of four letters or more it starts with, or one that starts with it (of four
    letters or more), looked up rather than compared with each of ``theirs``."""
    exact = set(theirs)
    ordered = sorted(exact)
    out: set[str] = set()
    for w in words:
        if w in exact or any(w[:k] in exact for k in range(4, len(w))):
            out.add(w)
        elif len(w) >= 4:  # the stems that start with w sit together from the first >= w
            i = bisect.bisect_left(ordered, w)
            if i < len(ordered) and ordered[i].startswith(w):
                out.add(w)
    return out


class _ClauseStems:
    """The stems of a clause's content words (:func:`_stems`), read once, and those from any
    character on, as :func:`_stems` of the rest of the clause reads them."""

    def __init__(self, clause: str) -> None:
        self.clause = clause
        self.found = list(_WORD.finditer(clause))
        self.starts = [m.start() for m in self.found]
        self.stems: list[str] = []
        self.before: list[int] = []  # stems of the words before each word
        for m in self.found:
            self.before.append(len(self.stems))
            w = m.group().lower()
            if _read(w):
                self.stems.append(_stem(w))

    def after(self, at: int) -> list[str]:
        """:func:`_stems` of ``clause[at:]``."""
        k = bisect.bisect_left(self.starts, at)
        if k and self.found[k - 1].end() > at:  # a word across ``at`` reads otherwise there
            return _stems(self.clause[at:])
        return self.stems[self.before[k] :] if k < len(self.found) else []


def _list_coordinates(claim: str) -> list[list[set[str]]]:
    """The comma lists of ``claim`` ("England, Scotland, Wales and Northern Ireland"), each as
    its members' stems (:func:`list_members`)."""
    return [[set(_stems(claim[a:b])) for a, b in members] for members in list_members(claim)]


def _in_lists(words: set[str], covered: set[str], claim: str) -> set[str]:
    """The stems of ``words`` that belong to a coordinate of one of ``claim``'s lists another
    coordinate of which is ``covered`` whole: a list the evidence denies one member of."""
    found: set[str] = set()
    for coordinates in _list_coordinates(claim):
        if any(c and c <= covered for c in coordinates):
            found |= {w for c in coordinates for w in c} & words
    return found


def _adjunct_words(claim: str, covered: set[str]) -> set[str]:
    """The stems of ``claim``'s words from its first preposition of time, place or measure on
    ("within 30 days"), and of a purpose it opens with ("To save space, ..."), where every
    content word before that preposition is ``covered`` but at most :data:`MISSING` ("old" of
    "deletes old files from the source"): what a denial of the rest, with no such words of its
    own, denies as well."""
    rest = _without_purpose(claim)
    opening = set(_stems(claim[: len(claim) - len(rest)]))
    claim = rest
    cut = _ADJUNCT.search(claim)
    if cut is None:
        return set()
    if len(set(_stems(claim[: cut.start()])) - covered) > MISSING:
        return set()
    return opening | set(_stems(claim[cut.start() :]))


def _denies(claim: str) -> bool:
    """Whether a text's sentence or clause is negated ("not", "cannot", "-n't") or denies by its
    words ("no", "without"): the model's to read, as a statement of the same polarity as its
    denial ("residents who cannot visit a branch")."""
    return negated(claim) or bool(_DENIAL.search(claim) or _DENIES_ITSELF.search(claim))


def _without_purpose(claim: str) -> str:
    """``claim`` without a purpose it opens with ("To save space, "): the text's own reason,
    which no evidence sentence need match."""
    purpose = _PURPOSE.match(claim)
    return claim[purpose.end() :] if purpose else claim


def _text_clauses(claim: str) -> list[str]:
    """The clauses of ``claim`` the rule reads: the whole sentence where it is not negated, else
    its clauses (cut as an evidence sentence is) that are not ("We deliver to England, Scotland,
    Wales and Northern Ireland, but not to the Channel Islands." is read for its first clause)."""
    if not _denies(claim):
        head = _WITH_ADJUNCT.split(claim, maxsplit=1)
        return [claim, head[0]] if len(head) > 1 else [claim]
    return [c for c in _CLAUSE_CUT.split(claim) if c and c.strip() and not _denies(c)]


@remembered
def _clauses(sentence: str) -> list[_ClauseStems]:
    """The clauses of an evidence ``sentence`` (:data:`_CLAUSE_CUT`), each with its stems;
    remembered within :func:`~favakit.text.remembering`."""
    return [_ClauseStems(clause) for clause in _CLAUSE_CUT.split(sentence)]


def denying_clause(claim: str, sentence: str) -> str | None:
    """The clause of an evidence ``sentence`` that denies ``claim`` (module doc), or None."""
    if _denies(claim) or not _DENIAL.search(sentence):
        return None
    words = set(_stems(claim))
    if len(words) < SHARED:
        return None
    for read in _clauses(sentence):
        clause = read.clause
        theirs = read.stems
        covered = _covered(words, theirs)
        anywhere = bool(_ANYWHERE_DENIED.search(clause))
        if len(covered) < (2 if anywhere else SHARED):
            continue
        missing = words - covered - _in_lists(words, covered, claim)
        for denial in _DENIAL.finditer(clause):
            if _NOT_A_DENIAL.match(clause, denial.start()):
                continue
            governed = read.after(denial.end())
            if not _covered(set(governed[:2]), sorted(words)):  # the words the denial governs
                continue
            if len(missing) <= MISSING:
                return clause.strip(" ,.")
            # a denial with no words of its own after it denies the claim's restrictions too,
            # and so does one of any place or time ("is not allowed anywhere on the ships")
            own_words = set(governed) - _covered(set(governed), sorted(words))
            if anywhere and _ANYWHERE.match(clause, denial.end()):
                own_words = set()
            if not own_words and len(missing - _adjunct_words(claim, covered)) <= MISSING:
                return clause.strip(" ,.")
    return None


def _members(scope: str) -> list[str]:
    """The members of a denial's scope: "children's books or on items borrowed with a Silver
    card" -> "children's books", "items borrowed with a Silver card"."""
    return [m for m in _MEMBER_CUT.split(scope) if m and m.strip()]


def none_clause(claim: str, sentence: str) -> str | None:
    """The clause of an evidence ``sentence`` that says there is none of what ``claim`` says
    there is, for something the claim names ("There are no late charges on children's books."
    against "Children's books are charged 10p a day when they are returned late."), or None.
    Every content word of the thing denied is one of the claim's (as words or by their stem:
    "charges" is "charged"), and so is every content word of one member of what it is denied
    for; the claim is not negated, does not deny by its words, and says nothing is free,
    waived or exempt."""
    if _denies(claim) or _NOTHING_OWED.search(claim):
        return None
    words = sorted(set(_stems(_POSSESSIVE.sub("", claim))))
    for clause in _CLAUSE_CUT.split(sentence):
        found = _NONE_FOR.search(clause)
        if found is None:
            continue
        thing = set(_stems(found.group("thing")))
        if not thing or _covered(thing, words) != thing:
            continue
        for member in _members(found.group("scope")):
            own = set(_stems(_POSSESSIVE.sub("", member)))  # "children's books": "children" too
            if own and _covered(own, words) == own:
                return clause.strip(" ,.")
    return None


def statement_denial(claim: str, sentence: str) -> str | None:
    """The evidence ``sentence`` where it is a bare denial ("No lift.", "Not in stock.", "Pets
    not allowed.": a record's false value, :mod:`favakit.json_evidence`, or a list's item) of
    a thing or state of :data:`STATEMENT_WORDS` words at most, every content word of which is
    one of ``claim``'s, as words or by their stem ("a building *with a lift*", "is *in stock*
    now"); or a bare statement of a state ("Furnished.") the claim says with "un-", "non-",
    "in-" or "dis-" ("comes *unfurnished*"); else None. A claim that puts the thing in the
    future or under a condition ("is expected *back in stock*", "will be in stock", "if sold
    out") is the model's to read."""
    if _denies(claim):
        return None
    found = _BARE_DENIAL.match(sentence) or _BARE_NOT.match(sentence)
    if found is None:
        return _opposite_of_statement(claim, sentence)
    state = found.groupdict().get("state") or ""
    if state and (
        not state.lower().endswith("ed")
        or _AUXILIARIES & set(_WORD.findall(found.group("thing").lower()))
    ):
        return None  # "Pets not allowed.", not "Poetry will not be."
    thing = _denied_thing(found)
    if len(thing.split()) > STATEMENT_WORDS:
        return None
    own = set(_stems(thing))
    words = _stems(claim)
    if not own or _covered(own, words) != own:
        return None
    lowered = claim.lower()
    for word in own:
        at = next((m.start() for m in _WORD.finditer(lowered) if _same(word, _stem(m.group()))), -1)
        before = set(_WORD.findall(lowered[max(0, at - 30) : at]))
        if before & _NOT_NOW:
            return None
    return sentence.strip(" ,.")


def _opposite_of_statement(claim: str, sentence: str) -> str | None:
    """The evidence ``sentence`` where it is a bare statement of a state ("Furnished.", "Dogs
    allowed.": a record's true value) that ``claim`` says in its negative form ("the flat comes
    *unfurnished*"), else None."""
    found = _BARE_STATE.match(sentence)
    if found is None:
        return None
    negative = _negative_forms(found.group("state"))
    if any(word in negative for word in _WORD.findall(claim.lower())):
        return sentence.strip(" ,.")
    return None


def _negative_forms(state: str) -> tuple[str, ...]:
    """A state's word in its negative forms: "furnished" -> "unfurnished", "nonfurnished", ..."""
    word = state.lower()
    return (f"un{word}", f"non{word}", f"in{word}", f"dis{word}")


def _denied_thing(found: re.Match[str]) -> str:
    """The words a bare denial's match denies: "lift" of "No lift.", "Pets allowed" of "Pets not
    allowed."."""
    return found.group("thing") + " " + (found.groupdict().get("state") or "")


def closed_clause(claim: str, sentence: str) -> str | None:
    """The evidence ``sentence`` where it says closed what ``claim`` says is open on a day
    ("Millbrook is also open on Sundays." against "Millbrook is closed on Sundays." or a table's
    row "Branch: Millbrook; ...; Sunday: closed"): the claim's first name (a capitalised word,
    not a day's nor a function word: what it says is open) is in the sentence, and the sentence
    says closed on a day the claim says it is open; else None."""
    if _denies(claim) or not _OPEN.search(claim):
        return None
    days = {d.lower().rstrip("s") for d in _DAY.findall(claim)}
    names = [w for w in _NAME.findall(claim)
             if w.lower() not in STOPWORDS and not _DAY.fullmatch(w)]  # fmt: skip
    if not days or not names or not re.search(rf"\b{names[0]}\b", sentence):
        return None
    for found in _CLOSED_ON.finditer(sentence):
        said = (found.group("day") or found.group("row") or "").lower().rstrip("s")
        if said in days:
            return sentence.strip(" ,.")
    return None


def exception_clause(claim: str, sentence: str) -> str | None:
    """The evidence ``sentence`` where it holds to a statement "even with" what ``claim``
    excepts from it ("..., you are charged £4, unless you have full membership." against "...,
    you are charged £4, even with full membership."): every content word of the claim's
    exception is one of the evidence's "even" phrase, and the two share :data:`SHARED` content
    words besides; else None."""
    excepted = _EXCEPT.search(claim)
    held = _EVEN.search(sentence)
    if excepted is None or held is None or _denies(claim):
        return None
    theirs = _stems(held.group("phrase"))
    mine = set(_stems(excepted.group("phrase"))) - _PERSONS  # "unless *you* have ..."
    if not mine or _covered(mine, theirs) != mine:
        return None
    rest = set(_stems(claim[: excepted.start()] + claim[excepted.end() :]))
    if len(_covered(rest, _stems(sentence[: held.start()] + sentence[held.end() :]))) < SHARED:
        return None
    return sentence.strip(" ,.")


# "did not find any effect on the survival of worker bees", "had no significant effect on X",
# "did not find any effect of the nap on how well volunteers slept"
_NO_EFFECT = re.compile(
    r"\b(?:no|not\s+(?:find|found|show|shown|see|seen|have|had|detect|detected)\s+(?:any|an?)|"
    r"without\s+any)\s+(?:(?:significant|measurable|clear|detectable|apparent)\s+)?"
    r"(?:effect|impact|influence|change|difference)s?\s+(?:of\s+(?:[\w'-]+\s+){1,4}?)?"
    r"(?:on|in|to)\s+(?P<thing>[^.;,]+)",
    re.IGNORECASE,
)
# a verb of change in the text: "reduced", "increases", "improving", "harmed" ...
_CHANGE = re.compile(
    r"\b(?:reduc|increas|decreas|lower|rais|improv|worsen|harm|boost|declin|shorten|lengthen|"
    r"enhanc|impair|damag)\w*",
    re.IGNORECASE,
)
#: Words after a verb of change that must name what the evidence finds no effect on.
_CHANGED_WITHIN = 6


def no_effect_clause(claim: str, sentence: str) -> str | None:
    """The clause of an evidence ``sentence`` that finds no effect on what ``claim`` says
    something changed ("which also *reduced* the survival of worker bees" against "The
    researchers did not find any effect on the survival of worker bees"): the content words of
    the first five words after "effect on" (two at least, or the one there is) among the
    :data:`_CHANGED_WITHIN` words after the claim's verb of change; else None. A claim that
    denies is the model's to read."""
    if _denies(claim):
        return None
    for found in _NO_EFFECT.finditer(sentence):
        thing = content_words(" ".join(found.group("thing").split()[:5]))
        if not thing:
            continue
        for verb in _CHANGE.finditer(claim):
            after = content_words(" ".join(claim[verb.end() :].split()[:_CHANGED_WITHIN]))
            if len(thing & after) >= min(2, len(thing)):
                return found.group().strip(" ,.")
    return None


def unoffered_member_clause(claim: str, sentence: str, passage: str) -> str | None:
    """The clause of an evidence ``sentence`` that says one member of a list of ``claim`` is not
    supported, available, offered ... ("Windows is not supported" against "Tidewater runs on
    Linux, macOS and Windows."), where that ``passage`` names another member of the list (the
    list is of what the passage speaks of: "It runs on Linux and macOS."); else None. The claim
    is not negated and does not deny by its words."""
    if _denies(claim) or not _NOT_OFFERED_END.search(sentence):
        return None
    for found in _NOT_OFFERED.finditer(sentence):
        subject = plain_words(found.group("subject"))
        for members in list_members(claim):
            names = [plain_words(claim[a:b]) for a, b in members]
            denied = [m for m in names if m and subject[-len(m) :] == m]
            if len(denied) != 1:
                continue
            said = set(plain_words(passage))
            if any(m and m != denied[0] and set(m) <= said for m in names):
                return found.group(0)
    return None


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` of ``text`` without the spaces at either end."""
    part = text[start:end]
    return start + len(part) - len(part.lstrip()), end - len(part) + len(part.rstrip())


def list_members(sentence: str) -> list[list[tuple[int, int]]]:
    """The comma lists of ``sentence`` ("the city centre, the harbour district and Old Town"),
    each as its members' spans: the middle ones between the commas (at most
    :data:`LIST_WORDS` words), the first back from the first comma to a stopword, the last
    after "and" or "or" up to one more word than the longest middle one, or to a stopword after
    its first word ("black, silver and white *with* batch numbers"). A list whose middle is
    a clause is tried again from its second part ("..., with stations in the city centre, the
    harbour district and Old Town")."""
    out = []
    at = 0
    while (found := _LIST.search(sentence, at)) is not None:
        at = found.start("middle")
        a, b = found.span("middle")
        middle = [_trimmed(sentence, a + m.start(), a + m.end())
                  for m in re.finditer(r"[^,]+", sentence[a:b]) if m.group().strip()]  # fmt: skip
        sizes = [len(sentence[s:e].split()) for s, e in middle]
        if not middle or max(sizes) > LIST_WORDS:
            continue
        longest = max(sizes) + 1
        a, b = found.span("before")
        first: list[re.Match[str]] = []
        for word in reversed(list(re.finditer(r"\S+", sentence[a:b]))):
            if word.group().lower().strip(",.") in STOPWORDS or len(first) == longest:
                break
            first.insert(0, word)
        members = [(a + first[0].start(), a + first[-1].end())] if first else []
        a, b = found.span("last")
        last = list(re.finditer(r"[^\s,;!?]+", sentence[a:b].rstrip(" .!?")))[:longest]
        # it ends before a stopword after its first word: "silver and white *with* batch ..."
        cut = next((k for k, w in enumerate(last) if k and w.group().lower() in STOPWORDS), None)
        last = last[:cut]
        members += middle + ([(a + last[0].start(), a + last[-1].end())] if last else [])
        out.append(members)
        at = found.end()
    return out


def denied_members(sentence: str, clause: str) -> list[tuple[int, int]]:
    """The spans of the members of ``sentence``'s lists (:func:`list_members`) whose every
    content word the denying ``clause`` holds, in lists where it does not hold every member:
    "Old Town" of "stations in the city centre, the harbour district and Old Town" against
    "There are no stations in Old Town". Where the evidence denies a list's member, the error
    is that member."""
    theirs = _stems(clause)
    found = []
    for members in list_members(sentence):
        held = []
        for start, end in members:
            own = set(_stems(sentence[start:end]))
            held.append(bool(own) and _covered(own, theirs) == own)
        if any(held) and not all(held):
            found += [m for m, h in zip(members, held, strict=True) if h]
    return found


#: The fewest words in a row a sentence and a denial share for :func:`denied_words`.
DENIED_RUN = 3


def denied_words(sentence: str, clause: str) -> tuple[int, int] | None:
    """The span of ``sentence``'s words that the denying ``clause`` negates: the longest run of
    words (:data:`DENIED_RUN` at least, two of them content words) that the sentence writes as
    the clause does after its negation, starting at one of the two words after it, with an
    auxiliary just before it ("You *should take a double dose* if you have missed one." against
    "Do not take a double dose to make up for a forgotten one"); None where there is none ("did
    not find any effect of the nap on how well volunteers slept": what the text changed is its
    verb, not those words). Against a bare statement ("No lift."), the sentence's words of the
    thing it denies (:func:`_statement_span`)."""
    bare = _statement_span(sentence, clause)
    if bare is not None:
        return bare
    denial = next((d for d in _DENIAL.finditer(clause)
                   if not _NOT_A_DENIAL.match(clause, d.start())), None)  # fmt: skip
    if denial is None:
        return None
    mine = list(_WORD.finditer(sentence))
    theirs = [m.group().lower() for m in _WORD.finditer(clause, denial.end())]
    match = SequenceMatcher(None, [m.group().lower() for m in mine], theirs, autojunk=False)
    at, their_at, size = match.find_longest_match(0, len(mine), 0, len(theirs))
    run = [m.group() for m in mine[at : at + size]]
    if size < DENIED_RUN or len(_stems(" ".join(run))) < 2 or their_at > 1:
        return None  # too short, or not what the negation governs ("not find any effect on")
    first = at - 1 if at and mine[at - 1].group().lower() in _AUXILIARIES else at
    return mine[first].start(), mine[at + size - 1].end()  # "should take": as "do not take"


def _statement_span(sentence: str, clause: str) -> tuple[int, int] | None:
    """Where ``sentence`` says what a bare statement (:func:`statement_denial`) denies: from the
    first of its words that is a word of the thing or state denied to the last ("is *in stock*
    now" against "Not in stock"), or its word in the negative form ("*unfurnished*" against
    "Furnished"); None where ``clause`` is no bare statement."""
    found = _BARE_DENIAL.match(clause) or _BARE_NOT.match(clause)
    if found is None:
        state = _BARE_STATE.match(clause)
        if state is None:
            return None
        negative = _negative_forms(state.group("state"))
        for m in _WORD.finditer(sentence):
            if m.group().lower() in negative:
                return m.start(), m.end()
        return None
    own = set(_stems(_denied_thing(found)))
    at = [m for m in _WORD.finditer(sentence) if m.group().lower() in content_words(m.group())
          and any(_same(w, _stem(m.group().lower())) for w in own)]  # fmt: skip
    if not at:
        return None
    return at[0].start(), at[-1].end()


def statement_denials(text: str, evidence: Sequence[str]) -> list[str]:
    """Every bare statement of the evidence that denies a sentence of ``text``
    (:func:`statement_denial`: "No vegan." and "Not gluten free." of "The risotto is vegan and
    gluten-free."), in the evidence's order, each once."""
    sentences = passage_sentences([undo_ptb(e) for e in evidence])
    found: list[str] = []
    for claim in split_sentences(undo_ptb(text)):
        for part in (c.strip(" ,.;") for c in _text_clauses(claim)):
            for _, sentence in sentences:
                clause = statement_denial(part, sentence)
                if clause is not None and clause not in found:
                    found.append(clause)
    return found


def polarity_conflict(text: str, evidence: Sequence[str]) -> PolarityConflict | None:
    """The first sentence of ``text`` its evidence denies (module doc), or None. A sentence with
    no matching evidence sentence is read against bare denials only (:func:`statement_denial`);
    one with a match against every evidence sentence, each clause of it that is not negated
    (:func:`_text_clauses`)."""
    passages = [undo_ptb(e) for e in evidence]
    sentences = passage_sentences(passages)
    if not sentences:
        return None
    for claim in split_sentences(undo_ptb(text)):
        clauses = _text_clauses(claim)
        if not clauses:
            continue
        matched = matching_sentence(_without_purpose(claim), sentences) is not None
        for part in (c.strip(" ,.;") for c in clauses):
            for i, sentence in sentences:
                if matched:
                    clause = (denying_clause(part, sentence) or none_clause(part, sentence)
                              or closed_clause(part, sentence)
                              or exception_clause(part, sentence)
                              or no_effect_clause(part, sentence))  # fmt: skip
                    if clause is not None:
                        return PolarityConflict(claim, clause)
                # read matched or not: a bare statement shares too few words to be the match
                clause = statement_denial(part, sentence)
                if clause is not None:
                    return PolarityConflict(claim, clause, bare=True)
                if matched:
                    clause = unoffered_member_clause(part, sentence, passages[i])
                    if clause is not None:
                        return PolarityConflict(claim, clause)
    return None
