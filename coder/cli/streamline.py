"""The status line of one streaming request on stderr (``coder edit``), redrawn by its own thread.

No rich here: ``coder edit`` imports this before its request goes out, and rich costs ~0.1 s.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from coder.telemetry.stats import RequestStats


class StreamLine:
    """The status line of one streaming request, redrawn by its own thread, not per token.

    The consumer calls :meth:`update` with each stats snapshot it gets (storing a reference
    is all it costs); a daemon thread redraws the line ``every`` seconds: in place on a
    terminal (4 times a second), one line every few seconds otherwise (logs). A stalled
    stream shows the countdown to the idle timeout, since nothing else would move.
    """

    def __init__(self, out: TextIO, *, every: float | None = None, idle_limit: float | None = None) -> None:
        from coder.backends.runtime.chat import stream_idle_s

        self.out = out
        self.tty = out.isatty()
        self.every = every if every is not None else (0.25 if self.tty else 2.0)
        self.idle_limit = idle_limit if idle_limit is not None else stream_idle_s()
        self.lines = 0  # lines drawn (tests and benchmarks read it)
        self._stats: RequestStats | None = None
        self._at = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="coder-progress", daemon=True)

    def update(self, stats: RequestStats) -> None:
        """The latest figures (a snapshot the caller no longer changes)."""
        self._stats = stats
        self._at = time.monotonic()

    def __enter__(self) -> StreamLine:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        if self._stats is not None:
            self._draw()
        if self.tty and self.lines:
            self.out.write("\n")
            self.out.flush()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            if self._stats is not None:
                self._draw()

    def _draw(self) -> None:
        line = "  " + stream_status(self._stats, time.monotonic() - self._at, self.idle_limit)
        self.out.write("\r" + line.ljust(78) if self.tty else line + "\n")
        self.out.flush()
        self.lines += 1


def stream_status(stats: RequestStats | None, idle: float, idle_limit: float) -> str:
    """``streaming: 812 tok, 153.2 tok/s, drafts accepted 700/760, 5.3s`` (or the prefill bar)."""
    from coder.backends.runtime.chat import idle_note
    from coder.telemetry.prefill import render as prefill_line

    if stats is None:
        return "waiting for the server…"
    if stats.prefill is not None and stats.ttft is None:  # still processing the prompt
        return prefill_line(stats.prefill)
    tps = f"{stats.decode_tps:5.1f} tok/s" if stats.decode_tps else "  ... tok/s"
    acc = f", drafts accepted {stats.draft_n_accepted or 0}/{stats.draft_n}" if stats.draft_n else ""
    line = f"streaming: {stats.tokens} tok, {tps}{acc}, {stats.elapsed + idle:.1f}s"
    note = idle_note(idle, idle_limit) if stats.ttft is not None else None
    return f"{line}; {note}" if note else line
