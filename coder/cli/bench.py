"""``coder bench``: measure tok/s and acceptance on your prompts; ``coder bench compare A B``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from coder import config as config_mod
from coder.cli import Subparsers, bench_edits
from coder.cli.keyopts import add_key_options, api_key
from coder.errors import CoderError
from coder.redact import redact_argv, scrub

if TYPE_CHECKING:
    from coder.bench.schema import BenchReport
    from coder.bench.sweep import Target

EPILOG = """\
examples:
  coder bench --quick                         built-in suite, 1 rep, short outputs, default profile
  coder bench prompts/ --k 2,4,8 --baseline   your prompts: k sweep, speedup vs no speculation
  coder bench prompts.jsonl --concurrency 1,2,4 --profiles demo,demo-self
  coder bench --k 3,5,7 --apply               write the best k per request class into the profile
  coder bench --verify-lossless               greedy outputs with vs without speculation; each
                                              divergence explained (token, margin, verdict)
  coder bench compare old.json new.json       two results side by side with ratios
  coder bench --edits --mode full,region,auto edit correctness: real files, checked mechanically

prompts: a directory of .txt/.md files (optional first line `class: full|region|fresh`) or a JSONL
file with {"name", "messages" | "prompt", "class"?, "file"?, "lines"?} per line.
"""


def _ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"expected integers ≥ 1, got {text!r}")
    return sorted(dict.fromkeys(values))


def register(sub: Subparsers) -> None:
    """Add this command group's parsers."""
    p = sub.add_parser(
        "bench", help="measure tok/s, acceptance and the best k on your own prompts",
        description="Benchmark the speculative-decoding backend the way the seeds do: greedy, thinking "
        "off, N repetitions, priming request excluded, cold prompts; report decode tok/s, TTFT, acceptance "
        "length and per-position acceptance from the engine's counters. `coder bench compare A.json "
        "B.json` compares two results.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("args", nargs="*", metavar="PROMPTS",
                   help="prompt directory or .jsonl/.txt/.md file (default: the built-in suite); "
                        "or `compare A.json B.json`")
    p.add_argument("--quick", action="store_true", help="1 repetition, 64 output tokens, short prefill")
    p.add_argument("--reps", type=int, help="repetitions per prompt (default 3)")
    p.add_argument("--max-tokens", type=int, help="output cap per request (default 512)")
    p.add_argument("--concurrency", type=_ints, default=[], metavar="1,2,4", help="concurrency sweep")
    p.add_argument("--conc-max-tokens", type=int,
                   help="output cap in the concurrency sweep (default: --max-tokens)")
    p.add_argument("--k", type=_ints, default=[], metavar="2,4,8", help="draft-depth sweep")
    p.add_argument("--k-restart", action="store_true",
                   help="apply every k by relaunching the server, even where a per-request cap would do")
    p.add_argument("--profile", help="profile to bench (default: the config's default_profile)")
    p.add_argument("--profiles", metavar="a,b", help="bench several profiles on the same prompts")
    p.add_argument("--attach", metavar="URL", help="bench a server someone else started")
    add_key_options(p)
    p.add_argument("--baseline", action="store_true",
                   help="also run without speculation: speedups, fraction of ideal")
    p.add_argument("--verify-lossless", action="store_true",
                   help="compare greedy outputs with and without speculation (implies a baseline run); "
                        "on llama.cpp every divergence gets its first differing token, the margin in "
                        "nats and a verdict against the plain-vs-plain noise floor")
    p.add_argument("--no-prefill", action="store_true", help="skip the long-prompt prefill measurement")
    p.add_argument("--warm-cache", action="store_true", help="let the server reuse cached prompt prefixes")
    p.add_argument("--out", type=Path,
                   help="directory for the JSON and PNG files (default: coder's data dir)")
    p.add_argument("--no-plots", action="store_true", help="write no PNG files")
    p.add_argument("--apply", action="store_true",
                   help="write the recommended k per class into the profile's k_by_class (user config)")
    bench_edits.add_options(p)
    p.set_defaults(func=_bench)


class _Bar:
    """rich progress bar on stderr behind the runner's Progress protocol."""

    def __init__(self, progress: Any, task: Any) -> None:
        self.progress, self.task = progress, task

    def add(self, n: int) -> None:
        total = self.progress.tasks[0].total or 0
        self.progress.update(self.task, total=total + n)

    def step(self, description: str) -> None:
        self.progress.update(self.task, advance=1, description=description[:48])


