"""``coder edit`` (one edit request, end to end) and ``coder undo``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from coder.backends.server import ServerInfo
from coder.edit import gitops
from coder.edit.apply import diff_stat
from coder.edit.engine import MODES, ApplyResult, EditEngine, EditProposal, FixedK, KPolicy, Progress
from coder.errors import CoderError

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
"""


def register(subparsers: Any) -> None:
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
    p.add_argument("--api-key", help="API key for --attach")
    p.add_argument("--yes", "-y", action="store_true", help="apply without asking")
    p.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    p.add_argument("--json", action="store_true", help="print one JSON result on stdout")
    p.set_defaults(func=run_edit)

    u = subparsers.add_parser(
        "undo", help="revert coder's last edit commit (only when it is HEAD and untouched since)",
        description="Revert the last `coder:` edit commit when it is HEAD and its files still match it. "
        "Nothing else in the repository is touched.",
    )
    u.add_argument("--json", action="store_true", help="print one JSON result on stdout")
    u.set_defaults(func=run_undo)


def _find_server(args: argparse.Namespace) -> ServerInfo:
    if args.attach:
        try:
            from coder.backends import manager

            return manager.attach(args.attach, args.api_key)
        except (ImportError, AttributeError):
            return ServerInfo(url=args.attach, api_key=args.api_key)
    try:
        from coder.backends import manager
    except ImportError:
        raise CoderError("no backend manager available; use --attach URL") from None
    info = manager.current(args.profile)
    if info is None:
        raise CoderError("no backend is running; start one with `coder backend start`")
    return info


def _policy(args: argparse.Namespace) -> KPolicy | None:
    if args.k is None:
        return None
    if args.k < 0:
        raise CoderError("--k must be 0 or more")
    return FixedK(args.k)


class _ProgressPrinter:
    """One rewritten status line on a terminal; a line every few seconds otherwise (logs)."""

    def __init__(self, tty: bool, every: float = 2.0) -> None:
        self.tty = tty
        self.every = every
        self.next_at = 0.0

    def __call__(self, event: Progress) -> None:
        if not self.tty and event.elapsed < self.next_at:
            return
        self.next_at = event.elapsed + self.every
        tps = f"{event.tok_s:5.1f} tok/s" if event.tok_s else "  ... tok/s"
        acc = f", drafts accepted {event.draft_accepted or 0}/{event.draft_n}" if event.draft_n else ""
        line = f"  streaming: {event.tokens} tok, {tps}{acc}, {event.elapsed:.1f}s"
        sys.stderr.write("\r" + line.ljust(78) if self.tty else line + "\n")
        sys.stderr.flush()


def _stats_line(p: EditProposal) -> str:
    s = p.stats

    def num(v: float | None, fmt: str) -> str:
        return format(v, fmt) if v is not None else "n/a"
    k = f"k={p.k}" if p.k is not None else "k=launch"
    acc_src = f" ({s.acceptance_source})" if s.acceptance_source else ""
    return (f"{p.mode} ({p.request_class}), {k}: TTFT {num(s.ttft, '.2f')}s, {num(s.tok_s, '.1f')} tok/s, "
            f"acceptance length {num(s.acceptance_length, '.2f')}{acc_src}, prompt {s.prompt_tokens} tok "
            f"(cached {s.cached_tokens if s.cached_tokens is not None else 'n/a'}), "
            f"completion {s.completion_tokens} tok{_by_type(s.draft_by_type)}")


def _by_type(by_type: dict[str, dict[str, int]] | None) -> str:
    """``; drafted: prediction 812/790, draft-simple 40/12`` (draft tokens / accepted)."""
    if not by_type:
        return ""
    parts = [f"{t} {c['draft_n']}/{c['draft_n_accepted']}" for t, c in by_type.items()]
    return "; drafted (tokens/accepted): " + ", ".join(parts)


def _colour_diff(diff: str) -> str:
    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            out.append(f"\x1b[1m{line.rstrip()}\x1b[0m\n")
        elif line.startswith("+"):
            out.append(f"\x1b[32m{line.rstrip()}\x1b[0m\n")
        elif line.startswith("-"):
            out.append(f"\x1b[31m{line.rstrip()}\x1b[0m\n")
        elif line.startswith("@@"):
            out.append(f"\x1b[36m{line.rstrip()}\x1b[0m\n")
        else:
            out.append(line)
    return "".join(out)


