"""File primitives every writer shares: one ``atomic_write``, one JSON reader, one lock and one log follower.

Every file coder writes (edited sources, sessions, config, controller and manager
state, bench reports) goes through :func:`atomic_write`, so a crash leaves the old
or the new content, never a mix. Every followed log (the manager's load phases,
the TUI backend screen, ``coder backend logs -f``) uses :class:`LogFollower`. JSON files a
user hands coder (bench reports, checkpoint configs) are read by :func:`read_json`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from coder.errors import CoderError
from coder.jsontypes import JSONValue

DEFAULT_MODE = 0o644


def read_json(path: Path) -> JSONValue:
    """The parsed JSON of ``path``; a one-line CoderError (``path:line: ...``) when it is unreadable or invalid."""
    try:
        data: JSONValue = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CoderError(f"{path}: cannot read: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise CoderError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    return data


TMP_SUFFIX = ".coder-tmp"


def _tmp_dir(path: Path, tmp_dir: Path | None) -> Path:
    """``tmp_dir`` when a rename from there to ``path`` is possible (same file system), else ``path``'s dir."""
    if tmp_dir is None:
        return path.parent
    try:
        tmp_dir.mkdir(mode=0o700, exist_ok=True)
        if os.stat(tmp_dir).st_dev == os.stat(path.parent).st_dev:
            return tmp_dir
    except OSError:
        pass
    return path.parent


def clean_stale_temps(directory: Path, name: str | None = None) -> int:
    """Remove temp files a killed writer left in ``directory`` (only ``name``'s when given); how many.

    Call it only where no other writer can be mid-write (under the lock that serialises them).
    """
    pattern = f".{name}.*{TMP_SUFFIX}" if name is not None else f"*{TMP_SUFFIX}"
    removed = 0
    with contextlib.suppress(OSError):
        for stale in directory.glob(pattern):
            with contextlib.suppress(OSError):
                if stale.is_file() and not stale.is_symlink():
                    stale.unlink()
                    removed += 1
    return removed


def atomic_write(path: Path, data: bytes | str, *, mode: int | None = None, encoding: str = "utf-8",
                 tmp_dir: Path | None = None) -> None:
    """Replace ``path`` with ``data`` all at once.

    A temporary file is written, fsynced and renamed over the target, then the
    directory is fsynced so the rename is durable. The temporary file lives in
    ``tmp_dir`` when given and on the same file system (an edited source's goes under
    ``.git/``, where git never shows it), else next to the target. An existing file
    keeps its mode bits; a new one gets ``mode`` (default 0644). ``mode`` also forces
    the bits of an existing file (0600 for files holding keys).
    """
    raw = data.encode(encoding) if isinstance(data, str) else data
    if mode is None:
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else DEFAULT_MODE
    try:
        fd, tmp_name = tempfile.mkstemp(dir=_tmp_dir(path, tmp_dir), prefix=f".{path.name}.", suffix=TMP_SUFFIX)
    except OSError as exc:
        raise CoderError(f"{path}: cannot write in {path.parent}: {exc.strerror}") from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CoderError(f"{path}: write failed: {exc.strerror}") from None
    try:
        os.replace(tmp, path)
    except OSError as exc:  # the temp file may live elsewhere: the target's directory refused the rename
        tmp.unlink(missing_ok=True)
        raise CoderError(f"{path}: write failed: cannot write in {path.parent}: {exc.strerror}") from None
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Make renames in ``directory`` durable (best effort: some filesystems refuse a directory fsync)."""
    with contextlib.suppress(OSError):
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


@contextlib.contextmanager
def file_lock(path: Path, waiting: Callable[[], None] | None = None,
              timeout: float | None = None) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing); ``waiting`` runs once if another holds it.

    With ``timeout``, waiting longer than that many seconds raises :class:`TimeoutError`.
    The kernel drops the lock when the holder dies, so a killed process never leaves it stuck.
    """
    with path.open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting:
                waiting()
            _wait_for_lock(fh.fileno(), timeout)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _wait_for_lock(fd: int, timeout: float | None) -> None:
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    import time

    until = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= until:
                raise TimeoutError(f"lock held for more than {timeout:.0f} s") from None
            time.sleep(0.05)


LinesCallback = Callable[[list[str]], None]


class LogFollower:
    """Follows a growing text file on a daemon thread and hands over new lines in batches.

    Copes with the file not existing yet and with it being replaced (a restarted
    server rotates its log): a new inode or a shrunk file is read from the start.
    ``on_lines`` runs on the follower thread; it gets complete lines only.
    """

    def __init__(self, path: Path, on_lines: LinesCallback, *, from_start: bool = True,
                 interval: float = 0.2) -> None:
        self.path = path
        self.on_lines = on_lines
        self.interval = interval
        self._from_start = from_start
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> LogFollower:
        """Start the thread (once); returns ``self`` for chaining."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"follow {self.path.name}", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 1.0) -> None:
        """Ask the thread to finish and wait up to ``timeout`` seconds for it."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def stopped(self) -> bool:
        """True once :meth:`stop` was called."""
        return self._stop.is_set()

    def _run(self) -> None:
        inode: int | None = None
        offset = 0
        partial = b""
        first = True
        while not self._stop.is_set():
            try:
                st = self.path.stat()
            except OSError:
                st = None
            if st is not None:
                if inode != st.st_ino or st.st_size < offset:
                    skip = first and not self._from_start
                    inode, offset, partial = st.st_ino, (st.st_size if skip else 0), b""
                first = False
                if st.st_size > offset:
                    offset, partial = self._read(offset, partial)
            self._stop.wait(self.interval)

    def _read(self, offset: int, partial: bytes) -> tuple[int, bytes]:
        try:
            with self.path.open("rb") as fh:
                fh.seek(offset)
                chunk = fh.read()
        except OSError:
            return offset, partial
        data = partial + chunk
        *lines, rest = data.split(b"\n")
        if lines:
            from coder.textsafe import visible  # a log quotes the model's output: shown, not interpreted

            self.on_lines([visible(line.decode(errors="replace")) for line in lines])
        return offset + len(chunk), rest
