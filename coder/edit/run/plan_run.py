"""Carry out a :class:`~coder.edit.plan.derive.Plan`: one region request per model step, retried once when flagged.

Every model step is an ordinary region edit built by :meth:`EditEngine.prepare` (its original as
the prediction, the prompt region edits use) and sent by :meth:`EditEngine.run`. A reply that is
refused, that the region's scope check flags, or (for a rename) that is not exactly the tokenized
rename, is asked once more, naming what must not change; only then is the plan refused. The
region results and the mechanical steps are spliced back (:func:`coder.edit.source.splice.splice`
asserts every other byte is the original's) and each file's whole proposal is then held to the
same validation and scope check as any edit (:mod:`coder.edit.run.plan_result`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from coder.edit.apply.files import FileSnapshot
from coder.edit.checks.behaviour import CODE as EXAMPLE_FAILED
from coder.edit.intent.spec import ChangeSpec
from coder.edit.plan import across
from coder.edit.plan import derive as planning
from coder.edit.proposal import EditProposal, EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import PlanProposal, PlanRequest, StepResult, file_proposals
from coder.edit.run.warmup.cache import prompt_text
from coder.errors import CoderError
from coder.jsontypes import as_object
from coder.telemetry.stats import RequestStats

# what only a plan found runs (its steps and their retries, the model's short answers, the worker pool) loads when
# a plan is made: the edit that is one request (most) never does, and the first thing it does is ask if there is one
if TYPE_CHECKING:
    from coder.edit.plan.auto import Prediction
    from coder.edit.run.plan_step import Ask

SHORT_FILE_LINES = 100  # a full rewrite of a file this short rarely drifts: auto may pick it when faster



class PlanStopped(CoderError):
    """The user cancelled the plan between two of its requests; nothing was written."""


def plan_for(engine: EditEngine, path: Path | str, instruction: str, *, mode: str = "auto",
             everywhere: bool | None = None, scope_rename: bool = True,
             spec: ChangeSpec | None = None) -> PlanRequest | EditRequest | None:
    """The plan for ``instruction`` on ``path`` in ``mode``; else auto's own request, or None (build one).

    auto derives a plan from the instruction's names (renames, deletions, moves, new parameters
    and methods), across files when a rename is asked for everywhere; full (or auto when it
    picks full) splits a long Python file into windows. region never plans: it names its region.
    ``scope_rename=False`` asks the model for every rename region even when the scope analysis
    finds the rename unambiguous (:func:`coder.edit.run.plan_step.mechanized`). ``spec`` is the
    instruction already read (read here when not given); it goes with the plan or the request.
    """
    if mode == "region":
        return None
    snap, _ = engine.check_target(path)
    if spec is None or spec.instruction != instruction:
        spec = engine.read(snap, instruction)
    if spec.action == "move" and not (spec.targets or spec.facts.statements or spec.lines) and spec.anchor:
        where = f"{spec.anchor.where} {spec.anchor.symbol.qualname}" if spec.anchor.symbol else spec.anchor.where
        raise CoderError(f"{snap.rel}: read a move ({where}) that names nothing to move: name the defs or "
                         "statements that move (e.g. move f, g before h)")
    # not_moved: why a move to another file (or hints, docstrings) is not mechanical: said with the request
    plan, not_moved = _derived(engine, snap, spec) if mode == "auto" else (None, "")
    wants_all = spec.reach == "everywhere" if everywhere is None else everywhere
    if plan is not None and plan.kind == "rename" and wants_all:
        plan = _across_files(engine, plan, snap)
    if plan is None:
        request: EditRequest | None = None
        if mode == "auto":
            try:
                request = engine.prepare(path, instruction, mode="auto", spec=spec)
                if not_moved:
                    request = replace(request, mode_reason=f"{request.mode_reason}; {not_moved}")
                if request.mode != "full":
                    return request
            except CoderError:
                if spec.targeted:
                    raise  # a missing or ambiguous name: never a whole-file rewrite in windows
        plan = planning.windows(snap.rel, snap.text, spec)
        if plan is None:
            return request  # auto's own full request (None in full mode: the caller builds it)
    return _prepared(engine, plan, snap, mode, scope_rename=scope_rename)


def _derived(engine: EditEngine, snap: FileSnapshot, spec: ChangeSpec) -> tuple[planning.Plan | None, str]:
    """auto's plan and, when none, why a mechanical one was not made ("" when none applies).

    Docstrings for several defs are asked first: their region plan (one region per bare method of a long
    class) is what goes on, with the reason in its notes, when the model's words are not written.
    """
    plan, why = None, ""
    if spec.action == "docstring":  # the only action asked before the derived plans (asked.asked_docstrings)
        from coder.edit.run.asked import asked_docstrings

        plan, why = asked_docstrings(engine, snap, spec)
        if plan is not None:
            return plan, ""
    plan = planning.derive(snap.rel, snap.text, spec)
    if plan is not None:
        return (replace(plan, notes=(*plan.notes, why)) if why else plan), ""
    return (None, why) if why else _mechanical_beyond(engine, snap, spec)


def _mechanical_beyond(engine: EditEngine, snap: FileSnapshot, spec: ChangeSpec) -> tuple[planning.Plan | None, str]:
    """The mechanical plans that need more than the file: another file (a move), or the model's short answer."""
    if spec.dest is not None:
        return _moved_across(engine, snap, spec)
    if spec.action not in ("type_hints", "comment"):  # the only actions with a short answer (asked.asked_plan)
        return None, ""
    from coder.edit.run.asked import asked_plan

    return asked_plan(engine, snap, spec)  # hints, or a comment whose line is read: the model's short answer


