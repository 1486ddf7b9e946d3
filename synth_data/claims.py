"""Synthetic (claim, evidence, label) pairs for training a claim verifier (``favakit synth
claims``).

Every pair is made from a knowledge source alone; no labelled evaluation data is read. Claims
are the rule decomposer's facts (:class:`~favakit.decompose.RuleFactSplitter`: sentences and
clauses of a passage with pronouns resolved to the article's title), so a verifier trained here
sees the same kind of claim that ``favakit eval factscore --facts rules`` makes. Six kinds:

* ``supported``: a true claim, with evidence that holds its sentence (the passage around it);
* ``error``: the same claim after one of favakit's error-insertion rules (an entity, relation or
  negation swapped), or a sentence the rules invent, subjective or unverifiable, about the same
  topic; same evidence; not supported;
* ``swap``: the same claim with a year, number or name replaced by another of the same kind
  *taken from the evidence*, so that every word of the claim is in the evidence and only the
  roles are wrong; not supported;
* ``related``: a true claim with evidence that is merely related: other passages of its article
  or its own passage without its sentence, kept only when most of the claim's content words are
  missing from the evidence; not supported;
* ``question``: a question made from a claim by asking for one of its names, numbers or years
  (a cloze: "Albert Einstein was born in what year in Ulm?"), with an answer, in one of a few
  question/answer phrasings; supported with the claim's own answer, not supported with another
  answer of the same kind from the evidence (half each);
* ``pair``: two claims from different articles joined by "and", with both passages in the
  evidence (supported), or with one part changed by an error rule or a swap, or one part's
  passage missing (not supported): a claim holds only when every part of it does.

Evidence is one to four passages (the rest drawn from the same article and from others), in a
random order, lower-cased in some pairs (FActScore's Wikipedia passages are lower-cased). Each
row holds the judge prompt of :class:`~favakit.inference.judges.Judge` and the completion
``" True"`` or ``" False"``, so ``favakit train`` trains on it unchanged. Rows are split by
article (no title on both sides), and the same seed gives the same rows.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from favakit.errors import UsageError
from favakit.records import SPLIT_FILES, output_folder, write_jsonl_atomic
from favakit.retrieval.kb import KnowledgeSource, Passage, strip_qualifier
from favakit.synth_data.pipeline import validation_titles
from favakit.text import STOPWORDS, split_sentences

__all__ = ["KINDS", "ClaimConfig", "build_claims", "overlap"]

# shares of the output
KINDS = {
    "supported": 0.32,
    "error": 0.15,
    "swap": 0.15,
    "related": 0.1,
    "question": 0.18,
    "pair": 0.1,
}
_QUESTION_FORMS = (
    'The answer to "{q}" is {a}.',
    "{q} {a}.",
    "Question: {q} Answer: {a}.",
    "Q: {q} A: {a}",
)
_ASK = {"year": "what year", "number": "how many", "person": "who"}  # else "what"
_LOWER_FIRST = frozenset({
    "The", "A", "An", "It", "In", "He", "She", "They", "This", "His", "Her", "Its", "Their", "On",
    "At",
})  # fmt: skip
ERROR_KINDS = {
    "entity": 0.35,
    "relation": 0.1,
    "contradictory": 0.2,
    "invented": 0.15,
    "subjective": 0.1,
    "unverifiable": 0.1,
}
_WORD = re.compile(r"\w+")


@dataclass
class ClaimConfig:
    n: int = 2000
    seed: int = 0
    val_fraction: float = 0.08
    min_words: int = 5
    max_words: int = 35
    passage_words: int = 90  # evidence passages are cut to about this many words
    max_passages: int = 4
    lowercase: float = 0.3  # share of pairs whose evidence is lower-cased
    no_topic: float = 0.15  # share of prompts without a topic (``favakit verify`` rows)
    related_overlap: float = 0.5  # a related pair keeps at most this share of content words
    # which kinds of pair to make (comma-separated); by default those of the shipped verifier's
    # recipe, since the three later kinds trained a worse verifier (docs/verifier.md)
    kinds: str = "supported,error,related"

    def __post_init__(self) -> None:
        if self.n < 1:
            raise UsageError(f"--n must be at least 1, got {self.n}")
        if not 0 <= self.val_fraction < 1:
            raise UsageError(f"--val-fraction must be in [0, 1), got {self.val_fraction}")
        if not 1 <= self.max_passages <= 8:
            raise UsageError(f"--max-passages must be 1-8, got {self.max_passages}")
        unknown = self.kind_set - set(KINDS)
        if unknown or not self.kind_set:
            raise UsageError(
                f"--kinds {self.kinds!r}: choose among {', '.join(KINDS)} (comma-separated)"
            )

    @property
    def kind_set(self) -> set[str]:
        return {k.strip() for k in self.kinds.split(",") if k.strip()}


def _content(text: str, topic: str = "") -> set[str]:
    skip = {w.lower() for w in _WORD.findall(topic)}
    return {w for w in (x.lower() for x in _WORD.findall(text)) if w not in STOPWORDS | skip}


def overlap(claim: str, evidence: list[str], topic: str = "") -> float:
    """Share of the claim's content words (the topic's own words left out) found in the
    evidence."""
    words = _content(claim, topic)
    if not words:
        return 1.0
    found = set().union(*(_content(e) for e in evidence)) if evidence else set()
    return len(words & found) / len(words)


def _cut(sentences: list[str], centre: int, words: int) -> str:
    """Sentences around ``centre`` (kept whole), up to about ``words`` words."""
    lo = hi = centre
    total = len(sentences[centre].split())
    while True:
        grew = False
        for j in (hi + 1, lo - 1):
            if 0 <= j < len(sentences) and total + len(sentences[j].split()) <= words:
                total += len(sentences[j].split())
                lo, hi = min(lo, j), max(hi, j)
                grew = True
        if not grew:
            break
    return " ".join(sentences[lo : hi + 1])


def _pick(rng: random.Random, weights: dict[str, float]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


class _Source:
    """The knowledge source's prose passages, by article, with everything the rules need."""

    def __init__(self, kb: KnowledgeSource) -> None:
        from favakit.synth_data.rules import EntityPools, RuleInserter

        self.by_title: dict[str, list[list[str]]] = defaultdict(list)
        passages: list[Passage] = list(kb.passages())
        for p in passages:
            sentences = [s for s in split_sentences(" ".join(p.text.split())) if s.strip()]
            if sentences:
                self.by_title[p.title].append(sentences)
        if not self.by_title:
            raise UsageError(f"{kb.path}: the knowledge source holds no passages")
        self.titles = sorted(self.by_title)
        pools = EntityPools.from_passages((p.title, p.text) for p in passages)
        self.rules = RuleInserter(pools, forbidden=(w for p in passages for w in p.text.split()))


