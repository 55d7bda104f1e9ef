"""The edit engine shared by ``coder edit`` and the TUI.

``prepare`` builds a request (file snapshot, mode, prompt, token budget, k),
``run`` streams it and yields :class:`Progress` events and finally one
:class:`EditProposal` (validated, or carrying the refusal), and ``apply`` writes an
accepted proposal atomically and commits it. The TUI drives ``run`` from a thread
worker; nothing here imports Textual.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
import openai

from coder.backends.server import ServerAPI, ServerInfo
from coder.edit import gitops
from coder.edit.apply import FileSnapshot, check_unchanged, diff_stat, read_snapshot, unified_diff, write_edit
from coder.edit.prompt import EditPrompt, build_messages, predicted_reply, repo_context
from coder.edit.regions import Region, context_lines, find_symbol, line_range, mentioned_symbol, split
from coder.edit.tokens import Budget, TokenCounter, plan_budget
from coder.edit.validate import DriftGuard, EditRefused, check_reply, closing_fence_seen, parse_fenced
from coder.errors import CoderError
from coder.telemetry.metrics import SpecDelta, SpecStats
from coder.telemetry.stream import Delta, StreamResult

MODES = ("full", "region", "auto")
# Expected decode tok/s per request class when no live statistics are given. Only the
# ratio matters for ``auto``: rewrites of a whole file copy more, so drafts are
# accepted more often than in a region, and a fresh request copies nothing.
DEFAULT_TPS: dict[str, float] = {"full": 60.0, "region": 45.0, "fresh": 25.0}
CONTEXT_LINES = 3  # lines shown around a region
FENCE_GRACE_CHUNKS = 3  # after the closing fence, chunks read while waiting for the final usage


@dataclass(frozen=True)
class KChoice:
    """Draft depth for one request: ``k=None`` means the server's launch k, uncapped."""

    k: int | None
    reason: str
    via: str


class KChoiceLike(Protocol):
    """Any k choice: this module's :class:`KChoice` or ``coder.kpolicy``'s richer one."""

    @property
    def k(self) -> int | None: ...

    @property
    def reason(self) -> str: ...

    @property
    def via(self) -> str: ...


class KPolicy(Protocol):
    """What the edit engine needs from a k policy (``coder.kpolicy`` provides real ones).

    A policy may also have ``observe(choice, timings, delta)``; the engine then feeds
    each finished edit back to it.
    """

    def choose(self, request_class: str) -> KChoiceLike: ...


class LaunchK:
    """Default policy: leave k at the server's launch value."""

    def choose(self, request_class: str) -> KChoice:
        return KChoice(None, "launch k, no per-request cap", "default")


@dataclass(frozen=True)
class FixedK:
    """A k the user asked for (``--k N``)."""

    k: int

    def choose(self, request_class: str) -> KChoice:
        return KChoice(self.k, f"fixed by the user (--k {self.k})", "user")


@dataclass(frozen=True)
class EditRequest:
    """Everything needed to send one edit and to apply its reply."""

    snapshot: FileSnapshot
    instruction: str
    mode: str  # "full" | "region"
    request_class: str  # "full" | "region" | "fresh"
    mode_reason: str
    region: Region | None
    before: str  # file text before the region (empty in full mode)
    after: str
    prompt: EditPrompt
    budget: Budget
    k: KChoiceLike
    token_source: str

    @property
    def messages(self) -> list[dict[str, str]]:
        return self.prompt.messages


@dataclass
class EditStats:
    ttft: float | None = None
    wall: float = 0.0
    tok_s: float | None = None
    acceptance_length: float | None = None
    acceptance_source: str | None = None  # "metrics" (exact) | "stream" (per-chunk counters)
    draft_n: int | None = None
    draft_accepted: int | None = None
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    stopped_at_fence: bool = False
    prediction_sent: bool = False  # the original went along as the request's ``prediction``
    draft_by_type: dict[str, dict[str, int]] | None = None  # which speculator drafted how much


