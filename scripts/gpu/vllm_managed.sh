#!/usr/bin/env bash
# coder's own managed vLLM on the GPU machine: profile -> pre-flight -> `coder backend start` -> verify ->
# `coder edit --yes` on a real file -> `coder bench --quick` -> /metrics -> `coder backend stop` -> no process left.
#
#   bash scripts/gpu/vllm_managed.sh [TP]        TP = tensor_parallel_size (default 1)
#
# Runs in the repository root on the GPU machine, after `scripts/gpu/vllm_device.py commands` calls 1..install
# on the same machine: vLLM's wheels in $VLLM_ROOT/site, the HF checkpoint gguf_to_hf.py writes in $VLLM_ROOT/hf.
# coder's own dependencies: $CODER_SITE (default /root/gpu/site, as gpu_session.sh setup installs them), else
# installed here from a carried .whl/. Writes 7 files to $OUT, so that with a log of the caller's own the
# device's 8-file limit still returns them all (the replay test tests/unit/test_vllm_managed_real.py reads
# them from tests/data/engines/real_vllm_managed/):
#   serve.log start.json edit.json bench_quick.json metrics.txt procs.txt summary.json (the pre-flight in it)
# The API key is redacted from procs.txt and serve.log as soon as they are written (ps shows the argv;
# vLLM logs its arguments, `'api_key': [...]`), and from every file once more at the end.
# About 4-6 minutes on one H200: vLLM 0.26.0's first start took 3 min 21 s there, a warm one less; the
# steps after it fit what is left of 560 s (BUDGET_S). NVLink multicast stays off throughout.
set -uo pipefail
TP=${1:-1}
V=${VLLM_ROOT:-/root/vllm}
OUT=${OUT:-/tmp/out}
SITE=${CODER_SITE:-/root/gpu/site}
NAME=vllm-gpu
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export CODER_HOME=/tmp/coder-managed-home
rm -rf "$CODER_HOME"; mkdir -p "$CODER_HOME/config"
W=$(mktemp -d /tmp/vllm-managed.XXXX)   # scratch: step outputs that go into summary.json
T0=$(date +%s)
say() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - T0) )); }   # seconds left of one device call (600 s)
step() { echo "$1 $2 $(( $(date +%s) - T0 ))" >> "$W/steps"; }   # name rc seconds-since-start
redact() {  # FILE...: the key coder launched with (start.json holds it redacted; its key file, kept in
  # $W/keys at start because stop deletes it, does not) and any `--api-key X` / `'api_key': ['X']`
  python3 - "$CODER_HOME" "$W/keys" "$@" <<'PY'
import re, sys
from pathlib import Path
found = [k.read_text() for k in Path(sys.argv[1]).rglob("*.key")]
kept = Path(sys.argv[2]).read_text() if Path(sys.argv[2]).is_file() else ""
keys = {k.strip() for k in found + kept.splitlines()}
for name in sys.argv[3:]:
    f = Path(name)
    if not f.is_file():
        continue
    text = f.read_text(errors="replace")
    for key in keys:
        if len(key) >= 4:
            text = text.replace(key, "<redacted>")
    text = re.sub(r"(--api[-_]key[ =])(?!<redacted>)\S+", r"\1<redacted>", text)
    text = re.sub(r"('api_key': \[)'(?!<redacted>)[^']*'", r"\1'<redacted>'", text)
    f.write_text(text)
PY
}
: > "$W/steps"

# ---- prerequisites: vLLM installed, checkpoint converted, the kit's own attached server gone
test -d "$V/site/vllm" || { echo "no vLLM in $V/site: run vllm_device.py's install call first"; exit 2; }
for _ in $(seq 120); do test -s "$V/hf/config.json" && grep -q '^wrote' "$V/convert.log" 2>/dev/null && break; sleep 1; done
test -s "$V/hf/config.json" || { echo "no checkpoint in $V/hf (convert.log: $(tail -1 "$V/convert.log" 2>/dev/null))"; exit 2; }
if [ -s "$V/serve.pid" ] && kill "$(cat "$V/serve.pid")" 2>/dev/null; then  # vllm_device.py's serve call
  say "stopping the attached server of vllm_device.py (pid $(cat "$V/serve.pid"))"
  for _ in $(seq 60); do kill -0 "$(cat "$V/serve.pid")" 2>/dev/null || break; sleep 1; done
