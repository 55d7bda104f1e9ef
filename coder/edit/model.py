"""The data of an edit: the k choice it runs with, the request, the proposal, the apply result.

Plain data only (no I/O), shared by the engine, the CLI, the bench and the TUI.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from coder.backends.runtime.server import ServerInfo
from coder.edit.apply import FileSnapshot, diff_stat
from coder.edit.auto import Prediction
from coder.edit.budget import Budget
from coder.edit.prompt import EditPrompt
from coder.edit.regions import Region
from coder.edit.scope import Scope
from coder.telemetry.metrics import SpecDelta
from coder.telemetry.stats import RequestStats, Timings


@dataclass(frozen=True)
class KChoice:
    """Draft depth for one request: ``k=None`` means the server's launch k, uncapped."""

    k: int | None
    reason: str
    via: str


class KChoiceLike(Protocol):
    """Any k choice: this module's :class:`KChoice` or ``coder.kpolicy``'s richer one."""

    @property
    def k(self) -> int | None:
        """Draft depth for the request (None: the launch k)."""
        ...

    @property
    def reason(self) -> str:
        """Why, for the user."""
        ...

    @property
    def via(self) -> str:
        """How it is applied (``cap``, ``restart``, ``launch``, ``recommend``, ``default``, ``user``)."""
        ...


class KPolicy(Protocol):
    """What the edit engine needs from a k policy (``coder.kpolicy.KPolicy`` is the real one)."""

    def choose(self, request_class: str) -> KChoiceLike:
        """The k for the next request of this class; must not act on the server."""
        ...


@runtime_checkable
class LearningKPolicy(KPolicy, Protocol):
    """A policy that learns from finished requests and follows backend changes."""

    def learn(self, request_class: str, k: int | None, timings: Timings, delta: SpecDelta | None = None) -> None:
        """One finished request of ``request_class`` run at ``k``: its timings and /metrics delta."""
        ...

    def follow(self, server: ServerInfo | None, restart_s: float | None = None) -> None:
        """The backend changed (``restart_s``: measured relaunch time, when it was a restart)."""
        ...


class LaunchK:
    """Default policy: leave k at the server's launch value."""

    def choose(self, request_class: str) -> KChoice:
        """Always the launch k."""
        return KChoice(None, "launch k, no per-request cap", "default")


@dataclass(frozen=True)
class FixedK:
    """A k the user asked for (``--k N``)."""

    k: int

    def choose(self, request_class: str) -> KChoice:
        """Always ``self.k``."""
        return KChoice(self.k, f"fixed by the user (--k {self.k})", "user")


@dataclass(frozen=True)
class EditRequest:
    """Everything needed to send one edit and to apply its reply."""

    snapshot: FileSnapshot
    instruction: str
    mode: str  # "full" | "region"
    request_class: str  # "full" | "region" | "fresh"
    mode_reason: str
    region: Region | None
    before: str  # file text before the region (empty in full mode)
    after: str
    prompt: EditPrompt
    budget: Budget
    k: KChoiceLike
    token_source: str
    predictions: dict[str, Prediction] | None = None  # auto mode: both modes' predicted wall times

    @property
    def messages(self) -> list[dict[str, str]]:
        """The chat messages sent."""
        return self.prompt.messages


@dataclass
class EditProposal:
    """A validated edit ready to apply, or the reason it was refused."""

    request: EditRequest
    new: str
    diff: str
    stats: RequestStats
    refusal_code: str | None = None
    refusal: str | None = None
    reply: str = ""
    validate_s: float | None = None  # seconds coder spent validating the reply (Enter-to-diff split)
    spec: SpecDelta | None = None  # /metrics movement around the request (per-position acceptance)
    scope: Scope | None = None  # which changes the instruction explains (accepted proposals)

    @property
    def ok(self) -> bool:
        """True unless refused."""
        return self.refusal is None

    @property
    def path(self) -> Path:
        """Absolute path of the edited file."""
        return self.request.snapshot.path

    @property
    def rel(self) -> str:
        """Path relative to the repository root."""
        return self.request.snapshot.rel

    @property
    def old(self) -> str:
        """The file text the request was built from."""
        return self.request.snapshot.text

    @property
    def mode(self) -> str:
        """``full`` or ``region``."""
        return self.request.mode

    @property
    def request_class(self) -> str:
        """``full``, ``region`` or ``fresh``."""
        return self.request.request_class

    @property
    def k(self) -> int | None:
        """The k the request ran with."""
        return self.request.k.k

    @property
    def k_reason(self) -> str:
        """Why that k."""
        return self.request.k.reason

    @property
    def changed(self) -> bool:
        """True when an accepted proposal changes the file."""
        return self.ok and self.new != self.old

    def to_json(self) -> dict[str, object]:
        """The ``coder edit --json`` form."""
        added, removed = diff_stat(self.diff)
        region = self.request.region
        return {
            "path": self.rel,
            "ok": self.ok,
            "refusal_code": self.refusal_code,
            "refusal": self.refusal,
            "mode": self.mode,
            "mode_reason": self.request.mode_reason,
            "request_class": self.request_class,
            "region": asdict(region) if region else None,
            "k": self.k,
            "k_reason": self.k_reason,
            "k_via": self.request.k.via,
            "k_source": getattr(self.request.k, "source", None),
            "predicted": ({m: {**asdict(p), "total": p.total} for m, p in self.request.predictions.items()}
                          if self.request.predictions else None),
            "changed": self.changed,
            "lines_added": added,
            "lines_removed": removed,
            "diff": self.diff,
            "stats": self.stats.to_dict(),
            "validate_s": self.validate_s,
            "token_source": self.request.token_source,
            "scope": self.scope.to_json() if self.scope else None,
        }


@dataclass(frozen=True)
class ApplyResult:
    """What applying a proposal did: written or not, the commit, notes for the user."""

    path: str
    written: bool
    commit: str | None = None
    snapshot: str | None = None
    notes: list[str] = field(default_factory=list)


