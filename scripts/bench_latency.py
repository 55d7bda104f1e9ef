#!/usr/bin/env python3
"""Enter→diff latency of real edits: cold, after warm-up, and a second edit of the same file.

Of the three Enter→diff programs, this one splits each edit into its phases and checks auto mode's
pick and the cache warm-up, optionally beside Aider (``bench_e2e.py`` measures the time outside the
request; ``bench_edit.py`` compares full and region mode on one file).

Each case is a real 150–500-line module from the standard library (copied into a
throw-away git repository) with an instruction shaped like a real edit (rename, add a
parameter, add a docstring, fix a bug in one function). For full and region mode, each
in three conditions:

* ``cold``: a fresh repository name, so nothing but the system prompt is cached;
* ``warm``: the same, after coder's cache warm-ups (the file's, as when it enters the TUI's
  context, and for region mode the named region's, as while the instruction is typed; the
  warm-ups themselves run before Enter and are reported apart);
* ``second``: a second instruction on the same file in the warm repository, after the
  first edit was applied (its cached prefix ends where the first edit changed the file).

Each run's Enter→diff wall time is split into client preparation (``EditEngine.prepare``:
tokenizing, building, auto's prediction), queueing, prefill and decode (server timings),
validation and apply (write + git commit). Auto mode's pick, made before the runs with
the costs learned so far, is compared with the faster of the two modes actually run.

Example (the demo backend; about 10 minutes on 2 busy cores)::

    .venv/bin/python scripts/bench_latency.py --start --json /tmp/bench_latency.json
    .venv/bin/python scripts/bench_latency.py --start --cases colorsys,fnmatch --conditions cold,warm

``max gap``: the longest wait between two streamed prompt-progress updates in the cold full prefill.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coder.backends.engines.warm import LlamaCppWarmSender  # noqa: E402
from coder.backends.runtime.handle import BackendHandle  # noqa: E402
from coder.backends.runtime.server import ServerInfo  # noqa: E402
from coder.bench.edits.aider import run_aider  # noqa: E402
from coder.edit.plan import auto  # noqa: E402
from coder.edit.proposal import EditProposal, EditRequest  # noqa: E402
from coder.edit.run.engine import DEFAULT_TPS, EditEngine  # noqa: E402
from coder.edit.run.warmup.cache import CacheWarmer, edit_prefix  # noqa: E402
from coder.errors import CoderError  # noqa: E402

BENCH_PROFILE = "bench-latency"
MODES = ("full", "region")
CONDITIONS = ("cold", "warm", "second")


@dataclass(frozen=True)
class Case:
    """One real file and two edits of it (the second runs after the first was applied)."""

    name: str
    module: str
    kind: str  # rename | add a parameter | add a docstring | fix a bug
    instruction: str
    second: str
    inject: tuple[str, str] | None = None  # (old, new) planted in the copy for "fix a bug"


CASES = (
    Case("fnmatch", "fnmatch", "fix a bug",
         "Fix the bug in the function filter: it returns the names that do not match the pattern.",
         "Add a comment above the loop in the function filter saying it keeps the matching names.",
         inject=("            if match(name):\n", "            if not match(name):\n")),
    Case("genericpath", "genericpath", "add a parameter",
         "Add a parameter `follow_symlinks=True` to the function getsize and pass it on to os.stat.",
         "Add a parameter `follow_symlinks=True` to the function getmtime and pass it on to os.stat."),
    Case("linecache", "linecache", "rename",
         "In the function getline, rename the local variable `lines` to `all_lines`.",
         "Add a comment above the return statements of the function getline saying what they return."),
    Case("sched", "sched", "add a docstring",
         "Expand the docstring of the method scheduler.empty: say it returns True when no events are queued.",
         "In the method scheduler.empty, add a comment saying why the lock is taken."),
    Case("shlex", "shlex", "add a comment",
         "Add a one-line comment above the function split saying it is a convenience wrapper.",
         "Add a docstring to the function join saying it is the inverse of split."),
)


def _parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group()
    src.add_argument("--attach", metavar="URL", help="an already running llama-server")
    src.add_argument("--start", action="store_true", help="launch the demo profile and stop it afterwards")
    p.add_argument("--api-key", help="API key for --attach")
    p.add_argument("--cases", help=f"comma-separated subset of: {', '.join(c.name for c in CASES)}")
    p.add_argument("--conditions", default=",".join(CONDITIONS), help="comma-separated: cold, warm, second")
    p.add_argument("--ctx", type=int, default=8192)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch", type=int, help="llama-server -b/-ub for --start (default: coder's own choice)")
    p.add_argument("--json", type=Path, help="write every raw figure and the environment here")
    p.add_argument("--aider", metavar="EXE", nargs="?", const="aider",
                   help="also run each first edit through Aider --edit-format whole on the same server "
                        "(the aider executable; default: aider on PATH)")
    p.add_argument("--aider-timeout", type=float, default=600.0, help="s; a run stopped there counts as that long")
    return p.parse_args()


def _server(args: argparse.Namespace) -> tuple[ServerInfo, bool]:
    from coder.backends.runtime import manager

    if args.attach:
        return manager.attach(args.attach, args.api_key), False
    from coder.config import builtin_profiles

    demo = builtin_profiles()["demo"]
    batch = ["-b", str(args.batch), "-ub", str(args.batch)] if args.batch else []
    profile = demo.with_overrides(name=BENCH_PROFILE, ctx=args.ctx, threads=args.threads,
                                  extra_args=[*demo.extra_args, *batch])
    return manager.start(profile), True


_repo_serial = 0


def _scratch(case: Case, tag: str) -> tuple[Path, str]:
    """A git repository holding a copy of the case's module; its unique name keeps runs apart in the cache."""
    global _repo_serial
    _repo_serial += 1
    source = Path(inspect.getsourcefile(importlib.import_module(case.module)) or "")
    root = Path(tempfile.mkdtemp(prefix="coder-bench-latency-")) / f"{case.name}-{tag}-{os.getpid()}-{_repo_serial}"
    root.mkdir()
    text = source.read_text()
    if case.inject:
        old, new = case.inject
        assert old in text, f"{case.name}: bug site not found"
        text = text.replace(old, new, 1)
    rel = source.name
    (root / rel).write_text(text)
    for cmd in (["init", "-q"], ["add", "."],
                ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "bench"]):
        subprocess.run(["git", *cmd], cwd=root, check=True, capture_output=True)
    return root, rel


