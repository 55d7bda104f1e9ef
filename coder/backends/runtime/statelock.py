"""One lock around a managed server's start and stop, and its state and key files.

Two ``coder backend start`` at once used to launch two servers and record one; a
failed start deleted the other's key. Now each profile has ``servers/NAME.lock``
(``fcntl.flock``, released by the kernel if coder dies): the second start waits,
then finds the first one's server. State JSON never holds an API key: the key lives
in the 0600 key file beside it, and cleanup removes only files whose content is
the failed start's own.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from coder.backends.runtime.server import ServerInfo
from coder.errors import CoderError
from coder.redact import redact_argv

_held = threading.local()  # lock paths this thread holds (re-entry, e.g. restart -> stop -> start)


@contextlib.contextmanager
def locked(path: Path, on_wait: Callable[[str], None] | None = None, timeout: float = 900.0) -> Iterator[None]:
    """Hold the exclusive lock ``path``; ``on_wait`` hears once that another process has it."""
    held: set[str] = getattr(_held, "paths", set())
    _held.paths = held
    key = str(path)
    if key in held:
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                owner = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                if not told and on_wait is not None:
                    on_wait(f"already starting or stopping in another coder process (pid {owner}); waiting")
                told = True
                if time.monotonic() > deadline:
                    raise CoderError(f"{path.stem} is still busy in another coder process (pid {owner}) "
                                     f"after {timeout:.0f}s") from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        held.add(key)
        try:
            yield
        finally:
            held.discard(key)
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _write_private(path: Path, text: str) -> None:
    from coder.fsutil import atomic_write

    atomic_write(path, text.encode(), mode=0o600)


def write_state(state: Path, key_file: Path, info: ServerInfo) -> None:
    """Record ``info``: JSON without the key (argv redacted too), the key in its 0600 file."""
    data = json.loads(info.to_json())
    data["api_key"] = None
    data["argv"] = redact_argv(info.argv, [info.api_key])
    if info.api_key:
        try:
            same = key_file.read_text() == info.api_key
        except OSError:
            same = False
        if not same:
            _write_private(key_file, info.api_key)
    _write_private(state, json.dumps(data, indent=2))


def read_state(state: Path, key_file: Path) -> ServerInfo | None:
    """The recorded server, its key read back from the key file; None if unreadable."""
    try:
        info = ServerInfo.from_json(state.read_text())
    except OSError:
        return None
    except (ValueError, TypeError) as exc:  # hand-edited or truncated: say so once, treat as no server
        from coder.textsafe import one_line
        from coder.trust import notify_once

        notify_once(f"{state}: not a server record coder can read ({one_line(str(exc), 80)}); ignored")
        return None
    if not info.api_key:
        with contextlib.suppress(OSError):
            info.api_key = key_file.read_text().strip() or None
    return info


def remove_owned(state: Path, key_file: Path, *, key: str | None, pid: int | None) -> None:
    """Delete the state and key files only if they are this start's own (its key, its pid)."""
    with contextlib.suppress(OSError):
        if key is not None and key_file.read_text() == key:
            key_file.unlink()
    with contextlib.suppress(OSError, ValueError, TypeError):
        recorded = ServerInfo.from_json(state.read_text())
        if pid is not None and recorded.pid == pid:
            state.unlink()


def answers(info: ServerInfo, timeout: float = 3.0) -> bool:
    """True when the server's ``/health`` answers at all (an attached server may be long gone)."""
    with info.api(timeout=timeout) as api:
        return api.health_status() is not None
