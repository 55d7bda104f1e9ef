"""Reading the file an edit targets, showing the diff, and writing the result safely."""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from coder.errors import CoderError
from coder.fsutil import atomic_write, clean_stale_temps, file_lock

# The largest file coder reads for an edit, region edits included: the whole text is held,
# hashed, re-read before writing and diffed, and source files are far smaller than this.
MAX_FILE_BYTES = 8 * 2**20


@dataclass(frozen=True)
class FileSnapshot:
    """A file's content when the request was built; ``text`` uses ``\\n`` line endings."""

    path: Path  # resolved real path, inside ``root``
    rel: str  # POSIX path relative to ``root``
    root: Path
    raw: bytes
    text: str
    crlf: bool  # most lines end in CRLF: the ending new lines get where no neighbour says otherwise
    endings: tuple[str, ...] = ()  # each line's own ending ("\r\n" or "\n"), restored on write

    @property
    def sha256(self) -> str:
        """Hash of the bytes read, to detect a change on disk before writing."""
        return hashlib.sha256(self.raw).hexdigest()

    def encode(self, text: str) -> bytes:
        """``text`` with the file's own line endings, line by line (a mixed file stays mixed).

        A line the edit kept keeps its ending; a changed line takes the ending of the
        line it replaces, an added one that of the line before it. A line the reply
        itself ends in CR (``\\r\\n``) keeps it: the diff shows that CR as ``^M``.
        """
        if "\r\n" not in self.endings:
            return text.encode("utf-8")
        old, new = self.text.split("\n"), text.split("\n")
        default = "\r\n" if self.crlf else "\n"
        ends = list(self.endings)

        def end(i: int) -> str:
            return ends[i] if 0 <= i < len(ends) else default

        new_ends = [default] * (len(new) - 1)
        for tag, i1, i2, j1, j2 in _opcodes(old, new):
            for j in range(j1, min(j2, len(new_ends))):
                if tag == "equal":
                    new_ends[j] = end(i1 + j - j1)
                    continue
                theirs = end(min(i1 + j - j1, i2 - 1)) if tag == "replace" else end(i1 - 1 if i1 else 0)
                new_ends[j] = "\n" if new[j].endswith("\r") else theirs  # the reply's own CR stays
        return ("".join(line + e for line, e in zip(new, new_ends, strict=False)) + new[-1]).encode("utf-8")


def _split_endings(decoded: str) -> tuple[str, tuple[str, ...]]:
    """The text with ``\\n`` endings, and each line's original ending."""
    if "\r\n" not in decoded:
        return decoded, ()
    parts = decoded.split("\n")
    endings = tuple("\r\n" if p.endswith("\r") else "\n" for p in parts[:-1])
    lines = [p[:-1] if p.endswith("\r") else p for p in parts[:-1]]
    return "\n".join([*lines, parts[-1]]), endings


def resolve_inside(root: Path, path: Path) -> Path:
    """The real path of ``path``, refusing anything (symlinks included) that leaves ``root``."""
    real_root = root.resolve()
    given = path if path.is_absolute() else Path.cwd() / path
    real = given.resolve()
    if not real.is_relative_to(real_root):
        if given.is_symlink() or any(p.is_symlink() for p in given.parents if p.is_relative_to(real_root)):
            raise CoderError(f"{path}: is a symlink that points outside the repository ({real})")
        raise CoderError(f"{real}: is outside the repository {real_root}")  # resolved: no /repo/../x
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
        with real.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size  # judged before reading: a sparse 64 GB file costs nothing
            if size > MAX_FILE_BYTES:
                raise CoderError(f"{path}: {size / 1e6:,.1f} MB is larger than coder edits "
                                 f"({MAX_FILE_BYTES // 2**20} MiB at most, in any mode)")
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise CoderError(f"{path}: cannot read: {exc.strerror}") from None
    if len(raw) > MAX_FILE_BYTES:  # grew between the stat and the read
        raise CoderError(f"{path}: grew past {MAX_FILE_BYTES // 2**20} MiB while being read")
    if b"\0" in raw[:8192]:
        raise CoderError(f"{path}: looks binary (NUL bytes); coder edits text files only")
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CoderError(f"{path}: is not UTF-8 text; coder edits text files only") from None
    text, endings = _split_endings(decoded)
    crlf = endings.count("\r\n") * 2 > len(endings)
    return FileSnapshot(real, real.relative_to(root.resolve()).as_posix(), root.resolve(), raw, text, crlf,
                        endings)


