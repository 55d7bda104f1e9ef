"""Git side of an edit (gitpython): snapshot the user's changes, commit the edit, undo it.

Commits touch only the edited path (``git commit --only``), so whatever else the user
has staged or modified stays exactly as it was. Coder's commits are recognised by a
trailer, never by guessing from the message alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import git

from coder.errors import CoderError

EDIT_TRAILER = "Coder-Edit"
SNAPSHOT_TRAILER = "Coder-Snapshot"
_FALLBACK_IDENTITY = ("-c", "user.name=coder", "-c", "user.email=coder@localhost")


def open_repo(start: Path) -> git.Repo | None:
    """The git repository containing ``start`` (a file or directory), or None."""
    where = start if start.is_dir() else start.parent
    try:
        return git.Repo(where, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None


def root_of(repo: git.Repo) -> Path:
    """The work tree root of ``repo``."""
    if repo.working_tree_dir is None:
        raise CoderError("bare git repositories are not supported")
    return Path(repo.working_tree_dir).resolve()


def tracked_files(repo: git.Repo) -> list[str]:
    """Paths git tracks in ``repo``, relative to its root."""
    try:
        return sorted(repo.git.ls_files().splitlines())
    except git.GitCommandError:
        return []


def _git(repo: git.Repo, *args: str) -> str:
    """Run git, supplying an identity only when the user has none configured."""
    try:
        repo.git.config("user.email")
        prefix: tuple[str, ...] = ()
    except git.GitCommandError:
        prefix = _FALLBACK_IDENTITY
    try:
        if prefix:
            return str(repo.git.execute(["git", *prefix, *args]))
        return str(repo.git.execute(["git", *args]))
    except git.GitCommandError as exc:
        detail = (exc.stderr or exc.stdout or "").strip().splitlines()
        raise CoderError(f"git {args[0]} failed: {detail[-1] if detail else exc}") from None


def file_status(repo: git.Repo, rel: str) -> str:
    """Porcelain status of one path: '' when clean, '??' untracked, '!!' ignored, else 'XY'."""
    out = repo.git.status("--porcelain", "--ignored", "--", rel)
    return out[:2] if out else ""


def _commit_only(repo: git.Repo, rel: str, message: str) -> str:
    _git(repo, "add", "--", rel)  # needed for untracked files; --only then takes the work tree copy
    _git(repo, "commit", "--no-verify", "--quiet", "--only", "-m", message, "--", rel)
    return repo.head.commit.hexsha


def is_dirty(repo: git.Repo, rel: str) -> bool:
    """True when the path differs from HEAD in the index or work tree, or is untracked."""
    return file_status(repo, rel) not in ("", "!!")


def is_ignored(repo: git.Repo, rel: str) -> bool:
    """True when git ignores ``rel``."""
    return file_status(repo, rel) == "!!"


def snapshot(repo: git.Repo, rel: str) -> str:
    """Commit the user's current version of ``rel`` (only that path) before coder edits it."""
    return _commit_only(repo, rel, f"coder: snapshot of your changes to {rel}\n\n{SNAPSHOT_TRAILER}: {rel}\n")


def commit_edit(repo: git.Repo, rel: str, instruction: str) -> str:
    """Commit the edited ``rel`` as ``coder: <instruction>``; returns the commit sha."""
    subject = " ".join(instruction.split())
    if len(subject) > 64:
        subject = subject[:63] + "…"
    body = instruction.strip()
    return _commit_only(repo, rel, f"coder: {subject}\n\n{body}\n\n{EDIT_TRAILER}: {rel}\n")


def _trailer_paths(message: str, trailer: str) -> list[str]:
    prefix = f"{trailer}: "
    return [line[len(prefix):].strip() for line in message.splitlines() if line.startswith(prefix)]


@dataclass(frozen=True)
class UndoResult:
    """What ``coder undo`` reverted: the commit, its subject and the paths restored."""

    sha: str
    subject: str
    paths: list[str]


def undo_last(repo: git.Repo) -> UndoResult:
    """Revert coder's last edit commit when it is HEAD and its files are untouched since."""
    try:
        head = repo.head.commit
    except ValueError:
        raise CoderError("nothing to undo: the repository has no commits") from None
    message = str(head.message)
    subject = message.splitlines()[0] if message else ""
    paths = _trailer_paths(message, EDIT_TRAILER)
    if not paths:
        if _trailer_paths(message, SNAPSHOT_TRAILER):
            raise CoderError("HEAD is coder's snapshot of your own changes, not an edit; nothing undone")
        raise CoderError(f"HEAD ({head.hexsha[:8]} {subject!r}) is not a coder edit; nothing undone")
    if not head.parents:
        raise CoderError("coder's edit is the repository's first commit; nothing to go back to")
    for rel in paths:
        if file_status(repo, rel) not in ("", "!!"):
            raise CoderError(f"{rel} changed since coder's commit {head.hexsha[:8]}; nothing undone")
    parent = head.parents[0]
    _git(repo, "checkout", parent.hexsha, "--", *paths)
    _git(repo, "reset", "--soft", parent.hexsha)
    return UndoResult(head.hexsha, subject, paths)
