"""The one request-statistics model: what is known about a request while and after it streams.

A stream yields :class:`Chunk` per content piece and ends with one :class:`Reply`
(its text and final :class:`RequestStats`). Live views (CLI status line, TUI
panel) keep a :class:`RequestStats` and call :meth:`RequestStats.add` per chunk;
every derived figure comes from :mod:`coder.telemetry.figures`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from coder.telemetry import figures
from coder.telemetry.prefill import PrefillTracker, PrefillView

Timings = dict[str, float]  # llama.cpp's numeric ``timings`` object
DraftByType = dict[str, dict[str, int]]  # speculator type -> {steps, draft_n, draft_n_accepted}
AcceptanceSource = Literal["metrics", "stream"]


@dataclass(frozen=True)
class Chunk:
    """A piece of streamed content with the engine's running counters seen so far."""

    text: str
    elapsed: float  # seconds since the request was sent
    draft_n: int | None = None  # draft tokens proposed so far (llama.cpp)
    draft_n_accepted: int | None = None
    predicted_n: int | None = None  # tokens generated so far (llama.cpp)
    draft_by_type: DraftByType | None = None  # coder's llama-server build: per speculator
    count: int = 1  # stream events folded into this chunk (a verification step's burst arrives as one)
    draft_steps: int | None = None  # drafted steps so far, when the reader counted them per event


@dataclass
class RequestStats:
    """Counters and times of one request; derived figures are properties."""

    ttft: float | None = None
    elapsed: float = 0.0  # seconds since sent; the wall time once finished
    chunks: int = 0  # content-bearing chunks (≠ tokens under speculation)
    chars: int = 0
    completion_tokens: int | None = None  # the server's count (usage, else running predicted_n)
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    draft_n: int | None = None
    draft_n_accepted: int | None = None
    draft_steps: int = 0  # steps that carried a draft: times the running draft_n grew
    finish_reason: str | None = None
    k_cap: int | None = None  # per-request draft cap sent, if any
    prediction_sent: bool = False  # the original went along as the request's ``prediction``
    draft_by_type: DraftByType | None = None  # which speculator drafted how much (coder's build)
    stopped_at_fence: bool = False  # closed once the closing fence streamed (no usage chunk)
    exact_acceptance: float | None = None  # from /metrics deltas, once the request ended
    timings: Timings = field(default_factory=dict)
    # Prompt processing, from llama.cpp's streamed prompt progress (coder.telemetry.prefill):
    prefill: PrefillView | None = None  # the latest view while the prompt is processed
    queue_s: float | None = None  # seconds before the server's slot took the request
    prefill_updates: int = 0  # progress updates received
    prefill_max_gap: float | None = None  # longest wait between two (how smoothly a bar moves)

    def add(self, chunk: Chunk) -> None:
        """Account for one streamed chunk (which may fold several stream events)."""
        self.chunks += chunk.count
        self.chars += len(chunk.text)
        self.elapsed = chunk.elapsed
        if self.ttft is None and chunk.text:
            self.ttft = chunk.elapsed
        if chunk.predicted_n is not None:
            self.completion_tokens = chunk.predicted_n
        if chunk.draft_steps is not None:  # counted per event upstream: growth across a burst is several steps
            self.draft_steps = chunk.draft_steps
            if chunk.draft_n is not None:
                self.draft_n = chunk.draft_n
        elif chunk.draft_n is not None:
            self._see_draft_n(chunk.draft_n)
        if chunk.draft_n_accepted is not None:
            self.draft_n_accepted = chunk.draft_n_accepted
        if chunk.draft_by_type is not None:
            self.draft_by_type = chunk.draft_by_type

    def take_timings(self, timings: Timings) -> None:
        """Adopt llama.cpp's final (or running) ``timings`` object."""
        self.timings = dict(timings)
        if "draft_n" in timings:
            self._see_draft_n(int(timings["draft_n"]))
        if "draft_n_accepted" in timings:
            self.draft_n_accepted = int(timings["draft_n_accepted"])
        if self.completion_tokens is None and "predicted_n" in timings:
            self.completion_tokens = int(timings["predicted_n"])
        if self.cached_tokens is None and "cache_n" in timings:
            self.cached_tokens = int(timings["cache_n"])

    def _see_draft_n(self, value: int) -> None:
        if value > (self.draft_n or 0):
            self.draft_steps += 1  # one step's draft: every step emits a token, so one per growth
        self.draft_n = value

    def see_prefill(self, tracker: PrefillTracker, elapsed: float) -> None:
        """Adopt the prefill tracker's view (called per progress update)."""
        self.prefill = tracker.view(elapsed)
        self.elapsed = elapsed
        self.queue_s = self.prefill.queued
        self.prefill_updates, self.prefill_max_gap = tracker.updates, tracker.max_gap

    @property
    def prefill_s(self) -> float | None:
        """Server seconds spent on the prompt (``timings.prompt_ms``), else TTFT less queueing."""
        if "prompt_ms" in self.timings:
            return self.timings["prompt_ms"] / 1000
        return None if self.ttft is None else self.ttft - (self.queue_s or 0.0)

    @property
    def decode_s(self) -> float | None:
        """Server seconds spent generating (``timings.predicted_ms``), else wall time after TTFT."""
        if "predicted_ms" in self.timings:
            return self.timings["predicted_ms"] / 1000
        return None if self.ttft is None else max(0.0, self.elapsed - self.ttft)

    @property
    def tokens(self) -> int:
        """Generated tokens: the server's count when known, else one per chunk."""
        return self.completion_tokens if self.completion_tokens is not None else self.chunks

    @property
    def decode_tps(self) -> float | None:
        """Decode tok/s (see :func:`coder.telemetry.figures.decode_tps`)."""
        return figures.decode_tps(self.tokens, self.ttft, self.elapsed)

    @property
    def tpot(self) -> float | None:
        """Seconds per output token after the first."""
        return figures.tpot(self.tokens, self.ttft, self.elapsed)

    @property
    def running_acceptance(self) -> float | None:
        """Acceptance length from the streamed counters (needs ``draft_n`` > 0)."""
        return figures.running_acceptance_length(self.draft_n_accepted, self.draft_steps)

    @property
    def acceptance_length(self) -> float | None:
        """The exact figure once known, else the running one."""
        return self.exact_acceptance if self.exact_acceptance is not None else self.running_acceptance

    @property
    def acceptance_source(self) -> AcceptanceSource | None:
        """Where :attr:`acceptance_length` comes from."""
        if self.exact_acceptance is not None:
            return "metrics"
        return "stream" if self.running_acceptance is not None else None

    def snapshot(self) -> RequestStats:
        """An independent copy (for progress events handed to another thread)."""
        return dataclasses.replace(self, timings=dict(self.timings))

    def to_dict(self) -> dict[str, object]:
        """Counters plus the derived figures, for ``--json`` and bench reports."""
        out: dict[str, object] = dataclasses.asdict(self)
        out.update(prefill_s=self.prefill_s, decode_s=self.decode_s)
        out.update(tokens=self.tokens, decode_tps=self.decode_tps, tpot=self.tpot,
                   running_acceptance=self.running_acceptance, acceptance_length=self.acceptance_length,
                   acceptance_source=self.acceptance_source)
        return out


