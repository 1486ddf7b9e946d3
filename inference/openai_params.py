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


def generation_params(body: dict[str, Any], max_tokens_limit: int) -> GenerationParams:
    """The sampling parameters of a completions or chat body, checked; defaults where absent
    (256 tokens, greedy)."""
    max_tokens = _integer(body, "max_tokens", 256, 1, max_tokens_limit)
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
    """``messages``: a non-empty list of ``{role, content}`` objects with string values."""
    messages = body.get("messages")
    if (
        not isinstance(messages, list)
        or not messages
        or not all(
            isinstance(m, dict)
            and isinstance(m.get("content"), str)
            and isinstance(m.get("role"), str)
            for m in messages
        )
    ):
        raise BadField("'messages' must be a non-empty list of {role, content} objects")
    for m in messages:
        usable_text(m["role"], "messages")
        usable_text(m["content"], "messages")
    return [{"role": m["role"], "content": m["content"]} for m in messages]
