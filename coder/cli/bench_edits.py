"""``coder bench --edits``: the edit-correctness benchmark (tasks in :mod:`coder.bench.edits`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from rich.console import Console

from coder.errors import CoderError

if TYPE_CHECKING:
    from coder.backends.runtime.server import ServerInfo
    from coder.bench.edits.run import Outcome
    from coder.bench.edits.taskdef import Task

T = TypeVar("T")

EDIT_MODES = ("full", "region", "auto")
# --set: task_sets()
TASK_SETS = ("suite", "heldout", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7",
             "fresh8", "fresh9", "fresh10")


def task_sets() -> dict[str, tuple[Task, ...]]:
    """The named task sets of ``--set``: the suite, written beside coder's instruction reader; the held-out
    set, written without reading it (issue 34's "tasks nobody here wrote"), since read by those tuning it; the
    fresh set, written later by someone who read neither coder's reader nor any result, since read too; the
    second fresh set, written the same way once the fresh set was read, since read as well; the third, written
    the same way once the second was read, since read too; the fourth, written the same way once the third was
    read, since read as well; the fifth, written the same way once the fourth was read; the sixth, written the
    same way once the fifth was read; the seventh, written the same way once the sixth was read; the eighth,
    written the same way once the seventh was read, and read after its first run (run 22); the ninth, written
    the same way once the eighth was read; and the tenth, written the same way once the ninth existed: the unseen
    one now."""
    from coder.bench.edits import (
        tasks,
        tasks_fresh,
        tasks_fresh2,
        tasks_fresh3,
        tasks_fresh4,
        tasks_fresh5,
        tasks_fresh6,
        tasks_fresh7,
        tasks_fresh8,
        tasks_fresh9,
        tasks_fresh10,
        tasks_heldout,
    )

    return {"suite": tasks.TASKS, "heldout": tasks_heldout.HELDOUT, "fresh": tasks_fresh.FRESH,
            "fresh2": tasks_fresh2.FRESH2, "fresh3": tasks_fresh3.FRESH3, "fresh4": tasks_fresh4.FRESH4,
            "fresh5": tasks_fresh5.FRESH5, "fresh6": tasks_fresh6.FRESH6,
            "fresh7": tasks_fresh7.FRESH7, "fresh8": tasks_fresh8.FRESH8, "fresh9": tasks_fresh9.FRESH9,
            "fresh10": tasks_fresh10.FRESH10}


def add_options(p: argparse.ArgumentParser) -> None:
    """The ``--edits`` options of ``coder bench``."""
    g = p.add_argument_group("edit correctness (--edits)")
    g.add_argument("--edits", action="store_true",
                   help="run the edit-correctness tasks (real stdlib files, a mechanical check each) "
                        "through coder's edit path, as `coder edit --yes` does")
    g.add_argument("--mode", default="auto", metavar="full,region,auto",
                   help="edit modes to run, comma-separated (default auto)")
    g.add_argument("--set", default="suite", choices=TASK_SETS,
                   help="which tasks: the suite (default), the held-out set, the fresh set, the second fresh set "
                        "(fresh2), the third (fresh3), the fourth (fresh4), the fifth (fresh5), the sixth (fresh6), "
                        "the seventh (fresh7), the eighth (fresh8), the ninth (fresh9) or the tenth (fresh10), the "
                        "last eleven written apart from coder's reading")
    g.add_argument("--tasks", metavar="NAMES", help="only tasks whose names start with these (comma-separated)")
    g.add_argument("--kinds", metavar="KINDS", help="only these kinds (rename,docstring,param,comment,...)")
    g.add_argument("--wordings", metavar="all|0,1,2",
                   help="which wordings of each task to send (default all: every (task, wording) pair); "
                        "0 is the one with every name in backticks")
    g.add_argument("--subset", metavar="cpu",
                   help="a fixed set of (task, wording) pairs instead of --tasks/--kinds/--wordings "
                        "(cpu: 10 pairs for a 2-core CPU)")
    g.add_argument("--list", action="store_true", help="list the chosen tasks and their wordings; run nothing")
    g.add_argument("--plans-only", action="store_true",
                   help="print the plan coder builds for each chosen (task, wording) pair and the same-plan count; "
                        "no server, no model request (auto's full/region pick uses its default costs)")
    g.add_argument("--json", action="store_true",
                   help="with --list: one JSON array of {id, kind, file, wordings, check}")
    g.add_argument("--no-guard", action="store_true",
                   help="apply changes the instruction does not explain (as --allow-unexplained)")
    g.add_argument("--no-repo-tests", action="store_true",
                   help="bug-fix tasks run without their module's upstream tests as the repository's test_command")
    g.add_argument("--keep-replies", action="store_true",
                   help="keep every pair's reply and diff in the JSON (to replay a later reading or check offline)")
    g.add_argument("--aider", metavar="PYTHON",
                   help="also run Aider on the same tasks and server: a Python that imports aider-chat 0.86.2 "
                        "(one process per edit format, Aider imported once)")
    g.add_argument("--aider-site", metavar="DIR", help="Aider's packages (`pip install --target DIR`), for --aider")
    g.add_argument("--aider-formats", default="whole,diff", metavar="whole,diff", help="Aider's edit formats")
    g.add_argument("--aider-only", action="store_true", help="run only Aider's rows (not coder's)")
    g.add_argument("--shard", metavar="K/N", help="only the K-th of N equal slices of the chosen tasks (split a run "
                                                  "over several calls; --merge joins the results)")
    g.add_argument("--merge", nargs="+", type=Path, metavar="JSON",
                   help="join the runs of earlier --edits results (shards, Aider rows) into one table, JSON and plot")
    g.add_argument("--aider-timeout", type=float, default=3600.0, metavar="S",
                   help="stop an Aider run after S seconds; the tasks it finished are reported")


def _formats(text: str) -> list[str]:
    from coder.bench.edits.aider import FORMATS

    formats = [f.strip() for f in text.split(",") if f.strip()]
    if not formats or any(f not in FORMATS for f in formats):
        raise CoderError(f"--aider-formats takes whole and/or diff, not {text!r}")
    return formats


def _modes(text: str) -> list[str]:
    modes = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in modes if m not in EDIT_MODES]
    if bad or not modes:
        raise CoderError(f"--mode takes full, region and/or auto, not {text!r}")
    return modes


def _shard(text: str | None, chosen: list[T]) -> list[T]:
    if not text:
        return chosen
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise CoderError(f"--shard takes K/N with 1 <= K <= N, not {text!r}")
    return chosen[int(k) - 1::int(n)]


def _chosen(args: argparse.Namespace) -> list[tuple[Task, int]]:
    """The (task, wording) pairs to run: ``--subset``, or ``--tasks``/``--kinds`` × ``--wordings``, then ``--shard``."""
    from coder.bench.edits import tasks, wordings

    pool = task_sets()[args.set]
    if args.subset:
        if args.tasks or args.kinds or args.wordings or args.set != "suite":
            raise CoderError("--subset is a fixed set of (task, wording) pairs of the suite: leave out --tasks, "
                             "--kinds, --wordings, --set")
        chosen = wordings.subset(pool, args.subset)
    else:
        chosen = wordings.pairs(tasks.select(args.tasks, args.kinds, pool), wordings.parse_wordings(args.wordings))
    chosen = _shard(args.shard, chosen)
    if not chosen:
        raise CoderError("no task matches --tasks/--kinds/--wordings (see coder/bench/edits/tasks.py)")
    return chosen


def list_tasks(args: argparse.Namespace) -> int:
    """``--list``: the chosen tasks with their wordings (``--json``: one JSON array); nothing runs."""
    import json

    from coder.bench.edits.wordings import listing

    chosen = _chosen(args)
    picked = list(dict.fromkeys(t for t, _ in chosen))
    if args.json:
        rows = listing(picked)
        for row in rows:  # only the chosen wordings, where --wordings or --subset narrowed them
            row["wordings"] = [t.wordings[i] for t, i in chosen if t.name == row["id"]]
        print(json.dumps(rows, indent=1))
        return 0
    for task in picked:
        print(f"{task.name}  [{task.kind}]  {task.file}")
        for t, i in chosen:
            if t is task:
                print(f"  {i}: {t.wordings[i]}")
    return 0


def plans_only(args: argparse.Namespace) -> int:
    """``--plans-only``: each chosen pair's plan key, as the report compares them, and the same-plan count."""
    from coder.bench.edits.run import Outcome, plan_of
    from coder.bench.edits.wordings import same_plan

    rows = []
    for task, w in _chosen(args):
        key = plan_of(task, w)
        rows.append(Outcome(task.name, task.file, task.kind, "auto", "planned", "", wording=w, plan_key=key))
        print(f"{task.name} ({w}): {key or 'refused before planning'}")
    same = same_plan(rows)
    print(f"the same plan in every wording: {same['same']} of {same['tasks']} tasks")
    return 0


def _serverless(args: argparse.Namespace) -> int | None:
    """``--list``, ``--plans-only`` and ``--merge``, which need no server: their exit status (None: none given)."""
    from coder.bench.edits import report

    if args.list:
        return list_tasks(args)
    if args.plans_only:
        return plans_only(args)
    if args.json:
        raise CoderError("--json goes with --list (a run always writes its JSON file)")
    if args.merge:
        merged, merged_doc = report.merge(args.merge)
        _publish(args, merged, merged_doc, str(merged_doc["target"]))
        return 0
    return None


def run(args: argparse.Namespace) -> int:
    """Run the selected (task, wording) pairs in each mode on one server; print the tables, write JSON and plots."""
    from coder.bench.edits import report
    from coder.bench.edits.run import run_task

    if (status := _serverless(args)) is not None:
        return status
    if args.profiles:
        raise CoderError("--edits measures one server: give --profile NAME or --attach URL")
    modes = [] if args.aider_only else _modes(args.mode)
    formats = _formats(args.aider_formats) if args.aider else []
    if args.aider_only and not args.aider:
        raise CoderError("--aider-only needs --aider PYTHON")
    chosen = _chosen(args)
    server, stop = _server(args)
    err = Console(stderr=True)
    if not err.is_terminal:
        err = Console(stderr=True, width=200)  # a log: one line per task
    runs: dict[str, list[Outcome]] = {}
    aider_import_s: dict[str, float | None] = {}
    interrupted = False
    try:
        for mode in modes:
            rows = runs.setdefault(mode, [])
            for i, (task, w) in enumerate(chosen, 1):
                # markup off: "[auto 1/9]", "[!a]" and "[...]" are text here, not rich tags
                err.print(f"[{mode} {i}/{len(chosen)}] {task.name} ({w}): {task.wordings[w][:70]}", highlight=False,
                          markup=False)
                rows.append(run_task(server, task, mode, wording=w, guard=not args.no_guard,
                                     keep_replies=args.keep_replies, repo_tests=not args.no_repo_tests))
                layer = f" [{rows[-1].layer}]" if rows[-1].layer else ""
                err.print(f"  → {rows[-1].outcome}{layer}: {rows[-1].why[:100]}", highlight=False, markup=False)
        aider_tasks = list(dict.fromkeys(t for t, _ in chosen))  # Aider gets wording 0 of each task
        for fmt in formats:
            from coder.bench.edits.aider import run_aider_batch

            err.print(f"[aider-{fmt}] {len(aider_tasks)} tasks in one Aider process", highlight=False)
            runs[f"aider-{fmt}"], aider_import_s[fmt] = run_aider_batch(
                args.aider, server, aider_tasks, fmt, site=args.aider_site, timeout=args.aider_timeout)
            s = report.summary(runs[f"aider-{fmt}"])
            err.print(f"  → correct {s['correct']}, refused {s['refused']}, wrong {s['wrong']}; "
                      f"Aider's import {aider_import_s[fmt] or 0:.1f} s", highlight=False)
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
    doc["repo_tests"] = not args.no_repo_tests
    doc["set"] = args.set
    if aider_import_s:
        doc["aider_import_s"] = aider_import_s  # apart from the per-task times
    _publish(args, runs, doc, name)
    return 0


def _publish(args: argparse.Namespace, runs: dict[str, list[Outcome]], doc: dict[str, object], name: str) -> None:
    """Write the JSON and the plot, print the tables."""
    from coder.bench import plots
    from coder.bench.edits import report

    out_dir = args.out or Path("bench-results")
    path = report.write_json(doc, out_dir, name)
    console = Console() if sys.stdout.isatty() else Console(width=160)
    for run_name, rows in runs.items():
        report.render(rows, f"{name} {run_name}", console)
    report.render_kinds(runs, console)
    report.render_wordings(runs, console)
    console.print(f"\nresult: {path}", highlight=False)
    if not args.no_plots:
        png = plots.plot_edits(runs, path.with_suffix(".png"), f"edit correctness: {name}")
        console.print(f"plot: {png}", highlight=False)
        ours = {n: rows for n, rows in runs.items() if not n.startswith("aider-")}
        if ours:
            png = plots.plot_edit_wordings(ours, path.with_name(path.stem + "-wordings.png"),
                                           f"edit correctness per kind and wording: {name}")
            console.print(f"plot: {png}", highlight=False)


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
