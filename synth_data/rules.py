"""Rule-based error insertion: all six FAVA error types, no LLM, deterministic per seed.

Each rule takes a gold passage (split into sentences with their character offsets) and returns
one edit that turns part of it into an error, or ``None`` when the passage offers nothing to
work with:

* ``entity``: a year, number, month or multi-word name swapped for another of the same kind
  (years and numbers shifted, names drawn from the corpus and absent from the passage).
* ``relation``: a relation word swapped for its opposite (won/lost, before/after,
  largest/smallest, ...).
* ``contradictory``: a sentence negated ("was" -> "was not", "won" -> "never won"): the gold
  passage, which is among the references, refutes it.
* ``invented``: a fluent sentence about a made-up work, prize or institution (a name built from
  syllables that appears nowhere in the corpus).
* ``subjective``: an opinion stated as fact.
* ``unverifiable``: a private or personal claim that no source could confirm.

Phrase- and sentence-level replacements keep the original as the correction (``right``); new
sentences are inserted between existing ones with no correction (they are deleted). So the
corrected text of every example is the gold passage again.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from favakit.tags import ERROR_TYPES, Edit, Tagged
from favakit.text import MONTHS as _MONTHS_LOWER
from favakit.text import keep_case, split_sentences

__all__ = ["EntityPools", "RuleInserter", "mentions", "name_kind", "sentence_spans"]

MONTHS = [m.capitalize() for m in _MONTHS_LOWER]
_YEAR_RE = re.compile(r"\b(1[5-9]\d\d|20[0-2]\d)\b")
_NUMBER_RE = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w,]|\.\d)")
_MONTH_RE = re.compile(r"\b(" + "|".join(MONTHS) + r")\b")
_CONNECT = r"(?:of|de|da|del|von|van|der|den|la|le|du|y|al|bin|ibn)"
_NAME_RE = re.compile(
    rf"\b[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?(?:\s+(?:{_CONNECT}\s+)?[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?){{1,3}}\b"
)
# words that start sentences or months: not the first word of a name
_NOT_NAME_START = set(MONTHS) | {
    "The", "A", "An", "In", "On", "At", "He", "She", "It", "They", "His", "Her", "Its", "This",
    "That", "These", "After", "Before", "During", "When", "While", "Although", "However", "As",
    "By", "For", "From", "With", "Since", "Many", "Some", "Most", "Both", "Each", "Other",
}  # fmt: skip

# Opposites, both directions; whole words, case kept.
_RELATION_PAIRS = [
    ("won", "lost"), ("before", "after"), ("largest", "smallest"), ("first", "last"),
    ("increased", "decreased"), ("higher", "lower"), ("more", "less"), ("older", "younger"),
    ("oldest", "youngest"), ("north", "south"), ("east", "west"), ("northern", "southern"),
    ("eastern", "western"), ("above", "below"), ("earliest", "latest"), ("joined", "left"),
    ("began", "ended"), ("opened", "closed"), ("rose", "fell"), ("accepted", "rejected"),
    ("supported", "opposed"), ("larger", "smaller"), ("longest", "shortest"), ("early", "late"),
    ("major", "minor"), ("best", "worst"), ("highest", "lowest"), ("maximum", "minimum"),
    ("inside", "outside"), ("upper", "lower"), ("gained", "lost"), ("founded", "dissolved"),
    ("allowed", "prohibited"), ("strong", "weak"), ("many", "few"), ("success", "failure"),
    ("successful", "unsuccessful"), ("father", "son"), ("mother", "daughter"),
    ("brother", "sister"), ("husband", "wife"), ("predecessor", "successor"), ("won", "lost"),
    ("invaded", "defended"), ("defeated", "lost to"), ("entered", "left"), ("elder", "younger"),
]  # fmt: skip
_OPPOSITE: dict[str, str] = {}
for _a, _b in _RELATION_PAIRS:
    _OPPOSITE.setdefault(_a, _b)
    _OPPOSITE.setdefault(_b, _a)
_OPPOSITE.pop("lost to", None)
_RELATION_RE = re.compile(
    r"\b(" + "|".join(sorted(_OPPOSITE, key=len, reverse=True)) + r")\b", re.I
)

_AUX_RE = re.compile(
    r"\b(is|was|are|were|can|could|will|would|has been|have been|had been)\b(?! not\b| never\b)"
)
_PAST_VERBS = [
    "won",
    "received",
    "founded",
    "wrote",
    "discovered",
    "married",
    "joined",
    "became",
    "published",
    "studied",
    "moved",
    "served",
    "created",
    "invented",
    "developed",
    "composed",
    "directed",
    "produced",
    "designed",
    "built",
    "led",
    "attended",
    "visited",
    "played",
    "recorded",
    "released",
    "signed",
]
_PAST_RE = re.compile(r"\b(" + "|".join(_PAST_VERBS) + r")\b")
_NEGATED_RE = re.compile(r"\b(not|never|no|n't|neither|nor)\b", re.I)

_SYLLABLES = [
    "vel",
    "mar",
    "dor",
    "quin",
    "stad",
    "thal",
    "ber",
    "lund",
    "ov",
    "ric",
    "an",
    "ton",
    "hel",
    "gar",
    "wyn",
    "mos",
    "tra",
    "ven",
    "kel",
    "sor",
    "bra",
    "dal",
    "fen",
    "gris",
    "hol",
    "jor",
    "kas",
    "lem",
    "nor",
    "pel",
    "ruv",
    "sel",
    "tor",
    "ul",
    "vask",
    "wen",
    "zor",
]
_THINGS = [
    "manuscript",
    "expedition",
    "treaty",
    "archive",
    "society",
    "festival",
    "theorem",
    "collection",
]
_INVENTED = [
    "{S} is also associated with the {F} {thing}, first described in {year}.",
    "In {year}, the {F} Institute opened a permanent exhibition devoted to {S}.",
    "The {F} Award, created in {year}, was named in honour of {S}.",
    "A lesser-known chapter in the history of {S} involves the {F} {thing} of {year}.",
    "Scholars often cite the {F} {thing} of {year} as an important source on {S}.",
    "In {year}, a collection of letters known as the {F} Papers was dedicated to {S}.",
]
_SUBJECTIVE_PERSON = [
    "{S} was, without doubt, the most admirable figure of {poss} generation.",
    "Frankly, {S} is far more impressive than any of {poss} contemporaries.",
    "{S} remains one of the most inspiring people who ever lived.",
    "Many would agree that the reputation of {S} is greatly overrated.",
    "{S} had a wonderful character that everyone should try to imitate.",
]
_SUBJECTIVE_THING = [
    "{S} is, without doubt, the most fascinating topic of its kind.",
    "Frankly, {S} is far more interesting than anything comparable.",
    "{S} remains one of the most beautiful subjects anyone could study.",
    "Many would agree that the importance of {S} is greatly overrated.",
    "{S} is simply wonderful, and everyone should learn to love it.",
]
_UNVERIFIABLE_PERSON = [
    "According to a family friend, {S} privately kept a diary of dreams for many years.",
    "People close to {S} say {pron} disliked public speaking more than anything.",
    "{S} reportedly spent one quiet afternoon each week walking alone by the river.",
    "In private, {S} is said to have hummed the same old folk song while working.",
    "A neighbour once claimed that {S} always kept a small clay bird on the desk.",
]
_UNVERIFIABLE_THING = [
    "Some local residents say they have always felt a personal connection to {S}.",
    "A retired teacher once said that {S} was the topic her students remembered best.",
    "Visitors have privately remarked that {S} leaves them with a strange sense of calm.",
    "One unnamed enthusiast claims to have collected every book ever written about {S}.",
    "It is said that a small group of friends meets every spring to talk about {S}.",
]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text`` (as :func:`split_sentences` splits it)."""
    spans = []
    cursor = 0
    for sentence in split_sentences(text):
        start = text.find(sentence, cursor)
        if start < 0:  # whitespace was normalized inside the sentence; give up on the rest
            break
        spans.append((start, start + len(sentence)))
        cursor = start + len(sentence)
    return spans


