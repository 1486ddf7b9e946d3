"""Meaning-kept rewrites of supported claims: does a rule beneath the checker start firing?

The rules beneath the checker's score (:mod:`favakit.inference.year_check`, ``count_check``,
``name_check``, ...) cap a text at 0.02 whatever the model says, so a rule that fires on a true
text written another way ("St. Louis" for "Saint Louis", "wasn’t" for "wasn't") makes a false
contradiction. This takes the supported rows of the files given (training files, the development
split) on which no rule fires, rewrites each claim in the ways below that keep its meaning, and
checks each rewrite with every rule (no model). A rewrite on which a rule fires is listed with
the rule's note: each is a false contradiction to fix, or a rewrite that did not keep the meaning.

Rewrites (:data:`REWRITES`): curly apostrophes; "United States" as "U.S." and back; "United
Kingdom" as "UK"; a date's order swapped, written ISO or with its month abbreviated; "14%" as "14
percent" and back; thousands without a separator, or grouped by a no-break space; 2-9 in words
and back; "Saint" and "Mount" abbreviated; a range's hyphen as an en dash; "and" between names as
"&"; "$3 million" as "$3m", "$3 billion" as "$3bn"; "2.5" as "two and a half", "500,000" as
"half a million"; "3 million" as "three million"; ordinals in digits and in words ("first" /
"1st"); "World War II" as "World War 2" and "the Second World War"; "Center" as "Centre";
accents dropped; "UK" as "U.K."; "km" and "kilometres"; "Junior" as "Jr.", "Doctor" as "Dr.".

    python scripts/rewrite_probe.py --files runs/judge_data/dev_rows.jsonl \\
        --files '../shared/data/real/train/*.jsonl' --out runs/rewrite_probe.json

Nothing from ``eval/`` or ``eval_spans/`` is read (``read_pairs`` refuses them).
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from rule_firings import rules

from favakit.text import MONTHS

_SMALL = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_MONTHS = [month.capitalize() for month in MONTHS]
_MONTH = "|".join(_MONTHS)
_MDY = re.compile(rf"\b({_MONTH}) (\d{{1,2}}), (\d{{4}})\b")
_DMY = re.compile(rf"\b(\d{{1,2}}) ({_MONTH}) (\d{{4}})\b")
# a digit 2-9 standing alone (not in "3.5", "1,200", "2nd", "9/11") before a lower-case word
_LONE_DIGIT = re.compile(r"(?<![\w.,/$£€-])([2-9])(?![\w.,/%-])(?= [a-z])")
_ORDINALS = {"first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th",
             "sixth": "6th", "seventh": "7th", "eighth": "8th", "ninth": "9th", "tenth": "10th",
             "twentieth": "20th", "nineteenth": "19th", "eighteenth": "18th"}  # fmt: skip
# an ordinal before "century" or a lower-case word ("the first season", "the 20th century")
_ORDINAL_WORD = re.compile(rf"\b({'|'.join(_ORDINALS)})\b(?= [a-z])", re.IGNORECASE)
_ORDINAL_DIGITS = re.compile(rf"\b({'|'.join(_ORDINALS.values())})\b(?= [a-z])")
# "2.5 hours": a digit and a half before a word
_HALF = re.compile(r"(?<![\w.,/$£€-])([1-9])\.5(?![\w.,/%-])(?= [a-z])")
_LONE_WORD = re.compile(r"(?<![\w-])(two|three|four|five|six|seven|eight|nine)(?![\w-])(?= [a-z])")


def _iso(m: re.Match[str], month: int, day: int) -> str:
    return f"{m.group(3)}-{_MONTHS.index(m.group(month)) + 1:02d}-{int(m.group(day)):02d}"


def _dates_iso(text: str) -> str:
    text = _MDY.sub(lambda m: _iso(m, 1, 2), text)
    return _DMY.sub(lambda m: _iso(m, 2, 1), text)


def _months_abbreviated(text: str) -> str:
    text = _MDY.sub(lambda m: f"{m.group(1)[:3]}. {m.group(2)}, {m.group(3)}", text)
    return _DMY.sub(lambda m: f"{m.group(1)} {m.group(2)[:3]} {m.group(3)}", text)


#: name -> a rewrite that keeps the meaning (returns the text unchanged where it does not apply)
REWRITES: dict[str, Callable[[str], str]] = {
    "curly_apostrophes": lambda t: t.replace("'", "\u2019"),
    "us_as_initials": lambda t: t.replace("United States", "U.S."),
    "us_in_full": lambda t: re.sub(r"\bU\.S\.(?= [A-Z])", "United States", t),
    "uk_as_initials": lambda t: t.replace("United Kingdom", "UK"),
    "date_day_first": lambda t: _MDY.sub(r"\2 \1 \3", t),
    "date_month_first": lambda t: _DMY.sub(r"\2 \1, \3", t),
    "date_iso": _dates_iso,
    "date_month_abbreviated": _months_abbreviated,
    "percent_in_words": lambda t: re.sub(r"(\d)%", r"\1 percent", t),
    "percent_as_sign": lambda t: re.sub(r"(\d) per ?cent\b", r"\1%", t),
    "thousands_unseparated": lambda t: re.sub(r"\b(\d{1,3}),(\d{3})\b(?![,.]\d)", r"\1\2", t),
    "thousands_nbsp": lambda t: re.sub(r"\b(\d{1,3}),(\d{3})\b(?![,.]\d)", "\\1\u00a0\\2", t),
    "small_numbers_in_words": lambda t: _LONE_DIGIT.sub(lambda m: _SMALL[int(m.group(1))], t),
    "small_numbers_in_digits": lambda t: _LONE_WORD.sub(lambda m: str(_SMALL.index(m.group(1))), t),
    "saint_abbreviated": lambda t: re.sub(r"\bSaint (?=[A-Z])", "St. ", t),
    "mount_abbreviated": lambda t: re.sub(r"\bMount (?=[A-Z])", "Mt. ", t),
    "range_en_dash": lambda t: re.sub(r"\b(\d{4})-(\d{2,4})\b", "\\1\u2013\\2", t),
    "ampersand_between_names": lambda t: re.sub(r"(?<=[A-Z][a-z]) and (?=[A-Z])", " & ", t),
    "million_abbreviated": lambda t: re.sub(r"([$£€]\d+(?:\.\d+)?) million\b", r"\1m", t),
    "billion_abbreviated": lambda t: re.sub(r"([$£€]\d+(?:\.\d+)?) billion\b", r"\1bn", t),
    "half_in_words": lambda t: _HALF.sub(lambda m: f"{_SMALL[int(m.group(1))]} and a half", t),
    "half_a_scale": lambda t: re.sub(r"(?<![\d,.])500,000(?![,.]?\d)", "half a million", t),
    "millions_in_words": lambda t: re.sub(
        r"(?<![\w.,$£€])([2-9]) (million|billion)\b",
        lambda m: f"{_SMALL[int(m.group(1))]} {m.group(2)}",
        t,
    ),
    "ordinal_in_digits": lambda t: _ORDINAL_WORD.sub(lambda m: _ORDINALS[m.group(1).lower()], t),
    "ordinal_in_words": lambda t: _ORDINAL_DIGITS.sub(
        lambda m: next(w for w, d in _ORDINALS.items() if d == m.group(1)), t
    ),
    "world_war_digits": lambda t: t.replace("World War II", "World War 2").replace(
        "World War I ", "World War 1 "
    ),
    "second_world_war": lambda t: t.replace("World War II", "the Second World War").replace(
        "the the Second", "the Second"
    ),
    "british_spelling": lambda t: re.sub(r"\b(Cent|Theat)er\b", r"\1re", t),
    "accents_dropped": lambda t: unicodedata.normalize(
        "NFC", "".join(c for c in unicodedata.normalize("NFD", t) if not unicodedata.combining(c))
    ),
    "uk_dotted": lambda t: re.sub(r"\bUK\b", "U.K.", t),
    "km_in_full": lambda t: re.sub(r"(\d) km\b", r"\1 kilometres", t),
    "kilometres_abbreviated": lambda t: re.sub(r"(\d) kilomet(?:re|er)s\b", r"\1 km", t),
    "junior_abbreviated": lambda t: re.sub(r"\bJunior\b(?= [a-z]|[.,]|$)", "Jr.", t),
    "doctor_abbreviated": lambda t: re.sub(r"\bDoctor (?=[A-Z])", "Dr. ", t),
}


def first_firing(text: str, evidence: list[str]) -> tuple[str, str] | None:
    """(rule name, its note) of the first rule that fires on ``text``, in the checker's order."""
    for name, rule in rules():
        found = rule(text, evidence)
        if found is not None:
            return name, found.note()  # type: ignore[attr-defined]
    return None


