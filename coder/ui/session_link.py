"""The TUI end of the headless :class:`~coder.session.edit_session.EditSession`.

The session reports :mod:`coder.session.events` from worker threads; :func:`poster` turns each
into the Textual message declared here (``post_message`` is thread-safe) and posts it to the
main screen, whose ``@on`` handlers show it. One message class per event, so handlers select by
type and nothing dispatches by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from textual.message import Message
from textual.message_pump import MessagePump

from coder.session import events as ev

E = TypeVar("E")


class SessionMessage(Message, Generic[E]):
    """A session event delivered to the UI thread."""

    def __init__(self, event: E) -> None:
        super().__init__()
        self.event = event


class Noted(SessionMessage[ev.Note]):
    """A transcript line (note or error)."""


class UserSaid(SessionMessage[ev.UserSaid]):
    """The user's message as sent."""


class ContextChanged(SessionMessage[ev.ContextChanged]):
    """Context files, mode or k changed."""


class FilesListed(SessionMessage[ev.FilesListed]):
    """Tracked files for @-completion."""


class StateChanged(SessionMessage[ev.StateChanged]):
    """idle / streaming / reviewing."""


class RequestStarted(SessionMessage[ev.RequestStarted]):
    """A request is about to stream."""


class StreamBatch(SessionMessage[ev.StreamBatch]):
    """A frame's worth of streamed text and live stats.

    Never replaced by a later one (``can_replace`` would drop text): the session's
    :class:`~coder.session.feed.LiveFeed` already coalesces a stream into a few batches a second.
    """


class RequestFinished(SessionMessage[ev.RequestFinished]):
    """A reply ended."""


class RequestFailed(SessionMessage[ev.RequestFailed]):
    """A request failed; nothing written."""


class RequestStopped(SessionMessage[ev.RequestStopped]):
    """The user stopped a request."""


class ReviewRequested(SessionMessage[ev.ReviewRequested]):
    """An edit waits for accept / reject."""


class DiffReady(SessionMessage[ev.DiffReady]):
    """``/diff`` output."""


class Cleared(SessionMessage[ev.Cleared]):
    """The conversation was cleared."""


class FrontEndCommand(SessionMessage[ev.FrontEndCommand]):
    """A command for the UI (``/backend``, ``/theme``)."""


class PrefillUpdate(SessionMessage[ev.PrefillUpdate]):
    """The prompt of the request in flight is being processed."""

    def can_replace(self, message: Message) -> bool:
        """Progress is a state, not a log: a newer update makes a queued older one moot."""
        return isinstance(message, PrefillUpdate)


class CacheChanged(SessionMessage[ev.CacheChanged]):
    """The prompt-cache warm-up moved."""

    def can_replace(self, message: Message) -> bool:
        """Only the newest cache state matters to the panel."""
        return isinstance(message, CacheChanged)


_MESSAGES: dict[type, Callable[[Any], Message]] = {
    ev.Note: Noted, ev.UserSaid: UserSaid, ev.ContextChanged: ContextChanged, ev.FilesListed: FilesListed,
    ev.StateChanged: StateChanged, ev.RequestStarted: RequestStarted, ev.StreamBatch: StreamBatch,
    ev.RequestFinished: RequestFinished, ev.RequestFailed: RequestFailed, ev.RequestStopped: RequestStopped,
    ev.ReviewRequested: ReviewRequested, ev.DiffReady: DiffReady, ev.Cleared: Cleared,
    ev.FrontEndCommand: FrontEndCommand, ev.PrefillUpdate: PrefillUpdate, ev.CacheChanged: CacheChanged,
}


def message_for(event: ev.Event) -> Message:
    """The Textual message that carries ``event``."""
    return _MESSAGES[type(event)](event)


def poster(target: MessagePump) -> Callable[[ev.Event], None]:
    """An ``emit`` callback for the session that posts to ``target`` (safe from any thread)."""

    def emit(event: ev.Event) -> None:
        target.post_message(message_for(event))

    return emit
