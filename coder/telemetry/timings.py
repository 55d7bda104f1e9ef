"""Where a command's wall time goes: exclusive phases that sum to it, and every round trip to the server.

One recorder per process (:data:`RECORDER`). ``coder edit`` opens a phase around each step it takes
(configuration, the server probe, planning, the request, checks, git) from the caller's side, and
the HTTP transport every coder client is built with (:func:`coder.backends.runtime.http.make_client`)
opens one around each round trip, named by its endpoint: ``/tokenize`` is the tokenizer, a chat
completion is the request (until its stream closes), anything else is the probe. Every chat completion
is the model's time, the model's reading of an instruction included: that round trip is listed as
``reading`` but its seconds are the request's, and the ``reading`` phase is coder's own work around it
(the file's symbols, the schema, the prompt, the answer read back). Before, the whole reading counted
outside the request, though the short questions of a plan (:mod:`coder.edit.run.asked`, the same kind of
completion) counted as the request; and its round trip's time stopped at the headers, the answer's
tokens landing in ``reading`` unseen.

Phases are exclusive: time inside a nested phase counts only there, never in the phase around it
too, so no second is counted twice and ``other`` (time in no phase) makes them sum to the wall
time. Only the thread that started the recorder is timed (a plan's requests on worker threads are
counted as round trips, their time is the waiting caller's; of that wait, what no chat completion
was open for is the plan's own work, ``steps``: :meth:`Timings.split_wait`). The wall time starts when the process
did (``/proc/self/stat``, 10 ms ticks; exact when a benchmark passes ``CODER_SPAWNED_AT``), and
``python`` is the interpreter's start up to coder's first line (:data:`coder.STARTED`).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

# the phases in the order a command meets them; "other" is what no phase covered
PHASES = ("python", "imports", "config", "probe", "tokenizer", "plan", "reading", "request", "steps", "stats",
          "checks", "git", "output")
REQUEST = "request"
READING = "reading"  # coder reading the instruction around the model's answer (that completion is the request)
_CLOCK = getattr(time, "CLOCK_BOOTTIME", time.CLOCK_MONOTONIC)  # as coder.STARTED; /proc is Linux only anyway


def clock() -> float:
    """Seconds since boot: the clock ``/proc/self/stat``'s start time is on."""
    return time.clock_gettime(_CLOCK)


def process_started() -> tuple[float, str] | None:
    """When this process started (:func:`clock` seconds) and how that is known; None off Linux.

    ``CODER_SPAWNED_AT`` (the parent's :func:`clock` just before it spawned this process) is used
    only when it agrees with the kernel's record to a tick: an inherited stale value is ignored.
    """
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        kernel = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime, in clock ticks
    except (OSError, ValueError, IndexError):
        return None
    tick = 1 / os.sysconf("SC_CLK_TCK")
    with contextlib.suppress(ValueError):
        spawned = float(os.environ.get("CODER_SPAWNED_AT", ""))
        if kernel - 2 * tick <= spawned <= kernel + 2 * tick:
            return spawned, "spawn time from the parent"
    return kernel, "process start time (/proc, 10 ms ticks)"


class RoundTripJSON(TypedDict):
    """One round trip in a report."""

    method: str
    path: str
    phase: str
    ms: float


class Report(TypedDict):
    """The split of a command's wall time (``coder edit --json``'s ``timings``)."""

    wall_s: float
    outside_request_s: float
    phases: dict[str, float]
    since: str
    round_trips: list[RoundTripJSON]


@dataclass
class RoundTrip:
    """One HTTP exchange with the server: endpoint, the phase it was charged to and what it took."""

    method: str
    path: str
    phase: str
    seconds: float = 0.0
    began: float = 0.0  # clock() when it was sent (a plan's round trips overlap: split_wait takes their union)

    @property
    def charged(self) -> str:
        """The phase its time goes to: a chat completion's is the request's, whatever it is listed as."""
        return REQUEST if self.phase == READING else self.phase


