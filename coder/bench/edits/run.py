"""Run the edit tasks through coder's real edit path, as ``coder edit --yes`` does, one temp git repo each.

Per (task, wording): copy the shipped files into a fresh git repository, build the request with
:class:`~coder.edit.run.engine.EditEngine` (``--mode full|region|auto``), stream it, and apply the
proposal the way ``--yes`` would: a refused reply, an unchanged file, or (with the scope
guard on) a change the instruction does not explain is not written. Then every file on disk
is checked: ``correct``, ``refused`` (files intact) or ``wrong`` (applied, and not the edit asked for).

The request is built the way ``coder edit`` builds it: region mode names the task's region; otherwise
the planner (:mod:`coder.edit.run.plan_run`) turns a rename, move, deletion, new method or a long file's
rewrite into a plan of regions, and anything else is one request. A cross-file task is planned over
its files as the TUI plans its context files (:func:`coder.edit.run.plan_run.prepare_files`). A plan's
proposal lists its files, its plan and what it retried; each is recorded as one line. Each row keeps
the plan's key (:func:`coder.bench.edits.wordings.plan_key`) and, for a refusal, the layer that refused
it (:func:`coder.bench.edits.layers.refusal_layer`).

Tasks run in this process, one after another, as the ``coder edit`` path does in its own process:
no interpreter start per edit.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from git import Actor, Repo

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.bench.edits.checks import Renamed
from coder.bench.edits.layers import fell_back, misread, refusal_layer
from coder.bench.edits.taskdef import Task
from coder.bench.edits.upstream import test_command
from coder.bench.edits.wordings import plan_key
from coder.edit.checks.user_commands import commands
from coder.edit.proposal import UNCHANGED, EditProposal, EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import PlanProposal, PlanRequest, apply_plan
from coder.edit.run.plan_run import prepare, prepare_files, run_events
from coder.errors import CoderError
from coder.telemetry.stats import RequestStats

OUTCOMES = ("correct", "refused", "wrong", "skipped")
# refusals of the result check's code rules: kept with the reply, so each can be confirmed a wrong edit offline
EVIDENT = ("undefined", "unset_attribute", "extract_uncalled", "call_mismatch", "outside_targets", "missing_attribute",
           "contract", "partial_hints", "none_default", "no_code_change", "guard_only", "returns_nothing",
           "empty_fstring", "missing_fstring", "unused_asked")
UPSTREAM_TIMEOUT_S = 60.0  # test_queue takes 8 s; an edit that loops is stopped here
_AUTHOR = Actor("coder bench", "bench@coder.invalid")


@dataclass
class Outcome:
    """One task's result in one mode."""

    task: str
    file: str
    kind: str
    mode_requested: str
    outcome: str  # correct | refused | wrong | skipped
    why: str  # the check's reason, the refusal, or why skipped
    mode: str | None = None  # the mode that ran (auto's pick)
    mode_reason: str | None = None
    refusal_code: str | None = None
    flagged: bool = False  # the scope guard found changes the instruction does not explain
    flagged_where: str = ""
    flagged_would_be: str | None = None  # what the flagged proposal would have been: correct | wrong
    committed: bool = False
    enter_to_diff_s: float | None = None
    ttft_s: float | None = None
    decode_tps: float | None = None
    acceptance_length: float | None = None
    completion_tokens: int | None = None
    plan: str | None = None  # the engine's plan for the request, where it reports one (regions, windows)
    retried: str | None = None  # what the engine re-asked, and why, where it reports it
    sampled: str | None = None  # the samples drawn after a fix's retry, and which passed (coder.edit.run.sample)
    moved: str | None = None  # where else the bug was looked for (coder.edit.run.locate)
    repaired: str | None = None  # the one-token changes held to the failing tests (coder.edit.run.repair)
    # the evidence of a wrong or flagged outcome, so it can be replayed offline: the proposal's diff, the
    # model's reply (one edit), or each region's reply of a plan (with the first one where it was retried)
    diff: str | None = None
    reply: str | None = None
    step_replies: list[dict[str, object]] | None = None
    wording: int = 0  # which of the task's wordings was sent
    instruction: str = ""  # that wording
    plan_key: str | None = None  # what "the same plan" compares (None: no plan was made)
    plan_kind: str | None = None  # a plan's kind (rename, windows, ...); None for one request
    layer: str | None = None  # a refusal's layer: reading | model | check | user command | other
    step_refusal_code: str | None = None  # a plan refused for a region: that region's own code

    def to_json(self) -> dict[str, object]:
        """Plain JSON form."""
        return asdict(self)


