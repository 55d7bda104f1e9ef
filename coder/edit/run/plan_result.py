"""A plan ready to run, and what it produced: each region's outcome, each file's proposal, one review, one commit.

Each file's proposal is an ordinary :class:`~coder.edit.proposal.EditProposal` (mode ``plan``)
held to the checks every edit gets: it must still parse, and :func:`coder.edit.checks.explained.check_scope`
classifies every change of the *whole* file against the instruction. A plan over several files
is one :class:`PlanProposal`: one diff to review, one commit (a ``Coder-Edit`` trailer per file,
so ``coder undo`` restores all of them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from coder.edit.apply.files import FileSnapshot, check_unchanged, unified_diff, write_edit
from coder.edit.checks.explained import Scope, check_scope
from coder.edit.checks.result import check_result
from coder.edit.checks.user_commands import CheckRun, run_on_files
from coder.edit.intent.spec import ChangeSpec
from coder.edit.plan import derive as planning
from coder.edit.plan.auto import Prediction
from coder.edit.plan.derive import Step
from coder.edit.proposal import UNCHANGED, ApplyResult, EditProposal, EditRequest, Sampled
from coder.edit.run.budget import Budget
from coder.edit.run.prompt import EditPrompt, language_tag
from coder.edit.source.splice import Replacement, splice
from coder.errors import CoderError
from coder.fsutil import atomic_write
from coder.kchoice import KChoice
from coder.telemetry.stats import RequestStats

if TYPE_CHECKING:
    from coder.edit.run.engine import EditEngine


@dataclass(frozen=True)
class PlanRequest:
    """A plan ready to run: its steps' region requests (model steps only) and why it was chosen."""

    plan: planning.Plan
    snapshots: dict[str, FileSnapshot]
    requests: dict[int, EditRequest]  # step index -> its region request
    reason: str
    predicted: Prediction | None = None

    @property
    def spec(self) -> ChangeSpec | None:
        """The instruction's reading: each step and each file is held to it."""
        return self.plan.spec

    @property
    def instruction(self) -> str:
        """The user's instruction."""
        return self.plan.instruction


@dataclass(frozen=True)
class StepResult:
    """One step's outcome: its new text (None when refused) and whether it was retried, and why."""

    step: Step
    text: str | None
    proposal: EditProposal | None  # the last region proposal (None for a mechanical step)
    retried: str | None  # why the first reply was flagged: it was asked once more
    refused: str | None  # why the second reply was flagged too: the plan is refused
    flagged_reply: str = ""  # the first reply, when it was flagged (kept for the record)
    note: str = ""  # how an accepted reply was used, when not as it came (a new method renamed as asked)

    def to_json(self, kind: str = "") -> dict[str, object]:
        """The ``--json`` form (``kind``: the plan's, for ``done_by``).

        A model step carries what a single edit's ``--json`` does (request class, k, TTFT, tok/s,
        acceptance length, the whole stats), so the k each region ran with can be read off a plan; a
        mechanical step sent no request and has None there.
        """
        p = self.proposal
        stats = p.stats if p is not None else None
        return {"path": self.step.rel, "lines": [self.step.start, self.step.end], "label": self.step.label,
                "why": self.step.why, "how": self.step.how, "done_by": self.step.done_by(kind),
                "retried": self.retried, "refused": self.refused, "note": self.note or None,
                "seconds": round(stats.elapsed, 3) if stats is not None else None,
                "request_class": p.request_class if p is not None else None,
                "k": p.k if p is not None else None,
                "k_reason": p.k_reason if p is not None else None,
                "k_via": p.request.k.via if p is not None else None,
                "ttft": stats.ttft if stats is not None else None,
                "decode_tps": stats.decode_tps if stats is not None else None,
                "acceptance_length": stats.acceptance_length if stats is not None else None,
                "stats": stats.to_dict() if stats is not None else None}


@dataclass(frozen=True)
class PlanScope:
    """The scopes of a plan's files, read as one (what the review and ``--yes`` consult)."""

    scopes: tuple[Scope, ...]
    diffs: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when every file's changes are explained."""
        return all(s.ok for s in self.scopes)

    def refusal(self) -> str:
        """The files' refusals, joined (empty when every change is explained)."""
        return "; ".join(r for s in self.scopes if (r := s.refusal()))

    def hunk_flags(self, diff: str) -> list[bool]:
        """Per hunk of the plan's diff (the files' diffs in order): True when unexplained."""
        return [flag for s, d in zip(self.scopes, self.diffs, strict=True) for flag in s.hunk_flags(d)]

    def mark_diff(self, diff: str) -> str:
        """The plan's diff with each file's unexplained hunks marked."""
        return "".join(s.mark_diff(d) for s, d in zip(self.scopes, self.diffs, strict=True))

    def to_json(self) -> list[dict[str, object]]:
        """Each file's scope."""
        return [s.to_json() for s in self.scopes]