def _region_symbol(engine: EditEngine, path: Path, instruction: str) -> str | None:
    snap = engine.check_target(path)[0]
    target = auto.find_target(snap.rel, snap.text, engine.read(snap, instruction))
    return target.region.label.split(" ", 1)[1] if target.region and target.region.name else None


def _run(engine: EditEngine, path: Path, instruction: str, mode: str, symbol: str | None) -> dict[str, Any]:
    """One Enter→diff (and apply) with its split; ``mode`` may be auto."""
    t0 = time.perf_counter()
    request: EditRequest = engine.prepare(path, instruction, mode=mode,
                                          symbol=symbol if mode == "region" else None)
    prepare_s = time.perf_counter() - t0
    proposal: EditProposal | None = None
    first_progress: float | None = None
    for event in engine.run(request):
        if isinstance(event, EditProposal):
            proposal = event
        elif event.prefill is not None and first_progress is None:
            first_progress = event.elapsed
    diff_at = time.perf_counter() - t0
    assert proposal is not None
    apply_s = None
    applied = False
    if proposal.changed:
        t1 = time.perf_counter()
        try:
            applied = engine.apply(proposal).written
        except CoderError:
            applied = False
        apply_s = time.perf_counter() - t1
    s = proposal.stats
    return {
        "mode": request.mode, "mode_reason": request.mode_reason, "request_class": request.request_class,
        "region": request.region.label if request.region else None,
        "ok": proposal.ok, "refusal_code": proposal.refusal_code, "changed": proposal.changed, "applied": applied,
        "enter_to_diff_s": diff_at, "prepare_s": prepare_s, "queue_s": s.queue_s, "prefill_s": s.prefill_s,
        "decode_s": s.decode_s, "validate_s": proposal.validate_s, "apply_s": apply_s, "ttft_s": s.ttft,
        "wall_s": s.elapsed, "prompt_tokens": s.prompt_tokens, "cached_tokens": s.cached_tokens,
        "completion_tokens": s.completion_tokens, "tok_s": s.decode_tps, "acceptance_length": s.acceptance_length,
        "prefill_updates": s.prefill_updates, "prefill_max_gap_s": s.prefill_max_gap,
        "first_progress_s": first_progress, "max_tokens": request.budget.max_tokens,
        "refusal": proposal.refusal, "reply": proposal.reply,
        "predicted": ({m: {**asdict(p), "total": p.total} for m, p in request.predictions.items()}
                      if request.predictions else None),
    }


