#!/usr/bin/env bash
# The checker's training-data ablation and its encoder comparison, in one run, arms side by side
# (issue 31): each arm is `favakit train --config minilm_checker` on one encoder and one data
# mix, then scripts/bench_checker.py on the real development split (the figure that chooses)
# and on every eval set and eval_spans set (figures that only measure).
#
#   BASES=runs/bases REAL=../shared/data/real SYNTH=runs/synth/claims/train.jsonl \
#     OUT=runs/ablation bash scripts/checker_ablation.sh
#
# BASES holds one folder per encoder (minilm/, mpnet/: a plain transformers folder each).
# SYNTH is `favakit synth claims` output (docs/benchmarks.md gives the command).
# ARMS (default below) is "ENCODER:DATA[:loraR] ..." with DATA one of real, synthetic, both, and
# loraR (e.g. lora16) training a LoRA adapter of rank R (lr LORA_LR, default 3e-4; the encoder's
# attention and feed-forward layers) instead of the whole encoder; ARMS=""
# trains nothing and only gathers (and picks from) the arms already in $OUT.
# Arms run at once (a GPU has room for several; on a CPU run one: ARMS=minilm:real).
# TIME_LIMIT (seconds of training per arm, default 0: none) ends an arm early with its model
# saved and a checkpoint kept (notes.time_limit_s; delete $OUT/*/checkpoint if it will not be
# resumed). EPOCHS overrides the epochs (3 for MiniLM, 2 for larger encoders);
# EXTRA adds overrides to every arm (e.g. the teacher of a distilled student:
# EXTRA="notes.teacher_scores=runs/teacher_scores.jsonl notes.teacher_weight=0.5"). PICK=1 packs the MiniLM arm with the best development mean in
# int8 to $OUT/picked (the shippable size).
set -euo pipefail
: "${BASES:?set BASES}" "${REAL:?set REAL}" "${SYNTH:?set SYNTH}" "${OUT:?set OUT}"
ARMS=${ARMS-"minilm:real minilm:synthetic minilm:both mpnet:real mpnet:both"}
TIME_LIMIT=${TIME_LIMIT:-0}
PY=${PY:-python3}
REAL_FILES="$REAL/train/*.jsonl,$REAL/train_spans/*.jsonl"
mkdir -p "$OUT"

arm() {  # ENCODER DATA [loraR]
  local enc=$1 data=$2 method=${3:-} dir="$OUT/$1_$2${3:+_$3}" files lr epochs lora=()
  case $data in
    real) files=$REAL_FILES ;;
    synthetic) files=$SYNTH ;;
    both) files="$REAL_FILES,$SYNTH" ;;
    *) echo "unknown data mix: $data" >&2; return 2 ;;
  esac
  case $enc in
    minilm) lr=0.00005; epochs=3 ;;
    *) lr=0.00003; epochs=2 ;;
  esac
  epochs=${EPOCHS:-$epochs}
  if [ -n "$method" ]; then
    lr=${LORA_LR:-0.0003}
    case $enc in
      mpnet) targets="[q,k,v,o,intermediate.dense,output.dense]" ;;
      *) targets="[query,key,value,dense]" ;;
    esac
    lora=(method=lora "lora.r=${method#lora}" "lora.alpha=$((2 * ${method#lora}))" "lora.target_modules=$targets")
  fi
  "$PY" -m favakit train --config minilm_checker "model=$BASES/$enc" "data.train_file=$files" \
    "output_dir=$dir" "lr=$lr" "epochs=$epochs" eval_every=400 save_every=0 log_every=100 \
    "notes.name=favakit-checker-${enc}-${data}${method:+-$method}" "notes.time_limit_s=$TIME_LIMIT" \
    "${lora[@]}" ${EXTRA:-} \
    >"$dir.train.log" 2>&1
  "$PY" scripts/bench_checker.py --real "$REAL" --judges checker --checker "$dir/model" \
    --dev "$REAL_FILES" --spans --out "$dir/bench.json" >"$dir.bench.log" 2>&1
  echo "arm $enc:$data done"
}

pids=()
for a in $ARMS; do
  IFS=: read -r enc data method <<<"$a"
  arm "$enc" "$data" "$method" &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done

"$PY" - "$OUT" <<'EOF'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
rows = []
for bench in sorted(out.glob("*/bench.json")):
    for r in json.loads(bench.read_text()):
        if "meta" not in r:
            rows.append({"arm": bench.parent.name, **r})
(out / "ablation.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
for r in rows:
    if r.get("set") in ("dev mean", "mean of the four targets") and r.get("rows") != "sample":
        print(r["arm"], r["set"], r["balanced_accuracy"])
EOF

if [ "${PICK:-0}" = 1 ]; then
  best=$("$PY" - "$OUT" <<'EOF'
import json, sys
from pathlib import Path
dev = {}
for line in (Path(sys.argv[1]) / "ablation.jsonl").open():
    r = json.loads(line)
    if r["set"] == "dev mean" and r["arm"].startswith("minilm_"):
        dev[r["arm"]] = r["balanced_accuracy"]
print(max(dev, key=dev.get))
EOF
)
  echo "picked by the development split: $best"
  "$PY" -m favakit train pack-checker --detector "$OUT/$best/model" --out "$OUT/picked"
fi
exit $status