def _claims_of(source: _Source, title: str, cfg: ClaimConfig) -> list[tuple[int, int, str]]:
    """(passage, sentence, claim) for every usable claim of an article."""
    from favakit.decompose import RuleFactSplitter

    splitter = RuleFactSplitter()
    topic = strip_qualifier(title)
    out = []
    for i, sentences in enumerate(source.by_title[title]):
        for j, sentence in enumerate(sentences):
            for fact in splitter.sentence_facts(sentence, topic):
                if cfg.min_words <= len(fact.split()) <= cfg.max_words and fact[:1].isupper():
                    out.append((i, j, fact))
    return out


def _error_claim(
    source: _Source, claim: str, title: str, rng: random.Random, sentence_rules: bool = True
) -> tuple[str, str] | None:
    """The claim with one error of a type drawn by weight (falling back to the others); with
    ``sentence_rules`` False, only the rules that change the claim in place."""
    weights = {
        t: w for t, w in ERROR_KINDS.items()
        if sentence_rules or t in ("entity", "relation", "contradictory")
    }  # fmt: skip
    first = _pick(rng, weights)
    order = [first] + [t for t in weights if t != first]
    for typ in order:
        tagged, applied = source.rules.insert(claim, title, [typ], rng, limit=1)
        if not applied:
            continue
        if typ in ("invented", "subjective", "unverifiable"):
            # the claim is the new sentence alone
            new = [e.wrong for e in tagged.edits]
            if new and new[0].strip():
                return new[0].strip(), typ
            continue
        text = " ".join(tagged.original().split())
        if text.split() != claim.split():
            return text, typ
    return None


def _around(source: _Source, title: str, passage: int, sentence: int, cfg: ClaimConfig) -> str:
    return _cut(source.by_title[title][passage], sentence, cfg.passage_words)


def _fill(
    source: _Source,
    title: str,
    passage: int,
    chosen: list[tuple[str, str]],
    k: int,
    cfg: ClaimConfig,
    rng: random.Random,
) -> list[tuple[str, str]]:
    """``chosen`` and other passages up to ``k``: some of the same article, the rest of others
    (fewer when the knowledge source has one article); shuffled, lower-cased in a share of
    pairs."""
    article = source.by_title[title]
    others = [i for i in range(len(article)) if i != passage]
    rng.shuffle(others)
    chosen = list(chosen)
    for i in others[: max(0, k - len(chosen) - rng.randint(0, 1))]:
        other = article[i]
        chosen.append((title, _cut(other, rng.randrange(len(other)), cfg.passage_words)))
    # the rest from other articles, if there are any (drawn as before: the same seeds make the
    # same rows)
    while len(chosen) < k and len(source.titles) > 1:
        t = rng.choice(source.titles)
        if t == title:
            continue
        other = rng.choice(source.by_title[t])
        chosen.append((t, _cut(other, rng.randrange(len(other)), cfg.passage_words)))
    rng.shuffle(chosen)
    if rng.random() < cfg.lowercase:
        chosen = [(t.lower(), x.lower()) for t, x in chosen]
    return chosen


