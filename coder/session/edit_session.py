"""The headless edit session: the request queue and its state machine, mentions, slash commands, context.

One :class:`EditSession` sits between a front end (the TUI, a test) and the core. The front end
calls :meth:`EditSession.submit`, :meth:`~EditSession.decide` and :meth:`~EditSession.cancel`
from worker threads (they read files, run git and stream from the server; none of it may run on
a UI thread) and shows the :mod:`coder.session.events` it receives through ``emit``.

States: ``idle`` → ``streaming`` (a chat reply, or one edit per context file in turn) → ``reviewing``
(a changed edit waits for :meth:`decide`) → ``streaming`` (the next file) … → ``idle``. Escape is
:meth:`cancel`: it stops the stream, or the restart the request's k needed, and drops the queue.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from coder import conversations
from coder.edit.run.warmup.context import ContextWarmer
from coder.errors import CoderError
from coder.session import context, streams
from coder.session import events as ev
from coder.session.feed import Batch, FinalStats, LiveFeed
from coder.session.slash import SlashCommands

if TYPE_CHECKING:
    from coder.backends.runtime.handle import BackendHandle
    from coder.backends.runtime.server import ServerInfo
    from coder.config import Profile
    from coder.edit.checks.user_commands import UserCommand
    from coder.edit.proposal import EditProposal
    from coder.edit.run.engine import EditEngine
    from coder.edit.run.plan_result import PlanProposal, PlanRequest
    from coder.kchoice import KChoice

Emit = Callable[[ev.Event], None]


class Stopped(Exception):
    """Raised inside a request when :meth:`EditSession.cancel` was called."""


class EditSession:
    """Queue, state machine, mentions, slash commands and context of one conversation (no UI)."""

    def __init__(self, repo_root: Path, conversation: conversations.Conversation, backend: BackendHandle, emit: Emit, *,
                 chat_max_tokens: int = 1024, snapshot_dirty: bool = True,
                 persist: bool = True, warm_up: str = "managed", checks: Sequence[UserCommand] = (),
                 checks_not_run: str = "") -> None:
        self.repo_root = repo_root
        self.checks = tuple(checks)  # the user's test/lint commands, run on each proposal before review
        self.checks_not_run = checks_not_run  # an untrusted repository's commands: the engine says it once
        self.conversation = conversation
        self.backend = backend
        self.emit = emit
        self.commands = SlashCommands(self)  # the slash commands act on this session
        self.chat_max_tokens = chat_max_tokens
        self.snapshot_dirty = snapshot_dirty
        self.persist = persist  # write state: the session file, the k controller's statistics
        self.files: list[str] = []
        self.baseline_tps: float | None = None
        self._state: ev.State = "idle"
        self._queue: list[str] = []
        self._instruction = ""
        self._pending: EditProposal | PlanProposal | None = None
        self._cancel = threading.Event()
        self._lock = threading.RLock()
        self._busy = threading.Lock()  # held while a message or a review verdict is being carried out
        self._engine: EditEngine | None = None
        # prompt-cache warm-up of the context files (needs the engine: built on first use, in a worker)
        self.warm = ContextWarmer(repo_root, lambda: self.engine().repo_context, lambda: self.engine().prompt_cache,
                                  lambda state: self.emit(ev.CacheChanged(state)), setting=warm_up)
        backend.subscribe(self._backend_changed)
        if conversation.k_override is not None:  # a resumed conversation keeps its /k
            with contextlib.suppress(CoderError):
                backend.pin(conversation.k_override)

    @property
    def profile(self) -> Profile | None:
        """The backend handle's profile: the running server's, else the configured one."""
        return self.backend.profile

    # ---- state ---------------------------------------------------------------------------------

    @property
    def state(self) -> ev.State:
        """``idle``, ``streaming`` or ``reviewing``."""
        return self._state

    def _set_state(self, state: ev.State) -> None:
        with self._lock:
            changed = state != self._state
            self._state = state
        if changed:
            self.emit(ev.StateChanged(state))

    def recover(self) -> None:
        """After an unexpected failure in a request: drop the queue and any review, back to idle."""
        with self._lock:
            self._queue.clear()
            self._pending = None
        self._set_state("idle")

    def save(self) -> None:
        """Persist the conversation (a failure is reported, never raised)."""
        if not self.persist:
            return
        try:
            conversations.save(self.conversation)
        except (OSError, CoderError) as exc:
            self.emit(ev.Note(f"Could not save the conversation: {exc}", "error"))

    def context_changed(self) -> None:
        """The context changed: tell the front end and warm the cache for it (call from a worker)."""
        self.emit(self.context_event())
        self.warm.context_changed(self.conversation.context_files)

    def warm_context(self) -> None:
        """Warm the cache for the current backend and context (a resumed conversation; call from a worker)."""
        self.warm.follow(self.backend.info)
        self.warm.context_changed(self.conversation.context_files)

    def typing(self, text: str) -> None:
        """The prompt now reads ``text``: warm the region it names, if any (call from a worker)."""
        if self._state == "idle" and not text.lstrip().startswith(("/", "?")):
            self.warm.instruction_typed(context.strip_mentions(text), self.conversation.mode)

    def context_event(self) -> ev.ContextChanged:
        """The current context files, mode and k override."""
        s = self.conversation
        return ev.ContextChanged(tuple(s.context_files), s.mode, s.k_override)

    def load_files(self) -> list[str]:
        """List the repository's files for completion (git: call from a worker)."""
        import git

        try:
            files = context.tracked_files(self.repo_root)
        except (OSError, ValueError, git.GitError) as exc:  # completion just stays empty
            self.emit(ev.Note(f"Could not list the repository's files: {exc}", "error"))
            return []
        self.files = files
        self.emit(ev.FilesListed(tuple(files)))
        return files

    # ---- input ---------------------------------------------------------------------------------

    def submit(self, text: str) -> None:
        """One line the user typed: a slash command, or a message (mentions first, then a request)."""
        text = text.strip()
        if not text:
            return
        if text.startswith("/"):
            self.commands.run_command(text)
            return
        if self._state != "idle" or not self._busy.acquire(blocking=False):
            what = "An edit waits for review" if self._state == "reviewing" else "A reply is still streaming"
            self.emit(ev.Note(f"{what}; press escape to stop it first."))
            return
        try:
            self._message(text)
        finally:
            self._busy.release()

    def _message(self, text: str) -> None:
        tokens = context.mentions(text)
        if tokens:
            result = context.check_mentions(self.repo_root, tokens, self.files)
            for reason in result.refused:
                self.emit(ev.Note(reason, "error"))
            for rel in result.added:
                if self.conversation.add_file(rel):
                    self.emit(ev.Note(f"Added {rel} to the context."))
            self.context_changed()
            text = context.strip_mentions(text).strip()
            if result.refused:
                self.emit(ev.Note("Nothing was sent; fix the mention and try again."))
                return
            if not text or all(text == rel for rel in result.added):
                self.save()
                return
        self.emit(ev.UserSaid(text))
        self.conversation.add_turn("user", text)
        self.save()
        if self.backend.info is None:
            start = f"the {self.profile.name!r} profile" if self.profile is not None else "a profile"
            self.emit(ev.Note("No backend is running, so nothing was sent. Press ctrl+b (or /backend) to start "
                              f"{start} or attach to a server; your message is kept in the session.", "error"))
            return
        self._cancel.clear()
        if self.conversation.context_files and not text.startswith("?"):
            with self._lock:
                self._instruction = text
                self._queue = list(self.conversation.context_files)
            self._next_edit()
        else:
            self._chat(text.lstrip("?").strip())

    def cancel(self) -> bool:
        """Stop the request in flight (or the restart it waits for) and drop the queue; any thread.

        Returns True when something was running.
        """
        with self._lock:
            busy = self._state == "streaming"
            if busy:
                self._cancel.set()
                self._queue.clear()
        return busy

    def decide(self, accept: bool) -> None:
        """The user's verdict on the edit under review: apply and commit it, or drop it; then go on."""
        with self._lock:
            proposal, self._pending = self._pending, None
        if proposal is None:
            return
        with self._busy:
            self._decided(proposal, accept)

    def _decided(self, proposal: EditProposal | PlanProposal, accept: bool) -> None:
        if accept:
            try:
                result = streams.apply_proposal(self.engine(), proposal)
            except CoderError as exc:
                self.emit(ev.Note(f"Not applied: {exc}", "error"))
            else:
                notes = "; ".join(result.notes)
                self.emit(ev.Note(f"Applied {result.path}. {notes}".strip()))
                self.warm.context_changed(self.conversation.context_files)  # the file changed: its prefix too
        else:
            self.emit(ev.Note(f"Rejected the edit of {proposal.rel}; the file is untouched."))
        self._next_edit()

    # ---- the core, built lazily on the worker thread ---------------------------------------------

    def engine(self) -> EditEngine:
        """The edit engine (one per session, so consecutive edits share a cached prompt prefix)."""
        if self._engine is None:
            from coder.edit.run.engine import EditEngine

            self._engine = EditEngine(self.backend, self.repo_root, snapshot_dirty=self.snapshot_dirty,
                                      checks=self.checks, checks_not_run=self.checks_not_run)
        return self._engine

    def _backend_changed(self, info: ServerInfo | None) -> None:
        """BackendHandle listener: a new server's prompt cache is cold (the handle re-points the k policy)."""
        self.warm.follow(info)

    def set_k(self, k: int | None) -> None:
        """Pin k for every request (None: back to the per-class choice); raises CoderError when invalid."""
        self.backend.pin(k)  # validates against the server
        self.conversation.k_override = k
        self.save()

    # ---- requests --------------------------------------------------------------------------------

    def _feed(self) -> LiveFeed:
        def post(batch: Batch) -> None:
            self.emit(ev.StreamBatch(batch))

        return LiveFeed(post)

    def _check(self) -> None:
        if self._cancel.is_set():
            raise Stopped

    def _chat(self, question: str) -> None:
        self._set_state("streaming")
        try:
            self._chat_request(question)
        except Stopped:
            self.emit(ev.RequestStopped())
        except CoderError as exc:
            self.emit(ev.RequestFailed(str(exc)))
        finally:
            self._set_state("idle")

    def _chat_request(self, question: str) -> None:
        from coder.backends.runtime.request import RequestCancelled, run_request

        choice = self.backend.decide("fresh")
        self._restart_note(choice)
        info = self.backend.info
        k = choice.k if choice.k is not None else (info.k if info else None)
        self.emit(ev.RequestStarted(ev.RequestInfo("fresh", "chat", k, choice.reason, self.baseline_tps), "chat"))
        feed = self._feed()
        messages = streams.chat_messages(self.repo_root, self.conversation, question)
        try:
            outcome = run_request(self.backend, messages, choice, max_tokens=self.chat_max_tokens, tap=feed.push,
                                  cancel=self._cancel)
        except RequestCancelled:
            raise Stopped from None
        finally:
            feed.flush()
        if not outcome.answered:
            raise CoderError("the reply stream ended without a result")
        self._finished(FinalStats(outcome.stats, outcome.delta), outcome.text)

    def _restart_note(self, choice: KChoice) -> None:
        if choice.via == "restart":
            self.emit(ev.Note(f"Restarting the backend at k={choice.k} ({choice.reason}); escape cancels."))

    def _finished(self, final: FinalStats, text: str) -> None:
        self.conversation.add_turn("assistant", text)
        self.save()
        self.emit(ev.RequestFinished(final, text))

    def _next_edit(self) -> None:
        with self._lock:
            rel = self._queue.pop(0) if self._queue else None
        if rel is None:
            self._set_state("idle")
            return
        self._set_state("streaming")
        try:
            proposal = self._edit(rel, self._instruction, self.conversation.mode)
        except Stopped:
            self.emit(ev.RequestStopped())
            self._queue.clear()
            self._set_state("idle")
            return
        except CoderError as exc:
            # escape during a k restart cancels it inside the engine: that is a stop, not a failure
            self.emit(ev.RequestStopped() if self._cancel.is_set() else ev.RequestFailed(str(exc)))
            self._queue.clear()
            self._set_state("idle")
            return
        for line in streams.retry_notes(proposal):  # asked once more, and sampled (a plan's: its review lines)
            self.emit(ev.Note(line))
        if proposal.checks_not_run:
            self.emit(ev.Note(proposal.checks_not_run))
        for line in getattr(proposal, "examples", ()):  # a fix's examples, run before and after (checks.behaviour)
            self.emit(ev.Note(line))
        if not proposal.ok:
            self.emit(ev.Note(f"Edit of {proposal.rel} refused, nothing written: {proposal.refusal}", "error"))
        elif not proposal.changed:
            self.emit(ev.Note(f"The model left {proposal.rel} unchanged; nothing to review."))
        else:
            with self._lock:
                self._pending = proposal
            self._set_state("reviewing")
            self.emit(ev.ReviewRequested(proposal))
            return
        self._next_edit()

    def _edit(self, rel: str, instruction: str, mode: str) -> EditProposal | PlanProposal:
        from coder.edit.proposal import EditProposal, EditRequest

        engine = self.engine()
        symbol = None
        if mode == "region":
            symbol = streams.mentioned_symbol(self.repo_root, rel, instruction)
            if symbol is None:
                raise CoderError(f"/mode region: name a function or class of {rel} in your message "
                                 "(or use /mode auto)")
        request = (engine.prepare(self.repo_root / rel, instruction, mode="region", symbol=symbol) if symbol
                   else streams.prepare_plan(engine, self.repo_root, [rel, *self._queue], instruction, mode))
        if not isinstance(request, EditRequest):  # a plan: its other context files are part of this review
            with self._lock:
                self._queue = [q for q in self._queue if q not in request.plan.files]
            return self._plan(request)
        self._restart_note(request.k)  # the engine applies it (a restart runs there; escape cancels it)
        if request.prompt.target.strip() and (notice := engine.prediction_notice()):
            self.emit(ev.Note(notice))  # said once per session: the engine lives as long as it
        title = f"edit {rel} ({request.mode}: {request.mode_reason})"
        self.emit(ev.RequestStarted(ev.RequestInfo(request.request_class, mode, request.k.k, request.k.reason,
                                                   self.baseline_tps), title))
        feed = self._feed()
        proposal: EditProposal | None = None
        self.warm.before_edit(request.messages)  # a warm-up of this prompt's prefix is awaited, others stop
        events = engine.run(request, cancel=self._cancel, on_chunk=feed.push)
        try:
            for event in events:
                self._check()
                if isinstance(event, EditProposal):
                    proposal = event
                elif event.prefill is not None and event.ttft is None:
                    self.emit(ev.PrefillUpdate(event.prefill))
                else:  # a snapshot: at most every 0.1 s, and one when the stream ends, before validation
                    feed.flush()
        finally:
            close = getattr(events, "close", None)  # a generator: closing cancels the server request
            if close is not None:
                close()
            feed.flush()
            self.warm.after_edit(request.messages)
        self._check()
        if proposal is None:
            raise CoderError("the edit stream ended without a result; nothing was changed")
        self._finished(FinalStats(proposal.stats, proposal.spec), proposal.reply)
        return proposal

    def _plan(self, prepared: PlanRequest) -> PlanProposal:
        proposal = streams.run_plan(self.engine(), prepared, self._cancel, self.emit, self._check, self.baseline_tps)
        self._finished(FinalStats(proposal.stats, None), "")
        return proposal
