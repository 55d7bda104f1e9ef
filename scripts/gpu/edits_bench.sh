#!/usr/bin/env bash
# coder bench --edits on the GPU machine, and the Aider peer rows on the same server, one step per device call.
# Runs in the repository root of the device machine; state lives in /root/gpu across calls on the same warm
# machine: the llama-server CUDA build ($G/build/bin/llama-server) and the model ($G/model.gguf) made by
# scripts/gpu/gpu_session.sh, coder's wheels in $G/site (its `setup` step), Aider's in $G/aider-site (step below).
# Every step writes JSON + PNG + a log under $OUT/<step>/; they are kept in $G/edits for the `merge` step.
# With EDITS_ARGS="--set heldout" (or fresh) the steps are named <set>-<step> and kept in $G/edits-<set>,
# so that one set's results neither replace nor merge with another's (give `merge` the same EDITS_ARGS).
#
#   aider-setup            install .whl-aider/*.whl (61 wheels, no numpy/scipy) into $G/aider-site; time the import
#   coder [MODES] [K/N]    coder bench --edits, every (task, wording) pair (or shard K/N), in MODES (default auto)
#   aider FORMAT [K/N]     the Aider row in FORMAT (whole or diff): Aider 0.86.2 in one process, same server
#   merge                  join every result of this machine's steps into one table, JSON and plot
set -uo pipefail
G=${GPU_STATE:-/root/gpu}
OUT=${OUT:-/tmp/out}
PY=python3
export PYTHONPATH="$G/site:$PWD" PYTHONUNBUFFERED=1 CODER_HOME="$G/home" PATH="/usr/local/cuda/bin:$PATH"
BIN="$G/build/bin/llama-server"
MODEL="$G/model.gguf"
LIMIT=${EDITS_LIMIT_S:-560}  # one device call is at most 600 s: stop early and report what finished
EXTRA=${EDITS_ARGS:-}  # more `coder bench --edits` options, e.g. EDITS_ARGS="--tasks glob,getopt"
SET=$(sed -n 's/.*--set[= ]*\([a-z0-9]*\).*/\1/p' <<<"$EXTRA")  # the task set EDITS_ARGS names
[ "$SET" = suite ] && SET=
R="$G/edits${SET:+-$SET}"
mkdir -p "$G" "$OUT" "$R"

profile() {  # the GPU profile (same settings as gpu_session.sh's e2e step)
  [ -x "$BIN" ] && [ -f "$MODEL" ] || { echo "no build or model in $G: run scripts/gpu/gpu_session.sh first"; exit 1; }
  mkdir -p "$CODER_HOME/config"
  cat > "$CODER_HOME/config/config.toml" <<TOML
default_profile = "qwen-gpu"
[profiles.qwen-gpu]
model = "$MODEL"
binary = "$BIN"
spec_type = "prediction,ngram-mod"
k = 8
ngl = 99
ctx = 16384
TOML
}

step_dir() {  # a fresh folder under $OUT for one step's results
  D="$OUT/${SET:+$SET-}$1"; rm -rf "$D"; mkdir -p "$D"
}

keep() {  # copy this step's results to $R for the merge step (a step run again replaces its files)
  rm -f "$R/$1-"*
  for f in "$D"/edits-*.json "$D"/edits-*.png; do [ -f "$f" ] && cp "$f" "$R/$1-$(basename "$f")"; done
}

shard() { [ -n "${1:-}" ] && echo "--shard $1"; }

case "${1:-}" in
aider-setup)
  ls .whl-aider/*.whl >/dev/null 2>&1 || { echo "no .whl-aider/ (carry it)"; exit 1; }
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$G/aider-site" \
    .whl-aider/*.whl || exit 1
  PYTHONPATH="$G/aider-site" $PY -c "import time; t=time.perf_counter(); import aider.coders, aider.models; \
print(f'aider {__import__(\"aider\").__version__} imports in {time.perf_counter()-t:.1f} s')" 2>&1 | tail -3
  ;;
coder)
  profile
  part=${3:-all}; step_dir "coder-${part//\//of}"
  timeout -s INT "$LIMIT" $PY -m coder bench --edits --profile qwen-gpu --mode "${2:-auto}" $(shard "${3:-}") --keep-replies $EXTRA \
    --out "$D" 2>&1 | tee "$D/edits.log" | grep -v "^  "
  keep "coder-${part//\//of}"
  ;;
aider)
  profile
  [ -d "$G/aider-site/aider" ] || { echo "run the aider-setup step first"; exit 1; }
  fmt=${2:?whole or diff}
  part=${3:-all}; step_dir "aider-$fmt-${part//\//of}"
  $PY -m coder bench --edits --profile qwen-gpu --aider-only --aider "$PY" --aider-site "$G/aider-site" \
    --aider-formats "$fmt" --aider-timeout "$((LIMIT - 30))" $(shard "${3:-}") $EXTRA --out "$D" \
    2>&1 | tee "$D/edits.log" | grep -v "^  "
  keep "aider-$fmt-${part//\//of}"
  ;;
merge)
  ls "$R"/*.json >/dev/null 2>&1 || { echo "nothing to merge in $R"; exit 1; }
  step_dir merged
  $PY -m coder bench --edits --merge "$R"/*.json --out "$D" 2>&1 | tee "$D/edits.log"
  ;;
*)
  echo "usage: $0 aider-setup | coder [MODES] [K/N] | aider whole|diff [K/N] | merge"; exit 2
  ;;
esac
