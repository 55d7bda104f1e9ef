"""The live backend of one coder session: which server, how to talk to it, and its k policy.

One :class:`BackendHandle` is shared by everything that talks to the server (the edit
engine, chat, the TUI footer and live panel). It owns the live :class:`ServerInfo`, the one
home of the profile (:attr:`~BackendHandle.configured`, the one the user chose, and
:attr:`~BackendHandle.running`, the one the live server runs, found by the one adopt rule
:meth:`~BackendHandle.profile_of`), a token counter and a chat-client factory bound to it, and the
k policy: it alone asks the policy for a :class:`~coder.kchoice.KChoice` (:meth:`decide`),
carries it out once per request (:meth:`apply`: a ``via="restart"`` decision relaunches the
managed profile at the new launch k, cancellable through a ``threading.Event``), feeds the
finished request back (:meth:`learn`) and points the policy at a changed server.
Whenever the backend changes, every subscriber is called with the new info (or None)
from the thread that made the change; no Textual here, the TUI posts its own
``BackendChanged`` message from the callback.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from coder.backends.runtime.server import ServerAPI, ServerInfo
from coder.config import Profile
from coder.errors import CoderError
from coder.kchoice import KChoice
from coder.tokens import TokenCounter

if TYPE_CHECKING:
    from coder.backends.runtime.chat import ChatClient
    from coder.telemetry.metrics import SpecDelta, SpecStats
    from coder.telemetry.stats import Timings

Listener = Callable[[ServerInfo | None], None]
RestartFn = Callable[[Profile, int, threading.Event | None], ServerInfo]


class KChooser(Protocol):
    """What the backend handle needs from a k policy; it alone calls these."""

    def choose(self, request_class: str) -> KChoice:
        """The k for the next request of ``request_class``; pure (nothing happens on the server)."""
        ...

    def override(self, k: int | None, request_class: str | None = None) -> None:
        """Pin k for one class (all with None); ``k=None`` removes the pin; CoderError when invalid."""
        ...

    def learn(self, request_class: str, k: int | None, timings: Timings, delta: SpecDelta | None = None) -> None:
        """One finished request of ``request_class`` run at ``k``: its timings and /metrics delta."""
        ...

    def follow(self, server: ServerInfo | None, restart_s: float | None = None) -> None:
        """The backend changed (``restart_s``: the measured relaunch time, when it was a restart)."""
        ...


class LaunchK:
    """The policy of a server without a known launch k: its launch k, or the one k the user pinned.

    A pin (``--k N`` on an attached server coder knows nothing about) is sent as a
    per-request cap; whether the server honours it is the server's business.
    """

    def __init__(self, k: int | None = None) -> None:
        self.k = k

    def choose(self, request_class: str) -> KChoice:
        """The pinned k as a cap, else the launch k."""
        if self.k is not None:
            return KChoice(self.k, request_class, f"fixed by the user (k={self.k})", "cap", "override")
        return KChoice(None, request_class, "launch k, no per-request cap", "launch")

    def override(self, k: int | None, request_class: str | None = None) -> None:
        """Pin ``k`` for every class (a per-class pin needs a server whose launch k is known)."""
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise CoderError(f"k must be a whole number of at least 1, got {k!r}")
        if request_class is not None:
            raise CoderError("a per-class k needs a server whose launch k coder knows")
        self.k = k

    def learn(self, request_class: str, k: int | None, timings: Timings, delta: SpecDelta | None = None) -> None:
        """Nothing to learn."""

    def follow(self, server: ServerInfo | None, restart_s: float | None = None) -> None:
        """Nothing to follow."""


PolicyFactory = Callable[[Profile, ServerInfo], KChooser]


def chat_client(info: ServerInfo, timeout: float = 600.0) -> ChatClient:
    """A streaming chat client for ``info``, carrying its engine's request extras.

    Requests go through :mod:`coder.backends.runtime.request`; only the SSE client's own tests
    read a stream from this directly.
    """
    from coder.backends.engines.registry import adapter_for
    from coder.backends.runtime.chat import ChatClient

    return ChatClient(info.url, info.api_key, adapter_for(info.engine), timeout, model=info.served_model)


def _manager_restart(profile: Profile, k: int, cancel: threading.Event | None) -> ServerInfo:
    from coder.backends.runtime import manager

    return manager.restart(profile, k, cancel=cancel)


class BackendHandle:
    """Owns the live server and notifies subscribers when it changes."""

    def __init__(self, info: ServerInfo | None = None, profile: Profile | None = None, *,
                 configured: Profile | None = None, profiles: Mapping[str, Profile] | None = None,
                 policy_factory: PolicyFactory | None = None,
                 restart_fn: RestartFn | None = None) -> None:
        """``profile``: the profile ``info`` runs (None: not launched by coder); ``configured``:
        the one the user chose (default: ``profile``), which a Start launches; ``profiles``: the
        config's profiles, by which :meth:`adopt` names a server's recorded profile."""
        self._info = info
        self.configured = configured or profile
        self._running = profile if info is not None else None
        self._policy_profile = self._running.name if self._running is not None else None
        self._profiles: Mapping[str, Profile] = profiles or {}
        self._restart_fn = restart_fn or _manager_restart
        self._policy_factory = policy_factory
        self._policy: KChooser | None = None
        self._pin: int | None = None  # the user's k for every class, kept across servers
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()  # one restart at a time
        self._policy_lock = threading.Lock()
        self._api: ServerAPI | None = info.api() if info else None  # the counter's; closed on change
        self._counter = TokenCounter(self._api)
        self.last_restart_s: float | None = None

    # ---- the k policy ------------------------------------------------------------------------------
    @property
    def policy(self) -> KChooser:
        """The k policy for the live server, built on first use and kept across restarts.

        Kept, not rebuilt, so what the adaptive controller learned and the measured
        restart cost survive a change of server. A server without a known launch k (or
        without a profile to build a policy from) gets :class:`LaunchK`.
        """
        with self._policy_lock:
            if self._policy is None:
                info = self._info
                running = self._running
                if self._policy_factory is not None and running is not None and info is not None \
                        and info.k is not None:
                    self._policy = self._policy_factory(running, info)
                else:
                    self._policy = LaunchK()
                if self._pin is not None:
                    with contextlib.suppress(CoderError):  # a pin above what this server can do is dropped
                        self._policy.override(self._pin)
            return self._policy

    def pin(self, k: int | None) -> None:
        """Pin k for every request (None: back to the per-class choice); CoderError when invalid."""
        self.policy.override(k)
        self._pin = k

    def decide(self, request_class: str) -> KChoice:
        """The k the next request of ``request_class`` runs with (pure: nothing happens yet)."""
        return self.policy.choose(request_class)

    def learn(self, choice: KChoice, timings: Timings, delta: SpecDelta | None = None) -> None:
        """Feed one finished request run with ``choice`` back to the policy (never fails the request)."""
        with contextlib.suppress(CoderError):
            self.policy.learn(choice.request_class, choice.k, timings, delta)

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
        return chat_client(self._require(), timeout)

    def snapshot(self) -> SpecStats | None:
        """The live server's ``/metrics`` snapshot (:meth:`ServerAPI.snapshot`); None without a server."""
        if self._info is None:
            return None
        with self._info.api(timeout=2.0) as api:
            return api.snapshot()

    def subscribe(self, callback: Listener) -> Callable[[], None]:
        """Call ``callback(info)`` after every change of backend; returns the unsubscribe function."""
        self._listeners.append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(callback)

        return unsubscribe

    # ---- the profile (its one home) ----------------------------------------------------------------
    @property
    def running(self) -> Profile | None:
        """The profile the live server runs (None: no server, or one coder cannot name a profile for).

        Restarts (the Restart button, a k restart) and Stop act on this one, never on the configured one.
        """
        return self._running

    @property
    def profile(self) -> Profile | None:
        """The profile in effect: the running one, else the configured one (what a Start launches)."""
        return self._running or self.configured

    def profile_of(self, info: ServerInfo | None) -> Profile | None:
        """The one adopt rule: the profile ``info`` runs.

        A coder-managed server records its profile's name: that profile, when the config knows
        it (so a k restart relaunches what runs, not what was configured). A server that does
        not say (attached, or a profile since removed from the config) runs under the
        configured one (``--profile``, else the default), by the recorded name for a managed
        one; restarting an attached server is refused all the same (:meth:`apply`).
        """
        if info is None:
            return None
        if self.configured is not None and info.profile == self.configured.name:
            return self.configured  # the configured one as given (with the user's overrides)
        if info.profile is not None and info.profile in self._profiles:
            return self._profiles[info.profile]
        if self.configured is not None and info.managed and info.profile is not None:
            # its state and lock files go by its recorded name: a restart or stop must find them
            with contextlib.suppress(CoderError):
                return self.configured.with_overrides(name=info.profile)
        return self.configured

    def adopt(self, info: ServerInfo | None) -> None:
        """Adopt a server found or attached elsewhere, with the profile :meth:`profile_of` names."""
        self.replace(info, self.profile_of(info))

    def replace(self, info: ServerInfo | None, profile: Profile | None = None) -> None:
        """Point at ``info`` (None: no backend), which runs ``profile``, and notify subscribers.

        ``profile``: the profile the new server runs (None: unknown; see :meth:`adopt`). A new
        profile gets a new k policy (what was learned belongs to the old server's model and
        drafter); the same profile back (a stop, then a start) keeps it.
        """
        self.last_restart_s = None
        self._running = profile if info is not None else None
        if profile is not None and profile.name != self._policy_profile:
            self._policy_profile = profile.name
            with self._policy_lock:
                self._policy = None
        self._set(info)

    def apply(self, decision: KChoice, cancel: threading.Event | None = None) -> ServerInfo | None:
        """Carry out ``decision``; only ``via="restart"`` to a new k changes anything.

        The restart blocks until the new server is verified. Setting ``cancel``
        meanwhile kills the half-started server and raises CoderError; the old server
        was already stopped, so :attr:`info` is then None (subscribers are told).
        """
        info = self._info
        if decision.via != "restart" or decision.k is None or (info is not None and info.k == decision.k):
            return info
        running = self._running
        if running is None or (info is not None and not info.managed):
            raise CoderError("this backend is not managed by coder: restart it yourself with the new k")
        with self._lock:
            start = time.monotonic()
            try:
                new = self._restart_fn(running, decision.k, cancel)
            except BaseException:
                self._running = None  # the old server was stopped first: nothing runs now
                self._set(None)
                raise
            self.last_restart_s = time.monotonic() - start
            self._running = running.with_overrides(k=decision.k)
            self._set(new)
        return new

    def _require(self) -> ServerInfo:
        if self._info is None:
            raise CoderError("no backend is running; start one with `coder backend start`")
        return self._info

    def close(self) -> None:
        """Close the connection pool kept for the live server (the handle stays usable)."""
        if self._api is not None:
            self._api.close()

    def _set(self, info: ServerInfo | None) -> None:
        self._info = info
        old, self._api = self._api, info.api() if info else None
        self._counter = TokenCounter(self._api, self._counter.ratio, self._counter.calibrated, self._counter.sample)
        if old is not None:
            old.close()  # one pool per server, not one more per change
        with self._policy_lock:
            policy = self._policy
            if isinstance(policy, LaunchK) and info is not None and info.k is not None:
                self._policy = None  # a server whose launch k is known: build the real policy on next use
            elif policy is not None:
                policy.follow(info, self.last_restart_s)
        for listener in list(self._listeners):
            listener(info)
