"""Which process a managed server is: its pid plus the kernel's start time for that pid.

A pid alone can be reused after the server exits; a command line says nothing reliable
about a server launched through a wrapper, ``python -m vllm`` or a venv shim (after
``exec`` the line names the real program, before it the interpreter). The start time
(``/proc/PID/stat`` field 22, clock ticks since boot) is fixed for the life of the
process and differs for any later one that reuses the pid.
"""

from __future__ import annotations

import os
from pathlib import Path


def start_time(pid: int) -> int | None:
    """The kernel's start time of ``pid`` (None: no such process, or no /proc here)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may itself contain spaces or ')'
    fields = stat[stat.rfind(")") + 2:].split()
    try:
        return int(fields[19])  # field 22 overall: fields here start at field 3
    except (IndexError, ValueError):
        return None


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
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:].startswith("Z")
