"""Carrying out slash commands for an :class:`~coder.session.edit_session.EditSession` (no UI).

Parsing and the command table live in :mod:`coder.session.commands`; this is what each command
does to the session. ``/backend`` and ``/theme`` belong to the front end, which gets a
:class:`~coder.session.events.FrontEndCommand`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from coder.errors import CoderError
from coder.session import commands, context
from coder.session import events as ev

if TYPE_CHECKING:
    from collections.abc import Callable

    from coder import conversations
    from coder.config import Profile
    from coder.edit.run.engine import EditEngine


class SessionHost(Protocol):
    """What the commands need from the session they act on (:class:`EditSession` is the one)."""

    repo_root: Path
    conversation: conversations.Conversation
    files: list[str]
    emit: Callable[[ev.Event], None]

    @property
    def profile(self) -> Profile | None:
        """The backend handle's profile: the running server's, else the configured one."""
        ...

    def save(self) -> None:
        """Persist the conversation."""
        ...

    def context_event(self) -> ev.ContextChanged:
        """The context as an event."""
        ...

    def context_changed(self) -> None:
        """Tell the front end, and warm the prompt cache for the new context."""
        ...

    def engine(self) -> EditEngine:
        """The edit engine."""
        ...

    def set_k(self, k: int | None) -> None:
        """Pin or release k."""
        ...


class SlashCommands:
    """The ``cmd_*`` handlers, acting on one session (composed into EditSession, not mixed in)."""

    def __init__(self, host: SessionHost) -> None:
        self.host = host

    def run_command(self, text: str) -> None:
        """Parse and run one ``/command``; a bad one gets one polite line."""
        try:
            cmd = commands.parse(text)
        except commands.CommandError as exc:
            self.host.emit(ev.Note(str(exc), "error"))
            return
        handler: Callable[[list[str]], None] = getattr(self, f"cmd_{cmd.name}")
        handler(cmd.args)

    def _note(self, text: str) -> None:
        self.host.emit(ev.Note(text))

    def _error(self, text: str) -> None:
        self.host.emit(ev.Note(text, "error"))

    def cmd_help(self, args: list[str]) -> None:
        """``/help``."""
        self._note(commands.help_text())

    def cmd_add(self, args: list[str]) -> None:
        """``/add PATH…``: check and add context files."""
        result = context.check_mentions(self.host.repo_root, [a.lstrip("@") for a in args], self.host.files)
        for reason in result.refused:
            self._error(reason)
        for rel in result.added:
            added = self.host.conversation.add_file(rel)
            self._note(f"Added {rel} to the context." if added else f"{rel} is already there.")
        self.host.save()
        self.host.context_changed()

    def cmd_drop(self, args: list[str]) -> None:
        """``/drop [PATH…]``: remove context files (all when none given)."""
        targets = [a.lstrip("@") for a in args] or list(self.host.conversation.context_files)
        for rel in targets:
            name = context.resolve_mention(rel, self.host.conversation.context_files)
            if self.host.conversation.drop_file(name):
                self._note(f"Dropped {name}.")
            else:
                self._error(f"{rel} is not in the context.")
        if not targets:
            self._note("The context is already empty.")
        self.host.save()
        self.host.context_changed()

    def cmd_mode(self, args: list[str]) -> None:
        """``/mode full|region|auto``."""
        self.host.conversation.mode = args[0]
        self.host.save()
        self._note(f"Edit mode: {args[0]}.")
        self.host.context_changed()

    def cmd_k(self, args: list[str]) -> None:
        """``/k [N|auto]``: show, pin or release the draft depth."""
        if not args:
            pinned = self.host.conversation.k_override
            current = pinned if pinned is not None else "auto (per request class)"
            self._note(f"k: {current}. /k N pins it, /k auto returns to coder's choice.")
            return
        value = None if args[0] == "auto" else int(args[0])
        try:
            self.host.set_k(value)
        except CoderError as exc:
            self._error(str(exc))
            return
        self._note("k: auto (per request class)." if value is None else f"k pinned to {value} for every request.")
        self.host.context_changed()

    def cmd_undo(self, args: list[str]) -> None:
        """``/undo``: revert the last commit coder made."""
        from coder.session.streams import undo_text

        try:
            result = self.host.engine().undo()
        except CoderError as exc:
            self._error(f"Nothing undone: {exc}")
            return
        self._note(f"Undone: {undo_text(result)}")

    def cmd_diff(self, args: list[str]) -> None:
        """``/diff``: uncommitted changes of the repository."""
        import git

        try:
            diff = git.Repo(self.host.repo_root).git.diff("HEAD")
        except git.GitCommandError as exc:
            self._error(f"git diff failed: {exc.stderr.strip() or exc}")
            return
        if not diff.strip():
            self._note("No uncommitted changes.")
            return
        self.host.emit(ev.DiffReady(diff))

    def cmd_backend(self, args: list[str]) -> None:
        """``/backend``: the front end opens its backend view."""
        self.host.emit(ev.FrontEndCommand("backend", tuple(args)))

    def cmd_theme(self, args: list[str]) -> None:
        """``/theme [NAME]``: the front end switches theme."""
        self.host.emit(ev.FrontEndCommand("theme", tuple(args)))

    def cmd_bench(self, args: list[str]) -> None:
        """``/bench``: how to measure this backend."""
        profile = self.host.profile
        flag = f" --profile {profile.name}" if profile is not None else ""
        self._note(f"Benchmarks run outside the TUI: `coder bench{flag}` (or --quick). "
                   "Its JSON gives the speculation panel a baseline tok/s for the 'ideal' line.")

    def cmd_clear(self, args: list[str]) -> None:
        """``/clear``: forget the conversation, keep the context files."""
        self.host.conversation.clear()
        self.host.save()
        self.host.emit(ev.Cleared())
        self._note("Conversation cleared; context files kept.")

