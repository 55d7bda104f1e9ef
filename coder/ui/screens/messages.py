"""What the screens and the app say to each other: the screens post requests, the app replies.

The screens never call the app: they post a request (``self.app.post_message(StartBackend(self))``)
that :class:`~coder.ui.app.CoderApp` handles, and the app posts its replies (progress, a failure,
the doctor's checks) to the screen named in ``reply_to``. So no screen imports the app, and the app
imports the screens without a circle (harlequin and toolong talk to their app the same way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message
from textual.message_pump import MessagePump

if TYPE_CHECKING:
    from textual.worker import Worker

    from coder.backends.engines.base import Check


# ---- requests: a screen asks, the app carries it out (in a thread worker) --------------------------


@dataclass
class StartBackend(Message):
    """Launch the configured profile; progress and failures go to ``reply_to``."""

    reply_to: MessagePump


@dataclass
class StopBackend(Message):
    """Stop the managed server (the running profile's)."""

    reply_to: MessagePump


@dataclass
class RestartBackend(Message):
    """Relaunch the managed server at its k, with the profile it runs."""

    reply_to: MessagePump


@dataclass
class AttachBackend(Message):
    """Adopt the server someone else runs at ``url``."""

    url: str
    api_key: str | None
    reply_to: MessagePump


@dataclass
class RunDoctor(Message):
    """Run the doctor's checks; the results go to ``reply_to``."""

    reply_to: MessagePump


@dataclass
class ShowBackend(Message):
    """Open the backend screen (``/backend``)."""


@dataclass
class ThemeCommand(Message):
    """``/theme [NAME]``: list the themes, or switch."""

    args: list[str]


@dataclass
class WorkerFailed(Message):
    """A screen's worker ended in an error: the app's one handler reports it."""

    worker: Worker[object]


# ---- replies: the app tells the screen that asked ----------------------------------------------------


@dataclass
class BackendProgress(Message):
    """Server start progress (phase, 0..1, detail), posted to the screen that asked for the start."""

    phase: str
    fraction: float
    detail: str


@dataclass
class BackendFailed(Message):
    """A start / stop / restart / attach failed, with the reason; posted to the screen that asked."""

    error: str


@dataclass
class DoctorResults(Message):
    """The doctor's checks, posted to the screen that asked."""

    checks: list[Check]
