"""One line for a server process that died: which signal or status, while doing what, and what to do."""

from __future__ import annotations

import signal

PORTABLE_HINT = "run: coder backend install llama.cpp --portable"

_SIGNALS: dict[int, tuple[str, str]] = {
    signal.SIGILL: (
        "SIGILL (illegal instruction)",
        "this build uses CPU instructions this machine cannot run; " + PORTABLE_HINT,
    ),
    signal.SIGSEGV: ("SIGSEGV (segmentation fault)", "a crash inside the server; the log lines below say where"),
    signal.SIGBUS: (
        "SIGBUS (bus error)",
        "a memory-mapped file went away or the disk is full; check the model file and free space",
    ),
    signal.SIGKILL: (
        "SIGKILL",
        "killed from outside, most often by the kernel's OOM killer: use a smaller model or context (-c)",
    ),
    signal.SIGABRT: ("SIGABRT (abort)", "the server stopped itself on a failed check; the log lines below say why"),
    signal.SIGFPE: ("SIGFPE (arithmetic exception)", "a crash inside the server; the log lines below say where"),
}


def exit_signal(returncode: int | None) -> int | None:
    """The signal number that ended a process (``Popen.returncode`` is ``-N``), or None."""
    if returncode is None or returncode >= 0:
        return None
    return -returncode


def describe_exit(program: str, returncode: int, doing: str, tail: list[str] | None = None) -> str:
    """E.g. ``llama-server crashed with SIGILL (illegal instruction) while loading the model: …``."""
    lines = " | ".join(line.strip() for line in (tail or []) if line.strip())
    suffix = f" — last log lines: {lines}" if lines else ""
    sig = exit_signal(returncode)
    if sig is None:
        if returncode == 127:
            return f"{program} could not start while {doing} (status 127: a shared library is missing){suffix}"
        return f"{program} exited with status {returncode} while {doing}{suffix}"
    name, advice = _SIGNALS.get(sig, (_signal_name(sig), "the log lines below may say why"))
    return f"{program} crashed with {name} while {doing}: {advice}{suffix}"


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
