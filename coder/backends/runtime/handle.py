"""The live backend of one coder session: which server, how to talk to it, and k restarts.

One :class:`BackendHandle` is shared by everything that talks to the server
(the edit engine, chat, the k policy, the TUI footer and live panel). It owns the
live :class:`ServerInfo`, a token counter and a chat-client factory bound to it,
and it carries out k decisions: a ``via="restart"`` decision relaunches the
managed profile at the new launch k (cancellable through a ``threading.Event``).
Whenever the backend changes, every subscriber is called with the new info (or
None) from the thread that made the change; no Textual here, the TUI posts its
own ``BackendChanged`` message from the callback.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from coder.backends.runtime.server import ServerAPI, ServerInfo
from coder.config import Profile
from coder.errors import CoderError
from coder.tokens import TokenCounter

if TYPE_CHECKING:
    from coder.backends.runtime.chat import ChatClient

Listener = Callable[[ServerInfo | None], None]
RestartFn = Callable[[Profile, int, threading.Event | None], ServerInfo]


class KDecision(Protocol):
    """What the session needs from a k decision (``coder.kpolicy.KChoice`` is one)."""

    @property
    def k(self) -> int | None:
        """Draft depth the request should run with."""
        ...

    @property
    def via(self) -> str:
        """How it is applied: ``cap``, ``restart``, ``launch`` or ``recommend``."""
        ...


def _manager_restart(profile: Profile, k: int, cancel: threading.Event | None) -> ServerInfo:
    from coder.backends.runtime import manager

    return manager.restart(profile, k, cancel=cancel)


class BackendHandle:
    """Owns the live server and notifies subscribers when it changes."""

    def __init__(self, info: ServerInfo | None = None, profile: Profile | None = None, *,
                 restart_fn: RestartFn | None = None) -> None:
        self._info = info
        self.profile = profile
        self._restart_fn = restart_fn or _manager_restart
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()  # one restart at a time
        self._counter = TokenCounter(info.api() if info else None)
        self.last_restart_s: float | None = None

    @property
    def info(self) -> ServerInfo | None:
        """The live server (None: no backend)."""
        return self._info

    @property
    def counter(self) -> TokenCounter:
        """Token counter bound to the live server (its calibration survives a change of server)."""
        return self._counter

    def api(self, timeout: float = 10.0) -> ServerAPI:
        """A ``ServerAPI`` for the live server; CoderError when there is none."""
        return self._require().api(timeout)

    def client(self, timeout: float = 600.0) -> ChatClient:
        """A streaming chat client for the live server; CoderError when there is none."""
        return self._require().chat(timeout)

    def subscribe(self, callback: Listener) -> Callable[[], None]:
        """Call ``callback(info)`` after every change of backend; returns the unsubscribe function."""
        self._listeners.append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(callback)

        return unsubscribe

    def replace(self, info: ServerInfo | None) -> None:
        """Adopt a server started, attached or stopped elsewhere, and notify subscribers."""
        self.last_restart_s = None
        self._set(info)

    def apply(self, decision: KDecision, cancel: threading.Event | None = None) -> ServerInfo | None:
        """Carry out ``decision``; only ``via="restart"`` to a new k changes anything.

        The restart blocks until the new server is verified. Setting ``cancel``
        meanwhile kills the half-started server and raises CoderError; the old server
        was already stopped, so :attr:`info` is then None (subscribers are told).
        """
        info = self._info
        if decision.via != "restart" or decision.k is None or (info is not None and info.k == decision.k):
            return info
        if self.profile is None or (info is not None and not info.managed):
            raise CoderError("this backend is not managed by coder: restart it yourself with the new k")
        with self._lock:
            start = time.monotonic()
            try:
                new = self._restart_fn(self.profile, decision.k, cancel)
            except BaseException:
                self._set(None)
                raise
            self.last_restart_s = time.monotonic() - start
            self.profile = self.profile.with_overrides(k=decision.k)
            self._set(new)
        return new

    def _require(self) -> ServerInfo:
        if self._info is None:
            raise CoderError("no backend is running; start one with `coder backend start`")
        return self._info

    def _set(self, info: ServerInfo | None) -> None:
        self._info = info
        self._counter = TokenCounter(info.api() if info else None, self._counter.ratio, self._counter.calibrated,
                                     self._counter.sample)
        for listener in list(self._listeners):
            listener(info)
