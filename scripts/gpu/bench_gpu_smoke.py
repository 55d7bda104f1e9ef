#!/usr/bin/env python3
"""Speed of the demo model on this machine's llama-server build: baseline vs n-gram vs self-drafting.

Prints a table and writes JSON. Used on the H200 (CUDA build) to prove the GPU path end to end:
    python scripts/gpu/bench_gpu_smoke.py --ngl 99 --out gpu.json
"""

from __future__ import annotations

import argparse
import inspect
import json
import platform
import textwrap

from coder.backends.runtime import manager
from coder.backends.runtime.handle import chat_client
from coder.config import builtin_profiles
from coder.telemetry.stats import Reply

CONFIGS = [("baseline", {"spec_type": "none", "k": None}),
           ("ngram-mod k=8", {"spec_type": "ngram-mod", "k": 8}),
           ("self-draft k=4", {"spec_type": "draft-simple", "drafter": "demo", "k": 4})]


def prompts() -> dict[str, list[dict[str, str]]]:
    source = inspect.getsource(textwrap)
    body = "\n".join(source.splitlines()[:260])
    return {
        "full rewrite": [
            {"role": "system", "content": "You rewrite files. Reply with the complete file in one fenced block."},
            {"role": "user", "content": f"```python\n{body}\n```\nRewrite this file unchanged except add a "
                                         "module docstring line at the top."}],
        "fresh prose": [{"role": "user", "content": "Explain in detail how a hash map works."}],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ngl", type=int, default=None)
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="gpu_smoke.json")
    args = ap.parse_args()
    rows = []
    for label, overrides in CONFIGS:
        profile = builtin_profiles()["demo"].with_overrides(name="smoke", ngl=args.ngl, ctx=8192)
        profile = profile.with_overrides(**{k: v for k, v in overrides.items() if v is not None})
        if overrides.get("k", 1) is None:
            profile.k = None
        info = manager.start(profile)
        try:
            for name, messages in prompts().items():
                chat = chat_client(info)
                speeds, als = [], []
                for rep in range(args.reps + 1):
                    with info.api(timeout=120) as api:
                        before = api.metrics()
                        *_, result = chat.stream(messages, max_tokens=args.max_tokens, cache_prompt=False)
                        delta = api.metrics() - before
                    if rep == 0:
                        continue  # the priming request
                    assert isinstance(result, Reply)
                    speeds.append(result.stats.decode_tps or 0.0)
                    als.append(delta.acceptance_length or 1.0)
                speeds.sort()
                rows.append({"config": label, "prompt": name, "verified": info.verified,
                             "median_decode_tps": speeds[len(speeds) // 2], "acceptance_length": sum(als) / len(als),
                             "tokens": result.completion_tokens})  # type: ignore[union-attr]
                print(f"{label:16} {name:14} {rows[-1]['median_decode_tps']:9.1f} tok/s  "
                      f"AL {rows[-1]['acceptance_length']:.2f}  verified={info.verified}", flush=True)
        finally:
            manager.stop("smoke")
    env = {"machine": platform.node(), "build": info.build}
    with open(args.out, "w") as fh:
        json.dump({"schema": 1, "env": env, "rows": rows}, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