_ORG_WORDS = {
    "University", "Academy", "Institute", "Society", "Company", "Party", "Museum", "School",
    "College", "Church", "Council", "Association", "Award", "Awards", "Prize", "Foundation",
    "Corporation", "Club", "Laboratory", "Observatory", "Agency", "Army", "Navy", "Court",
    "Committee", "Union", "League", "Orchestra", "Records", "Studios", "Press", "Bank",
}  # fmt: skip
_PLACE_WORDS = {
    "City", "River", "Mountain", "Mountains", "Island", "Islands", "County", "Kingdom", "Republic",
    "Ocean", "Sea", "Lake", "Valley", "Street", "State", "States", "Province", "Park", "Bay",
    "Empire", "Desert", "Coast", "Peninsula", "Region", "District", "Town",
}  # fmt: skip


_LIFE_RE = re.compile(
    r"\((?:born|b\.)\s|\([^()]{0,40}?\d{3,4}\s*[–-]\s*[^()]{0,40}?\d{3,4}\s*\)|\bwas born\b"
)


def name_kind(name: str, first_names: frozenset[str] | set[str] = frozenset()) -> str | None:
    """A coarse kind for a capitalized name, so swaps stay plausible: org, place, person, or
    None when the name could be anything (a work, a ship, a breed): those are never swapped."""
    words = name.split()
    if set(words) & _ORG_WORDS:
        return "org"
    if set(words) & _PLACE_WORDS:
        return "place"
    if words[0] in first_names and len(words) <= 3:
        return "person"
    return None