@dataclass
class EditProposal:
    """A validated edit ready to apply, or the reason it was refused."""

    request: EditRequest
    new: str
    diff: str
    stats: EditStats
    refusal_code: str | None = None
    refusal: str | None = None
    reply: str = ""

    @property
    def ok(self) -> bool:
        return self.refusal is None

    @property
    def path(self) -> Path:
        return self.request.snapshot.path

    @property
    def rel(self) -> str:
        return self.request.snapshot.rel

    @property
    def old(self) -> str:
        return self.request.snapshot.text

    @property
    def mode(self) -> str:
        return self.request.mode

    @property
    def request_class(self) -> str:
        return self.request.request_class

    @property
    def k(self) -> int | None:
        return self.request.k.k

    @property
    def k_reason(self) -> str:
        return self.request.k.reason

    @property
    def changed(self) -> bool:
        return self.ok and self.new != self.old

    def to_json(self) -> dict[str, Any]:
        added, removed = diff_stat(self.diff)
        region = self.request.region
        return {
            "path": self.rel,
            "ok": self.ok,
            "refusal_code": self.refusal_code,
            "refusal": self.refusal,
            "mode": self.mode,
            "mode_reason": self.request.mode_reason,
            "request_class": self.request_class,
            "region": asdict(region) if region else None,
            "k": self.k,
            "k_reason": self.k_reason,
            "k_via": self.request.k.via,
            "changed": self.changed,
            "lines_added": added,
            "lines_removed": removed,
            "diff": self.diff,
            "stats": asdict(self.stats),
            "token_source": self.request.token_source,
        }


@dataclass(frozen=True)
class Progress:
    """One streaming update (for a status line or the TUI)."""

    chars: int  # reply characters so far
    tokens: int  # generated tokens so far (server count when streamed, else chunks)
    elapsed: float  # seconds since the request was sent
    tok_s: float | None  # decode rate since the first token (prefill excluded)
    draft_n: int | None  # draft tokens proposed so far (llama.cpp per-chunk timings)
    draft_accepted: int | None


@dataclass(frozen=True)
class ApplyResult:
    path: str
    written: bool
    commit: str | None = None
    snapshot: str | None = None
    notes: list[str] = field(default_factory=list)


def locate_root(start: Path) -> tuple[Path, Any]:
    """(root, repo) for ``start``: the enclosing git work tree, else ``start`` itself and None."""
    repo = gitops.open_repo(start)
    if repo is None:
        return start.resolve(), None
    return gitops.root_of(repo), repo


