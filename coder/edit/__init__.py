"""Full-file and region edits built for speculative decoding, applied safely with git.

The names below are imported on first use (PEP 562), so ``import coder.edit.X`` of a light
module (``coder edit --help`` needs only the mode names) does not load git, the HTTP client
and the edit engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coder.edit.checks.reply import EditRefused
    from coder.edit.proposal import ApplyResult, EditProposal, EditRequest
    from coder.edit.run.engine import EditEngine
    from coder.edit.run.prompt import build_messages

MODES = ("full", "region", "auto")  # edit modes: auto picks full or region by predicted time

_EXPORTS = {
    "EditEngine": "coder.edit.run.engine",
    "ApplyResult": "coder.edit.proposal",
    "EditProposal": "coder.edit.proposal",
    "EditRequest": "coder.edit.proposal",
    "build_messages": "coder.edit.run.prompt",
    "EditRefused": "coder.edit.checks.reply",
}


def __getattr__(name: str) -> object:
    """Import an exported name from its module on first access."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'coder.edit' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [  # noqa: RUF022 (grouped like _EXPORTS)
    "MODES",
    "EditEngine",
    "ApplyResult", "EditProposal", "EditRequest",
    "build_messages",
    "EditRefused",
]
