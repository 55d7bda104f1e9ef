"""One pyflakes pass per text, whoever asks: the undefined names of the result check, the f-strings that format
nothing (:mod:`coder.edit.checks.fstrings`). An evaluation asks about the original and the result several times
(~10 ms a pass on 500 lines); pyflakes only reads the tree."""

from __future__ import annotations

from functools import lru_cache

from pyflakes import checker
from pyflakes.messages import Message

from coder.edit.source.trees import parsed


@lru_cache(maxsize=16)
def flake_messages(text: str) -> tuple[Message, ...] | None:
    """pyflakes' messages on ``text``; None when it does not parse."""
    try:
        tree = parsed(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return tuple(checker.Checker(tree, filename="<edit>").messages)
