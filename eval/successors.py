"""FActScore's successors: molecular facts and D-FActScore.

- **Molecular facts** (Gunjal & Durrett 2024): an atomic fact such as "He was born in 1949" or
  "Lanny Flaherty is an actor" can be true of one bearer of a name and false of another. Before
  verification, :class:`Decontextualizer` asks the LLM whether the fact's subject is ambiguous
  without the response, and only then adds the one detail from the response that identifies it
  ("Lanny Flaherty, the American actor, ...").
- **D-FActScore** (Chiang & Lee 2024): a bio can merge several people who share a name, each
  fact true of one of them. :class:`FactGrouper` groups the facts by the individual they
  describe, :func:`link_groups` links each group to the article, among those sharing the name
  (the bare title, or the name plus a parenthesized qualifier: "Dick Hanley (swimmer)"), that
  supports it most, and each group is verified against its own article only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from favakit.inference.judges import Check, FactJudge, decide
from favakit.llm import GenerationParams, LLMClient

__all__ = ["Decontextualizer", "FactGrouper", "link_groups", "parse_groups"]


class Decontextualizer:
    """Molecular facts: minimal context added only where the subject is ambiguous."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    @staticmethod
    def ambiguity_prompt(topic: str, fact: str) -> str:
        return (
            f"Fact: {fact}\n"
            f"Without other context, could the subject of this fact be more than one real-world "
            f"entity (for example, several people named {topic})? Answer Yes or No.\nAnswer:"
        )

    @staticmethod
    def rewrite_prompt(response: str, fact: str) -> str:
        return (
            "Rewrite the fact so that its subject is unambiguous, adding only the one detail from "
            "the text that identifies the subject (such as an occupation, nationality or date). "
            "Change nothing else and write one sentence.\n\n"
            f"Text: {response}\nFact: {fact}\nRewritten fact:"
        )

    def molecular(self, topic: str, response: str, facts: Sequence[str]) -> list[str]:
        params = GenerationParams(max_tokens=4, temperature=0.0, logprobs=10)
        verdicts = self.client.complete([self.ambiguity_prompt(topic, f) for f in facts], params)
        ambiguous = [i for i, c in enumerate(verdicts) if decide(c)[0]]
        out = list(facts)
        if ambiguous:
            rewrite = GenerationParams(max_tokens=96, temperature=0.0, stop=("\n",))
            done = self.client.complete(
                [self.rewrite_prompt(response, facts[i]) for i in ambiguous], rewrite
            )
            for i, c in zip(ambiguous, done, strict=True):
                line = c.text.strip().splitlines()[0].strip() if c.text.strip() else ""
                out[i] = line or facts[i]
        return out


_NUMBERS = re.compile(r"\d+")


def parse_groups(text: str, n: int) -> list[list[int]]:
    """Groups of fact indices (0-based) from lines of 1-based fact numbers ("Group 1: 1, 3, 4"
    or "1, 3, 4"). A fact in no line joins the first group; a fact in two lines stays in the
    first; numbers out of range are ignored. Always covers every fact exactly once."""
    groups: list[list[int]] = []
    seen: set[int] = set()
    for line in text.splitlines():
        body = line.split(":", 1)[1] if ":" in line else line
        ids = [int(x) - 1 for x in _NUMBERS.findall(body)]
        group = [i for i in ids if 0 <= i < n and i not in seen]
        if group:
            groups.append(group)
            seen.update(group)
    rest = [i for i in range(n) if i not in seen]
    if rest:
        if groups:
            groups[0] = sorted(groups[0] + rest)
        else:
            groups.append(rest)
    return groups


class FactGrouper:
    """Asks the LLM which facts describe the same individual."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    @staticmethod
    def prompt(name: str, facts: Sequence[str]) -> str:
        listed = "\n".join(f"{i}. {f}" for i, f in enumerate(facts, start=1))
        return (
            f"The facts below are about people or things named {name}. Several different "
            f"individuals may share that name. Group the facts by the individual they describe: "
            f"write one line per individual, 'Group K: ' followed by the numbers of its facts, "
            f"separated by commas.\n\n{listed}\n\nGroups:\n"
        )

    def groups(self, name: str, facts: Sequence[str]) -> list[list[int]]:
        if len(facts) <= 1:
            return [list(range(len(facts)))] if facts else []
        params = GenerationParams(max_tokens=16 + 4 * len(facts), temperature=0.0)
        (done,) = self.client.complete([self.prompt(name, facts)], params)
        return parse_groups(done.text, len(facts))


def link_groups(
    name: str,
    facts: Sequence[str],
    groups: Sequence[Sequence[int]],
    candidates: Sequence[str],
    retrieve: Callable[[str, str], list[dict[str, str]]],
    judge: FactJudge,
) -> list[dict[str, Any]]:
    """Link each group to the candidate article that supports most of its facts (ties: the
    first candidate, so the bare title wins), with the verdicts under that article.

    Returns one decision per fact, in fact order: ``{"atom", "is_supported", "group",
    "article"}``."""
    if not candidates:
        raise ValueError(f"no article for {name!r}")
    checks = [
        (g, title, i, Check(title, facts[i], retrieve(title, facts[i])))
        for g, group in enumerate(groups)
        for title in candidates
        for i in group
    ]
    verdicts = judge.judge([c for *_, c in checks]) if checks else []
    support: dict[tuple[int, str], dict[int, bool]] = {}
    for (g, title, i, _), ok in zip(checks, verdicts, strict=True):
        support.setdefault((g, title), {})[i] = bool(ok)
    decisions: list[dict[str, Any] | None] = [None] * len(facts)
    for g, group in enumerate(groups):
        best = max(candidates, key=lambda t: (sum(support[(g, t)].values()), -candidates.index(t)))
        for i in group:
            decisions[i] = {
                "atom": facts[i],
                "is_supported": support[(g, best)][i],
                "group": g,
                "article": best,
            }
    return [d for d in decisions if d is not None]
