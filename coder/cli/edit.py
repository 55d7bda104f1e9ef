"""``coder edit`` (one edit request, end to end) and ``coder undo``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from coder.cli import Subparsers
from coder.cli.keyopts import add_key_options, api_key
from coder.edit import MODES
from coder.errors import CoderError
from coder.telemetry import timings
from coder.telemetry.stats import format_drafted
from coder.textsafe import require_utf8, visible

if TYPE_CHECKING:  # the edit engine (git, HTTP) loads when a command runs, not for --help
    from coder.backends.runtime.handle import BackendHandle
    from coder.backends.runtime.server import ServerInfo
    from coder.edit.apply.gitcli import WorkTree
    from coder.edit.proposal import ApplyResult, EditProposal, EditRequest
    from coder.edit.run.engine import EditEngine
    from coder.edit.run.plan_result import PlanProposal, PlanRequest

EDIT_EPILOG = """\
examples:
  coder edit app.py -m "add type hints"                  whole file (or auto), asks before writing
  coder edit app.py -m "handle a missing key" --symbol Cache.get
  coder edit app.py -m "use pathlib" --lines 10-42 --yes
  coder edit app.py -m 'make `load` async'               auto: a symbol named in `backticks` is a region
  coder edit app.py -m "add logging" --dry-run --json    show the result, write nothing
  coder undo                                              revert coder's last edit commit

