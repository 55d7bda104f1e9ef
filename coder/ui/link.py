"""Connecting the UI to a server: a ServerInfo whose chat client also feeds the live panel.

The edit engine drives its own stream; by handing it a :class:`TappedServer` the UI
sees every :class:`Delta` (text and counters) without the engine knowing about the UI.
``chat_source`` replaces the real ChatClient (tests and benchmarks pass the
:class:`~coder.ui.replay.RecordedChat` test double).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from coder.backends.server import ServerInfo
from coder.telemetry.stream import Delta, StreamResult


class ChatSource(Protocol):
    """What the UI needs of a chat client: ChatClient, or the RecordedChat test double."""

    engine: str

    @property
    def stream(self) -> Callable[..., Iterator[Delta | StreamResult]]: ...


class TapChat:
    """Wraps a chat client; every Delta it yields is also handed to ``tap``."""

    def __init__(self, inner: ChatSource, tap: Callable[[Delta], None]) -> None:
        self.inner = inner
        self.engine = inner.engine
        self.tap = tap

    def stream(self, messages: list[dict[str, str]], **kwargs: Any) -> Iterator[Delta | StreamResult]:
        for item in self.inner.stream(messages, **kwargs):
            if isinstance(item, Delta):
                self.tap(item)
            yield item


class TappedServer(ServerInfo):
    """A copy of a ServerInfo whose ``chat()`` goes through a :class:`TapChat`."""

    tap: Callable[[Delta], None]
    source: ChatSource | None

    def chat(self, timeout: float = 600.0) -> TapChat:  # type: ignore[override]
        inner: ChatSource = self.source if self.source is not None else super().chat(timeout)
        return TapChat(inner, self.tap)


def tapped(info: ServerInfo, tap: Callable[[Delta], None], source: ChatSource | None = None) -> TappedServer:
    copy = TappedServer(**{f.name: getattr(info, f.name) for f in dataclasses.fields(info)})
    copy.tap = tap
    copy.source = source
    return copy
