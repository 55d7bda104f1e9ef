"""coder: a terminal coding assistant built around local speculative decoding."""

import time as _time

__version__ = "0.1.0"
# coder's first line, on coder.telemetry.timings' clock (seconds since boot): `coder edit --timings`
# counts the interpreter's start up to here as "python" and from here as coder's own time
STARTED = _time.clock_gettime(getattr(_time, "CLOCK_BOOTTIME", _time.CLOCK_MONOTONIC))
# True when coder.cli.main.main runs: the command owns the whole process (no test calls it in-process),
# so what it imports lives until the exit: coder edit (coder.cli.edit_timing) and the TUI (at its first
# request) freeze it for the collector
WHOLE_PROCESS = False
# True once a command (coder edit) has finished everything it writes and waits for: coder.cli.main then ends the
# process with os._exit after running the atexit handlers and flushing, skipping the interpreter's teardown
QUICK_EXIT = False