def probe(rows: list[tuple[str, str, list[str]]], examples: int = 40) -> dict[str, object]:
    """Per rewrite, the claims it changed and those on which a rule then fires, by rule; the
    first ``examples`` firings. ``rows``: (id, supported claim, evidence); rows on which a rule
    fires as written are left out (counted)."""
    from favakit.text import remembering

    made: Counter[str] = Counter()
    fired: Counter[str] = Counter()
    by_rule: Counter[str] = Counter()
    listed: list[dict[str, str]] = []
    fired_as_written = 0
    for row_id, text, evidence in rows:
        with remembering():
            if first_firing(text, evidence) is not None:
                fired_as_written += 1
                continue
            for name, rewrite in REWRITES.items():
                new = rewrite(text)
                if new == text:
                    continue
                made[name] += 1
                hit = first_firing(new, evidence)
                if hit is None:
                    continue
                fired[name] += 1
                by_rule[f"{name}: {hit[0]}"] += 1
                if len(listed) < examples:
                    listed.append({"id": row_id, "rewrite": name, "text": new, "note": hit[1]})
    return {"rows": len(rows), "fired_as_written": fired_as_written,
            "rewrites": dict(made), "fired": dict(fired), "by_rule": dict(by_rule),
            "examples": listed}  # fmt: skip


def supported_rows(patterns: list[str]) -> list[tuple[str, str, list[str]]]:
    """(id, text, evidence) of every supported row of the files the globs name, each id once."""
    from favakit.training.pairs import read_pairs

    seen: set[str] = set()
    out = []
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)) or [pattern]:
            for pair in read_pairs(path):  # refuses eval/ and eval_spans/
                if pair.label and pair.id not in seen:
                    seen.add(pair.id)
                    out.append((pair.id, pair.text, list(pair.evidence)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", action="append", required=True,
                    help="a file or glob of labelled rows (repeatable)")  # fmt: skip
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    started = time.time()
    report = probe(supported_rows(args.files))
    report["seconds"] = round(time.time() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({k: report[k] for k in ("rows", "fired_as_written", "fired", "by_rule")}))


if __name__ == "__main__":
    main()