def _auto_pick(engine: EditEngine, path: Path, instruction: str) -> dict[str, Any]:
    """What auto would send now (prepared, not run): its mode, reason and predictions."""
    request = engine.prepare(path, instruction, mode="auto")
    preds = request.predictions or {}
    return {"mode": request.mode, "reason": request.mode_reason,
            "predicted": {m: p.total for m, p in preds.items()}}


def _warm(server: ServerInfo, engine: EditEngine, path: Path, symbol: str | None = None) -> dict[str, Any]:
    """The TUI's warm-ups: the file's prefix (it entered the context), then the typed region's (``symbol``)."""
    snap, region = engine.check_target(path, symbol=symbol)  # one read: the file and the named region
    prefixes = [edit_prefix(snap.rel, snap.text, engine.repo_context)]
    if region is not None:
        prefixes.append(edit_prefix(snap.rel, snap.text, engine.repo_context, region))
    sender = LlamaCppWarmSender(server)
    warmer = CacheWarmer(sender, cache=engine.prompt_cache)  # records what it warmed: auto's estimate reads it
    t0 = time.perf_counter()
    for prefix in prefixes:  # one after another, as the TUI's warmer runs them
        warmer.warm(prefix)
        state = warmer.join(600)
    sender.close()
    return {"status": state.status, "tokens": state.tokens, "seconds": time.perf_counter() - t0,
            "label": state.label()}


def bench_case(server: ServerInfo, case: Case, conditions: list[str], cost: auto.CostModel,
               ctx: int) -> dict[str, Any]:
    out: dict[str, Any] = {"case": case.name, "kind": case.kind, "instruction": case.instruction,
                           "second": case.second, "runs": {}, "auto": {}, "warmups": {}}
    for mode in MODES:
        root, rel = _scratch(case, f"{mode}")
        engine = EditEngine(BackendHandle(server), root, ctx=ctx)
        engine.cost = cost  # one cost model across the bench: auto learns as a session would
        path = root / rel
        symbol = _region_symbol(engine, path, case.instruction)
        if mode == "region" and symbol is None:
            out["runs"][mode] = {"skipped": "the instruction names no region"}
            continue
        if "cold" in conditions:
            cold_root, _ = _scratch(case, f"{mode}-cold")
            cold = EditEngine(BackendHandle(server), cold_root, ctx=ctx)
            cold.cost = cost
            if mode == "full":
                out["auto"]["cold"] = _auto_pick(cold, cold_root / rel, case.instruction)
            out["runs"].setdefault(mode, {})["cold"] = _run(cold, cold_root / rel, case.instruction, mode, symbol)
        if "warm" in conditions or "second" in conditions:
            out["warmups"][mode] = _warm(server, engine, path, symbol if mode == "region" else None)
            if mode == "full":
                out["auto"]["warm"] = _auto_pick(engine, path, case.instruction)
            out["runs"].setdefault(mode, {})["warm"] = _run(engine, path, case.instruction, mode, symbol)
            if "second" in conditions:
                second_symbol = _region_symbol(engine, path, case.second) or symbol
                out["runs"][mode]["second"] = _run(engine, path, case.second, mode, second_symbol)
    return out


