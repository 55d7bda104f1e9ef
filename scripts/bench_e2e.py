#!/usr/bin/env python3
"""Enter→diff through coder's own edit path: ``coder edit --yes`` as a process, and the in-process engine.

Of the three Enter→diff programs, this one measures what coder adds around the request: the time
outside it, for the CLI as a fresh process and for the engine the TUI runs (``bench_latency.py``
splits the request's own phases; ``bench_edit.py`` compares full and region mode on one file).

Each case is a real standard-library module (a 180-line and a 490-line one by default) copied into a
throw-away git repository, edited twice: a full rewrite (small edits spread through the file) and a
region edit (one named function). Every edit runs in two conditions:

* ``cold``: a fresh repository name, so the server's prompt cache holds nothing of the file;
* ``warm``: after coder's own cache warm-up of the file (and of the region, for region edits), as the
  TUI does while the instruction is typed.

and along two paths:

* ``cli``: ``python -m coder edit FILE -m ... --yes --json`` as a subprocess, timed from spawn to exit:
  interpreter start, imports, config, git, tokenizing, the request, validation, the write and the
  commit. ``outside`` is that wall time minus the command's own ``request`` phase (``timings``: every
  chat request of a retry or a plan, not only the last one the stats describe; the target: 0.3 s), and
  ``phases`` is the command's whole split;
* ``engine``: :class:`coder.edit.run.engine.EditEngine` in this process (what the TUI runs): ``prepare``
  (reading, tokenizing, building the prompt), the request, validation, then ``apply`` (write, git
  snapshot and commit). ``outside`` is everything but the request (the TUI's 0.05 s budget).

It also times the fixed costs apart: a bare interpreter start, the imports of the edit path, and one
git commit of a one-line change in a scratch repository.

The server is a coder profile (``--profile``, defined in coder's config; started here unless it
already runs, and stopped afterwards if started here). Examples::

    .venv/bin/python scripts/bench_e2e.py --profile demo --json /tmp/bench_e2e_cpu.json
    .venv/bin/python scripts/bench_e2e.py --profile qwen-gpu --cases linecache,textwrap --json e2e.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_latency import _run as run_engine  # noqa: E402  (scripts/, beside this file)
from bench_latency import _warm as warm_up  # noqa: E402
from bench_latency import environment  # noqa: E402

from coder.backends.runtime.handle import BackendHandle  # noqa: E402
from coder.backends.runtime.server import ServerInfo  # noqa: E402
from coder.edit.run.engine import EditEngine  # noqa: E402
from coder.kpolicy import policy_factory  # noqa: E402

PATHS = ("cli", "engine")
CONDITIONS = ("cold", "warm")
# what the edit path imports, timed in a fresh interpreter (CLI entry point, engine, backend, git)
EDIT_IMPORTS = ("coder.cli.main", "coder.cli.edit", "coder.config", "coder.edit.run.engine", "coder.edit.apply.gitops",
                "coder.backends.runtime.handle", "coder.backends.runtime.manager")


@dataclass(frozen=True)
class Case:
    """One real file: a full rewrite with small edits through it, and a region edit of one function."""

    name: str
    module: str
    full: str
    symbol: str
    region: str


CASES = (
    Case("linecache", "linecache",  # 182 lines
         "Rename the function updatecache to update_cache everywhere in the file.",
         "getline", "Add a docstring line to getline saying that line numbers start at 1."),
    Case("textwrap", "textwrap",  # 491 lines
         "Rename the method _munge_whitespace to _expand_whitespace everywhere in the file.",
         "dedent", "Add a comment above the loop in dedent saying it finds the common margin."),
    Case("shlex", "shlex",  # 350 lines
         "Rename the function split to split_words everywhere in the file, including __all__.",
         "join", "Add a docstring to join saying it is the inverse of split."),
)


def _parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profile", default="demo", help="coder profile to run (started unless it already runs)")
    p.add_argument("--cases", default="linecache,textwrap",
                   help=f"comma-separated subset of: {', '.join(c.name for c in CASES)}")
    p.add_argument("--modes", default="full,region")
    p.add_argument("--conditions", default=",".join(CONDITIONS))
    p.add_argument("--paths", default=",".join(PATHS))
    p.add_argument("--timeout", type=float, default=900.0, help="s per `coder edit` process")
    p.add_argument("--json", type=Path, help="write every figure here")
    return p.parse_args()


_serial = 0


def scratch(case: Case, tag: str) -> tuple[Path, str]:
    """A fresh git repository holding a copy of the case's module; its unique name keeps runs apart in the cache."""
    import importlib
    import inspect

    global _serial
    _serial += 1
    source = Path(inspect.getsourcefile(importlib.import_module(case.module)) or "")
    root = Path(tempfile.mkdtemp(prefix="coder-bench-e2e-")) / f"{case.name}-{tag}-{os.getpid()}-{_serial}"
    root.mkdir()
    (root / source.name).write_text(source.read_text())
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "bench")
    return root, source.name


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _env() -> dict[str, str]:
    # the subprocess imports this checkout; git needs an identity for coder's commit
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
            "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}


