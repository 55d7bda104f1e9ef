"""Git side of an edit (gitpython): snapshot the user's changes, commit the edit, undo it.

Commits touch only the edited path (``git commit --only``), so whatever else the user
has staged or modified stays exactly as it was. Every git command runs with
``GIT_LITERAL_PATHSPECS=1``: a file named ``*.py`` or ``:(glob)x`` is that one file,
never a pattern that stages the user's other files. Coder's commits are recognised by a
trailer, never by guessing from the message alone.

The steps before an edit's request (find the root, list the tracked files, ask whether git ignores
the target) run plain ``git`` under the same rules (:mod:`coder.edit.apply.gitcli`): GitPython takes
~0.1 s to import, so it loads only where something is committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import git

from coder.edit.apply.gitcli import NO_GIT_HINT as _NO_GIT_HINT
from coder.edit.apply.gitcli import WorkTree, first_reason
from coder.errors import CoderError

EDIT_TRAILER = "Coder-Edit"
SNAPSHOT_TRAILER = "Coder-Snapshot"
_FALLBACK_IDENTITY = ("-c", "user.name=coder", "-c", "user.email=coder@localhost")


def open_repo(start: Path, *, check: bool = True) -> git.Repo | None:
    """The git repository containing ``start`` (a file or directory), or None.

    With ``check`` (the default) a repository git itself refuses to use (another
    user's, a corrupt config, a locked index) is a one-line CoderError with git's
    reason, so nothing is written where nothing could be committed.
    """
    where = start if start.is_dir() else start.parent
    try:
        repo = git.Repo(where, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    except Exception as exc:  # noqa: BLE001 - gitpython parses .git itself; a broken one raises many types
        raise CoderError(f"git cannot use the repository at {where}: {_first_line(str(exc))}"
                         f"{_NO_GIT_HINT}") from None
    literal_paths(repo)
    if check:
        check_usable(repo)
    return repo


def repo_of(tree: WorkTree) -> git.Repo:
    """GitPython's repository of a work tree :func:`coder.edit.apply.gitcli.find_tree` found (paths literal).

    Opened after the request, so what broke since is one CoderError line too (a commit checks usability itself).
    """
    repo = open_repo(tree.root, check=False)
    if repo is None:
        raise CoderError(f"{tree.root} is no longer a git repository{_NO_GIT_HINT}")
    return repo


def literal_paths(repo: git.Repo) -> None:
    """Make every path coder hands git through ``repo`` literal (no globs, no ``:(magic)``)."""
    repo.git.update_environment(GIT_LITERAL_PATHSPECS="1")


def git_lines(text: str) -> list[str]:
    """git's own message lines out of a GitCommandError's text (gitpython wraps it in ``stderr: '...'``)."""
    lines = []
    for raw in text.strip().splitlines():
        line = raw.strip()
        for wrapper in ("stderr: '", "stdout: '"):
            line = line.removeprefix(wrapper)
        if line:
            lines.append(line)
    if lines and lines[-1].endswith("'") and lines[-1].count("'") % 2:
        lines[-1] = lines[-1][:-1]  # gitpython's closing quote, not git's
    return lines


def _first_line(text: str) -> str:
    return first_reason(git_lines(text))


def check_usable(repo: git.Repo) -> None:
    """Raise CoderError with git's own reason when git cannot work in ``repo``."""
    where = repo.working_tree_dir or repo.git_dir
    try:
        repo.git.execute(["git", "rev-parse", "--git-dir", "--show-toplevel"])
        if (Path(repo.git_dir) / "index.lock").exists():
            # fails without touching anything while the lock is held; its message is git's reason
            repo.git.execute(["git", "update-index", "--refresh"])
    except git.GitCommandError as exc:
        raise CoderError(f"git cannot use the repository at {where}: "
                         f"{_first_line(str(exc.stderr or exc.stdout or exc))}{_NO_GIT_HINT}") from None


def root_of(repo: git.Repo) -> Path:
    """The work tree root of ``repo``."""
    if repo.working_tree_dir is None:
        raise CoderError("bare git repositories are not supported")
    return Path(repo.working_tree_dir).resolve()


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
        detail = git_lines(exc.stderr or exc.stdout or "")
        raise CoderError(f"git {args[0]} failed: {detail[-1] if detail else exc}") from None


def file_status(repo: git.Repo, rel: str) -> str:
    """Porcelain status of one path: '' when clean, '??' untracked, '!!' ignored, else 'XY'."""
    out = repo.git.status("--porcelain", "--ignored", "--", rel)
    return out[:2] if out else ""


def _commit_only(repo: git.Repo, rels: Sequence[str], message: str) -> str:
    _git(repo, "add", "--", *rels)  # needed for untracked files; --only then takes the work tree copy
    _git(repo, "commit", "--no-verify", "--quiet", "--only", "-m", message, "--", *rels)
    return repo.head.commit.hexsha


def is_dirty(repo: git.Repo, rel: str) -> bool:
    """True when the path differs from HEAD in the index or work tree, or is untracked."""
    return file_status(repo, rel) not in ("", "!!")


def is_ignored(repo: git.Repo, rel: str) -> bool:
    """True when git ignores ``rel``."""
    return file_status(repo, rel) == "!!"


def snapshot(repo: git.Repo, rel: str) -> str:
    """Commit the user's current version of ``rel`` (only that path) before coder edits it."""
    return _commit_only(repo, [rel], f"coder: snapshot of your changes to {rel}\n\n{SNAPSHOT_TRAILER}: {rel}\n")


def commit_edit(repo: git.Repo, rel: str | Sequence[str], instruction: str) -> str:
    """Commit the edited ``rel`` (one path, or several: one commit) as ``coder: <instruction>``; returns the sha.

    Each path gets its own ``Coder-Edit:`` trailer, so ``coder undo`` restores all of them.

    The instruction is the user's (or a pasted prompt's) text: it is quoted line by line
    (``> ``), so nothing in it can form a ``Coder-Edit:`` trailer that undo would trust.
    """
    subject = " ".join(instruction.split())
    if len(subject) > 64:
        subject = subject[:63] + "…"
    body = "\n".join(f"> {line}".rstrip() for line in instruction.strip().splitlines())
    rels = [rel] if isinstance(rel, str) else list(rel)
    trailers = "".join(f"{EDIT_TRAILER}: {r}\n" for r in rels)
    return _commit_only(repo, rels, f"coder: {subject}\n\n{body}\n\n{trailers}")


def _trailer_paths(message: str, trailer: str) -> list[str]:
    """``trailer`` values of the message's last paragraph (git's trailer block); the body never counts."""
    prefix = f"{trailer}: "
    last = message.strip().split("\n\n")[-1]
    return [line[len(prefix):].strip() for line in last.splitlines() if line.startswith(prefix)]


def _check_restorable(repo: git.Repo, head: git.Commit, paths: list[str]) -> None:
    """Every path undo would restore is one the commit changed, inside the work tree and outside .git."""
    root = root_of(repo)
    changed = set(_git(repo, "diff-tree", "--no-commit-id", "--name-only", "-r", "-z", head.hexsha).split("\0"))
    for rel in paths:
        target = (root / rel).resolve()
        inside = target.is_relative_to(root) and ".git" not in target.relative_to(root).parts
        if not rel or Path(rel).is_absolute() or not inside:
            raise CoderError(f"HEAD {head.hexsha[:8]} names {rel!r} for undo, which is outside the work tree "
                             "or inside .git; nothing undone (revert it with git)")
        if rel not in changed:
            raise CoderError(f"HEAD {head.hexsha[:8]} names {rel!r} for undo, but the commit did not change it; "
                             "nothing undone (revert it with git)")


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
    _check_restorable(repo, head, paths)
    for rel in paths:
        if file_status(repo, rel) not in ("", "!!"):
            raise CoderError(f"{rel} changed since coder's commit {head.hexsha[:8]}; nothing undone")
    parent = head.parents[0]
    _git(repo, "checkout", parent.hexsha, "--", *paths)
    _git(repo, "reset", "--soft", parent.hexsha)
    return UndoResult(head.hexsha, subject, paths)

