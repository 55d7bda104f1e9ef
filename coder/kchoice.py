"""The one k decision type: what one request runs with, how it is applied, and why.

A leaf module, so the backend handle (which applies a choice), the edit engine and the
k policy (which makes one) share it without importing each other. How a choice is applied (``via``):

* ``cap``: sent as the per-request draft cap (coder's llama-server build);
* ``restart``: the managed server is relaunched at ``k`` first (only when it pays);
* ``launch``: nothing to do, the launch k stays;
* ``recommend``: an attached server coder may not restart keeps its launch k.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from coder.jsontypes import JSONObject

Via = Literal["cap", "restart", "launch", "recommend"]


@dataclass(frozen=True)
class KChoice:
    """The k one request runs with, how it is applied, and why (TUI, ``--json``, bench output)."""

    k: int | None  # draft depth in force for this request (None: the launch k / no speculation)
    request_class: str
    reason: str
    via: Via
    source: str = "default"  # override | adaptive | profile | default
    recommended: int | None = None  # the k we would use, when it could not be applied

    @property
    def cap(self) -> int | None:
        """The value to send as the per-request draft cap (only for ``via="cap"``)."""
        return self.k if self.via == "cap" else None

    def to_dict(self) -> JSONObject:
        """All fields, for ``--json`` and bench reports."""
        return asdict(self)

    def __str__(self) -> str:
        rec = f" (recommended k={self.recommended})" if self.recommended not in (None, self.k) else ""
        return f"k={self.k} [{self.request_class}, {self.via}]{rec}: {self.reason}"
