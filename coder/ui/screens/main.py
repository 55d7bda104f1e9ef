"""The main screen: transcript, prompt, speculation panel and backend bar, driven by the headless EditSession.

Everything that reads files, runs git or talks to the server happens in the
:class:`~coder.session.edit_session.EditSession` on thread workers; this screen shows what the
session reports (``@on`` handlers of :mod:`coder.ui.session_link` messages) and forwards keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import Worker

from coder.session import events as ev
from coder.ui import session_link as sl
from coder.ui.screens import messages as sm
from coder.ui.screens.host import ScreenHost, host
from coder.ui.widgets.conversation.prompt import PromptInput
from coder.ui.widgets.conversation.transcript import Transcript
from coder.ui.widgets.speculation.panel import SpecPanel
from coder.ui.widgets.status.backend_bar import BackendBar
from coder.ui.widgets.status.footer import KeyFooter

if TYPE_CHECKING:
    from coder.backends.runtime.server import ServerInfo
    from coder.session.edit_session import EditSession

MIN_WIDTH, MIN_HEIGHT = 60, 12
TYPING_PAUSE = 0.4  # s without a keystroke before the region an instruction names is warmed


class MainScreen(Screen[None]):
    """The conversation with the model, and the live figures of the request in flight."""

    CSS_PATH = "main.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop_reply", "stop reply"),
        Binding("ctrl+b", "app.backend", "backend"),
        Binding("ctrl+t", "app.next_theme", "theme"),
        Binding("ctrl+l", "clear", "clear"),
    ]

    def __init__(self, edit: EditSession) -> None:
        super().__init__()
        self.edit = edit
        self._typing: Timer | None = None

    @property
    def capp(self) -> ScreenHost:
        """What this screen reads of the app (requests go as :mod:`~coder.ui.screens.messages`)."""
        return host(self.app)

    def compose(self) -> ComposeResult:
        """Transcript and prompt on the left, the speculation panel on the right, the backend bar below."""
        with Horizontal(id="body"):
            with Vertical(id="conversation"):
                yield Transcript(id="transcript")
                yield Static("", id="mentions")
                yield PromptInput(id="prompt", placeholder="Ask for an edit (add files with @path) or /help")
            yield SpecPanel(id="spec")
        yield Static("", id="too-small")
        yield BackendBar(id="backend-bar")
        yield KeyFooter()

    @property
    def transcript(self) -> Transcript:
        """The conversation widget."""
        return self.query_one(Transcript)

    @property
    def prompt(self) -> PromptInput:
        """The message input."""
        return self.query_one(PromptInput)

    @property
    def spec(self) -> SpecPanel:
        """The speculation panel."""
        return self.query_one(SpecPanel)

    def on_mount(self) -> None:
        """Show a resumed conversation, follow the backend, start the background loads."""
        conversation = self.edit.conversation
        for turn in conversation.turns:
            self.transcript.add_message(turn.role if turn.role != "system" else "note", turn.content)
        if conversation.turns:
            self.note(f"Resumed conversation {conversation.id}.")
        self._show_context(self.edit.context_event())
        self.watch(self.app, "server", self._server_changed)
        self.prompt.focus()
        # the background loads (git and the edit engine, lexers, the cache warm-up) start once the
        # screen has painted: their threads would hold the interpreter the first paint needs
        self.call_after_refresh(self._background_loads)

    def _background_loads(self) -> None:
        self.list_files()
        self.preload_lexers()
        self.warm_cache()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """This screen's workers: failures go to the app's one handler."""
        self.app.post_message(sm.WorkerFailed(event.worker))

    def note(self, text: str) -> None:
        """A notice in the transcript."""
        self.transcript.add_message("note", text)

    def _show_context(self, event: ev.ContextChanged) -> None:
        files = ", ".join(event.files) if event.files else "none (add with @path or /add)"
        k = event.k if event.k is not None else "auto"
        self.prompt.border_title = f"context: {files} · mode {event.mode} · k {k}"

    def on_resize(self) -> None:
        """Below the minimum size, say so instead of drawing a broken layout."""
        small = self.size.width < MIN_WIDTH or self.size.height < MIN_HEIGHT
        self.set_class(small, "-too-small")
        if small:
            self.query_one("#too-small", Static).update(
                f"The terminal is {self.size.width}×{self.size.height}; coder needs at least "
                f"{MIN_WIDTH}×{MIN_HEIGHT}. Enlarge the window to continue.")

    def _server_changed(self, old: ServerInfo | None, info: ServerInfo | None) -> None:
        """The app's live server changed (start, attach, stop, or a restart for k): follow it."""
        app = self.capp
        self.query_one(BackendBar).show(info, "" if info or app.backend_checked else "checking…")
        if old is not None and info is not None and old is not info:
            self.note(f"Backend restarted: now {info.url} (k {info.k}); {info.verdict}")
        elif old is not None and info is None:
            self.note("The backend is gone (stopped, or a restart did not finish).")
        elif old is None and info is not None and app.backend_checked:
            self.note(f"Backend ready: {info.verdict}")

    # ---- workers: the session's blocking calls -------------------------------------------------

    @work(thread=True, exclusive=True, group="files", exit_on_error=False, description="listing files")
    def list_files(self) -> None:
        """Tracked files for @-completion (git)."""
        self.edit.load_files()

    @work(thread=True, group="lexers", exit_on_error=False, description="loading syntax lexers")
    def preload_lexers(self) -> None:
        """Compile the common lexers off the UI thread: the first code block would stall ~0.2 s."""
        from coder.ui.widgets.conversation.highlight import lexer_for

        for lang in ("python", "diff", "bash", "javascript"):
            lexer = lexer_for(lang)
            if lexer is not None:
                list(lexer.get_tokens("x = 1\n"))

    @work(thread=True, group="cache", exit_on_error=False, description="prompt-cache warm-up")
    def warm_cache(self) -> None:
        """Warm the server's prompt cache for a resumed conversation's files (reads them, builds the prefix)."""
        self.edit.warm_context()

    @work(thread=True, exclusive=True, group="typing", exit_on_error=False, description="region warm-up")
    def typed(self, text: str) -> None:
        """The user paused typing: warm the prompt of the region the instruction names (reads the file)."""
        self.edit.typing(text)

    @work(thread=True, group="session", exit_on_error=False, description="message or command")
    def submit(self, text: str) -> None:
        """Hand one typed line to the session (mentions read files; requests stream)."""
        self.edit.submit(text)

    @work(thread=True, group="session", exit_on_error=False, description="review verdict")
    def decide(self, accept: bool) -> None:
        """Apply (git commit) or drop the reviewed edit, then go on with the queue."""
        self.edit.decide(accept)

    # ---- input ---------------------------------------------------------------------------------

    @on(Input.Changed, "#prompt")
    def _changed(self, event: Input.Changed) -> None:
        # debounced: one warm-up per pause in typing, not one per keystroke
        if self._typing is not None:
            self._typing.stop()
        value = event.value
        self._typing = self.set_timer(TYPING_PAUSE, lambda: self.typed(value)) if value.strip() else None

    @on(Input.Submitted, "#prompt")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        self.prompt.value = ""
        self.query_one("#mentions", Static).display = False
        if text:
            self.submit(text)

    def run_command(self, text: str) -> None:
        """Run a slash command (from the prompt or the command palette)."""
        self.submit(text)

    def action_clear(self) -> None:
        """ctrl+l: clear the conversation."""
        self.submit("/clear")

    def action_stop_reply(self) -> None:
        """escape: stop the reply or the restart in flight."""
        self.edit.cancel()  # sets an Event: no I/O on this thread

    @on(PromptInput.Matches)
    def _show_matches(self, message: PromptInput.Matches) -> None:
        menu = self.query_one("#mentions", Static)
        menu.display = message.token is not None
        if message.token is None:
            return
        menu.update("tab → " + "  ·  ".join(message.matches[:6]) if message.matches
                    else f"no tracked file matches @{message.token}")

    # ---- what the session reports --------------------------------------------------------------

    @on(sl.Noted)
    def _noted(self, message: sl.Noted) -> None:
        self.transcript.add_message(message.event.kind, message.event.text)

    @on(sl.UserSaid)
    def _user_said(self, message: sl.UserSaid) -> None:
        self.transcript.add_message("user", message.event.text)

    @on(sl.ContextChanged)
    def _context_changed(self, message: sl.ContextChanged) -> None:
        self._show_context(message.event)

    @on(sl.FilesListed)
    def _files_listed(self, message: sl.FilesListed) -> None:
        self.prompt.files = list(message.event.files)

    @on(sl.Cleared)
    def _cleared(self, message: sl.Cleared) -> None:
        self.transcript.clear()

    @on(sl.RequestStarted)
    def _request_started(self, message: sl.RequestStarted) -> None:
        _freeze_startup_heap()
        self.note(message.event.title)
        self.transcript.begin_stream()
        self.spec.start(message.event.info)

    @on(sl.StreamBatch)
    def _stream_batch(self, message: sl.StreamBatch) -> None:
        batch = message.event.batch
        self.transcript.append(batch.text)
        self.spec.update_live(batch.live)
        if batch.shown is not None:  # on screen after the paint: the feed may send the next batch
            self.transcript.call_after_paint(batch.shown)
        probe = self.capp.lag_probe
        if probe is not None:
            probe.appended(batch)
            self.transcript.call_after_paint(probe.visible, batch)

    @on(sl.PrefillUpdate)
    def _prefill(self, message: sl.PrefillUpdate) -> None:
        self.spec.show_prefill(message.event.view)

    @on(sl.CacheChanged)
    def _cache(self, message: sl.CacheChanged) -> None:
        self.spec.show_cache(message.event.state)

    @on(sl.RequestFinished)
    def _request_finished(self, message: sl.RequestFinished) -> None:
        self.transcript.end_stream()
        self.spec.finish(message.event.final)
        probe = self.capp.lag_probe
        if probe is not None:
            self.call_after_refresh(probe.finished)

    @on(sl.RequestFailed)
    def _request_failed(self, message: sl.RequestFailed) -> None:
        self.transcript.end_stream()
        self.spec.stop()
        self.transcript.add_message("error", message.event.error)

    @on(sl.RequestStopped)
    def _request_stopped(self, message: sl.RequestStopped) -> None:
        self.transcript.end_stream()
        self.spec.stop()
        self.note("Stopped; nothing was applied.")

    @on(sl.ReviewRequested)
    def _review(self, message: sl.ReviewRequested) -> None:
        from coder.ui.screens.review import ReviewScreen

        proposal = message.event.proposal

        def decided(accept: bool | None) -> None:
            self.decide(bool(accept))

        from coder.edit.run.plan_result import PlanProposal, PlanScope
        from coder.textsafe import added_hidden

        scope = proposal.scope
        lines = [scope.refusal()] if scope is not None and not scope.ok else []
        if not isinstance(scope, PlanScope) and scope is not None and (left := scope.dropped_note()):
            lines.append(left)  # what coder took out of the reply before judging it
        parts = proposal.files if isinstance(proposal, PlanProposal) else [proposal]
        if hidden := [h for p in parts for h in added_hidden(p.request.snapshot.text, p.new)]:  # <U+XXXX> in the diff
            lines.append(f"adds invisible or control code points: {', '.join(hidden[:6])}")
        self.app.push_screen(ReviewScreen(proposal.diff, proposal.rel, reviewing=True,
                                          flagged=scope.hunk_flags(proposal.diff) if scope else None,
                                          unexplained="; ".join(lines),
                                          checked="; ".join(c.line() for c in proposal.checks)), decided)

    @on(sl.DiffReady)
    def _diff(self, message: sl.DiffReady) -> None:
        from coder.ui.screens.review import ReviewScreen

        self.app.push_screen(ReviewScreen(message.event.diff, "", reviewing=False))

    @on(sl.FrontEndCommand)
    def _front_end_command(self, message: sl.FrontEndCommand) -> None:
        name, args = message.event.name, message.event.args
        if name == "backend":
            self.app.post_message(sm.ShowBackend())
        elif name == "theme":
            self.app.post_message(sm.ThemeCommand(list(args)))


def _freeze_startup_heap() -> None:
    """Once per process, at the first request: what exists then (modules, the app) is never collected.

    A full collection walked all of it mid-stream, 0.1-0.2 s with the screen frozen every few seconds
    at 1,000 tok/s (the display lag's p95); frozen, one walks only what was made since (~0.01-0.08 s).
    Only in a process the ``coder`` command owns (a test's process keeps its collector as it is).
    """
    import gc

    import coder

    if coder.WHOLE_PROCESS and not gc.get_freeze_count():
        gc.freeze()