def _related(
    source: _Source,
    title: str,
    topic: str,
    passage: int,
    sentence: int,
    claim: str,
    cfg: ClaimConfig,
    rng: random.Random,
) -> list[tuple[str, str]] | None:
    """Evidence that is merely related to the claim: its own passage without its sentence and
    other passages; None when it still holds most of the claim's content words."""
    sentences = source.by_title[title][passage]
    rest = sentences[:sentence] + sentences[sentence + 1 :]
    core = [(title, _cut(rest, min(sentence, len(rest) - 1), cfg.passage_words))] if rest else []
    chosen = _fill(source, title, passage, core, rng.randint(1, cfg.max_passages), cfg, rng)
    if not chosen or overlap(claim, [t for _, t in chosen], topic) > cfg.related_overlap:
        return None
    return chosen


def _swap(
    source: _Source, claim: str, evidence: str, topic: str, rng: random.Random
) -> tuple[int, int, str, str] | None:
    """``(start, end, new, kind)``: one year, number or name of the claim and another of the
    same kind (and as many words) that the evidence holds, neither a part of the topic; None if
    none."""
    from favakit.synth_data.rules import mentions

    first = source.rules.pools.first_names
    topic_words = _content(topic)
    found: dict[tuple[str, int], set[str]] = defaultdict(set)
    for x, y, kind in mentions(evidence, first):
        if not _content(evidence[x:y]) & topic_words:
            found[kind, len(evidence[x:y].split())].add(evidence[x:y])
    spans = [m for m in mentions(claim, first) if not _content(claim[m[0] : m[1]]) & topic_words]
    rng.shuffle(spans)
    for start, end, kind in spans:
        old = claim[start:end]
        options = sorted(
            x for x in found[kind, len(old.split())]
            if x.lower() not in claim.lower() and old.lower() not in x.lower()
        )  # fmt: skip
        if options:
            return start, end, rng.choice(options), kind
    return None


def _question(claim: str, start: int, end: int, kind: str) -> str:
    """The claim as a cloze question asking for ``claim[start:end]``."""
    before, after = claim[:start], claim[end:].rstrip().rstrip(".")
    ask = _ASK.get(kind, "what")
    if not before:
        ask = ask[:1].upper() + ask[1:]
    return " ".join(f"{before}{ask}{after}".split()) + "?"


def _join(first: str, second: str) -> str:
    head, _, rest = second.partition(" ")
    if head in _LOWER_FIRST:
        second = f"{head.lower()} {rest}"
    return f"{first.rstrip().rstrip('.')}, and {second}"


_Claim = tuple[str, int, int, str]  # title, passage, sentence, claim


def _pair(
    source: _Source,
    one: _Claim,
    claims: list[_Claim],
    cfg: ClaimConfig,
    rng: random.Random,
) -> tuple[str, list[tuple[str, str]], bool, str] | None:
    """Two claims from different articles joined by "and": (text, evidence, label, how)."""
    title, passage, _, claim = one
    other = claims[rng.randrange(len(claims))]
    if other[0] == title:
        return None
    parts = [one, other]
    texts = [claim, other[3]]
    core = [(t, _around(source, t, p, j, cfg)) for t, p, j, _ in parts]
    label, how = rng.random() < 0.5, "both"
    if not label:
        i = rng.randrange(2)
        t, c = parts[i][0], parts[i][3]
        roll = rng.random()
        if roll < 0.35:  # one part's passage is missing
            kept = [core[1 - i]]
            if overlap(c, [x for _, x in kept], strip_qualifier(t)) > cfg.related_overlap:
                return None
            core, how = kept, "missing"
        elif roll < 0.7:
            got = _swap(source, c, core[i][1], strip_qualifier(t), rng)
            if got is None:
                return None
            texts[i], how = c[: got[0]] + got[2] + c[got[1] :], "swap"
        else:
            changed = _error_claim(source, c, t, rng, sentence_rules=False)
            if changed is None:
                return None
            texts[i], how = changed[0], changed[1]
    k = max(len(core), rng.randint(2, cfg.max_passages))
    evidence = _fill(source, title, passage, core, k, cfg, rng)
    return _join(texts[0], texts[1]), evidence, label, how


