"""The editor's mixed training file: a seeded sample of real-derived examples (``favakit synth
from-edits``) and one of favakit's synthetic examples (``favakit synth run``), shuffled together,
so that an editor trained further on real edits keeps what it knew (docs/training.md,
"Starting from an adapter").

    python scripts/editor_mix.py --real runs/real_edits/train.jsonl \\
        --synthetic runs/synth_tagged/train.jsonl --per-file 1200 --out runs/editor_mix.jsonl

Both inputs are ``train_example`` rows; ids must not collide. Prints the counts per file and per
error type.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

from favakit.errors import UsageError
from favakit.records import read_jsonl, refuse_measuring_set


def _types(row: dict[str, object]) -> list[str]:
    """A row's error types, or ``["none"]`` for a row without errors."""
    types = row.get("error_types")
    return [str(t) for t in types] if isinstance(types, list) and types else ["none"]


def mix(files: list[str], per_file: int, seed: int = 0) -> list[dict[str, object]]:
    """``per_file`` rows of each file (all where it has fewer), seeded, shuffled together."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    for f in files:
        refuse_measuring_set(f)
        got = list(read_jsonl(f))
        rows += rng.sample(got, min(per_file, len(got)))
    ids = Counter(r["id"] for r in rows)
    if dupes := [i for i, n in ids.items() if n > 1]:
        raise SystemExit(f"ids found in more than one file, e.g. {dupes[:3]}")
    rng.shuffle(rows)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", required=True, help="favakit synth from-edits output (train.jsonl)")
    ap.add_argument("--synthetic", required=True, help="favakit synth run output (train.jsonl)")
    ap.add_argument("--per-file", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    try:
        rows = mix([args.real, args.synthetic], args.per_file, args.seed)
    except UsageError as e:  # a measuring-only set
        raise SystemExit(f"editor_mix.py: {e}") from None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    types = Counter(t for r in rows for t in _types(r))
    print(json.dumps({"rows": len(rows), "per_type": dict(types), "out": str(args.out)}))


if __name__ == "__main__":
    main()
