"""The editor prompt: one builder for training-set preparation and for inference.

FAVA's released code builds the training prompt in one place and the inference prompt in
another, and the two drifted apart. favakit has exactly one function, :func:`build_prompt`, and
both paths call it, with the same template and the same chat formatting.

The shape is the one FAVA trained on::

    Read the following references:
    Reference [1]: ...
    Reference [2]: ...
    Please identify all the errors in the following text using the information in the
    references provided and suggest edits if necessary:
    [Text] <text>
    [Edited] <- the model writes the tagged text from here

Templates:

* ``favakit`` (default): that shape, with each reference's title, an optional question the text
  answers, and an instruction that names the six tags.
* ``fava``: the exact prompt the public FAVA checkpoint (``fava-uw/fava-model``) expects; use it
  to run that checkpoint.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from favakit.tags import ERROR_TYPES

__all__ = [
    "EDITED_MARKER",
    "TEMPLATES",
    "ChatFormatter",
    "ParsedPrompt",
    "PromptTemplate",
    "Reference",
    "build_prompt",
    "drop_references",
    "fewest_references_dropped",
    "parse_prompt",
    "parse_reference",
]

#: The marker after which the model writes its tagged output.
EDITED_MARKER = "[Edited] "


@dataclass(frozen=True)
class Reference:
    """One evidence passage; ``title`` is the article it came from (may be empty)."""

    text: str
    title: str = ""

    @classmethod
    def coerce(cls, ref: str | Reference | Mapping[str, Any]) -> Reference:
        if isinstance(ref, Reference):
            return ref
        if isinstance(ref, str):
            return cls(ref)
        if isinstance(ref, Mapping) and "text" in ref:
            return cls(str(ref["text"]), str(ref.get("title") or ""))
        raise TypeError(f"a reference is a str, a Reference or a mapping with 'text', not {ref!r}")


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    header: str
    instruction: str
    titles: bool  # prefix each reference with its title
    question: bool  # include the optional question the text answers
    no_references: str  # what stands in place of the reference block when there are none

    def reference_line(self, i: int, ref: Reference) -> str:
        body = " ".join(ref.text.split())  # one line per reference, as FAVA trained
        if self.titles and ref.title:
            body = f"({ref.title}) {body}"
        return f"Reference [{i}]: {body}"


_TAG_LIST = ", ".join(f"<{t}>" for t in ERROR_TYPES)

TEMPLATES: dict[str, PromptTemplate] = {
    "favakit": PromptTemplate(
        name="favakit",
        header="Read the following references:",
        instruction=(
            "Please identify all the errors in the following text using the information in the "
            "references provided and suggest edits if necessary. Wrap each error in one of "
            f"{_TAG_LIST}; inside it, put the wrong text in <delete> and any correction in "
            "<mark>. Copy all other text unchanged:"
        ),
        titles=True,
        question=True,
        no_references="No references are available for this text.",
    ),
    # Byte for byte what the public checkpoint was trained on.
    "fava": PromptTemplate(
        name="fava",
        header="Read the following references:",
        instruction=(
            "Please identify all the errors in the following text using the information in the "
            "references provided and suggest edits if necessary:"
        ),
        titles=False,
        question=False,
        no_references="",
    ),
}


class ChatFormatter(Protocol):
    """Anything with Hugging Face's ``apply_chat_template`` (a tokenizer, or a stand-in)."""

    def apply_chat_template(
        self, conversation: list[dict[str, str]], *, tokenize: bool, add_generation_prompt: bool
    ) -> Any: ...


def build_prompt(
    text: str,
    references: Sequence[str | Reference | Mapping[str, Any]] = (),
    *,
    template: str = "favakit",
    question: str | None = None,
    chat: ChatFormatter | None = None,
    system: str | None = None,
) -> str:
    """Build the editor prompt for ``text``; the model's tagged output follows it directly.

    Args:
        text: the passage to check, as it will appear in the original text of the output.
        references: evidence passages, in the order they are shown (most relevant last is the
            retrieval default: nearest the text).
        template: a key of :data:`TEMPLATES` (``"fava"`` for the public FAVA checkpoint).
        question: the prompt the text answers, shown when the template supports it.
        chat: a tokenizer whose chat template wraps the request as a user turn; the
            ``[Edited]`` marker then opens the assistant turn, so the target is unchanged.
        system: optional system message, only with ``chat``.
    """
    if template not in TEMPLATES:
        raise ValueError(f"unknown prompt template {template!r}; choose one of {sorted(TEMPLATES)}")
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    tpl = TEMPLATES[template]
    refs = [Reference.coerce(r) for r in references]
    lines = [tpl.header]
    if refs:
        lines.extend(tpl.reference_line(i, r) for i, r in enumerate(refs, start=1))
    else:  # the fava template keeps an empty evidence line, as the checkpoint saw it
        lines.append(tpl.no_references)
    lines.append(tpl.instruction)
    if tpl.question and question:
        lines.append(f"[Question] {' '.join(question.split())}")
    lines.append(f"[Text] {text}")
    request = "\n".join(lines) + "\n"
    if chat is None:
        if system:
            raise ValueError("a system message needs a chat template (pass chat=tokenizer)")
        return request + EDITED_MARKER
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": request.rstrip("\n")})
    formatted = chat.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    if not isinstance(formatted, str):
        raise TypeError("apply_chat_template(tokenize=False) must return a str")
    return formatted + EDITED_MARKER