class EditEngine:
    """Builds, streams, validates and applies edits within one repository."""

    def __init__(
        self,
        server: ServerInfo | None,
        root: Path,
        *,
        policy: KPolicy | None = None,
        snapshot_dirty: bool = True,
        mode_tps: Mapping[str, float] | None = None,
        ctx: int | None = None,
        drift_guard: bool = False,
        context_limit: int = 40,
    ) -> None:
        self.server = server
        self.root, self.repo = locate_root(root)
        self.policy: KPolicy = policy or LaunchK()
        self.snapshot_dirty = snapshot_dirty
        self.mode_tps = {**DEFAULT_TPS, **(mode_tps or {})}
        self.drift_guard = drift_guard
        self._prediction_noted = False
        self._ctx = ctx
        self._fixed_ctx = ctx is not None
        self.counter = TokenCounter(server.api() if server else None)
        files = gitops.tracked_files(self.repo) if self.repo is not None else []
        # Frozen for the engine's lifetime so consecutive edits share a cached prefix.
        self.repo_context = repo_context(self.root.name, files, limit=context_limit)

    @property
    def has_git(self) -> bool:
        return self.repo is not None

    def connect(self, server: ServerInfo | None) -> None:
        """Use ``server`` from now on (token counts, context size, streaming)."""
        self.server = server
        self.counter = TokenCounter(server.api() if server else None, self.counter.ratio,
                                    self.counter.calibrated)
        if not self._fixed_ctx:
            self._ctx = None

    def check_target(self, path: Path | str, *, symbol: str | None = None,
                     lines: str | None = None) -> tuple[FileSnapshot, Region | None]:
        """Read the file and resolve the region; every bad-input error, without the server."""
        if symbol and lines:
            raise CoderError("give either --symbol or --lines, not both")
        snap = read_snapshot(self.root, Path(path))
        region = None
        if symbol:
            region = find_symbol(snap.rel, snap.text, symbol)
        elif lines:
            region = line_range(snap.text, lines)
        return snap, region

    # -- request building -----------------------------------------------------

    def context_size(self) -> int:
        """The server's context window (``/props`` or ``/slots``), else the given default."""
        if self._ctx is None and self.server is not None:
            self._ctx = _server_ctx(self.server)
        return self._ctx or 8192

    def prepare(
        self,
        path: Path | str,
        instruction: str,
        *,
        mode: str = "auto",
        symbol: str | None = None,
        lines: str | None = None,
    ) -> EditRequest:
        if mode not in MODES:
            raise CoderError(f"unknown mode {mode!r} (choose full, region or auto)")
        if not instruction.strip():
            raise CoderError("the instruction is empty: say what to change with -m")
        snap, region = self.check_target(path, symbol=symbol, lines=lines)
        if mode == "full" and region is not None:
            raise CoderError("--symbol/--lines select a region: use --mode region or --mode auto")
        if mode == "region" and region is None:
            raise CoderError("region mode needs --symbol NAME or --lines A-B")

        if mode == "auto":
            mode, region, reason = self._choose_mode(snap, instruction, region)
        else:
            reason = f"{mode} mode requested"
        return self._build(snap, instruction, mode, region, reason)

    def _build(self, snap: FileSnapshot, instruction: str, mode: str, region: Region | None,
               reason: str) -> EditRequest:
        if mode == "region" and region is not None:
            parts = split(snap.text, region)
            prompt = build_messages(
                snap.rel, parts.target, instruction, mode="region", repo_context=self.repo_context,
                before=context_lines(parts.before, CONTEXT_LINES, tail=True),
                after=context_lines(parts.after, CONTEXT_LINES, tail=False),
                region_label=region.label,
            )
            before, after, target = parts.before, parts.after, parts.target
        else:
            prompt = build_messages(snap.rel, snap.text, instruction, mode="full",
                                    repo_context=self.repo_context)
            before, after, target = "", "", snap.text
        prompt_tokens = self.counter.count_messages(prompt.messages)
        budget = plan_budget(prompt_tokens, self.counter.count(target), self.context_size(),
                             mode=mode, rel=snap.rel)
        request_class = mode if target.strip() else "fresh"  # nothing to copy: a fresh write
        choice = self.policy.choose(request_class)
        # choosing k may have restarted a managed backend (stock build): follow it to its new URL
        if (restarted := getattr(self.policy, "server", None)) is not None:
            self.server = restarted
        return EditRequest(
            snapshot=snap, instruction=instruction, mode=mode, request_class=request_class,
            mode_reason=reason, region=region, before=before, after=after, prompt=prompt,
            budget=budget, k=choice, token_source=self.counter.source,
        )

    def _choose_mode(self, snap: FileSnapshot, instruction: str,
                     region: Region | None) -> tuple[str, Region | None, str]:
        """Pick full or region by predicted generation time (tokens ÷ tok/s)."""
        named = region is None
        region = region or mentioned_symbol(snap.rel, snap.text, instruction)
        if region is None:
            return "full", None, "auto: full (no region given or named in the instruction)"
        full_tokens = self.counter.count(snap.text)
        region_tokens = self.counter.count(split(snap.text, region).target)
        t_full = full_tokens / self.mode_tps["full"]
        t_region = region_tokens / self.mode_tps["region"]
        how = " (named in the instruction)" if named else ""
        tps_region, tps_full = self.mode_tps["region"], self.mode_tps["full"]
        detail = (f"region {region.label}{how}: ~{region_tokens} tok at {tps_region:.0f} tok/s = "
                  f"{t_region:.1f}s vs full: ~{full_tokens} tok at {tps_full:.0f} tok/s = {t_full:.1f}s")
        if 2 * full_tokens > self.context_size():  # file in the prompt and again in the reply
            return "region", region, f"auto: region, the whole file cannot fit the context; {detail}"
        if t_region <= t_full:
            return "region", region, f"auto: region is faster; {detail}"
        return "full", None, f"auto: full is faster; {detail}"

    # -- streaming ------------------------------------------------------------

    def prediction_for(self, request: EditRequest) -> str | None:
        """The ``prediction`` to send: the original in the reply's fence, when the server drafts from it."""
        if self.server is None or not self.server.prediction or not request.prompt.target.strip():
            return None
        return predicted_reply(request.prompt)

    def prediction_notice(self) -> str | None:
        """One line, the first time only, when edits go without a prediction (unpatched server)."""
        if self._prediction_noted or self.server is None or self.server.prediction:
            return None
        self._prediction_noted = True
        return (f"{self.server.engine} server at {self.server.url} does not draft from a prediction: "
                "edits are sent without one (coder's llama-server build has the prediction drafter)")


    def run(self, request: EditRequest) -> Iterator[Progress | EditProposal]:
        """Stream the request; yields :class:`Progress`, then one :class:`EditProposal`.

        Raises CoderError when the backend is unreachable or dies mid-stream (nothing
        is written either way).
        """
        if self.server is None:
            raise CoderError("no backend is running; start one with `coder backend start`")
        with self.server.api() as api:
            yield from self._stream(request, api)

    def _stream(self, request: EditRequest, api: ServerAPI) -> Iterator[Progress | EditProposal]:
        assert self.server is not None
        before_stats = _metrics(api)
        k_cap = request.k.k if self.server.draft_cap else None
        guard = DriftGuard(request.snapshot.text, drift=self.drift_guard and request.mode == "full")
        stats = EditStats(prompt_tokens=request.budget.prompt_tokens)
        text = ""
        last: Delta | None = None
        final: StreamResult | None = None
        fence_at: int | None = None  # chunk index where the closing fence was seen
        body_at: int | None = None  # offset of the block's body, once the opening fence streamed
        stopped: EditRefused | None = None
        chunks = 0
        prediction = self.prediction_for(request)
        stats.prediction_sent = prediction is not None
        stream = self.server.chat().stream(
            request.messages, max_tokens=request.budget.max_tokens, temperature=0.0,
            k_cap=k_cap, cache_prompt=True, prediction=prediction,
        )
        try:
            for item in stream:
                if isinstance(item, StreamResult):
                    final = item
                    break
                chunks += 1
                if fence_at is not None:
                    # Text after the closing fence is discarded; only wait briefly for the usage chunk.
                    if chunks - fence_at >= FENCE_GRACE_CHUNKS:
                        break
                    continue
                text += item.text
                last = item
                if stats.ttft is None:
                    stats.ttft = item.elapsed
                tokens = item.predicted_n or chunks
                decode_time = item.elapsed - stats.ttft
                tps = (tokens - 1) / decode_time if decode_time > 0 and tokens > 1 else None  # excl. prefill
                yield Progress(len(text), tokens, item.elapsed, tps, item.draft_n, item.draft_n_accepted)
                if "`" in item.text and closing_fence_seen(text, request.prompt.fence):
                    fence_at = chunks
                    stats.stopped_at_fence = True
                    continue
                if body_at is None and "\n" in item.text:
                    body_at = _body_offset(text, request.prompt.fence)
                if (stopped := guard.check_tail(text)) or (
                        "\n" in item.text and body_at is not None and (stopped := guard.check(text[body_at:]))):
                    break
        except (httpx.HTTPError, openai.APIError) as exc:
            # A server dying mid-stream surfaces as a transport error, not a ChatClient error.
            raise CoderError(f"backend connection lost mid-stream ({type(exc).__name__}); nothing written") \
                from None
        finally:
            closer = getattr(stream, "close", None)  # a generator: closing cancels the server request
            if closer is not None:
                closer()
        reply = text
        _fill_stats(stats, final, last, reply, self.counter)
        after_stats = _metrics(api, wait_for=before_stats, final_seen=final is not None)
        delta = None
        if before_stats is not None and after_stats is not None:
            delta = after_stats - before_stats
            _stats_from_metrics(stats, before_stats, after_stats, have_usage=final is not None)
        self._observe(request, final, stats, delta)
        yield self.evaluate(request, reply, stats, stopped=stopped)

    def _observe(self, request: EditRequest, final: StreamResult | None, stats: EditStats,
                 delta: SpecDelta | None) -> None:
        """Feed the finished request to the k policy, when it learns from results."""
        observe = getattr(self.policy, "observe", None)
        if observe is None:
            return
        timings: dict[str, Any] = dict(final.timings) if final is not None else {}
        # Closed at the fence: no final timings, so report what the stream counted.
        timings.setdefault("predicted_n", stats.completion_tokens or 0)
        timings.setdefault("draft_n", stats.draft_n or 0)
        timings.setdefault("draft_n_accepted", stats.draft_accepted or 0)
        with contextlib.suppress(CoderError):  # policy feedback never fails an edit
            observe(request.k, timings, delta)

    def propose(self, request: EditRequest) -> EditProposal:
        """``run`` without progress events."""
        for event in self.run(request):
            if isinstance(event, EditProposal):
                return event
        raise CoderError("internal: the edit stream ended without a result")

    def evaluate(self, request: EditRequest, reply: str, stats: EditStats | None = None, *,
                 finish_reason: str | None = None, stopped: EditRefused | None = None) -> EditProposal:
        """Validate a complete ``reply`` to ``request`` into a proposal (accepted or refused).

        ``finish_reason`` is used when ``stats`` is not given (replaying a recorded reply);
        ``stopped`` is the guard's refusal when the stream was cut early.
        """
        stats = stats or EditStats(finish_reason=finish_reason)
        snap = request.snapshot
        try:
            if stopped is None:  # a replayed or complete reply gets the same guard as a live stream
                guard = DriftGuard(snap.text, drift=self.drift_guard and request.mode == "full")
                body = _partial_body(reply, request.prompt.fence)
                stopped = guard.check(body + "\n") or guard.check_tail(body)
            if stopped is not None:
                raise stopped
            region = request.region if request.mode == "region" else None
            new = check_reply(
                reply, stats.finish_reason, fence=request.prompt.fence, target=request.prompt.target,
                before=request.before, after=request.after, python=snap.rel.endswith((".py", ".pyi")),
                region_kind=region.kind if region else None, region_name=region.name if region else None,
                stopped_at_fence=stats.stopped_at_fence, instruction=request.instruction,
            )
        except EditRefused as refused:
            return EditProposal(request, snap.text, "", stats, refused.code, refused.reason, reply)
        return EditProposal(request, new, unified_diff(snap.rel, snap.text, new), stats, reply=reply)

    # -- applying -------------------------------------------------------------

    def apply(self, proposal: EditProposal) -> ApplyResult:
        """Write an accepted proposal and commit it; raises CoderError with the file untouched."""
        if not proposal.ok:
            raise CoderError(f"edit refused: {proposal.refusal}")
        snap = proposal.request.snapshot
        if not proposal.changed:
            return ApplyResult(snap.rel, False, notes=["the model made no changes; nothing written"])
        check_unchanged(snap)
        notes: list[str] = []
        snapshot_sha = None
        commit = True
        if self.repo is None:
            commit = False
            notes.append("not a git repository: edit written without a commit (no undo)")
        elif gitops.is_ignored(self.repo, snap.rel):
            commit = False
            notes.append(f"{snap.rel} is ignored by git: edit written without a commit")
        elif gitops.is_dirty(self.repo, snap.rel):
            if self.snapshot_dirty:
                snapshot_sha = gitops.snapshot(self.repo, snap.rel)
                notes.append(f"your uncommitted changes to {snap.rel} were committed first "
                             f"as {snapshot_sha[:8]}")
            else:
                commit = False
                notes.append(f"{snap.rel} had uncommitted changes: edit written without a commit "
                             "(snapshot_dirty = false)")
        write_edit(snap, proposal.new)
        sha = None
        if commit and self.repo is not None:
            sha = gitops.commit_edit(self.repo, snap.rel, proposal.request.instruction)
            notes.append(f"committed {sha[:8]} (undo with `coder undo`)")
        return ApplyResult(snap.rel, True, sha, snapshot_sha, notes)

    def undo(self) -> gitops.UndoResult:
        if self.repo is None:
            raise CoderError("undo needs a git repository (coder commits each edit there)")
        return gitops.undo_last(self.repo)