fi
rm -f "$V/serve.pid"
CHECK='import coder.cli.main, coder.edit.run.engine, coder.bench.lossless'
if ! PYTHONPATH="$PWD:$SITE" python3 -c "$CHECK" 2>/dev/null; then
  ls .whl/*.whl >/dev/null 2>&1 || { echo "coder's dependencies are not in $SITE and no .whl/ was carried"; exit 2; }
  python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$SITE" .whl/*.whl || exit 2
  PYTHONPATH="$PWD:$SITE" python3 -c "$CHECK" || exit 2
fi
export PYTHONPATH="$PWD:$SITE"   # coder's; vLLM gets its own through the wrapper below
C="python3 -m coder"

# ---- the profile: vLLM reached through a wrapper, as a user's venv shim would be (exec keeps the pid)
mkdir -p "$V/bin"
printf '#!/bin/sh\nPYTHONPATH=%s exec python3 -m vllm.entrypoints.cli.main "$@"\n' "$V/site" > "$V/bin/vllm"
chmod +x "$V/bin/vllm"
{
  echo "default_profile = \"$NAME\""
  echo "[profiles.$NAME]"
  echo 'engine = "vllm"'
  echo "model = \"$V/hf\""
  echo "binary = \"$V/bin/vllm\""
  echo 'spec_type = "ngram"'
  echo 'k = 5'
  echo 'ctx = 8192'
  echo 'gpu_memory_utilization = 0.4'
  echo 'extra_args = ["--enforce-eager"]'
  [ "$TP" -gt 1 ] && echo "tensor_parallel_size = $TP"
} > "$CODER_HOME/config/config.toml"
nvidia-smi --query-gpu=index,name,memory.used,memory.total --format=csv,noheader,nounits > "$W/gpus_before"
say "GPUs: $(wc -l < "$W/gpus_before"); profile $NAME (tensor_parallel_size $TP)"

# ---- pre-flight: the profile's TP, and TP 2 / 3 (3 must be refused: 2 KV heads; 2 refused on one GPU)
for tp in "$TP" 2 3; do
  echo "## coder backend preflight --engine vllm --model $V/hf --tensor-parallel-size $tp"
  $C backend preflight --engine vllm --model "$V/hf" --tensor-parallel-size "$tp"; echo "rc=$?"
done > "$W/preflight.txt" 2>&1   # goes into summary.json
$C backend start --dry-run > "$W/dry_run" 2>&1; step dry_run $?
grep -E 'FAIL|verdict|^rc' "$W/preflight.txt"

# ---- start (coder's own launch), then status
say "coder backend start $NAME"
timeout 400 $C backend start --json > "$OUT/start.json" 2> "$W/start.err"; rc=$?; step start $rc
find "$CODER_HOME" -name '*.key' -exec cat {} + > "$W/keys" 2>/dev/null; echo >> "$W/keys"
redact "$OUT/start.json"
say "start rc=$rc: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("verdict"))' "$OUT/start.json" 2>&1 | cut -c1-300)"
tail -3 "$W/start.err"
$C backend status --json > "$W/status.json" 2>&1; step status $?
LOG=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["log_path"])' "$OUT/start.json" 2>/dev/null)
[ -n "$LOG" ] || LOG=$(ls "$CODER_HOME"/*/logs/$NAME.log "$CODER_HOME"/*/$NAME.log 2>/dev/null | head -1)
LEADER=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$OUT/start.json" 2>/dev/null)
procs() {  # the server's session (pid, pgid, sid, ppid, command) and the GPUs' compute processes
  echo "## $1"
  ps -eo pid,pgid,sid,ppid,args | awk -v s="${LEADER:-0}" '(NR==1 || $3==s || /[v]llm|[V]LLM/) && !/vllm_managed/' \
    | cut -c1-220
  echo "## nvidia-smi compute apps ($1)"
  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader
}
procs "running" > "$OUT/procs.txt" 2>&1; redact "$OUT/procs.txt"
python3 -c "from coder.backends.runtime import proc; import json,sys; i=json.load(open(sys.argv[1])); \
print(json.dumps(proc.group_members(i['pid'], i.get('pid_start'))))" "$OUT/start.json" > "$W/members_before" 2>&1

if ! $C backend status $NAME > /dev/null 2>&1; then   # bench would launch it again: not in this call's time
  say "no server running after start: skipping edit and bench"; BUDGET_S=0
fi

# ---- coder edit --yes on a real file: a copy of the stdlib's linecache.py in a fresh git repository
R=$(mktemp -d /tmp/vllm-edit.XXXX)
cp "$(python3 -c 'import linecache; print(linecache.__file__)')" "$R/linecache.py"
(cd "$R" && git init -q && git -c user.name=coder -c user.email=coder@localhost add linecache.py \
  && git -c user.name=coder -c user.email=coder@localhost commit -qm base)
cp "$R/linecache.py" "$W/edit_before"
# a local variable first; if that is refused, the public-function rename vLLM 0.26.0 applied when attached
EDIT1="In the function getline only, rename the local variable lines to file_lines. Change nothing else."
EDIT2="Rename the function getline to get_line, also in __all__. Change nothing else."
rc=skipped
for m in "$EDIT1" "$EDIT2"; do
  [ "$(left)" -le 0 ] && break
  [ "$m" = "$EDIT2" ] && [ "$(left)" -lt 200 ] && { say "no time left for the second edit"; break; }
  say "coder edit --yes linecache.py -m '$m'"
  (cd "$R" && timeout 90 $C edit linecache.py --mode full --yes --json -m "$m") > "$OUT/edit.json" 2> "$W/edit.err"
  rc=$?; echo "$m" > "$W/edit_instruction"
  [ $rc -eq 0 ] && break
  tail -2 "$W/edit.err"
done
step edit $rc
cp "$R/linecache.py" "$W/edit_after"; (cd "$R" && git log --oneline | head -3) > "$W/edit_git"
tail -2 "$W/edit.err"

# ---- coder bench --quick on the managed profile
say "coder bench --quick (at most $(( $(left) - 50 ))s)"
B_S=$(( $(left) - 50 ))
if [ "$B_S" -ge 30 ]; then
  timeout $B_S $C bench --quick --profile $NAME --no-plots --out "$W/bench" > "$W/bench.txt" 2>&1; step bench $?
else step bench skipped; fi
B=$(ls "$W"/bench/*.json 2>/dev/null | head -1); [ -n "$B" ] && cp "$B" "$OUT/bench_quick.json"
grep -v '^  ' "$W/bench.txt" | tail -15

# ---- /metrics after the traffic, then stop and look for survivors
URL=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$OUT/start.json" 2>/dev/null)
python3 -c "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]+'/metrics',timeout=10).read().decode())" \
  "$URL" > "$OUT/metrics.txt" 2>&1; step metrics $?
[ -n "$LOG" ] && cp "$LOG" "$OUT/serve.log" && redact "$OUT/serve.log"
say "coder backend stop $NAME"
S0=$(date +%s.%N); $C backend stop $NAME > "$W/stop.txt" 2>&1; rc=$?; S1=$(date +%s.%N); step stop $rc
echo "$S0 $S1" > "$W/stop_time"; cat "$W/stop.txt"
for _ in $(seq 20); do  # the driver frees a killed process's memory a moment after it exits
  sleep 1
  paste -d, "$W/gpus_before" <(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits) \
    | awk -F, '{ if ($5 + 0 > $3 + 1024) bad = 1 } END { exit bad }' && break
done
procs "after stop" >> "$OUT/procs.txt" 2>&1
[ -n "$LOG" ] && cp "$LOG" "$OUT/serve.log"   # with the shutdown lines
redact "$OUT/procs.txt" "$OUT/serve.log"

# ---- summary.json: steps, pids before/after, the edit's before/after text, the checkpoint's config
python3 - "$W" "$OUT" "$TP" <<'EOF'
import json, os, re, sys
from pathlib import Path
w, out, tp = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
def text(p):
    try: return p.read_text(errors="replace")
    except OSError: return None
def js(p):
    try: return json.loads(p.read_text())
    except (OSError, ValueError): return None
steps = {n: {"rc": int(rc) if rc.isdigit() else rc, "at_s": int(t)} for n, rc, t in (l.split() for l in text(w / "steps").splitlines())}
log = text(out / "serve.log") or ""
logged = {name: int(pid) for name, pid in re.findall(r"^\((\w+) pid=(\d+)\)", log, re.M)}
before = js(w / "members_before") or []
alive = [p for p in sorted(set(before) | set(logged.values())) if Path(f"/proc/{p}").exists()
         and not Path(f"/proc/{p}/stat").read_text().split(")")[-1].split()[0] == "Z"]
s0, s1 = (float(x) for x in (text(w / "stop_time") or "0 0").split())
summary = {
    "tensor_parallel_size": tp, "steps": steps, "gpus": (text(w / "gpus_before") or "").splitlines(),
    "dry_run": (text(w / "dry_run") or "").strip(), "status": js(w / "status.json"),
    "start_stderr_tail": (text(w / "start.err") or "")[-1500:], "stop": (text(w / "stop.txt") or "").strip(),
    "stop_seconds": round(s1 - s0, 2), "group_before_stop": before, "logged_pids": logged,
    "alive_after_stop": alive, "edit_stderr_tail": (text(w / "edit.err") or "")[-1500:],
    "edit_instruction": (text(w / "edit_instruction") or "").strip(), "edit_before": text(w / "edit_before"), "edit_after": text(w / "edit_after"),
    "edit_git_log": (text(w / "edit_git") or "").splitlines(), "bench_tail": (text(w / "bench.txt") or "")[-2500:],
    "hf_config": js(Path(os.environ.get("VLLM_ROOT", "/root/vllm")) / "hf" / "config.json"),
    "vllm_version": next(iter(re.findall(r"version (\d+\.\d+\.\d+\S*)", log)), None),
    "preflight": text(w / "preflight.txt"),
}
start = js(out / "start.json")
edit = js(out / "edit.json") or {}
line = "SUMMARY " + json.dumps({
    "steps": {n: s["rc"] for n, s in steps.items()}, "verdict": (start or {}).get("verdict"),
    "edit": [summary["edit_instruction"][:40], edit.get("applied"), edit.get("refusal")],
    "processes": summary["logged_pids"], "stop_seconds": summary["stop_seconds"],
    "alive_after_stop": alive, "vllm": summary["vllm_version"]})
summary["summary_line"] = line  # the replay test reads it (or summary_line.txt when only the line came back)
(out / "summary.json").write_text(json.dumps(summary, indent=1))
print(line)
EOF
redact "$OUT"/*   # a dead server's random key, but keep it out of the recordings all the same
ls -la "$OUT"
