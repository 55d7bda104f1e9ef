"""Shown at launch when no backend answers: start the default profile (with progress) or attach."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, ProgressBar, Static

from coder.ui.screens import messages as sm

if TYPE_CHECKING:
    from coder.backends.runtime.server import ServerInfo


class StartScreen(ModalScreen[None]):
    """Start the profile's server or attach to one; dismissed once a backend is live."""

    CSS_PATH = "start.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_later", "not now")]

    def __init__(self, profile_name: str, describe: str) -> None:
        super().__init__()
        self.profile_name = profile_name
        self.describe = describe

    def compose(self) -> ComposeResult:
        """Start and attach controls, progress and status."""
        with Vertical(id="start"):
            yield Label("No backend is running", id="start-title")
            yield Static(f"Start profile [b]{self.profile_name}[/b] ({self.describe}), or attach to a server "
                         "that is already running.", id="start-text")
            with Horizontal(classes="row"):
                yield Button(f"Start {self.profile_name}", id="start-go", variant="primary")
                yield Button("Not now", id="start-skip")
            with Horizontal(classes="row"):
                yield Input(placeholder="http://127.0.0.1:8080", id="attach-url")
                yield Input(placeholder="API key (optional)", id="attach-key", password=True)
                yield Button("Attach", id="attach-go")
            yield ProgressBar(total=1.0, show_eta=False, id="start-progress")
            yield Static("", id="start-status")

    def on_mount(self) -> None:
        """Focus the start button; close once the app has a live server."""
        self.query_one("#start-go", Button).focus()
        self.watch(self.app, "server", self._server_changed, init=False)

    def _server_changed(self, info: ServerInfo | None) -> None:
        if info is not None:
            self.dismiss(None)

    @on(Button.Pressed, "#start-go")
    def _start(self) -> None:
        self._busy("starting…")
        self.app.post_message(sm.StartBackend(self))

    @on(Button.Pressed, "#attach-go")
    @on(Input.Submitted, "#attach-url")
    def _attach_pressed(self, event: Message) -> None:
        url = self.query_one("#attach-url", Input).value.strip()
        if not url:
            self.query_one("#start-status", Static).update("Type the server's URL first.")
            return
        self._busy(f"attaching to {url}…")
        key = self.query_one("#attach-key", Input).value.strip() or None
        self.app.post_message(sm.AttachBackend(url, key, self))

    @on(Button.Pressed, "#start-skip")
    def action_dismiss_later(self) -> None:
        """Not now: close without a backend."""
        self.dismiss(None)

    def _busy(self, text: str) -> None:
        for button in self.query(Button):
            button.disabled = button.id != "start-skip"
        self.query_one("#start-status", Static).update(text)

    @on(sm.BackendProgress)
    def _progress(self, message: sm.BackendProgress) -> None:
        self.query_one(ProgressBar).progress = max(0.0, min(1.0, message.fraction))
        self.query_one("#start-status", Static).update(f"{message.phase} {message.detail}".strip())

    @on(sm.BackendFailed)
    def _failed(self, message: sm.BackendFailed) -> None:
        self.query_one("#start-status", Static).update(f"[b red]Failed:[/] {message.error}")
        for button in self.query(Button):
            button.disabled = False
