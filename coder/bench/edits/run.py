"""Run the edit tasks through coder's real edit path, as ``coder edit --yes`` does, one temp git repo each.

Per task: copy the shipped file into a fresh git repository, build the request with
:class:`~coder.edit.engine.EditEngine` (``--mode full|region|auto``), stream it, and apply the
proposal the way ``--yes`` would: a refused reply, an unchanged file, or (with the scope
guard on) a change the instruction does not explain is not written. Then the file on disk
is checked: ``correct``, ``refused`` (file intact) or ``wrong`` (applied, and not the edit asked for).
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
from coder.bench.edits.tasks import Task, source
from coder.edit.engine import EditEngine
from coder.edit.model import EditProposal
from coder.errors import CoderError
from coder.telemetry.stats import RequestStats

OUTCOMES = ("correct", "refused", "wrong", "skipped")
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

    def to_json(self) -> dict[str, object]:
        """Plain JSON form."""
        return asdict(self)


def make_repo(root: Path, task: Task) -> tuple[Repo, Path]:
    """A fresh git repository in ``root`` holding the task's file, committed."""
    repo = Repo.init(root)
    path = root / task.file
    path.write_text(source(task.file), encoding="utf-8")
    repo.index.add([task.file])
    repo.index.commit("original", author=_AUTHOR, committer=_AUTHOR)
    return repo, path


def run_task(server: ServerInfo, task: Task, mode: str, *, guard: bool = True,
             on_stats: Callable[[RequestStats], None] | None = None) -> Outcome:
    """Run ``task`` in ``mode`` against ``server``; the file is checked on disk afterwards."""
    out = Outcome(task.name, task.file, task.kind, mode, "skipped", "")
    if mode == "region" and not task.has_region:
        out.why = "the edit spans the file: no region"
        return out
    tmp = Path(tempfile.mkdtemp(prefix="coder-bench-edit-"))
    try:
        repo, path = make_repo(tmp, task)
        original, first = path.read_text(encoding="utf-8"), repo.head.commit.hexsha
        _run(server, task, mode, guard, path, out, on_stats)
        now = path.read_text(encoding="utf-8")
        out.committed = repo.head.commit.hexsha != first
        if out.outcome == "refused" and now != original:
            out.outcome, out.why = "wrong", f"refused but the file changed: {out.why}"
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(server: ServerInfo, task: Task, mode: str, guard: bool, path: Path, out: Outcome,
         on_stats: Callable[[RequestStats], None] | None) -> None:
    backend = BackendHandle(None)
    backend.replace(server)
    engine = EditEngine(backend, path.parent)
    started = time.perf_counter()
    try:
        # region mode names the region as `coder edit --symbol/--lines` would; auto finds its own
        symbol = task.symbol if mode == "region" else None
        lines = task.lines if mode == "region" and not task.symbol else None
        request = engine.prepare(path, task.instruction, mode=mode, symbol=symbol, lines=lines)
        proposal: EditProposal | None = None
        for event in engine.run(request):
            if isinstance(event, RequestStats):
                if on_stats:
                    on_stats(event)
            else:
                proposal = event
    except CoderError as exc:
        out.outcome, out.why = "refused", f"coder refused the request: {exc}"
        return
    finally:
        engine.close()
    out.enter_to_diff_s = time.perf_counter() - started
    if proposal is None:
        out.outcome, out.why = "refused", "no result"
        return
    settle(engine, proposal, task, out, guard=guard)


def settle(engine: EditEngine, proposal: EditProposal, task: Task, out: Outcome, *, guard: bool) -> None:
    """Apply ``proposal`` as ``coder edit --yes`` would (``guard``: not when the scope check flags it),
    then check the file on disk; fills ``out``."""
    _record(proposal, out)
    original, path = proposal.old, proposal.path
    if not proposal.ok:
        out.outcome, out.why, out.refusal_code = "refused", proposal.refusal or "", proposal.refusal_code
        return
    if not proposal.changed:
        out.outcome, out.why = "refused", "the model made no changes"
        return
    scope = proposal.scope
    if scope is not None and not scope.ok:
        out.flagged, out.flagged_where = True, scope.summary()
        ok, _ = task.check(original, proposal.new)
        out.flagged_would_be = "correct" if ok else "wrong"
        if guard:
            out.outcome, out.why = "refused", f"scope guard: {scope.refusal()}"
            return
    try:
        engine.apply(proposal)
    except CoderError as exc:
        out.outcome, out.why = "refused", f"not applied: {exc}"
        return
    ok, why = task.check(original, path.read_text(encoding="utf-8"))
    out.outcome, out.why = ("correct" if ok else "wrong"), why


def _record(p: EditProposal, out: Outcome) -> None:
    s = p.stats
    out.mode, out.mode_reason = p.mode, p.request.mode_reason
    out.ttft_s, out.decode_tps, out.acceptance_length = s.ttft, s.decode_tps, s.acceptance_length
    out.completion_tokens = s.completion_tokens


def counts(rows: list[Outcome]) -> dict[str, int]:
    """How many of each outcome, plus flagged and committed-wrong counts."""
    c = {k: sum(1 for r in rows if r.outcome == k) for k in OUTCOMES}
    c["flagged"] = sum(1 for r in rows if r.flagged)
    c["flagged_would_be_wrong"] = sum(1 for r in rows if r.flagged_would_be == "wrong")
    c["committed_wrong"] = sum(1 for r in rows if r.outcome == "wrong" and r.committed)
    return c
