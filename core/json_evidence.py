"""A JSON record given as evidence, read as statements.

Data-to-text tasks hand a model a structured record (a business listing, a product sheet, an
event) and ask for a description of it; the record is then the evidence the description is
checked against. Read raw, ``{"lift": false, "rent_per_month_gbp": 1150}`` is punctuation and
key names to the checker and to the rules beneath it, and a fix drawn from it can be any token
of the JSON. :func:`read_json_evidence` says the record as statements, one per value and one a
line, in the shape favakit reads a Markdown table's row in ("Rent per month: £1,150."):

- a key's words: ``snake_case``, ``kebab-case`` and ``CamelCase`` split and lower-cased
  ("OutdoorSeating" -> "outdoor seating"; an acronym or a word with a capital inside, "EPC",
  "WiFi", kept as written; a key of one word, "Monday", as it is);
- a nested object's keys after its own ("hours": {"Monday": ...} -> "Hours Monday: closed."),
  save a container whose name says nothing ("attributes", "specs", "details", ...) and one
  whose keys repeat its first word ("review_info": {"review_stars": 5} -> "Review stars: 5.");
- a unit ending a key goes with its value where that is a number (or numbers): ``price_gbp:
  129.99`` -> "Price: £129.99.", ``weight_kg: 1.4`` -> "Weight: 1.4 kg.", ``ram_gb: 8`` ->
  "Ram: 8 GB.", ``charge_time_min: 60`` -> "Charge time: 60 minutes." (``check_out: "11:00"``
  is "Check out: 11 am.");
- a number whose key names things is said as a count of them ("bedrooms": 2 -> "2
  bedrooms.", "review_count": 212 -> "212 reviews.");
- true and false say their key as a statement: a thing had or not ("lift": false -> "No
  lift."), a state or not ("in_stock": false -> "Not in stock."), a thing allowed or not
  ("pets_allowed": false -> "Pets not allowed."); null, empty lists and empty objects say
  nothing and go;
- a list of plain values is one statement ("Lineup: A, B and C."), a list of objects a
  statement per value of each;
- an ISO date is written out ("2027-01-15" -> "15 January 2027"), a 24-hour time as people
  write it ("19:30" -> "7:30 pm", "8:00-16:00" and Yelp's "8:0-16:0" -> "8 am to 4 pm"), an
  enumeration's underscores read as spaces ("beer_and_wine" -> "beer and wine").

The record's name ("name", "title", "product", "event", ...) is the passage's title, where the
caller gave none: what a fix taken from it is about. Only an evidence string that is a whole
JSON object (or a list of objects), or one printed by Python (``{'open': True}``), is read this
way; any other string is left as it is. Values some datasets store as the text of a Python
literal (Yelp's ``"True"``, ``"u'free'"``, ``"{'garage': False}"``) are read as those values.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, NamedTuple

from favakit.text import MONTHS

__all__ = ["Record", "read_json_evidence"]

#: Containers whose name adds nothing to their keys' ("attributes": {"WiFi": "free"} is "WiFi:
#: free", not "Attributes WiFi: free").
_SILENT_CONTAINERS = frozenset(
    {"attributes", "attrs", "specs", "spec", "specifications", "details", "properties",
     "features", "info", "information", "metadata", "meta", "data", "fields", "record"}
)  # fmt: skip

#: Keys whose value names what a record is about: the passage's title.
_NAME_KEYS = frozenset({"name", "title", "product", "product_name", "event", "event_name",
                        "business_name", "company", "company_name", "full_name"})  # fmt: skip

#: Keys that count what the key before them names ("review_count", "rating": {"count": 86}).
_COUNT_WORDS = frozenset({"count", "number", "total", "num"})

#: A unit ending a key: (written before the value, written after it).
_CURRENCIES = {"gbp": "£", "usd": "$", "eur": "€", "jpy": "¥", "inr": "₹"}
_UNITS = {
    "kg": "kg", "g": "g", "mg": "mg", "lb": "lb", "lbs": "lb", "mm": "mm", "cm": "cm",
    "m": "m", "km": "km", "mi": "miles", "miles": "miles", "min": "minutes", "mins": "minutes",
    "minutes": "minutes", "s": "seconds", "sec": "seconds", "seconds": "seconds", "h": "hours",
    "hr": "hours", "hrs": "hours", "hours": "hours", "days": "days", "weeks": "weeks",
    "months": "months", "years": "years", "v": "V", "ah": "Ah", "mah": "mAh", "nm": "Nm",
    "w": "W", "kw": "kW", "kwh": "kWh", "l": "litres", "ml": "ml", "pct": "%", "percent": "%",
    "sqm": "square metres", "sqft": "square feet", "kb": "KB", "mb": "MB", "gb": "GB",
    "tb": "TB", "hz": "Hz", "khz": "kHz", "mhz": "MHz", "ghz": "GHz", "mp": "MP",
    "inches": "inches", "inch": "inches", "ft": "ft", "feet": "feet", "kcal": "kcal",
}  # fmt: skip

#: What makes a true-or-false key a state ("in stock", "sold out", "wheelchair accessible"),
#: said "Not ..." when false; any other key is a thing had, said "No ..." ("No lift.").
_PREPOSITIONS = frozenset({"in", "on", "at", "under", "over", "within", "out"})
_STATES = frozenset({"open", "out", "free", "available", "active", "live", "closed", "new",
                     "used", "online", "sold", "ready", "required", "verified", "refundable",
                     "vegan", "vegetarian", "halal", "kosher", "organic"})  # fmt: skip
_STATE_ENDINGS = ("ble", "ive", "ful", "ed")

_CAMEL = re.compile(r"(?<=[a-z]{2})(?=[A-Z][a-z])|(?<=[a-z])(?=[A-Z]{2,}\b)|(?<=[A-Za-z])(?=\d)")
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}:\d{2})(?::\d{2})?\S*)?")
# "19:30", and Yelp's "11:0" (minutes in one digit)
_CLOCK = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]?\d)(?![\d:])")
_CLOCK_RANGE = re.compile(r"^\s*(\d{1,2}:\d{1,2})\s*[-–]\s*(\d{1,2}:\d{1,2})\s*$")
_QUOTED = re.compile(r"u?'[^']*'|u?\"[^\"]*\"")
_ENUM = re.compile(r"^[a-z]+(?:_[a-z]+)+$")


class Record(NamedTuple):
    """A JSON record said as statements, one a line, and its name where a key gives one (the
    passage's title: what the statements are about)."""

    text: str
    title: str


def read_json_evidence(text: str) -> Record | None:
    """``text`` said as statements where it is a JSON object or a list of objects, else
    ``None`` (the string is read as it is)."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    value = _parsed(stripped)
    if isinstance(value, dict):
        records = [value]
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        records = value
    else:
        return None
    statements: list[str] = []
    for record in records:
        statements.extend(_statements(record, []))
    if not statements:
        return None
    names = [str(records[0][k]).strip() for k in records[0] if str(k).lower() in _NAME_KEYS
             and isinstance(records[0][k], str)]  # fmt: skip
    return Record("\n".join(statements), names[0] if len(records) == 1 and names else "")


def _parsed(text: str) -> Any:
    """JSON, else a Python literal (``{'name': 'Subway', 'open': True}``: records printed by
    Python, as some data-to-text sets hold them); ``None`` where it is neither."""
    try:
        return json.loads(text)
    except ValueError:
        return _literal(text, None)


def _literal(text: str, otherwise: Any) -> Any:
    """``text`` read as a Python literal, else ``otherwise``."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return otherwise


def _statements(
    record: dict[str, Any], path: list[str], outer_unit: str | None = None
) -> list[str]:
    """The statements of ``record``, its keys said after ``path``'s words; ``outer_unit`` is a
    unit its container's key ended with ("salary_gbp": {"min": 65000} -> "Salary min:
    £65,000.")."""
    said: list[str] = []
    for key, value in record.items():
        value = _unquoted(value)
        words, unit, per = _key_words(str(key), value)
        unit = unit or outer_unit
        if words.lower() in _SILENT_CONTAINERS and isinstance(value, dict):
            name = path
        elif path and words.split()[:1] == path[-1].split()[:1]:
            name = [*path[:-1], words]  # "review_info": {"review_stars": 5}: "Review stars"
        else:
            name = [*path, words]
        if isinstance(value, dict):
            said.extend(_statements(value, name, unit))
        elif isinstance(value, list):
            plain = [_value(v, unit) for v in value if not isinstance(v, (dict, list))]
            plain = [v for v in plain if v]
            if plain:
                said.append(_statement(name, _listed(plain)))
            for item in value:
                if isinstance(item, dict):
                    said.extend(_statements(item, name))
        elif isinstance(value, bool):
            said.append(_sentence(_yes_or_no(" ".join(name), value)))
        else:
            shown = _value(value, unit) + (f" {per}" if per else "")
            counted, said_of = None, name[:-1]
            if unit is None and not per:
                if words.lower() in _COUNT_WORDS and len(name) > 1:  # "rating": {"count": 86}
                    counted, said_of = _counted(f"{name[-2]} count", value), name[:-2]
                else:
                    counted = _counted(words, value)
            if counted:  # "2 bedrooms.", "Rating: 58 votes.", "86 ratings."
                said.append(_statement(said_of, f"{shown} {counted}"))
            elif shown:
                said.append(_statement(name, shown))
    return said


def _counted(key: str, value: Any) -> str | None:
    """What a number counts where its key names things ("bedrooms": 2 -> "2 bedrooms", "stars":
    4.5 -> "4.5 stars", "review_count": 212 -> "212 reviews"; one of them singular: "1
    bathroom"; "calories_per_serving": 420 -> "420 calories per serving"), so that the count is
    read as counts are written; None for any other key."""
    words = key.split()
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not words:
        return None
    if len(words) > 1 and words[-1].lower() in _COUNT_WORDS:
        words = words[:-1]
        words[-1] = _plural(words[-1])
    if len(words) == 3 and words[1] == "per" and _is_plural(words[0]):
        return " ".join(words)  # "calories_per_serving": 420 -> "420 calories per serving"
    if len(words) > 3 or not _is_plural(words[-1]):
        return None
    if value == 1:
        words[-1] = _singular(words[-1])
    return " ".join(words)


def _is_plural(word: str) -> bool:
    return (word.islower() and len(word) > 3 and word.endswith("s")
            and not word.endswith(("ss", "us", "is", "ous")))  # fmt: skip


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return (
        word
        if _is_plural(word)
        else word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")
    )


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1]