def run_cli(root: Path, rel: str, instruction: str, mode: str, symbol: str | None, profile: str,
            timeout: float) -> dict[str, Any]:
    """One ``coder edit --yes --json`` process, timed from spawn to exit."""
    argv = [sys.executable, "-m", "coder", "edit", rel, "-m", instruction, "--mode", mode, "--profile", profile,
            "--yes", "--json", *(["--symbol", symbol] if symbol else [])]
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=root, env=_env(), capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    try:
        out: dict[str, Any] = json.loads(proc.stdout)
    except ValueError:
        return {"rc": proc.returncode, "wall_s": wall, "error": (proc.stderr or proc.stdout)[-400:]}
    stats = out.get("stats") or {}
    phases = (out.get("timings") or {}).get("phases") or {}
    # every chat request the command sent (a retry's first reply, a plan's steps): its own split; the stats
    # describe only the last request, so a retried edit's first request was counted as outside
    request_s = phases.get("request", stats.get("elapsed"))
    return {
        "rc": proc.returncode, "wall_s": wall, "ok": out.get("ok"), "applied": out.get("applied"),
        "commit": out.get("commit"), "mode": out.get("mode"), "k": out.get("k"), "k_reason": out.get("k_reason"),
        "request_s": request_s, "outside_s": wall - request_s if request_s is not None else None,
        "ttft_s": stats.get("ttft"), "prefill_s": stats.get("prefill_s"), "decode_s": stats.get("decode_s"),
        "prompt_tokens": stats.get("prompt_tokens"), "cached_tokens": stats.get("cached_tokens"),
        "completion_tokens": stats.get("completion_tokens"), "tok_s": stats.get("decode_tps"),
        "acceptance_length": stats.get("acceptance_length"), "validate_s": out.get("validate_s"),
        "refusal": out.get("refusal"), "stderr_tail": proc.stderr[-300:] if proc.returncode else None,
        "phases": phases, "last_request_s": stats.get("elapsed"),
    }


def engine_run(engine: EditEngine, path: Path, instruction: str, mode: str, symbol: str | None) -> dict[str, Any]:
    """One in-process Enter→diff and apply (bench_latency's split), with what lies outside the request."""
    r = run_engine(engine, path, instruction, mode, symbol)
    request_s = r.get("wall_s")
    outside = sum(r[k] or 0.0 for k in ("prepare_s", "validate_s", "apply_s"))
    policy = engine.backend.policy
    k = policy.last.get(r["request_class"]) if hasattr(policy, "last") else None
    return {**{key: r[key] for key in ("mode", "ok", "applied", "enter_to_diff_s", "prepare_s", "validate_s",
                                       "apply_s", "ttft_s", "prefill_s", "decode_s", "prompt_tokens",
                                       "cached_tokens", "completion_tokens", "tok_s", "acceptance_length",
                                       "refusal")},
            "request_s": request_s, "outside_s": outside, "k": getattr(k, "k", None),
            "wall_s": r["enter_to_diff_s"] + (r["apply_s"] or 0.0)}


def fixed_costs() -> dict[str, float]:
    """Interpreter start, the edit path's imports, one git commit: medians of three."""
    def median(fn: Any) -> float:
        values = sorted(fn() for _ in range(3))
        return values[1]

    def start() -> float:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        return time.perf_counter() - t0

    code = ("import time; t = time.perf_counter(); import " + ", ".join(EDIT_IMPORTS)
            + "; print(time.perf_counter() - t)")

    def imports() -> float:
        return float(subprocess.run([sys.executable, "-c", code], env=_env(), check=True, capture_output=True,
                                    text=True).stdout)

    def commit() -> float:
        from coder.edit.apply import gitops

        root = Path(tempfile.mkdtemp(prefix="coder-bench-e2e-git-"))
        (root / "a.py").write_text("x = 1\n")
        _git(root, "init", "-q")
        _git(root, "add", ".")
        _git(root, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "init")
        (root / "a.py").write_text("x = 2\n")
        repo = gitops.open_repo(root)
        assert repo is not None
        t0 = time.perf_counter()
        gitops.commit_edit(repo, "a.py", "bench")
        return time.perf_counter() - t0

    return {"python_start_s": median(start), "imports_s": median(imports), "git_commit_s": median(commit)}


