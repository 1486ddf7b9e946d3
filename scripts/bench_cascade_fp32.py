"""Whether a narrower cascade band would serve a CPU without native bf16, where the tuned Qwen
judge runs in fp32 at about a third of its bf16 speed (issue 31; docs/benchmarks.md, session 90).

The band stored with the mpnet checker (``cascade.band``) was chosen for a judge in native bf16.
In fp32 the cascade inside it runs at about 0.5 claims/s on the speed protocol, so there
favakit's default judge is the mpnet checker alone. This script measures narrower bands, built
the way the first was: the band holding the ``share`` of development claims whose checker
score lies nearest the checker's threshold. For each share (1% to 10%) it reports

- the development split's mean per-source balanced accuracy, with the judge deciding inside the
  band and the checker outside;
- the expected claims/s on the speed protocol's claims, ``1 / (checker_seconds + asked *
  judge_seconds)``. Here ``asked`` is the share of those claims whose checker score falls in the
  band. It is counted, not assumed, because real claims fall near the threshold more often than
  the development split's.

A band would be worth storing only if it kept ``--speed`` claims/s (default 1.1: the issue's 1
claim/s with a margin for a noisy machine) and beat the checker alone on the development split
by ``--min-gain``. The report names the best such band, or none (session 90 found none). Inputs
are ``favakit verify --output`` files, and no evaluation set is read::

    favakit verify --judge checker --checker mpnet --input runs/judge_data/dev_rows.jsonl \
        --output runs/s90/dev_mpnet.jsonl
    python scripts/bench_cascade_fp32.py --dev-rows runs/judge_data/dev_rows.jsonl \
        --dev-checker runs/s90/dev_mpnet.jsonl --rows-for 0.04 --out runs/s90/band04.jsonl
    favakit verify --judge qwen --input runs/s90/band04.jsonl --output runs/s90/band04_qwen.jsonl
    favakit verify --judge checker --checker mpnet --input SPEED.jsonl --output speed_mpnet.jsonl
    python scripts/bench_cascade_fp32.py --dev-rows runs/judge_data/dev_rows.jsonl \
        --dev-checker runs/s90/dev_mpnet.jsonl --dev-judge runs/s90/band04_qwen.jsonl \
        --speed-checker speed_mpnet.jsonl --checker-seconds 0.31 --judge-seconds 6.9 \
        --out docs/results/bench_cascade_fp32_s90_2026-12-07.json

``--rows-for SHARE`` writes the development rows inside that share's band (the rows the judge
must score) as JSONL to ``--out``. ``SPEED.jsonl``: the speed protocol's claims (the first 32 rows
of ``train/wice.jsonl`` with 200 words of evidence, cut to those words, as
``scripts/bench_checker.py --speed-file`` takes them).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

from favakit.claim_metrics import per_source

sys.path.insert(0, str(Path(__file__).parent))
from llm_judge import band_cut, band_edges

#: the shares tried: 1% to 10% of the development claims
SHARES = [round(0.01 * k, 2) for k in range(1, 11)]


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def band_for(scores: list[float], threshold: float, share: float) -> tuple[float, float]:
    """The band around ``threshold`` holding the ``share`` of ``scores`` nearest it, as
    ``scripts/llm_judge.py cascade`` builds and stores it (rounded to 4 places)."""
    low, high = band_edges(threshold, band_cut(scores, threshold, share))
    return low, high


def source_mean(rows: list[dict[str, Any]], judged: dict[str, bool]) -> float | None:
    """The mean over ``rows``' sources of the balanced accuracy of ``judged`` (id ->
    supported), over the sources that hold both labels (:func:`favakit.claim_metrics.per_source`)."""
    labels = [r["label"] == "supported" for r in rows]
    _, mean = per_source(labels, [judged[r["id"]] for r in rows], [r["source"] for r in rows])
    return mean


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev-rows", type=Path, required=True, help="the development split's rows")
    ap.add_argument(
        "--dev-checker", type=Path, required=True, help="the checker's verdicts on them"
    )
    ap.add_argument("--dev-judge", type=Path, default=None,
                    help="the judge's verdicts on the rows in the band (--rows-for)")  # fmt: skip
    ap.add_argument("--speed-checker", type=Path, default=None,
                    help="the checker's verdicts on the speed protocol's claims")  # fmt: skip
    ap.add_argument("--checker", default="inference/mpnet_checker", help="the checker's folder")
    ap.add_argument("--checker-seconds", type=float, default=0.0, help="a claim, on this CPU")
    ap.add_argument("--judge-seconds", type=float, default=0.0, help="an asked claim, in fp32")
    ap.add_argument("--speed", type=float, default=1.1, help="claims/s a band must keep")
    ap.add_argument("--min-gain", type=float, default=0.005,
                    help="development mean over the checker alone a band must add")  # fmt: skip
    ap.add_argument("--rows-for", type=float, default=None,
                    help="write the development rows inside this share's band to --out")  # fmt: skip
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    config = json.loads((Path(args.checker) / "checker.json").read_text(encoding="utf-8"))
    threshold = float(config["threshold"])
    rows = _read(args.dev_rows)
    first = {v["id"]: float(v["score"]) for v in _read(args.dev_checker)}
    missing = [r["id"] for r in rows if r["id"] not in first]
    if missing:
        raise SystemExit(
            f"{len(missing)} development rows lack the checker's verdict: {missing[:3]}"
        )
    scores = [first[r["id"]] for r in rows]
    if args.rows_for is not None:
        low, high = band_for(scores, threshold, args.rows_for)
        inside = [r for r in rows if low <= first[r["id"]] <= high]
        args.out.write_text("".join(json.dumps(r) + "\n" for r in inside), encoding="utf-8")
        print(f"{len(inside)} development rows in the band {low}-{high}: {args.out}")
        return
    if args.dev_judge is None or args.speed_checker is None:
        ap.error("--dev-judge and --speed-checker are needed to measure the bands")
    second = {v["id"]: bool(v["supported"]) for v in _read(args.dev_judge)}
    speed = [float(v["score"]) for v in _read(args.speed_checker)]
    alone = source_mean(rows, {i: s > threshold for i, s in first.items()})
    if alone is None:
        raise SystemExit("the development rows hold fewer than two sources with both labels")
    report: list[dict[str, Any]] = []
    for share in SHARES:
        low, high = band_for(scores, threshold, share)
        inside = [r["id"] for r in rows if low <= first[r["id"]] <= high]
        if any(i not in second for i in inside):
            break  # the judge has not scored this band's rows
        judged = {i: second[i] if low <= s <= high else s > threshold for i, s in first.items()}
        asked = sum(low <= s <= high for s in speed) / len(speed)
        seconds = args.checker_seconds + asked * args.judge_seconds
        report.append({
            "share": share, "band": [low, high], "dev_rows_asked": len(inside),
            "dev_mean_balanced_accuracy": source_mean(rows, judged),
            "speed_claims_asked": round(asked, 4),
            "expected_claims_per_s": round(1.0 / seconds, 3) if seconds else None,
        })  # fmt: skip
    passing = [r for r in report
            if (r["expected_claims_per_s"] or 0) >= args.speed
            and r["dev_mean_balanced_accuracy"] >= alone + args.min_gain]  # fmt: skip
    best = max(passing, key=lambda r: (r["dev_mean_balanced_accuracy"], -r["share"]), default=None)
    for r in report:
        print(json.dumps(r))
    print(
        f"the checker alone: {alone}; the best band that keeps the speed and gains: "
        f"{json.dumps(best)}"
    )
    result = {"date": date.today().isoformat(), "checker": args.checker, "threshold": threshold,
              "checker_alone_dev_mean": alone, "checker_seconds": args.checker_seconds,
              "judge_seconds": args.judge_seconds, "speed_claims": len(speed),
              "speed": args.speed, "min_gain": args.min_gain, "shares": report,
              "best": best}  # fmt: skip
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