auto mode compares expected output tokens / expected tok/s for full and region and says why.
Refused replies (truncated, elided, unparsable, not one block) leave the file byte-identical.
Changes the instruction does not explain (a rename that also edits other code, a hunk far from
the symbol named) are marked `!!` in the diff; --yes refuses them unless --allow-unexplained.
So is a reply that adds invisible, control or bidi code points (shown as <U+200B> and named).
test_command / lint_command (your config, or a trusted .coder.toml) run on the proposal in a
copy of the work tree first; a failure refuses the edit and shows the command's last lines.
"""


def register(subparsers: Subparsers) -> None:
    """Add ``edit`` and ``undo``."""
    p = subparsers.add_parser(
        "edit", help="ask the model to rewrite a file or a region, show the diff, apply and commit",
        description="Send one edit request: the model returns the whole file (full) or a whole region "
        "(a function, class, method or line range); coder validates it, shows the diff, writes it "
        "atomically and commits it as `coder: <instruction>`.",
        epilog=EDIT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", type=Path, help="the file to edit (inside the current repository)")
    p.add_argument("-m", "--message", required=True, metavar="INSTRUCTION", help="what to change")
    p.add_argument("--mode", choices=MODES, default="auto",
                   help="full file, a region, or auto (the faster by predicted time; default)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--symbol", metavar="NAME", help="region: function, class or Class.method")
    where.add_argument("--lines", metavar="A-B", help="region: a 1-based inclusive line range")
    p.add_argument("--k", type=int, metavar="N", help="cap draft tokens per step for this request")
    p.add_argument("--profile", help="use the running server of this profile (default: any running one)")
    p.add_argument("--attach", metavar="URL", help="use an already running server at URL")
    add_key_options(p)
    p.add_argument("--no-git", action="store_true",
                   help="edit without git even inside a repository (no snapshot, no commit, no undo)")
    p.add_argument("--allow-ignored", action="store_true", help="allow editing a file that git ignores")
    p.add_argument("--yes", "-y", action="store_true",
                   help="apply without asking (refused when a change is not explained by the instruction)")
    p.add_argument("--allow-unexplained", action="store_true",
                   help="with --yes, apply even changes the instruction does not explain (see the diff's !! marks)")
    p.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    p.add_argument("--json", action="store_true", help="print one JSON result on stdout (with its timings)")
    p.add_argument("--timings", action="store_true",
                   help="say on stderr where the wall time went: python start, imports, config, server probe, "
                        "tokenizer, planning, the request, checks, git (and every round trip to the server)")
    p.set_defaults(func=run_edit)

    u = subparsers.add_parser(
        "undo", help="revert coder's last edit commit (only when it is HEAD and untouched since)",
        description="Revert the last `coder:` edit commit when it is HEAD and its files still match it. "
        "Nothing else in the repository is touched.",
    )
    u.add_argument("--json", action="store_true", help="print one JSON result on stdout")
    u.set_defaults(func=run_undo)


def _find_server(args: argparse.Namespace) -> ServerInfo:
    from coder.backends.runtime import manager

    if args.attach:
        return manager.attach(args.attach, api_key(args))
    info = manager.current(args.profile)
    if info is None:
        raise CoderError("no backend is running; start one with `coder backend start`")
    return info


def _adopt(handle: BackendHandle, args: argparse.Namespace, server: ServerInfo) -> None:
    """Point ``handle`` at ``server`` by the handle's one adopt rule (:meth:`BackendHandle.profile_of`).

    ``--k`` is a user override, validated against the server.
    """
    if args.k is not None and args.k < 1:
        raise CoderError("--k must be at least 1 (draft tokens per step)")
    handle.adopt(server)
    if args.k is not None:
        handle.pin(args.k)


def _stats_line(p: EditProposal) -> str:
    s = p.stats

    def num(v: float | None, fmt: str, unit: str = "") -> str:
        return format(v, fmt) + unit if v is not None else "n/a"  # never "n/as" or "None tok"
    k = f"k={p.k}" if p.k is not None else "k=launch"
    acc_src = f" ({s.acceptance_source})" if s.acceptance_source else ""
    return (f"{p.mode} ({p.request_class}), {k}: TTFT {num(s.ttft, '.2f', 's')}, "
            f"{num(s.decode_tps, '.1f', ' tok/s')}, acceptance length {num(s.acceptance_length, '.2f')}{acc_src}, "
            f"prompt {num(s.prompt_tokens, 'd', ' tok')} (cached {num(s.cached_tokens, 'd')}), "
            f"completion {num(s.completion_tokens, 'd', ' tok')}{_by_type(s.draft_by_type)}")


def _by_type(by_type: dict[str, dict[str, int]] | None) -> str:
    """``; drafted: prediction 812 (95%, 790 accepted) · draft-simple 40 (5%, 12 accepted)``."""
    text = format_drafted(by_type)
    return f"; {text}" if text else ""


def _colour_diff(diff: str) -> str:
    """The diff with ANSI colours; the diff's own text made visible first (it is the model's data)."""
    out = []
    for line in visible(diff).splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            out.append(f"\x1b[1m{line.rstrip()}\x1b[0m\n")
        elif line.startswith("+"):
            out.append(f"\x1b[32m{line.rstrip()}\x1b[0m\n")
        elif line.startswith("-"):
            out.append(f"\x1b[31m{line.rstrip()}\x1b[0m\n")
        elif line.startswith("@@"):
            out.append(f"\x1b[36m{line.rstrip()}\x1b[0m\n")
        elif line.startswith("!!"):  # a hunk the instruction does not explain (coder.edit.checks.explained)
            out.append(f"\x1b[1;33m{line.rstrip()}\x1b[0m\n")
        else:
            out.append(line)
    return "".join(out)


def _say(line: str, err: TextIO) -> None:
    """One ``coder:`` line on ``err``, made visible: it quotes file names, notes and server text."""
    print(visible(f"coder: {line}"), file=err)


def _confirm() -> bool:
    if not sys.stdin.isatty():
        return False
    sys.stderr.write("apply this edit? [y/N] ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def run_edit(args: argparse.Namespace) -> int:
    """``coder edit``: one edit end to end; exit 2 when the reply is refused (file untouched)."""
    from coder.cli.edit_timing import begin, print_json, print_timings

    begin(plan=not (args.symbol or args.lines))  # a named region is one request: no planner (_prepare)
    result: dict[str, Any] = {"ok": False, "applied": False}
    try:
        code = _run_edit(args, result)
        import coder

        coder.QUICK_EXIT = True  # written, committed and reported: nothing is left for the teardown (cli.main)
        return code
    except CoderError as exc:
        if not args.json:
            raise
        result["error"] = str(exc)
        print_json(result)
        _say(f"error: {exc}", sys.stderr)
        return 1
    finally:
        if args.timings:
            print_timings()
        timings.stop()  # run in-process (tests), later clients must not record into this command's split


def _make_engine(args: argparse.Namespace) -> tuple[EditEngine, BackendHandle]:
    """The edit engine for this work tree and its backend handle (configured profile, the user's checks)."""
    from coder.backends.runtime.handle import BackendHandle
    from coder.config import load
    from coder.edit.apply import gitcli
    from coder.edit.checks.user_commands import commands
    from coder.edit.run.engine import EditEngine
    from coder.kpolicy import policy_factory

    cwd = Path.cwd()
    # the root holds the repository's .coder.toml; --no-git finds it without asking git (which may refuse)
    tree = _one_edit(gitcli.find_tree(cwd)) if not args.no_git else None
    found = tree.root if tree is not None else gitcli.dot_git_root(cwd) if args.no_git else None
    root = found or cwd.resolve()
    config = load(found)
    # the configured profile (--profile may name only a running server's record: then the default);
    # the running server's own wins when it records one (the handle's adopt rule)
    configured = config.profiles.get(args.profile) if args.profile else None
    handle = BackendHandle(configured=configured or config.profile(), profiles=config.profiles,
                           policy_factory=policy_factory())
    engine = EditEngine(handle, root, snapshot_dirty=config.snapshot_dirty, use_git=not args.no_git,
                        checks=commands(config.test_command, config.lint_command, config.check_timeout),
                        checks_not_run=config.commands_not_run or "", tree=tree)
    engine.allow_ignored = args.allow_ignored
    return engine, handle


def _one_edit(tree: WorkTree | None) -> WorkTree | None:
    """``tree`` for the one edit this process makes: git's ignore verdict on a path is asked once.

    The target is checked before the server is asked (bad input first), then again by the planner
    and by the request it prepares: one ``git check-ignore`` each, 2-7 ms apiece on a 2-core box.
    Nothing this process does changes what git ignores, so the first verdict stands for the rest.
    """
    if tree is None:
        return None
    from coder.edit.apply.gitcli import WorkTree

    verdicts: dict[str, bool] = {}

    class OneEdit(WorkTree):
        def is_ignored(self, rel: str) -> bool:
            if rel not in verdicts:
                verdicts[rel] = super().is_ignored(rel)
            return verdicts[rel]

    return OneEdit(tree.root, tree.git_dir)


def _say_retries(proposal: EditProposal, err: TextIO) -> None:
    """Why the first reply was asked once more, and the samples drawn after that retry."""
    if proposal.retried:  # a region reply a code rule refused was asked once more (EditEngine.retry_request)
        _say(f"the first reply was refused ({proposal.retried}); asked once more, saying why", err)
    if proposal.sampled is not None:  # the retry did not mend a fix the example or tests show (coder.edit.run.sample)
        _say(proposal.sampled.line(), err)
    if proposal.moved:  # the bug was looked for where the failing example or tests point (coder.edit.run.locate)
        _say(proposal.moved, err)
    if proposal.repaired:  # one-token changes held to the failing tests (coder.edit.run.repair)
        _say(proposal.repaired, err)


def _run_edit(args: argparse.Namespace, result: dict[str, Any]) -> int:
    from coder.cli.edit_timing import print_json
    from coder.edit.apply.files import diff_stat, display_diff
    from coder.edit.proposal import EditRequest

    with timings.phase("config"):
        engine, handle = _make_engine(args)
        require_utf8(args.message, "the instruction")  # bad input before the backend
        engine.check_target(args.path, symbol=args.symbol, lines=args.lines)
    with timings.phase("probe"):
        _adopt(handle, args, _find_server(args))
    with timings.phase("plan"):
        request = _prepare(engine, args)
    if not isinstance(request, EditRequest):  # a plan of regions, or of mechanical steps
        from coder.cli.edit_plan import run_plan_edit

        return run_plan_edit(engine, request, args, result, colour=_colour_diff, confirm=_confirm)
    err = sys.stderr
    if not engine.has_git:
        why = "--no-git" if args.no_git else "not a git repository"
        _say(f"{why}: the edit will be written without a commit", err)
    k = request.k.k if request.k.k is not None else "launch"
    if request.spec is not None:
        from coder.edit.intent.describe import read_line

        _say(f"{request.snapshot.rel}: {read_line(request.spec, request.how)}", err)
    _say(f"{request.snapshot.rel}: {request.mode_reason}; k={k} "
         f"[{request.request_class}, {request.k.via}]: {request.k.reason}; "
         f"prompt ~{request.budget.prompt_tokens} tok ({request.token_source})", err)
    if request.prompt.target.strip() and (notice := engine.prediction_notice()):
        _say(notice, err)
    proposal = _stream(engine, request, err)
    result.update(proposal.to_json())
    _say_retries(proposal, err)
    if proposal.scope is not None and (left := proposal.scope.dropped_note()):  # coder took a change out
        _say(left, err)
    _print_checks(proposal, err)
    if not proposal.ok:
        _say(_stats_line(proposal), err)
        if args.json:
            print_json(result)
        _say(f"error: edit refused: {proposal.refusal}; {request.snapshot.rel} untouched", err)
        return 2
    scope = proposal.scope
    if not args.json:
        with timings.phase("output"):
            if proposal.diff:
                shown = display_diff(scope.mark_diff(proposal.diff) if scope is not None else proposal.diff)
                sys.stdout.write(_colour_diff(shown) if sys.stdout.isatty() else visible(shown))
            added, removed = diff_stat(proposal.diff)
            _say(f"{_stats_line(proposal)}; +{added} -{removed} lines", err)
    from coder.cli.edit_plan import refused_unexplained

    if refused_unexplained(proposal, args, result, err):
        return 2
    from coder.cli.edit_plan import finish

    applied, note = _maybe_apply(engine, proposal, args)
    return finish(applied, note, args, result, err)


def _print_checks(proposal: EditProposal | PlanProposal, err: TextIO) -> None:
    """One line per test/lint command run on the proposal (in a copy of the tree); a failure's last lines.

    An untrusted repository's commands that did not run get their one line too (a process makes one edit).
    """
    if proposal.checks_not_run:
        _say(proposal.checks_not_run, err)
    for line in getattr(proposal, "examples", ()):  # a fix's examples, run before and after (checks.behaviour)
        _say(line, err)
    for run in proposal.checks:
        print(f"coder: {run.line()}", file=err)
        for tail in run.tail if not run.ok else ():
            print(f"coder:   | {tail}", file=err)


def _prepare(engine: EditEngine, args: argparse.Namespace) -> EditRequest | PlanRequest:
    """The request: the region the user named, else a plan when one applies, else one request."""
    if args.symbol or args.lines:
        return engine.prepare(args.path, args.message, mode=args.mode, symbol=args.symbol, lines=args.lines)
    from coder.edit.run.plan_run import prepare  # a rename, move, deletion... or a long file's rewrite

    return prepare(engine, args.path, args.message, mode=args.mode)


def _stream(engine: EditEngine, request: EditRequest, err: TextIO) -> EditProposal:
    """Run the request, showing progress on ``err``; the proposal it ends with."""
    from coder.cli.streamline import StreamLine
    from coder.telemetry.stats import RequestStats

    proposal: EditProposal | None = None
    # "stats": the request's own bookkeeping (counters before and after, learning); the chat round trip
    # inside is "request" (coder.telemetry.timings) and the reply's validation is moved to "checks"
    with timings.phase("stats"), StreamLine(err) as line:  # redrawn by its own thread, never per token
        for event in engine.run(request):
            if isinstance(event, RequestStats):
                line.update(event)
            else:
                proposal = event
    if proposal is None:
        raise CoderError("internal: the edit stream ended without a result")
    if timings.RECORDER is not None and proposal.validate_s is not None:
        timings.RECORDER.move(proposal.validate_s, "stats", "checks")
    return proposal


def _maybe_apply(engine: EditEngine, proposal: EditProposal,
                 args: argparse.Namespace) -> tuple[ApplyResult | None, str]:
    """Apply when asked to (``--yes`` or a yes at the prompt); the result and a note for the user."""
    if not proposal.changed:
        from coder.edit.proposal import UNCHANGED  # loaded with the engine already

        return None, f"{UNCHANGED}; nothing written"
    if args.dry_run:
        return None, "dry run: nothing written"
    if args.yes or (not args.json and _confirm()):
        with timings.phase("git"):
            applied = engine.apply(proposal)
        return applied, "; ".join(["applied", *applied.notes])
    return None, "not applied (pass --yes to apply without asking)"


def run_undo(args: argparse.Namespace) -> int:
    """``coder undo``: revert coder's last edit commit."""
    from coder.edit.apply import gitops

    repo = gitops.open_repo(Path.cwd())
    try:
        if repo is None:
            raise CoderError("undo needs a git repository (coder commits each edit there)")
        done = gitops.undo_last(repo)
    except CoderError as exc:
        if not args.json:
            raise
        print(json.dumps({"ok": False, "error": str(exc)}))
        _say(f"error: {exc}", sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"ok": True, "undone": done.sha, "subject": done.subject, "paths": done.paths}))
    else:
        print(visible(f"coder: undid {done.sha[:8]} {done.subject!r}; restored {', '.join(done.paths)}"))
    return 0