def _unquoted(value: Any) -> Any:
    """A value some datasets store as the text of a Python literal (Yelp's attributes:
    ``"True"``, ``"u'free'"``, ``"{'garage': False, 'lot': True}"``, ``"None"``) read as that
    value; any other value as it is."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text in ("True", "False"):
        return text == "True"
    if text == "None":
        return None
    if _QUOTED.fullmatch(text) or (text[:1] == "{" and text[-1:] == "}"):
        return _literal(text, value)
    return value


def _yes_or_no(name: str, value: bool) -> str:
    """A true or false value said as a statement about its key: a thing had or not ("Has
    outdoor seating." / "No lift."), a state or not ("In stock." / "Not sold out."), a thing
    allowed or not ("Pets allowed." / "Pets not allowed.")."""
    words = name.split()
    if not words:
        return "yes" if value else "no"
    first, last = words[0].lower(), words[-1].lower()
    if first in ("is", "are", "has", "have", "can", "does") and len(words) > 1:
        rest = " ".join(words[1:])
        if first in ("has", "have"):
            return f"Has {rest}" if value else f"No {rest}"
        return _capital(rest) if value else f"Not {rest}"
    if len(words) > 1 and last.endswith("ed") and first not in _PREPOSITIONS:
        head = " ".join(words[:-1])
        return _capital(name) if value else f"{_capital(head)} not {words[-1]}"
    if first in _PREPOSITIONS or last in _STATES or last.endswith(_STATE_ENDINGS):
        return _capital(name) if value else f"Not {name}"
    return f"Has {name}" if value else f"No {name}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _key_words(key: str, value: Any) -> tuple[str, str | None, str]:
    """A key's words and, for a number, numbers or an object of numbers, the unit that ends it
    and the "per" after it, if any: ``"price_gbp"`` -> ``("price", "gbp", "")``,
    ``"car_park_gbp_per_day"`` -> ``("car park", "gbp", "per day")``; ``"check_out"`` with a
    time is ``("check out", None, "")``."""
    parts = [p for p in re.split(r"[_\-\s.]+", _CAMEL.sub(" ", key)) if p]
    unit, per = None, ""
    if _numeric(value) and len(parts) > 1:
        if len(parts) > 3 and parts[-2].lower() == "per" and _is_unit(parts[-3]):
            per = f"per {parts[-1].lower()}"
            unit = parts[-3].lower()
            parts = parts[:-3]
        elif _is_unit(parts[-1]):
            unit = parts.pop().lower()
    if len(parts) > 1:  # a key of one word ("Monday", "stars") keeps its case
        parts = [p if _kept_as_written(p) else p.lower() for p in parts]
    return " ".join(parts), unit, per


def _is_unit(word: str) -> bool:
    return word.lower() in _UNITS or word.lower() in _CURRENCIES


def _numeric(value: Any) -> bool:
    """A number, a list of numbers, or an object whose values are numbers."""
    values = list(value.values()) if isinstance(value, dict) else (
        value if isinstance(value, list) else [value])  # fmt: skip
    return bool(values) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in values
    )


def _kept_as_written(word: str) -> bool:
    """An acronym ("EPC", "SKU") or a word with a capital inside ("WiFi", "iPhone")."""
    return any(c.isupper() for c in word[1:]) and not word.isdigit()


def _statement(path: list[str], value: str) -> str:
    name = " ".join(path).strip()
    return _sentence(f"{_capital(name)}: {value}" if name else value)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _listed(values: list[str]) -> str:
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]


def _value(value: Any, unit: str | None) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return _number(value, unit)
    return _words(str(value).strip())


def _number(value: float, unit: str | None) -> str:
    if unit in _CURRENCIES:
        amount = (
            f"{value:,.2f}"
            if isinstance(value, float) and value != int(value)
            else f"{int(value):,}"
        )
        return f"{_CURRENCIES[unit]}{amount}"
    shown = f"{value:,}" if isinstance(value, int) and abs(value) >= 10_000 else str(value)
    if unit is None:
        return shown
    written = _UNITS[unit]
    return f"{shown}{written}" if written == "%" else f"{shown} {written}"


def _words(text: str) -> str:
    """A string value as people write it: an ISO date written out, a 24-hour time or range of
    times on the 12-hour clock, an enumeration's underscores as spaces."""
    date = _ISO_DATE.fullmatch(text)
    if date:
        year, month, day, time = date.groups()
        if 1 <= int(month) <= 12 and 1 <= int(day) <= 31:
            said = f"{int(day)} {MONTHS[int(month) - 1].capitalize()} {year}"
            return f"{said}, {_twelve_hour(time)}" if time else said
        return text
    span = _CLOCK_RANGE.match(text)
    if span:
        return f"{_twelve_hour(span.group(1))} to {_twelve_hour(span.group(2))}"
    if _CLOCK.fullmatch(text):
        return _twelve_hour(text)
    if _ENUM.match(text):
        return text.replace("_", " ")
    return text


def _twelve_hour(clock: str) -> str:
    """``"19:30"`` -> ``"7:30 pm"``, ``"8:00"`` -> ``"8 am"``, ``"0:00"`` -> ``"12 am"``."""
    hours, minutes = (int(p) for p in clock.split(":"))
    if not 0 <= hours <= 24 or not 0 <= minutes <= 59:
        return clock
    half = "am" if hours % 24 < 12 else "pm"
    shown = hours % 12 or 12
    return f"{shown} {half}" if minutes == 0 else f"{shown}:{minutes:02d} {half}"