def _moved_across(engine: EditEngine, snap: FileSnapshot, spec: ChangeSpec) -> tuple[planning.Plan | None, str]:
    """The mechanical move of the spec's def to the file it names (:mod:`coder.edit.plan.across`), or why not."""
    assert spec.dest is not None  # the caller checks
    for rel in across.destination_paths(snap.rel, spec.dest.rel):
        try:
            other, _ = engine.check_target(engine.root / rel)
        except CoderError:
            continue  # not there, or not a file coder may edit: the next reading of the path
        if other.rel == snap.rel:
            break
        moved = across.move_across(snap.rel, snap.text, spec, other.rel, other.text)
        return (None, moved) if isinstance(moved, str) else (moved, "")
    return None, f"{across.NOT_MECHANICAL}: {spec.dest.rel} is not another file coder may edit"


def _across_files(engine: EditEngine, plan: planning.Plan, snap: FileSnapshot) -> planning.Plan:
    """The rename plan over every tracked Python file that names an old name (``git grep -w``)."""
    if engine.tree is None:
        return plan
    olds = [a for a, _ in plan.renames]
    args = ["--literal-pathspecs", "grep", "-l", "-w", "-F", *(x for a in olds for x in ("-e", a))]
    try:
        found = engine.tree.git(*args).splitlines()
    except CoderError:  # git grep exits 1 when nothing matches: no other file
        found = []
    steps = list(plan.steps)
    for rel in sorted(set(found) - {snap.rel}):
        if not rel.endswith((".py", ".pyi")):
            continue
        try:
            other, _ = engine.check_target(engine.root / rel)
            steps += planning.rename_steps(other.rel, other.text, list(plan.renames))
        except (CoderError, SyntaxError, ValueError):
            continue  # not a target coder may edit, or not Python it can parse
    files = len({s.rel for s in steps})
    return replace(plan, steps=tuple(steps),
                   reason=f"{plan.reason.split(':')[0]}: {len(steps)} region(s) in {files} file(s)")


def _prepared(engine: EditEngine, plan: planning.Plan, first: FileSnapshot, mode: str, *,
              scope_rename: bool = True) -> PlanRequest:
    from coder.edit.run.plan_step import mechanized, region_request, step_instruction

    snapshots = {first.rel: first}
    for step in plan.steps:
        if step.rel not in snapshots:
            snapshots[step.rel], _ = engine.check_target(engine.root / step.rel)
    if scope_rename:
        plan = mechanized(plan, {rel: snap.text for rel, snap in snapshots.items()}, first.rel)
    requests: dict[int, EditRequest] = {}
    for i, step in enumerate(plan.steps):
        if step.how == "model":
            requests[i] = region_request(engine, snapshots[step.rel].path, step,
                                         step_instruction(plan.instruction, step), spec=plan.spec)
    predicted = None
    if requests:
        predicted = engine.cost.predict_requests("plan", [
            (r.request_class, r.budget.prompt_tokens,
             engine.prompt_cache.cached_tokens(prompt_text(r.messages), r.budget.prompt_tokens), r.budget.reply_tokens)
            for r in requests.values()])
    reason = f"{mode}: plan ({plan.reason})"
    if predicted is not None:
        reason += f"; predicted {predicted.describe()}"
    if mode == "auto" and plan.kind != "windows" and predicted is not None and len(snapshots) == 1:
        full = _full_prediction(engine, first, plan)
        if full is not None:
            reason += f" vs {full.describe()}"
            if len(first.text.splitlines()) <= SHORT_FILE_LINES and full.total < predicted.total:
                raise _PreferFull(reason, plan.spec)
    return PlanRequest(plan, snapshots, requests, reason, predicted)


