#!/usr/bin/env bash
# A GPU benchmark session, one step per call on the device machine (scripts/gpu/README.md lists the calls).
# Runs on the device machine in the repository root; state lives in /root/gpu across calls on the
# same (warm) machine. What it carries was made beforehand by scripts/gpu/gpu_prepare.py.
#
#   setup          wheels into /root/gpu/site; unpack the patched source; start the CUDA build (setsid) of
#                  llama-server, llama-bench and llama-quantize (round3.sh measures with all three)
#   chunk NN       append model piece NN (.gpu/m/NN/part) to /root/gpu/model.gguf (idempotent)
#   wait [S]       wait up to S s (default 540) for the build, then check the model's sha256
#   copy           bench_copy: none / ngram-mod / prediction+ngram-mod at cap 64, fast vs stock side by side
#   steps          bench_copy with the per-step phase log (and CUDA graphs off), for attribution
#   prose          bench_copy: fresh prose and region rewrites, none vs prediction + ngram-mod at cap 64, CUDA
#                  graphs on and off side by side, with the lossless verdicts (issue 35's fresh-prose and region rows)
#   policy [VAR]   bench_copy: region and full rewrites, prediction + ngram-mod at cap 64 with today's draft sizing
#                  and the sized policy (VAR, default `sized`) side by side in one binary, with the lossless verdicts
#   e2e            bench_e2e: `coder edit` and the engine, cold and warm, full and region, on the GPU profile
#   split [RUNS]   `coder edit`'s own wall-time split per phase (scripts/dev/edit_split.py), byte-compiled first,
#                  with the image's python3, then again from a venv that sees only coder's packages; and, when
#                  an earlier tree is carried as .old (its coder/ and scripts/dev/), that tree's split in the venv
#   edits [MODES]  coder bench --edits on the GPU profile (the edit-correctness suite; default auto,full)
#   linefix        scripts/dev/linefix_ab.py: the line question of an unchanged fix, both forms side by side, on a
#                  plain llama-server (127.0.0.1, no drafting: the answers are short)
#   diagnose       scripts/dev/diagnose_ab.py: an unchanged fix asked again, sampled as it is or diagnosed first,
#                  on the same plain llama-server
#   sample         scripts/dev/sample_ab.py: how often sampled replies mend an unchanged fix, every sample judged
#                  (AB_ARGS="--pairs ... --n 16 --temperature 1.0"), on the same plain llama-server
#   locate         scripts/dev/locate_ab.py: which function holds the bug, the model asked under an enum of the
#                  file's functions (names only, or the whole file), on the same plain llama-server
#   status         build and model state
set -uo pipefail
G=${GPU_STATE:-/root/gpu}
OUT=${OUT:-/tmp/out}
mkdir -p "$G" "$OUT"
PY=python3
export PYTHONPATH="$G/site:$PWD" PYTHONUNBUFFERED=1 CODER_HOME="$G/home" PATH="/usr/local/cuda/bin:$PATH"
BIN="$G/build/bin/llama-server"
MODEL="$G/model.gguf"
FILES="--files $($PY -c 'import textwrap,linecache;print(textwrap.__file__, linecache.__file__)')"

build_state() {
  if [ -x "$BIN" ] && [ "$(cat "$G/build.rc" 2>/dev/null)" = 0 ]; then
    echo "build: done ($(du -h "$BIN" | cut -f1); $(ls "$G/build/bin" | grep -cE '^llama-(server|bench|quantize)$') of 3 tools)";
  elif [ -f "$G/build.rc" ]; then echo "build: FAILED rc=$(cat "$G/build.rc")"; tail -20 "$G/build.log";
  else echo "build: running: $(grep -o '^\[[0-9]*/[0-9]*\]' "$G/build.log" 2>/dev/null | tail -1)"; fi
}

gpu_profile() {  # the qwen-gpu profile in $CODER_HOME's config (e2e, split)
  mkdir -p "$CODER_HOME"
  mkdir -p "$CODER_HOME/config"
  cat > "$CODER_HOME/config/config.toml" <<EOF
default_profile = "qwen-gpu"
[profiles.qwen-gpu]
model = "$MODEL"
binary = "$BIN"
spec_type = "prediction,ngram-mod"
k = 8
ngl = 99
ctx = 16384
EOF
}

