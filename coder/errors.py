"""The one exception type the CLI turns into a one-line message."""

from __future__ import annotations


class CoderError(Exception):
    """A user-facing failure: its message is one line that says what to do."""
