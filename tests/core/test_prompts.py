from __future__ import annotations

from typing import Any

import pytest

from favakit.prompts import EDITED_MARKER, TEMPLATES, Reference, build_prompt
from favakit.tags import ERROR_TYPES

# The prompt the public FAVA checkpoint was trained on, spelled out by hand.
FAVA_EXPECTED = (
    "Read the following references:\n"
    "Reference [1]: Lester del Rey wrote the novel.\n"
    "Reference [2]: It appeared in 1952.\n"
    "Please identify all the errors in the following text using the information in the "
    "references provided and suggest edits if necessary:\n"
    "[Text] It was written by Andy Weir.\n"
    "[Edited] "
)


def test_fava_template_matches_the_checkpoint_prompt() -> None:
    refs = [Reference("Lester del Rey wrote the novel.", title="Nerves"), "It appeared in 1952."]
    got = build_prompt("It was written by Andy Weir.", refs, template="fava", question="ignored")
    assert got == FAVA_EXPECTED


def test_fava_template_without_references_keeps_the_empty_evidence_line() -> None:
    got = build_prompt("T.", [], template="fava")
    assert got.startswith("Read the following references:\n\nPlease identify")


def test_favakit_template_shows_titles_question_and_tags() -> None:
    got = build_prompt(
        "Text here.",
        [{"title": "Nerves (novel)", "text": "A  novel\nby del Rey."}],
        question="Who wrote Nerves?",
    )
    assert "Reference [1]: (Nerves (novel)) A novel by del Rey.\n" in got
    assert "[Question] Who wrote Nerves?\n[Text] Text here.\n" in got
    assert all(f"<{t}>" in got for t in ERROR_TYPES)
    assert got.endswith(EDITED_MARKER)


def test_no_references_is_said_plainly() -> None:
    got = build_prompt("x")
    assert TEMPLATES["favakit"].no_references in got
    assert "Reference [1]" not in got


def test_text_is_kept_verbatim() -> None:
    text = "Line one.\n  Line two with  double spaces.\n"
    assert f"[Text] {text}\n[Edited] " in build_prompt(text)


class FakeChatTokenizer:
    """Stands in for a tokenizer's chat template (formatting only, no model)."""

    def apply_chat_template(
        self, conversation: list[dict[str, str]], *, tokenize: bool, add_generation_prompt: bool
    ) -> Any:
        assert tokenize is False and add_generation_prompt is True
        body = "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in conversation)
        return body + "<|assistant|>"


def test_chat_template_wraps_the_request_and_opens_the_answer_with_the_marker() -> None:
    got = build_prompt("x", ["ref"], template="fava", chat=FakeChatTokenizer(), system="sys")
    assert got.startswith("<|system|>sys<|end|><|user|>Read the following references:")
    assert got.endswith("[Text] x<|end|><|assistant|>[Edited] ")


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown prompt template"):
        build_prompt("x", template="nope")
    with pytest.raises(ValueError, match="system message"):
        build_prompt("x", system="s")
    with pytest.raises(TypeError, match="reference"):
        build_prompt("x", [42])  # type: ignore[list-item]
