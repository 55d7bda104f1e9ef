#!/usr/bin/env bash
# What ggml's AMX kernels buy on a CPU where they run: two CPU-only llama-servers from coder's patched
# source, identical but for AMX (on vs off), timed on the same GGUF for prefill and decode.
#
# Runs on the device machine in the repository root, with .gpu/src/llama.tar.xz and cmake_args.txt from
# scripts/gpu/gpu_prepare.py. Needs only bash, cmake, a C++ compiler and python3 (standard library).
#
#   scripts/gpu/amx_ab.sh MODEL.gguf     build both (unless built), measure, write the result
#   scripts/gpu/amx_ab.sh --collect      copy the result files into $OUT and print the table
#
# In the background (it outlives the `run` call; ~6 min of builds on 16 cores, then ~2 min of timing):
#   setsid scripts/gpu/amx_ab.sh /root/gpu/model.gguf < /dev/null > /dev/null 2>&1 &
# Results: $AMX_AB_DIR (default /root/gpu/amx_ab): amx_ab.log, amx_ab.json, and `done` when finished;
# also copied into $OUT when that is set. Where /proc/cpuinfo lists no amx_tile, it records the CPU
# model and exits 0 without building anything.
set -uo pipefail
G=${GPU_STATE:-/root/gpu}
R=${AMX_AB_DIR:-$G/amx_ab}
REPO=$PWD
THREADS=${AMX_AB_THREADS:-16}
mkdir -p "$R"

copy_out() {
  if [ -n "${OUT:-}" ]; then mkdir -p "$OUT" && cp -f "$R"/amx_ab.json "$R"/amx_ab.log "$OUT"/ 2>/dev/null; fi
  return 0
}
finish() {  # finish WHY RC: mark the run done, copy the results out, exit
  echo "$(date -u +%FT%TZ) $1" > "$R/done"; sleep 0.5; copy_out; exit "$2"
}

if [ "${1:-}" = "--collect" ]; then
  copy_out
  [ -f "$R/done" ] && echo "finished: $(cat "$R/done")" || echo "not finished yet"
  tail -25 "$R/amx_ab.log" 2>/dev/null
  exit 0
fi
MODEL=${1:?usage: amx_ab.sh MODEL.gguf | --collect}
rm -f "$R/done" "$R/amx_ab.json"
exec > >(tee -a "$R/amx_ab.log") 2>&1
echo "== amx_ab $(date -u +%FT%TZ) model=$MODEL threads=$THREADS"

CPU=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "cpu: $CPU ($(nproc) cores)"
# AMX_AB_DRY=1 skips both AMX checks (it times whatever is at amx_on/amx_off: a check of this script)
if [ "${AMX_AB_DRY:-0}" != 1 ] && ! grep -m1 '^flags' /proc/cpuinfo | grep -qw amx_tile; then
  echo "AMX is not listed in /proc/cpuinfo: nothing to compare"
  python3 - "$R/amx_ab.json" "$CPU" <<'EOF'
import json, sys
json.dump({"cpu": sys.argv[2], "amx_listed": False, "result": "AMX not listed: nothing built"},
          open(sys.argv[1], "w"), indent=2)
EOF
  finish "no AMX" 0
fi

# coder's own configurations: portable with every feature that executes here, and the same with AMX off
ARGS=$(PYTHONPATH="$REPO" python3 -S - <<'EOF'
from coder.backends import cpu_features as c
p = c.probe()
on = c.portable_config(p, "amx_ab", label="portable, AMX on")
off = c.portable_config(p, "amx_ab", without=c.AMX_FLAGS, label="portable, AMX off")
from shlex import quote
print("PERMISSION=" + quote(p.amx_detail))
print("AMX_USABLE=" + ("1" if p.amx_usable else "0"))
print("ON_ARGS=" + quote(" ".join(on.cmake)))
print("OFF_ARGS=" + quote(" ".join(off.cmake)))
EOF
) || { echo "could not run coder's CPU probe"; finish "probe failed" 1; }
eval "$ARGS"
echo "AMX permission: $PERMISSION"
if [ "$AMX_USABLE" != 1 ] && [ "${AMX_AB_DRY:-0}" != 1 ]; then
  echo "AMX is listed but this process may not use it: an AMX build cannot run here"
  python3 - "$R/amx_ab.json" "$CPU" "$PERMISSION" <<'EOF'
import json, sys
json.dump({"cpu": sys.argv[2], "amx_listed": True, "amx_permission": sys.argv[3],
           "result": "AMX listed but not permitted: nothing built"}, open(sys.argv[1], "w"), indent=2)
EOF
  finish "AMX not permitted" 0
fi

# coder's base arguments: the ones gpu_prepare wrote, less the device's CUDA and native-CPU ones
SRC="$G/amx_src/llama.cpp"
GEN=""; command -v ninja > /dev/null && GEN="-G Ninja"
for side in on off; do
  dir="$G/amx_$side"; [ $side = on ] && cpu_args=$ON_ARGS || cpu_args=$OFF_ARGS
  if [ -x "$dir/bin/llama-server" ]; then echo "amx_$side: already built"; continue; fi
  if [ ! -f "$SRC/CMakeLists.txt" ]; then
    rm -rf "$G/amx_src"; mkdir -p "$G/amx_src"
    tar xJf .gpu/src/llama.tar.xz -C "$G/amx_src" || { echo "cannot unpack .gpu/src/llama.tar.xz"; finish "unpack failed" 1; }
  fi
  BASE=$(grep -v -e '^-DGGML_CUDA' -e '^-DCMAKE_CUDA' -e '^-DGGML_NATIVE' .gpu/src/cmake_args.txt | tr '\n' ' ')
  echo "amx_$side: cmake $BASE $cpu_args"
  t0=$(date +%s)
  # shellcheck disable=SC2086  # word splitting of the argument lists is intended
  if ! { cmake -S "$SRC" -B "$dir" $GEN $BASE $cpu_args && cmake --build "$dir" --target llama-server -j 16; } \
      > "$R/build_$side.log" 2>&1; then
    echo "amx_$side: BUILD FAILED"; tail -15 "$R/build_$side.log"
  fi
  echo "amx_$side: $(( $(date +%s) - t0 ))s"
