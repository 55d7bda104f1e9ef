"""The one request runner: every streamed chat request coder sends goes through here.

:func:`stream_request` carries one request's whole lifecycle against a :class:`Target`: the
session's :class:`~coder.backends.runtime.handle.BackendHandle`, or a :class:`FixedServer` (a
server taken as it is: nothing restarted, nothing learned; the bench and the warm-ups):

1. apply the request's :class:`~coder.kchoice.KChoice` once (a ``via="restart"`` choice
   relaunches the managed server first; ``cancel`` aborts that);
2. snapshot ``/metrics``;
3. stream the reply: every chunk goes to the caller's *tap*, which may keep it, drop it or
   end the stream (the edit path's fence and drift guard is such a tap); ``cancel`` stops
   it between chunks;
4. snapshot ``/metrics`` again with ``wait_for`` (llama.cpp folds a request's counters in
   when its slot is released, which can lag the end of the stream), so the speculation
   delta is this request's;
5. feed the k controller (:meth:`Target.learn`, the backend handle's k policy) with the timings and the delta.

It is a generator: it yields a :class:`RequestStats` snapshot per prompt-progress update
(before the first token), then at most every ``STATS_EVERY`` seconds while the reply
streams, and once when the stream ended; it returns a :class:`RequestOutcome` (use
``yield from``). :func:`run_request` drives it to the end for callers that show no
live figures. The per-request draft cap is :attr:`KChoice.cap` (one formula for all).

A caller that sends many requests (one per region of an edit) calls it once per request::

    choice = handle.decide("region")          # pure: nothing happens yet
    outcome = run_request(handle, messages, choice, max_tokens=512, tap=my_tap, cancel=stop)
    outcome.text, outcome.stats, outcome.delta

An edit request goes through :meth:`coder.edit.run.engine.EditEngine.run`, whose tap is the
fence and drift guard (:class:`coder.edit.run.stream.GuardTap`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from coder.backends.runtime.chat import ChatClient, RequestExtras
from coder.errors import CoderError
from coder.telemetry.prefill import PrefillTracker, PromptProgress
from coder.telemetry.stats import Chunk, Reply, RequestStats
from coder.tokens import TokenCounter

if TYPE_CHECKING:
    from coder.backends.runtime.server import ServerAPI, ServerInfo
    from coder.kchoice import KChoice
    from coder.telemetry.metrics import SpecDelta, SpecStats
    from coder.telemetry.stats import Timings

STATS_EVERY = 0.1  # seconds between live stats snapshots once tokens stream

Verdict = Literal["keep", "drop", "stop", "end"]
"""What a tap says about one chunk: ``keep`` it (the default, also for ``None``), ``drop`` it
(read on, but its text is not part of the reply), ``stop`` after it (kept) or ``end`` before
it (dropped). Stopping closes the stream, which cancels the request on the server."""

Tap = Callable[[Chunk], "Verdict | None"]
Message = dict[str, str]


class Target(Protocol):
    """What a request runs against (:class:`~coder.backends.runtime.handle.BackendHandle` is one)."""

    @property
    def counter(self) -> TokenCounter:
        """Counts a reply's tokens when the stream was cut before the server counted them."""
        ...

    def apply(self, decision: KChoice, cancel: threading.Event | None = None) -> ServerInfo | None:
        """Carry out the k decision (a restart, for ``via="restart"``)."""
        ...

    def api(self, timeout: float = 10.0) -> ServerAPI:
        """A client for ``/metrics`` (close it)."""
        ...

    def client(self, timeout: float = 600.0) -> ChatClient:
        """The streaming chat client."""
        ...

    def learn(self, choice: KChoice, timings: Timings, delta: SpecDelta | None = None) -> None:
        """Feed the finished request to the k policy."""
        ...


class FixedServer:
    """A server taken as it is: k is never applied (a choice's cap is still sent), nothing is learned.

    ``extras`` is the engine adapter's request-extras hook (the caller has the adapter).
    """

    def __init__(self, info: ServerInfo, extras: RequestExtras) -> None:
        self.info = info
        self.extras = extras
        self.counter = TokenCounter(None)

    def apply(self, decision: KChoice, cancel: threading.Event | None = None) -> ServerInfo | None:
        """Nothing to do: the server runs at its launch k."""
        return self.info

    def api(self, timeout: float = 10.0) -> ServerAPI:
        """A ``ServerAPI`` for the server."""
        return self.info.api(timeout)

    def client(self, timeout: float = 600.0) -> ChatClient:
        """A chat client carrying the engine's request extras."""
        info = self.info
        return ChatClient(info.url, info.api_key, self.extras, timeout, model=info.served_model)

    def learn(self, choice: KChoice, timings: Timings, delta: SpecDelta | None = None) -> None:
        """Nothing learns from a fixed server's requests."""


class RequestCancelled(CoderError):
    """The caller's cancel event was set: the request (or the restart before it) was stopped."""


@dataclass
class RequestOutcome:
    """What one request produced.

    ``text`` is the reply as kept (chunks a tap dropped are not in it); ``stats`` are the
    final figures (the server's usage and timings when it sent them, the live view
    otherwise, exact acceptance from ``/metrics`` when scraped); ``delta`` is the
    ``/metrics`` movement around the request (None without counters); ``answered`` is
    True when the server finished the reply (False: a tap ended it early).
    """

    text: str
    stats: RequestStats
    delta: SpecDelta | None
    answered: bool


