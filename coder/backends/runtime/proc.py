"""Which process a managed server is: its pid plus the kernel's start time for that pid.

A pid alone can be reused after the server exits; a command line says nothing reliable
about a server launched through a wrapper, ``python -m vllm`` or a venv shim (after
``exec`` the line names the real program, before it the interpreter). The start time
(``/proc/PID/stat`` field 22, clock ticks since boot) is fixed for the life of the
process and differs for any later one that reuses the pid.

A managed server is started in a session of its own, so its pid is also its process group and
session id. Engines that fork (vLLM's engine core, one worker per GPU with tensor parallelism)
leave their children in that group: :func:`group_members` finds them, even after the leader died.
"""

from __future__ import annotations

import os
from pathlib import Path


def _stat(pid: int | str) -> list[str] | None:
    """``/proc/PID/stat`` from field 3 (state) on; None when the process is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may itself contain spaces or ')'
    return stat[stat.rfind(")") + 2:].split()


def start_time(pid: int) -> int | None:
    """The kernel's start time of ``pid`` (None: no such process, or no /proc here)."""
    fields = _stat(pid)
    try:
        return int(fields[19]) if fields else None  # field 22 overall: fields here start at field 3
    except (IndexError, ValueError):
        return None


def process_group(pid: int) -> int | None:
    """The process group of ``pid`` (None: no such process)."""
    fields = _stat(pid)
    try:
        return int(fields[2]) if fields else None
    except (IndexError, ValueError):
        return None


def group_members(leader: int, started: int | None) -> list[int]:
    """Live (non-zombie) processes of the session or process group ``leader`` led, and their descendants.

    A process qualifies when its process group (field 5) or session (field 6) is ``leader`` and it
    started no earlier than the leader (``started``): the kernel keeps a pid that is still some
    process's group or session id from being reused, and children start after their parents.
    Descendants count too, for a child that left the group (``setsid``) while its parent lived.
    A live ``leader`` with another start time is a reused pid: the group it led is gone.
    """
    now = start_time(leader)
    if now is not None and started is not None and now != started:
        return []
    table: dict[int, tuple[int, int, int, int]] = {}  # pid -> (ppid, pgrp, session, start)
    for entry in Path("/proc").iterdir():
        fields = _stat(entry.name) if entry.name.isdigit() else None
        if fields is None or fields[0] in ("Z", "X"):
            continue
        try:
            table[int(entry.name)] = (int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]))
        except (IndexError, ValueError):
            continue
    members = {pid for pid, (_, pgrp, sid, begun) in table.items()
               if leader in (pgrp, sid) and (started is None or begun >= started)}
    grew = True
    while grew:  # descendants, to a fixed point
        more = {pid for pid, (ppid, *_rest) in table.items() if ppid in members and pid not in members}
        members |= more
        grew = bool(more)
    return sorted(members)


def is_running(pid: int | None, started: int | None) -> bool:
    """True while the process that was ``pid`` at ``started`` still runs (not a zombie)."""
    if pid is None or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (OSError, ProcessLookupError):
        return False
    if _zombie(pid):
        return False
    if started is None:  # recorded before coder kept start times: the pid is all we have
        return True
    return start_time(pid) == started


def _zombie(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[:1] == ["Z"]