def _plausible_name(name: str) -> bool:
    words = name.split()
    if words[0] in _NOT_NAME_START or words[-1] in _NOT_NAME_START:
        return False
    # "Academic Historically", "Academy In": adverbs and function words are not name parts
    return not any(w.endswith("ly") or w in _NOT_NAME_START for w in words[1:])


_CAP_WORD_RE = re.compile(r"(?<![\w-])[A-Z][a-z]{2,}(?![\w-])")
_AFTER_LOWER_RE = re.compile(r"(?<![\w-])[a-z]+[,;:]? $")
_BEFORE_NAME_RE = re.compile(r"^ [A-Z]")


def _lone_words(text: str) -> Iterator[tuple[int, int]]:
    """Capitalized words alone inside a sentence: after a lower-case word, before no other name
    ("born in Ulm", not "Mid-America Regional Council")."""
    for m in _CAP_WORD_RE.finditer(text):
        if _AFTER_LOWER_RE.search(text[max(0, m.start() - 30) : m.start()]) and not (
            _BEFORE_NAME_RE.match(text[m.end() : m.end() + 2])
        ):
            yield m.start(), m.end()


def mentions(
    text: str, first_names: frozenset[str] | set[str] = frozenset()
) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of what a question could ask about or a swap could change: years,
    other numbers, names of two to four words (kind from :func:`name_kind`, else ``"name"``) and
    single capitalized words inside a sentence (``"word"``: "Ulm", "German"). In text order."""
    out = [(m.start(1), m.end(1), "year") for m in _YEAR_RE.finditer(text)]
    out += [
        (m.start(1), m.end(1), "number")
        for m in _NUMBER_RE.finditer(text)
        if not _YEAR_RE.fullmatch(m.group(1))
    ]
    names = [
        (m.start(), m.end(), name_kind(m.group(0), first_names) or "name")
        for m in _NAME_RE.finditer(text)
        if _plausible_name(m.group(0))
    ]
    out += names
    out += [
        (a, b, "word")
        for a, b in _lone_words(text)
        if text[a:b] not in _NOT_NAME_START and not any(x <= a < y for x, y, _ in names)
    ]
    return sorted(out)


@dataclass
class EntityPools:
    """Names found in the corpus, by (kind, number of words), for entity swaps.

    People are recognized by first name: the first words of article titles whose lead passage
    gives a birth or a life span ("Albert Einstein (14 March 1879 – 18 April 1955)").
    """

    names: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    first_names: frozenset[str] = frozenset()

    @classmethod
    def from_passages(cls, passages: Iterable[tuple[str, str]], limit: int = 20_000) -> EntityPools:
        """Build from ``(title, text)`` pairs (every passage of a corpus)."""
        items = list(passages)
        first: set[str] = set()
        for title, text in items:
            words = title.split(" (")[0].split()
            if (
                2 <= len(words) <= 3
                and _LIFE_RE.search(text[:300])
                and _plausible_name(" ".join(words))
            ):
                first.add(words[0])
        pools = cls(first_names=frozenset(first))
        seen: dict[tuple[str, int], dict[str, None]] = {}
        for _, text in items:
            for m in _NAME_RE.finditer(text):
                name = m.group(0)
                kind = name_kind(name, pools.first_names)
                if kind is None or not _plausible_name(name):
                    continue
                bucket = seen.setdefault((kind, len(name.split())), {})
                if len(bucket) < limit:
                    bucket[name] = None
        pools.names = {k: sorted(v) for k, v in seen.items()}
        return pools

    def candidates(self, name: str) -> list[str]:
        kind = name_kind(name, self.first_names)
        return [] if kind is None else self.names.get((kind, len(name.split())), [])


def _fake_name(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 3)))).capitalize()


_WORK_NOUNS = {
    "film", "novel", "song", "album", "band", "book", "play", "series", "magazine", "opera",
    "poem", "painting", "ship", "video game", "tv series", "newspaper", "musical", "single", "ep",
}  # fmt: skip


def _subject(title: str) -> str:
    """How a sentence names the article's subject: "Giuseppe Verdi (film)" is "the film
    Giuseppe Verdi", not the composer; other qualifiers are dropped."""
    m = re.match(r"^(.*?)\s*\(([^()]*)\)\s*$", title)
    if not m or not m.group(1):
        return title
    name, qualifier = m.group(1).strip(), m.group(2).strip().lower()
    noun = re.sub(r"^\d{4}\s+", "", qualifier)  # "2000 film" -> "film"
    return f"the {noun} {name}" if noun in _WORK_NOUNS else name


