#!/usr/bin/env bash
# Backend sampling A/B and parallel slots on the GPU machine, in one binary, under 4 minutes.
# Runs in the repository root after scripts/gpu/gpu_session.sh `setup` and `wait` (the CUDA build at
# $G/build/bin/llama-server, the 1.5B model at $G/model.gguf, coder's wheels in $G/site).
#
#   scripts/gpu/step_ab.sh ab    bench_copy: none / prediction+ngram-mod at cap 64, each under
#                                steps (greedy fast path, today's), steps+bs (-bs) and
#                                steps+bs+argmax (-bs with an argmax-only greedy chain), with the
#                                per-step phase log (~2.5 min)
#   scripts/gpu/step_ab.sh np    bench_parallel: region requests at -np 1/2/4, at once and one after
#                                another (~1 min)
#   scripts/gpu/step_ab.sh all   both, ab first (default)
#
# Writes $OUT/step_ab.{json,log,txt} and $OUT/parallel.{json,log,txt}; the .txt files hold the tables.
# PY, GPU_STATE, STEP_AB_FILES, STEP_AB_MAX_TOKENS, STEP_AB_KINDS, STEP_AB_NP override the defaults
# (a smoke run on another machine).
set -uo pipefail
G=${GPU_STATE:-/root/gpu}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PY=${PY:-python3}
export PYTHONPATH="$G/site:$PWD" PYTHONUNBUFFERED=1 CODER_HOME="$G/home" PATH="/usr/local/cuda/bin:$PATH"
BIN="$G/build/bin/llama-server"
MODEL="$G/model.gguf"
FILES=${STEP_AB_FILES:-$($PY -c 'import textwrap,linecache;print(textwrap.__file__, linecache.__file__)')}
# smaller settings for a smoke run elsewhere (the defaults are the GPU run's)
MAXTOK=${STEP_AB_MAX_TOKENS:-1100}
KINDS=${STEP_AB_KINDS:-rename,region,fresh}
NPS=${STEP_AB_NP:-1,2,4}
[ -x "$BIN" ] || { echo "no build at $BIN (run scripts/gpu/gpu_session.sh setup, wait)"; exit 1; }
[ -f "$MODEL" ] || { echo "no model at $MODEL"; exit 1; }

ab() {
  # the first variant is the reference: side-by-side lines compare the others with it
  timeout 230 $PY scripts/bench_copy.py --binary "$BIN" --model "$MODEL" --ngl 99 --ctx 16384 --files $FILES \
    --configs none,prediction+ngram-mod --variants steps,steps+bs,steps+bs+argmax --caps 64 --no-ceiling \
    --kinds "$KINDS" --max-tokens "$MAXTOK" --no-cold-shape --json "$OUT/step_ab.json" \
    > "$OUT/step_ab.log" 2>&1
  echo "bench_copy rc=$?"
  # the tables: everything after the per-run progress lines
  grep -v '^  [a-z].*tok/s  AL' "$OUT/step_ab.log" | grep -v '^config ' > "$OUT/step_ab.txt"
  cat "$OUT/step_ab.txt"
}

np() {
  timeout 100 $PY scripts/bench_parallel.py --binary "$BIN" --model "$MODEL" --ngl 99 --files $FILES \
    --np "$NPS" --cap 64 --max-tokens "$((MAXTOK < 600 ? MAXTOK : 600))" --json "$OUT/parallel.json" > "$OUT/parallel.log" 2>&1
  echo "bench_parallel rc=$?"
  grep -v '^-np ' "$OUT/parallel.log" > "$OUT/parallel.txt"
  cat "$OUT/parallel.txt"
}

case "${1:-all}" in
ab) ab ;;
np) np ;;
all) ab; np ;;
*) echo "unknown step $1 (ab, np, all)"; exit 2 ;;
esac
