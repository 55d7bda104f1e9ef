"""Turning a token stream into a few UI updates per second (runs in the worker thread).

The worker hands every :class:`~coder.telemetry.stats.Chunk` to a :class:`LiveFeed`: it keeps
the request's :class:`~coder.telemetry.stats.RequestStats` (every figure comes from
:mod:`coder.telemetry.figures`), an instantaneous tok/s window for the sparkline, and a text
buffer. A :class:`Batch` goes to the UI at most once per ``interval`` (one frame), so a
5,000 tok/s flood costs the UI ~25 appends per second, not 5,000. No Textual here.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from coder.telemetry.stats import Chunk, RequestStats

if TYPE_CHECKING:
    from coder.telemetry.metrics import SpecDelta

FRAME = 0.04  # seconds between UI updates while streaming (25 fps)


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


@dataclass
class Coalescer:
    """Buffers chunks; :meth:`due` says when a frame's worth should go to the UI."""

    interval: float = FRAME
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

    def due(self, now: float) -> bool:
        """The first chunk goes out at once (TTFT is visible), then at most one batch per frame."""
        return bool(self._parts) and now - self._last_flush >= self.interval

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

    def __init__(self, post: Callable[[Batch], None], *, interval: float = FRAME,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.post = post
        self.clock = clock
        self.stats = RequestStats()
        self.window = RateWindow()
        self.buffer = Coalescer(interval)

    def live(self) -> LiveStats:
        """A snapshot of the live figures (safe to hand to another thread)."""
        return LiveStats(self.stats.snapshot(), self.window.rate(), tuple(self.window.samples))

    def push(self, chunk: Chunk) -> None:
        """Account for one streamed chunk; posts a batch when a frame is due."""
        now = self.clock()
        self.stats.add(chunk)
        self.window.add(chunk.elapsed, self.stats.tokens)
        self.buffer.add(chunk.text, now, chunk.count)
        if self.buffer.due(now):
            batch = self.buffer.take(self.live(), now)
            if batch is not None:
                self.post(batch)

    def flush(self) -> None:
        """Post whatever is still buffered."""
        batch = self.buffer.take(self.live(), self.clock())
        if batch is not None:
            self.post(batch)
