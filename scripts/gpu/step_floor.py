#!/usr/bin/env python3
"""The floor of a cap-64 verification step, side by side with the server's step, at several context depths.

One binary set, one run (issue 35 §1–§2). Per depth D:

* ``floor``: ``llama-bench -p 65 -n 0 -ub 65 -b 65 -d D``, the forward of a 65-token batch on the device
  (llama-bench asks for the last row's logits only), with CUDA graphs and, with ``--nographs``, without;
* ``plain``: ``llama-bench -n 1 -d D``, one decode step;
* the server's own steps (``LLAMA_CODER_STEP_TIMINGS=1``, the ``coder-step`` phase log): a plain
  greedy reply of ``--gen`` tokens continuing the first D tokens of ``--source``, then the same prompt with
  that reply as its prediction (prediction + ngram-mod at cap ``--cap``), so that nearly every step
  verifies a full draft. A step splits into forward (``decode_ms``: llama_decode plus the device sync, the
  logits copy included), verification (``verify_ms``) and other (the rest of the step). Each server runs
  with greedy-argmax-v1 on (``argmax``) and off (``noargmax``, today's greedy fast path on the host).

Lossless: every reply is compared token by token with the plain reply of the ``noargmax`` server at the
same depth (``first_difference`` of coder.bench.lossless; None: identical), and every ``argmax`` reply with
the same request's ``noargmax`` reply (``vs_noargmax``, which must be None; exit status 3 otherwise).

``--graph-debug`` adds one server at the middle depth with ``-lv 5``, whose log then holds ggml-cuda's
debug lines: it counts CUDA graph reuses, warm-up completions and resets per decode step, for a plain
reply and for a cap-64 reply (the evidence of whether the 65-token forward runs from a captured graph).

Writes ``--json`` and prints the table. Example (the CPU smoke run)::

    .venv/bin/python scripts/gpu/step_floor.py --binary B/llama-server --bench B/llama-bench \\
        --model demo.gguf --depths 256,512 --gen 48 --reps 2 --json /tmp/floor.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT)]

from bench_copy import CONFIGS, Server, generate  # noqa: E402
from copy_variants import step_summary  # noqa: E402

from coder.bench.lossless import first_difference  # noqa: E402

STEPS = {"LLAMA_CODER_STEP_TIMINGS": "1"}
NOARGMAX = {"LLAMA_CODER_NO_GREEDY_ARGMAX": "1"}
GRAPH_LINES = {"reused": r"CUDA Graph id \d+ reused", "warmup_complete": r"CUDA graph warmup complete",
               "warmup_reset": r"CUDA graph warmup reset", "update_failed": r"CUDA graph update failed",
               "disabled": r"disabling CUDA graphs"}


def bench(args: argparse.Namespace, nographs: bool) -> list[dict[str, Any]]:
    """llama-bench's pp65 (the floor) and tg1 (a plain step) at every depth, in ms per forward."""
    cmd = [args.bench, "-m", args.model, "-ngl", str(args.ngl), "-p", "65", "-n", "1", "-ub", "65", "-b", "65",
           "-d", ",".join(map(str, args.depths)), "-r", str(args.reps), "-o", "json"]
    env = {**os.environ, **({"GGML_CUDA_DISABLE_GRAPHS": "1"} if nographs else {})}
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.bench_timeout, check=False)
    if out.returncode != 0:
        print(f"llama-bench rc={out.returncode}: {out.stderr[-600:]}", file=sys.stderr)
        return []
    rows = []
    for r in json.loads(out.stdout):
        rows.append({"test": "pp65" if r["n_prompt"] else "tg1", "depth": r["n_depth"], "graphs": not nographs,
                     "ms": round(r["avg_ns"] / 1e6, 4), "stddev_ms": round(r["stddev_ns"] / 1e6, 4),
                     "samples_ms": [round(s / 1e6, 4) for s in r.get("samples_ns", [])]})
    return rows


def log_since(server: Server, at: int) -> str:
    """The server log written since byte ``at``."""
    with open(server.log_path, "rb") as fh:
        fh.seek(at)
        return fh.read().decode(errors="replace")


def run(server: Server, tokens: list[int], args: argparse.Namespace, *, cap: int | None = None,
        prediction: str | None = None) -> tuple[dict[str, Any], str]:
    """One greedy reply with its step summary and the log lines it wrote."""
    at = Path(server.log_path).stat().st_size
    r = generate(server.api, tokens, args.gen, cap=cap, prediction=prediction)
    text = log_since(server, at)
    r["steps"] = step_summary(text)
    return r, text


