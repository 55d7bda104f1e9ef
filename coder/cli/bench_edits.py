"""``coder bench --edits``: the edit-correctness benchmark (tasks in :mod:`coder.bench.edits`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from coder.errors import CoderError

if TYPE_CHECKING:
    from coder.backends.runtime.server import ServerInfo

EDIT_MODES = ("full", "region", "auto")


def add_options(p: argparse.ArgumentParser) -> None:
    """The ``--edits`` options of ``coder bench``."""
    g = p.add_argument_group("edit correctness (--edits)")
    g.add_argument("--edits", action="store_true",
                   help="run the edit-correctness tasks (real stdlib files, a mechanical check each) "
                        "through coder's edit path, as `coder edit --yes` does")
    g.add_argument("--mode", default="auto", metavar="full,region,auto",
                   help="edit modes to run, comma-separated (default auto)")
    g.add_argument("--tasks", metavar="NAMES", help="only tasks whose names start with these (comma-separated)")
    g.add_argument("--kinds", metavar="KINDS", help="only these kinds (rename,docstring,param,comment,...)")
    g.add_argument("--no-guard", action="store_true",
                   help="apply changes the instruction does not explain (as --allow-unexplained)")
    g.add_argument("--aider", metavar="EXE", help="also run Aider (whole and diff formats) on the same tasks")


def _modes(text: str) -> list[str]:
    modes = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in modes if m not in EDIT_MODES]
    if bad or not modes:
        raise CoderError(f"--mode takes full, region and/or auto, not {text!r}")
    return modes


def run(args: argparse.Namespace) -> int:
    """Run the selected tasks in each mode on one server; print the table, write JSON and a plot."""
    from coder.bench.edits import report, tasks
    from coder.bench.edits.run import Outcome, run_task

    if args.profiles:
        raise CoderError("--edits measures one server: give --profile NAME or --attach URL")
    modes = _modes(args.mode)
    chosen = tasks.select(args.tasks, args.kinds)
    if not chosen:
        raise CoderError("no task matches --tasks/--kinds (see coder/bench/edits/tasks.py)")
    server, stop = _server(args)
    err = Console(stderr=True)
    if not err.is_terminal:
        err = Console(stderr=True, width=200)  # a log: one line per task
    runs: dict[str, list[Outcome]] = {}
    interrupted = False
    try:
        for mode in modes:
            rows = runs.setdefault(mode, [])
            for i, task in enumerate(chosen, 1):
                err.print(f"[{mode} {i}/{len(chosen)}] {task.name}: {task.instruction[:70]}", highlight=False)
                rows.append(run_task(server, task, mode, guard=not args.no_guard))
                err.print(f"  → {rows[-1].outcome}: {rows[-1].why[:100]}", highlight=False)
        if args.aider:
            from coder.bench.edits.aider import run_aider_task

            for fmt in ("whole", "diff"):
                rows = runs.setdefault(f"aider-{fmt}", [])
                for task in chosen:
                    rows.append(run_aider_task(args.aider, server, task, fmt))
    except KeyboardInterrupt:  # Ctrl-C: report the tasks that finished (the one running is dropped)
        interrupted = True
        err.print("interrupted: reporting the tasks that finished", highlight=False)
    finally:
        stop()
    name = server.profile or args.attach or "server"
    doc = report.build(runs, target=name, server={"url": server.url, "model": server.model,
                                                  "spec_type": server.spec_type, "k": server.k},
                       guard=not args.no_guard, argv=_argv(args, server))
    doc["interrupted"] = interrupted
    out_dir = args.out or Path("bench-results")
    path = report.write_json(doc, out_dir, name)
    console = Console() if sys.stdout.isatty() else Console(width=160)
    for run_name, rows in runs.items():
        report.render(rows, f"{name} {run_name}", console)
    console.print(f"\nresult: {path}", highlight=False)
    if not args.no_plots:
        png = report.plot(runs, path.with_suffix(".png"), f"edit correctness: {name}")
        console.print(f"plot: {png}", highlight=False)
    return 0


def _argv(args: argparse.Namespace, server: ServerInfo) -> list[str]:
    """The command line for the JSON, with any key redacted."""
    from coder.cli.keyopts import api_key
    from coder.redact import redact_argv

    return redact_argv(sys.argv, [api_key(args), server.api_key])


def _server(args: argparse.Namespace) -> tuple[ServerInfo, Callable[[], None]]:
    """The server to use and how to stop it again (only a profile started here is stopped)."""
    from coder.backends.runtime import manager
    from coder.cli.keyopts import api_key

    if args.attach:
        return manager.attach(args.attach, api_key(args)), lambda: None
    from coder import config as config_mod
    from coder.repo import find_repo_root

    profile = config_mod.load(find_repo_root(Path.cwd())).profile(args.profile)
    running = manager.current(profile.name) if profile.managed else None
    if running is not None:
        return running, lambda: None
    server = manager.start(profile)

    def stop() -> None:
        if profile.managed:
            manager.stop(profile.name)
    return server, stop
