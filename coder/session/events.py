"""What an :class:`~coder.session.edit_session.EditSession` tells its front end (plain dataclasses).

The session calls its ``emit`` callback with these from whatever thread it runs on; the TUI
turns each into a Textual message (``post_message`` is thread-safe), a test just collects them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from coder.edit.proposal import EditProposal
    from coder.edit.run.plan_result import PlanProposal
    from coder.edit.run.warmup.cache import WarmState
    from coder.session.feed import Batch, FinalStats
    from coder.telemetry.prefill import PrefillView

State = Literal["idle", "streaming", "reviewing"]


@dataclass(frozen=True)
class RequestInfo:
    """What is known about a request before its first token."""

    request_class: str  # full | region | fresh
    mode: str  # what the user asked for: full | region | auto | chat
    k: int | None
    k_reason: str
    baseline_tps: float | None = None


@dataclass(frozen=True)
class Note:
    """A line for the transcript: a notice, or an error said politely."""

    text: str
    kind: Literal["note", "error"] = "note"


@dataclass(frozen=True)
class UserSaid:
    """The user's message, as it goes to the model (mentions stripped)."""

    text: str


@dataclass(frozen=True)
class ContextChanged:
    """Context files, edit mode or k override changed."""

    files: tuple[str, ...]
    mode: str
    k: int | None


@dataclass(frozen=True)
class FilesListed:
    """The repository's tracked files (for @-completion)."""

    files: tuple[str, ...]


@dataclass(frozen=True)
class StateChanged:
    """The session moved between idle, streaming and reviewing."""

    state: State


@dataclass(frozen=True)
class RequestStarted:
    """A request is about to stream (after any backend restart its k needed)."""

    info: RequestInfo
    title: str  # e.g. "edit app.py (full: …)" or "chat"


@dataclass(frozen=True)
class StreamBatch:
    """A frame's worth of streamed text and the live stats after it."""

    batch: Batch


@dataclass(frozen=True)
class RequestFinished:
    """The reply ended; its final figures and whole text."""

    final: FinalStats
    text: str


@dataclass(frozen=True)
class RequestFailed:
    """The request could not run or broke off; nothing was written."""

    error: str


@dataclass(frozen=True)
class RequestStopped:
    """The user stopped the request (or the restart it was waiting for); nothing was written."""


@dataclass(frozen=True)
class ReviewRequested:
    """A validated, changed edit waits for accept or reject (answer with ``EditSession.decide``)."""

    proposal: EditProposal | PlanProposal  # a plan: several regions, maybe several files, one review


@dataclass(frozen=True)
class DiffReady:
    """``/diff``: the repository's uncommitted changes."""

    diff: str


@dataclass(frozen=True)
class Cleared:
    """The conversation was cleared (context files kept)."""


@dataclass(frozen=True)
class FrontEndCommand:
    """A command only the front end can carry out (``/backend``, ``/theme``)."""

    name: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class PrefillUpdate:
    """The prompt of the request in flight is being processed: processed/total, cached, rate, ETA."""

    view: PrefillView


@dataclass(frozen=True)
class CacheChanged:
    """The prompt-cache warm-up moved: ``cache: warming … / warm (N tokens) / warm-up failed``."""

    state: WarmState


Event = (Note | UserSaid | ContextChanged | FilesListed | StateChanged | RequestStarted | StreamBatch
         | RequestFinished | RequestFailed | RequestStopped | ReviewRequested | DiffReady | Cleared
         | FrontEndCommand | PrefillUpdate | CacheChanged)