def stream_request(backend: Target, messages: list[Message], choice: KChoice, *,
                   max_tokens: int, tap: Tap | None = None, cancel: threading.Event | None = None,
                   prediction: str | None = None, progress: bool = False, cache_prompt: bool | None = True,
                   temperature: float = 0.0, extra_body: Mapping[str, object] | None = None,
                   prompt_tokens: int | None = None, metrics: bool = True,
                   learn: bool = True) -> Generator[RequestStats, None, RequestOutcome]:
    """Send ``messages`` with ``choice``'s k; yields live stats, returns the :class:`RequestOutcome`.

    ``prediction`` goes along as the request's predicted output (pass it only where
    ``ServerInfo.prediction``); ``progress`` asks for prompt-progress updates;
    ``prompt_tokens`` is the caller's estimate, shown until the server counts. Without
    ``metrics`` no ``/metrics`` snapshots are taken (a caller that snapshots a whole run
    itself); without ``learn`` the k controller is not fed (a bench sweep, a warm-up).
    Raises :class:`RequestCancelled` when ``cancel`` is set, CoderError when the backend
    is unreachable or fails mid-stream.
    """
    try:
        backend.apply(choice, cancel)
    except CoderError:
        if cancel is not None and cancel.is_set():
            raise RequestCancelled("stopped while the backend restarted") from None
        raise
    _check(cancel)
    cap = choice.cap
    api = backend.api() if metrics else None
    try:
        before = api.snapshot() if api is not None else None
        stats = RequestStats(prompt_tokens=prompt_tokens, k_cap=cap, prediction_sent=prediction is not None)
        stream = backend.client().stream(messages, max_tokens=max_tokens, temperature=temperature, k_cap=cap,
                                          cache_prompt=cache_prompt, progress=progress, prediction=prediction,
                                          extra_body=extra_body)
        text, final = yield from _read(stream, stats, tap, cancel)
        yield stats.snapshot()  # the stream ended: what was read is shown before scraping and validating
        if final is not None:
            stats = _merge_final(stats, final.stats)
        # a stream cut early (the guard, the fence's grace) whose chunks counted their drafts has an
        # acceptance of its own: the server noticing the closed stream (0.2-1.5 s) is not waited for
        # here, and without its counters the figures say "stream", not "metrics" (RequestStats)
        patient = final is not None or stats.running_acceptance is None
        after = (api.snapshot(wait_for=before, final_seen=final is not None, patient=patient)
                 if api is not None else None)
    finally:
        if api is not None:
            api.close()
    delta = None
    if before is not None and after is not None:
        delta = after - before
        _from_metrics(stats, before, after, have_usage=final is not None)
    if stats.completion_tokens is None and text and final is None:
        # cut early without counters: count what was read (a finished reply without usage stays
        # uncounted, so a bench can tell a server that does not report from one that does)
        stats.completion_tokens = backend.counter.count(text)
    if learn:
        _learn(backend, choice, stats, delta)
    return RequestOutcome(text, stats, delta, final is not None)


def run_request(backend: Target, messages: list[Message], choice: KChoice, *, max_tokens: int,
                tap: Tap | None = None, cancel: threading.Event | None = None, prediction: str | None = None,
                cache_prompt: bool | None = True, temperature: float = 0.0,
                extra_body: Mapping[str, object] | None = None, metrics: bool = True,
                learn: bool = True) -> RequestOutcome:
    """:func:`stream_request` driven to the end, its live snapshots ignored (same arguments)."""
    gen = stream_request(backend, messages, choice, max_tokens=max_tokens, tap=tap, cancel=cancel,
                         prediction=prediction, cache_prompt=cache_prompt, temperature=temperature,
                         extra_body=extra_body, metrics=metrics, learn=learn)
    while True:
        try:
            next(gen)
        except StopIteration as done:
            outcome: RequestOutcome = done.value
            return outcome


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise RequestCancelled("stopped")


def _read(stream: Generator[Chunk | PromptProgress | Reply, None, None], stats: RequestStats, tap: Tap | None,
          cancel: threading.Event | None) -> Generator[RequestStats, None, tuple[str, Reply | None]]:
    """Read ``stream`` through ``tap``; returns the kept text and the final :class:`Reply` (None: cut early)."""
    parts: list[str] = []
    live = _Every(STATS_EVERY)
    try:
        rest = yield from _prefill_phase(stream, stats)  # the prefill bar moves
        for item in rest:
            if isinstance(item, Reply):
                return "".join(parts), item
            _check(cancel)
            verdict = tap(item) if tap is not None else None
            if verdict == "end":
                break
            if verdict == "drop":
                continue
            parts.append(item.text)
            stats.add(item)
            yield from live.snapshots(stats, item.elapsed)
            if verdict == "stop":
                break
    finally:
        stream.close()  # a generator: closing it cancels the server request
    _check(cancel)
    return "".join(parts), None


def _learn(backend: Target, choice: KChoice, stats: RequestStats, delta: SpecDelta | None) -> None:
    """Feed the finished request to the backend's k policy."""
    timings = dict(stats.timings)
    # Closed early (at the fence): no final timings, so report what the stream counted.
    timings.setdefault("predicted_n", float(stats.completion_tokens or 0))
    timings.setdefault("draft_n", float(stats.draft_n or 0))
    timings.setdefault("draft_n_accepted", float(stats.draft_n_accepted or 0))
    backend.learn(choice, timings, delta)


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
    """The final usage/timings win; what only the live view saw (TTFT, prefill) is kept."""
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
    if not have_usage and processed + cached > 0:  # stream closed early: no usage chunk
        stats.prompt_tokens = int(processed + cached)
        stats.cached_tokens = int(cached)
    if not have_usage and delta.generated > 0:
        stats.completion_tokens = int(delta.generated)
