from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from favakit.prompts import (
    EDITED_MARKER,
    TEMPLATES,
    Reference,
    build_prompt,
    drop_references,
    fewest_references_dropped,
    parse_prompt,
)
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


def _dropped_one_at_a_time(prompt: str, budget: int) -> str:
    """How favakit shortened an over-long prompt before halving: a reference a tokenization."""
    while len(prompt.split()) > budget:
        shorter = drop_references(prompt)
        if shorter is None:
            break
        prompt = shorter
    return prompt


@given(
    st.lists(st.integers(min_value=1, max_value=30), max_size=40),
    st.integers(min_value=0, max_value=800),
)
def test_halving_drops_as_many_references_as_dropping_one_at_a_time(
    lengths: list[int], budget: int
) -> None:
    refs = [" ".join(f"r{i}w{j}" for j in range(n)) for i, n in enumerate(lengths)]
    prompt = build_prompt("The text to check.", refs)
    asked: list[str] = []

    def fits(p: str) -> bool:
        asked.append(p)
        return len(p.split()) <= budget

    got, dropped = fewest_references_dropped(prompt, fits)
    assert got == _dropped_one_at_a_time(prompt, budget)
    kept = parse_prompt(got).references
    assert len(kept) == len(refs) - dropped
    assert kept == refs[dropped:]  # the first (least relevant) ones go
    assert len(asked) <= 2 + max(1, len(refs)).bit_length()


def test_a_prompt_that_fits_or_has_no_references_is_returned_as_it_is() -> None:
    prompt = build_prompt("Short.", ["one", "two"])
    assert fewest_references_dropped(prompt, lambda p: True) == (prompt, 0)
    bare = build_prompt("Short.", [])
    assert fewest_references_dropped(bare, lambda p: False) == (bare, 0)
    none_left, dropped = fewest_references_dropped(prompt, lambda p: False)
    assert dropped == 2 and parse_prompt(none_left).references == []
