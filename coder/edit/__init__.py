"""Full-file and region edits built for speculative decoding, applied safely with git."""

from coder.edit.engine import EditEngine
from coder.edit.model import (
    ApplyResult,
    EditProposal,
    EditRequest,
    FixedK,
    KChoice,
    KChoiceLike,
    KPolicy,
    LaunchK,
    LearningKPolicy,
)
from coder.edit.prompt import build_messages
from coder.edit.validate import EditRefused

__all__ = [
    "ApplyResult",
    "EditEngine",
    "EditProposal",
    "EditRefused",
    "EditRequest",
    "FixedK",
    "KChoice",
    "KChoiceLike",
    "KPolicy",
    "LaunchK",
    "LearningKPolicy",
    "build_messages",
]