@dataclass
class PlanProposal:
    """A plan's result: a proposal per file, or the reason the plan is refused."""

    request: PlanRequest
    files: list[EditProposal]
    steps: list[StepResult]
    refusal_code: str | None = None
    refusal: str | None = None
    stats: RequestStats = field(default_factory=RequestStats)
    spec: None = None  # no single request's /metrics movement describes a plan
    reply: str = ""
    checks: tuple[CheckRun, ...] = ()  # the user's test/lint commands, run on every file of the plan at once
    checks_not_run: str = ""  # why a repository's test/lint commands did not run on it (coder.trust)
    sampled: Sampled | None = None  # sampled replies drawn after the retry failed the example (run.plan_run)

    @property
    def ok(self) -> bool:
        """True unless a region or a file was refused."""
        return self.refusal is None

    @property
    def changed(self) -> bool:
        """True when an accepted plan changes a file."""
        return self.ok and any(p.changed for p in self.files)

    @property
    def rel(self) -> str:
        """The files, comma-separated."""
        return ", ".join(self.request.plan.files)

    @property
    def diff(self) -> str:
        """The files' diffs, one after the other."""
        return "".join(p.diff for p in self.files)

    @property
    def scope(self) -> PlanScope:
        """Every file's scope, read as one."""
        return PlanScope(tuple(p.scope for p in self.files if p.scope is not None),
                         tuple(p.diff for p in self.files if p.scope is not None))

    @property
    def retries(self) -> list[StepResult]:
        """The steps asked twice."""
        return [s for s in self.steps if s.retried]

    def review_lines(self) -> list[str]:
        """What the review says about the plan: its shape, and every retry and why."""
        plan = self.request.plan
        lines = [f"plan: {plan.reason}"]
        if plan.spec is not None:  # what coder understood, before what it did
            from coder.edit.intent.describe import read_line

            lines.append(f"plan: {read_line(plan.spec, plan.how)}")
        if plan.kind == "rename":  # which regions were renamed by the scope analysis, which by the model
            lines += [f"plan: {s.step.rel} {s.step.label}: {s.step.done_by(plan.kind)}" for s in self.steps]
        lines += [f"plan: {s.step.rel} {s.step.label}: retried once ({s.retried})"
                  + (f"; refused again ({s.refused})" if s.refused else "; the retry was accepted")
                  for s in self.retries]
        lines += [f"plan: {s.step.rel} {s.step.label}: {s.note}" for s in self.steps if s.note]
        lines += [f"plan: note: {n}" for n in plan.notes]
        if self.sampled is not None:
            lines.append(f"plan: {self.sampled.line()}")
        return lines

    def to_json(self) -> dict[str, object]:
        """The ``coder edit --json`` form: the plan, each step's outcome, each file's proposal."""
        first = self.files[0].to_json() if len(self.files) == 1 else {}
        return {**first, "path": self.rel, "ok": self.ok, "refusal_code": self.refusal_code,
                "refusal": self.refusal, "mode": "plan", "mode_reason": self.request.reason,
                "read": self.request.plan.read,
                "read_by": spec.read_by if (spec := self.request.plan.spec) is not None else None,
                "read_s": round(spec.seconds, 3) if spec is not None else None,
                "changed": self.changed, "diff": self.diff, "plan": self.request.plan.to_json(),
                "steps": [s.to_json(self.request.plan.kind) for s in self.steps],
                "retried": [{"label": s.step.label, "path": s.step.rel, "why": s.retried, "refused": s.refused}
                            for s in self.retries],
                "files": [p.to_json() for p in self.files],
                "checks": [c.to_json() for c in self.checks],
                "checks_not_run": self.checks_not_run or None,
                "sampled": self.sampled.to_json() if self.sampled is not None else None,
                "predicted": {"plan": {"requests": p.requests, "total": p.total}}
                if (p := self.request.predicted) is not None else None}


def plan_request(engine: EditEngine, prepared: PlanRequest, rel: str) -> EditRequest:
    """The request a file's proposal carries (mode ``plan``): its snapshot and the instruction."""
    snap = prepared.snapshots[rel]
    prompt = EditPrompt([], "```", language_tag(rel), snap.text)
    choice = KChoice(None, "region", "a plan: each region request had its own k", "launch")
    return EditRequest(snapshot=snap, instruction=prepared.instruction, mode="plan", request_class="region",
                       mode_reason=prepared.reason, region=None, before="", after="", prompt=prompt,
                       budget=Budget(0, 0, 0, engine.context_size()), k=choice, token_source=engine.counter.source)


