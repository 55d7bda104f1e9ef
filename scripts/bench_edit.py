#!/usr/bin/env python3
"""Full-file rewrite versus region edit of one real 200–400-line file, on a live backend.

Of the three Enter→diff programs, this one compares the two modes on one file of your choice and can
record the raw replies as test data (``bench_latency.py`` splits an edit into its phases over several
files; ``bench_e2e.py`` measures the time outside the request).

For each mode it sends the request coder itself would send (``EditEngine.prepare`` and
``run``: same prompt protocol, budget and early stop at the closing fence) against a
throw-away git copy of the file, and reports prompt tokens (cached share), TTFT, decode
tok/s, acceptance length (exact from /metrics deltas when the server exports them) and
completion tokens, plus whether coder would have accepted the reply.

Examples::

    .venv/bin/python scripts/bench_edit.py --start --out /tmp/bench_edit.json
    .venv/bin/python scripts/bench_edit.py --attach http://127.0.0.1:8080 --api-key KEY
    .venv/bin/python scripts/bench_edit.py --start --max-tokens 300   # cap each reply (busy CPU)
    .venv/bin/python scripts/bench_edit.py --start --record tests/data/edit/recorded

``--max-tokens`` caps generation for a quick measurement: the speed figures stay valid
but a capped full rewrite is reported as ``capped`` (its reply is truncated by design).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coder.backends.runtime.handle import BackendHandle  # noqa: E402
from coder.backends.runtime.server import ServerInfo  # noqa: E402
from coder.edit.proposal import EditProposal, EditRequest  # noqa: E402
from coder.edit.run.engine import EditEngine  # noqa: E402
from coder.errors import CoderError  # noqa: E402
from coder.samples import LARGE, sample_path  # noqa: E402
from coder.telemetry.stats import RequestStats  # noqa: E402

DEFAULT_SYMBOL = "IntervalSet.__sub__"
DEFAULT_INSTRUCTION = "Add a one-line comment above each loop in `IntervalSet.__sub__` saying what it does."
BENCH_PROFILE = "bench-edit"


def _parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--file", type=Path, default=sample_path(LARGE), help="source file (default: the sample)")
    p.add_argument("--symbol", default=DEFAULT_SYMBOL, help="region for the region edit")
    p.add_argument("--instruction", default=DEFAULT_INSTRUCTION)
    p.add_argument("--modes", default="full,region", help="comma-separated: full, region")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--attach", metavar="URL", help="an already running server")
    src.add_argument("--profile", help="a running managed server (coder backend start)")
    src.add_argument("--start", action="store_true",
                     help="launch the demo profile for the bench (ctx --ctx) and stop it afterwards")
    p.add_argument("--api-key", help="API key for --attach")
    p.add_argument("--ctx", type=int, default=8192, help="context for --start (a full rewrite needs ~2x file)")
    p.add_argument("--threads", type=int, default=2, help="CPU threads for --start")
    p.add_argument("--max-tokens", type=int, help="cap generated tokens per request (quick runs)")
    p.add_argument("--out", type=Path, help="write the JSON result here")
    p.add_argument("--record", type=Path, help="save each raw reply and coder's verdict in this directory")
    return p.parse_args()


def _server(args: argparse.Namespace) -> tuple[ServerInfo, bool]:
    from coder.backends.runtime import manager

    if args.attach:
        return manager.attach(args.attach, args.api_key), False
    if args.start:
        from coder.config import builtin_profiles

        profile = builtin_profiles()["demo"].with_overrides(name=BENCH_PROFILE, ctx=args.ctx,
                                                            threads=args.threads)
        return manager.start(profile), True
    info = manager.current(args.profile)
    if info is None:
        raise CoderError("no backend is running; start one with `coder backend start`, or pass --start")
    return info, False


def _scratch_repo(source: Path) -> Path:
    """A temporary git repository holding a copy of ``source`` (the bench never edits real files)."""
    # A fixed directory name keeps the repository context (and so the cached prefix) stable.
    root = Path(tempfile.mkdtemp(prefix="coder-bench-edit-")) / "bench-repo"
    root.mkdir()
    shutil.copyfile(source, root / source.name)
    for cmd in (["init", "-q"], ["add", "."],
                ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "bench"]):
        subprocess.run(["git", *cmd], cwd=root, check=True, capture_output=True)
    return root


def _run_one(engine: EditEngine, request: EditRequest) -> tuple[EditProposal, int]:
    events = 0
    proposal: EditProposal | None = None
    for event in engine.run(request):
        if isinstance(event, RequestStats):
            events += 1
            if events % 25 == 0:
                print(f"    {request.mode}: {event.tokens} tok, {event.elapsed:.0f}s", file=sys.stderr, flush=True)
        else:
            proposal = event
    assert proposal is not None
    return proposal, events


def _row(mode: str, request: EditRequest, proposal: EditProposal, target_tokens: int,
         capped_at: int | None) -> dict[str, Any]:
    s = proposal.stats
    capped = capped_at is not None and proposal.refusal_code == "length"
    return {
        "mode": mode,
        "request_class": request.request_class,
        "region": request.region.label if request.region else None,
        "target_tokens": target_tokens,
        "prompt_tokens": s.prompt_tokens,
        "cached_tokens": s.cached_tokens,
        "ttft_s": s.ttft,
        "tok_s": s.decode_tps,
        "acceptance_length": s.acceptance_length,
        "acceptance_source": s.acceptance_source,
        "draft_n": s.draft_n,
        "draft_accepted": s.draft_n_accepted,
        "completion_tokens": s.completion_tokens,
        "wall_s": s.elapsed,
        "stopped_at_fence": s.stopped_at_fence,
        "max_tokens": request.budget.max_tokens,
        "outcome": "capped" if capped else ("accepted" if proposal.ok else f"refused: {proposal.refusal_code}"),
        "k": request.k.k,
        "k_reason": request.k.reason,
    }


def _fmt(value: Any, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def _table(rows: list[dict[str, Any]]) -> str:
    head = (f"{'mode':<7} {'prompt tok':>10} {'cached':>7} {'target tok':>10} {'TTFT s':>7} {'tok/s':>6} "
            f"{'acc len':>8} {'src':<8} {'out tok':>7} {'wall s':>7}  outcome")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['mode']:<7} {_fmt(r['prompt_tokens'], 'd'):>10} {_fmt(r['cached_tokens'], 'd'):>7} "
            f"{r['target_tokens']:>10} {_fmt(r['ttft_s'], '.2f'):>7} {_fmt(r['tok_s'], '.2f'):>6} "
            f"{_fmt(r['acceptance_length'], '.2f'):>8} {r['acceptance_source'] or '-':<8} "
            f"{_fmt(r['completion_tokens'], 'd'):>7} {r['wall_s']:>7.1f}  {r['outcome']}"
        )
    return "\n".join(lines)


def main() -> int:
    args = _parse()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not set(modes) <= {"full", "region"}:
        print("bench_edit: --modes takes full and/or region", file=sys.stderr)
        return 2
    source = args.file.resolve()
    n_lines = len(source.read_text(encoding="utf-8").splitlines())
    try:
        server, started = _server(args)
    except CoderError as exc:
        print(f"bench_edit: {exc}", file=sys.stderr)
        return 1
    repo = _scratch_repo(source)
    rows: list[dict[str, Any]] = []
    try:
        engine = EditEngine(BackendHandle(server), repo)
        for mode in modes:
            symbol = args.symbol if mode == "region" else None
            request = engine.prepare(repo / source.name, args.instruction, mode=mode, symbol=symbol)
            target_tokens = engine.counter.count(request.prompt.target)
            capped_at = None
            if args.max_tokens and args.max_tokens < request.budget.max_tokens:
                capped_at = args.max_tokens
                request = dataclasses.replace(
                    request, budget=dataclasses.replace(request.budget, max_tokens=args.max_tokens))
            print(f"  {mode}: {request.mode_reason}; prompt ~{request.budget.prompt_tokens} tok, "
                  f"target {target_tokens} tok, max_tokens {request.budget.max_tokens}", file=sys.stderr)
            proposal, _ = _run_one(engine, request)
            rows.append(_row(mode, request, proposal, target_tokens, capped_at))
            if args.record:
                args.record.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, args.record / f"{source.name}.txt")  # frozen original for replay
                stem = f"{source.stem}_{mode}"
                (args.record / f"{stem}.reply.txt").write_text(proposal.reply, encoding="utf-8")
                verdict = {"file": source.name, "mode": mode, "symbol": symbol, "instruction": args.instruction,
                           "finish_reason": proposal.stats.finish_reason, "ok": proposal.ok,
                           "refusal_code": proposal.refusal_code, "refusal": proposal.refusal,
                           "max_tokens": request.budget.max_tokens}
                (args.record / f"{stem}.json").write_text(json.dumps(verdict, indent=2) + "\n")
    finally:
        shutil.rmtree(repo.parent, ignore_errors=True)
        if started:
            from coder.backends.runtime import manager

            manager.stop(BENCH_PROFILE)
    print(_table(rows))
    result = {
        "bench": "edit",
        "file": source.name,
        "lines": n_lines,
        "symbol": args.symbol,
        "instruction": args.instruction,
        "server": {"url": server.url, "engine": server.engine, "model": server.model,
                   "spec_type": server.spec_type, "k": server.k, "draft_cap": server.draft_cap},
        "max_tokens_cap": args.max_tokens,
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                    "loadavg": os.getloadavg()},
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "results": rows,
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