def _one(
    source: _Source,
    one: _Claim,
    claims: list[_Claim],
    kind: str,
    cfg: ClaimConfig,
    rng: random.Random,
    counts: Counter[str],
) -> tuple[str, list[tuple[str, str]], bool, str] | None:
    """(claim text, evidence, label, detail) of one pair of ``kind``; None (counted) when the
    claim does not lend itself to that kind."""
    title, passage, sentence, claim = one
    topic = strip_qualifier(title)
    k = rng.randint(1, cfg.max_passages)
    own = [(title, _around(source, title, passage, sentence, cfg))]
    if kind == "supported":
        return claim, _fill(source, title, passage, own, k, cfg, rng), True, ""
    if kind == "error":
        got = _error_claim(source, claim, title, rng)
        if got is None:
            counts["no_rule_applies"] += 1
            return None
        return got[0], _fill(source, title, passage, own, k, cfg, rng), False, got[1]
    if kind == "related":
        evidence = _related(source, title, topic, passage, sentence, claim, cfg, rng)
        if evidence is None:
            counts["related_too_close"] += 1
            return None
        return claim, evidence, False, ""
    if kind == "pair":
        got_pair = _pair(source, one, claims, cfg, rng)
        if got_pair is None:
            counts["no_pair"] += 1
        return got_pair
    swap = _swap(source, claim, own[0][1], topic, rng)
    if swap is None:
        counts[f"no_{kind}"] += 1
        return None
    start, end, new, what = swap
    evidence = _fill(source, title, passage, own, k, cfg, rng)
    if kind == "swap":
        return claim[:start] + new + claim[end:], evidence, False, ""
    # question: ask for the swapped span; answer it rightly or with the evidence's other option
    label = rng.random() < 0.5
    answer = claim[start:end] if label else new
    form = rng.choice(_QUESTION_FORMS)
    text = form.format(q=_question(claim, start, end, what), a=answer.rstrip("."))
    return text, evidence, label, what


def _rows(source: _Source, cfg: ClaimConfig, counts: Counter[str]) -> Iterator[dict[str, Any]]:
    from favakit.inference.judges import Check, Judge

    claims = [(t, *c) for t in source.titles for c in _claims_of(source, t, cfg)]
    if not claims:
        raise UsageError("no sentence of the knowledge source makes a usable claim")
    order = random.Random(f"claims:{cfg.seed}")
    order.shuffle(claims)
    weights = {k: w for k, w in KINDS.items() if k in cfg.kind_set}
    made, kind = 0, ""
    for n, one in enumerate(itertools.cycle(claims)):
        if made >= cfg.n or n >= 20 * cfg.n:
            break
        rng = random.Random(f"claim:{cfg.seed}:{n}")
        # a kind is drawn for each pair made and kept until a claim lends itself to it, so the
        # weights are the shares of the output
        kind = kind or _pick(rng, weights)
        got = _one(source, one, claims, kind, cfg, rng, counts)
        if got is None:
            continue
        text, evidence, label, detail = got
        topic = "" if rng.random() < cfg.no_topic else strip_qualifier(one[0])
        check = Check(topic, text, [{"title": t, "text": x} for t, x in evidence])
        made += 1
        counts[kind] += 1
        if detail:
            counts[f"{kind}:{detail}"] += 1
        kind_made, kind = kind, ""
        yield {
            "id": f"claim-{cfg.seed}-{n}",
            "prompt": Judge.prompt(check),
            "completion": " True" if label else " False",
            "label": label,
            "kind": kind_made,
            "error_type": detail if kind_made == "error" else None,
            "detail": detail or None,
            "claim": text,
            "topic": topic,
            "evidence": check.passages,
            "source_title": one[0],
        }


def build_claims(kb_path: str | Path, out_dir: str | Path, cfg: ClaimConfig) -> dict[str, Any]:
    """Write ``train.jsonl``, ``validation.jsonl`` and ``stats.json`` under ``out_dir``."""
    if not Path(kb_path).exists():
        raise UsageError(
            f"knowledge source {kb_path} does not exist; build it with favakit kb build"
        )
    out = output_folder(out_dir, writes=SPLIT_FILES, marker="stats.json")
    with KnowledgeSource(kb_path) as kb:
        source = _Source(kb)
    held = validation_titles(set(source.titles), cfg)
    counts: Counter[str] = Counter()
    rows = list(_rows(source, cfg, counts))
    train = [r for r in rows if r["source_title"] not in held]
    val = [r for r in rows if r["source_title"] in held]
    write_jsonl_atomic(out / "train.jsonl", train)
    write_jsonl_atomic(out / "validation.jsonl", val)
    stats = {
        "rows": len(rows),
        "train": len(train),
        "validation": len(val),
        "titles": len(source.titles),
        "validation_titles": len(held),
        "supported_share": round(sum(r["label"] for r in rows) / max(1, len(rows)), 4),
        "counts": dict(sorted(counts.items())),
        "config": cfg.__dict__,
    }
    (out / "stats.json").write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
    return stats
