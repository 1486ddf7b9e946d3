"""FActScore: the share of a response's atomic facts that its topic's article supports.

For each ``{"topic", "output"}``: a response that declines (:func:`is_abstention`) or has no
facts gets ``decisions = null`` and lowers ``respond_ratio``; otherwise its atomic facts (given in
``atomic_facts``, or written by an LLM from few-shot demonstrations, :class:`AtomicFactGenerator`)
are each checked against ``k`` passages of the topic's article
(:class:`~favakit.retrieval.evidence.TopicRetriever`) by a judge of
:mod:`favakit.inference.judges` (an LLM asked "True or False?", or an editor: a fact it tags is
unsupported). The score averages, over responding outputs, the supported share times the length
penalty ``exp(1 - gamma / n)`` for ``n < gamma`` facts (``init_score``: without the penalty).

The output keeps FActScore's keys and types: ``score``, ``init_score``, ``respond_ratio``,
``decisions`` (null or ``[{"atom", "is_supported"}]`` per input) and
``num_facts_per_response``; favakit adds ``n``, ``usage`` and, when the input carries human
labels, ``agreement``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from favakit.inference.judges import Check, FactJudge
from favakit.llm import GenerationParams, LLMClient
from favakit.text import split_sentences

__all__ = [
    "AtomicFactGenerator",
    "aggregate",
    "agreement",
    "collect_atoms",
    "is_abstention",
    "length_penalty",
    "parse_fact_list",
    "score_outputs",
]

# Phrases with which chat models decline to write about a topic (checked case-insensitively at
# the start of the response, or anywhere for the unambiguous ones).
_DECLINE_START = (
    "i'm sorry",
    "i am sorry",
    "sorry,",
    "i apologize",
    "i cannot",
    "i can't",
    "i could not",
    "i couldn't",
    "i don't have",
    "i do not have",
    "i'm not able",
    "i am not able",
    "i'm unable",
    "i am unable",
    "as an ai",
    "there is no information",
    "there is no reliable information",
)
_DECLINE_ANYWHERE = (
    "i could not find any information",
    "i couldn't find any information",
    "i don't have any information",
    "i do not have any information",
    "no information is available",
    "not aware of any",
    "i have no information",
)


def is_abstention(output: str) -> bool:
    """True for an empty response or one that declines to answer."""
    text = " ".join(output.split()).lower()
    if not text:
        return True
    return text.startswith(_DECLINE_START) or any(p in text for p in _DECLINE_ANYWHERE)


def length_penalty(n: int, gamma: float = 10.0) -> float:
    """FActScore's penalty for short responses: ``exp(1 - gamma / n)`` when ``n < gamma``."""
    if n <= 0:
        raise ValueError("the penalty is defined for responses with at least one fact")
    return 1.0 if gamma <= 0 or n >= gamma else math.exp(1.0 - gamma / n)


def aggregate(
    decisions: Sequence[list[dict[str, Any]] | None], gamma: float = 10.0
) -> dict[str, Any]:
    """FActScore's figures from per-response decisions (None: abstained or no facts)."""
    scored = [d for d in decisions if d]
    raw = [sum(bool(f["is_supported"]) for f in d) / len(d) for d in scored]
    penalised = [r * length_penalty(len(d), gamma) for r, d in zip(raw, scored, strict=True)]
    return {
        "score": sum(penalised) / len(penalised) if penalised else 0.0,
        "init_score": sum(raw) / len(raw) if raw else 0.0,
        "respond_ratio": len(scored) / len(decisions) if decisions else 0.0,
        "decisions": list(decisions),
        "num_facts_per_response": (sum(len(d) for d in scored) / len(scored) if scored else 0.0),
    }


# -- atomic facts -------------------------------------------------------------------------------

_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")


def parse_fact_list(text: str) -> list[str]:
    """Facts from an LLM's ``- fact`` list: bullet, ``*`` or numbered lines, until the first
    line that is not a list item after the list began (the model starting a new example)."""
    facts: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            if facts:
                break
            continue
        m = _BULLET.match(line)
        if m is None:
            if facts:
                break
            continue
        fact = line[m.end() :].strip()
        if fact and fact not in facts:
            facts.append(fact)
    return facts


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class _SmallBM25:
    """BM25 over a few dozen demonstration sentences (pure Python)."""

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.docs = [Counter(_words(d)) for d in docs]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(1, len(self.lengths))
        df: Counter[str] = Counter(w for d in self.docs for w in d)
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.k1, self.b = k1, b

    def best(self, query: str) -> int:
        q = _words(query)
        scores = []
        for doc, length in zip(self.docs, self.lengths, strict=True):
            s = 0.0
            for w in q:
                tf = doc.get(w, 0)
                if tf:
                    norm = tf + self.k1 * (1 - self.b + self.b * length / self.avg)
                    s += self.idf[w] * tf * (self.k1 + 1) / norm
            scores.append(s)
        return max(range(len(scores)), key=lambda i: (scores[i], -i))


