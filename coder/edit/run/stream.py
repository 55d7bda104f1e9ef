"""Streaming one edit request: the guard tap over :mod:`coder.backends.runtime.request`.

The request runner sends the request, applies its k, keeps the live statistics and takes
the exact figures from ``/metrics`` afterwards; what is edit-specific is the tap:
:class:`GuardTap` closes the stream once the closing fence streamed (after a few more
chunks, waiting for the final usage) or when the :class:`~coder.edit.run.guard.DriftGuard`
sees a runaway reply. :func:`stream_edit` yields the runner's :class:`RequestStats`
snapshots and returns the :class:`StreamOutcome` via ``StopIteration`` (use ``yield from``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.request import Verdict, stream_request
from coder.edit.checks.reply import EditRefused, closing_fence_seen, parse_fenced
from coder.edit.proposal import EditRequest
from coder.edit.run.guard import DriftGuard
from coder.telemetry.metrics import SpecDelta
from coder.telemetry.stats import Chunk, RequestStats

FENCE_GRACE_CHUNKS = 3  # after the closing fence, chunks read while waiting for the final usage


@dataclass
class StreamOutcome:
    """What one streamed edit request produced."""

    reply: str
    stats: RequestStats
    stopped: EditRefused | None  # the guard's refusal when the stream was cut early
    delta: SpecDelta | None  # /metrics movement around the request (None without --metrics)


ChunkTap = Callable[[Chunk], None]


class GuardTap:
    """The edit's tap: ends the stream at the closing fence, or when the drift guard refuses the reply.

    ``on_chunk`` sees every streamed chunk (text included) before the guard does.
    """

    def __init__(self, request: EditRequest, *, drift_guard: bool, on_chunk: ChunkTap | None = None) -> None:
        self.fence = request.prompt.fence
        self.guard = DriftGuard(request.snapshot.text, drift=drift_guard and request.mode == "full")
        self.on_chunk = on_chunk
        self.text = ""
        self.chunks = 0  # stream events read (a burst read at once counts as many)
        self.fence_at: int | None = None  # event count when the closing fence was seen
        self.body_at: int | None = None  # offset of the block's body, once the opening fence streamed
        self.stopped: EditRefused | None = None

    def __call__(self, chunk: Chunk) -> Verdict | None:
        """Keep the chunk, or end the stream (see :data:`~coder.backends.runtime.request.Verdict`)."""
        self.chunks += chunk.count
        if self.on_chunk is not None:
            self.on_chunk(chunk)
        if self.fence_at is not None:
            # Text after the closing fence is discarded; only wait briefly for the usage chunk.
            return "end" if self.chunks - self.fence_at >= FENCE_GRACE_CHUNKS else "drop"
        self.text += chunk.text
        if "`" in chunk.text and closing_fence_seen(self.text, self.fence):
            self.fence_at = self.chunks
            return "keep"
        if self.body_at is None and "\n" in chunk.text:
            self.body_at = body_offset(self.text, self.fence)
        stopped = self.guard.check_tail(self.text)
        if stopped is None and "\n" in chunk.text and self.body_at is not None:
            stopped = self.guard.check(self.text[self.body_at:])
        if stopped is not None:
            self.stopped = stopped
            return "stop"
        return "keep"


def stream_edit(backend: BackendHandle, request: EditRequest, *, drift_guard: bool,
                on_chunk: ChunkTap | None = None, prediction: str | None = None,
                cancel: threading.Event | None = None) -> Generator[RequestStats, None, StreamOutcome]:
    """Run ``request`` through the request runner with a :class:`GuardTap`; yields live stats.

    The runner applies ``request.k`` (a restart happens there; ``cancel`` aborts it or the
    stream) and feeds the k controller; ``prediction`` goes along as the predicted output. A sampled
    request (:mod:`coder.edit.run.sample`) goes with its temperature and seed (llama.cpp, vLLM and SGLang
    read ``seed`` from the body).
    """
    tap = GuardTap(request, drift_guard=drift_guard, on_chunk=on_chunk)
    outcome = yield from stream_request(
        backend, request.messages, request.k, max_tokens=request.budget.max_tokens, tap=tap, cancel=cancel,
        prediction=prediction, progress=True, prompt_tokens=request.budget.prompt_tokens,
        temperature=request.temperature, extra_body={"seed": request.seed} if request.seed is not None else None)
    outcome.stats.stopped_at_fence = tap.fence_at is not None
    return StreamOutcome(outcome.text, outcome.stats, tap.stopped, outcome.delta)


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
