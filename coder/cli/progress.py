"""A rich progress bar that accepts the (phase, fraction, detail) callbacks of long work."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

PhaseCallback = Callable[[str, float, str], None]


@contextmanager
def phase_bar(title: str) -> Iterator[PhaseCallback]:
    """Yield a callback drawing one bar on stderr; plain lines when stderr is not a terminal."""
    console = Console(stderr=True)
    if not sys.stderr.isatty():
        last: list[str | None] = [""]  # the phase shown last; None once stderr is a closed pipe

        def plain(phase: str, frac: float, detail: str) -> None:
            if phase != last[0] and last[0] is not None:
                try:
                    # not rich: on a closed pipe rich raises SystemExit, which would abort the work
                    sys.stderr.write(f"{title}: {phase}\n")
                    sys.stderr.flush()
                except OSError:  # the reader went away (``| head -2``): the work goes on, unreported
                    last[0] = None
                    _quiet_stderr()
                    return
                last[0] = phase

        yield plain
        return
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
               TimeElapsedColumn(), TextColumn("{task.fields[detail]}"))
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(title, total=1.0, detail="")

        def update(phase: str, frac: float, detail: str) -> None:
            bar.update(task, completed=max(0.0, min(frac, 1.0)), description=f"{title}: {phase}",
                       detail=detail[-60:])

        yield update


def _quiet_stderr() -> None:
    """Point fd 2 at /dev/null once its reader has gone (the recipe of Python's signal docs, for SIGPIPE).

    What the failed write left in stderr's buffer is flushed again at exit; into the closed pipe that fails,
    and Python then exits 120 instead of the work's own status (seen on Python 3.11.2 in a fresh clone).
    """
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stderr.fileno())
        os.close(devnull)
