#!/usr/bin/env bash
# Issue 35 §1–§3 on the GPU machine, in one binary set, within about 8 minutes.
# Runs in the repository root after scripts/gpu/gpu_session.sh `setup`, `chunk NN`… and `wait` (the CUDA
# build of llama-server, llama-bench and llama-quantize in $G/build/bin, the 1.5B Q4_K_M model at $G/model.gguf).
#
#   scripts/gpu/round3.sh floor    §1 step_floor.py: llama-bench pp65 (the floor) and tg1 at depths 1k/2k/4k,
#                                  with and without CUDA graphs; the server's plain and cap-64 steps at the
#                                  same depths split into forward / verification / other, greedy-argmax-v1
#                                  on and off; a -lv 5 pass counting CUDA graph reuses per step (~2.5 min)
#   scripts/gpu/round3.sh argmax   §2 bench_copy: none / prediction+ngram-mod at cap 64 on the rename and
#                                  region prompts, variants fast (ids on), noargmax (ids off) and the same
#                                  with the phase log; side-by-side identity and lossless verdicts (~2 min)
#   scripts/gpu/round3.sh quant    §3 llama-quantize the model to Q8_0 and F16, then bench_copy none /
#                                  prediction+ngram-mod at cap 64, variants fast and steps, per format (~3 min)
#   scripts/gpu/round3.sh all      the three, in that order (default)
#
# Writes to $OUT (7 files): floor.{txt,json}, argmax.{txt,json}, quant.{txt,json}, round3.log.
# PY, GPU_STATE, R3_DEPTHS, R3_GEN, R3_REPS, R3_MAX_TOKENS, R3_KINDS, R3_FILES, R3_NGL, R3_FORMATS, R3_TIMEOUT_SCALE override
# the defaults (a smoke run on another machine: small depths and replies, -ngl 0).
set -uo pipefail
G=${GPU_STATE:-/root/gpu}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" "$G/r3"
PY=${PY:-python3}
export PYTHONPATH="$G/site:$PWD" PYTHONUNBUFFERED=1 CODER_HOME="$G/home" PATH="/usr/local/cuda/bin:$PATH"
BIN="$G/build/bin"
MODEL="$G/model.gguf"
LOG="$OUT/round3.log"
FILES=${R3_FILES:-$($PY -c 'import textwrap,linecache;print(textwrap.__file__, linecache.__file__)')}
DEPTHS=${R3_DEPTHS:-1024,2048,4096}
GEN=${R3_GEN:-512}
REPS=${R3_REPS:-10}
MAXTOK=${R3_MAX_TOKENS:-1100}
KINDS=${R3_KINDS:-rename,region}
NGL=${R3_NGL:-99}
FORMATS=${R3_FORMATS:-Q8_0,F16}
TS=${R3_TIMEOUT_SCALE:-1}  # a slower machine (the CPU smoke run) scales every timeout
for b in llama-server llama-bench llama-quantize; do
  [ -x "$BIN/$b" ] || { echo "no $b in $BIN (gpu_session.sh setup builds it; then wait)"; exit 1; }
done
[ -f "$MODEL" ] || { echo "no model at $MODEL"; exit 1; }
# the tables of a bench_copy log: everything but the per-run progress lines
tables() { grep -v '^  [a-z].*tok/s  AL' "$1" | grep -v '^config '; }

floor() {
  echo "== floor $(date -u +%T)" | tee -a "$LOG"
  timeout $((200 * TS)) $PY scripts/gpu/step_floor.py --binary "$BIN/llama-server" --bench "$BIN/llama-bench" \
    --model "$MODEL" --ngl "$NGL" --depths "$DEPTHS" --gen "$GEN" --reps "$REPS" --nographs --graph-debug \
    --json "$OUT/floor.json" > "$OUT/floor.txt" 2>> "$LOG"
  echo "step_floor rc=$? (3: greedy-argmax-v1 changed a reply)" | tee -a "$OUT/floor.txt"
  cat "$OUT/floor.txt"
}

argmax() {
  echo "== argmax $(date -u +%T)" | tee -a "$LOG"
  # the first variant is the reference: the ids on, as the build ships
  timeout $((200 * TS)) $PY scripts/bench_copy.py --binary "$BIN/llama-server" --model "$MODEL" --ngl "$NGL" --ctx 16384 \
    --files $FILES --configs none,prediction+ngram-mod --variants fast,noargmax,steps,steps+noargmax --caps 64 \
    --no-ceiling --kinds "$KINDS" --max-tokens "$MAXTOK" --no-cold-shape --json "$G/r3/argmax.json" \
    > "$G/r3/argmax.log" 2>&1
  echo "bench_copy rc=$?" | tee -a "$LOG"
  cat "$G/r3/argmax.log" >> "$LOG"
  tables "$G/r3/argmax.log" > "$OUT/argmax.txt"
  cp "$G/r3/argmax.json" "$OUT/argmax.json" 2>/dev/null || cp "$G/r3/argmax.partial.json" "$OUT/argmax.json"
  # the argmax counters of every server bench_copy started (its logs are removed with it: the last line
  # of each is in the json's step summaries only when the phase log ran); the table says the rest
  cat "$OUT/argmax.txt"
}

quant() {
  echo "== quant $(date -u +%T)" | tee -a "$LOG"
  local models=("Q4_K_M=$MODEL")
  for f in ${FORMATS//,/ }; do
    local q="$G/r3/model-$f.gguf"
    if [ ! -s "$q" ]; then
      local t0=$(date +%s)
      "$BIN/llama-quantize" --allow-requantize "$MODEL" "$q.tmp" "$f" 16 >> "$LOG" 2>&1 && mv "$q.tmp" "$q" \
        || { echo "llama-quantize $f failed" | tee -a "$LOG"; continue; }
      echo "quantized $f in $(( $(date +%s) - t0 )) s: $(du -h "$q" | cut -f1)" | tee -a "$LOG"
    fi
    models+=("$f=$q")
  done
  local jsons=()
  for m in "${models[@]}"; do
    local fmt=${m%%=*} path=${m#*=}
    timeout $((120 * TS)) $PY scripts/bench_copy.py --binary "$BIN/llama-server" --model "$path" --ngl "$NGL" --ctx 16384 \
      --files $FILES --configs none,prediction+ngram-mod --variants fast,steps --caps 64 --no-ceiling \
      --kinds "$KINDS" --max-tokens "$MAXTOK" --no-cold-shape --json "$G/r3/quant-$fmt.json" \
      > "$G/r3/quant-$fmt.log" 2>&1
    echo "bench_copy $fmt rc=$?" | tee -a "$LOG"
    cat "$G/r3/quant-$fmt.log" >> "$LOG"
    [ -f "$G/r3/quant-$fmt.json" ] || cp "$G/r3/quant-$fmt.partial.json" "$G/r3/quant-$fmt.json" 2>/dev/null
    jsons+=("$fmt=$G/r3/quant-$fmt.json")
  done
  $PY scripts/gpu/round3_report.py quant --json "$OUT/quant.json" "${jsons[@]}" > "$OUT/quant.txt" 2>> "$LOG"
  cat "$OUT/quant.txt"
}

case "${1:-all}" in
floor) floor ;;
argmax) argmax ;;
quant) quant ;;
all) floor; argmax; quant ;;
*) echo "unknown step $1 (floor, argmax, quant, all)"; exit 2 ;;
esac
