"""serve-llm's request reading: what the server does not do is refused by name, not answered as
if it had not been asked (a streaming client waited for events, ``n: 3`` got one answer), and
newer clients' forms are read (``max_completion_tokens``, content as text parts)."""

from __future__ import annotations

from typing import Any

import pytest

from favakit.inference.openai_params import BadField, generation_params, messages_of


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"stream": True}, "'stream': this server does not do streaming"),
        ({"n": 3}, "'n' must be from 1 to 1"),
        ({"tools": [{"type": "function"}]}, "'tools': this server does not do tool calls"),
        ({"response_format": {"type": "json_object"}}, "'response_format': .* plain text only"),
        ({"max_tokens": 5, "max_completion_tokens": 6}, "differ: give one"),
        ({"max_completion_tokens": 0}, "'max_tokens' must be from 1 to 64"),
    ],
)
def test_what_is_not_served_is_refused_by_name(extra: dict[str, Any], said: str) -> None:
    with pytest.raises(BadField, match=said):
        generation_params({"prompt": "x", **extra}, 64)


def test_asking_for_nothing_extra_is_fine_and_the_newer_token_name_is_read() -> None:
    quiet = {"stream": False, "n": 1, "tools": [], "response_format": {"type": "text"}}
    assert generation_params({"prompt": "x", **quiet}, 64).max_tokens == 64
    assert generation_params({"prompt": "x", "max_completion_tokens": 3}, 64).max_tokens == 3
    assert generation_params({"max_tokens": 3, "max_completion_tokens": 3}, 64).max_tokens == 3


def test_a_content_of_text_parts_is_read_as_its_text() -> None:
    parts = [{"type": "text", "text": "Is it"}, {"type": "text", "text": "true?"}]
    assert messages_of({"messages": [{"role": "user", "content": parts}]}) == [
        {"role": "user", "content": "Is it\ntrue?"}
    ]
    image = [{"type": "image_url", "image_url": {"url": "x"}}]
    with pytest.raises(BadField, match="item 0: this server reads text parts only, not image_url"):
        messages_of({"messages": [{"role": "user", "content": image}]})
    for content in (None, 3, [], [{"type": "text"}]):
        with pytest.raises(BadField, match="item 0: 'content' must be a string or a list"):
            messages_of({"messages": [{"role": "user", "content": content}]})