def _verdicts(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per case and condition: auto's pick against the faster of the two modes run."""
    rows = []
    for case in cases:
        for cond, pick in case["auto"].items():
            runs = {m: case["runs"].get(m, {}).get(cond) for m in MODES}
            times = {m: r["enter_to_diff_s"] for m, r in runs.items() if r and "enter_to_diff_s" in r}
            if len(times) < 2:
                continue
            faster = min(times, key=lambda m: times[m])
            rows.append({"case": case["case"], "condition": cond, "auto": pick["mode"], "faster": faster,
                         "right": pick["mode"] == faster, "times": times, "predicted": pick["predicted"]})
    return rows


def _f(v: Any, spec: str = ".1f") -> str:
    return "–" if v is None else format(v, spec)


def table(cases: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> str:
    head = (f"{'case':9} {'mode':6} {'cond':6} {'E→diff':>7} {'prep':>5} {'queue':>5} {'prefill':>7} "
            f"{'decode':>6} {'valid':>5} {'apply':>5} {'TTFT':>6} {'prompt':>6} {'cached':>6} {'out':>5} "
            f"{'tok/s':>6} {'gap':>4} verdict")
    lines = [head, "-" * len(head)]
    for case in cases:
        for mode in MODES:
            for cond, r in case["runs"].get(mode, {}).items():
                if not isinstance(r, dict) or "enter_to_diff_s" not in r:
                    continue
                verdict = "ok" if r["ok"] else r["refusal_code"]
                lines.append(
                    f"{case['case']:9} {mode:6} {cond:6} {_f(r['enter_to_diff_s']):>7} {_f(r['prepare_s'], '.2f'):>5} "
                    f"{_f(r['queue_s'], '.2f'):>5} {_f(r['prefill_s'], '.2f'):>7} {_f(r['decode_s']):>6} "
                    f"{_f(r['validate_s'], '.3f'):>5} {_f(r['apply_s'], '.2f'):>5} {_f(r['ttft_s'], '.2f'):>6} "
                    f"{_f(r['prompt_tokens'], 'd'):>6} {_f(r['cached_tokens'], 'd'):>6} "
                    f"{_f(r['completion_tokens'], 'd'):>5} {_f(r['tok_s']):>6} "
                    f"{_f(r['prefill_max_gap_s']):>4} {verdict}")
    for case in cases:
        if a := case.get("aider"):
            wall = (">" if a.get("timed_out") else "") + _f(a["wall_s"])
            lines.append(f"{case['case']:9} aider  cold   {wall:>7}  (--edit-format whole; rc {a['rc']}, "
                         f"{'changed' if a['changed'] else 'unchanged'}, {a['lines_before']}→{a['lines_after']} lines)")
    lines.append("")
    for v in verdicts:
        pred = ", ".join(f"{m} {t:.1f}s" for m, t in v["predicted"].items())
        runs = ", ".join(f"{m} {t:.1f}s" for m, t in v["times"].items())
        lines.append(f"auto {v['case']:9} {v['condition']:6} picked {v['auto']:6} faster {v['faster']:6} "
                     f"{'✓' if v['right'] else '✗'}  predicted: {pred}; measured: {runs}")
    return "\n".join(lines)


def targets(cases: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    ratios = []
    gaps = []
    region_ttft = []  # after the file's and the typed region's warm-ups: what Enter waits for
    for case in cases:
        full, region = case["runs"].get("full", {}), case["runs"].get("region", {})
        cold, warm = full.get("cold"), full.get("warm")
        if cold and warm and cold.get("ttft_s") and warm.get("ttft_s"):
            ratios.append(warm["ttft_s"] / cold["ttft_s"])
        if cold and cold.get("prefill_max_gap_s") is not None:
            gaps.append(cold["prefill_max_gap_s"])
        if isinstance(region.get("warm"), dict) and region["warm"].get("ttft_s") is not None:
            region_ttft.append(region["warm"]["ttft_s"])
    right = sum(v["right"] for v in verdicts)
    aider = sorted(c["aider"]["wall_s"] for c in cases if c.get("aider"))
    # the same first edit, cold, as each would run it: coder in the mode auto picked, Aider whole
    vs_aider = sorted(r["enter_to_diff_s"] / c["aider"]["wall_s"] for c in cases if c.get("aider")
                      and (pick := c["auto"].get("cold")) and (r := c["runs"].get(pick["mode"], {}).get("cold")))
    walls = sorted(r["enter_to_diff_s"] for c in cases for runs in c["runs"].values() if isinstance(runs, dict)
                   for r in runs.values() if isinstance(r, dict) and "enter_to_diff_s" in r)
    return {
        "median_enter_to_diff_s": walls[len(walls) // 2] if walls else None,
        "median_aider_whole_s": aider[len(aider) // 2] if aider else None,
        "coder_over_aider": vs_aider, "coder_over_aider_median": vs_aider[len(vs_aider) // 2] if vs_aider else None,
        "aider_target_met": bool(vs_aider) and vs_aider[len(vs_aider) // 2] <= 0.5,
        "ttft_warm_over_cold": ratios, "ttft_warm_over_cold_max": max(ratios) if ratios else None,
        "ttft_target_met": bool(ratios) and max(ratios) <= 0.1,
        "region_ttft_warm_s": region_ttft, "region_ttft_warm_max_s": max(region_ttft) if region_ttft else None,
        "auto_right": right, "auto_total": len(verdicts),
        "auto_share": right / len(verdicts) if verdicts else None,
        "auto_target_met": bool(verdicts) and right / len(verdicts) >= 0.9,
        "prefill_max_gaps_s": gaps, "prefill_gap_max_s": max(gaps) if gaps else None,
        "prefill_gap_target_met": bool(gaps) and max(gaps) <= 2.0,
    }


def environment(server: ServerInfo) -> dict[str, Any]:
    def git_sha() -> str | None:
        proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        return proc.stdout.strip() or None

    argv = list(server.argv)
    for flag in ("--api-key",):  # never write the key
        if flag in argv:
            argv[argv.index(flag) + 1] = "<redacted>"
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
            "loadavg_at_end": load, "coder_commit": git_sha(), "server_argv": argv, "engine": server.engine,
            "spec_type": server.spec_type, "k": server.k, "model": server.model, "build": server.build}


def main() -> int:
    args = _parse()
    wanted = set(args.cases.split(",")) if args.cases else None
    cases = [c for c in CASES if wanted is None or c.name in wanted]
    conditions = [c for c in args.conditions.split(",") if c in CONDITIONS]
    server, started = _server(args)
    results: list[dict[str, Any]] = []
    cost = auto.CostModel(dict(DEFAULT_TPS))
    t0 = time.time()
    try:
        for case in cases:
            print(f"bench_latency: {case.name} ({case.kind}) …", file=sys.stderr, flush=True)
            results.append(bench_case(server, case, conditions, cost, args.ctx))
            if args.aider:
                results[-1]["aider"] = run_aider(args.aider, server, case.instruction, *_scratch(case, "aider"),
                                                 timeout=args.aider_timeout)
    finally:
        env = environment(server)
        if started:
            from coder.backends.runtime import manager

            manager.stop(BENCH_PROFILE)
    verdicts = _verdicts(results)
    summary = targets(results, verdicts)
    print(table(results, verdicts))
    print()
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"cases": results, "auto": verdicts, "targets": summary,
                                         "environment": env, "seconds": time.time() - t0,
                                         "command": sys.argv}, indent=2))
        print(f"bench_latency: wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
