"""Conversations: the chat and the context files, saved per repository (headless).

Conversations live in ``data_dir()/sessions/<repo key>/<session id>.json``; the repo key is
the repository's directory name plus a short hash of its resolved path, so two clones
with the same name never share history. ``--resume`` loads the most recently saved one.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from coder.errors import CoderError
from coder.jsontypes import JSONObject
from coder.paths import data_dir, ensure

ROLES = ("user", "assistant", "system", "note")


@dataclass
class Turn:
    """One entry of the conversation; ``note`` turns are UI notices never sent to the model."""

    role: str
    content: str
    ts: float = field(default_factory=time.time)


@dataclass
class Conversation:
    """A conversation in one repository, with the files the user added as context."""

    repo: str
    id: str = field(default_factory=lambda: time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid() % 10000:04d}")
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    mode: str = "auto"  # full | region | auto
    k_override: int | None = None
    context_files: list[str] = field(default_factory=list)  # repo-relative POSIX paths
    turns: list[Turn] = field(default_factory=list)

    def add_turn(self, role: str, content: str) -> Turn:
        """Append one turn (``role`` one of :data:`ROLES`)."""
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        turn = Turn(role, content)
        self.turns.append(turn)
        return turn

    def add_file(self, rel: str) -> bool:
        """Add a context file; False if it was already there."""
        if rel in self.context_files:
            return False
        self.context_files.append(rel)
        return True

    def drop_file(self, rel: str) -> bool:
        """Remove a context file; False if it was not there."""
        if rel not in self.context_files:
            return False
        self.context_files.remove(rel)
        return True

    def chat_messages(self) -> list[dict[str, str]]:
        """The turns the model sees (user/assistant/system), in order."""
        return [{"role": t.role, "content": t.content} for t in self.turns if t.role != "note"]

    def clear(self) -> None:
        """Forget the conversation (context files stay)."""
        self.turns.clear()

    def to_dict(self) -> JSONObject:
        """The JSON form."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Conversation:
        """Inverse of :meth:`to_dict`; unknown keys are ignored."""
        raw_turns = data.get("turns")
        turns = [Turn(**t) for t in raw_turns if isinstance(t, dict)] if isinstance(raw_turns, list) else []
        known = set(cls.__dataclass_fields__) - {"turns"}
        fields: dict[str, Any] = {k: v for k, v in data.items() if k in known}  # as to_dict wrote them
        return cls(**fields, turns=turns)


def repo_key(repo_root: Path) -> str:
    """The directory name plus a short hash of the resolved path."""
    resolved = repo_root.resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    return f"{resolved.name or 'root'}-{digest}"


def conversations_dir(repo_root: Path) -> Path:
    """Where this repository's conversations live (``sessions/``: the folder keeps its first name)."""
    return data_dir() / "sessions" / repo_key(repo_root)


def new_conversation(repo_root: Path) -> Conversation:
    """An empty conversation for the repository."""
    return Conversation(repo=str(repo_root.resolve()))


def conversation_path(conversation: Conversation) -> Path:
    """The file a conversation is saved to."""
    return conversations_dir(Path(conversation.repo)) / f"{conversation.id}.json"


def save(conversation: Conversation) -> Path:
    """Write the conversation with :func:`coder.fsutil.atomic_write`, so a crash never leaves half a file."""
    from coder.fsutil import atomic_write

    conversation.updated = time.time()
    path = conversation_path(conversation)
    ensure(path.parent)
    atomic_write(path, json.dumps(conversation.to_dict(), indent=1), mode=0o600)  # conversations are private
    return path


def load(path: Path) -> Conversation:
    """Read one conversation file; CoderError when unreadable."""
    try:
        return Conversation.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError) as exc:
        raise CoderError(f"conversation {path.name} is unreadable: {exc}") from None


def list_conversations(repo_root: Path) -> list[Path]:
    """Saved conversations of this repository, most recently updated last."""
    folder = conversations_dir(repo_root)
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.json"), key=lambda p: (p.stat().st_mtime, p.name))


def load_last(repo_root: Path) -> Conversation | None:
    """The last saved conversation of the repository, skipping unreadable files; None if none."""
    for path in reversed(list_conversations(repo_root)):
        try:
            return load(path)
        except CoderError:
            continue
    return None