def file_proposals(engine: EditEngine, prepared: PlanRequest, results: list[StepResult]) -> PlanProposal:
    """Splice each file's region results into it and check every file as a whole."""
    refused = [r for r in results if r.text is None]
    if refused:
        r = refused[0]
        why = f"{r.step.rel} {r.step.label}: {r.refused}; retried once after: {r.retried}"
        return PlanProposal(prepared, [], results, "plan_region", f"the plan's region was refused twice ({why})")
    files = []
    for rel in prepared.plan.files:
        snap = prepared.snapshots[rel]
        reps = [Replacement(r.step.start, r.step.end, r.text or "") for r in results if r.step.rel == rel]
        new = splice(snap.text, reps)
        request = plan_request(engine, prepared, rel)
        stats = RequestStats(finish_reason="stop")
        # the whole spliced file, as for any proposal: it parses and gains no undefined name
        spec = prepared.spec or engine.read(snap, prepared.instruction)
        if (broken := check_result(rel, new, old=snap.text, spec=spec)) is not None:
            return PlanProposal(prepared, [], results, broken.code, f"{rel}: {broken.reason}")
        scope = check_scope(snap.text, new, spec, rel=rel)
        files.append(EditProposal(request, new, unified_diff(rel, snap.text, new), stats, scope=scope))
    elapsed = sum(r.proposal.stats.elapsed for r in results if r.proposal is not None)
    plan = PlanProposal(prepared, files, results, stats=RequestStats(elapsed=elapsed, finish_reason="stop"))
    if (unmet := _held_to_examples(engine, prepared, files)) is not None:
        plan.refusal_code, plan.refusal = unmet
        return plan
    changed = [(p.request.snapshot, p.new) for p in files if p.changed]
    if changed:  # said once per engine (a CLI run, a TUI session)
        plan.checks_not_run, engine.checks_not_run = engine.checks_not_run, ""
    if engine.checks and changed:  # the user's test/lint commands see every file of the plan at once
        plan.checks = tuple(run_on_files(engine.repo, changed, engine.checks))
        if failed := next((c for c in plan.checks if not c.ok), None):
            plan.refusal_code, plan.refusal = "check_failed", failed.line()
    return plan


def _held_to_examples(engine: EditEngine, prepared: PlanRequest, files: list[EditProposal]) -> tuple[str, str] | None:
    """The code and reason of the first example a new method or function fails ("shows Template('hello $name')",
    "nth_weekday(2024, 11, THURSDAY, 4) == 28"), run on its file before and after
    (:mod:`coder.edit.checks.behaviour`); None when all pass or none ran."""
    spec = prepared.spec
    if spec is None or not spec.examples or (spec.owner is None and spec.action != "add_function"):
        return None
    home = spec.owner.rel if spec.owner is not None else prepared.plan.steps[0].rel
    for p in files:
        if p.changed and p.request.snapshot.rel == home:
            engine.examples.hold(p, spec)
            if p.refusal_code is not None:
                return p.refusal_code, p.refusal or ""
    return None


def apply_plan(engine: EditEngine, proposal: PlanProposal) -> ApplyResult:
    """Write every changed file of an accepted plan and commit them together (one commit, one undo)."""
    if not proposal.ok:
        raise CoderError(f"edit refused: {proposal.refusal}")
    changed = [p for p in proposal.files if p.changed]
    if not changed:
        return ApplyResult(proposal.rel, False, notes=[f"{UNCHANGED}; nothing written"])
    if len(changed) == 1:
        return engine.apply(changed[0])
    for p in changed:
        check_unchanged(p.request.snapshot)
    notes: list[str] = []
    commit = _to_commit(engine, [p.rel for p in changed], notes)
    repo = engine.repo
    from coder.edit.apply import gitops  # GitPython: only where a plan is committed (issue 35)

    written: list[EditProposal] = []
    try:
        for p in changed:
            write_edit(p.request.snapshot, p.new)
            written.append(p)
    except CoderError:
        for p in written:  # put back what was written: a plan applies whole or not at all
            atomic_write(p.path, p.request.snapshot.raw)
        raise
    sha = gitops.commit_edit(repo, commit, proposal.request.instruction) if repo is not None and commit else None
    if sha:
        notes.append(f"committed {sha[:8]} with {len(commit)} files (undo with `coder undo`)")
    return ApplyResult(", ".join(p.rel for p in changed), True, sha, None, notes)


def _to_commit(engine: EditEngine, rels: list[str], notes: list[str]) -> list[str]:
    """The paths the plan's commit takes (the user's own changes snapshotted first); notes say why not."""
    repo = engine.repo
    if repo is None:
        notes.append("not a git repository: edits written without a commit (no undo)")
        return []
    from coder.edit.apply import gitops  # GitPython: only where a plan is committed (issue 35)

    gitops.check_usable(repo)
    out = []
    for rel in rels:
        if gitops.is_ignored(repo, rel):
            notes.append(f"{rel} is ignored by git: written without a commit")
            continue
        if gitops.is_dirty(repo, rel):
            if not engine.snapshot_dirty:
                notes.append(f"{rel} had uncommitted changes: written without a commit")
                continue
            sha = gitops.snapshot(repo, rel)
            notes.append(f"your uncommitted changes to {rel} were committed first as {sha[:8]}")
        out.append(rel)
    return out
