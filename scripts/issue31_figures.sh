#!/usr/bin/env bash
# Issue 31's figures, all in one run, so that none of them goes stale unmeasured (session 73 found
# the Flaherty figure had moved ten sessions before anyone measured it again):
#   1. the four target eval sets and their mean, every row, for each judge in JUDGES;
#   2. the Flaherty bio by FActScore's protocol (each fact against the topic's own article);
#   3. the speed protocol: 32 claims of train/wice.jsonl with 200 words of evidence, the encoder
#      and the judges side by side, batched and one claim a call.
# Every figure only measures: nothing here trains, or chooses a threshold or a checkpoint.
#
#   REAL=../shared/data/real FLAHERTY=../shared/data/factscore/flaherty_wikipedia.json \
#     OUT=runs/issue31 bash scripts/issue31_figures.sh
#
# JUDGES (default "checker=mpnet,checker=checker": the mpnet checker and the encoder) and
# SPEED_JUDGES (default those and "cascade", the default judge where both its bases are
# installed) are scripts/bench_checker.py judges; FACTSCORE_JUDGES (default
# "cascade,mpnet,checker") are scripts/bench_eval.py judges (leave "cascade" out where the Qwen
# judge is not installed). EVERY_ROW_JUDGES (default none; "cascade" for the default judge)
# adds slow judges to the eval sets, every row: over an hour more on 2 CPU cores.
# About 15 minutes on 2 CPU cores without it. Writes OUT/eval.json, OUT/flaherty.json,
# OUT/speed.json and prints a summary (OUT/summary.json).
set -euo pipefail
: "${REAL:?set REAL}" "${FLAHERTY:?set FLAHERTY}" "${OUT:?set OUT}"
JUDGES=${JUDGES:-checker=mpnet,checker=checker}
SPEED_JUDGES=${SPEED_JUDGES:-checker=checker,checker=mpnet,cascade}
FACTSCORE_JUDGES=${FACTSCORE_JUDGES:-cascade,mpnet,checker}
EVERY_ROW_JUDGES=${EVERY_ROW_JUDGES:-}
PY=${PY:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"

echo "== 1/3 the eval sets (every row)" >&2
EVAL_JUDGES=$JUDGES${EVERY_ROW_JUDGES:+,$EVERY_ROW_JUDGES}
"$PY" "$HERE/bench_checker.py" --real "$REAL" --sets fm2_test,wice_test,scifact,citint_test \
  --judges "$EVAL_JUDGES" ${EVERY_ROW_JUDGES:+--every-row} --out "$OUT/eval.json" > "$OUT/eval.log"
echo "== 2/3 the Flaherty bio (FActScore's protocol)" >&2
"$PY" "$HERE/bench_eval.py" --flaherty "$FLAHERTY" --judges "$FACTSCORE_JUDGES" \
  --work "$OUT/flaherty" --out "$OUT/flaherty.json" > "$OUT/flaherty.log"
echo "== 3/3 the speed protocol" >&2
"$PY" "$HERE/bench_checker.py" --real "$REAL" --sets "" --judges "$SPEED_JUDGES" \
  --speed-file "$REAL/train/wice.jsonl" --speed-words 200 --speed-claims 32 --speed-rounds 3 \
  --out "$OUT/speed.json" > "$OUT/speed.log"

"$PY" - "$OUT" <<'EOF'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
rows = json.loads((out / "eval.json").read_text())
summary = {"eval": {}, "flaherty": {}, "speed": {}}
for r in rows:
    if r.get("rows") == "all" and "balanced_accuracy" in r:
        summary["eval"].setdefault(r["judge"], {})[r["set"]] = r["balanced_accuracy"]
for r in json.loads((out / "flaherty.json").read_text())["results"]:
    summary["flaherty"][r["judge"]] = {"factscore": r["factscore"], "human": r["human_factscore"],
                                       "balanced_accuracy": r["balanced_accuracy"]}
for r in json.loads((out / "speed.json").read_text()):
    if "claims_per_s" in r:
        summary["speed"][f"{r['judge']} {r['calls']}"] = r["claims_per_s"]
(out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
print(json.dumps(summary, indent=1))
EOF
