"""Atomic facts without a model: sentences, clauses and list items, made self-contained.

SmolLM2-135M, prompted with FActScore's demonstrations, splits a bio into word fragments.
:class:`RuleFactSplitter` instead applies a few rules to each sentence:

1. a pronoun that refers to the topic becomes the topic ("She worked with Babbage" -> "Ada
   Lovelace worked with Babbage", "her notes" -> "Ada Lovelace's notes");
2. a non-restrictive relative clause (", which ...", ", who ...") becomes a fact of its own about
   the words just before it ("on her Engine, which was never built" -> "Ada Lovelace's Engine
   was never built");
3. a list ("A, B, and C"; quoted titles) becomes one fact per item, each with the words that
   introduce the list ("her notes include A, B and C" -> three facts).

It has the interface of :class:`~favakit.eval.factscore.AtomicFactGenerator` (``facts``), and
``scripts/bench_verify.py`` compares its facts with the human atoms of the Flaherty bio.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from favakit.text import STOPWORDS, is_heading, list_marker_end, split_sentences

__all__ = [
    "RuleFactSplitter", "fact_coverage", "leading_name", "read_with_question",
    "resolve_opening_person", "resolve_pronouns",
]  # fmt: skip

_PRONOUN = re.compile(r"^(He|She|They|It)\b", re.IGNORECASE)
_OPENING_PERSON = re.compile(r"^(\s*)(?:He|She)\b")
_POSSESSIVE = re.compile(r"\b(his|her|their|its)\b(?=\s+\w)", re.IGNORECASE)
_RELATIVE = re.compile(r",\s+(which|who|whose|where)\s+", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“]([^\"”]+?)[,.]?[\"”]")
_WORD = re.compile(r"\w+")
_PIVOTS = {"for", "in", "of", "as", "at", "with", "include", "includes", "including", "by"}


def _possessive(topic: str) -> str:
    return topic + ("'" if topic.endswith("s") else "'s")


def resolve_pronouns(sentence: str, topic: str) -> str:
    """Pronouns that refer to the topic, replaced by it (in a bio, "he"/"she" is the topic)."""
    if not topic:
        return sentence
    out = _PRONOUN.sub(topic, sentence, count=1)
    out = re.sub(r"\b(he|she|him)\b", topic, out)
    return _POSSESSIVE.sub(lambda m: _possessive(topic), out)


def resolve_opening_person(sentence: str, topic: str) -> str:
    """Only an opening "He" or "She" replaced by the topic ("She won ..." -> "Marie Curie won
    ...", after a list item's marker too): the narrow form of :func:`resolve_pronouns`, for
    text that need not be a bio."""
    if not topic:
        return sentence
    at = list_marker_end(sentence)  # "2. He died ..." -> "2. Isaac Newton died ..."
    return sentence[:at] + _OPENING_PERSON.sub(lambda m: m.group(1) + topic, sentence[at:], count=1)


# "Q: Who painted the Mona Lisa?": the verb, then what the question asks about
_ASKED_ABOUT = re.compile(
    r"^\s*(?:Q|Question)\s*:\s*(?:Who|What|Which\s+\w+)\s+(\w+)\s+(.+?)\s*\?\s*$", re.I
)
_ANSWER_LABEL = re.compile(r"^\s*(?:A|Answer)\s*:\s+")
_IT = re.compile(r"\b(?:it|It)\b")
# "What did he lead ...?", "Who was ...?": no object follows these
_ASKED_AUXILIARIES = frozenset({
    "is", "was", "are", "were", "be", "been", "do", "does", "did", "has", "have", "had", "can",
    "could", "will", "would", "should", "may", "might", "must",
})  # fmt: skip


def read_with_question(answer: str, question: str) -> str:
    """A labelled answer's first "it" read as what its labelled question asks about: "A:
    Leonardo da Vinci painted it." after "Q: Who painted the Mona Lisa?" -> "A: Leonardo da
    Vinci painted the Mona Lisa.", so that the answer is checked as the statement it makes.
    Only for a question "Who/What/Which X <verb> <object>?" (not "What did he lead ...?", whose
    object is the answer) and an answer labelled "A:" or "Answer:"; else ``answer`` as it is."""
    asked = _ASKED_ABOUT.match(question)
    label = _ANSWER_LABEL.match(answer)
    if not asked or not label or asked.group(1).lower() in _ASKED_AUXILIARIES:
        return answer
    about = asked.group(2)
    body = answer[label.end() :]
    it = _IT.search(body)
    if it is None:
        return answer
    said = about[:1].upper() + about[1:] if it.group() == "It" else about
    return answer[: label.end()] + body[: it.start()] + said + body[it.end() :]


_POSSESSIVE_END = re.compile(r"(?<=s)'$|'s$")
_NAME = re.compile(r"^(?:The\s+)?([A-Z][\w'.-]*(?:\s+(?:(?:of|de|von|van|the)\s+)?[A-Z][\w'.-]*)*)")


def leading_name(text: str) -> str:
    """The capitalised name a text opens with (``"Marie Curie was ..."`` -> ``"Marie Curie"``;
    a possessive's "'s" aside: ``"Okafor's first ..."`` -> ``"Okafor"``), past Markdown
    headings, lines that open with a question, a list item's marker and bold or italic marks:
    the usual topic of a bio or an encyclopedic paragraph; ``""`` when it opens otherwise."""
    lines = text.strip().splitlines()
    while lines and (not lines[0].strip() or is_heading(lines[0])
                     or split_sentences(lines[0])[0].endswith("?")):  # fmt: skip
        lines.pop(0)  # "## Early life", "Q: When was Alan Turing born?"
    text = "\n".join(lines).strip()
    m = _NAME.match(text[list_marker_end(text) :].lstrip("*_"))  # "1. **Marie Curie** was"
    name = _POSSESSIVE_END.sub("", m.group(1)) if m else ""  # "Okafor's first commission"
    first = name.split()[0].lower().rstrip(".").split("-")[0] if name else ""  # "Twenty-two"
    return "" if _PRONOUN.match(name) or first in STOPWORDS | _OPENERS else name


# capitalised words that open a sentence without naming anyone ("Both Leonardo and Galileo
# ...", "Some of his films ...", "When ...", "You can return ...", "Forty of the homes ...");
# function words (STOPWORDS) too
_OPENERS = frozenset({
    "both", "some", "many", "most", "several", "all", "each", "every", "few", "when", "where",
    "what", "why", "how", "who", "which", "while", "although", "though", "today", "yesterday",
    "during", "since", "because", "if", "however", "there", "here", "then", "thus", "yes",
    "you", "your", "we", "our", "i", "my", "us",
    # a number opens a sentence without naming anyone ("Forty of the homes will be let ...")
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred",
    "hundreds", "thousand", "thousands", "dozens", "half", "about", "nearly", "almost", "over",
    "more", "fewer", "less", "only",
})  # fmt: skip


def _end(text: str) -> str:
    text = text.strip().rstrip(",;:")
    return text if text.endswith((".", "!", "?")) else text + "."


def _list_items(clause: str) -> tuple[str, list[str]] | None:
    """(the words before the list, its items) when ``clause`` holds a list of 2+ items."""
    quoted = _QUOTED.findall(clause)
    if len(quoted) >= 2:
        head = clause[: clause.find(quoted[0]) - 1].rstrip(" :")
        return head, [q.strip() for q in quoted]
    body = clause.rstrip(".")
    parts = [p.strip() for p in re.split(r",\s+(?:and\s+|or\s+)?|\s+and\s+", body)]
    if len(parts) < 2 or any(not p for p in parts) or any(p[:1].isdigit() for p in parts[1:]):
        return None  # digits are dates ("December 18, 1949"): not a list
    tails = parts[1:]
    if len({p[:1].isupper() for p in tails}) > 1:
        return None  # "by Peter Hyams and starring A, B, and C": two lists, not one
    if any(len(p.split()) > 6 for p in tails[:-1]) or (
        len(parts) == 2 and len(tails[0].split()) > 4
    ):
        return None  # long pieces are clauses
    width = max(
        1, round(sum(len(p.split()) for p in tails[:-1] or tails) / len(tails[:-1] or tails))
    )
    tails[-1] = " ".join(tails[-1].split()[: max(width, 1)])  # drop "... throughout her life"
    first_words = parts[0].split()
    pivots = [i for i, w in enumerate(first_words[:-1]) if w.lower() in _PIVOTS]
    if pivots and len(first_words) - pivots[-1] - 1 <= width + 3:
        cut = pivots[-1] + 1  # the list starts after "in", "for", "include", ...
    elif len(first_words) > width + 1:
        cut = len(first_words) - width
    else:
        return None
    return " ".join(first_words[:cut]), [" ".join(first_words[cut:]), *tails]


class RuleFactSplitter:
    """Atomic facts of each output by rules; ``topics`` name what pronouns refer to."""

    def __init__(self, topics: Sequence[str] | None = None) -> None:
        self.topics = list(topics or [])

    def sentence_facts(self, sentence: str, topic: str = "") -> list[str]:
        sentence = resolve_pronouns(sentence.strip(), topic)
        clauses = [sentence]
        m = _RELATIVE.search(sentence)
        if m:
            main = sentence[: m.start()]
            before = main.split()
            # what the clause is about: the words after the last preposition ("known for her
            # notes and essays, which"), or the last two ("her engine, which")
            cuts = [i for i, w in enumerate(before) if w.lower() in _PIVOTS | {"throughout", "on"}]
            if cuts and 0 < len(before) - cuts[-1] - 1 <= 8:
                antecedent = " ".join(before[cuts[-1] + 1 :])
            else:
                antecedent = " ".join(before[-2:]) if len(before) >= 2 else main
                if topic and before[-2:-1] == [_possessive(topic).split()[-1]]:
                    antecedent = f"{_possessive(topic)} {before[-1]}"
            rest = sentence[m.end() :]
            clauses = [main, f"{antecedent} {rest}" if m.group(1).lower() != "whose" else rest]
        facts: list[str] = []
        for clause in clauses:
            found = _list_items(clause)
            if found is None:
                facts.append(_end(clause))
                continue
            head, items = found
            facts += [_end(f"{head} {item}") for item in items]
        return facts

    def facts(self, outputs: Sequence[str]) -> list[list[str]]:
        out = []
        for n, text in enumerate(outputs):
            topic = self.topics[n] if n < len(self.topics) else ""
            out.append([f for s in split_sentences(text) for f in self.sentence_facts(s, topic)])
        return out


def _tokens(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _f1(a: str, b: str) -> float:
    ta, tb = _tokens(a), _tokens(b)
    common = sum(min(ta.count(w), tb.count(w)) for w in set(ta))
    return 2 * common / (len(ta) + len(tb)) if common else 0.0


def fact_coverage(
    generated: Sequence[str], human: Sequence[str], threshold: float = 0.7
) -> dict[str, float]:
    """How generated facts line up with human atoms: the share of human atoms with a generated
    fact of word-overlap F1 >= ``threshold``, and the share of generated facts matching one."""
    covered = sum(any(_f1(h, g) >= threshold for g in generated) for h in human)
    precise = sum(any(_f1(g, h) >= threshold for h in human) for g in generated)
    return {
        "generated": len(generated),
        "human": len(human),
        "human_covered": round(covered / len(human), 4) if human else 0.0,
        "generated_matching": round(precise / len(generated), 4) if generated else 0.0,
    }
