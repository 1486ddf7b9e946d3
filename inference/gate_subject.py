"""Whom a sentence of a text is about, as the gate reads it: the request's topic or the name the
text opens with, another person where the text has turned to one (:func:`subject_of`), and a
sentence with its opening "He" or "She" read as that subject (:func:`decontextualized`), as
the gate's judge scores it."""

from __future__ import annotations

from favakit.decompose import leading_name, read_with_question, resolve_opening_person
from favakit.text import sentence_spans, states_nothing

__all__ = ["decontextualized", "person_turned_to", "pronouns_mean", "subject_of"]


def subject_of(topic: str | None, text: str, at: int | None = None) -> str:
    """Whom ``text`` is about: the request's ``topic``, else the name ``text`` opens with. At
    character ``at``, where given: the name of another person a sentence up to ``at`` opens
    with, where the text has turned to one (:func:`person_turned_to`: "Albert Einstein was born
    in Ulm in 1879." in a text about Marie Curie), so that a fix there takes that person's
    evidence."""
    subject = topic or leading_name(text)
    if at is None:
        return subject
    return person_turned_to(subject, text, at) or subject


def person_turned_to(subject: str, text: str, at: int) -> str:
    """The name of two words or more, sharing no word with ``subject``, that the nearest
    sentence of ``text`` starting up to character ``at`` opens with, unless a later one up to
    ``at`` opens with the subject's name again ("Curie won ..."); "" when there is none."""
    mine = set(subject.split())
    other = ""
    for a, b in sentence_spans(text):
        if a > at:
            break
        name = leading_name(text[a:b]).split()
        if len(name) >= 2 and not mine & set(name):
            other = " ".join(name)
        elif mine & set(name):
            other = ""
    return other


def decontextualized(sentence: str, topic: str | None, text: str, at: int | None = None) -> str:
    """``sentence`` of ``text`` (at character ``at``, where known) as the gate scores it: an
    opening "He" or "She" replaced by its subject (:func:`subject_of`: "She won ..." scored as
    "Marie Curie won ..."), when that is a name (no digit in it) and the text has not turned to
    another person before it (:func:`person_turned_to`: then the pronoun stays, as it may mean
    either). "It", "They" and possessives are left as they are: in summaries and
    dialogues the words a text opens with ("Q3 revenue", "Sees FY EPS") are rarely what they
    refer to. Chosen on the development split (docs/benchmarks.md, session 34): resolving every
    pronoun and possessive to the opening name lowered the gate's balanced accuracy there, 0.833
    -> 0.812 (summaries 0.792 -> 0.748; session 35's rerun). An answer to a labelled question
    reads its "it" as what the question asks about (:func:`~favakit.decompose.read_with_question`:
    "A: Leonardo da Vinci painted it." after "Q: Who painted the Mona Lisa?")."""
    read = resolve_opening_person(sentence, pronouns_mean(topic, text, at))
    asked = _question_before(text, at) if at is not None else ""
    return read_with_question(read, asked) if asked else read


def _question_before(text: str, at: int) -> str:
    """The labelled question (:func:`~favakit.text.states_nothing`, "Q: ...?") that is the
    sentence of ``text`` just before character ``at``, else ""."""
    window = text[max(0, at - 400) : at]  # a question is a line: no need to split the whole text
    if "?" not in window:
        return ""
    before = [window[a:b] for a, b in sentence_spans(window)]
    last = before[-1].strip() if before else ""
    return last if last.endswith("?") and states_nothing(last) else ""


def pronouns_mean(topic: str | None, text: str, at: int | None = None) -> str:
    """Whom an opening "He" or "She" of ``text`` at character ``at`` is read as: its
    :func:`subject_of`, when that is a name (no digit in it) and the text has not turned to
    another person before ``at`` (:func:`person_turned_to`); else "" (left as it is)."""
    subject = subject_of(topic, text)
    if any(c.isdigit() for c in subject):
        return ""
    if at is not None and person_turned_to(subject, text, at):
        return ""
    return subject