class _PreferFull(Exception):
    """auto: a short file's full rewrite is predicted faster than the plan (caught by :func:`prepare`)."""

    def __init__(self, reason: str, spec: ChangeSpec | None = None) -> None:
        super().__init__(reason)
        self.spec = spec


def _full_prediction(engine: EditEngine, snap: FileSnapshot, plan: planning.Plan) -> Prediction | None:
    try:
        full = engine.prepare(snap.path, plan.instruction, mode="full", spec=plan.spec)
    except CoderError:
        return None
    cached = engine.prompt_cache.cached_tokens(prompt_text(full.messages), full.budget.prompt_tokens)
    return engine.cost.predict("full", full.request_class, full.budget.prompt_tokens, cached,
                               full.budget.reply_tokens)


def prepare(engine: EditEngine, path: Path | str, instruction: str, *, mode: str = "auto",
            everywhere: bool | None = None, scope_rename: bool = True,
            spec: ChangeSpec | None = None) -> PlanRequest | EditRequest:
    """A plan when one applies (see :func:`plan_for`), else the engine's ordinary request.

    In auto mode, a file of at most :data:`SHORT_FILE_LINES` lines is rewritten whole when that
    is predicted faster than the plan; longer files keep the plan (their full rewrites drift).
    """
    try:
        planned = plan_for(engine, path, instruction, mode=mode, everywhere=everywhere, scope_rename=scope_rename,
                           spec=spec)
    except _PreferFull as prefer:
        request = engine.prepare(path, instruction, mode="full", spec=prefer.spec)
        return replace(request, mode_reason=f"auto: full is faster for a short file; {prefer}")
    return planned if planned is not None else engine.prepare(path, instruction, mode=mode, spec=spec)


def prepare_files(engine: EditEngine, paths: list[Path], instruction: str, *,
                  mode: str = "auto") -> PlanRequest | EditRequest:
    """One plan over several files (an edit with several context files), when each of them has one.

    Otherwise the first file's request (:func:`prepare`); the caller sends the others in turn.
    """
    if len(paths) > 1 and mode == "auto":
        plans: list[planning.Plan] = []
        for path in paths:
            snap, _ = engine.check_target(path)
            one = planning.derive(snap.rel, snap.text, engine.read(snap, instruction))
            if one is None or (plans and one.kind != plans[0].kind):
                break
            plans.append(one)
        else:
            first = plans[0]
            steps = tuple(s for p in plans for s in p.steps)
            merged = replace(first, steps=steps, reason=f"{first.kind}: {len(steps)} region(s) in {len(plans)} files",
                             notes=tuple(n for p in plans for n in p.notes))
            return _prepared(engine, merged, engine.check_target(paths[0])[0], "context files")
    return prepare(engine, paths[0], instruction, mode=mode)


# --- running -------------------------------------------------------------------------------------

def engine_asker(engine: EditEngine, cancel: threading.Event | None = None,
                 on_stats: Callable[[RequestStats], None] | None = None) -> Ask:
    """Send a region request through :meth:`EditEngine.run`; its stats go to ``on_stats``."""
    def ask(request: EditRequest) -> EditProposal:
        if cancel is not None and cancel.is_set():
            raise PlanStopped("stopped: the plan was cancelled; nothing was written")
        proposal = None
        events = engine.run(request, cancel)
        try:
            for event in events:
                if cancel is not None and cancel.is_set():  # closing the stream cancels it on the server
                    raise PlanStopped("stopped: the plan was cancelled; nothing was written")
                if isinstance(event, EditProposal):
                    proposal = event
                elif on_stats is not None:
                    on_stats(event)
        finally:
            close = getattr(events, "close", None)  # a generator: closing cancels the server request
            if close is not None:
                close()
        if proposal is None:
            raise CoderError("internal: a region request ended without a result")
        return proposal
    return ask