def make_repo(root: Path, task: Task) -> tuple[Repo, Path]:
    """A fresh git repository in ``root`` holding the task's files, committed; the path of the one it names."""
    repo = Repo.init(root)
    for rel, text in task.originals().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    repo.index.add(list(task.files))
    repo.index.commit("original", author=_AUTHOR, committer=_AUTHOR)
    return repo, root / task.file


def on_disk(root: Path, task: Task) -> dict[str, str]:
    """The task's files as they are now under ``root`` (a deleted one is empty)."""
    return {rel: (root / rel).read_text(encoding="utf-8") if (root / rel).exists() else "" for rel in task.files}


def run_task(server: ServerInfo, task: Task, mode: str, *, wording: int = 0, guard: bool = True,
             on_stats: Callable[[RequestStats], None] | None = None, keep_replies: bool = False,
             repo_tests: bool = True) -> Outcome:
    """Run ``task`` in ``mode`` with its wording number ``wording`` against ``server``; the file is checked on
    disk afterwards. ``keep_replies``: every outcome keeps the model's reply and diff (else only a code rule's
    refusals and the wrong ones do), so a later reading or check can be replayed over the whole run.
    ``repo_tests``: a bug-fix task's repository has its module's upstream tests as its ``test_command``
    (:mod:`coder.bench.edits.upstream`), which coder runs on each proposal."""
    out = Outcome(task.name, task.file, task.kind, mode, "skipped", "", wording=wording,
                  instruction=task.wordings[wording])
    if mode == "region" and not task.has_region:
        out.why = "the edit spans the file: no region"
        return out
    tmp = Path(tempfile.mkdtemp(prefix="coder-bench-edit-"))
    # the prompt names the repository by its folder: a fixed name, so that a rerun sends the same bytes (a random
    # one changed greedy replies between two CPU runs of the same pair)
    root = tmp / "work"
    try:
        repo, path = make_repo(root, task)
        original, first = on_disk(root, task), repo.head.commit.hexsha
        tests = test_command(task.kind, task.file) if repo_tests else None
        _run(server, task, mode, guard, path, out, on_stats, keep_replies, tests)
        now = on_disk(root, task)
        out.committed = repo.head.commit.hexsha != first
        if out.outcome == "refused" and now != original:
            out.outcome, out.why = "wrong", f"refused but the file changed: {out.why}"
        tag_layer(out, task)
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(server: ServerInfo, task: Task, mode: str, guard: bool, path: Path, out: Outcome,
         on_stats: Callable[[RequestStats], None] | None, keep_replies: bool, tests: str | None) -> None:
    backend = BackendHandle(None)
    backend.replace(server)
    # its own throwaway tree: a fix's examples run, and its tests when it has them
    engine = EditEngine(backend, path.parent, run_examples=True, checks=commands(tests, None, UPSTREAM_TIMEOUT_S))
    started = time.perf_counter()
    try:
        try:
            request = _prepare(engine, task, mode, path, out.instruction or task.instruction)
        except CoderError as exc:  # refused before any model request: the instruction was not read
            out.outcome, out.why, out.refusal_code = "refused", f"coder refused the request: {exc}", \
                "request_refused"
            return
        _note_request(request, out)
        proposal: EditProposal | PlanProposal | None = None
        events = engine.run(request) if isinstance(request, EditRequest) else run_events(engine, request)
        for event in events:
            if isinstance(event, RequestStats):
                if on_stats:
                    on_stats(event)
            else:
                proposal = event
    except CoderError as exc:
        out.outcome, out.why, out.refusal_code = "refused", f"coder refused the request: {exc}", "stream_error"
        return
    finally:
        engine.close()
    out.enter_to_diff_s = time.perf_counter() - started
    if proposal is None:
        out.outcome, out.why, out.refusal_code = "refused", "no result", "no_result"
        return
    settle(engine, proposal, task, out, guard=guard, keep_replies=keep_replies)