done

# time both: one server at a time, the same ~1000-token prompt (cut to exactly 1000 tokens), 128 tokens out
python3 - "$MODEL" "$THREADS" "$R/amx_ab.json" "$CPU" "$PERMISSION" "$G/amx_on/bin/llama-server" \
  "$G/amx_off/bin/llama-server" "$ON_ARGS" "$OFF_ARGS" <<'EOF'
import json, os, signal, socket, statistics, subprocess, sys, time, urllib.request

model, threads, out, cpu, permission, bin_on, bin_off, args_on, args_off = sys.argv[1:10]
TEXT = ("def merge(left, right):\n    out = []\n    while left and right:\n"
        "        out.append(left.pop(0) if left[0] <= right[0] else right.pop(0))\n"
        "    return out + left + right\n\n")
# the environment can shrink the run, for checking this script on a slow machine
REPS = int(os.environ.get("AMX_AB_REPS", "3"))
PROMPT = int(os.environ.get("AMX_AB_PROMPT", "1000"))
N_PREDICT = int(os.environ.get("AMX_AB_NPREDICT", "128"))

def post(port, path, body, timeout=600):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.load(r)

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

class Died(Exception):
    pass

def start(binary, log_path, extra=()):
    port = free_port()
    log = open(log_path, "wb")
    proc = subprocess.Popen([binary, "-m", model, "--host", "127.0.0.1", "--port", str(port), "-t", threads,
                             "-c", "4096", "-np", "1", "-ngl", "0", *extra], stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    log.close()
    deadline = time.time() + 300
    while time.time() < deadline:
        if proc.poll() is not None:
            raise Died(f"server exited with {proc.returncode} while loading "
                       f"({'SIGILL' if proc.returncode == -4 else 'see ' + log_path})")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5).read()
            return proc, port
        except OSError:
            time.sleep(0.5)
    stop(proc)
    raise Died("server not ready in 300 s")

def stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(20)

def side(name, binary, cmake):
    row = {"side": name, "binary": binary, "cmake": cmake.split()}
    if not os.access(binary, os.X_OK):
        return {**row, "error": "not built (see build log)"}
    base = os.path.join(os.path.dirname(out), f"server_{name}")
    proc = None
    try:
        # a first start at debug verbosity only to record what runs: ggml's feature line, and whether
        # the weights went to the AMX buffer type (the timed server logs at the default level)
        proc, port = start(binary, base + "_info.log", ("-lv", "4"))
        post(port, "/completion", {"prompt": TEXT, "n_predict": 4, "temperature": 0})
        stop(proc)
        text = open(base + "_info.log", errors="replace").read()
        row["system_info"] = next((ln.split("system_info:", 1)[1].strip() for ln in text.splitlines()
                                   if "system_info:" in ln), "")
        row["amx_buffer"] = "CPU_AMX" in text
        proc, port = start(binary, base + ".log")
        tokens = post(port, "/tokenize", {"content": TEXT * 40})["tokens"][:PROMPT]
        body = {"prompt": tokens, "n_predict": N_PREDICT, "temperature": 0, "cache_prompt": False, "ignore_eos": True}
        runs = []
        for i in range(REPS + 1):  # the first is a priming request
            t = post(port, "/completion", body)["timings"]
            if i:
                runs.append({"prompt_n": t["prompt_n"], "prefill_tok_s": t["prompt_per_second"],
                             "predicted_n": t["predicted_n"], "decode_tok_s": t["predicted_per_second"],
                             "loadavg": os.getloadavg()[0]})
        return {**row, "runs": runs, "prefill_tok_s": statistics.median(r["prefill_tok_s"] for r in runs),
                "decode_tok_s": statistics.median(r["decode_tok_s"] for r in runs)}
    except Died as exc:
        return {**row, "error": str(exc)}
    except (OSError, ValueError, KeyError) as exc:
        return {**row, "error": f"{type(exc).__name__}: {exc}", "exit": proc.poll() if proc else None}
    finally:
        if proc is not None:
            stop(proc)

result = {"cpu": cpu, "amx_listed": True, "amx_permission": permission, "model": model, "threads": int(threads),
          "prompt_tokens": PROMPT, "n_predict": N_PREDICT, "reps": REPS,
          "sides": [side("amx_on", bin_on, args_on), side("amx_off", bin_off, args_off)]}
on, off = result["sides"]
if "error" not in on and "error" not in off:
    result["prefill_on_over_off"] = round(on["prefill_tok_s"] / off["prefill_tok_s"], 3)
    result["decode_on_over_off"] = round(on["decode_tok_s"] / off["decode_tok_s"], 3)
json.dump(result, open(out, "w"), indent=2)
print(f"\n{'':10} {'prefill tok/s':>14} {'decode tok/s':>13}")
for s in result["sides"]:
    if "error" in s:
        print(f"{s['side']:10} {s['error']}")
    else:
        print(f"{s['side']:10} {s['prefill_tok_s']:>14.1f} {s['decode_tok_s']:>13.1f}"
              f"  (AMX buffer: {'yes' if s.get('amx_buffer') else 'no'})")
if "prefill_on_over_off" in result:
    print(f"{'on / off':10} {result['prefill_on_over_off']:>13.3f}x {result['decode_on_over_off']:>12.3f}x")
EOF
finish "timed rc=$?" 0