class AtomicFactGenerator:
    """Sentence split, then each sentence broken into facts by an LLM shown ``fixed`` demos (the
    first of ``demos``) plus the remaining demo most similar to the sentence (BM25).

    ``demos``: FActScore's demo format ``{sentence: [facts]}``.
    """

    INSTRUCTION = "Break the following sentence into independent facts, one per line:"

    def __init__(
        self,
        client: LLMClient,
        demos: Mapping[str, Sequence[str]],
        fixed: int = 7,
        max_tokens: int = 256,
    ) -> None:
        if not demos:
            raise ValueError("atomic fact generation needs at least one demonstration")
        self.client = client
        items = list(demos.items())
        self.fixed = items[:fixed]
        self.pool = items[fixed:]
        self.bm25 = _SmallBM25([s for s, _ in self.pool]) if self.pool else None
        self.max_tokens = max_tokens

    def _block(self, sentence: str, facts: Sequence[str] | None) -> str:
        head = f"{self.INSTRUCTION} {sentence}\n"
        return head + ("".join(f"- {f}\n" for f in facts) + "\n" if facts is not None else "")

    def prompt(self, sentence: str) -> str:
        shots = list(self.fixed)
        if self.bm25 is not None:
            shots.append(self.pool[self.bm25.best(sentence)])
        return "".join(self._block(s, f) for s, f in shots) + self._block(sentence, None)

    def facts(self, outputs: Sequence[str]) -> list[list[str]]:
        """Atomic facts of each output (sentence order kept), generated in one batch."""
        sentences = [split_sentences(o) for o in outputs]
        flat = [s for group in sentences for s in group]
        params = GenerationParams(max_tokens=self.max_tokens, temperature=0.0, stop=("\n\n",))
        done = self.client.complete([self.prompt(s) for s in flat], params)
        it = iter(done)
        result = []
        for group in sentences:
            facts: list[str] = []
            for _ in group:
                facts += [f for f in parse_fact_list(next(it).text) if f not in facts]
            result.append(facts)
        return result


# -- scoring a file -----------------------------------------------------------------------------


def collect_atoms(
    rows: Sequence[Mapping[str, Any]],
    facts: Any = None,
    use_atomic_facts: bool = False,
) -> dict[int, list[str]]:
    """Atomic facts of every row that responds (abstentions are left out). ``facts``: an
    :class:`AtomicFactGenerator`, or a :class:`~favakit.decompose.RuleFactSplitter` (which
    is told each row's topic)."""
    todo = [i for i, r in enumerate(rows) if not is_abstention(str(r.get("output") or ""))]
    if use_atomic_facts:
        return {i: [str(f) for f in rows[i].get("atomic_facts") or []] for i in todo}
    if facts is None:
        raise ValueError("give an AtomicFactGenerator, or use_atomic_facts=True")
    if hasattr(facts, "topics"):
        facts.topics = [str(rows[i].get("topic") or "") for i in todo]
    generated = facts.facts([str(rows[i]["output"]) for i in todo])
    return dict(zip(todo, generated, strict=True))


def score_outputs(
    rows: Sequence[Mapping[str, Any]],
    retrieve: Callable[[str, str], list[dict[str, str]]],
    judge: FactJudge,
    facts: Any = None,
    use_atomic_facts: bool = False,
    atoms: Mapping[int, list[str]] | None = None,
) -> list[list[dict[str, Any]] | None]:
    """Decisions for ``rows`` (``{"topic", "output", "atomic_facts"?}``), in order; ``atoms``
    (from :func:`collect_atoms`, possibly rewritten) skips collecting them again."""
    if atoms is None:
        atoms = collect_atoms(rows, facts, use_atomic_facts)
    checks = [
        (i, Check(str(rows[i]["topic"]), fact, retrieve(str(rows[i]["topic"]), fact)))
        for i in sorted(atoms)
        for fact in atoms[i]
    ]
    verdicts = judge.judge([c for _, c in checks]) if checks else []
    decisions: list[list[dict[str, Any]] | None] = [None] * len(rows)
    for (i, check), ok in zip(checks, verdicts, strict=True):
        decisions[i] = (decisions[i] or []) + [{"atom": check.fact, "is_supported": bool(ok)}]
    return decisions


def agreement(
    decisions: Sequence[list[dict[str, Any]] | None],
    labels: Sequence[Mapping[str, str] | None],
) -> dict[str, Any]:
    """Per-fact agreement with human labels (``{atom: "S" | "NS"}`` per response; facts
    without a label are left out): accuracy, and precision/recall/F1 of each class."""
    from favakit.eval.detect import prf

    pairs = [
        (bool(f["is_supported"]), ls[f["atom"]] == "S")
        for d, ls in zip(decisions, labels, strict=True)
        if d and ls
        for f in d
        if ls.get(f["atom"]) in ("S", "NS")
    ]
    if not pairs:
        return {"facts": 0}
    correct = sum(p == g for p, g in pairs)
    out: dict[str, Any] = {"facts": len(pairs), "accuracy": round(correct / len(pairs), 4)}
    for name, positive in (("S", True), ("NS", False)):
        tp = sum(p == positive and g == positive for p, g in pairs)
        fp = sum(p == positive and g != positive for p, g in pairs)
        fn = sum(p != positive and g == positive for p, g in pairs)
        out[name] = {**prf(tp, fp, fn), "support": tp + fn}
    out["human_supported_share"] = round(sum(g for _, g in pairs) / len(pairs), 4)
    return out
