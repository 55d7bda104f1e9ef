"""Turning a token stream into a few UI updates per second (runs in the worker thread).

The worker feeds every :class:`~coder.telemetry.stream.Delta` to a :class:`SpecTracker`
(live speculation figures) and a :class:`Coalescer` (text buffer). A batch goes to the UI
at most once per ``interval`` (one frame), so a 5,000 tok/s flood costs the UI ~25
appends per second, not 5,000. No Textual here: this is plain, testable arithmetic.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from coder.telemetry.stream import Delta, StreamResult

if TYPE_CHECKING:
    from coder.telemetry.metrics import SpecDelta

FRAME = 0.04  # seconds between UI updates while streaming (25 fps)


@dataclass(frozen=True)
class LiveStats:
    """What the speculation panel shows while a reply streams."""

    tokens: int = 0
    elapsed: float = 0.0
    ttft: float | None = None
    inst_tps: float | None = None
    avg_tps: float | None = None
    draft_tokens: int | None = None
    draft_accepted: int | None = None
    accept_length: float | None = None  # running: tokens per verification step
    samples: tuple[float, ...] = ()  # inst tok/s history for the sparkline


@dataclass(frozen=True)
class FinalStats:
    """Exact figures once the request ended (engine counters when available)."""

    result: StreamResult
    spec: SpecDelta | None = None  # /metrics after − before; None when not scraped
    exact_accept_length: float | None = None  # from counters when only the figure is known

    @property
    def exact(self) -> bool:
        return self.exact_accept_length is not None or (
            self.spec is not None and self.spec.acceptance_length is not None)

    @property
    def accept_length(self) -> float | None:
        if self.spec is not None and self.spec.acceptance_length is not None:
            return self.spec.acceptance_length
        if self.exact_accept_length is not None:
            return self.exact_accept_length
        return running_accept_length(self.result.tokens, self.result.draft_n_accepted)

    @property
    def survival(self) -> list[float]:
        return self.spec.survival() if self.spec is not None else []


def running_accept_length(tokens: int | None, accepted: int | None) -> float | None:
    """Tokens per verification step: every step yields one verified token plus its accepted drafts,
    so steps = tokens − accepted and AL = tokens / steps."""
    if not tokens or accepted is None:
        return None
    steps = tokens - accepted
    return tokens / steps if steps > 0 else None


class SpecTracker:
    """Running tok/s and acceptance from per-chunk counters."""

    def __init__(self, window: float = 0.5, history: int = 60, sample_every: float = 0.1) -> None:
        self.window = window
        self.sample_every = sample_every
        self._next_sample = 0.0
        self._points: deque[tuple[float, int]] = deque()
        self._samples: deque[float] = deque(maxlen=history)
        self.tokens = 0
        self.elapsed = 0.0
        self.ttft: float | None = None
        self.draft_tokens: int | None = None
        self.draft_accepted: int | None = None

    def update(self, delta: Delta) -> None:
        self.tokens = delta.predicted_n if delta.predicted_n else self.tokens + 1
        self.elapsed = delta.elapsed
        if self.ttft is None:
            self.ttft = delta.elapsed
        if delta.draft_n is not None:
            self.draft_tokens = delta.draft_n
        if delta.draft_n_accepted is not None:
            self.draft_accepted = delta.draft_n_accepted
        self._points.append((delta.elapsed, self.tokens))
        while len(self._points) > 2 and self._points[0][0] < delta.elapsed - self.window:
            self._points.popleft()
        # sparkline samples on a stream-time grid: independent of how batches were coalesced
        if delta.elapsed >= self._next_sample:
            inst = self.inst_tps()
            if inst is not None:
                self._samples.append(inst)
            self._next_sample = delta.elapsed + self.sample_every

    def inst_tps(self) -> float | None:
        if len(self._points) < 2:
            return None
        (t0, n0), (t1, n1) = self._points[0], self._points[-1]
        return (n1 - n0) / (t1 - t0) if t1 > t0 else None

    def avg_tps(self) -> float | None:
        """Decode speed since the first token (prefill excluded, as StreamResult.decode_tps)."""
        if self.ttft is None or self.elapsed <= self.ttft or self.tokens < 2:
            return None
        return (self.tokens - 1) / (self.elapsed - self.ttft)

    def snapshot(self) -> LiveStats:
        inst = self.inst_tps()
        return LiveStats(
            tokens=self.tokens, elapsed=self.elapsed, ttft=self.ttft, inst_tps=inst,
            avg_tps=self.avg_tps(), draft_tokens=self.draft_tokens, draft_accepted=self.draft_accepted,
            accept_length=running_accept_length(self.tokens, self.draft_accepted)
            if self.draft_tokens else None,
            samples=tuple(self._samples),
        )


@dataclass
class Batch:
    """Text that arrived within one frame, with the live stats after it."""

    seq: int
    text: str
    first_arrival: float  # time.monotonic() when its oldest delta reached the worker
    deltas: int
    stats: LiveStats


@dataclass
class Coalescer:
    """Buffers deltas; :meth:`due` says when a frame's worth should go to the UI."""

    interval: float = FRAME
    clock: Callable[[], float] = time.monotonic
    _parts: list[str] = field(default_factory=list)
    _first: float | None = None
    _last_flush: float = float("-inf")
    _count: int = 0
    _seq: int = 0

    def add(self, text: str, arrival: float) -> None:
        if self._first is None:
            self._first = arrival
        self._parts.append(text)
        self._count += 1

    def due(self, now: float) -> bool:
        # the first token goes out at once (TTFT is visible), then at most one batch per frame
        return bool(self._parts) and now - self._last_flush >= self.interval

    def take(self, stats: LiveStats, now: float) -> Batch | None:
        if not self._parts:
            return None
        batch = Batch(self._seq, "".join(self._parts), self._first or now, self._count, stats)
        self._seq += 1
        self._parts.clear()
        self._first = None
        self._count = 0
        self._last_flush = now
        return batch


class LiveFeed:
    """Push side of the stream, used from the worker thread: ``push`` each delta, ``flush`` at the end.

    ``post`` receives at most one :class:`Batch` per ``interval`` (plus the final flush).
    """

    def __init__(self, post: Callable[[Batch], None], *, interval: float = FRAME,
                 clock: Callable[[], float] = time.monotonic, tracker: SpecTracker | None = None) -> None:
        self.post = post
        self.clock = clock
        self.tracker = tracker or SpecTracker()
        self.buffer = Coalescer(interval, clock)

    def push(self, delta: Delta) -> None:
        now = self.clock()
        self.tracker.update(delta)
        self.buffer.add(delta.text, now)
        if self.buffer.due(now):
            batch = self.buffer.take(self.tracker.snapshot(), now)
            if batch is not None:
                self.post(batch)

    def flush(self) -> None:
        batch = self.buffer.take(self.tracker.snapshot(), self.clock())
        if batch is not None:
            self.post(batch)


def pump(
    stream: Iterable[Delta | StreamResult],
    feed: LiveFeed,
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> StreamResult | None:
    """Drive ``stream`` to its end through ``feed``; returns its final result.

    Returns None when ``cancelled()`` turned true (the generator is closed, which
    cancels the request on the server).
    """
    result: StreamResult | None = None
    iterator: Iterator[Delta | StreamResult] = iter(stream)
    try:
        for item in iterator:
            if isinstance(item, StreamResult):
                result = item
                break
            feed.push(item)
            if cancelled():
                return None
    finally:
        close = getattr(iterator, "close", None)
        if close is not None and result is None:
            close()
        feed.flush()
    return result
