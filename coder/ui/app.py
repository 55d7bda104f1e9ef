"""CoderApp: state (repo, config, session, backend) and the workers that talk to the headless core."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.message import Message
from textual.screen import Screen

from coder import sessions
from coder.config import Config, Profile, save_user_setting, user_config_path
from coder.errors import CoderError
from coder.telemetry.stream import Delta
from coder.ui import themes
from coder.ui.commands import COMMANDS
from coder.ui.messages import BackendChanged, BackendFailed, BackendProgress, DoctorResults
from coder.ui.screens.main import MainScreen
from coder.ui.streaming import Batch

if TYPE_CHECKING:
    from coder.backends.server import ServerInfo
    from coder.ui.link import ChatSource, TappedServer


class LagProbe(Protocol):
    """Benchmark hook: told when a batch is appended and when it became visible."""

    def appended(self, batch: Batch) -> None: ...
    def visible(self, batch: Batch) -> None: ...
    def finished(self) -> None: ...


class SlashCommands(Provider):
    """The slash commands in the command palette (ctrl+p)."""

    async def discover(self) -> Hits:
        for spec in COMMANDS.values():
            yield DiscoveryHit(spec.usage, partial(self._run, spec.name), help=spec.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for spec in COMMANDS.values():
            score = matcher.match(spec.usage)
            if score > 0:
                yield Hit(score, matcher.highlight(spec.usage), partial(self._run, spec.name), help=spec.help)

    def _run(self, name: str) -> None:
        app = self.app
        if isinstance(app, CoderApp):
            app.palette_command(name)


class CoderApp(App[None]):
    TITLE = "coder"
    COMMANDS = App.COMMANDS | {SlashCommands}
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "quit", priority=True)]

    def __init__(
        self,
        repo_root: Path,
        config: Config,
        session: sessions.Session,
        *,
        profile: str | None = None,
        server: ServerInfo | None = None,
        chat_source: ChatSource | None = None,
        offer_start: bool = True,
        attach: tuple[str, str | None] | None = None,
        lag_probe: LagProbe | None = None,
        user_theme_dir: Path | None = None,
        persist_theme: bool = True,
        chat_max_tokens: int = 1024,
    ) -> None:
        super().__init__()
        self.repo_root = repo_root
        self.config = config
        self.session = session
        self.profile: Profile = config.profile(profile)
        self.server = server
        self.chat_source = chat_source  # a test double replaces the server's ChatClient
        self.offer_start = offer_start
        self.attach_target = attach
        self.lag_probe = lag_probe
        self.persist_theme = persist_theme
        self.chat_max_tokens = chat_max_tokens
        self.last_checks: list[Any] | None = None
        self.baseline_tps: float | None = None
        self._policy: Any = None
        self._policy_for: str | None = None
        self._theme_errors = self._register_themes(user_theme_dir)
        wanted = config.theme or themes.DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else themes.DEFAULT_THEME

    # ---- themes ------------------------------------------------------------------------------

    def _register_themes(self, user_dir: Path | None) -> list[str]:
        result = themes.load_all(user_dir)
        for theme in result.themes:
            self.register_theme(theme)
        return result.errors

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}

    def switch_theme(self, name: str) -> str | None:
        """Switch live and persist; returns a polite error instead of raising."""
        if name not in self.available_themes:
            return f"No theme named {name!r}. Available: {', '.join(sorted(self.available_themes))}."
        self.theme = name
        if self.persist_theme:
            try:
                save_user_setting(user_config_path(), None, "theme", name)
            except (OSError, CoderError) as exc:
                return f"Switched to {name}, but could not save the choice: {exc}"
        return None

    def action_next_theme(self) -> None:
        names = sorted(n for n in self.available_themes if n.startswith("coder-")) or sorted(self.available_themes)
        index = names.index(self.theme) + 1 if self.theme in names else 0
        name = names[index % len(names)]
        error = self.switch_theme(name)
        self.notify(error or f"Theme: {name}", severity="error" if error else "information", timeout=2)

    # ---- lifecycle ---------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.main = MainScreen()
        self.push_screen(self.main)
        for error in self._theme_errors:
            self.notify(f"Theme file skipped: {error}", severity="warning", timeout=8)
        if self.attach_target is not None:
            self.attach_backend(*self.attach_target)
        elif self.server is None and self.chat_source is None:
            self.find_backend()
        self.load_baseline()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Backend", "Start, stop, restart the server; log and doctor", self.action_backend)

    def palette_command(self, name: str) -> None:
        self.main.run_command(f"/{name}")

    def action_backend(self) -> None:
        from coder.ui.screens.backend import BackendScreen

        if not isinstance(self.screen, BackendScreen):
            self.push_screen(BackendScreen())

    def save_session(self) -> None:
        try:
            sessions.save(self.session)
        except OSError as exc:
            self.notify(f"Could not save the session: {exc.strerror}", severity="warning")

    # ---- backend (thread workers; results only through messages) -------------------------------

    @work(thread=True, exclusive=True, group="backend", exit_on_error=False, description="finding backend")
    def find_backend(self) -> None:
        from coder.backends import manager

        info = manager.current(self.profile.name) or manager.current(None)
        if info is not None:
            self.post_message(BackendChanged(info, ""))
        else:
            self.post_message(BackendChanged(None, "no-backend"))

    @work(thread=True, exclusive=True, group="backend", exit_on_error=False, description="starting backend")
    def start_backend(self) -> None:
        from coder.backends import manager

        def progress(phase: str, fraction: float, detail: str) -> None:
            self.post_message(BackendProgress(phase, fraction, detail))

        try:
            info = manager.start(self.profile, progress=progress)
        except CoderError as exc:
            self.post_message(BackendFailed(str(exc)))
            return
        self.post_message(BackendChanged(info, f"Backend ready: {info.verdict}"))

    @work(thread=True, exclusive=True, group="backend", exit_on_error=False, description="attaching")
    def attach_backend(self, url: str, api_key: str | None) -> None:
        from coder.backends import manager

        try:
            info = manager.attach(url, api_key)
        except CoderError as exc:
            self.post_message(BackendFailed(str(exc)))
            return
        self.post_message(BackendChanged(info, f"Attached to {url}: {info.verdict}"))

    @work(thread=True, exclusive=True, group="backend", exit_on_error=False, description="stopping backend")
    def stop_backend(self) -> None:
        from coder.backends import manager

        name = (self.server.profile if self.server else None) or self.profile.name
        try:
            manager.stop(name)
        except CoderError as exc:
            self.post_message(BackendFailed(str(exc)))
            return
        self.post_message(BackendChanged(None, f"Stopped {name}."))

    @work(thread=True, exclusive=True, group="backend", exit_on_error=False, description="restarting backend")
    def restart_backend(self) -> None:
        from coder.backends import manager

        try:
            info = manager.restart(self.profile, self.server.k if self.server else None)
        except CoderError as exc:
            self.post_message(BackendFailed(str(exc)))
            return
        self.post_message(BackendChanged(info, f"Restarted: {info.verdict}"))

    @work(thread=True, exclusive=True, group="doctor", exit_on_error=False, description="doctor")
    def run_doctor(self) -> None:
        from coder.doctor import run_checks

        try:
            checks = run_checks(self.profile, self.repo_root)
        except CoderError as exc:
            from coder.backends.engine import Check

            checks = [Check("doctor", False, str(exc))]
        self.post_message(DoctorResults(checks))

    @work(thread=True, exclusive=True, group="baseline", exit_on_error=False, description="bench baseline")
    def load_baseline(self) -> None:
        from coder.paths import data_dir
        from coder.ui.widgets.spec.panel import baseline_from_bench

        folders = [self.repo_root / "bench-results", data_dir() / "bench"]
        files = [p for folder in folders if folder.is_dir() for p in folder.glob("*.json")]
        self.baseline_tps = baseline_from_bench(files)

    def _broadcast(self, message: Message) -> None:
        for screen in self.screen_stack:
            handler: Callable[[Message], None] | None = getattr(screen, "backend_event", None)
            if handler is not None:
                handler(message)

    @on(BackendProgress)
    @on(BackendFailed)
    @on(DoctorResults)
    def _backend_message(self, message: Message) -> None:
        if isinstance(message, DoctorResults):
            self.last_checks = message.checks
        if isinstance(message, BackendFailed):
            self.main.error(f"Backend: {message.error}")
        self._broadcast(message)

    @on(BackendChanged)
    def _backend_changed(self, message: BackendChanged) -> None:
        if message.note == "no-backend":
            message.note = ""
            self.main.backend_changed(message)
            if self.offer_start:
                from coder.ui.screens.start import StartScreen

                what = "the embedded demo model" if self.profile.model == "demo" else (self.profile.model or "?")
                self.push_screen(StartScreen(self.profile.name, what))
            return
        self.server = message.info
        self._policy = None
        self.main.backend_changed(message)
        self._broadcast(message)

    # ---- requests: helpers used by the main screen's workers (thread side) ----------------------

    def connect(self) -> tuple[ServerInfo, Any]:
        """The server to use and its k policy; raises CoderError with what to do when none."""
        server = self.server
        if server is None:
            if self.chat_source is None:
                raise CoderError("no backend is running: press ctrl+b to start or attach one")
            from coder.backends.server import ServerInfo

            server = ServerInfo(url="http://127.0.0.1:9", engine=self.chat_source.engine, verdict="test double")
        return server, self.policy(server)

    def policy(self, server: ServerInfo) -> Any:
        if self.chat_source is not None or server.k is None:
            return None  # the test double has no counters to learn from
        if self._policy is None or self._policy_for != server.url:
            from coder.kpolicy import KPolicy

            self._policy = KPolicy(self.profile, server)
            self._policy_for = server.url
            if self.session.k_override is not None:
                self._policy.override(self.session.k_override)
        return self._policy

    def set_k_override(self, k: int | None) -> None:
        if k is not None and self.server is not None and self.chat_source is None:
            policy = self.policy(self.server)
            if policy is not None:
                policy.override(k)  # validates against the server (raises CoderError)
        elif k is None and self._policy is not None:
            self._policy.override(None)
        self.session.k_override = k
        self.save_session()

    def chat_for(self, server: ServerInfo) -> ChatSource:
        return self.chat_source if self.chat_source is not None else server.chat()

    def tapped(self, server: ServerInfo, tap: Callable[[Delta], None]) -> TappedServer:
        from coder.ui.link import tapped

        return tapped(server, tap, self.chat_source)

    def make_engine(self, server: ServerInfo | None, policy: Any) -> Any:
        from coder.edit.engine import EditEngine, FixedK

        if policy is None and self.session.k_override is not None:
            policy = FixedK(self.session.k_override)
        return EditEngine(server, self.repo_root, policy=policy, snapshot_dirty=self.config.snapshot_dirty)
