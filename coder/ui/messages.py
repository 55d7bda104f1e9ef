"""App-wide messages: what thread workers post back to the UI (the only way they talk to it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

from coder.ui.streaming import Batch, FinalStats
from coder.ui.widgets.spec.panel import RequestInfo

if TYPE_CHECKING:
    from coder.backends.engine import Check
    from coder.backends.server import ServerInfo


@dataclass
class BackendProgress(Message):
    """Server start progress (phase, 0..1, detail) from manager.start's callback."""

    phase: str
    fraction: float
    detail: str


@dataclass
class BackendChanged(Message):
    """A server became available (or went away: ``info`` None) with a one-line note."""

    info: ServerInfo | None
    note: str = ""


@dataclass
class BackendFailed(Message):
    error: str


@dataclass
class DoctorResults(Message):
    checks: list[Check]


@dataclass
class FilesListed(Message):
    """Tracked files of the repository (for @-completion)."""

    files: list[str]


@dataclass
class ReplyStarted(Message):
    info: RequestInfo
    title: str  # e.g. "edit app.py (full)" or "chat"


@dataclass
class ReplyBatch(Message):
    """A frame's worth of streamed text and the live stats after it."""

    batch: Batch


@dataclass
class ReplyFinished(Message):
    final: FinalStats
    text: str


@dataclass
class ReplyFailed(Message):
    error: str


@dataclass
class EditProposed(Message):
    """A validated edit (``proposal.ok``) or a refusal with the engine's reason."""

    proposal: Any  # coder.edit.engine.EditProposal


@dataclass
class Notice(Message):
    """A line for the transcript from a worker (git results, mention checks)."""

    text: str
    kind: str = "note"  # note | error
