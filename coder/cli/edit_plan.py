"""``coder edit`` when the edit is a plan: several region requests (or none), one review, one commit."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from coder.cli.edit_timing import print_json
from coder.errors import CoderError
from coder.telemetry import timings
from coder.textsafe import visible

if TYPE_CHECKING:
    from coder.edit.proposal import ApplyResult, EditProposal
    from coder.edit.run.engine import EditEngine
    from coder.edit.run.plan_result import PlanProposal, PlanRequest


def run_plan_edit(engine: EditEngine, prepared: PlanRequest, args: argparse.Namespace,
                  result: dict[str, object], *, colour: Callable[[str], str], confirm: Callable[[], bool]) -> int:
    """Run, review and (when asked) apply a plan; the exit code ``coder edit`` returns."""
    from coder.edit.apply.files import diff_stat, display_diff

    err = sys.stderr
    read = ""
    if prepared.plan.spec is not None:
        from coder.edit.intent.describe import read_line

        read = f"plan: {read_line(prepared.plan.spec, prepared.plan.how)}"
        print(f"coder: {visible(read)}", file=err)
    print(f"coder: {', '.join(prepared.plan.files)}: {prepared.reason}", file=err)
    for step in prepared.plan.steps:
        print(f"coder:   {step.rel} {step.label}: {step.why} ({step.done_by(prepared.plan.kind)})", file=err)
    proposal = _stream(engine, prepared, err)
    result.update(proposal.to_json())
    if proposal.checks_not_run:  # an untrusted repository's test/lint commands (coder.trust)
        print(visible(f"coder: {proposal.checks_not_run}"), file=err)
    kind = prepared.plan.kind
    said = {f"plan: {s.rel} {s.label}: {s.done_by(kind)}" for s in prepared.plan.steps} | {read}  # printed above
    for line in proposal.review_lines()[1:]:
        if line not in said:
            print(f"coder: {line}", file=err)
    if not proposal.ok:
        if args.json:
            print_json(result)
        print(f"coder: error: edit refused: {proposal.refusal}; {proposal.rel} untouched", file=err)
        return 2
    scope = proposal.scope
    if not args.json:
        if proposal.diff:
            shown = display_diff(scope.mark_diff(proposal.diff))
            sys.stdout.write(colour(shown) if sys.stdout.isatty() else visible(shown))
        added, removed = diff_stat(proposal.diff)
        print(f"coder: plan of {prepared.plan.requests} request(s) in {proposal.stats.elapsed:.1f}s; "
              f"+{added} -{removed} lines", file=err)
    if refused_unexplained(proposal, args, result, err):
        return 2
    applied, note = _maybe_apply(engine, proposal, args, confirm)
    return finish(applied, note, args, result, err)


def finish(applied: ApplyResult | None, note: str, args: argparse.Namespace, result: dict[str, object],
           err: TextIO) -> int:
    """Report what was applied (the ``--json`` result and one line); the exit code: 0."""
    result["applied"] = bool(applied and applied.written)
    result["commit"] = applied.commit if applied else None
    result["snapshot_commit"] = applied.snapshot if applied else None
    result["note"] = note
    if args.json:
        print_json(result)
    print(visible(f"coder: {note}"), file=err)
    return 0


def _maybe_apply(engine: EditEngine, proposal: PlanProposal, args: argparse.Namespace,
                 confirm: Callable[[], bool]) -> tuple[ApplyResult | None, str]:
    from coder.edit.run.plan_result import apply_plan

    if not proposal.changed:
        from coder.edit.proposal import UNCHANGED  # loaded with the engine already

        return None, f"{UNCHANGED}; nothing written"
    if args.dry_run:
        return None, "dry run: nothing written"
    if args.yes or (not args.json and confirm()):
        with timings.phase("git"):
            applied = apply_plan(engine, proposal)
        return applied, "; ".join(["applied", *applied.notes])
    return None, "not applied (pass --yes to apply without asking)"


def _stream(engine: EditEngine, prepared: PlanRequest, err: TextIO) -> PlanProposal:
    from coder.cli.streamline import StreamLine
    from coder.edit.run.plan_result import PlanProposal
    from coder.edit.run.plan_run import run_events

    proposal = None
    # a plan's requests run on worker threads: the caller's wait for them is the request, less the
    # time no chat completion was open (the steps' own preparation and checks: "steps")
    since = timings.clock()
    with timings.phase(timings.REQUEST), StreamLine(err) as line:
        for event in run_events(engine, prepared):
            if isinstance(event, PlanProposal):
                proposal = event
            else:
                line.update(event)
    if timings.RECORDER is not None:
        timings.RECORDER.split_wait(since)
    if proposal is None:
        raise CoderError("internal: the plan ended without a result")
    return proposal


def unexplained(proposal: EditProposal | PlanProposal, result: dict[str, object]) -> list[str]:
    """One line per kind of change the instruction does not explain: out-of-scope hunks, hidden code points.

    A plan is read file by file: any of its files adding an invisible or control code point counts.
    """
    from coder.edit.proposal import EditProposal  # not PlanProposal: a region edit never loads the planner
    from coder.textsafe import added_hidden

    scope = proposal.scope
    lines = [f"{scope.refusal()} (marked !! in the diff)"] if scope is not None and not scope.ok else []
    parts = [proposal] if isinstance(proposal, EditProposal) else proposal.files
    hidden = [h for p in parts for h in added_hidden(p.request.snapshot.text, p.new)]
    if hidden:
        result["hidden_code_points"] = hidden
        lines.append(f"the reply adds invisible or control code points the file did not have: "
                     f"{', '.join(hidden[:6])}{' …' if len(hidden) > 6 else ''} (shown as <U+XXXX> in the diff)")
    return lines


def refused_unexplained(proposal: EditProposal | PlanProposal, args: argparse.Namespace,
                        result: dict[str, object], err: TextIO) -> bool:
    """Warn of changes the instruction does not explain; True when ``--yes`` therefore refuses the edit."""
    lines = unexplained(proposal, result)
    if lines and args.yes and not args.allow_unexplained and not args.dry_run:
        result["note"] = "not applied under --yes: changes the instruction does not explain"
        if args.json:
            print_json(result)
        print(visible(f"coder: error: not applied under --yes: {'; '.join(lines)}; {proposal.rel} untouched "
                      "(review it without --yes, or pass --allow-unexplained)"), file=err)
        return True
    for line in lines:
        print(visible(f"coder: warning: {line}"), file=err)
    return False
