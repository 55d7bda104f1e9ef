"""Git before the request, through plain ``git`` processes: find the work tree, list its files, ask git's verdicts.

An edit needs git twice: before the request (where is the root, may git work there, which files
does it track, does it ignore the target) and after it (snapshot, commit, undo). The first part is
a few read-only ``git`` calls, and GitPython costs ~0.1 s to import, which every ``coder edit``
would pay before its request (issue 35). So the steps before the request run ``git`` here, and
GitPython (:mod:`coder.edit.apply.gitops`) loads only where something is committed.

The rules of :mod:`coder.edit.apply.gitops` hold here too: every command runs with
``GIT_LITERAL_PATHSPECS=1`` (a file named ``*.py`` is that file), git's messages in the C locale (as
GitPython runs it), and a repository git refuses is one CoderError line with git's reason and the
``--no-git`` hint, so nothing is written where nothing could be committed.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from coder.errors import CoderError

NO_GIT_HINT = "; fix it, or pass --no-git to edit without git"
# git's own words for "no repository here", in the C locale every command runs in
_NOT_A_REPO = "not a git repository"
_NOT_A_WORK_TREE = "must be run in a work tree"


class GitFailed(CoderError):
    """A git command exited non-zero; ``lines`` are git's message lines, ``rc`` its status."""

    def __init__(self, args: tuple[str, ...], rc: int, lines: list[str]) -> None:
        super().__init__(f"git {args[0] if args else ''} failed: {lines[-1] if lines else f'exit {rc}'}")
        self.rc = rc
        self.lines = lines

    def reason(self) -> str:
        """git's first ``fatal:``/``error:`` line, else its first line."""
        return first_reason(self.lines)


def first_reason(lines: list[str]) -> str:
    """Of git's message lines, the one that says why: the first ``fatal:``/``error:``, else the first."""
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines or ["unknown error"])[0]


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    # LANGUAGE/LC_ALL as GitPython sets them: git's reasons are matched and shown in one language
    return {**os.environ, "LANGUAGE": "C", "LC_ALL": "C", "GIT_LITERAL_PATHSPECS": "1", **(extra or {})}


def run_git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """``git ARGS`` in ``cwd``: its stdout less the final newline; GitFailed on a non-zero exit."""
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, env=_env(env), stdin=subprocess.DEVNULL,
                              capture_output=True, check=False)
    except OSError as exc:  # no git on PATH, or cwd vanished
        raise CoderError(f"cannot run git: {exc.strerror or exc}{NO_GIT_HINT}") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        lines = [line.strip() for line in err.splitlines() if line.strip()]
        raise GitFailed(args, proc.returncode, lines)
    return proc.stdout.decode("utf-8", "surrogateescape").removesuffix("\n")


@dataclass(frozen=True)
class WorkTree:
    """A git work tree coder may edit in: its root and its git directory (both resolved)."""

    root: Path
    git_dir: Path

    def git(self, *args: str, env: dict[str, str] | None = None) -> str:
        """``git ARGS`` at the root (see :func:`run_git`)."""
        return run_git(self.root, *args, env=env)

    def tracked_files(self) -> list[str]:
        """Paths git tracks, relative to the root, sorted; [] when git cannot list them."""
        try:
            # not -z: names stay quoted as git prints them (``"a\\nb.py"``), which is what
            # the prompt's file list has always shown, and a name cannot break its lines
            return sorted(self.git("ls-files").splitlines())
        except GitFailed:
            return []

    def is_ignored(self, rel: str) -> bool:
        """git's own verdict on ``rel``; a tracked file is never ignored, whatever .gitignore says."""
        try:
            # check-ignore takes path names, never patterns, and refuses the literal-pathspec switch
            self.git("check-ignore", "-q", "--", rel, env={"GIT_LITERAL_PATHSPECS": "0"})
        except GitFailed as exc:
            if exc.rc == 1:
                return False
            raise CoderError(f"git check-ignore failed: {exc.lines[0] if exc.lines else f'exit {exc.rc}'}") from None
        return True


def find_tree(start: Path) -> WorkTree | None:
    """The work tree containing ``start`` (a file or directory), None outside any repository.

    A repository git itself refuses (another user's, a corrupt config, a locked index, a bare one)
    is a one-line CoderError with git's reason. One ``git rev-parse`` in the common case.
    """
    where = start if start.is_dir() else start.parent
    ask = ("rev-parse", "--absolute-git-dir", "--show-toplevel")
    try:
        git_dir, top = run_git(where, *ask).split("\n", 1)
    except GitFailed as exc:
        if any(_NOT_A_REPO in line for line in exc.lines):
            return None
        if not any(_NOT_A_WORK_TREE in line for line in exc.lines):
            raise _refused(where, exc) from None
        # inside the .git directory (or a bare repository): the work tree is the one it belongs to
        git_dir = run_git(where, "rev-parse", "--absolute-git-dir")
        if Path(git_dir).name != ".git":
            raise _refused(where, exc) from None
        top = str(Path(git_dir).parent)
        try:
            git_dir, top = run_git(Path(top), *ask).split("\n", 1)
        except GitFailed as again:
            raise _refused(Path(top), again) from None
    tree = WorkTree(Path(top).resolve(), Path(git_dir).resolve())
    if (tree.git_dir / "index.lock").exists():
        try:  # fails without touching anything while the lock is held; its message is git's reason
            tree.git("update-index", "--refresh")
        except GitFailed as exc:
            raise _refused(tree.root, exc) from None
    return tree


def _refused(where: Path, exc: GitFailed) -> CoderError:
    return CoderError(f"git cannot use the repository at {where}: {exc.reason()}{NO_GIT_HINT}")


def dot_git_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding a ``.git``, without running git (``--no-git``)."""
    here = (start if start.is_dir() else start.parent).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def locate(start: Path, use_git: bool = True) -> tuple[Path, WorkTree | None]:
    """(root, tree) for ``start``: the enclosing git work tree, else ``start`` itself and None."""
    tree = find_tree(start) if use_git else None
    if tree is None:
        return start.resolve(), None
    return tree.root, tree
