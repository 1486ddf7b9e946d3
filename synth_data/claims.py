"""Synthetic (claim, evidence, label) pairs for training a claim verifier (``favakit synth
claims``).

Every pair is made from a knowledge source alone; no labelled evaluation data is read. Claims
are the rule decomposer's facts (:class:`~favakit.eval.decompose.RuleFactSplitter`: sentences and
clauses of a passage with pronouns resolved to the article's title), so a verifier trained here
sees the same kind of claim that ``favakit eval factscore --facts rules`` makes. Three kinds:

* ``supported``: a true claim, with evidence that holds its sentence (the passage around it);
* ``error``: the same claim after one of favakit's error-insertion rules (an entity, relation or
  negation swapped), or a sentence the rules invent, subjective or unverifiable, about the same
  topic; same evidence; not supported;
* ``related``: a true claim with evidence that is merely related: other passages of its article
  or its own passage without its sentence, kept only when most of the claim's content words are
  missing from the evidence; not supported.

Evidence is one to four passages (the rest drawn from the same article and from others), in a
random order, lower-cased in some pairs (FActScore's Wikipedia passages are lower-cased). Each
row holds the judge prompt of :class:`~favakit.eval.factscore.Judge` and the completion
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
from favakit.records import write_jsonl_atomic
from favakit.retrieval.kb import KnowledgeSource, Passage, strip_qualifier
from favakit.retrieval.text import split_sentences
from favakit.synth_data.pipeline import validation_titles

__all__ = ["ClaimConfig", "build_claims", "overlap"]

KINDS = {"supported": 0.5, "error": 0.3, "related": 0.2}
ERROR_KINDS = {
    "entity": 0.35,
    "relation": 0.1,
    "contradictory": 0.2,
    "invented": 0.15,
    "subjective": 0.1,
    "unverifiable": 0.1,
}
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an the of in on at to for by with from and or but as is was were are be been being has "
        "had have it its this that these those which who whom whose he she his her they their them "
        "also not no than then there into over under after before during between about",
    )
)
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

    def __post_init__(self) -> None:
        if self.n < 1:
            raise UsageError(f"--n must be at least 1, got {self.n}")
        if not 0 <= self.val_fraction < 1:
            raise UsageError(f"--val-fraction must be in [0, 1), got {self.val_fraction}")
        if not 1 <= self.max_passages <= 8:
            raise UsageError(f"--max-passages must be 1-8, got {self.max_passages}")


def _content(text: str, topic: str = "") -> set[str]:
    skip = {w.lower() for w in _WORD.findall(topic)}
    return {w for w in (x.lower() for x in _WORD.findall(text)) if w not in _STOP | skip}


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
    from favakit.eval.decompose import RuleFactSplitter

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
    source: _Source, claim: str, title: str, rng: random.Random
) -> tuple[str, str] | None:
    """The claim with one error of a type drawn by weight (falling back to the others)."""
    first = _pick(rng, ERROR_KINDS)
    order = [first] + [t for t in ERROR_KINDS if t != first]
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


def _evidence(
    source: _Source,
    title: str,
    topic: str,
    passage: int,
    sentence: int,
    kind: str,
    claim: str,
    cfg: ClaimConfig,
    rng: random.Random,
) -> list[tuple[str, str]] | None:
    """(title, text) passages for one pair; None when a related pair cannot be made."""
    article = source.by_title[title]
    sentences = article[passage]
    k = rng.randint(1, cfg.max_passages)
    chosen: list[tuple[str, str]] = []
    if kind in ("supported", "error"):
        chosen.append((title, _cut(sentences, sentence, cfg.passage_words)))
    else:  # related: its own passage without the sentence, and other passages of the article
        rest = sentences[:sentence] + sentences[sentence + 1 :]
        if rest:
            chosen.append((title, _cut(rest, min(sentence, len(rest) - 1), cfg.passage_words)))
    others = [i for i in range(len(article)) if i != passage]
    rng.shuffle(others)
    for i in others[: max(0, k - len(chosen) - rng.randint(0, 1))]:
        other = article[i]
        chosen.append((title, _cut(other, rng.randrange(len(other)), cfg.passage_words)))
    while len(chosen) < k:
        t = rng.choice(source.titles)
        if t == title:
            continue
        other = rng.choice(source.by_title[t])
        chosen.append((t, _cut(other, rng.randrange(len(other)), cfg.passage_words)))
    if kind == "related" and (
        not chosen or overlap(claim, [t for _, t in chosen], topic) > cfg.related_overlap
    ):
        return None
    rng.shuffle(chosen)
    if rng.random() < cfg.lowercase:
        chosen = [(t.lower(), x.lower()) for t, x in chosen]
    return chosen


def _rows(source: _Source, cfg: ClaimConfig, counts: Counter[str]) -> Iterator[dict[str, Any]]:
    from favakit.eval.factscore import Check, Judge

    claims = [(t, *c) for t in source.titles for c in _claims_of(source, t, cfg)]
    if not claims:
        raise UsageError("no sentence of the knowledge source makes a usable claim")
    order = random.Random(f"claims:{cfg.seed}")
    order.shuffle(claims)
    made = 0
    for n, (title, passage, sentence, claim) in enumerate(itertools.cycle(claims)):
        if made >= cfg.n or n >= 20 * cfg.n:
            break
        rng = random.Random(f"claim:{cfg.seed}:{n}")
        kind = _pick(rng, KINDS)
        text, typ = claim, ""
        if kind == "error":
            got = _error_claim(source, claim, title, rng)
            if got is None:
                counts["no_rule_applies"] += 1
                continue
            text, typ = got
        topic = strip_qualifier(title)
        evidence = _evidence(source, title, topic, passage, sentence, kind, claim, cfg, rng)
        if evidence is None:
            counts["related_too_close"] += 1
            continue
        if rng.random() < cfg.no_topic:
            topic = ""
        label = kind == "supported"
        check = Check(topic, text, [{"title": t, "text": x} for t, x in evidence])
        made += 1
        counts[kind] += 1
        if typ:
            counts[f"error:{typ}"] += 1
        yield {
            "id": f"claim-{cfg.seed}-{n}",
            "prompt": Judge.prompt(check),
            "completion": " True" if label else " False",
            "label": label,
            "kind": kind,
            "error_type": typ or None,
            "claim": text,
            "topic": topic,
            "evidence": check.passages,
            "source_title": title,
        }


def build_claims(kb_path: str | Path, out_dir: str | Path, cfg: ClaimConfig) -> dict[str, Any]:
    """Write ``train.jsonl``, ``validation.jsonl`` and ``stats.json`` under ``out_dir``."""
    if not Path(kb_path).exists():
        raise UsageError(
            f"knowledge source {kb_path} does not exist; build it with favakit kb build"
        )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
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