def split(steps: dict[str, Any] | None, kind: str) -> dict[str, float] | None:
    """forward / verification / other of the median step of ``kind`` (spec or plain)."""
    med = (steps or {}).get(f"{kind}_median") or {}
    if not med:
        return None
    total, fwd, ver = med["total_ms"], med["decode_ms"], med["verify_ms"]
    return {"n_batch": med["n_batch"], "total_ms": total, "forward_ms": fwd, "verify_ms": ver,
            "other_ms": round(total - fwd - ver, 3), "steps": (steps or {}).get(f"{kind}_steps", 0),
            "shape_changes": (steps or {}).get("shape_changes", 0)}


def prompts(server: Server, args: argparse.Namespace) -> dict[int, list[int]]:
    """The first D tokens of the source text, for every depth D."""
    text = "".join(Path(f).read_text(encoding="utf-8") for f in args.source)
    resp = server.api.post("/tokenize", {"content": text})
    resp.raise_for_status()
    toks = [int(t) for t in resp.json()["tokens"]]
    if len(toks) < max(args.depths):
        raise SystemExit(f"the source has {len(toks)} tokens, fewer than depth {max(args.depths)}")
    return {d: toks[:d] for d in args.depths}


def servers(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Plain and cap-``cap`` replies at every depth, with the ids (argmax) and without (noargmax)."""
    spec = [f.format(model=args.model, block=7, deep=args.cap) for f in CONFIGS["prediction+ngram-mod"]]
    rows: list[dict[str, Any]] = []
    toks: dict[int, list[int]] = {}
    plain_ref: dict[int, dict[str, Any]] = {}
    for variant, env in (("noargmax", {**STEPS, **NOARGMAX}), ("argmax", STEPS)):
        server = Server(args.binary, args.model, [], args, env)
        try:
            toks = toks or prompts(server, args)
            for d in args.depths:
                generate(server.api, toks[d], 1)  # prefill once: the measured reply starts warm
                r, _ = run(server, toks[d], args)
                plain_ref.setdefault(d, r)
                rows.append({"variant": variant, "config": "none", "depth": d, "n": r["n"], "tps": r["tps"],
                             "tokens": r["tokens"],
                             "first_difference": first_difference(plain_ref[d]["tokens"], r["tokens"]),
                             "step": split(r["steps"], "plain")})
        finally:
            server.close()
        server = Server(args.binary, args.model, spec, args, env)
        try:
            for d in args.depths:
                generate(server.api, toks[d], 1)
                r, _ = run(server, toks[d], args, cap=args.cap, prediction=plain_ref[d]["text"])
                rows.append({"variant": variant, "config": f"prediction+ngram-mod cap {args.cap}", "depth": d,
                             "n": r["n"], "tps": r["tps"], "al": r["al"], "tokens": r["tokens"],
                             "first_difference": first_difference(plain_ref[d]["tokens"], r["tokens"]),
                             "step": split(r["steps"], "spec"), "plain_in_run": split(r["steps"], "plain")})
        finally:
            server.close()
    # greedy-argmax-v1's own A/B: each reply with the ids against the same request without them
    off = {(r["config"], r["depth"]): r for r in rows if r["variant"] == "noargmax"}
    for r in rows:
        if r["variant"] == "argmax" and (ref := off.get((r["config"], r["depth"]))):
            r["vs_noargmax"] = first_difference(ref["tokens"], r["tokens"])
    if args.graph_debug:
        rows += graph_debug(args, spec, toks, plain_ref)
    for r in rows:
        r.pop("tokens", None)
    return rows


def graph_debug(args: argparse.Namespace, spec: list[str], toks: dict[int, list[int]],
                plain_ref: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """ggml-cuda's graph debug lines per decode step, plain and at cap ``cap`` (``-lv 5``, argmax on)."""
    d = args.depths[len(args.depths) // 2]
    server = Server(args.binary, args.model, [*spec, "-lv", "5"], args, STEPS)
    rows = []
    try:
        generate(server.api, toks[d], 1)
        for name, cap, pred in (("plain", 0, None), (f"cap {args.cap}", args.cap, plain_ref[d]["text"])):
            r, text = run(server, toks[d], args, cap=cap, prediction=pred)
            counts = {k: len(re.findall(p, text)) for k, p in GRAPH_LINES.items()}
            n_steps = len(re.findall(r"coder-step n_batch=", text))
            rows.append({"variant": "graph-debug", "config": name, "depth": d, "n": r["n"], "decode_steps": n_steps,
                         "graph_lines": counts, "step": split(r["steps"], "spec" if cap else "plain"),
                         "first_difference": first_difference(plain_ref[d]["tokens"], r["tokens"])})
    finally:
        server.close()
    return rows


def bench_rows(d: int) -> tuple[tuple[tuple[str, int, bool], str], ...]:
    """The llama-bench rows of one depth, in table order."""
    return ((("pp65", d, True), "llama-bench pp65 (floor)"), (("pp65", d, False), "llama-bench pp65, no graphs"),
            (("tg1", d, True), "llama-bench tg1 (plain step)"), (("tg1", d, False), "llama-bench tg1, no graphs"))


def fmt(x: float | None, w: int = 7, p: int = 2) -> str:
    """A number in a fixed width, '-' when missing."""
    return f"{x:{w}.{p}f}" if isinstance(x, (int, float)) else f"{'-':>{w}s}"


def table(result: dict[str, Any]) -> None:
    """Per depth: the floor, a plain step, and the server's steps split, with their ratios to the floor."""
    b = {(r["test"], r["depth"], r["graphs"]): r["ms"] for r in result["bench"]}
    print("cap-64 verification step vs its floor (ms; x = ratio to llama-bench pp65 with graphs at that depth)")
    print(f"{'depth':>6s} {'row':44s} {'total':>7s} {'fwd':>7s} {'verify':>7s} {'other':>7s} {'x floor':>7s} "
          f"{'x fwd':>7s} {'n_batch':>7s} {'steps':>5s} {'shapes':>6s} {'vs plain':>8s} {'vs off':>6s}")
    for d in result["depths"]:
        floor = b.get(("pp65", d, True))
        for key, label in bench_rows(d):
            if key in b:
                print(f"{d:6d} {label:44s} {fmt(b[key])} {fmt(b[key])} {'':7s} {'':7s} "
                      f"{fmt(b[key] / floor if floor else None)}")
        for r in result["rows"]:
            s = r.get("step")
            if r["depth"] != d or not s or r["variant"] == "graph-debug":
                continue
            label = f"server {r['config']} [{r['variant']}]"
            same = "same" if r["first_difference"] is None else f"@{r['first_difference']}"
            vs = "" if "vs_noargmax" not in r else "same" if r["vs_noargmax"] is None else f"@{r['vs_noargmax']}"
            print(f"{d:6d} {label[:44]:44s} {fmt(s['total_ms'])} {fmt(s['forward_ms'])} {fmt(s['verify_ms'])} "
                  f"{fmt(s['other_ms'])} {fmt(s['total_ms'] / floor if floor else None)} "
                  f"{fmt(s['forward_ms'] / floor if floor else None)} {s['n_batch']:7.0f} {s['steps']:5d} "
                  f"{s['shape_changes']:6d} {same:>8s} {vs:>6s}")
    for r in result["rows"]:
        if r["variant"] == "graph-debug":
            g = r["graph_lines"]
            print(f"graph debug, depth {r['depth']}, {r['config']}: {r['decode_steps']} decode steps, "
                  + ", ".join(f"{k} {v}" for k, v in g.items()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help="llama-server")
    ap.add_argument("--bench", help="llama-bench (its rows are skipped without it)")
    ap.add_argument("--model", required=True)
    ap.add_argument("--ngl", type=int, default=99)
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--depths", default="1024,2048,4096")
    ap.add_argument("--gen", type=int, default=512, help="tokens per reply")
    ap.add_argument("--cap", type=int, default=64)
    ap.add_argument("--reps", type=int, default=10, help="llama-bench repetitions")
    ap.add_argument("--bench-timeout", type=int, default=150)
    ap.add_argument("--nographs", action="store_true", help="llama-bench again with GGML_CUDA_DISABLE_GRAPHS=1")
    ap.add_argument("--graph-debug", action="store_true", help="count ggml-cuda's graph debug lines (-lv 5)")
    ap.add_argument("--source", nargs="*", default=[], help="text files the prompts are cut from")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args.depths = [int(d) for d in args.depths.split(",")]
    if not args.source:  # standard-library files, long enough for the deepest prompt
        import argparse as a
        import difflib
        import typing
        args.source = [typing.__file__, difflib.__file__, a.__file__]
    started = time.time()
    result: dict[str, Any] = {"depths": args.depths, "bench": [], "argv": sys.argv}
    if args.bench and Path(args.bench).exists():
        result["bench"] = bench(args, nographs=False) + (bench(args, nographs=True) if args.nographs else [])
    result["rows"] = servers(args)
    result["seconds"] = round(time.time() - started, 1)
    result["bench_median_ms"] = {f"{r['test']}@{r['depth']}{'' if r['graphs'] else '-nographs'}": r["ms"]
                                 for r in result["bench"]}
    table(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    print("vs plain: first differing token against plain greedy (noargmax) at that depth; a speculative reply may"
          " differ within the batch-shape noise floor (bench_copy's lossless check judges that). vs off: against the"
          " same request with greedy-argmax-v1 off, which must be 'same'.")
    # exit 3 when the ids changed a reply: greedy-argmax-v1 must not
    return 0 if all(r.get("vs_noargmax") is None for r in result["rows"]) else 3


if __name__ == "__main__":
    raise SystemExit(main())