def _prepare(engine: EditEngine, task: Task, mode: str, path: Path,
             instruction: str | None = None) -> EditRequest | PlanRequest:
    """What ``coder edit`` sends for the task in ``instruction`` (default: its first wording): the named
    region in region mode, else a plan where one applies."""
    text = instruction if instruction is not None else task.instruction
    if mode == "region":  # region mode names the region as `coder edit --symbol/--lines` would
        lines = task.lines if not task.symbol else None
        return engine.prepare(path, text, mode=mode, symbol=task.symbol, lines=lines)
    if task.cross_file:  # the task's files, as the TUI's context files
        return prepare_files(engine, [path, *(engine.root / rel for rel, _ in task.also)], text, mode=mode)
    return prepare(engine, path, text, mode=mode)


def plan_of(task: Task, wording: int, *, ctx: int = 32768) -> str | None:
    """The plan key coder builds for ``task`` in wording ``wording`` in auto mode, with no server and no model
    request (auto's full/region pick uses its default costs); None when coder refuses the request."""
    tmp = Path(tempfile.mkdtemp(prefix="coder-bench-plan-"))
    try:
        _, path = make_repo(tmp, task)
        engine = EditEngine(None, tmp, ctx=ctx)
        out = Outcome(task.name, task.file, task.kind, "auto", "skipped", "", wording=wording)
        try:
            _note_request(_prepare(engine, task, "auto", path, task.wordings[wording]), out)
        except CoderError:
            return None
        finally:
            engine.close()
        return out.plan_key
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _note_request(request: EditRequest | PlanRequest, out: Outcome) -> None:
    """The plan's key and mode as the request has them (the proposal's ``--json`` replaces the key later)."""
    if isinstance(request, PlanRequest):
        out.mode, out.mode_reason, out.plan = "plan", request.reason, request.plan.reason
        out.plan_key, out.plan_kind = plan_key({"mode": "plan", "plan": request.plan.to_json()}), request.plan.kind
    else:
        region = request.region
        out.mode, out.mode_reason = request.mode, request.mode_reason
        out.plan_key = plan_key({"mode": request.mode, "read": request.read,
                                 "region": {"label": region.label} if region else None})


def tag_layer(out: Outcome, task: Task) -> None:
    """Set a refused outcome's ``layer`` from its refusal code and what its request resolved (nothing, or
    another action than the task's: a rename not planned as a rename)."""
    if out.outcome == "refused":
        kind = _plan_kind(out)
        expected = "rename" if isinstance(task.check, Renamed) and out.mode_requested != "region" else None
        lost = fell_back(out.mode, out.mode_reason, kind) or (out.plan_key is not None and misread(expected, kind))
        out.layer = refusal_layer(out.refusal_code, step_code=out.step_refusal_code, fallback=lost)


def _plan_kind(out: Outcome) -> str | None:
    """The plan's kind (``windows``, ``rename``...) for a plan; None for one request."""
    return out.plan_kind if out.mode == "plan" else None


def settle(engine: EditEngine, proposal: EditProposal | PlanProposal, task: Task, out: Outcome, *,
           guard: bool, keep_replies: bool = False) -> None:
    """Apply ``proposal`` as ``coder edit --yes`` would (``guard``: not when the scope check flags it),
    then check the file on disk; fills ``out`` (with the reply and diff whatever the outcome: ``keep_replies``)."""
    _settle(engine, proposal, task, out, guard)
    if keep_replies and out.reply is None and out.step_replies is None:
        keep_evidence(proposal, out)