def _body_offset(text: str, fence: str) -> int | None:
    """Where the open block's body starts, once its opening fence line is complete."""
    opened = parse_fenced(text, fence)
    if opened is None:
        return None
    at = len(text) - len(opened.body)  # an open block's body is the whole suffix
    return at if at > 0 and text[at - 1] == "\n" else None


def _partial_body(text: str, fence: str) -> str:
    parsed = parse_fenced(text, fence)
    return parsed.body if parsed else ""


def _fill_stats(stats: EditStats, final: StreamResult | None, last: Delta | None, reply: str,
                counter: TokenCounter) -> None:
    """Stats from the final usage chunk when it arrived, else from the last streamed chunk."""
    if final is not None:
        stats.ttft = final.ttft if final.ttft is not None else stats.ttft
        stats.wall = final.wall
        stats.finish_reason = final.finish_reason
        stats.completion_tokens = final.tokens or None
        stats.prompt_tokens = final.prompt_tokens or stats.prompt_tokens
        stats.cached_tokens = final.cached_tokens
        if stats.cached_tokens is None and "cache_n" in final.timings:
            stats.cached_tokens = int(final.timings["cache_n"])
        stats.draft_n, stats.draft_accepted = final.draft_n, final.draft_n_accepted
        stats.draft_by_type = final.draft_by_type
        stats.tok_s = final.decode_tps
    if last is not None:
        stats.draft_by_type = stats.draft_by_type or last.draft_by_type
        stats.draft_n = stats.draft_n if stats.draft_n is not None else last.draft_n
        stats.draft_accepted = (stats.draft_accepted if stats.draft_accepted is not None
                                else last.draft_n_accepted)
        if stats.completion_tokens is None:
            stats.completion_tokens = last.predicted_n or (counter.count(reply) if reply else 0)
        if final is None:
            stats.wall = last.elapsed
    if stats.tok_s is None and stats.completion_tokens and stats.ttft is not None and stats.wall > stats.ttft:
        stats.tok_s = stats.completion_tokens / (stats.wall - stats.ttft)
    n, acc = stats.completion_tokens, stats.draft_accepted
    if n and acc is not None and stats.draft_n:
        steps = n - acc  # each verification step yields one target token plus its accepted drafts
        if steps > 0:
            stats.acceptance_length = n / steps
            stats.acceptance_source = "stream"


