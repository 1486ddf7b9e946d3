"""The rows of the training files each rule beneath the checker fires on, by label (no model):
the year, titled-year, day, count, name, polarity, scope, swap and unseen-name rules
(:mod:`favakit.inference.year_check`, ``titled_year``, ``day_check``, ``count_check``,
``name_check``, ``polarity_check``, ``scope_check``, ``swap_check``, ``unseen_check``). A change
to a rule, or to how they match a sentence with the evidence, is checked here first: a rule
should fire on unsupported rows and hardly ever on supported ones.

    python scripts/rule_firings.py --real ../shared/data/real --out runs/rule_firings.json

Nothing from ``eval/`` or ``eval_spans/`` is read (``read_pairs`` refuses them).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from year_rule import firings


def rules() -> list[tuple[str, Callable[[str, list[str]], object]]]:
    """Each rule beneath the checker, by name, as the checker applies them (in order): the year,
    day, count and name rules read a long passage in windows of whole sentences
    (:func:`~favakit.inference.year_check.local_passages`)."""
    from favakit.inference.count_check import count_conflict
    from favakit.inference.day_check import day_conflict
    from favakit.inference.name_check import name_conflict
    from favakit.inference.polarity_check import polarity_conflict
    from favakit.inference.scope_check import scope_conflict
    from favakit.inference.swap_check import swap_conflict
    from favakit.inference.titled_year import titled_year_conflict
    from favakit.inference.unseen_check import unseen_name
    from favakit.inference.year_check import local_passages, year_conflict
    from favakit.text import undo_ptb

    def windowed(rule: Callable[[str, list[str]], object]) -> Callable[[str, list[str]], object]:
        return lambda text, evidence: rule(text, local_passages([undo_ptb(e) for e in evidence]))

    return [("year", windowed(year_conflict)), ("titled year", titled_year_conflict),
            ("day", windowed(day_conflict)), ("count", windowed(count_conflict)),
            ("name", windowed(name_conflict)), ("polarity", polarity_conflict),
            ("scope", scope_conflict), ("swap", swap_conflict), ("unseen", unseen_name)]  # fmt: skip


def _fires(rule: Callable[[str, list[str]], object]) -> Callable[[str, list[str]], bool]:
    """Whether ``rule`` finds a conflict in a text and its evidence."""
    return lambda text, evidence: rule(text, evidence) is not None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, required=True, help="../shared/data/real")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    files = f"{args.real}/train/*.jsonl,{args.real}/train_spans/*.jsonl"
    out: dict[str, dict[str, dict[str, int]]] = {}
    for name, rule in rules():
        t0 = time.perf_counter()
        found = firings(files, _fires(rule))
        found["total"] = {label: sum(v[label] for v in found.values())
                          for label in ("rows", "supported", "not_supported")}  # fmt: skip
        out[name] = found
        print(f"{name}: {found['total']} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