def bench_case(server: ServerInfo, case: Case, args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for mode in args.modes:
        instruction, symbol = (case.full, None) if mode == "full" else (case.region, case.symbol)
        for cond in args.conditions:
            for path_kind in args.paths:
                root, rel = scratch(case, f"{mode}-{cond}-{path_kind}")
                n_lines = len((root / rel).read_text().splitlines())
                # the policy `coder edit` uses: this profile's defaults and learned statistics
                backend = BackendHandle(server, _profile(args.profile), policy_factory=policy_factory())
                engine = EditEngine(backend, root)
                if cond == "warm":
                    warm_up(server, engine, root / rel, symbol)
                print(f"bench_e2e: {case.name} {mode} {cond} {path_kind} …", file=sys.stderr, flush=True)
                if path_kind == "cli":
                    engine.close()
                    r = run_cli(root, rel, instruction, mode, symbol, args.profile, args.timeout)
                else:
                    r = engine_run(engine, root / rel, instruction, mode, symbol)
                    engine.close()
                rows.append({"case": case.name, "lines": n_lines, "mode": mode,
                             "condition": cond, "path": path_kind, **r})
    return rows


def _profile(name: str) -> Any:
    from coder.config import load

    return load().profile(name)


def _f(v: Any, spec: str = ".2f") -> str:
    return "–" if v is None else format(v, spec)


def table(rows: list[dict[str, Any]], fixed: dict[str, float]) -> str:
    head = (f"{'case':10} {'lines':>5} {'mode':6} {'cond':5} {'path':6} {'wall':>6} {'request':>7} {'outside':>7} "
            f"{'TTFT':>5} {'decode':>6} {'out':>5} {'tok/s':>7} {'AL':>5} {'k':>3} result")
    lines = [head, "-" * len(head)]
    for r in rows:
        ok = "applied" if r.get("applied") else (r.get("refusal") or r.get("error") or "not applied")
        lines.append(f"{r['case']:10} {r['lines']:>5} {r['mode']:6} {r['condition']:5} {r['path']:6} "
                     f"{_f(r.get('wall_s')):>6} {_f(r.get('request_s')):>7} {_f(r.get('outside_s')):>7} "
                     f"{_f(r.get('ttft_s')):>5} {_f(r.get('decode_s')):>6} {_f(r.get('completion_tokens'), 'd'):>5} "
                     f"{_f(r.get('tok_s'), '.1f'):>7} {_f(r.get('acceptance_length'), '.1f'):>5} "
                     f"{_f(r.get('k'), 'd'):>3} {str(ok)[:40]}")
    lines.append("")
    lines.append("fixed costs: " + ", ".join(f"{k} {v:.3f}" for k, v in fixed.items()))
    return "\n".join(lines)


def main() -> int:
    args = _parse()
    args.modes = [m for m in args.modes.split(",") if m]
    args.conditions = [c for c in args.conditions.split(",") if c in CONDITIONS]
    args.paths = [p for p in args.paths.split(",") if p in PATHS]
    wanted = set(args.cases.split(","))
    cases = [c for c in CASES if c.name in wanted]
    from coder.backends.runtime import manager

    started = manager.current(args.profile) is None
    server = manager.start(_profile(args.profile))
    t0 = time.time()
    rows: list[dict[str, Any]] = []
    try:
        fixed = fixed_costs()
        for case in cases:
            rows += bench_case(server, case, args)
            if args.json:  # a partial record survives a run cut short
                args.json.with_suffix(".partial.json").write_text(json.dumps(rows, indent=1))
    finally:
        env = environment(server)
        if started:
            manager.stop(args.profile)
    print(table(rows, fixed))
    if args.json:
        args.json.write_text(json.dumps({"runs": rows, "fixed": fixed, "environment": env,
                                         "seconds": round(time.time() - t0, 1), "command": sys.argv}, indent=1))
        print(f"bench_e2e: wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
