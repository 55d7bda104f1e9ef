#!/usr/bin/env python3
"""Record a live vLLM (or SGLang) server's real exchanges as coder test data.

    python scripts/gpu/vllm_record.py --port 8000 --key KEY --model NAME --log serve.log --out DIR

Runs on the GPU device with the standard library only. Writes at most 7 files into DIR:
``<engine>_version.json``, ``<engine>_models.json``, ``<engine>_metrics_before.txt``,
``<engine>_metrics.txt`` (after one streamed request), ``<engine>_stream.sse`` (the raw chunks),
``<engine>_serve.log`` (the launch log, last 4 MB) and ``<engine>_summary.json`` (counter deltas and
the log lines that prove the speculator). Then, if coder imports there, runs coder's own verifier.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

# A code-edit-like request: the answer repeats the prompt's code, which n-gram drafting can copy.
CODE = "\n".join(f"def f{i}(x):\n    return x * {i} + {i * i}\n" for i in range(12))
PROMPT = f"Rewrite this file unchanged except rename every function fN to g_N.\n```python\n{CODE}```"
SPEC_LINE = re.compile(r"SpeculativeConfig\(|SpecDecoding metrics|Model Runner|V1 LLM engine \(v|"
                       r"speculat|Application startup complete|Error|Traceback")


def fetch(url: str, key: str | None, body: dict[str, object] | None = None, timeout: float = 120) -> bytes:
    """GET (or POST ``body`` as JSON) and return the raw response bytes; HTTP errors come back as bytes too."""
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None)
    if key:
        req.add_header("Authorization", f"Bearer {key}")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # localhost only
            return bytes(resp.read())
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}: ".encode() + exc.read()


def spec_counters(text: str) -> dict[str, float]:
    """Sum of each ``*spec_decode*`` / ``*spec_accept*`` sample by name (labels folded)."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("#") or "spec_" not in line:
            continue
        name = line.split("{", 1)[0].split(" ", 1)[0]
        try:
            out[name] = out.get(name, 0.0) + float(line.rsplit(" ", 1)[1])
        except ValueError:
            continue
    return out


def main(argv: list[str] | None = None) -> int:
    """Record everything; exit 1 when the spec-decode counters did not move."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--key")
    ap.add_argument("--model", required=True)
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--engine", default="vllm")
    args = ap.parse_args(argv)
    base, out, eng = f"http://127.0.0.1:{args.port}", args.out, args.engine
    out.mkdir(parents=True, exist_ok=True)
    for path, name in (("/version", "version.json"), ("/v1/models", "models.json")):
        (out / f"{eng}_{name}").write_bytes(fetch(base + path, args.key))
    before = fetch(base + "/metrics", args.key).decode()
    (out / f"{eng}_metrics_before.txt").write_text(before)
    body = {"model": args.model, "messages": [{"role": "user", "content": PROMPT}], "max_tokens": 400,
            "temperature": 0, "stream": True, "stream_options": {"include_usage": True}}
    start = time.monotonic()
    stream = fetch(base + "/v1/chat/completions", args.key, body)
    elapsed = time.monotonic() - start
    (out / f"{eng}_stream.sse").write_bytes(stream)
    time.sleep(1.0)  # counters reach the API process a moment after the last chunk
    after = fetch(base + "/metrics", args.key).decode()
    (out / f"{eng}_metrics.txt").write_text(after)
    deadline = time.monotonic() + 15  # the periodic stats line comes every 10 s
    while time.monotonic() < deadline and "SpecDecoding metrics" not in args.log.read_text(errors="replace"):
        time.sleep(1)
    log = args.log.read_text(errors="replace")
    (out / f"{eng}_serve.log").write_text(log[-4_000_000:])
    b, a = spec_counters(before), spec_counters(after)
    delta = {k: a[k] - b.get(k, 0.0) for k in sorted(a)}
    summary = {"request_seconds": round(elapsed, 3), "chunks": stream.count(b"\ndata: ") + stream.startswith(b"data: "),
               "spec_counter_delta": delta, "proof_lines": [ln for ln in log.splitlines() if SPEC_LINE.search(ln)][:60]}
    summary["coder_verify"] = coder_verify(base, args)
    (out / f"{eng}_summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "proof_lines"}, indent=1))
    moved = any(v > 0 for k, v in delta.items() if "num_drafts" in k)
    return 0 if moved else 1


def coder_verify(base: str, args: argparse.Namespace) -> str:
    """coder's own verdict on this server (attached, as ``coder backend attach`` would), or why it could not run."""
    try:
        from coder.backends.engines.registry import adapter_for
        from coder.backends.runtime.server import ServerAPI, ServerInfo
    except ImportError as exc:
        return f"coder not importable here: {exc}"
    info = ServerInfo(url=base, engine=args.engine, api_key=args.key, model=args.model, spec_type="ngram", k=5)
    adapter = adapter_for(args.engine)
    verdict = adapter.verify(info, ServerAPI(base, args.key, args.engine), args.log.read_text(errors="replace"))
    return verdict.summary


if __name__ == "__main__":
    sys.exit(main())
