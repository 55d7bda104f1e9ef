"""``coder edit``'s own timings: the recorder it starts, its ``--json`` result and its ``--timings`` lines.

The phases are opened from here and from :mod:`coder.cli.edit` (the caller's side of the edit
engine); what they mean is :mod:`coder.telemetry.timings`'s business.
"""

from __future__ import annotations

import gc
import importlib
import json
import sys
from typing import TextIO

from coder.telemetry import timings

# what every `coder edit` needs, imported up front inside the "imports" phase, not later inside whichever
# phase first touches it (the HTTP client loads with the chat client, pyflakes with the checks):
# the split then says what the probe, the plan and the checks cost, not what their imports did
EDIT_PATH = ("coder.edit.run.engine", "coder.backends.runtime.handle",
             "coder.backends.runtime.manager", "coder.config", "coder.kpolicy", "coder.edit.checks.user_commands",
             "coder.cli.streamline", "coder.cli.edit_plan", "coder.backends.runtime.chat",
             "coder.edit.checks.result", "coder.edit.checks.explained", "coder.edit.intent.read", "pyflakes.checker")
# what only an edit that may become a plan needs (a rename, a move, a long file's rewrite: coder.cli.edit's
# _prepare); an edit of a --symbol or --lines region is one request and never loads the planner
PLAN_PATH = ("coder.edit.run.plan_run",)


def begin(*, plan: bool = True) -> timings.Timings:
    """Start the process's recorder at coder's first line and import the edit path within "imports".

    ``plan``: the edit may become a plan, so the planner (:data:`PLAN_PATH`) is imported too.
    """
    import coder
    from coder import STARTED

    recorder = timings.start(STARTED, "imports")
    whole = coder.WHOLE_PROCESS  # in a test's process the collector is left as it is
    if whole:
        gc.disable()  # ~75,000 objects are about to be made, none of them garbage: no collection needs to look
    try:
        for module in (*EDIT_PATH, *PLAN_PATH) if plan else EDIT_PATH:
            importlib.import_module(module)
    finally:
        if whole:
            # what the imports made lives until the exit: frozen, no collection walks it again, and the
            # interpreter's teardown skips it (it was 0.2-0.4 s of every coder edit after its last line)
            gc.freeze()
            gc.enable()
    recorder.leave("imports")
    return recorder


def print_json(result: dict[str, object]) -> None:
    """Print the ``--json`` result, with ``timings``: the split up to now (see :mod:`coder.telemetry.timings`)."""
    if timings.RECORDER is not None:
        result["timings"] = timings.RECORDER.report()
    print(json.dumps(result, indent=2))


def print_timings(err: TextIO | None = None) -> None:
    """``coder edit --timings``: the phases and the round trips, two ``coder:`` lines on ``err`` (stderr)."""
    if timings.RECORDER is not None:
        for line in timings.describe(timings.RECORDER.report()):
            # sys.stderr looked up now, not when this module was imported (it may have been replaced since)
            print(f"coder: {line}", file=err or sys.stderr)
