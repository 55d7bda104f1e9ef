"""Full-file and region edits built for speculative decoding, applied safely with git."""

from coder.edit.engine import (
    ApplyResult,
    EditEngine,
    EditProposal,
    EditRequest,
    EditStats,
    FixedK,
    KChoice,
    KChoiceLike,
    KPolicy,
    LaunchK,
    Progress,
)
from coder.edit.prompt import build_messages
from coder.edit.validate import EditRefused

__all__ = [
    "ApplyResult",
    "EditEngine",
    "EditProposal",
    "EditRefused",
    "EditRequest",
    "EditStats",
    "FixedK",
    "KChoice",
    "KChoiceLike",
    "KPolicy",
    "LaunchK",
    "Progress",
    "build_messages",
]