class RuleInserter:
    """Insert errors of the requested types into a passage, deterministically for a given rng."""

    def __init__(self, pools: EntityPools, forbidden: Iterable[str] = ()) -> None:
        self.pools = pools
        # invented names must not exist anywhere in the corpus
        self.forbidden = {w.lower() for w in forbidden}

    # -- phrase and sentence rules: return (start, end, wrong) replacing text[start:end] ------------
    def _entity(
        self, text: str, span: tuple[int, int], rng: random.Random
    ) -> tuple[int, int, str] | None:
        s0, s1 = span
        sent = text[s0:s1]
        options: list[tuple[int, int, str]] = []
        for m in _YEAR_RE.finditer(sent):
            year = int(m.group(1))
            shift = rng.choice([-1, 1]) * rng.randint(2, 30)
            new_year = year + shift if year + shift <= 2024 else year - abs(shift)
            options.append((m.start(1), m.end(1), str(new_year)))
        for m in _NUMBER_RE.finditer(sent):
            raw = m.group(1)
            value = int(raw.replace(",", ""))
            if _YEAR_RE.fullmatch(raw) or value == 0:
                continue
            new_value = (
                value + rng.randint(1, 9)
                if value < 10
                else int(value * rng.choice([0.5, 0.7, 1.4, 2, 3]))
            )
            if new_value == value:
                new_value = value + 1
            new = f"{new_value:,}" if "," in raw else str(new_value)
            options.append((m.start(1), m.end(1), new))
        for m in _MONTH_RE.finditer(sent):
            options.append((m.start(), m.end(), rng.choice([x for x in MONTHS if x != m.group(0)])))
        for m in _NAME_RE.finditer(sent):
            name = m.group(0)
            if not _plausible_name(name):
                continue
            pool = [n for n in self.pools.candidates(name) if n not in text]
            if pool:
                options.append((m.start(), m.end(), rng.choice(pool)))
        if not options:
            return None
        a, b, new = rng.choice(options)
        return s0 + a, s0 + b, new

    def _relation(
        self, text: str, span: tuple[int, int], rng: random.Random
    ) -> tuple[int, int, str] | None:
        s0, s1 = span
        # a capitalized "North" or "Strong" mid-sentence is part of a name: leave it
        found = [
            m
            for m in _RELATION_RE.finditer(text, s0, s1)
            if m.start() == s0 or m.group(0).islower()
        ]
        if not found:
            return None
        m = rng.choice(found)
        word = m.group(0)
        return m.start(), m.end(), keep_case(word, _OPPOSITE[word.lower()])

    def _contradictory(
        self, text: str, span: tuple[int, int], rng: random.Random
    ) -> tuple[int, int, str] | None:
        s0, s1 = span
        sent = text[s0:s1]
        if _NEGATED_RE.search(sent) or len(sent.split()) < 5 or sent.endswith("?"):
            return None
        m = _AUX_RE.search(sent)
        if m is not None:
            aux = m.group(1).split()
            negated = " ".join([aux[0], "not", *aux[1:]])
            return s0, s1, sent[: m.start()] + negated + sent[m.end() :]
        m = _PAST_RE.search(sent)
        if m is not None:
            return s0, s1, sent[: m.start()] + "never " + m.group(1) + sent[m.end() :]
        return None

    # -- inserted sentences ---------------------------------------------------------------------
    def _person(self, title: str, text: str) -> tuple[bool, str, str]:
        """Is the article about a person (a known first name, no work qualifier), and which
        pronouns does the text use for them?"""
        words = re.sub(r"\s*\([^()]*\)\s*$", "", title).split()
        qualified_work = _subject(title).startswith("the ")
        if qualified_work or not 2 <= len(words) <= 4 or words[0] not in self.pools.first_names:
            return False, "it", "its"
        found = re.findall(r"\b(he|his|him|she|her|hers)\b", text.lower())
        male = sum(w in ("he", "his", "him") for w in found)
        return (True, "he", "his") if male >= len(found) - male else (True, "she", "her")

    def _new_sentence(self, kind: str, text: str, title: str, rng: random.Random) -> str:
        subject = _subject(title)
        person, pron, poss = self._person(title, text)
        if kind == "invented":
            fake = _fake_name(rng)
            while fake.lower() in self.forbidden:
                fake = _fake_name(rng)
            years = [int(y) for y in _YEAR_RE.findall(text)] or [rng.randint(1850, 2015)]
            year = min(2020, rng.choice(years) + rng.randint(1, 12))
            template = rng.choice(_INVENTED)
            sentence = template.format(S=subject, F=fake, thing=rng.choice(_THINGS), year=year)
            sentence = re.sub(r"\ba ([aeiou])", r"an \1", sentence).replace("..", ".")
            return sentence[:1].upper() + sentence[1:]
        if kind == "subjective":
            template = rng.choice(_SUBJECTIVE_PERSON if person else _SUBJECTIVE_THING)
        else:
            template = rng.choice(_UNVERIFIABLE_PERSON if person else _UNVERIFIABLE_THING)
        sentence = template.format(S=subject, pron=pron, poss=poss).replace("..", ".")
        return sentence[:1].upper() + sentence[1:]

    # -- all together -----------------------------------------------------------------------------
    def insert(
        self,
        text: str,
        title: str,
        types: Sequence[str],
        rng: random.Random,
        limit: int | None = None,
    ) -> tuple[Tagged, list[str]]:
        """Try each type in order (one edit per type) until ``limit`` applied; returns the tagged
        passage and the types that applied. Replacements never touch a sentence twice."""
        spans = sentence_spans(text)
        used: set[int] = set()
        replace: list[tuple[int, int, str, str]] = []  # start, end, wrong, type
        inserts: list[tuple[int, str, str]] = []  # sentence index to insert after, sentence, type
        applied: list[str] = []
        for typ in types:
            if limit is not None and len(applied) >= limit:
                break
            if typ not in ERROR_TYPES:
                raise ValueError(f"unknown error type {typ!r}")
            if typ in ("invented", "subjective", "unverifiable"):
                after = rng.randrange(len(spans) + 1) if spans else 0
                if any(a == after for a, _, _ in inserts):
                    continue  # one new sentence per gap keeps the text readable
                inserts.append((after, self._new_sentence(typ, text, title, rng), typ))
                applied.append(typ)
                continue
            rule = {
                "entity": self._entity,
                "relation": self._relation,
                "contradictory": self._contradictory,
            }[typ]
            order = [i for i in range(len(spans)) if i not in used]
            rng.shuffle(order)
            for i in order:
                got = rule(text, spans[i], rng)
                if got is not None and got[2] != text[got[0] : got[1]]:
                    replace.append((got[0], got[1], got[2], typ))
                    used.add(i)
                    applied.append(typ)
                    break
        return self._assemble(text, spans, replace, inserts), applied

    @staticmethod
    def _assemble(
        text: str,
        spans: list[tuple[int, int]],
        replace: list[tuple[int, int, str, str]],
        inserts: list[tuple[int, str, str]],
    ) -> Tagged:
        # (position, order, end of the replaced text, edit, separator before, separator after):
        # inserted sentences go at the end of sentence `after - 1`, or before the first one
        events: list[tuple[int, int, int, Edit, str, str]] = []
        for start, end, wrong, typ in replace:
            events.append((start, 1, end, Edit(typ, wrong, text[start:end]), "", ""))
        for after, sentence, typ in inserts:
            if after > 0:
                pos = spans[after - 1][1]
                events.append((pos, 0, pos, Edit(typ, sentence), " ", ""))
            else:
                pos = spans[0][0] if spans else 0
                events.append((pos, 0, pos, Edit(typ, sentence), "", " "))
        events.sort(key=lambda e: (e[0], e[1]))
        segments: list[str | Edit] = []
        cursor = 0
        for pos, _, end, edit, before, after_sep in events:
            segments.extend([text[cursor:pos], before, edit, after_sep])
            cursor = end
        segments.append(text[cursor:])
        return Tagged(segments)