@dataclass
class Timings:
    """Exclusive phase times of one thread, from a start mark; see the module docstring."""

    started: float = field(default_factory=clock)
    spent: dict[str, float] = field(default_factory=dict)
    trips: list[RoundTrip] = field(default_factory=list)
    _stack: list[str] = field(default_factory=list)
    _mark: float = 0.0
    _owner: int = 0

    def __post_init__(self) -> None:
        self._mark = self.started
        self._owner = threading.get_ident()

    def _charge(self, now: float) -> None:
        name = self._stack[-1] if self._stack else "other"
        self.spent[name] = self.spent.get(name, 0.0) + (now - self._mark)
        self._mark = now

    def enter(self, name: str) -> bool:
        """Start charging ``name`` (until :meth:`leave`); False (nothing done) on another thread."""
        if threading.get_ident() != self._owner:
            return False
        self._charge(clock())
        self._stack.append(name)
        return True

    def leave(self, name: str) -> None:
        """Stop charging ``name``; phases entered inside it and never left end with it."""
        if name not in self._stack:
            return
        self._charge(clock())
        while self._stack and self._stack.pop() != name:
            pass

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Charge the time inside to ``name`` (phases nested inside charge their own)."""
        entered = self.enter(name)
        try:
            yield
        finally:
            if entered:
                self.leave(name)

    def move(self, seconds: float, source: str, target: str) -> None:
        """Re-charge ``seconds`` measured inside ``source`` (e.g. a result's validation) to ``target``."""
        seconds = max(0.0, min(seconds, self.spent.get(source, 0.0)))
        self.spent[source] = self.spent.get(source, 0.0) - seconds
        self.spent[target] = self.spent.get(target, 0.0) + seconds

    def split_wait(self, since: float, source: str = REQUEST, target: str = "steps") -> float:
        """Re-charge to ``target`` the part of a wait in ``source`` since ``since`` when no chat completion was open.

        A plan's caller waits in ``source`` while worker threads prepare, send and check its steps;
        the union of its chat completions' intervals (on any thread) is the model's time, the rest of
        the wait is coder's own work (each step's preparation, checks, retries, the files' validation).
        Returns the seconds moved.
        """
        now = clock()
        spans = sorted((max(t.began, since), min(t.began + t.seconds, now)) for t in self.trips
                       if t.path.endswith("/completions") and t.began + t.seconds > since)
        model, reach = 0.0, since
        for begin, end in spans:
            if end > reach:
                model += end - max(begin, reach)
                reach = end
        own = max(0.0, now - since - model)
        self.move(own, source, target)
        return own

    def round_trip(self, method: str, path: str) -> RoundTrip:
        """Record one exchange; its phase is the endpoint's on the timed thread, ``(thread)`` elsewhere."""
        name = phase_of(path) if threading.get_ident() == self._owner else "(thread)"
        if name == REQUEST and self._stack and self._stack[-1] == READING:
            name = READING
        trip = RoundTrip(method, path, name)
        self.trips.append(trip)
        return trip

    def report(self) -> Report:
        """The split up to now: phases (python and ``other`` included) summing to ``wall_s``, and round trips."""
        self._charge(clock())
        now = self._mark
        spent = dict(self.spent)
        spent.pop("other", None)  # recomputed below as the rest of the wall time
        origin, how = self.started, "recorder's start"
        if (start := process_started()) is not None and start[0] <= self.started:
            origin, how = start
            spent["python"] = self.started - origin
        phases = {name: round(spent[name], 4) for name in (*PHASES, *sorted(set(spent) - set(PHASES)))
                  if name in spent}
        wall = now - origin
        phases["other"] = round(max(0.0, wall - sum(spent.values())), 4)
        return {"wall_s": round(wall, 4), "outside_request_s": round(wall - spent.get(REQUEST, 0.0), 4),
                "phases": phases, "since": how,
                "round_trips": [{"method": t.method, "path": t.path, "phase": t.phase, "ms": round(t.seconds * 1000, 2)}
                                for t in self.trips]}


def phase_of(path: str) -> str:
    """The phase a round trip to ``path`` belongs to."""
    if path.endswith("/tokenize"):
        return "tokenizer"
    if path.endswith("/completions"):
        return REQUEST
    return "probe"


def describe(report: Report) -> list[str]:
    """``coder edit --timings``: the phases on one line, the round trips on another."""
    phases = report["phases"]
    parts = " + ".join(f"{name} {seconds:.3f}" for name, seconds in phases.items() if seconds >= 0.0005)
    lines = [f"timings: wall {report['wall_s']:.3f} s = {parts}; outside the request "
             f"{report['outside_request_s']:.3f} s (from the {report['since']})"]
    trips = report["round_trips"]
    counts: dict[tuple[str, str], list[float]] = {}
    for trip in trips:
        counts.setdefault((trip["phase"], f"{trip['method']} {trip['path']}"), []).append(trip["ms"])
    shown = ", ".join(f"{name} ×{len(ms)} {sum(ms):.0f} ms ({where})" if len(ms) > 1 else
                      f"{name} {ms[0]:.0f} ms ({where})" for (where, name), ms in counts.items())
    lines.append(f"round trips: {len(trips)}" + (f": {shown}" if shown else ""))
    return lines


RECORDER: Timings | None = None  # set by a command that reports its timings (coder edit)


def start(at: float | None = None, first: str = "imports") -> Timings:
    """Start the process's recorder, charging phase ``first`` from ``at`` (default now), and return it."""
    global RECORDER
    RECORDER = Timings(started=at if at is not None else clock(), _stack=[first])
    return RECORDER


def stop() -> None:
    """Stop recording (clients made from now on are plain again)."""
    global RECORDER
    RECORDER = None


def phase(name: str) -> contextlib.AbstractContextManager[None]:
    """:meth:`Timings.phase` of the process's recorder; nothing when none was started."""
    return RECORDER.phase(name) if RECORDER is not None else contextlib.nullcontext()
