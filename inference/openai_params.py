"""Reading an OpenAI-style request body for ``favakit serve-llm``: every field checked for its
type and range, so a bad value is a 4xx that names the field (as OpenAI's API answers), never a
failure inside generation.

:func:`generation_params` reads the sampling fields, :func:`prompts_of` and :func:`messages_of`
the inputs; each raises :class:`BadField` (the server answers 422 with its message).
"""

from __future__ import annotations

import math
from typing import Any

from favakit.llm import GenerationParams

__all__ = ["BadField", "generation_params", "messages_of", "prompts_of", "usable_text"]

MAX_STOP = 4  # stop strings per request, as OpenAI allows
SEED_RANGE = (-(2**63), 2**63 - 1)
GREEDY_BELOW = 1e-5  # a temperature this low samples as greedy decoding does (vLLM's rule too)


class BadField(ValueError):
    """A request field with the wrong type or value (HTTP 422)."""


def _integer(body: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = body.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadField(f"'{name}' must be an integer from {low} to {high}")
    if not low <= value <= high:
        raise BadField(f"'{name}' must be from {low} to {high} (got {value})")
    return value


def _number(body: dict[str, Any], name: str, default: float, low: float, high: float) -> float:
    value = body.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadField(f"'{name}' must be a number from {low:g} to {high:g}")
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise BadField(f"'{name}' must be from {low:g} to {high:g} (got {value!r})")
    return number


def usable_text(value: str, name: str) -> str:
    """``value`` if it can be encoded (UTF-8): JSON can carry lone surrogates that cannot."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadField(f"'{name}' holds a lone surrogate (not a character)") from None
    return value


#: request fields asking for what this server does not do, and the value that asks for nothing
_NOT_SERVED = {
    "stream": (False, "streaming: each answer comes whole (vLLM streams)"),
    "tools": ([], "tool calls"),
    "functions": ([], "function calls"),
}


def _refuse_unserved(body: dict[str, Any]) -> None:
    """A 422 for a field asking for what this server does not do: answered as if it had not been
    asked, a streaming client would wait for events that never come, and a client asking for
    three answers or a JSON object would take one plain text for them."""
    for name, (nothing, what) in _NOT_SERVED.items():
        if body.get(name) not in (None, nothing):
            raise BadField(f"'{name}': this server does not do {what}")
    _integer(body, "n", 1, 1, 1)  # one answer per prompt
    response_format = body.get("response_format")
    if response_format not in (None, {"type": "text"}):
        raise BadField("'response_format': this server answers plain text only ({\"type\": "
                       "\"text\"})")  # fmt: skip


def generation_params(body: dict[str, Any], max_tokens_limit: int) -> GenerationParams:
    """The sampling parameters of a completions or chat body, checked; defaults where absent
    (256 tokens, greedy). ``max_completion_tokens`` (the chat API's newer name) stands for
    ``max_tokens``."""
    _refuse_unserved(body)
    if body.get("max_completion_tokens") is not None:
        if body.get("max_tokens") not in (None, body["max_completion_tokens"]):
            raise BadField("'max_tokens' and 'max_completion_tokens' differ: give one")
        body = {**body, "max_tokens": body["max_completion_tokens"]}
    max_tokens = _integer(body, "max_tokens", min(256, max_tokens_limit), 1, max_tokens_limit)
    temperature = _number(body, "temperature", 0.0, 0.0, 2.0)
    if temperature < GREEDY_BELOW:  # dividing the logits by 1e-300 makes them inf: greedy
        temperature = 0.0
    top_p = _number(body, "top_p", 1.0, 0.0, 1.0)
    if top_p == 0.0 and temperature > 0:
        raise BadField("'top_p' must be above 0 when sampling (temperature > 0)")
    stop = body.get("stop")
    if stop is None:
        stops: tuple[str, ...] = ()
    elif isinstance(stop, str):
        stops = (stop,)
    elif isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        stops = tuple(stop)
    else:
        raise BadField("'stop' must be a string or a list of strings")
    if len(stops) > MAX_STOP or any(not s for s in stops):
        raise BadField(f"'stop' takes up to {MAX_STOP} non-empty strings")
    for s in stops:
        usable_text(s, "stop")
    seed = body.get("seed")
    if seed is not None:
        seed = _integer(body, "seed", 0, *SEED_RANGE)
    return GenerationParams(max_tokens, temperature, top_p, stops, _logprobs(body), seed)


def _logprobs(body: dict[str, Any]) -> int | None:
    """How many top log-probabilities per token: the completions API's ``logprobs: N``, or the
    chat API's ``logprobs: true`` with ``top_logprobs: N`` (default 1)."""
    logprobs = body.get("logprobs")
    if logprobs is None or logprobs is False:
        return None
    if logprobs is True:
        return _integer(body, "top_logprobs", 1, 0, 20)
    return _integer(body, "logprobs", 0, 0, 20)


def prompts_of(body: dict[str, Any]) -> list[str]:
    """``prompt``: a non-empty string or a non-empty list of them."""
    prompt = body.get("prompt")
    prompts = [prompt] if isinstance(prompt, str) else prompt
    if not isinstance(prompts, list) or not prompts or not all(isinstance(p, str) for p in prompts):
        raise BadField("'prompt' must be a string or a non-empty list of strings")
    if not all(prompts):
        raise BadField("'prompt' must not be empty")
    return [usable_text(p, "prompt") for p in prompts]


def messages_of(body: dict[str, Any]) -> list[dict[str, str]]:
    """``messages``: a non-empty list of ``{role, content}`` objects; a content is a string or a
    list of text parts (``[{"type": "text", "text": ...}]``, as newer clients send it), joined."""
    messages = body.get("messages")
    if (
        not isinstance(messages, list)
        or not messages
        or not all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages)
    ):
        raise BadField("'messages' must be a non-empty list of {role, content} objects")
    read = []
    for n, m in enumerate(messages):
        content = _content_text(m.get("content"), n)
        read.append({"role": usable_text(m["role"], "messages"),
                     "content": usable_text(content, "messages")})  # fmt: skip
    return read


def _content_text(content: Any, n: int) -> str:
    """A message's content as one string: a string, or its text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(isinstance(p, dict) for p in content):
        kinds = {p.get("type") for p in content}
        if kinds != {"text"}:
            other = sorted(str(k) for k in kinds - {"text"})
            raise BadField(f"'messages' item {n}: this server reads text parts only, not "
                           f"{', '.join(other)}")  # fmt: skip
        if all(isinstance(p.get("text"), str) for p in content):
            return "\n".join(p["text"] for p in content)  # as vLLM joins them
    raise BadField(f"'messages' item {n}: 'content' must be a string or a list of "
                   '{"type": "text", "text"} parts')  # fmt: skip