def _settle(engine: EditEngine, proposal: EditProposal | PlanProposal, task: Task, out: Outcome,
            guard: bool) -> None:
    _record(proposal, out)
    root = engine.root
    original = on_disk(root, task)
    if not proposal.ok:
        out.outcome, out.why, out.refusal_code = "refused", proposal.refusal or "", proposal.refusal_code
        if isinstance(proposal, PlanProposal):
            step = next((s for s in proposal.steps if s.text is None and s.proposal is not None), None)
            out.step_refusal_code = step.proposal.refusal_code if step is not None and step.proposal else None
        if proposal.refusal_code in EVIDENT:
            keep_evidence(proposal, out)
        return
    if not proposal.changed:
        out.outcome, out.why, out.refusal_code = "refused", UNCHANGED, "unchanged"
        return
    scope = proposal.scope
    if scope is not None and not scope.ok:
        out.flagged, out.flagged_where = True, scope.refusal()
        ok, _ = task.judge(original, {**original, **proposed(proposal, root)})
        out.flagged_would_be = "correct" if ok else "wrong"
        keep_evidence(proposal, out)
        if guard:
            out.outcome, out.why, out.refusal_code = "refused", f"scope guard: {scope.refusal()}", "unexplained"
            return
    try:
        engine.apply(proposal) if isinstance(proposal, EditProposal) else apply_plan(engine, proposal)
    except CoderError as exc:
        out.outcome, out.why, out.refusal_code = "refused", f"not applied: {exc}", "not_applied"
        return
    ok, why = task.judge(original, on_disk(root, task))
    out.outcome, out.why = ("correct" if ok else "wrong"), why
    if not ok:
        keep_evidence(proposal, out)


def keep_evidence(p: EditProposal | PlanProposal, out: Outcome) -> None:
    """Record what the model sent for ``p`` in ``out``: its diff, and its reply or each plan step's."""
    out.diff = p.diff
    if isinstance(p, EditProposal):
        out.reply = p.reply
        return
    out.step_replies = [{"path": r.step.rel, "lines": [r.step.start, r.step.end], "label": r.step.label,
                         "reply": r.proposal.reply if r.proposal is not None else None,
                         "flagged_reply": r.flagged_reply or None} for r in p.steps]


def proposed(p: EditProposal | PlanProposal, root: Path) -> dict[str, str]:
    """The new text of every file a proposal changes, by path relative to ``root``.

    A multi-file proposal lists its files (``files``: items with ``path`` and ``new``); else it is one file."""
    parts = getattr(p, "files", None) or [p]
    return {str(Path(f.path).resolve().relative_to(root.resolve())): f.new for f in parts}


def _describe(value: object) -> str | None:
    """A plan or retry record as one line: its ``summary()`` where it has one."""
    if value is None or value == () or value == []:
        return None
    summary = getattr(value, "summary", None)
    return str(summary() if callable(summary) else value)


def _record(p: EditProposal | PlanProposal, out: Outcome) -> None:
    s = p.stats
    out.plan_key = plan_key(p.to_json())
    if isinstance(p, PlanProposal):
        out.mode, out.mode_reason = "plan", p.request.reason
        out.plan, out.plan_kind = p.request.plan.reason, p.request.plan.kind
        out.retried = "; ".join(f"{r.step.rel} {r.step.label}: {r.retried}" for r in p.retries) or None
    else:
        out.mode, out.mode_reason = p.mode, p.request.mode_reason
        out.retried = p.retried  # a region edit asked once more: why its first reply was refused
        out.moved = p.moved  # where else the bug was looked for
        out.repaired = p.repaired  # the one-token changes tried
    out.sampled = p.sampled.line() if p.sampled is not None else None
    out.ttft_s, out.decode_tps, out.acceptance_length = s.ttft, s.decode_tps, s.acceptance_length
    out.completion_tokens = s.completion_tokens


def counts(rows: list[Outcome]) -> dict[str, int]:
    """How many of each outcome, plus flagged and committed-wrong counts."""
    c = {k: sum(1 for r in rows if r.outcome == k) for k in OUTCOMES}
    c["flagged"] = sum(1 for r in rows if r.flagged)
    c["flagged_would_be_wrong"] = sum(1 for r in rows if r.flagged_would_be == "wrong")
    c["committed_wrong"] = sum(1 for r in rows if r.outcome == "wrong" and r.committed)
    return c