@dataclass(frozen=True)
class ParsedPrompt:
    references: list[str]
    text: str
    question: str | None = None


_REF_SPLIT = re.compile(r"(?:^|\n)Reference \[\d+\]:[ \t]*")


def parse_prompt(prompt: str) -> ParsedPrompt:
    """Read the references, question and text back out of an editor prompt (either template,
    and FAVA's released training prompts). Raises ``ValueError`` if it is not one."""
    head, sep, tail = prompt.rpartition("[Text] ")
    if not sep:
        raise ValueError("not an editor prompt: no '[Text] ' marker")
    text, sep2, _ = tail.rpartition("\n[Edited]")
    if not sep2:
        raise ValueError("not an editor prompt: no '[Edited]' marker after the text")
    question = None
    q_head, q_sep, q_tail = head.rpartition("[Question] ")
    if q_sep:
        head, question = q_head, q_tail.strip()
    body = head.split("Read the following references:", 1)[-1]
    # the instruction line ends the reference block
    body = body.rsplit("\nPlease identify", 1)[0]
    parts = _REF_SPLIT.split(body)
    refs = [p.strip() for p in parts[1:] if p.strip()]
    return ParsedPrompt(refs, text, question)


_TITLED = re.compile(r"^\((?P<title>[^()]{1,200})\) (?P<text>.+)$", re.DOTALL)


def parse_reference(body: str) -> Reference:
    """One reference of :func:`parse_prompt` back into a :class:`Reference`: the favakit
    template writes ``(Title) text`` (see ``PromptTemplate.reference_line``)."""
    m = _TITLED.match(body)
    return Reference(m["text"], m["title"]) if m else Reference(body)


_REF_LINE = re.compile(r"^Reference \[(\d+)\]:", re.MULTILINE)


def drop_references(prompt: str, n: int = 1) -> str | None:
    """The prompt with its first ``n`` reference lines removed (the least relevant: references
    are ordered most relevant last) and the rest renumbered; None when it has fewer than ``n``.
    Training uses it to shorten over-long prompts without touching the text or the target."""
    lines = prompt.split("\n")
    ref_idx = [i for i, line in enumerate(lines) if _REF_LINE.match(line)]
    if len(ref_idx) < n:
        return None
    drop = set(ref_idx[:n])
    kept = [line for i, line in enumerate(lines) if i not in drop]
    counter = iter(range(1, len(ref_idx) + 1))
    return "\n".join(
        _REF_LINE.sub(lambda m: f"Reference [{next(counter)}]:", line)
        if _REF_LINE.match(line)
        else line
        for line in kept
    )


def fewest_references_dropped(prompt: str, fits: Callable[[str], bool]) -> tuple[str, int]:
    """``prompt`` with the fewest of its first references dropped (:func:`drop_references`) that
    make ``fits`` true, and how many that is; with all of them dropped where no number does.

    The count is found by halving, so ``fits`` (a tokenizer's count against a budget) is asked
    about log2(n) times for n references, not once per reference dropped: a prompt of 1,131
    passages cut to a model's 8,192 tokens took 937 tokenizations of the whole prompt one at a
    time (46 s). Halving gives the count dropping one at a time would reach because a prompt
    never grows as more references go: each drop removes a whole line, and the renumbering
    that follows only shortens numbers."""
    if fits(prompt):
        return prompt, 0
    total = sum(1 for line in prompt.split("\n") if _REF_LINE.match(line))
    if total == 0:
        return prompt, 0
    fewest = drop_references(prompt, total)
    assert fewest is not None  # total references are there to drop
    if not fits(fewest):
        return fewest, total
    too_few, enough = 0, total  # fits() is false after too_few drops, true after enough
    while enough - too_few > 1:
        middle = (too_few + enough) // 2
        shorter = drop_references(prompt, middle)
        assert shorter is not None
        if fits(shorter):
            enough, fewest = middle, shorter
        else:
            too_few = middle
    return fewest, enough