# Above this many line pairs in the changed middle, matching without autojunk can take
# seconds (it is quadratic in repeated lines); difflib's heuristic is used there instead.
EXACT_DIFF_PAIRS = 25_000_000
DISPLAY_DIFF_LINES = 4000  # what a terminal review shows; the rest is counted, not printed


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """Edit operations ``a`` → ``b``: the common head and tail, and the middle matched without autojunk.

    difflib's autojunk treats a line that fills more than 1 % of a long file as noise,
    so a one-line change among 300 identical lines came out as 300 changed lines. An
    edit (a region above all) changes a small middle of the file: matching only that
    middle, exactly, is both right and cheap.
    """
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head:len(a) - tail], b[head:len(b) - tail]
    exact = len(mid_a) * len(mid_b) <= EXACT_DIFF_PAIRS
    middle = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=not exact).get_opcodes() if mid_a or mid_b else []
    codes = [("equal", 0, head, 0, head)] if head else []
    codes += [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in middle]
    if tail:
        codes.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return codes


class _Given(difflib.SequenceMatcher[str]):
    """difflib's hunk grouping over operations computed by :func:`_opcodes`."""

    def __init__(self, codes: list[tuple[str, int, int, int, int]]) -> None:
        super().__init__(None, [], [])
        self._codes = codes

    def get_opcodes(self) -> list[tuple[str, int, int, int, int]]:  # type: ignore[override]
        """The given operations (difflib's ``get_grouped_opcodes`` reads them from here)."""
        return self._codes


def _range(start: int, stop: int) -> str:
    """A hunk range in unified-diff notation (``start,length``; a single line is just its number)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def unified_diff(rel: str, old: str, new: str, context: int = 3) -> str:
    """A unified diff of ``old`` → ``new`` labelled with ``rel``: coder's one diff (CLI, TUI, JSON)."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    matcher = _Given(_opcodes(a, b))
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(context):
        if not out:
            out += [f"--- a/{rel}\n", f"+++ b/{rel}\n"]
        out.append(f"@@ -{_range(group[0][1], group[-1][2])} +{_range(group[0][3], group[-1][4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            out += ["-" + line for line in a[i1:i2]]
            out += ["+" + line for line in b[j1:j2]]
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)


def display_diff(diff: str, max_lines: int = DISPLAY_DIFF_LINES) -> str:
    """``diff`` cut to ``max_lines`` for a terminal, with a last line counting what was left out."""
    lines = diff.splitlines(keepends=True)
    if len(lines) <= max_lines:
        return diff
    added, removed = diff_stat("".join(lines[max_lines:]))
    return "".join(lines[:max_lines]) + (f"... {len(lines) - max_lines} more diff lines not shown "
                                         f"(+{added} -{removed})\n")


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
        with snapshot.path.open("rb") as fh:
            now = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise CoderError(f"{snapshot.rel}: cannot re-read before writing: {exc.strerror}") from None
    if hashlib.sha256(now).hexdigest() != snapshot.sha256:
        raise CoderError(f"{snapshot.rel}: changed on disk since the edit was requested; not written")


def write_edit(snapshot: FileSnapshot, new_text: str, tmp_dir: Path | None = None) -> None:
    """Check the file is as it was, then write ``new_text`` atomically (the temp file in ``tmp_dir``)."""
    check_unchanged(snapshot)
    atomic_write(snapshot.path, snapshot.encode(new_text), tmp_dir=tmp_dir)


APPLY_LOCK_WAIT_S = 30.0  # an apply holds the lock for a re-read, a rename and a commit: well under a second


def work_dirs(snapshot: FileSnapshot, git_dir: Path | None) -> tuple[Path, Path]:
    """(lock file, temp dir) for applying to ``snapshot``: under the repository's git dir, else the cache.

    The temp file of an edit never lands in the work tree, where git would show it
    untracked after a crash (the cache is used only on the work tree's file system).
    """
    if git_dir is not None:
        return git_dir / "coder-apply.lock", git_dir / "coder-tmp"
    from coder.paths import cache_dir, ensure

    key = hashlib.sha256(str(snapshot.path).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return ensure(cache_dir() / "locks") / f"{key}.lock", cache_dir() / "tmp"


@contextlib.contextmanager
def apply_lock(snapshot: FileSnapshot, git_dir: Path | None) -> Iterator[Path]:
    """Hold the apply lock from the unchanged-check through the rename and the commit; yields the temp dir.

    One lock per repository (per file without git): a second edit waits for the first,
    then finds the file changed and refuses in one line, so neither is silently lost.
    Temp files a killed coder left behind are removed once the lock is held.
    """
    lock, tmp_dir = work_dirs(snapshot, git_dir)
    try:
        with file_lock(lock, timeout=APPLY_LOCK_WAIT_S):
            clean_stale_temps(tmp_dir)
            clean_stale_temps(snapshot.path.parent, snapshot.path.name)  # written next to it before
            yield tmp_dir
    except TimeoutError:
        raise CoderError(f"{snapshot.rel}: another coder edit of this repository has been applying for more "
                         f"than {APPLY_LOCK_WAIT_S:.0f} s ({lock} is locked); not written") from None
