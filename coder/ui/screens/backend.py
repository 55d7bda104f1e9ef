"""Backend screen: the server's state and verdict, start / stop / restart, doctor, and its log (followed)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Log, ProgressBar, Static

from coder.ui.screens import messages as sm
from coder.ui.screens.host import ScreenHost, host
from coder.ui.widgets.status.footer import KeyFooter

if TYPE_CHECKING:
    from coder.backends.engines.base import Check
    from coder.backends.runtime.server import ServerInfo
    from coder.fsutil import LogFollower


@dataclass
class LogLines(Message):
    """New lines of the server log (batched by the follower thread)."""

    lines: list[str]
    reset: bool = False


def server_table(info: ServerInfo | None, profile: str) -> Table:
    """The server's state, model, speculation and verdict as a two-column grid."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="dim", no_wrap=True)
    table.add_column()
    if info is None:
        table.add_row("state", Text("not running", style="bold yellow"))
        table.add_row("profile", profile)
        return table
    table.add_row("state", Text("running", style="bold green"))
    table.add_row("profile", profile)
    table.add_row("engine", f"{info.engine} ({'managed' if info.managed else 'attached'})")
    table.add_row("model", Path(info.model).name if info.model else "?")
    spec = info.spec_type or "none"
    drafter = f" · drafter {Path(info.drafter).name}" if info.drafter else ""
    table.add_row("speculation", f"{spec}{drafter} · k {info.k} (max {info.k_max or '?'})")
    table.add_row("per-request k", "yes (speculative.n_max)" if info.draft_cap else "no")
    verified = {True: Text("yes", style="bold green"), False: Text("NO", style="bold red"),
                None: Text("not checked", style="yellow")}[info.verified]
    table.add_row("verified", verified)
    table.add_row("verdict", Text(info.verdict, overflow="fold"))
    return table


def checks_table(checks: list[Check]) -> Table:
    """One row per doctor check: mark, name, detail."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True, style="bold")
    table.add_column()
    for check in checks:
        mark = {True: Text("✓", style="green"), False: Text("✗", style="red"),
                None: Text("?", style="yellow")}[check.ok]
        table.add_row(mark, check.name, Text(check.detail, overflow="fold"))
    if not checks:
        table.add_row("", "", Text("press d to run doctor", style="dim"))
    return table


class BackendScreen(Screen[None]):
    """Start, stop, restart and diagnose the backend; follow its log."""

    CSS_PATH = "backend.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "app.pop_screen", "back"),
        Binding("s", "start", "start"),
        Binding("x", "stop", "stop"),
        Binding("r", "restart", "restart"),
        Binding("d", "doctor", "doctor"),
    ]

    def __init__(self, follow_log: bool = True) -> None:
        super().__init__()
        self.follow_log = follow_log
        self._follower: LogFollower | None = None

    @property
    def capp(self) -> ScreenHost:
        """What this screen reads of the app (requests go as :mod:`~coder.ui.screens.messages`)."""
        return host(self.app)

    def compose(self) -> ComposeResult:
        """State and buttons, doctor checks, and the server log."""
        with Horizontal(id="backend-top"):
            with Vertical(id="backend-state"):
                yield Static("Backend", classes="title")
                yield Static(server_table(None, ""), id="backend-info")
                with Horizontal(id="backend-buttons"):
                    yield Button("Start", id="b-start", variant="primary")
                    yield Button("Stop", id="b-stop", variant="error")
                    yield Button("Restart", id="b-restart")
                    yield Button("Doctor", id="b-doctor")
                yield ProgressBar(total=1.0, show_eta=False, id="backend-progress")
                yield Static("", id="backend-status")
            with Vertical(id="backend-doctor"):
                yield Static("Doctor", classes="title")
                yield Static(checks_table([]), id="doctor-checks")
        yield Static("Server log", classes="title", id="log-title")
        yield Log(id="backend-log", max_lines=5000)
        yield KeyFooter()

    def on_mount(self) -> None:
        """Show the last doctor run and follow the live server."""
        if self.capp.last_checks is not None:
            self.query_one("#doctor-checks", Static).update(checks_table(self.capp.last_checks))
        self.watch(self.app, "server", self._server_changed)

    def on_unmount(self) -> None:
        """Stop following the log."""
        self._stop_following()

    def _server_changed(self, info: ServerInfo | None) -> None:
        profile = self.capp.backend.profile or self.capp.configured
        self.query_one("#backend-info", Static).update(server_table(info, profile.name))
        managed = info is None or info.managed
        self.query_one("#b-stop", Button).disabled = info is None or not info.managed
        self.query_one("#b-restart", Button).disabled = info is None or not managed
        self.query_one("#b-start", Button).disabled = info is not None
        if info is not None:
            self.query_one("#backend-status", Static).update(info.verdict)
        self._follow(info)

    def _follow(self, info: ServerInfo | None) -> None:
        from coder.fsutil import LogFollower

        self._stop_following()
        log = self.query_one(Log)
        log.clear()
        if self.follow_log and info is not None and info.log_path:
            shown = info.shown_log_lines  # the key redacted: vLLM logs its arguments
            self._follower = LogFollower(Path(info.log_path), lambda new: self._post_lines(shown(new))).start()
        else:
            log.write_line("(no log: the server is attached or not running)" if info is None or not info.log_path
                           else "(log following off)")

    def _post_lines(self, lines: list[str]) -> None:
        """Called on the follower thread; post_message is thread-safe."""
        self.post_message(LogLines(lines))

    def _stop_following(self) -> None:
        if self._follower is not None:
            self._follower.stop(timeout=0)  # never block the UI thread on the follower's join
            self._follower = None

    @on(LogLines)
    def _log_lines(self, message: LogLines) -> None:
        log = self.query_one(Log)
        if message.reset:
            log.clear()
        log.write_lines(message.lines)

    def _busy(self, text: str) -> None:
        self.query_one("#backend-status", Static).update(text)

    @on(Button.Pressed, "#b-start")
    def action_start(self) -> None:
        """Start the profile's server."""
        self._busy("starting…")
        self.app.post_message(sm.StartBackend(self))

    @on(Button.Pressed, "#b-stop")
    def action_stop(self) -> None:
        """Stop the managed server."""
        self._busy("stopping…")
        self.app.post_message(sm.StopBackend(self))

    @on(Button.Pressed, "#b-restart")
    def action_restart(self) -> None:
        """Restart the managed server."""
        self._busy("restarting…")
        self.app.post_message(sm.RestartBackend(self))

    @on(Button.Pressed, "#b-doctor")
    def action_doctor(self) -> None:
        """Run the doctor's checks."""
        self.query_one("#doctor-checks", Static).update(Text("running checks…", style="dim"))
        self.app.post_message(sm.RunDoctor(self))

    @on(sm.BackendProgress)
    def _progress(self, message: sm.BackendProgress) -> None:
        bar = self.query_one(ProgressBar)
        bar.add_class("-busy")
        bar.progress = max(0.0, min(1.0, message.fraction))
        self._busy(f"{message.phase} {message.detail}".strip())

    @on(sm.BackendFailed)
    def _failed(self, message: sm.BackendFailed) -> None:
        self.query_one(ProgressBar).remove_class("-busy")
        self.query_one("#backend-status", Static).update(Text(f"Failed: {message.error}", style="bold red"))

    @on(sm.DoctorResults)
    def _doctor(self, message: sm.DoctorResults) -> None:
        self.query_one("#doctor-checks", Static).update(checks_table(message.checks))
