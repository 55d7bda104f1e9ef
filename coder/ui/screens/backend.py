"""Backend screen: the server's state and verdict, start / stop / restart, doctor, and its log (followed)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Log, ProgressBar, Static
from textual.worker import get_current_worker

from coder.backends.engine import Check
from coder.backends.server import ServerInfo
from coder.ui.messages import BackendChanged, BackendFailed, BackendProgress, DoctorResults

if TYPE_CHECKING:
    from coder.ui.app import CoderApp

TAIL_BYTES = 64 * 1024


@dataclass
class LogLines(Message):
    """New lines of the server log (batched by the follower thread)."""

    lines: list[str]
    reset: bool = False


def server_table(info: ServerInfo | None, profile: str) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="dim", no_wrap=True)
    table.add_column()
    if info is None:
        table.add_row("state", Text("not running", style="bold yellow"))
        table.add_row("profile", profile)
        return table
    table.add_row("state", Text("running", style="bold green"))
    table.add_row("profile", info.profile or profile)
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

    @property
    def capp(self) -> CoderApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
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
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_info()
        if self.capp.last_checks is not None:
            self.query_one("#doctor-checks", Static).update(checks_table(self.capp.last_checks))
        self._follow()

    def refresh_info(self) -> None:
        info = self.capp.server
        self.query_one("#backend-info", Static).update(server_table(info, self.capp.profile.name))
        managed = info is None or info.managed
        self.query_one("#b-stop", Button).disabled = info is None or not info.managed
        self.query_one("#b-restart", Button).disabled = info is None or not managed
        self.query_one("#b-start", Button).disabled = info is not None

    def _follow(self) -> None:
        info = self.capp.server
        if self.follow_log and info is not None and info.log_path:
            self.follow(Path(info.log_path))
        else:
            log = self.query_one(Log)
            log.clear()
            log.write_line("(no log: the server is attached or not running)" if info is None or not info.log_path
                           else "(log following off)")

    @work(thread=True, exclusive=True, group="log-follow", exit_on_error=False, description="following log")
    def follow(self, path: Path) -> None:
        """Tail the log: last 64 KiB first, then new lines as they are written (batched)."""
        worker = get_current_worker()
        try:
            handle = path.open("r", encoding="utf-8", errors="replace")
        except OSError as exc:
            self.post_message(LogLines([f"(cannot open {path.name}: {exc.strerror})"], reset=True))
            return
        with handle:
            size = path.stat().st_size
            handle.seek(max(0, size - TAIL_BYTES))
            if size > TAIL_BYTES:
                handle.readline()  # drop the partial first line
            self.post_message(LogLines(handle.read().splitlines(), reset=True))
            pending = ""
            while not worker.is_cancelled:
                chunk = handle.read()
                if chunk:
                    pending += chunk
                    *lines, pending = pending.split("\n")
                    if lines:
                        self.post_message(LogLines(lines))
                time.sleep(0.25)

    @on(LogLines)
    def _log_lines(self, message: LogLines) -> None:
        log = self.query_one(Log)
        if message.reset:
            log.clear()
        log.write_lines(message.lines)

    @on(Button.Pressed, "#b-start")
    def action_start(self) -> None:
        self.query_one("#backend-status", Static).update("starting…")
        self.capp.start_backend()

    @on(Button.Pressed, "#b-stop")
    def action_stop(self) -> None:
        self.query_one("#backend-status", Static).update("stopping…")
        self.capp.stop_backend()

    @on(Button.Pressed, "#b-restart")
    def action_restart(self) -> None:
        self.query_one("#backend-status", Static).update("restarting…")
        self.capp.restart_backend()

    @on(Button.Pressed, "#b-doctor")
    def action_doctor(self) -> None:
        self.query_one("#doctor-checks", Static).update(Text("running checks…", style="dim"))
        self.capp.run_doctor()

    def backend_event(self, message: Message) -> None:
        status = self.query_one("#backend-status", Static)
        bar = self.query_one(ProgressBar)
        bar.set_class(isinstance(message, BackendProgress), "-busy")
        if isinstance(message, BackendProgress):
            bar.progress = max(0.0, min(1.0, message.fraction))
            status.update(f"{message.phase} {message.detail}".strip())
        elif isinstance(message, BackendFailed):
            status.update(Text(f"Failed: {message.error}", style="bold red"))
        elif isinstance(message, BackendChanged):
            status.update(message.note)
            self.refresh_info()
            self._follow()
        elif isinstance(message, DoctorResults):
            self.query_one("#doctor-checks", Static).update(checks_table(message.checks))