case "${1:-status}" in
setup)
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$G/site" .whl/*.whl || exit 1
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
  rm -rf "$G/src" "$G/build" "$G/build.rc"; mkdir -p "$G/src"
  tar xJf .gpu/src/llama.tar.xz -C "$G/src" \
    || $PY -c "import tarfile; tarfile.open('.gpu/src/llama.tar.xz').extractall('$G/src')" || exit 1
  cat "$G/src/llama.cpp/CODER_PATCHES"
  # configure + build in its own session: it outlives this call (about 5.5 min on 16 cores)
  setsid bash -c "cd $G && { cmake -S src/llama.cpp -B build -G Ninja $(tr '\n' ' ' < .gpu/src/cmake_args.txt) \
    && cmake --build build --target llama-server llama-bench llama-quantize -j 16; } > build.log 2>&1; echo \$? > build.rc" \
    < /dev/null > /dev/null 2>&1 &
  sleep 5; build_state
  $PY -c "import coder.cli.main, coder.edit.run.engine, coder.bench.lossless, openai; print('coder imports ok')"
  ;;
chunk)
  n=$2
  if grep -qx "$n" "$G/model.parts" 2>/dev/null; then echo "piece $n already appended"; else
    cat ".gpu/m/$n/part" >> "$MODEL" && echo "$n" >> "$G/model.parts"; fi
  echo "model: $(wc -l < "$G/model.parts") pieces, $(stat -c %s "$MODEL") bytes"; build_state
  ;;
wait)
  limit=${2:-540}; t=0
  # the whole build, not just llama-server: llama-bench and llama-quantize may link after it
  while [ ! -f "$G/build.rc" ] && [ $t -lt "$limit" ]; do sleep 10; t=$((t + 10)); done
  build_state
  want=$($PY -c "import json;print(json.load(open('.gpu/manifest.json'))['sha256'])")
  have=$(sha256sum "$MODEL" | cut -d' ' -f1)
  [ "$want" = "$have" ] && echo "model sha256 ok" || { echo "model sha256 MISMATCH ($have)"; exit 1; }
  "$BIN" --version 2>&1 | tail -2
  ;;
copy)
  $PY scripts/bench_copy.py --binary "$BIN" --model "$MODEL" --ngl 99 --ctx 16384 $FILES \
    --configs none,ngram-mod,prediction+ngram-mod --variants fast,stock --caps 64 --no-ceiling \
    --kinds rename,param,docstrings,region,fresh --max-tokens 1100 --json "$OUT/copy_ab.json" 2>&1 \
    | tee "$OUT/copy_ab.log" | grep -v "^  "
  ;;
steps)
  $PY scripts/bench_copy.py --binary "$BIN" --model "$MODEL" --ngl 99 --ctx 16384 $FILES \
    --configs none,prediction+ngram-mod --variants steps,nographs --caps 8,16,32,64 --no-ceiling \
    --kinds rename,region --max-tokens 1100 --no-cold-shape --json "$OUT/copy_steps.json" 2>&1 \
    | tee "$OUT/copy_steps.log" | grep -v "^  "
  ;;
prose)
  $PY scripts/bench_copy.py --binary "$BIN" --model "$MODEL" --ngl 99 --ctx 16384 $FILES \
    --configs none,prediction+ngram-mod --variants fast,nographs --caps 64 --no-ceiling \
    --kinds region,fresh --max-tokens 1100 --reps "${2:-3}" --json "$OUT/prose.json" 2>&1 \
    | tee "$OUT/prose.log" | grep -v "^  "
  ;;
policy)
  # issue 35's region row: the prediction drafter's sizing policy (scripts/draft_policy_sim.py), one server
  # launch per variant so that ngram-mod's table starts equal; plain greedy once, as the lossless reference
  $PY scripts/bench_copy.py --binary "$BIN" --model "$MODEL" --ngl 99 --ctx 16384 $FILES \
    --configs none,prediction+ngram-mod --variants "fast,${2:-sized}" --variants-for prediction+ngram-mod \
    --caps 64 --no-ceiling --kinds rename,param,docstrings,region --max-tokens 1100 --reps "${3:-1}" \
    --json "$OUT/policy.json" 2>&1 | tee "$OUT/policy.log" | grep -v "^  "
  ;;
