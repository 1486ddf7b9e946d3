"""Argument types for favakit's commands: numbers refused at the command line when out of range.

Each is an ``argparse`` ``type=``: a value out of range exits 2 with the option named
(``argument --threshold: 1.5 is not a probability: give a number from 0 to 1``), before any
model loads. :func:`changed_options` finds the options a command's other choices would ignore,
which it then refuses rather than ignore.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable

from favakit.devices import check_device_name

__all__ = [
    "changed_options",
    "device",
    "given",
    "is_http_address",
    "non_negative",
    "non_negative_int",
    "port",
    "positive",
    "positive_int",
    "probability",
    "share",
    "url",
    "weights",
]


def changed_options(
    args: argparse.Namespace, options: Iterable[tuple[str, str, object]]
) -> list[str]:
    """The flags of ``options`` (flag, attribute, default) that ``args`` sets to another value
    than the default: what the user gave."""
    return [flag for flag, dest, default in options if getattr(args, dest) != default]


def _number(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if math.isnan(number):
        raise argparse.ArgumentTypeError("nan is not a number")
    return number


def probability(value: str) -> float:
    """A probability: 0 to 1, both included."""
    number = _number(value)
    if not 0.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError(f"{value} is not a probability: give a number from 0 to 1")
    return number


def share(value: str) -> float:
    """A share of the rows: from 0 up to, not including, 1 (a share of 1 leaves nothing else)."""
    number = _number(value)
    if not 0.0 <= number < 1.0:
        raise argparse.ArgumentTypeError(f"{value} is not a share: give a number from 0 to below 1")
    return number


def positive(value: str) -> float:
    """A number above 0 (seconds, megabytes)."""
    number = _number(value)
    if not number > 0 or math.isinf(number):
        raise argparse.ArgumentTypeError(f"{value}: give a finite number above 0")
    return number


def non_negative(value: str) -> float:
    """A finite number of 0 or more."""
    number = _number(value)
    if number < 0 or math.isinf(number):
        raise argparse.ArgumentTypeError(f"{value}: give a finite number of 0 or more")
    return number


def _whole(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None


def positive_int(value: str) -> int:
    """A whole number of 1 or more (a count of rows, passages, tokens; a batch's size)."""
    number = _whole(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value}: give a whole number of 1 or more")
    return number


def non_negative_int(value: str) -> int:
    """A whole number of 0 or more (a limit whose 0 means none)."""
    number = _whole(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value}: give a whole number of 0 or more")
    return number


def port(value: str) -> int:
    """A TCP port to listen on: 1 to 65535."""
    number = _whole(value)
    if not 1 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port: give a number from 1 to 65535")
    return number


def given(value: str) -> str:
    """A name or address that is not blank: an empty ``--model "$MODEL"`` (the variable not
    set) would otherwise pick the shipped default without a word."""
    if not value.strip():
        raise argparse.ArgumentTypeError("is empty (a variable that is not set?)")
    return value


def device(value: str) -> str:
    """A device name (``cpu``, ``cuda:1``; :func:`favakit.devices.check_device_name`): a
    misspelt one is refused before a model loads."""
    try:
        return check_device_name(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def weights(value: str) -> list[float]:
    """Comma-separated weights (``1,0.5``): finite, 0 or more, and not all 0."""
    parts = [part.strip() for part in value.split(",")]
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r}: give comma-separated numbers, such as 1,0.5"
        ) from None
    if any(not 0 <= n < math.inf for n in numbers) or not any(numbers):
        raise argparse.ArgumentTypeError(
            f"{value!r}: each weight a finite number of 0 or more, and one above 0"
        )
    return numbers


def is_http_address(value: str) -> bool:
    """Whether ``value`` is an ``http(s)://host[:port]/...`` address."""
    from urllib.parse import urlsplit

    parts = urlsplit(value.strip())
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def url(value: str) -> str:
    """An OpenAI-compatible server's address (:func:`is_http_address`)."""
    given(value)
    if not is_http_address(value):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an http(s) address: give one such as http://127.0.0.1:8000/v1"
        )
    return value.strip()