def _bench(args: argparse.Namespace) -> int:
    if args.args and args.args[0] == "compare":
        return _compare(args.args[1:])
    if args.edits:
        return bench_edits.run(args)
    if len(args.args) > 1:
        raise CoderError("give one prompts directory or file (or `compare A.json B.json`)")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from coder.bench import plots, report, sweep, workloads
    from coder.bench.runner import Settings
    from coder.paths import data_dir

    settings = Settings(
        reps=args.reps or (1 if args.quick else 3),
        max_tokens=args.max_tokens or (64 if args.quick else 512),
        cold=not args.warm_cache,
        prefill_chars=2000 if args.quick else 6000,
    )
    if settings.reps < 1 or settings.max_tokens < 1:
        raise CoderError("--reps and --max-tokens must be ≥ 1")
    wl = workloads.load_prompts(Path(args.args[0])) if args.args else workloads.builtin_suite()
    targets = _targets(args)
    plan = sweep.Plan(
        workloads=wl, settings=settings, targets=targets, ks=args.k, concurrency=args.concurrency,
        baseline=args.baseline, verify_lossless=args.verify_lossless, prefill=not args.no_prefill,
        force_restart=args.k_restart, conc_max_tokens=args.conc_max_tokens,
    )
    err = Console(stderr=True)
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("bench", total=0)
        results = sweep.run_plan(plan, _Bar(bar, task))
    settings_json = {**vars(settings), "ks": args.k, "concurrency": args.concurrency,
                     "baseline": args.baseline, "verify_lossless": args.verify_lossless,
                     "prefill": not args.no_prefill, "k_restart": args.k_restart,
                     "conc_max_tokens": args.conc_max_tokens}
    secrets = [api_key(args), *(t.server.api_key for t in targets if t.server is not None)]
    doc = report.build_report(results, settings=settings_json, workloads=[w.to_json() for w in wl],
                              argv=redact_argv(sys.argv, secrets))
    doc = scrub(doc, secrets)  # a key must not reach the shareable JSON by any field
    out_dir = args.out or (data_dir() / "bench")
    path = report.write_json(doc, out_dir)
    console = Console()
    if not console.is_terminal:
        console = Console(width=150)  # piped or redirected: keep table columns whole
    report.render(doc, console)
    console.print(f"\nresult: {path}", highlight=False)
    if not args.no_plots:
        for png in plots.plot_all(doc, out_dir, path.stem):
            console.print(f"plot: {png}", highlight=False)
    if args.apply:
        _apply(doc, targets, console)
    return 0


def _targets(args: argparse.Namespace) -> list[Target]:
    from coder.bench.sweep import Target
    from coder.repo import find_repo_root

    if args.attach:
        if args.profiles or args.profile:
            raise CoderError("--attach measures one given server; drop --profile/--profiles")
        from coder.backends.runtime import manager

        server = manager.attach(args.attach, api_key(args))
        return [Target(args.attach, server=server)]
    cfg = config_mod.load(find_repo_root(Path.cwd()))
    names = [n.strip() for n in args.profiles.split(",") if n.strip()] if args.profiles else [args.profile]
    return [Target((p := cfg.profile(n)).name, profile=p) for n in names]


def _apply(doc: BenchReport, targets: list[Target], console: Console) -> None:
    path = config_mod.user_config_path()
    applied = False
    for res, target in zip(doc["results"], targets, strict=True):
        rec = res["recommendation"]
        if not rec:
            continue
        if target.profile is None:
            console.print(f"--apply: {target.name} is an attached server with no profile; nothing written")
            continue
        for cls, k in rec.items():
            config_mod.save_user_setting(path, f"profiles.{target.profile.name}.k_by_class", cls, k)
        applied = True
        console.print(f"applied to {path} [profiles.{target.profile.name}.k_by_class]: "
                      + ", ".join(f"{c} = {k}" for c, k in rec.items()), highlight=False)
    if not applied:
        raise CoderError("--apply needs a k sweep with at least two values (--k 2,4,8) on a profile")


def _compare(paths: list[str]) -> int:
    from coder.bench import compare, report

    if len(paths) != 2:
        raise CoderError("usage: coder bench compare A.json B.json")
    a, b = (report.load_json(Path(p)) for p in paths)
    console = Console()
    compare.render_compare(compare.compare(a, b), paths[0], paths[1], console)
    if warning := compare.prompt_mismatch(a, b):
        console.print(f"[yellow]note:[/] {warning}", highlight=False)
    return 0