e2e)
  gpu_profile
  $PY scripts/bench_e2e.py --profile qwen-gpu --cases linecache,textwrap --json "$OUT/e2e.json" 2>&1 \
    | tee "$OUT/e2e.log"
  ;;
split)
  gpu_profile
  # the wheels went in with --no-compile: without bytecode every import compiles its source first
  $PY -m compileall -q -j 0 "$G/site" coder >/dev/null 2>&1
  $PY -m coder backend start qwen-gpu >"$OUT/split_start.log" 2>&1 || { tail -5 "$OUT/split_start.log"; exit 1; }
  $PY scripts/dev/edit_split.py --profile qwen-gpu --runs "${2:-6}" --modes region,full,reading,grammar,plan \
    --out "$OUT/edit_split.json" 2>&1 \
    | tee "$OUT/edit_split.log"
  # the same from a venv that sees only coder's packages, as scripts/setup installs coder: the image's python3
  # is a venv of ~200 packages whose .pth files run at every start. Its .pth lists the same folders as plain
  # paths (no .pth of theirs is run), so both runs import the same files
  VPY="$G/venv/bin/python"
  if [ ! -x "$VPY" ]; then
    $PY -m venv --without-pip "$G/venv" || exit 1
    { echo "$G/site"; $PY -c 'import site; print("\n".join(site.getsitepackages()))'; } \
      > "$("$VPY" -c 'import site; print(site.getsitepackages()[0])')/coder-deps.pth"
  fi
  for py in "$PY" "$VPY"; do  # what the interpreter alone costs at start, before coder's first line
    echo "start-up of $py (median of 5): $(for i in 1 2 3 4 5; do { TIMEFORMAT=%R; time PYTHONPATH="" "$py" -c pass; } \
      2>&1; done | sort -n | sed -n 3p) s"
  done | tee -a "$OUT/edit_split.log"
  PYTHONPATH="" "$VPY" scripts/dev/edit_split.py --profile qwen-gpu --runs "${2:-6}" \
    --modes region,full,reading,grammar,plan --out "$OUT/edit_split_venv.json" 2>&1 | tee "$OUT/edit_split_venv.log"
  if [ -d .old/coder ]; then  # another tree carried as .old (an earlier commit's coder/ and scripts/dev): the A/B
    $PY -m compileall -q -j 0 .old/coder >/dev/null 2>&1
    PYTHONPATH="" "$VPY" .old/scripts/dev/edit_split.py --profile qwen-gpu --runs "${2:-6}" \
      --modes region,full,reading,grammar,plan --out "$OUT/edit_split_old.json" 2>&1 | tee "$OUT/edit_split_old.log"
  fi
  $PY -m coder backend stop qwen-gpu >/dev/null 2>&1
  ;;
edits)
  $PY -m coder bench --edits --profile qwen-gpu --mode "${2:-auto,full}" --out "$OUT" 2>&1 | tee "$OUT/edits.log" \
    | grep -v "^  "
  ;;
linefix|diagnose|sample|locate)
  "$BIN" -m "$MODEL" -ngl 99 -c 16384 -np 1 --host 127.0.0.1 --port 8093 >"$OUT/$1_server.log" 2>&1 &
  pid=$!
  $PY -c "import time,urllib.request as u
for _ in range(120):
    try: u.urlopen('http://127.0.0.1:8093/health', timeout=2); break
    except Exception: time.sleep(0.5)"
  # AB_ARGS: the experiment's own options (sample: --pairs, --n, --first-seed, --temperature; locate: --forms)
  $PY "scripts/dev/$1_ab.py" --url http://127.0.0.1:8093 --out "$OUT/$1.json" ${AB_ARGS:-} 2>&1 | tee "$OUT/$1.log" \
    | tail -8
  kill "$pid"
  ;;
status)
  build_state; ls -la "$MODEL" 2>/dev/null; nvidia-smi --query-gpu=memory.used --format=csv,noheader
  ;;
*)
  echo "unknown step $1"; exit 2
  ;;
esac
