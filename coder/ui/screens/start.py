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

from coder.ui.messages import BackendChanged, BackendFailed, BackendProgress

if TYPE_CHECKING:
    from coder.ui.app import CoderApp


class StartScreen(ModalScreen[None]):
    CSS_PATH = "start.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_later", "not now")]

    def __init__(self, profile_name: str, describe: str) -> None:
        super().__init__()
        self.profile_name = profile_name
        self.describe = describe

    @property
    def capp(self) -> CoderApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
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
        self.query_one("#start-go", Button).focus()

    @on(Button.Pressed, "#start-go")
    def _start(self) -> None:
        self._busy("starting…")
        self.capp.start_backend()

    @on(Button.Pressed, "#attach-go")
    @on(Input.Submitted, "#attach-url")
    def _attach_pressed(self, event: Message) -> None:
        url = self.query_one("#attach-url", Input).value.strip()
        if not url:
            self.query_one("#start-status", Static).update("Type the server's URL first.")
            return
        self._busy(f"attaching to {url}…")
        self.capp.attach_backend(url, self.query_one("#attach-key", Input).value.strip() or None)

    @on(Button.Pressed, "#start-skip")
    def action_dismiss_later(self) -> None:
        self.dismiss(None)

    def _busy(self, text: str) -> None:
        for button in self.query(Button):
            button.disabled = button.id != "start-skip"
        self.query_one("#start-status", Static).update(text)

    def backend_event(self, message: Message) -> None:
        status = self.query_one("#start-status", Static)
        if isinstance(message, BackendProgress):
            self.query_one(ProgressBar).progress = max(0.0, min(1.0, message.fraction))
            status.update(f"{message.phase} {message.detail}".strip())
        elif isinstance(message, BackendFailed):
            status.update(f"[b red]Failed:[/] {message.error}")
            for button in self.query(Button):
                button.disabled = False
        elif isinstance(message, BackendChanged) and message.info is not None:
            self.dismiss(None)
