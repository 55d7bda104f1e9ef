"""Prompt processing (prefill) progress: the server's streamed counters, and a view of them.

llama.cpp (build 11434) streams ``prompt_progress`` when a request sets
``return_progress: true`` (``tools/server/server-task.cpp``, ``result_prompt_progress``):
``{"total", "cache", "processed", "time_ms"}``, where ``processed`` counts the slot's
prompt tokens so far *including* the ``cache`` tokens reused from the prompt cache, and
``time_ms`` runs from the moment the slot took the task. One update is sent when the
slot starts (0 % of the new tokens) and one after each decoded batch (``-b``), so the
batch size sets how often the bar moves.

Engines without it get :class:`PrefillView` with ``fraction is None``: an honest
elapsed-time spinner, never an invented percentage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
REQUEST_FIELD = "return_progress"  # llama.cpp request flag that turns the updates on


@dataclass(frozen=True)
class PromptProgress:
    """One ``prompt_progress`` update, with the client's clock when it arrived."""

    total: int  # prompt tokens of the request
    cache: int  # tokens reused from the cache (not processed again)
    processed: int  # tokens in the slot so far, cache included
    time_ms: float  # server time since the slot took the request
    elapsed: float = 0.0  # client seconds since the request was sent

    @property
    def new_total(self) -> int:
        """Tokens that need processing (the prompt minus the cached prefix)."""
        return max(0, self.total - self.cache)

    @property
    def new_done(self) -> int:
        """New tokens processed so far (the cached prefix excluded)."""
        return max(0, self.processed - self.cache)

    @property
    def done(self) -> bool:
        """True once the server has processed the whole prompt."""
        return self.total > 0 and self.processed >= self.total


def parse_prompt_progress(chunk: Mapping[str, object], elapsed: float = 0.0) -> PromptProgress | None:
    """The ``prompt_progress`` object of a streamed chunk (chat or /completion), if any."""
    raw = chunk.get("prompt_progress")
    if not isinstance(raw, Mapping):
        return None
    try:
        total, cache, processed = int(raw["total"]), int(raw.get("cache", 0)), int(raw["processed"])
        time_ms = float(raw.get("time_ms", 0.0))
    except (KeyError, TypeError, ValueError):
        return None  # a shape this build does not send: ignore rather than guess
    if total < 0 or processed < 0 or cache < 0:
        return None
    return PromptProgress(total, cache, processed, time_ms, elapsed)


@dataclass(frozen=True)
class PrefillView:
    """What a progress bar shows for one request's prefill.

    With server progress: new tokens processed of those to process (the cached prefix
    shown apart), rate and ETA. Without (``fraction is None``): elapsed time only.
    """

    elapsed: float  # client seconds since the request was sent
    total: int | None = None
    cached: int | None = None
    processed: int | None = None  # new tokens processed so far (cache excluded)
    to_process: int | None = None
    tok_s: float | None = None
    eta: float | None = None
    queued: float | None = None  # client time before the slot took the request

    @property
    def fraction(self) -> float | None:
        """Share of the new tokens processed (0..1), or None without server progress."""
        if self.to_process is None or self.processed is None:
            return None
        return 1.0 if self.to_process == 0 else min(1.0, self.processed / self.to_process)

    @property
    def measured(self) -> bool:
        """True when the figures come from the server (a bar), False for a spinner."""
        return self.fraction is not None


class PrefillTracker:
    """Folds progress updates into a :class:`PrefillView` (rate over the whole prefill)."""

    def __init__(self) -> None:
        self.first: PromptProgress | None = None
        self.last: PromptProgress | None = None
        self.updates = 0
        self.gaps: list[float] = []  # client seconds between consecutive updates

    def update(self, progress: PromptProgress) -> None:
        """Record one progress update (and the client-side gap since the previous one)."""
        if self.last is not None:
            self.gaps.append(progress.elapsed - self.last.elapsed)
        if self.first is None:
            self.first = progress
        self.last = progress
        self.updates += 1

    @property
    def max_gap(self) -> float | None:
        """The longest client-side wait between two updates, in seconds (None before two)."""
        return max(self.gaps) if self.gaps else None

    def view(self, elapsed: float) -> PrefillView:
        """What the progress bar shows ``elapsed`` seconds after the request was sent."""
        last = self.last
        if last is None:
            return PrefillView(elapsed)
        done, todo = last.new_done, last.new_total
        tok_s = done / (last.time_ms / 1000) if last.time_ms > 0 and done > 0 else None
        eta = (todo - done) / tok_s if tok_s else None
        if eta is not None:
            eta = max(0.0, eta - (elapsed - last.elapsed))  # time already spent since the update
        first = self.first or last
        queued = max(0.0, first.elapsed - first.time_ms / 1000)
        return PrefillView(elapsed, last.total, last.cache, done, todo, tok_s, eta, queued)


def render(view: PrefillView, width: int = 24, frame: int = 0) -> str:
    """One plain-text status line: a bar with counts, rate and ETA, or a spinner with elapsed time."""
    if view.fraction is None:
        return f"{SPINNER[frame % len(SPINNER)]} prefill… {view.elapsed:.1f}s (this engine reports no progress)"
    filled = round(view.fraction * width)
    bar = "█" * filled + "░" * (width - filled)
    rate = f", {view.tok_s:.0f} tok/s" if view.tok_s else ""
    eta = f", ETA {view.eta:.1f}s" if view.eta is not None and view.fraction < 1 else ""
    cached = f" (+{view.cached} cached)" if view.cached else ""
    return (f"prefill {bar} {view.processed}/{view.to_process} tok{cached}{rate}{eta}, "
            f"{view.elapsed:.1f}s")
