"""Streaming one edit request: live statistics, early stops at the fence or on a runaway
reply, and exact figures from ``/metrics`` afterwards.

:func:`stream_edit` yields a :class:`RequestStats` snapshot per prompt-progress update,
then at most every ``STATS_EVERY`` seconds while the reply streams (what a status line
shows: a copy per token would cost more than parsing the token) and once when it ended,
and returns the
:class:`StreamOutcome` via ``StopIteration`` (use ``yield from``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerAPI
from coder.edit.guard import DriftGuard
from coder.edit.model import EditRequest
from coder.edit.validate import EditRefused, closing_fence_seen, parse_fenced
from coder.telemetry.metrics import SpecDelta, SpecStats
from coder.telemetry.prefill import PrefillTracker, PromptProgress
from coder.telemetry.stats import Chunk, Reply, RequestStats

STATS_EVERY = 0.1  # seconds between live stats snapshots once tokens stream
FENCE_GRACE_CHUNKS = 3  # after the closing fence, chunks read while waiting for the final usage


@dataclass
class StreamOutcome:
    """What one streamed edit request produced."""

    reply: str
    stats: RequestStats
    stopped: EditRefused | None  # the guard's refusal when the stream was cut early
    delta: SpecDelta | None  # /metrics movement around the request (None without --metrics)


ChunkTap = Callable[[Chunk], None]


def stream_edit(backend: BackendHandle, request: EditRequest, api: ServerAPI, *, k_cap: int | None,
                drift_guard: bool, on_chunk: ChunkTap | None = None,
                prediction: str | None = None) -> Generator[RequestStats, None, StreamOutcome]:
    """Stream ``request`` to the backend's server; yields live stats, returns the outcome.

    ``on_chunk`` sees every streamed chunk (text included) before the engine does;
    ``prediction`` goes along as the request's predicted output (servers that draft from it).
    """
    before = api.snapshot()
    guard = DriftGuard(request.snapshot.text, drift=drift_guard and request.mode == "full")
    stats = RequestStats(prompt_tokens=request.budget.prompt_tokens, k_cap=k_cap,
                         prediction_sent=prediction is not None)
    text = ""
    final: Reply | None = None
    fence_at: int | None = None  # chunk index where the closing fence was seen
    body_at: int | None = None  # offset of the block's body, once the opening fence streamed
    stopped: EditRefused | None = None
    chunks = 0
    live = _Every(STATS_EVERY)
    stream = backend.client().stream(request.messages, max_tokens=request.budget.max_tokens,
                                      temperature=0.0, k_cap=k_cap, cache_prompt=True, progress=True,
                                      prediction=prediction)
    try:
        rest = yield from _prefill_phase(stream, stats)  # the prefill bar moves
        for item in rest:
            if isinstance(item, Reply):
                final = item
                break
            chunks += item.count  # stream events: a burst read at once counts as many
            if on_chunk is not None:
                on_chunk(item)
            if fence_at is not None:
                # Text after the closing fence is discarded; only wait briefly for the usage chunk.
                if chunks - fence_at >= FENCE_GRACE_CHUNKS:
                    break
                continue
            text += item.text
            stats.add(item)
            yield from live.snapshots(stats, item.elapsed)
            if "`" in item.text and closing_fence_seen(text, request.prompt.fence):
                fence_at = chunks
                stats.stopped_at_fence = True
                continue
            if body_at is None and "\n" in item.text:
                body_at = body_offset(text, request.prompt.fence)
            if (stopped := guard.check_tail(text)) or (
                    "\n" in item.text and body_at is not None and (stopped := guard.check(text[body_at:]))):
                break
    finally:
        stream.close()  # a generator: closing it cancels the server request
    yield stats.snapshot()  # the stream ended: what was read is shown before scraping and validating
    if final is not None:
        stats = _merge_final(stats, final.stats)
    after = api.snapshot(wait_for=before, final_seen=final is not None)
    delta = None
    if before is not None and after is not None:
        delta = after - before
        _from_metrics(stats, before, after, have_usage=final is not None)
    if stats.completion_tokens is None and text:
        stats.completion_tokens = backend.counter.count(text)
    return StreamOutcome(text, stats, stopped, delta)


class _Every:
    """Stats snapshots at most every ``interval`` seconds of stream time."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.next = 0.0

    def snapshots(self, stats: RequestStats, elapsed: float) -> Iterator[RequestStats]:
        """A snapshot of ``stats`` when one is due, else nothing."""
        if elapsed >= self.next:
            self.next = elapsed + self.interval
            yield stats.snapshot()


def _prefill_phase(items: Iterator[Chunk | PromptProgress | Reply],
                   stats: RequestStats) -> Generator[RequestStats, None, Iterator[Chunk | Reply]]:
    """Yield a stats snapshot per prompt-progress update until the first token; return the rest."""
    tracker = PrefillTracker()
    for item in items:
        if isinstance(item, PromptProgress):
            tracker.update(item)
            stats.see_prefill(tracker, item.elapsed)
            yield stats.snapshot()
            continue
        return _without_progress(item, items, tracker, stats)
    return iter(())


def _without_progress(first: Chunk | Reply, items: Iterator[Chunk | PromptProgress | Reply],
                      tracker: PrefillTracker, stats: RequestStats) -> Iterator[Chunk | Reply]:
    """``first`` and the remaining items; a late progress update only updates the figures."""
    yield first
    for item in items:
        if isinstance(item, PromptProgress):
            tracker.update(item)
            stats.see_prefill(tracker, item.elapsed)
            continue
        yield item


def _merge_final(live: RequestStats, final: RequestStats) -> RequestStats:
    """The final usage/timings win; what only the live view saw (fence stop, TTFT) is kept."""
    final.stopped_at_fence = live.stopped_at_fence
    final.prediction_sent = live.prediction_sent
    final.draft_by_type = final.draft_by_type or live.draft_by_type
    final.prefill, final.queue_s = live.prefill, live.queue_s
    final.prefill_updates, final.prefill_max_gap = live.prefill_updates, live.prefill_max_gap
    final.prompt_tokens = final.prompt_tokens or live.prompt_tokens
    if final.ttft is None:
        final.ttft = live.ttft
    return final


def _from_metrics(stats: RequestStats, before: SpecStats, after: SpecStats, *, have_usage: bool) -> None:
    """Exact per-request figures from counter deltas (one slot, so the delta is this request)."""
    delta = after - before
    stats.exact_acceptance = delta.acceptance_length
    processed = after.prompt_tokens - before.prompt_tokens
    cached = after.prompt_tokens_cached - before.prompt_tokens_cached
    if not have_usage and processed + cached > 0:  # stream closed at the fence: no usage chunk
        stats.prompt_tokens = int(processed + cached)
        stats.cached_tokens = int(cached)
    if not have_usage and delta.generated > 0:
        stats.completion_tokens = int(delta.generated)


def body_offset(text: str, fence: str) -> int | None:
    """Where the open block's body starts, once its opening fence line is complete."""
    opened = parse_fenced(text, fence)
    if opened is None:
        return None
    at = len(text) - len(opened.body)  # an open block's body is the whole suffix
    return at if at > 0 and text[at - 1] == "\n" else None


def partial_body(text: str, fence: str) -> str:
    """The body of the (possibly unfinished) fenced block in ``text``; empty before it opens."""
    parsed = parse_fenced(text, fence)
    return parsed.body if parsed else ""
