"""Helpers of the EditSession's requests: chat messages, the symbol a message names, undo lines.

The requests themselves go through :mod:`coder.backends.runtime.request`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from coder.session import context

if TYPE_CHECKING:
    from coder.conversations import Conversation
    from coder.edit.gitops import UndoResult

CHAT_SYSTEM = ("You are a concise coding assistant working in the user's repository. Answer the question; "
               "show code in fenced blocks with a language tag.")
HISTORY_TURNS = 20  # chat turns sent back to the model with a question


def chat_messages(root: Path, session: Conversation, question: str) -> list[dict[str, str]]:
    """System prompt with the context files, recent history, then the question (reads files)."""
    system = CHAT_SYSTEM
    for rel, body in context.read_context(root, session.context_files):
        system += f"\n\nFile {rel}:\n```\n{body}\n```"
    history = session.chat_messages()[:-1][-HISTORY_TURNS:]  # the question itself is added below
    return [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]


def mentioned_symbol(root: Path, rel: str, instruction: str) -> str | None:
    """The function or class of ``rel`` the instruction names (region mode), else None."""
    from coder.edit.regions import mentioned_symbol as find

    try:
        text = (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    region = find(rel, text, instruction)
    return region.name if region is not None and region.name else None


def undo_text(result: UndoResult) -> str:
    """One line describing an undone commit."""
    return f"{result.sha[:8]} {result.subject!r} ({', '.join(result.paths)} restored)"
