#!/usr/bin/env python3
"""Native vs portable llama-server builds on this machine: build time and demo-model decode speed.

Every proven build of coder's (``coder backend install llama.cpp`` and ``… --portable``) is started on
the demo model without speculation; the builds take turns, round by round, so they share the
machine's noise. Prints a table and writes JSON:
    python scripts/bench_cpu_builds.py --rounds 3 --out cpu_builds.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
from pathlib import Path

from coder.backends.installed import InstalledBuild
from coder.backends.runtime import manager
from coder.backends.toolchain import cache as build_cache
from coder.config import builtin_profiles

PROMPT = "Write a Python function that parses an ISO 8601 date and explain each step.\n"


def proven_builds(variant: str) -> list[InstalledBuild]:
    """Every installed build of ``variant`` whose smoke test passed."""
    found = []
    for meta in sorted(build_cache.install_root().glob(f"*-{variant}-*/build.json")):
        build = InstalledBuild(**json.loads(meta.read_text()))
        if build.proven:
            found.append(build)
    return found


def decode_speed(build: InstalledBuild, tokens: int, threads: int) -> dict[str, float]:
    """One greedy uncached generation on the demo model; llama-server's own timings."""
    profile = builtin_profiles()["demo"].with_overrides(
        name=f"bench-build-{os.getpid()}", binary=build.binary, spec_type="none", ctx=2048, threads=threads)
    info = manager.start(profile)
    try:
        with info.api(timeout=600) as api:
            api.post("/completion", {"prompt": PROMPT, "n_predict": 8, "temperature": 0})  # priming request
            reply = api.post("/completion", {"prompt": PROMPT, "n_predict": tokens, "temperature": 0,
                                             "cache_prompt": False, "ignore_eos": True})
        timings = reply.json()["timings"]
        return {"decode_tok_s": float(timings["predicted_per_second"]),
                "prefill_tok_s": float(timings["prompt_per_second"]), "tokens": float(timings["predicted_n"])}
    finally:
        manager.stop(profile.name)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--variant", default="cpu")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default="cpu_builds.json")
    args = ap.parse_args()
    builds = proven_builds(args.variant)
    if not builds:
        print("no proven builds: run `coder backend install llama.cpp` (and `--portable`) first", file=sys.stderr)
        return 1
    runs: dict[str, list[dict[str, float]]] = {b.key: [] for b in builds}
    for _ in range(args.rounds):
        for build in builds:
            runs[build.key].append(decode_speed(build, args.tokens, args.threads))
    rows: list[dict[str, object]] = []
    medians: list[float] = []
    print(f"{'configuration':<44} {'build s':>8} {'decode tok/s (median)':>22} {'prefill tok/s':>14}")
    for build in builds:
        decode = statistics.median(r["decode_tok_s"] for r in runs[build.key])
        prefill = statistics.median(r["prefill_tok_s"] for r in runs[build.key])
        medians.append(decode)
        rows.append({"key": build.key, "cpu": build.cpu, "build_seconds": build.build_seconds,
                     "decode_tok_s_median": decode, "prefill_tok_s_median": prefill, "runs": runs[build.key]})
        print(f"{build.cpu_summary()[:44]:<44} {build.build_seconds:>8.0f} {decode:>22.1f} {prefill:>14.1f}")
    for build, median in zip(builds[1:], medians[1:], strict=True):
        print(f"{build.cpu_summary()} / {builds[0].cpu_summary()}: {median / medians[0]:.3f}× decode")
    env = {"machine": platform.machine(), "cpu": builds[0].cpu.get("model"), "threads": args.threads,
           "rounds": args.rounds, "tokens": args.tokens, "python": platform.python_version()}
    Path(args.out).write_text(json.dumps({"schema": 1, "env": env, "builds": rows}, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