def _stats_from_metrics(stats: EditStats, before: SpecStats, after: SpecStats, *, have_usage: bool) -> None:
    """Exact per-request figures from counter deltas (one slot, so the delta is this request)."""
    delta = after - before
    if delta.acceptance_length is not None:
        stats.acceptance_length = delta.acceptance_length
        stats.acceptance_source = "metrics"
    processed = after.prompt_tokens - before.prompt_tokens
    cached = after.prompt_tokens_cached - before.prompt_tokens_cached
    if not have_usage and processed + cached > 0:  # stream closed at the fence: no usage chunk
        stats.prompt_tokens = int(processed + cached)
        stats.cached_tokens = int(cached)
    if not have_usage and delta.generated > 0:
        stats.completion_tokens = int(delta.generated)


def _metrics(api: Any, wait_for: SpecStats | None = None, final_seen: bool = True) -> SpecStats | None:
    """A /metrics snapshot, or None when the server exports no metrics (no ``--metrics``).

    llama.cpp moves its counters when a request finishes; after a cancelled stream
    the slot may still be releasing, so wait briefly for ``generated`` to move.
    """
    deadline = time.monotonic() + (0.2 if final_seen else 1.5)
    while True:
        try:
            snap: SpecStats | None = api.metrics()
        except CoderError:
            return None
        if snap is None or snap.engine is None:
            return None  # not a Prometheus page coder understands
        if wait_for is None or snap.generated > wait_for.generated or time.monotonic() >= deadline:
            return snap
        time.sleep(0.05)


def _server_ctx(server: ServerInfo) -> int | None:
    try:
        with server.api() as api:
            resp = api.get("/props")
            if resp.status_code == 200:
                props = resp.json()
                ctx = props.get("n_ctx") or props.get("default_generation_settings", {}).get("n_ctx")
                if ctx:
                    return int(ctx)
            slots = api.slots()
            if slots and slots[0].get("n_ctx"):
                return int(slots[0]["n_ctx"])
    except (CoderError, ValueError):
        return None
    return None
