"""Which files an edit may target, and which are too large to try.

An edit target is a source file of the work tree: tracked, or one git would track.
Version-control metadata (``.git/config``, ``.git/hooks/*``, ``.hg``, ``.svn``) is never
a target, since rewriting it breaks the repository or runs code on the next commit; a
file git ignores is one only when the user says so (``--allow-ignored``).
"""

from __future__ import annotations

import os
from pathlib import Path

from coder.edit.apply.files import resolve_inside
from coder.edit.apply.gitcli import WorkTree
from coder.errors import CoderError
from coder.textsafe import require_utf8

# Directory (or, for a linked worktree, file) names that hold version-control metadata.
VCS_METADATA = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", ".jj", ".pijul", ".fossil"})
# No tokenizer coder targets has tokens longer than this many bytes (cl100k's longest is
# 128), so a file of more than ctx * this / 2 bytes cannot fit in the prompt and again
# in the reply: refuse it from its size, without reading or tokenizing it.
MAX_BYTES_PER_TOKEN = 256


def _metadata_part(rel_parts: tuple[str, ...]) -> str | None:
    return next((p for p in rel_parts if p in VCS_METADATA), None)


def check_edit_target(root: Path, tree: WorkTree | None, path: Path, *, allow_ignored: bool = False) -> Path:
    """The real path of ``path`` when it may be edited; one-line CoderError otherwise."""
    if "\0" in str(path):
        raise CoderError(f"{str(path)!r}: a path cannot contain NUL bytes")
    require_utf8(str(path), f"the file name {str(path)!r}")
    try:
        return _check(root, tree, path, allow_ignored)
    except OSError as exc:  # a name too long, a loop of symlinks, a permission denied on the way
        raise CoderError(f"{_short(path)}: {exc.strerror or exc}") from None


def _short(path: Path) -> str:
    text = str(path)
    return text if len(text) <= 80 else text[:77] + "..."


def _check(root: Path, tree: WorkTree | None, path: Path, allow_ignored: bool) -> Path:
    given = path if path.is_absolute() else Path.cwd() / path
    real_root = root.resolve()
    # the path as typed (before symlinks) and the real path must both stay out of metadata
    typed = Path(os.path.normpath(given))
    if typed.is_relative_to(real_root) and (part := _metadata_part(typed.relative_to(real_root).parts)):
        raise CoderError(f"{path}: is inside {part}/ (version-control metadata), not a source file; refused")
    try:
        given.lstat()  # a name too long or a loop fails here, as one line, not later in a traceback
    except FileNotFoundError:
        raise CoderError(f"{_short(path)}: no such file") from None
    real = resolve_inside(real_root, given)
    rel = real.relative_to(real_root)
    if part := _metadata_part(rel.parts):
        raise CoderError(f"{path}: resolves into {part}/ (version-control metadata), not a source file; refused")
    if tree is not None:
        git_dir = tree.git_dir
        if real.is_relative_to(git_dir):
            raise CoderError(f"{path}: is inside the git directory {git_dir}; refused")
        for parent in rel.parents:
            if parent != Path(".") and (real_root / parent / ".git").exists():
                raise CoderError(f"{path}: belongs to the nested repository {parent}/, not this one; "
                                 "run coder there")
        if not allow_ignored and tree.is_ignored(rel.as_posix()):
            raise CoderError(f"{path}: is ignored by git (see `git check-ignore -v {rel.as_posix()}`); "
                             "pass --allow-ignored to edit it anyway")
    return real


def check_size(path: Path, ctx: int) -> None:
    """Refuse a file that cannot fit the context, from its byte size alone."""
    given = path if path.is_absolute() else Path.cwd() / path
    try:
        size = given.stat().st_size
    except OSError:
        return  # missing or unreadable: read_snapshot says which, in its own words
    limit = ctx * MAX_BYTES_PER_TOKEN // 2
    if size > limit:
        raise CoderError(f"{path}: {size / 1e6:.1f} MB cannot fit the server context ({ctx} tokens hold at "
                         f"most ~{limit / 1e6:.1f} MB of text and its rewrite); edit a region instead: "
                         "--mode region --lines A-B")
