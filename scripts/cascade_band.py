"""The cascade's band, chosen on the development split of the checker's training data (issue 31):
the encoder checker decides where it is confident, the LLM judge decides the rest.

The band is the checker-score interval holding the ``--share`` of development claims nearest the
checker's threshold (the share is set by speed: the LLM judge takes about 2.4 s a claim on 2 CPU
cores, the mpnet checker about 0.15 s, so a share of 0.3 keeps the cascade above 1 claim/s).
Inside the band, the LLM judge and the checker are compared on a seeded sample of up to
``--per-source`` claims of every source; the cascade is worth having only where the judge is the
better of the two there. ``--write`` stores the band in the checker's ``checker.json``
(``"cascade": {"judge", "band", ...}``), which ``favakit verify --judge cascade`` reads.

    python scripts/cascade_band.py --checker inference/mpnet_checker \\
        --dev '../shared/data/real/train/*.jsonl,../shared/data/real/train_spans/*.jsonl' \\
        --out docs/results/cascade_band_DATE.json [--write]

No evaluation set is read: the eval sets only measure (scripts/bench_checker.py --judges cascade).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_verify import agreement


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checker", required=True, help="checker folder (or a shipped name)")
    ap.add_argument("--dev", required=True, help="the checker's training files")
    ap.add_argument("--dev-fraction", type=float, default=0.05, help="as data.validation_fraction")
    ap.add_argument("--dev-rows", type=int, default=0, help="score a seeded sample of N rows")
    ap.add_argument("--second-words", type=int, default=400, help="as CascadeVerifier's")
    ap.add_argument("--share", type=float, default=0.3)
    ap.add_argument("--per-source", type=int, default=15)
    ap.add_argument("--judge", default="qwen2.5-coder-1.5b")
    ap.add_argument(
        "--judge-endpoint",
        default=None,
        help="an OpenAI-compatible server running --judge (favakit serve-llm)",
    )
    ap.add_argument("--write", action="store_true", help="store the band in checker.json")
    ap.add_argument(
        "--scores-cache",
        type=Path,
        default=None,
        help="keep the checker's development scores here (JSON) for later runs",
    )
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from favakit.contracts import EditRequest
    from favakit.inference.checker import CONFIG_NAME, Checker, checker_folder
    from favakit.inference.evidence_reading import fit_evidence
    from favakit.inference.factory import open_verifier
    from favakit.spec import ClientSpec
    from favakit.training.checker import data_files
    from favakit.training.pairs import prepare

    folder = Path(checker_folder(args.checker))
    checker = Checker(folder)
    dev = prepare(data_files(args.dev), args.dev_fraction, hard_share=0.0).dev
    if args.dev_rows and len(dev) > args.dev_rows:  # a seeded sample, the same share per source
        keep = sorted(random.Random("cascade-dev").sample(range(len(dev)), args.dev_rows))
        dev = [dev[i] for i in keep]
    cached = (json.loads(args.scores_cache.read_text())
              if args.scores_cache and args.scores_cache.exists() else {})  # fmt: skip
    if cached.get("checker") == str(folder) and cached.get("ids") == [d.id for d in dev]:
        scores = cached["scores"]
    else:
        scores = [p for p, _ in checker.score([d.text for d in dev], [d.evidence for d in dev])]
        if args.scores_cache:
            args.scores_cache.write_text(json.dumps(
                {"checker": str(folder), "ids": [d.id for d in dev], "scores": scores}))  # fmt: skip
    t = checker.threshold
    nearest = sorted(range(len(dev)), key=lambda i: abs(scores[i] - t))
    inside = sorted(nearest[: max(1, round(args.share * len(dev)))])
    low, high = min(scores[i] for i in inside), max(scores[i] for i in inside)
    rng = random.Random("cascade-band")
    picked: list[int] = []
    for source in sorted({dev[i].source for i in inside}):
        mine = [i for i in inside if dev[i].source == source]
        picked += sorted(rng.sample(mine, min(args.per_source, len(mine))))
    judge = open_verifier("llm", ClientSpec(model=args.judge, endpoint=args.judge_endpoint))
    # the judge reads what the cascade gives it: the evidence cut to --second-words words
    claims = [EditRequest.from_obj({"text": dev[i].text, "evidence": [fit_evidence(
        dev[i].text, dev[i].evidence, args.second_words)]}) for i in picked]  # fmt: skip
    t0 = time.perf_counter()
    verdicts = judge.verify(claims)
    seconds = time.perf_counter() - t0
    human = [dev[i].label for i in picked]
    by_checker = [scores[i] > t for i in picked]
    by_judge = [bool(v["supported"]) for v in verdicts]
    per_source = {}
    for source in sorted({dev[i].source for i in picked}):
        idx = [n for n, i in enumerate(picked) if dev[i].source == source]
        per_source[source] = {
            "rows": len(idx),
            "checker_accuracy": round(sum(by_checker[n] == human[n] for n in idx) / len(idx), 4),
            "judge_accuracy": round(sum(by_judge[n] == human[n] for n in idx) / len(idx), 4),
        }
    summary: dict[str, Any] = {
        "date": date.today().isoformat(), "checker": checker.name, "judge": args.judge,
        "threshold": t, "share": args.share, "band": [round(low, 4), round(high, 4)],
        "second_words": args.second_words,
        "dev_rows": len(dev), "in_band": len(inside), "sampled": len(picked),
        "judge_seconds_per_claim": round(seconds / max(1, len(picked)), 3),
        "in_band_checker": agreement(human, by_checker), "in_band_judge": agreement(human, by_judge),
        "per_source": per_source,
    }  # fmt: skip
    summary["judge_better"] = (
        summary["in_band_judge"]["balanced_accuracy"]
        > summary["in_band_checker"]["balanced_accuracy"]
    )
    print(json.dumps(summary, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    if args.write and not summary["judge_better"]:
        print("not stored: the judge is not better than the checker inside the band")
    elif args.write:
        meta = json.loads((folder / CONFIG_NAME).read_text())
        meta["cascade"] = {"judge": args.judge, "band": summary["band"], "share": args.share,
                           "second_words": args.second_words,
                           "chosen_on": "the development split (scripts/cascade_band.py)",
                           "in_band_balanced_accuracy": {
                               "checker": summary["in_band_checker"]["balanced_accuracy"],
                               "judge": summary["in_band_judge"]["balanced_accuracy"]}}  # fmt: skip
        (folder / CONFIG_NAME).write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
