"""The main screen: transcript, prompt, speculation panel and backend bar; commands and requests."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import get_current_worker

from coder.errors import CoderError
from coder.telemetry.stream import StreamResult
from coder.ui import commands, context
from coder.ui.messages import (
    BackendChanged,
    EditProposed,
    FilesListed,
    Notice,
    ReplyBatch,
    ReplyFailed,
    ReplyFinished,
    ReplyStarted,
)
from coder.ui.streaming import Batch, FinalStats, LiveFeed, pump
from coder.ui.widgets.conversation.prompt import PromptInput
from coder.ui.widgets.conversation.transcript import Transcript
from coder.ui.widgets.spec.panel import RequestInfo, SpecPanel
from coder.ui.widgets.status.backend_bar import BackendBar

if TYPE_CHECKING:
    from coder.telemetry.metrics import SpecStats
    from coder.ui.app import CoderApp

CHAT_SYSTEM = ("You are a concise coding assistant working in the user's repository. Answer the question; "
               "show code in fenced blocks with a language tag.")
MIN_WIDTH, MIN_HEIGHT = 60, 12


class MainScreen(Screen[None]):
    CSS_PATH = "main.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop_reply", "stop reply"),
        Binding("ctrl+b", "app.backend", "backend"),
        Binding("ctrl+t", "app.next_theme", "theme"),
        Binding("ctrl+l", "clear", "clear"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.files: list[str] = []
        self._edit_queue: list[str] = []
        self._prediction_noted = False  # "edits go without a prediction" is said once per session
        self._instruction = ""
        self._streaming = False
        self._reviewing = False

    @property
    def capp(self) -> CoderApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            with Vertical(id="conversation"):
                yield Transcript(id="transcript")
                yield Static("", id="mentions")
                yield PromptInput(id="prompt", placeholder="Ask for an edit (add files with @path) or /help")
            yield SpecPanel(id="spec")
        yield Static("", id="too-small")
        yield BackendBar(id="backend-bar")
        yield Footer()

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def spec(self) -> SpecPanel:
        return self.query_one(SpecPanel)

    def on_mount(self) -> None:
        app = self.capp
        session = app.session
        for turn in session.turns:
            self.transcript.add_message(turn.role if turn.role != "system" else "note", turn.content)
        if session.turns:
            self.note(f"Resumed session {session.id}.")
        self._show_context()
        if app.server is None and app.chat_source is not None:
            self.query_one(BackendBar).update(" recorded replies (test double) ")
        else:
            self.query_one(BackendBar).show(app.server, "" if app.server else "checking…")
        self.prompt.focus()
        self.list_files()
        self.warm_up()

    # ---- small helpers ---------------------------------------------------------------------

    def note(self, text: str) -> None:
        self.transcript.add_message("note", text)

    def error(self, text: str) -> None:
        self.transcript.add_message("error", text)

    def _show_context(self) -> None:
        s = self.capp.session
        files = ", ".join(s.context_files) if s.context_files else "none (add with @path or /add)"
        k = s.k_override if s.k_override is not None else "auto"
        self.prompt.border_title = f"context: {files} · mode {s.mode} · k {k}"

    def on_resize(self) -> None:
        small = self.size.width < MIN_WIDTH or self.size.height < MIN_HEIGHT
        self.set_class(small, "-too-small")
        if small:
            self.query_one("#too-small", Static).update(
                f"The terminal is {self.size.width}×{self.size.height}; coder needs at least "
                f"{MIN_WIDTH}×{MIN_HEIGHT}. Enlarge the window to continue.")

    # ---- files and mentions ----------------------------------------------------------------

    @work(thread=True, exclusive=True, group="files", exit_on_error=False, description="listing files")
    def list_files(self) -> None:
        try:
            files = context.tracked_files(self.capp.repo_root)
        except Exception as exc:  # git missing or broken repo: completion just stays empty
            self.post_message(Notice(f"Could not list the repository's files: {exc}", "error"))
            return
        self.post_message(FilesListed(files))

    @work(thread=True, group="warm-up", exit_on_error=False, description="warming up")
    def warm_up(self) -> None:
        """Compile the common lexers off the UI thread: the first code block would stall ~0.2 s."""
        from coder.ui.widgets.conversation.highlight import lexer_for

        for lang in ("python", "diff", "bash", "javascript"):
            lexer = lexer_for(lang)
            if lexer is not None:
                list(lexer.get_tokens("x = 1\n"))

    @on(FilesListed)
    def _files_listed(self, message: FilesListed) -> None:
        self.files = message.files
        self.prompt.files = message.files

    @on(PromptInput.Matches)
    def _show_matches(self, message: PromptInput.Matches) -> None:
        menu = self.query_one("#mentions", Static)
        if message.token is None:
            menu.display = False
            return
        menu.display = True
        if message.matches:
            menu.update("tab → " + "  ·  ".join(message.matches[:6]))
        else:
            menu.update(f"no tracked file matches @{message.token}")

    @on(Notice)
    def _notice(self, message: Notice) -> None:
        self.transcript.add_message(message.kind, message.text)

    # ---- input -----------------------------------------------------------------------------

    @on(Input.Submitted, "#prompt")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        self.prompt.value = ""
        self.query_one("#mentions", Static).display = False
        if not text:
            return
        if text.startswith("/"):
            self.run_command(text)
            return
        if self._streaming:
            self.note("A reply is still streaming; press escape to stop it first.")
            return
        self.submit_message(text)

    def run_command(self, text: str) -> None:
        try:
            cmd = commands.parse(text)
        except commands.CommandError as exc:
            self.error(str(exc))
            return
        handler = getattr(self, f"cmd_{cmd.name}")
        handler(cmd.args)

    def submit_message(self, text: str) -> None:
        app = self.capp
        tokens = context.mentions(text)
        if tokens:
            result = context.check_mentions(app.repo_root, tokens, self.files)
            for reason in result.refused:
                self.error(reason)
            for rel in result.added:
                if app.session.add_file(rel):
                    self.note(f"Added {rel} to the context.")
            self._show_context()
            text = context.strip_mentions(text).strip()
            if result.refused:
                self.note("Nothing was sent; fix the mention and try again.")
                return
            if not text or all(text.strip() == t.strip() for t in result.added):
                app.save_session()
                return
        self.transcript.add_message("user", text)
        app.session.add_turn("user", text)
        app.save_session()
        if app.server is None and app.chat_source is None:
            self.error("No backend is running, so nothing was sent. Press ctrl+b (or /backend) to start the "
                       f"{app.profile.name!r} profile or attach to a server; your message is kept in the session.")
            return
        question = text.startswith("?")
        if app.session.context_files and not question:
            self._instruction = text
            self._edit_queue = list(app.session.context_files)
            self._next_edit()
        else:
            self._streaming = True
            self.chat_reply(text.lstrip("?").strip())

    # ---- commands --------------------------------------------------------------------------

    def cmd_help(self, args: list[str]) -> None:
        self.note(commands.help_text())

    def cmd_add(self, args: list[str]) -> None:
        app = self.capp
        result = context.check_mentions(app.repo_root, [a.lstrip("@") for a in args], self.files)
        for reason in result.refused:
            self.error(reason)
        for rel in result.added:
            self.note(f"Added {rel} to the context." if app.session.add_file(rel) else f"{rel} is already there.")
        app.save_session()
        self._show_context()

    def cmd_drop(self, args: list[str]) -> None:
        session = self.capp.session
        targets = [a.lstrip("@") for a in args] or list(session.context_files)
        for rel in targets:
            name = context.resolve_mention(rel, session.context_files)
            if session.drop_file(name):
                self.note(f"Dropped {name}.")
            else:
                self.error(f"{rel} is not in the context.")
        if not targets:
            self.note("The context is already empty.")
        self.capp.save_session()
        self._show_context()

    def cmd_mode(self, args: list[str]) -> None:
        self.capp.session.mode = args[0]
        self.capp.save_session()
        self.note(f"Edit mode: {args[0]}.")
        self._show_context()

    def cmd_k(self, args: list[str]) -> None:
        session = self.capp.session
        if not args:
            current = session.k_override if session.k_override is not None else "auto (per request class)"
            self.note(f"k: {current}. /k N pins it, /k auto returns to coder's choice.")
            return
        value = None if args[0] == "auto" else int(args[0])
        try:
            self.capp.set_k_override(value)
        except CoderError as exc:
            self.error(str(exc))
            return
        self.note("k: auto (per request class)." if value is None else f"k pinned to {value} for every request.")
        self._show_context()

    def cmd_undo(self, args: list[str]) -> None:
        self.undo_edit()

    def cmd_diff(self, args: list[str]) -> None:
        self.show_diff()

    def cmd_backend(self, args: list[str]) -> None:
        self.capp.action_backend()

    def cmd_bench(self, args: list[str]) -> None:
        profile = self.capp.profile.name
        self.note(f"Benchmarks run outside the TUI: `coder bench --profile {profile}` (or --quick). Its JSON "
                  "gives this panel a baseline tok/s for the 'ideal' line.")

    def cmd_theme(self, args: list[str]) -> None:
        app = self.capp
        if not args:
            names = ", ".join(sorted(app.available_themes))
            self.note(f"Theme: {app.theme}. Available: {names}.")
            return
        error = app.switch_theme(args[0])
        if error:
            self.error(error)
        else:
            self.note(f"Theme: {args[0]} (saved).")

    def cmd_clear(self, args: list[str]) -> None:
        self.action_clear()

    def action_clear(self) -> None:
        self.capp.session.clear()
        self.capp.save_session()
        self.transcript.clear()
        self.note("Conversation cleared; context files kept.")

    def action_stop_reply(self) -> None:
        if self._streaming:
            self.workers.cancel_group(self, "reply")
            self._edit_queue.clear()
            self.transcript.end_stream()
            self._streaming = False
            self.note("Stopped; nothing was applied.")

    # ---- requests --------------------------------------------------------------------------

    def _feed(self) -> LiveFeed:
        def post(batch: Batch) -> None:
            self.post_message(ReplyBatch(batch))  # thread-safe; the only way back to the UI

        return LiveFeed(post)

    @work(thread=True, exclusive=True, group="reply", exit_on_error=False, description="chat reply")
    def chat_reply(self, question: str) -> None:
        app = self.capp
        worker = get_current_worker()
        try:
            server, policy = app.connect()
            choice = policy.choose("fresh") if policy is not None else None
            k = choice.k if choice is not None else (server.k if server else None)
            reason = choice.reason if choice is not None else "launch k (no policy)"
            self.post_message(ReplyStarted(RequestInfo("fresh", "chat", k, reason, app.baseline_tps), "chat"))
            feed = self._feed()
            messages = self._chat_messages(question)
            scrape = app.chat_source is None  # the recorded-reply test double has no /metrics
            before = _metrics(server) if scrape else None
            stream = app.chat_for(server).stream(
                messages, max_tokens=app.chat_max_tokens, temperature=0.0,
                k_cap=choice.cap if choice is not None else None, cache_prompt=True)
            result = pump(stream, feed, cancelled=lambda: worker.is_cancelled)
            if result is None:
                return
            after = _metrics(server) if scrape else None
            spec = after - before if before is not None and after is not None else None
            if policy is not None and choice is not None:
                policy.observe(choice, result.timings, spec)
            self.post_message(ReplyFinished(FinalStats(result, spec), result.text))
        except CoderError as exc:
            self.post_message(ReplyFailed(str(exc)))

    def _chat_messages(self, question: str) -> list[dict[str, str]]:
        app = self.capp
        system = CHAT_SYSTEM
        for rel, body in context.read_context(app.repo_root, app.session.context_files):
            system += f"\n\nFile {rel}:\n```\n{body}\n```"
        history = app.session.chat_messages()[:-1][-20:]  # the question itself is added below
        return [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]

    def _next_edit(self) -> None:
        if not self._edit_queue:
            self._streaming = False
            return
        self._streaming = True
        self.edit_reply(self._edit_queue.pop(0), self._instruction, self.capp.session.mode)

    @work(thread=True, exclusive=True, group="reply", exit_on_error=False, description="edit reply")
    def edit_reply(self, rel: str, instruction: str, mode: str) -> None:
        from coder.edit.engine import EditProposal

        app = self.capp
        worker = get_current_worker()
        try:
            server, policy = app.connect()
            feed = self._feed()
            engine = app.make_engine(app.tapped(server, feed.push), policy)
            symbol = None
            if mode == "region":
                symbol = _mentioned_symbol(app.repo_root, rel, instruction)
                if symbol is None:
                    raise CoderError(f"/mode region: name a function or class of {rel} in your message "
                                     "(or use /mode auto)")
            request = engine.prepare(app.repo_root / rel, instruction,
                                     mode="region" if symbol else ("full" if mode == "full" else "auto"),
                                     symbol=symbol)
            notice = engine.prediction_notice() if request.prompt.target.strip() else None
            if notice and not self._prediction_noted:
                self._prediction_noted = True
                self.app.call_from_thread(self.note, notice)
            title = f"edit {rel} ({request.mode}: {request.mode_reason})"
            info = RequestInfo(request.request_class, mode, request.k.k, request.k.reason, app.baseline_tps)
            self.post_message(ReplyStarted(info, title))
            proposal = None
            events = engine.run(request)
            try:
                for event in events:
                    if worker.is_cancelled:
                        return
                    if isinstance(event, EditProposal):
                        proposal = event
            finally:
                events.close()
                feed.flush()
            if proposal is None:
                raise CoderError("the edit stream ended without a result; nothing was changed")
            st = proposal.stats
            result = StreamResult(text=proposal.reply, finish_reason=st.finish_reason, ttft=st.ttft, wall=st.wall,
                                  prompt_tokens=st.prompt_tokens, completion_tokens=st.completion_tokens,
                                  cached_tokens=st.cached_tokens, draft_n=st.draft_n,
                                  draft_n_accepted=st.draft_accepted)
            exact = st.acceptance_length if st.acceptance_source == "metrics" else None
            self.post_message(ReplyFinished(FinalStats(result, exact_accept_length=exact), proposal.reply))
            self.post_message(EditProposed(proposal))
        except CoderError as exc:
            self.post_message(ReplyFailed(str(exc)))

    @on(ReplyStarted)
    def _reply_started(self, message: ReplyStarted) -> None:
        self.note(message.title)
        self.transcript.begin_stream()
        self.spec.start(message.info)

    @on(ReplyBatch)
    def _reply_batch(self, message: ReplyBatch) -> None:
        batch = message.batch
        self.transcript.append(batch.text)
        self.spec.update_live(batch.stats)
        probe = self.capp.lag_probe
        if probe is not None:
            probe.appended(batch)
            self.call_after_refresh(probe.visible, batch)

    @on(ReplyFinished)
    def _reply_finished(self, message: ReplyFinished) -> None:
        self.transcript.end_stream()
        self.spec.finish(message.final)
        self.capp.session.add_turn("assistant", message.text)
        self.capp.save_session()
        if not self._edit_queue and not self._reviewing:
            self._streaming = False
        probe = self.capp.lag_probe
        if probe is not None:
            self.call_after_refresh(probe.finished)

    @on(ReplyFailed)
    def _reply_failed(self, message: ReplyFailed) -> None:
        self.transcript.end_stream()
        self.error(message.error)
        self._edit_queue.clear()
        self._streaming = False

    @on(EditProposed)
    def _edit_proposed(self, message: EditProposed) -> None:
        from coder.ui.screens.review import ReviewScreen

        proposal = message.proposal
        if not proposal.ok:
            self.error(f"Edit of {proposal.rel} refused, nothing written: {proposal.refusal}")
            self._next_edit()
            return
        if not proposal.changed:
            self.note(f"The model left {proposal.rel} unchanged; nothing to review.")
            self._next_edit()
            return

        def decided(accept: bool | None) -> None:
            self._reviewing = False
            if accept:
                self.apply_edit(proposal)
            else:
                self.note(f"Rejected the edit of {proposal.rel}; the file is untouched.")
                self._next_edit()

        self._reviewing = True
        self.app.push_screen(ReviewScreen(proposal.diff, proposal.rel, reviewing=True), decided)

    @work(thread=True, exclusive=True, group="git", exit_on_error=False, description="applying an edit")
    def apply_edit(self, proposal: Any) -> None:
        try:
            engine = self.capp.make_engine(None, None)
            result = engine.apply(proposal)
        except CoderError as exc:
            self.post_message(Notice(f"Not applied: {exc}", "error"))
        else:
            notes = "; ".join(result.notes)
            self.post_message(Notice(f"Applied {result.path}. {notes}".strip()))
        self.app.call_from_thread(self._next_edit)

    @work(thread=True, exclusive=True, group="git", exit_on_error=False, description="undo")
    def undo_edit(self) -> None:
        try:
            result = self.capp.make_engine(None, None).undo()
        except CoderError as exc:
            self.post_message(Notice(f"Nothing undone: {exc}", "error"))
            return
        self.post_message(Notice(f"Undone: {_undo_text(result)}"))

    @work(thread=True, exclusive=True, group="git", exit_on_error=False, description="git diff")
    def show_diff(self) -> None:
        import git

        try:
            diff = git.Repo(self.capp.repo_root).git.diff("HEAD")
        except git.GitCommandError as exc:
            self.post_message(Notice(f"git diff failed: {exc.stderr.strip() or exc}", "error"))
            return
        if not diff.strip():
            self.post_message(Notice("No uncommitted changes."))
            return
        self.app.call_from_thread(self._push_diff, diff)

    def _push_diff(self, diff: str) -> None:
        from coder.ui.screens.review import ReviewScreen

        self.app.push_screen(ReviewScreen(diff, "", reviewing=False))

    def backend_changed(self, message: BackendChanged) -> None:
        self.query_one(BackendBar).show(message.info)
        if message.note:
            self.note(message.note)


def _metrics(server: Any) -> SpecStats | None:
    try:
        with server.api(timeout=2.0) as api:
            stats: SpecStats = api.metrics()
            return stats if stats.has_spec_metrics else None
    except CoderError:
        return None


def _mentioned_symbol(root: Path, rel: str, instruction: str) -> str | None:
    from coder.edit.regions import mentioned_symbol

    try:
        text = (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    region = mentioned_symbol(rel, text, instruction)
    return region.name if region is not None and region.name else None


def _undo_text(result: Any) -> str:
    paths = ", ".join(getattr(result, "paths", []) or [])
    return f"{getattr(result, 'sha', '')[:8]} {getattr(result, 'subject', '')!r} ({paths} restored)"

