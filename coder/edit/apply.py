"""Reading the file an edit targets, showing the diff, and writing the result safely."""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from pathlib import Path

from coder.errors import CoderError
from coder.fsutil import atomic_write


@dataclass(frozen=True)
class FileSnapshot:
    """A file's content when the request was built; ``text`` uses ``\\n`` line endings."""

    path: Path  # resolved real path, inside ``root``
    rel: str  # POSIX path relative to ``root``
    root: Path
    raw: bytes
    text: str
    crlf: bool  # the file used CRLF: converted back on write

    @property
    def sha256(self) -> str:
        """Hash of the bytes read, to detect a change on disk before writing."""
        return hashlib.sha256(self.raw).hexdigest()

    def encode(self, text: str) -> bytes:
        """``text`` in the file's own line-ending convention."""
        return (text.replace("\n", "\r\n") if self.crlf else text).encode("utf-8")


def resolve_inside(root: Path, path: Path) -> Path:
    """The real path of ``path``, refusing anything (symlinks included) that leaves ``root``."""
    real_root = root.resolve()
    given = path if path.is_absolute() else Path.cwd() / path
    real = given.resolve()
    if not real.is_relative_to(real_root):
        if given.is_symlink() or any(p.is_symlink() for p in given.parents if p.is_relative_to(real_root)):
            raise CoderError(f"{path}: is a symlink that points outside the repository ({real})")
        raise CoderError(f"{path}: is outside the repository {real_root}")
    return real


def read_snapshot(root: Path, path: Path) -> FileSnapshot:
    """Load a text file for editing; one clear error for every kind of bad input."""
    given = path if path.is_absolute() else Path.cwd() / path
    if not given.exists() and not given.is_symlink():
        raise CoderError(f"{path}: no such file")
    real = resolve_inside(root, given)
    if not real.exists():
        raise CoderError(f"{path}: is a dangling symlink")
    if real.is_dir():
        raise CoderError(f"{path}: is a directory, not a file")
    if not real.is_file():
        raise CoderError(f"{path}: is not a regular file")
    try:
        raw = real.read_bytes()
    except OSError as exc:
        raise CoderError(f"{path}: cannot read: {exc.strerror}") from None
    if b"\0" in raw[:8192]:
        raise CoderError(f"{path}: looks binary (NUL bytes); coder edits text files only")
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CoderError(f"{path}: is not UTF-8 text; coder edits text files only") from None
    crlf = "\r\n" in decoded
    text = decoded.replace("\r\n", "\n") if crlf else decoded
    return FileSnapshot(real, real.relative_to(root.resolve()).as_posix(), root.resolve(), raw, text, crlf)


def unified_diff(rel: str, old: str, new: str, context: int = 3) -> str:
    """A unified diff of ``old`` → ``new`` labelled with ``rel``."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{rel}", f"b/{rel}", n=context
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def diff_stat(diff: str) -> tuple[int, int]:
    """(added, removed) line counts of a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def check_unchanged(snapshot: FileSnapshot) -> None:
    """Refuse when the file changed on disk since the request was built."""
    try:
        now = snapshot.path.read_bytes()
    except OSError as exc:
        raise CoderError(f"{snapshot.rel}: cannot re-read before writing: {exc.strerror}") from None
    if hashlib.sha256(now).hexdigest() != snapshot.sha256:
        raise CoderError(f"{snapshot.rel}: changed on disk since the edit was requested; not written")


def write_edit(snapshot: FileSnapshot, new_text: str) -> None:
    """Check the file is as it was, then write ``new_text`` atomically."""
    check_unchanged(snapshot)
    atomic_write(snapshot.path, snapshot.encode(new_text))
