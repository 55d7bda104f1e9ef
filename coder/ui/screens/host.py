"""What the screens read from the app they run in (:class:`~coder.ui.app.CoderApp` is the one).

A structural type, so a screen reads the app's state without importing the app; what a screen
wants done goes through :mod:`coder.ui.screens.messages`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from textual.app import App

    from coder.backends.engines.base import Check
    from coder.backends.runtime.handle import BackendHandle
    from coder.config import Profile
    from coder.session.feed import Batch


class LagProbe(Protocol):
    """Benchmark hook: told when a batch is appended and when it became visible."""

    def appended(self, batch: Batch) -> None:
        """A batch reached the transcript."""

    def visible(self, batch: Batch) -> None:
        """The refresh showing the batch finished."""

    def finished(self) -> None:
        """The reply ended."""


class ScreenHost(Protocol):
    """The app's state the screens show."""

    backend: BackendHandle
    backend_checked: bool  # a lookup for a running server has finished
    last_checks: list[Check] | None  # the doctor's last results
    lag_probe: LagProbe | None

    @property
    def configured(self) -> Profile:
        """The profile the user chose."""
        ...


def host(app: App[None]) -> ScreenHost:
    """``app`` as the screens see it (CoderApp declares that it is one)."""
    return cast("ScreenHost", app)