def slots_of(engine: EditEngine) -> int:
    """Parallel slots of the server (``/props`` total_slots, else ``/slots``); 1 when unknown."""
    server = engine.server
    if server is None:
        return 1
    try:
        with server.api() as api:
            n = as_object(api.props()).get("total_slots")
            if isinstance(n, int) and n > 0:
                return n
            return max(1, len(api.slots()))
    except (CoderError, ValueError):
        return 1


def run_plan(engine: EditEngine, prepared: PlanRequest, ask: Ask, *, slots: int = 1) -> PlanProposal:
    """Run every step (model steps through ``ask``, concurrently up to ``slots``), splice, check."""
    from coder.edit.run.plan_sample import agreed, sampled, unexplained_steps
    from coder.edit.run.plan_step import renamed_files, retry, run_step

    plan = prepared.plan
    indices = sorted(prepared.requests)
    results: dict[int, StepResult] = {}
    renamed = renamed_files(prepared)

    def one(i: int) -> StepResult:
        return run_step(engine, prepared, i, ask, renamed)

    if slots > 1 and len(indices) > 1:
        # imported here: a server of one slot runs the steps in turn, and the pool's modules cost ~1.5 ms
        from concurrent.futures import ThreadPoolExecutor

        results[indices[0]] = one(indices[0])  # alone: a k restart it needs happens before the others start
        with ThreadPoolExecutor(max_workers=min(slots, len(indices) - 1)) as pool:
            for i, result in zip(indices[1:], pool.map(one, indices[1:]), strict=True):
                results[i] = result
    else:
        for i in indices:
            results[i] = one(i)
    for i, step in enumerate(plan.steps):
        if step.how == "mechanical":
            results[i] = StepResult(step, step.text or "", None, None, None)
    proposal = file_proposals(engine, prepared, [results[i] for i in range(len(plan.steps))])
    # the whole file's scope check names changes no instruction explains: re-ask the regions holding them
    again = {i: why for i, why in unexplained_steps(prepared, proposal).items() if results[i].retried is None}
    if not again and proposal.refusal_code == EXAMPLE_FAILED:  # a new __repr__ that gives another text than shown
        again = {i: proposal.refusal or "" for i in indices if results[i].retried is None}
    if again:
        for i, why in again.items():
            first = results[i].proposal
            results[i] = retry(engine, prepared, i, ask, renamed, why, first.reply if first else "")
        proposal = file_proposals(engine, prepared, [results[i] for i in range(len(plan.steps))])
    # the retry did not mend it either: the example is an oracle, where it pins the answer (Example.pins)
    if proposal.refusal_code == EXAMPLE_FAILED and prepared.spec is not None and any(
            e.pins for e in prepared.spec.examples):
        return sampled(engine, prepared, ask, renamed, proposal)
    return agreed(engine, prepared, ask, renamed, proposal)


def run_events(engine: EditEngine, prepared: PlanRequest,
               cancel: threading.Event | None = None) -> Iterator[RequestStats | PlanProposal]:
    """Run the plan through the engine; yields live stats of sequential requests, then the proposal."""
    slots = slots_of(engine) if len(prepared.requests) > 1 else 1
    if slots > 1:
        yield run_plan(engine, prepared, engine_asker(engine, cancel), slots=slots)
        return
    pending: list[RequestStats] = []
    done = threading.Event()
    box: list[PlanProposal | BaseException] = []

    def work() -> None:
        try:
            box.append(run_plan(engine, prepared, engine_asker(engine, cancel, pending.append)))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
            box.append(exc)
        finally:
            done.set()

    worker = threading.Thread(target=work, name="coder-plan", daemon=True)
    worker.start()
    while not done.wait(0.1):
        while pending:
            yield pending.pop(0)
    worker.join()
    result = box[0]
    if isinstance(result, BaseException):
        raise result
    yield result
