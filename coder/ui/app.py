"""CoderApp: the repository, config, the live backend and the headless edit session behind the screens.

The app owns one :class:`~coder.backends.runtime.handle.BackendHandle`; its listener posts
:class:`BackendChanged` (thread-safe), and the handler sets the reactive :attr:`CoderApp.server`
that the footer, backend screen and main screen watch. The screens never call the app: they post
the requests of :mod:`coder.ui.screens.messages` (start / stop / restart / attach / doctor, the
backend screen, a theme, a failed worker), handled here; the backend work runs in thread
workers and reports to the screen that asked. What a screen reads of the app is
:class:`~coder.ui.screens.host.ScreenHost`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.message import Message
from textual.message_pump import MessagePump
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from coder import conversations
from coder.backends.runtime.handle import BackendHandle
from coder.config import Config, Profile
from coder.edit.checks.user_commands import commands
from coder.errors import CoderError
from coder.kpolicy import policy_factory
from coder.session.commands import COMMANDS
from coder.session.edit_session import EditSession
from coder.ui import themes
from coder.ui.screens import messages as sm
from coder.ui.screens.host import LagProbe, ScreenHost
from coder.ui.screens.main import MainScreen
from coder.ui.session_link import poster

if TYPE_CHECKING:
    from coder.backends.engines.base import Check
    from coder.backends.runtime.server import ServerInfo


@dataclass
class BackendChanged(Message):
    """The live backend changed (``info`` None: none). Posted by the BackendHandle listener."""

    info: ServerInfo | None


@dataclass
class NoBackend(Message):
    """No server answered at launch (the start screen is offered)."""


class SlashCommands(Provider):
    """The slash commands in the command palette (ctrl+p)."""

    async def discover(self) -> Hits:
        """Every command, before anything is typed."""
        for spec in COMMANDS.values():
            yield DiscoveryHit(spec.usage, partial(self._run, spec.name), help=spec.help)

    async def search(self, query: str) -> Hits:
        """Commands matching ``query``."""
        matcher = self.matcher(query)
        for spec in COMMANDS.values():
            score = matcher.match(spec.usage)
            if score > 0:
                yield Hit(score, matcher.highlight(spec.usage), partial(self._run, spec.name), help=spec.help)

    def _run(self, name: str) -> None:
        app = self.app
        if isinstance(app, CoderApp):
            app.main.run_command(f"/{name}")


class CoderApp(App[None]):
    """coder's TUI."""

    TITLE = "coder"
    COMMANDS = App.COMMANDS | {SlashCommands}
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "quit", priority=True)]

    server: reactive[ServerInfo | None] = reactive(None, init=False, always_update=True)
    """The live backend (watched by the footer, the backend screen and the main screen)."""

    def __init__(
        self,
        repo_root: Path,
        config: Config,
        conversation: conversations.Conversation,
        *,
        profile: str | Profile | None = None,
        server: ServerInfo | None = None,
        offer_start: bool = True,
        attach: tuple[str, str | None] | None = None,
        lag_probe: LagProbe | None = None,
        user_theme_dir: Path | None = None,
        persist_theme: bool = True,
        persist_state: bool = True,
        chat_max_tokens: int = 1024,
    ) -> None:
        super().__init__()
        self.repo_root = repo_root
        self.config = config
        self.conversation = conversation
        configured = profile if isinstance(profile, Profile) else config.profile(profile)
        self.offer_start = offer_start
        self.attach_target = attach
        self.lag_probe = lag_probe
        self.persist_theme = persist_theme
        self.last_checks: list[Check] | None = None
        self.backend_checked = server is not None  # a lookup for a running server has finished
        # the one home of the profile: configured here, the running one by the handle's adopt rule
        self.backend = BackendHandle(configured=configured, profiles=config.profiles,
                                     policy_factory=policy_factory(persist_state))
        self.backend.adopt(server)
        self.set_reactive(CoderApp.server, server)
        self.main = MainScreen(EditSession(repo_root, conversation, self.backend, lambda event: None,
                                           chat_max_tokens=chat_max_tokens, snapshot_dirty=config.snapshot_dirty,
                                           persist=persist_state, warm_up=config.warm_up,
                                           checks=commands(config.test_command, config.lint_command,
                                                           config.check_timeout),
                                           checks_not_run=config.commands_not_run or ""))
        self.main.edit.emit = poster(self.main)
        self.backend.subscribe(self._post_backend_changed)
        _host: ScreenHost = self  # what the screens read of the app (checked here, not imported there)
        self._theme_errors = self._register_themes(user_theme_dir)
        wanted = config.theme or themes.DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else themes.DEFAULT_THEME

    def _post_backend_changed(self, info: ServerInfo | None) -> None:
        """BackendHandle listener, called on the thread that changed the backend."""
        self.post_message(BackendChanged(info))  # thread-safe

    @property
    def configured(self) -> Profile:
        """The profile the user chose (the backend handle holds it; a Start launches it)."""
        assert self.backend.configured is not None  # always given above
        return self.backend.configured

    @property
    def edit(self) -> EditSession:
        """The headless edit session."""
        return self.main.edit

    # ---- themes --------------------------------------------------------------------------------

    def _register_themes(self, user_dir: Path | None) -> list[str]:
        result = themes.load_all(user_dir)
        for theme in result.themes:
            self.register_theme(theme)
        return result.errors

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """coder's own CSS variables (diff colours, spec bars) for themes that do not set them."""
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}

    def theme_command(self, args: list[str]) -> None:
        """``/theme [NAME]``: list the themes, or switch (and save the choice off the UI thread)."""
        if not args:
            self.main.note(f"Theme: {self.theme}. Available: {', '.join(sorted(self.available_themes))}.")
            return
        name = args[0]
        if name not in self.available_themes:
            self.main.transcript.add_message(
                "error", f"No theme named {name!r}. Available: {', '.join(sorted(self.available_themes))}.")
            return
        self.theme = name
        self.main.note(f"Theme: {name}" + (" (saved)." if self.persist_theme else "."))
        self.save_theme(name)

    def action_next_theme(self) -> None:
        """ctrl+t: the next coder theme."""
        names = sorted(n for n in self.available_themes if n.startswith("coder-")) or sorted(self.available_themes)
        index = names.index(self.theme) + 1 if self.theme in names else 0
        self.theme = names[index % len(names)]
        self.notify(f"Theme: {self.theme}", timeout=2)
        self.save_theme(self.theme)

    @work(thread=True, exclusive=True, group="theme", exit_on_error=False, description="saving theme")
    def save_theme(self, name: str) -> None:
        """Persist the theme choice in the user config (a file write: never on the UI thread)."""
        if not self.persist_theme:
            return
        from coder.config import save_user_setting, user_config_path

        try:
            save_user_setting(user_config_path(), None, "theme", name)
        except (OSError, CoderError) as exc:
            self.call_from_thread(self.notify, f"Could not save the theme choice: {exc}", severity="warning")

    # ---- lifecycle -----------------------------------------------------------------------------

    def on_mount(self) -> None:
        """Open the main screen, then find or attach a backend and load the bench baseline."""
        self.push_screen(self.main)
        self._quit_on_interrupt()
        for error in self._theme_errors:
            self.notify(f"Theme file skipped: {error}", severity="warning", timeout=8)
        if self.attach_target is not None:
            self.attach_backend(*self.attach_target, reply_to=self.main)
        elif self.backend.info is None:
            self.find_backend()
        self.load_baseline()

    def _quit_on_interrupt(self) -> None:
        """``kill -INT`` quits as Ctrl+Q does: in raw mode Ctrl+C is a key, and the signal was ignored, leaving a
        TUI nobody could reach running on (its conversation is saved as on any quit)."""
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # no signals here (Windows, a thread)
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self.exit)

    def on_unmount(self) -> None:
        """Give SIGINT back to the loop's owner (a test's loop outlives the app)."""
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's own workers: failures go to the one handler below."""
        self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker[object]) -> None:
        """The one error handler for every worker (the app's and its screens'): one line, then carry on.

        A worker that raised something unexpected (a proxy's HTML where JSON belongs, a bug) is
        reported in one line in the transcript, and a session request puts the session back to
        idle, so the next message runs instead of being told to wait for a reply that never comes.
        """
        if worker.state != WorkerState.ERROR or worker.error is None:
            return
        error = worker.error
        what = str(error) if isinstance(error, CoderError) else f"{type(error).__name__}: {error}"
        line = f"{worker.description or worker.name} failed: {' '.join(what.split())[:300]}"
        self.notify(line, severity="error", timeout=8)
        self.main.note(line)
        if worker.group == "session":
            self.main.edit.recover()

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's palette commands plus the backend screen."""
        yield from super().get_system_commands(screen)
        yield SystemCommand("Backend", "Start, stop, restart the server; log and doctor", self.action_backend)

    def action_backend(self) -> None:
        """ctrl+b: the backend screen."""
        from coder.ui.screens.backend import BackendScreen

        if not isinstance(self.screen, BackendScreen):
            self.push_screen(BackendScreen())

    @on(BackendChanged)
    def _backend_changed(self, message: BackendChanged) -> None:
        self.backend_checked = True
        self.server = message.info

    @on(NoBackend)
    def _no_backend(self, message: NoBackend) -> None:
        self.backend_checked = True
        self.server = None
        if self.offer_start:
            from coder.ui.screens.start import StartScreen

            configured = self.configured
            what = "the embedded demo model" if configured.model == "demo" else (configured.model or "?")
            self.push_screen(StartScreen(configured.name, what))

    # ---- the screens' requests -----------------------------------------------------------------

    @on(sm.StartBackend)
    def _start_requested(self, message: sm.StartBackend) -> None:
        self.start_backend(message.reply_to)

    @on(sm.StopBackend)
    def _stop_requested(self, message: sm.StopBackend) -> None:
        self.stop_backend(message.reply_to)

    @on(sm.RestartBackend)
    def _restart_requested(self, message: sm.RestartBackend) -> None:
        self.restart_backend(message.reply_to)

    @on(sm.AttachBackend)
    def _attach_requested(self, message: sm.AttachBackend) -> None:
        self.attach_backend(message.url, message.api_key, reply_to=message.reply_to)

    @on(sm.RunDoctor)
    def _doctor_requested(self, message: sm.RunDoctor) -> None:
        self.run_doctor(message.reply_to)

    @on(sm.ShowBackend)
    def _backend_requested(self, message: sm.ShowBackend) -> None:
        self.action_backend()

    @on(sm.ThemeCommand)
    def _theme_requested(self, message: sm.ThemeCommand) -> None:
        self.theme_command(message.args)

    @on(sm.WorkerFailed)
    def _worker_failed(self, message: sm.WorkerFailed) -> None:
        self.worker_failed(message.worker)

    # ---- backend (thread workers; results only through messages) -------------------------------

    @work(thread=True, exclusive=True, group="backend", exit_on_error=False, description="finding backend")
    def find_backend(self) -> None:
        """Adopt a server coder already runs for this profile (or any), else offer to start one."""
        from coder.backends.runtime import manager

        info = manager.current(self.configured.name) or manager.current(None)
        if info is None:
            self.post_message(NoBackend())
        else:
            self.backend.adopt(info)  # the one adopt rule: the profile that server runs

    @work(thread=True, exclusive=True, group="backend", exit_on_error=False, description="starting backend")
    def start_backend(self, reply_to: MessagePump) -> None:
        """Launch the configured profile, reporting progress to ``reply_to``."""
        from coder.backends.runtime import manager

        def progress(phase: str, fraction: float, detail: str) -> None:
            reply_to.post_message(sm.BackendProgress(phase, fraction, detail))

        configured = self.configured
        try:
            self.backend.replace(manager.start(configured, progress=progress), configured)
        except CoderError as exc:
            reply_to.post_message(sm.BackendFailed(str(exc)))

    @work(thread=True, exclusive=True, group="backend", exit_on_error=False, description="attaching")
    def attach_backend(self, url: str, api_key: str | None, *, reply_to: MessagePump) -> None:
        """Adopt a server someone else runs."""
        from coder.backends.runtime import manager

        try:
            self.backend.adopt(manager.attach(url, api_key))
        except CoderError as exc:
            reply_to.post_message(sm.BackendFailed(str(exc)))

    @work(thread=True, exclusive=True, group="backend", exit_on_error=False, description="stopping backend")
    def stop_backend(self, reply_to: MessagePump) -> None:
        """Stop the managed server (the running profile's)."""
        from coder.backends.runtime import manager

        try:
            manager.stop((self.backend.profile or self.configured).name)
        except CoderError as exc:
            reply_to.post_message(sm.BackendFailed(str(exc)))
            return
        self.backend.replace(None)

    @work(thread=True, exclusive=True, group="backend", exit_on_error=False, description="restarting backend")
    def restart_backend(self, reply_to: MessagePump) -> None:
        """Relaunch the managed server at its current k, with the profile it runs (not the configured one)."""
        from coder.backends.runtime import manager

        info = self.backend.info
        profile = self.backend.profile or self.configured
        try:
            self.backend.replace(manager.restart(profile, info.k if info else None), profile)
        except CoderError as exc:
            reply_to.post_message(sm.BackendFailed(str(exc)))

    @work(thread=True, exclusive=True, group="doctor", exit_on_error=False, description="doctor")
    def run_doctor(self, reply_to: MessagePump) -> None:
        """Run the doctor's checks."""
        from coder.doctor import run_checks

        try:
            checks = run_checks(self.backend.profile or self.configured, self.repo_root)
        except CoderError as exc:
            from coder.backends.engines.base import Check

            checks = [Check("doctor", False, str(exc))]
        self.last_checks = checks
        reply_to.post_message(sm.DoctorResults(checks))

    @work(thread=True, exclusive=True, group="baseline", exit_on_error=False, description="bench baseline")
    def load_baseline(self) -> None:
        """The no-speculation tok/s from the newest bench JSON (for the panel's 'ideal' line)."""
        from coder.paths import data_dir
        from coder.ui.widgets.speculation.panel import baseline_from_bench

        folders = [self.repo_root / "bench-results", data_dir() / "bench"]
        files = [p for folder in folders if folder.is_dir() for p in folder.glob("*.json")]
        self.edit.baseline_tps = baseline_from_bench(files)
