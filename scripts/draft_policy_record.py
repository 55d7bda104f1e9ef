#!/usr/bin/env python3
"""Record what the prediction drafter's policy simulation needs: prompt, prediction and reply token ids.

Runs scripts/bench_copy.py's workloads, in bench_copy's order, on one llama-server launched with
prediction + ngram-mod (greedy, ``-np 1``, the per-step log of spec-step-v1 on), exactly as bench_copy
does per workload: a one-token prefill, then the measured request at the given cap. Per workload it
writes the prompt ids, the prediction as the server tokenizes it, the reply ids and the server's own
per-step ``(n_draft, n_accepted)`` sequence, which ``scripts/draft_policy_sim.py`` must reproduce
under today's policy before its other policies are believed.

    .venv/bin/python scripts/draft_policy_record.py --binary BIN --model M.gguf --files F1 F2 --out rec.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_copy import CONFIGS, Server, generate, workloads  # noqa: E402
from copy_variants import variant  # noqa: E402

from coder.bench import lossless  # noqa: E402

STEP = re.compile(r"coder-step n_batch=(\d+) n_draft=(\d+) n_accepted=(\d+)")


def tokenize(server: Server, text: str) -> list[int]:
    """The prediction as the server tokenizes it (no special tokens added or parsed)."""
    resp = server.api.post("/tokenize", {"content": text, "add_special": False, "parse_special": False})
    resp.raise_for_status()
    return [int(t) for t in resp.json()["tokens"]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--files", type=Path, nargs="+", required=True)
    ap.add_argument("--kinds", default="rename,param,docstrings,region")
    ap.add_argument("--only", default="", help="comma-separated workload names to run (others skipped)")
    ap.add_argument("--cap", type=int, default=64)
    ap.add_argument("--max-tokens", type=int, default=1100)
    ap.add_argument("--ctx", type=int, default=16384)
    ap.add_argument("--ngl", type=int, default=0)
    ap.add_argument("--variant", default="fast", help="a copy_variants.py variant (e.g. sized) for every request")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    flags = [f.format(deep=args.cap) for f in CONFIGS["prediction+ngram-mod"]]
    server = Server(args.binary, args.model, flags, args, {"LLAMA_CODER_STEP_TIMINGS": "1"})
    rows: list[dict[str, Any]] = []
    only = set(filter(None, args.only.split(",")))
    body = variant(args.variant).body
    try:
        for w in workloads(args.files, args.kinds.split(","), len(args.files)):
            if only and w.name not in only:
                continue
            tokens = lossless.prompt_tokens(server.api, w.messages)
            generate(server.api, tokens, 1)
            at = Path(server.log_path).stat().st_size
            r = generate(server.api, tokens, args.max_tokens, cap=args.cap, prediction=w.prediction, extra=body)
            time.sleep(0.5)  # the last step is logged after the reply went out
            log = Path(server.log_path).read_bytes()[at:].decode(errors="replace")
            steps = [(int(d), int(a)) for b, d, a in STEP.findall(log) if int(b) <= args.cap + 1]
            rows.append({"name": w.name, "cls": w.cls, "prompt": tokens,
                         "prediction": tokens_or_empty(server, w.prediction), "reply": r["tokens"],
                         "steps": steps, "tps": r["tps"], "al": r["al"], "by_type": r["by_type"]})
            print(f"{w.name:40s} n={r['n']:5d} steps={len(steps):4d} AL {r['al'] or 1:5.2f} "
                  f"{r['tps'] or 0:6.1f} tok/s", file=sys.stderr)
            args.out.write_text(json.dumps({"cap": args.cap, "max_tokens": args.max_tokens, "body": body,
                                            "rows": rows}))
    finally:
        server.close()
    return 0


def tokens_or_empty(server: Server, text: str | None) -> list[int]:
    """The prediction's ids, or none for a workload without one."""
    return tokenize(server, text) if text else []


if __name__ == "__main__":
    raise SystemExit(main())
