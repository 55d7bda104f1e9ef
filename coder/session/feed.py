"""Turning a token stream into a few UI updates per second (runs in the worker thread).

The worker hands every :class:`~coder.telemetry.stats.Chunk` to a :class:`LiveFeed`: it keeps
the request's :class:`~coder.telemetry.stats.RequestStats` (every figure comes from
:mod:`coder.telemetry.figures`), an instantaneous tok/s window for the sparkline, and a text
buffer. A :class:`Batch` goes to the UI as soon as the UI has shown the one before and ``gap``
has passed (under ~3,000 tok/s), else ``interval`` after the last one: a streamed token waits for
the screen about one redraw, not a fixed frame, and a 5,000 tok/s flood still costs the UI ~25
appends per second, not 5,000. No Textual here.
"""

from __future__ import annotations

import functools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from coder.telemetry.stats import Chunk, RequestStats

if TYPE_CHECKING:
    from coder.telemetry.metrics import SpecDelta

FRAME = 0.04  # the longest buffered text waits while the UI is still busy with the last batch (25 fps)
# once the UI has shown the last batch, the next may go this soon (50 fps at most): a fixed 40 ms frame
# was most of the TUI's display lag (p95 69 ms at 1,000 tok/s), and appends stay few at 5,000 tok/s
SHOWN_GAP = 0.02
# ...while a batch would hold fewer events than this (under ~3,000 tok/s): a flood keeps its 40 ms frames,
# where each extra append costs CPU per token and the lag target is twice as loose
SHOWN_GAP_EVENTS = 64


@dataclass(frozen=True)
class LiveStats:
    """What the speculation panel shows while a reply streams: the request's stats plus a sparkline."""

    stats: RequestStats = field(default_factory=RequestStats)
    inst_tps: float | None = None  # tok/s over the last ``window`` seconds of stream time
    samples: tuple[float, ...] = ()  # inst tok/s history for the sparkline


@dataclass(frozen=True)
class FinalStats:
    """Figures once the request ended: the final stats (exact acceptance when scraped) and the /metrics delta."""

    stats: RequestStats
    spec: SpecDelta | None = None  # /metrics after − before (per-position bars); None when not scraped

    @property
    def exact(self) -> bool:
        """True when the acceptance length comes from the engine's counters."""
        return self.stats.acceptance_source == "metrics"

    @property
    def survival(self) -> list[float]:
        """Per draft position: the share of steps that accepted past it (empty when unknown)."""
        return self.spec.survival() if self.spec is not None else []


class RateWindow:
    """Instantaneous tok/s over a sliding window of stream time, sampled on a fixed grid."""

    def __init__(self, window: float = 0.5, history: int = 60, sample_every: float = 0.1) -> None:
        self.window = window
        self.sample_every = sample_every
        self._next_sample = 0.0
        self._points: deque[tuple[float, int]] = deque()
        self.samples: deque[float] = deque(maxlen=history)

    def add(self, elapsed: float, tokens: int) -> None:
        """Record the token count at stream time ``elapsed``."""
        self._points.append((elapsed, tokens))
        while len(self._points) > 2 and self._points[0][0] < elapsed - self.window:
            self._points.popleft()
        # samples on a stream-time grid: independent of how batches were coalesced
        if elapsed >= self._next_sample:
            inst = self.rate()
            if inst is not None:
                self.samples.append(inst)
            self._next_sample = elapsed + self.sample_every

    def rate(self) -> float | None:
        """Tokens per second across the window (None until two points span some time)."""
        if len(self._points) < 2:
            return None
        (t0, n0), (t1, n1) = self._points[0], self._points[-1]
        return (n1 - n0) / (t1 - t0) if t1 > t0 else None


@dataclass
class Batch:
    """Text that arrived within one frame, with the live stats after it."""

    seq: int
    text: str
    first_arrival: float  # time.monotonic() when its oldest chunk reached the worker
    chunks: int
    live: LiveStats
    # the UI calls this once the batch is on screen (after the refresh that shows it): the next may go
    shown: Callable[[], None] | None = field(default=None, repr=False, compare=False)


@dataclass
class Coalescer:
    """Buffers chunks; :meth:`due` says when a frame's worth should go to the UI."""

    interval: float = FRAME
    gap: float = SHOWN_GAP
    _parts: list[str] = field(default_factory=list)
    _first: float | None = None
    _last_flush: float = float("-inf")
    _count: int = 0
    _seq: int = 0

    def add(self, text: str, arrival: float, count: int = 1) -> None:
        """Buffer one chunk's text (``count`` stream events) that arrived at ``arrival``."""
        if self._first is None:
            self._first = arrival
        self._parts.append(text)
        self._count += count

    def due(self, now: float, caught_up: bool = False) -> bool:
        """The first chunk goes out at once (TTFT is visible); then a batch ``gap`` after the last one
        once the UI has ``caught_up`` (shown it) and the batch is small, else ``interval`` after it."""
        if not self._parts:
            return False
        since = now - self._last_flush
        return since >= self.interval or (caught_up and since >= self.gap and self._count < SHOWN_GAP_EVENTS)

    def take(self, live: LiveStats, now: float) -> Batch | None:
        """Everything buffered as one batch (None when empty)."""
        if not self._parts:
            return None
        batch = Batch(self._seq, "".join(self._parts), self._first or now, self._count, live)
        self._seq += 1
        self._parts.clear()
        self._first = None
        self._count = 0
        self._last_flush = now
        return batch


class LiveFeed:
    """Push side of the stream, used from the worker thread: :meth:`push` each chunk, :meth:`flush` at the end.

    ``post`` receives at most one :class:`Batch` per ``interval`` (plus the final flush).
    """

    def __init__(self, post: Callable[[Batch], None], *, interval: float = FRAME, gap: float = SHOWN_GAP,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.post = post
        self.clock = clock
        self.stats = RequestStats()
        self.window = RateWindow()
        self.buffer = Coalescer(interval, gap)
        self._posted = -1  # seq of the last batch posted (worker thread)
        self._shown = -1  # seq of the last batch the UI showed (set from the UI thread: one int store)

    def _was_shown(self, seq: int) -> None:
        self._shown = max(self._shown, seq)

    def live(self) -> LiveStats:
        """A snapshot of the live figures (safe to hand to another thread)."""
        return LiveStats(self.stats.snapshot(), self.window.rate(), tuple(self.window.samples))

    def push(self, chunk: Chunk) -> None:
        """Account for one streamed chunk; posts a batch when a frame is due."""
        now = self.clock()
        self.stats.add(chunk)
        self.window.add(chunk.elapsed, self.stats.tokens)
        self.buffer.add(chunk.text, now, chunk.count)
        if self.buffer.due(now, caught_up=self._shown >= self._posted):
            self._send(self.buffer.take(self.live(), now))

    def flush(self) -> None:
        """Post whatever is still buffered."""
        self._send(self.buffer.take(self.live(), self.clock()))

    def _send(self, batch: Batch | None) -> None:
        if batch is not None:
            batch.shown = functools.partial(self._was_shown, batch.seq)
            self._posted = batch.seq
            self.post(batch)