def _confirm() -> bool:
    if not sys.stdin.isatty():
        return False
    sys.stderr.write("apply this edit? [y/N] ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def run_edit(args: argparse.Namespace) -> int:
    result: dict[str, Any] = {"ok": False, "applied": False}
    try:
        return _run_edit(args, result)
    except CoderError as exc:
        if not args.json:
            raise
        result["error"] = str(exc)
        print(json.dumps(result, indent=2))
        print(f"coder: error: {exc}", file=sys.stderr)
        return 1


def _run_edit(args: argparse.Namespace, result: dict[str, Any]) -> int:
    from coder.config import load

    cwd = Path.cwd()
    repo = gitops.open_repo(cwd)
    root = gitops.root_of(repo) if repo is not None else cwd.resolve()
    config = load(root if repo is not None else None)
    engine = EditEngine(None, root, policy=_policy(args), snapshot_dirty=config.snapshot_dirty)
    engine.check_target(args.path, symbol=args.symbol, lines=args.lines)  # bad input before the backend
    server = _find_server(args)
    if args.k is not None and not server.draft_cap:
        print(f"coder: --k {args.k} ignored: this server cannot cap k per request (launch k={server.k}); "
              "relaunch it with `coder backend stop` and `coder backend start --k N`", file=sys.stderr)
    engine.connect(server)
    request = engine.prepare(args.path, args.message, mode=args.mode, symbol=args.symbol, lines=args.lines)
    err = sys.stderr
    if not engine.has_git:
        print("coder: not a git repository: the edit will be written without a commit", file=err)
    print(f"coder: {request.snapshot.rel}: {request.mode_reason}; k: {request.k.reason}; "
          f"prompt ~{request.budget.prompt_tokens} tok ({request.token_source})", file=err)
    if request.prompt.target.strip() and (notice := engine.prediction_notice()):
        print(f"coder: {notice}", file=err)
    tty = err.isatty()
    show = _ProgressPrinter(tty)
    proposal: EditProposal | None = None
    for event in engine.run(request):
        if isinstance(event, Progress):
            show(event)
        else:
            proposal = event
    if tty:
        err.write("\n")
    assert proposal is not None
    result.update(proposal.to_json())
    if not proposal.ok:
        print(f"coder: {_stats_line(proposal)}", file=err)
        if args.json:
            print(json.dumps(result, indent=2))
        print(f"coder: error: edit refused: {proposal.refusal}; {request.snapshot.rel} untouched", file=err)
        return 2
    if not args.json:
        if proposal.diff:
            sys.stdout.write(_colour_diff(proposal.diff) if sys.stdout.isatty() else proposal.diff)
        added, removed = diff_stat(proposal.diff)
        print(f"coder: {_stats_line(proposal)}; +{added} -{removed} lines", file=err)
    applied: ApplyResult | None = None
    if not proposal.changed:
        note = "the model made no changes; nothing written"
    elif args.dry_run:
        note = "dry run: nothing written"
    elif args.yes or (not args.json and _confirm()):
        applied = engine.apply(proposal)
        note = "; ".join(["applied", *applied.notes])
    else:
        note = "not applied (pass --yes to apply without asking)"
    result["applied"] = bool(applied and applied.written)
    result["commit"] = applied.commit if applied else None
    result["snapshot_commit"] = applied.snapshot if applied else None
    result["note"] = note
    if args.json:
        print(json.dumps(result, indent=2))
    print(f"coder: {note}", file=err)
    return 0


def run_undo(args: argparse.Namespace) -> int:
    repo = gitops.open_repo(Path.cwd())
    try:
        if repo is None:
            raise CoderError("undo needs a git repository (coder commits each edit there)")
        done = gitops.undo_last(repo)
    except CoderError as exc:
        if not args.json:
            raise
        print(json.dumps({"ok": False, "error": str(exc)}))
        print(f"coder: error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"ok": True, "undone": done.sha, "subject": done.subject, "paths": done.paths}))
    else:
        print(f"coder: undid {done.sha[:8]} {done.subject!r}; restored {', '.join(done.paths)}")
    return 0
