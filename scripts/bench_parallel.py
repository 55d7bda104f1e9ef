#!/usr/bin/env python3
"""Concurrent region edits at ``-np 1/2/4``: per-request decode speed and the wall time of the batch.

A multi-region plan sends one region request per function; with ``-np N`` llama-server serves N of
them at once. For each N this launches one server (coder's build, speculation flags as
``scripts/bench_copy.py``'s ``--config``, default prediction + ngram-mod at a per-request cap), sends
N region prompts (coder's own region prompts for the N largest functions of ``--files``, each with
its prediction) at the same moment, greedy, and reports each request's decode tok/s (the server's
``timings``), its wall time, and the wall time until the last one finished, against the same N
requests sent one after another on the same server (what ``-np 1`` costs a plan).

    .venv/bin/python scripts/bench_parallel.py --binary BUILD/bin/llama-server --model M.gguf --ngl 99 \\
        --np 1,2,4 --json parallel.json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_copy import CONFIGS, CONTEXT_LINES, DEFAULT_FILES, DEFAULT_MODEL, Server  # noqa: E402

from coder.backends.runtime.server import ServerAPI  # noqa: E402
from coder.bench import lossless  # noqa: E402


def region_prompts(files: list[Path], n: int) -> list[tuple[str, list[dict[str, str]], str]]:
    """(name, messages, prediction) of region edits for the ``n`` largest functions across ``files``."""
    from coder.edit.run.prompt import build_messages, predicted_reply
    from coder.edit.source.regions import context_lines, python_symbols, split

    found = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        found += [(r.n_lines, path, text, name, r) for name, r in python_symbols(text) if r.kind == "function"]
    found.sort(key=lambda f: -f[0])
    out = []
    for _, path, text, name, region in found[:n]:
        parts = split(text, region)
        p = build_messages(path.name, parts.target, f"Add a docstring to `{name}` and type hints to its parameters.",
                           mode="region", before=context_lines(parts.before, CONTEXT_LINES, tail=True),
                           after=context_lines(parts.after, CONTEXT_LINES, tail=False), region_label=region.label)
        out.append((f"{path.name}:{name}", p.messages, predicted_reply(p)))
    return out


def one(server: Server, tokens: list[int], prediction: str, cap: int, max_tokens: int) -> dict[str, Any]:
    """One greedy region request on its own connection; server timings and wall time."""
    api = ServerAPI(server.api.url, Path(server.key_path).read_text(), timeout=900)
    body = {"prompt": tokens, "n_predict": max_tokens, "temperature": 0, "top_k": 1, "cache_prompt": True,
            "speculative.n_max": cap, "prediction": {"type": "content", "content": prediction}}
    t0 = time.monotonic()
    try:
        resp = api.post("/completion", body)
        resp.raise_for_status()
        timings = resp.json().get("timings", {})
    finally:
        api.close()
    return {"wall": round(time.monotonic() - t0, 3), "n": int(timings.get("predicted_n", 0)),
            "tps": timings.get("predicted_per_second"), "prompt_ms": timings.get("prompt_ms")}


def at_once(server: Server, loads: list[tuple[list[int], str]], args: argparse.Namespace) -> dict[str, Any]:
    """All ``loads`` sent together; per-request results and the wall time until the last one ends."""
    results: list[dict[str, Any]] = [{} for _ in loads]

    def run(i: int) -> None:
        results[i] = one(server, loads[i][0], loads[i][1], args.cap, args.max_tokens)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(loads))]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"wall": round(time.monotonic() - t0, 3), "requests": results}


def measure(np_: int, args: argparse.Namespace, prompts: list[tuple[str, list[dict[str, str]], str]]) -> dict[str, Any]:
    """One server at ``-np np_``: the first ``np_`` prompts warm, one after another, then all at once."""
    args.parallel = np_
    flags = [f.format(model=args.model, block=7, deep=args.cap) for f in CONFIGS[args.config]]
    server = Server(args.binary, args.model, flags, args)
    try:
        mine = prompts[:np_]
        loads = [(lossless.prompt_tokens(server.api, m), pred) for _, m, pred in mine]
        for tokens, pred in loads:  # prefill each once: every measured request starts warm
            one(server, tokens, pred, args.cap, 1)
        t0 = time.monotonic()
        serial = [one(server, t, p, args.cap, args.max_tokens) for t, p in loads]
        serial_wall = round(time.monotonic() - t0, 3)
        together = at_once(server, loads, args)
    finally:
        server.close()
    tps = [r["tps"] for r in together["requests"] if r.get("tps")]
    return {"np": np_, "workloads": [name for name, _, _ in mine], "serial_wall": serial_wall, "serial": serial,
            "parallel_wall": together["wall"], "parallel": together["requests"],
            "per_request_tps_median": round(statistics.median(tps), 1) if tps else None,
            "aggregate_tps": round(sum(r["n"] for r in together["requests"]) / together["wall"], 1)
            if together["wall"] else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.environ.get("CODER_LLAMA_SERVER"))
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--files", type=Path, nargs="*", default=DEFAULT_FILES)
    ap.add_argument("--config", default="prediction+ngram-mod", choices=sorted(CONFIGS))
    ap.add_argument("--np", default="1,2,4", help="slot counts to measure (comma separated)")
    ap.add_argument("--cap", type=int, default=64, help="per-request draft cap (and the launch depth)")
    ap.add_argument("--max-tokens", type=int, default=600)
    ap.add_argument("--ctx-per-slot", type=int, default=8192)
    ap.add_argument("--ngl", type=int, default=0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    # a timeout's SIGTERM unwinds like an exception, so every launched server is stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if not args.binary:
        raise SystemExit("pass --binary (coder's llama-server build) or set CODER_LLAMA_SERVER")
    counts = [int(n) for n in args.np.split(",")]
    prompts = region_prompts(args.files, max(counts))
    if len(prompts) < max(counts):
        raise SystemExit(f"only {len(prompts)} functions in --files; -np {max(counts)} needs as many")
    rows = []
    for n in counts:
        args.ctx = args.ctx_per_slot * n  # llama-server splits -c between the slots
        rows.append(measure(n, args, prompts))
        r = rows[-1]
        print(f"-np {n}: {n} requests at once {r['parallel_wall']:.2f} s (one after another {r['serial_wall']:.2f} s), "
              f"per request median {r['per_request_tps_median']} tok/s, together {r['aggregate_tps']} tok/s",
              file=sys.stderr)
    print(f"\n{'np':>3} {'at once s':>10} {'serial s':>9} {'speed-up':>8} {'tok/s per request':>18} "
          f"{'tok/s total':>11}")
    for r in rows:
        speedup = r["serial_wall"] / r["parallel_wall"] if r["parallel_wall"] else float("nan")
        print(f"{r['np']:>3} {r['parallel_wall']:>10.2f} {r['serial_wall']:>9.2f} {speedup:>8.2f} "
              f"{r['per_request_tps_median'] or 0:>18.1f} {r['aggregate_tps'] or 0:>11.1f}")
    if args.json:
        args.json.write_text(json.dumps({"env": {"binary": args.binary, "model": args.model, "ngl": args.ngl,
                                                 "config": args.config, "cap": args.cap, "max_tokens": args.max_tokens,
                                                 "files": [str(f) for f in args.files]}, "rows": rows}, indent=1))
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