def by_type(timings: Mapping[str, object]) -> DraftByType | None:
    """``timings.draft_by_type`` of coder's llama-server build, else None (stock builds lack it)."""
    raw = timings.get("draft_by_type")
    if not isinstance(raw, dict):
        return None
    return {str(t): {k: int(v.get(k, 0)) for k in ("steps", "draft_n", "draft_n_accepted")}
            for t, v in raw.items() if isinstance(v, dict)}


@dataclass(frozen=True)
class DraftShare:
    """What one speculator of the request drafted: tokens, accepted tokens, share of all drafts."""

    type: str
    drafted: int
    accepted: int
    share: float  # of all drafted tokens (coder.telemetry.figures.draft_share)


def draft_split(per_type: DraftByType | None) -> list[DraftShare]:
    """Speculators that drafted at least one token, most drafted first; empty without drafts."""
    if not per_type:
        return []
    total = sum(c.get("draft_n", 0) for c in per_type.values())
    out = []
    for name, counts in per_type.items():
        drafted = counts.get("draft_n", 0)
        share = figures.draft_share(drafted, total)
        if drafted > 0 and share is not None:
            out.append(DraftShare(name, drafted, counts.get("draft_n_accepted", 0), share))
    return sorted(out, key=lambda d: (-d.drafted, d.type))


def format_drafted(per_type: DraftByType | None) -> str:
    """``drafted: ngram-mod 412 (96%, 400 accepted) · draft-simple 18 (4%, 5 accepted)``; "" without drafts.

    A lone speculator needs no share: ``drafted: ngram-mod 412 (400 accepted)``.
    """
    split = draft_split(per_type)
    if len(split) == 1:
        d = split[0]
        return f"drafted: {d.type} {d.drafted} ({d.accepted} accepted)"
    items = [f"{d.type} {d.drafted} ({d.share:.0%}, {d.accepted} accepted)" for d in split]
    return "drafted: " + " · ".join(items) if items else ""


@dataclass(frozen=True)
class Reply:
    """The end of a stream: the whole text and the final statistics."""

    text: str
    stats: RequestStats
