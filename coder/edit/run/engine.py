"""The edit engine shared by ``coder edit``, the TUI and the bench.

``prepare`` builds a request (file snapshot, mode, prompt, token budget, k decision) and touches
nothing; ``run`` carries out the k decision through the :class:`~coder.backends.runtime.handle.BackendHandle`
(a restart happens there, in the caller's thread, cancellable), streams the request and yields
:class:`~coder.telemetry.stats.RequestStats` snapshots and finally one :class:`EditProposal`
(validated, or refused; a region edit may be asked once more first: :mod:`coder.edit.run.retry`);
``apply`` writes an accepted proposal atomically and commits it. Nothing here imports Textual or openai.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.edit import MODES
from coder.edit.apply import gitcli
from coder.edit.apply.files import FileSnapshot, read_snapshot, unified_diff
from coder.edit.checks.behaviour import ExampleCheck
from coder.edit.checks.explained import check_scope
from coder.edit.checks.reply import EditRefused, check_reply
from coder.edit.checks.result import PARSE_LOCK, check_result
from coder.edit.checks.trim import kinds_kept
from coder.edit.intent.spec import ChangeSpec
from coder.edit.plan import auto
from coder.edit.proposal import UNCHANGED, ApplyResult, EditProposal, EditRequest
from coder.edit.run import agree
from coder.edit.run.budget import docstring_room, plan_budget, server_ctx
from coder.edit.run.guard import DriftGuard
from coder.edit.run.prompt import build_messages, predicted_reply, region_prompt, repo_context
from coder.edit.run.reading import read_for
from coder.edit.run.retry import Oracles, again, failing_now, retry_reason, spec_of
from coder.edit.run.sample import draw, due, unmended
from coder.edit.run.stream import ChunkTap, partial_body, stream_edit
from coder.edit.run.warmup.cache import PromptCacheModel, prompt_text
from coder.edit.source.regions import Region, find_symbol, line_range
from coder.edit.source.target import check_edit_target, check_size
from coder.errors import CoderError
from coder.kchoice import KChoice
from coder.spec_vocab import types_of
from coder.telemetry.stats import RequestStats
from coder.textsafe import require_utf8
from coder.tokens import TokenCounter

if TYPE_CHECKING:  # GitPython loads where an edit is committed or checked in a copy, never before the request
    import git

    from coder.edit.apply.gitops import UndoResult
    from coder.edit.checks.user_commands import UserCommand

# Expected decode tok/s per request class when no live statistics are given. Only the ratio matters for
# ``auto``: rewrites of a whole file copy more, so drafts are accepted more often than in a region.
DEFAULT_TPS: dict[str, float] = {"full": 60.0, "region": 45.0, "fresh": 25.0}
LONG_FILE_LINES = 200  # a targeted change of a longer file is a region, never a whole-file rewrite


class EditEngine:
    """Builds, streams, validates and applies edits within one repository."""

    def __init__(
        self,
        backend: BackendHandle | None,
        root: Path,
        *,
        snapshot_dirty: bool = True,
        mode_tps: Mapping[str, float] | None = None,
        ctx: int | None = None,
        drift_guard: bool = False,
        context_limit: int = 40,
        use_git: bool = True,
        checks: Sequence[UserCommand] = (),
        checks_not_run: str = "",
        tree: gitcli.WorkTree | None = None,
        run_examples: bool | None = None,
    ) -> None:
        self.backend = backend or BackendHandle(None)
        self.checks = tuple(checks)  # the user's test/lint commands, run on each proposal (checks.user_commands)
        self.checks_not_run = checks_not_run  # why an untrusted repo's commands do not run (config.commands_not_run)
        self.examples = ExampleCheck(self.checks, runs=run_examples)  # a fix's examples (checks.behaviour)
        self.oracles = Oracles(self.checks, self.examples, lambda: self.repo)  # what fails now (run.retry)
        # ``tree``: the work tree the caller already found at ``root`` (one ``git rev-parse`` per command)
        self.root, self.tree = (tree.root, tree) if tree is not None and use_git else gitcli.locate(root, use_git)
        self._repo: git.Repo | None = None
        self.allow_ignored, self.snapshot_dirty = False, snapshot_dirty  # --allow-ignored: edit a file git ignores
        self.mode_tps = {**DEFAULT_TPS, **(mode_tps or {})}  # the cost model learns prefill cost, tok/s from edits
        self.cost = auto.CostModel(self.mode_tps)
        self._adopt_costs(self.backend.info)
        self.prompt_cache = PromptCacheModel()  # what the server's prompt cache probably holds
        self.drift_guard, self._prediction_noted = drift_guard, False
        self._ctx, self._fixed_ctx = ctx, ctx is not None
        files = self.tree.tracked_files() if self.tree is not None else []  # frozen: edits share a cached prefix
        self.repo_context = repo_context(self.root.name, files, limit=context_limit)
        self._unsubscribe = self.backend.subscribe(self._backend_changed)

    @property
    def server(self) -> ServerInfo | None:
        """The live server (the backend handle's)."""
        return self.backend.info

    @property
    def counter(self) -> TokenCounter:
        """The backend handle's token counter."""
        return self.backend.counter

    @property
    def has_git(self) -> bool:
        """True inside a git work tree (edits are committed and can be undone)."""
        return self.tree is not None

    @property
    def repo(self) -> git.Repo | None:
        """GitPython's repository of the work tree, opened (and GitPython imported) on first use."""
        if self.tree is None:
            return None
        if self._repo is None:
            from coder.edit.apply import gitops

            self._repo = gitops.repo_of(self.tree)
        return self._repo

    def close(self) -> None:
        """Stop following the backend handle."""
        self._unsubscribe()

    def _backend_changed(self, info: ServerInfo | None) -> None:
        if not self._fixed_ctx:
            self._ctx = None  # a new server may have another context size
        self._adopt_costs(info)

    def _adopt_costs(self, info: ServerInfo | None) -> None:
        """What the server's start-up probe measured: auto mode predicts from it until edits measure more."""
        if info is not None:
            self.cost.adopt_probe(info.prefill_s_per_token, info.decode_tps)

    def check_target(self, path: Path | str, *, symbol: str | None = None,
                     lines: str | None = None) -> tuple[FileSnapshot, Region | None]:
        """Read the file and resolve the region; every bad-input error, without the server."""
        if symbol and lines:
            raise CoderError("give either --symbol or --lines, not both")
        check_edit_target(self.root, self.tree, Path(path), allow_ignored=self.allow_ignored)
        snap = read_snapshot(self.root, Path(path))
        region = None
        if symbol:
            region = find_symbol(snap.rel, snap.text, symbol)
        elif lines:
            region = line_range(snap.text, lines)
        return snap, region

    # -- reading the instruction ------------------------------------------------

    def read(self, snap: FileSnapshot, instruction: str) -> ChangeSpec:
        """The change spec of ``instruction`` for ``snap`` (:func:`coder.edit.run.reading.read_for`)."""
        return read_for(snap, instruction, root=self.root, has_repo=self.tree is not None,
                        backend=self.backend if self.server is not None else None)

    # -- request building -----------------------------------------------------

    def context_size(self) -> int:
        """The server's context window (``/props`` or ``/slots``), else the given default."""
        if self._ctx is None and self.server is not None:
            self._ctx = server_ctx(self.server)
        return self._ctx or 8192

    def prepare(
        self,
        path: Path | str,
        instruction: str,
        *,
        mode: str = "auto",
        symbol: str | None = None,
        lines: str | None = None,
        spec: ChangeSpec | None = None,
    ) -> EditRequest:
        """Build the request for ``instruction`` on ``path``: mode, prompt, budget and k decision.

        ``spec`` is the instruction already read (:meth:`read`); read here when not given. Reads
        the file and counts tokens but changes nothing; bad input raises CoderError.
        """
        if mode not in MODES:
            raise CoderError(f"unknown mode {mode!r} (choose full, region or auto)")
        if not require_utf8(instruction, "the instruction").strip():
            raise CoderError("the instruction is empty: say what to change with -m")
        if mode != "region":  # the whole file goes in the prompt: judge it by its byte size first
            check_size(Path(path), self.context_size())
        snap, region = self.check_target(path, symbol=symbol, lines=lines)
        if mode == "full" and region is not None:
            raise CoderError("--symbol/--lines select a region: use --mode region or --mode auto")
        if mode == "region" and region is None:
            raise CoderError("region mode needs --symbol NAME or --lines A-B")
        if spec is None or spec.instruction != instruction:
            spec = self.read(snap, instruction)
        if mode == "auto":
            return self._auto(snap, spec, region)
        return self._build(snap, spec, mode, region, f"{mode} mode requested")

    def _build(self, snap: FileSnapshot, spec: ChangeSpec, mode: str, region: Region | None,
               reason: str, *, with_k: bool = True) -> EditRequest:
        instruction = spec.instruction
        if mode == "region" and region is not None:
            prompt, parts = region_prompt(snap.rel, snap.text, region, instruction,
                                          repo_context=self.repo_context)
            before, after, target = parts.before, parts.after, parts.target
        else:
            prompt = build_messages(snap.rel, snap.text, instruction, mode="full",
                                    repo_context=self.repo_context)
            before, after, target = "", "", snap.text
        prompt_tokens = self.counter.count_messages(prompt.messages)
        budget = plan_budget(prompt_tokens, self.counter.count(target), self.context_size(),
                             mode=mode, rel=snap.rel, growth=docstring_room(spec, target),
                             # counted only for a refusal: the offline tokenizer costs ~0.4 s to load
                             instruction_tokens=lambda: self.counter.count(instruction))
        request_class = mode if target.strip() else "fresh"  # nothing to copy: a fresh write
        # pure: a restart waits for run(); auto's candidates need no k until one is picked
        choice = (self.backend.decide(request_class) if with_k
                  else KChoice(None, request_class, "not decided: auto compares the candidates first", "launch"))
        return EditRequest(
            snapshot=snap, instruction=instruction, mode=mode, request_class=request_class,
            mode_reason=reason, region=region, before=before, after=after, prompt=prompt,
            budget=budget, k=choice, token_source=self.counter.source, spec=spec,
        )

    def _auto(self, snap: FileSnapshot, spec: ChangeSpec, region: Region | None) -> EditRequest:
        """Build both candidate requests, predict their wall times (:mod:`coder.edit.plan.auto`), keep the faster.

        A targeted spec on a long file is a region whatever the prediction: a whole-file rewrite
        of a long file, asked about one symbol, drifts.
        """
        target = (auto.Target(region, f"{region.label} (given)") if region is not None
                  else auto.find_target(snap.rel, snap.text, spec))
        full: EditRequest | None = None
        try:
            full = self._build(snap, spec, "full", None, "", with_k=False)
        except CoderError:
            if target.region is None:
                raise  # the whole file cannot fit and no region is named: say so
        part = (self._build(snap, spec, "region", target.region, "", with_k=False)
                if target.region is not None else None)
        mode, reason, predictions = auto.choose(_candidate(full), _candidate(part), target, self.cost,
                                                self.prompt_cache.cached_tokens)
        if mode == "full" and part is not None and spec.targeted and len(snap.text.splitlines()) > LONG_FILE_LINES:
            mode, reason = "region", f"auto: region, the instruction targets {target.why} in a long file; {reason}"
        chosen = full if mode == "full" else part
        assert chosen is not None
        request = self._build(snap, spec, mode, chosen.region, reason)
        return replace(request, predictions=predictions)

    # -- streaming ------------------------------------------------------------

    def prediction_for(self, request: EditRequest) -> str | None:
        """The ``prediction`` to send: the original in the reply's fence, when the server drafts from it."""
        if self.server is None or not self.server.prediction or not request.prompt.target.strip():
            return None
        return predicted_reply(request.prompt)

    def prediction_notice(self) -> str | None:
        """One line, the first time only, when edits go without a prediction (unpatched server)."""
        server = self.server
        # only a profile that asked for the prediction drafter expects one; others never send it
        if self._prediction_noted or server is None or server.prediction or "prediction" not in types_of(
                server.spec_type):
            return None
        self._prediction_noted = True
        return (f"{server.engine} server at {server.url} does not draft from a prediction: "
                "edits are sent without one (coder's llama-server build has the prediction drafter)")

    def run(self, request: EditRequest, cancel: threading.Event | None = None,
            on_chunk: ChunkTap | None = None) -> Iterator[RequestStats | EditProposal]:
        """Apply the k decision, stream the request; yields live stats, then one :class:`EditProposal`.

        The request runner (:mod:`coder.backends.runtime.request`) carries out the k decision (``via="restart"``
        relaunches the backend first, blocking; ``cancel`` aborts it or the stream) and learns from the reply;
        ``on_chunk`` gets every streamed chunk. Raises CoderError when the backend is unreachable, dies or is cancelled
        (nothing is written). A region edit may be asked once more (:meth:`retry_request`); a fix not mended is sampled
        while an oracle fails (:mod:`.sample`), sought where the oracles point (:mod:`.locate`), then among one-token
        changes the tests judge (:mod:`.repair`); an unchecked change of behaviour is held to samples (:mod:`.agree`).
        """
        ask = partial(self._stream_once, cancel=cancel, on_chunk=on_chunk)
        proposal = yield from ask(request)
        if (why := self._why_again(proposal)) is not None:
            second = yield from ask(again(proposal, *why, self._build))
            second.retried, second.first_reply = why[1], proposal.reply
            proposal = second  # still refused, unchanged or flagged: that is the outcome, with why it was asked again
            if (oracle := due(proposal, self.oracles)) is not None:
                proposal = yield from draw(proposal, oracle, ask)
        if unmended(proposal):  # imported here: only a fix not mended needs them, ~2 ms of every edit's start
            from coder.edit.run import locate, repair

            proposal = yield from locate.look_elsewhere(proposal, self.oracles, self._build, ask)  # in a callee?
            proposal = repair.repair(proposal, self.oracles, self._build, self.evaluate)  # one-token changes
        proposal = yield from agree.check(proposal, self.oracles, ask)
        yield proposal

    def _stream_once(self, request: EditRequest, cancel: threading.Event | None,
                     on_chunk: ChunkTap | None) -> Generator[RequestStats, None, EditProposal]:
        outcome = yield from stream_edit(self.backend, request, drift_guard=self.drift_guard, on_chunk=on_chunk,
                                         prediction=self.prediction_for(request), cancel=cancel)
        self._learn_costs(request, outcome.stats)
        started = time.perf_counter()
        proposal = self.evaluate(request, outcome.reply, outcome.stats, stopped=outcome.stopped)
        proposal.validate_s = time.perf_counter() - started
        proposal.spec = outcome.delta
        return proposal

    def retry_request(self, proposal: EditProposal) -> EditRequest | None:
        """The one retry of a region edit outside a plan (:mod:`.retry`: its prompt says what went wrong), or None."""
        why = self._why_again(proposal)
        return None if why is None else again(proposal, *why, self._build)

    def _why_again(self, proposal: EditProposal) -> tuple[str, str] | None:
        return failing_now(retry_reason(proposal), proposal, self.oracles)

    def _learn_costs(self, request: EditRequest, stats: RequestStats) -> None:
        """What auto mode needs next time: prefill cost, decode speed, what the cache now holds."""
        self.cost.observe_timings(stats.timings)
        self.cost.observe_decode(request.request_class, stats.decode_tps, stats.completion_tokens)
        if stats.prompt_tokens:
            self.prompt_cache.record(prompt_text(request.messages), stats.prompt_tokens)

    def evaluate(self, request: EditRequest, reply: str, stats: RequestStats | None = None, *,
                 finish_reason: str | None = None, stopped: EditRefused | None = None,
                 checks: Sequence[UserCommand] | None = None) -> EditProposal:
        """Validate a complete ``reply`` to ``request`` into a proposal (accepted or refused).

        ``finish_reason`` is used when ``stats`` is not given (replaying a recorded reply);
        ``stopped`` is the guard's refusal when the stream was cut early; ``checks`` the commands run instead of
        the user's own (:mod:`.repair` shortens their time limit).
        """
        with PARSE_LOCK:  # the planner judges regions on threads; CPython 3.11's parser is not thread-safe
            return self._evaluate(request, reply, stats or RequestStats(finish_reason=finish_reason), stopped, checks)

    def _evaluate(self, request: EditRequest, reply: str, stats: RequestStats, stopped: EditRefused | None,
                  checks: Sequence[UserCommand] | None) -> EditProposal:
        snap, spec = request.snapshot, spec_of(request)
        try:
            if stopped is None:  # a replayed or complete reply gets the same guard as a live stream
                guard = DriftGuard(snap.text, drift=self.drift_guard and request.mode == "full")
                body = partial_body(reply, request.prompt.fence)
                stopped = guard.check(body + "\n") or guard.check_tail(body)
            if stopped is not None:
                raise stopped
            region = request.region if request.mode == "region" else None
            new = check_reply(
                reply, stats.finish_reason, fence=request.prompt.fence, target=request.prompt.target,
                before=request.before, after=request.after, python=snap.rel.endswith((".py", ".pyi")),
                region_kind=region.kind if region else None, region_name=region.name if region else None,
                stopped_at_fence=stats.stopped_at_fence, spec=spec,
            )
            new, dropped = kinds_kept(request, new, spec)  # a hints edit: __init__ -> None; other kinds given back
            if (broken := check_result(snap.rel, new, old=snap.text,
                                       spec=None if request.in_plan else spec)) is not None:
                raise broken  # the whole new file: it parses, gains no undefined name, breaks no code rule
        except EditRefused as refused:
            return EditProposal(request, snap.text, "", stats, refused.code, refused.reason, reply)
        scope = check_scope(snap.text, new, spec, rel=snap.rel, dropped=dropped,
                            region=request.region if request.mode == "region" else None)
        proposal = EditProposal(request, new, unified_diff(snap.rel, snap.text, new), stats, reply=reply, scope=scope)
        if proposal.changed and not request.in_plan:  # said once per engine: a CLI run, a TUI session
            proposal.checks_not_run, self.checks_not_run = self.checks_not_run, ""
            self.examples.hold(proposal, spec)  # the instruction's failing examples, before and after
        if (checks := self.checks if checks is None else checks) and proposal.changed:
            from coder.edit.checks.user_commands import run_on_proposal

            proposal.checks = tuple(run_on_proposal(self.repo, snap, new, checks))
            if failed := next((c for c in proposal.checks if not c.ok), None):
                proposal.refusal_code, proposal.refusal = "check_failed", failed.line()
        return proposal

    # -- applying -------------------------------------------------------------

    def apply(self, proposal: EditProposal) -> ApplyResult:
        """Write an accepted proposal and commit it; raises CoderError with the file untouched."""
        if not proposal.ok:
            raise CoderError(f"edit refused: {proposal.refusal}")
        snap = proposal.request.snapshot
        if not proposal.changed:
            return ApplyResult(snap.rel, False, notes=[f"{UNCHANGED}; nothing written"])
        from coder.edit.apply.commit import apply_proposal

        return apply_proposal(snap, proposal.new, proposal.request.instruction, self.repo,
                              snapshot_dirty=self.snapshot_dirty)

    def undo(self) -> UndoResult:
        """Revert coder's last commit (see :func:`coder.edit.apply.gitops.undo_last`)."""
        if self.repo is None:
            raise CoderError("undo needs a git repository (coder commits each edit there)")
        from coder.edit.apply import gitops

        return gitops.undo_last(self.repo)


def _candidate(r: EditRequest | None) -> auto.Candidate | None:
    return None if r is None else auto.Candidate(r.mode, r.request_class, prompt_text(r.messages),
                                                 r.budget.prompt_tokens, r.budget.reply_tokens)
