"""The live speculation panel: tok/s with a sparkline, acceptance, per-position bars, k and timings."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widgets import Sparkline, Static

from coder.backends.runtime.chat import idle_note
from coder.session.events import RequestInfo
from coder.session.feed import FinalStats, LiveStats
from coder.telemetry.prefill import SPINNER, PrefillView
from coder.telemetry.stats import DraftShare, draft_split

if TYPE_CHECKING:  # the warm-up module pulls in the HTTP client: not on the first-paint path
    from coder.edit.run.warmup.cache import WarmState

LIVE_INTERVAL = 0.25  # seconds between live repaints of the panel (4 Hz: readable, and cheap)
BAR_WIDTH = 12
MAX_POSITIONS = 12


__all__ = ["RequestInfo", "SpecPanel", "bars", "baseline_from_bench", "drafted_lines"]


def _num(value: float | None, fmt: str = "{:.1f}", none: str = "–") -> str:
    return none if value is None else fmt.format(value)


def bars(survival: list[float], good: str = "green", poor: str = "red", width: int = BAR_WIDTH) -> Text:
    """One bar per draft position: the share of steps that accepted past it."""
    text = Text()
    for i, p in enumerate(survival[:MAX_POSITIONS]):
        filled = max(0, min(width, round(p * width)))
        text.append(f"{i + 1:>2} ", style="dim")
        text.append("█" * filled, style=good if p >= 0.5 else poor)
        text.append("░" * (width - filled), style="dim")
        text.append(f" {p:4.0%}\n")
    if not survival:
        text.append("per-position acceptance\nappears when the request ends", style="dim")
    return text


def drafted_lines(split: list[DraftShare]) -> list[str]:
    """Rows under ``drafts``: a lone speculator by name, a chain one line each (drafted, share, ✓accepted).

    Indented instead of labelled, so a row keeps the panel's whole width (4-digit counts fit).
    """
    if len(split) == 1:
        return [f"  all by {split[0].type}"]
    width = max((len(d.type) for d in split), default=0)
    return [f"  {d.type:<{width}} {d.drafted:>4} {d.share:>4.0%} ✓{d.accepted}" for d in split]


class SpecPanel(VerticalScroll):
    """Everything about the speculation of the request in flight (or the last one)."""

    DEFAULT_CSS = """
    SpecPanel { width: 36; border-left: tall $panel; padding: 0 1; background: $surface; }
    SpecPanel .spec-title { text-style: bold; color: $primary; }
    SpecPanel Sparkline { height: 3; margin: 0 0 1 0; }
    SpecPanel Sparkline > .sparkline--max-color { color: $spec-good; }
    SpecPanel Sparkline > .sparkline--min-color { color: $spec-poor; }
    SpecPanel #spec-speed { height: 1; }
    SpecPanel #spec-detail { height: auto; min-height: 9; }
    SpecPanel #spec-bars { margin-top: 1; height: 13; }
    SpecPanel #spec-prefill { height: 3; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.request: RequestInfo | None = None
        self.live = LiveStats()
        self.final: FinalStats | None = None
        self._painted = 0.0
        self.prefill: PrefillView | None = None
        self.cache: WarmState | None = None
        self._started = 0.0
        self._last_live = 0.0  # when the last batch arrived (the idle countdown runs from it)
        self._stopped = True  # no request in flight: no spinner, no countdown
        self._frame = 0
        self._spinner: Timer | None = None
        self._detail_lines = 0

    def compose(self) -> ComposeResult:
        """Title, speed line, sparkline, detail table and per-position bars."""
        yield Static("Speculation", classes="spec-title")
        yield Static(self._prefill_text(), id="spec-prefill")
        yield Static(self._speed_text(), id="spec-speed")
        yield Sparkline([], id="spec-spark")
        yield Static(self._detail_table(), id="spec-detail")
        yield Static(bars([]), id="spec-bars")

    # ---- updates (called by the screen on messages) --------------------------------------

    def start(self, request: RequestInfo) -> None:
        """A new request: reset the figures."""
        self.request, self.live, self.final = request, LiveStats(), None
        self.prefill, self._started = None, time.monotonic()
        self._stopped = False
        # engines without prompt progress get an honest elapsed-time spinner until the first token
        if self._spinner is not None:
            self._spinner.stop()
        self._spinner = self.set_interval(LIVE_INTERVAL, self._tick, name="prefill-spinner")
        self.query_one("#spec-spark", Sparkline).data = []
        self.query_one("#spec-bars", Static).update(self._bars([]), layout=False)
        self._refresh_text()

    def show_prefill(self, view: PrefillView) -> None:
        """A prompt-progress update of the request in flight (every server batch: seconds apart)."""
        self.prefill = view
        self._paint_prefill()

    def show_cache(self, state: WarmState) -> None:
        """The warm-up state: warming / warm (N tokens) / failed."""
        self.cache = state
        self._paint_prefill()

    def stop(self) -> None:
        """The request failed or was stopped: no spinner or countdown any more."""
        if self._spinner is not None:
            self._spinner.stop()
            self._spinner = None
        self._stopped = True
        self._paint_prefill()

    def _tick(self) -> None:
        if self.final is not None:
            self.stop()
            return
        self._frame += 1
        self._paint_prefill()

    def _paint_prefill(self) -> None:
        self.query_one("#spec-prefill", Static).update(self._prefill_text(), layout=False)

    def update_live(self, stats: LiveStats) -> None:
        """Called per streamed batch; repaints at most every LIVE_INTERVAL (the text needs no more)."""
        self.live = stats
        now = time.monotonic()
        self._last_live = now
        if now - self._painted < LIVE_INTERVAL:
            return
        self._painted = now
        self.query_one("#spec-spark", Sparkline).data = list(stats.samples)
        self._refresh_text()

    def finish(self, final: FinalStats) -> None:
        """The request ended: show the final (exact when scraped) figures and the bars."""
        self.final = final
        self.query_one("#spec-spark", Sparkline).data = list(self.live.samples)
        self.query_one("#spec-bars", Static).update(self._bars(final.survival), layout=False)
        self._refresh_text()

    def _bars(self, survival: list[float]) -> Text:
        variables = self.app.theme_variables
        return bars(survival, variables.get("spec-good", "green"), variables.get("spec-poor", "red"))

    def _refresh_text(self) -> None:
        # fixed heights (CSS): repaint only, no screen-wide layout per streamed batch; the detail
        # table grows by a line per speculator of a chain, so it lays out only when its line count changes
        self.query_one("#spec-speed", Static).update(self._speed_text(), layout=False)
        detail = self._detail_table()
        lines = detail.plain.count("\n") + 1
        self.query_one("#spec-detail", Static).update(detail, layout=lines != self._detail_lines)
        self._detail_lines = lines

    # ---- rendering -----------------------------------------------------------------------

    def _prefill_text(self) -> Text:
        """Prefill bar (server progress) or spinner (none), then the cache line."""
        text = Text(no_wrap=True, overflow="ellipsis")
        view = self.prefill
        waiting = not self._stopped and self.request is not None and self.final is None and self.live.stats.ttft is None
        elapsed = time.monotonic() - self._started
        streaming = not self._stopped and self.final is None and self.live.stats.ttft is not None
        if streaming and (note := idle_note(time.monotonic() - self._last_live)) is not None:
            text.append("stream stalled\n", style="dim")
            text.append(note + "\n", style="bold")  # counts down to the stream's idle timeout
        elif view is not None and view.fraction is not None:
            width = 12
            filled = round(view.fraction * width)
            text.append("prefill ", style="dim")
            text.append("█" * filled, style="bold")
            text.append("░" * (width - filled) + f" {view.fraction:4.0%}\n", style="dim")
            rate = f" · {view.tok_s:.0f} tok/s" if view.tok_s else ""
            eta = f" · ETA {view.eta:.0f}s" if view.eta is not None and waiting else ""
            text.append(f"{view.processed}/{view.to_process} tok (+{view.cached} cached){rate}{eta}\n")
        elif waiting:
            text.append(f"{SPINNER[self._frame % len(SPINNER)]} prefill… {elapsed:.1f}s\n", style="dim")
            text.append("(no progress from this engine)\n", style="dim")
        else:
            text.append("prefill –\n\n", style="dim")
        cache = self.cache
        text.append(cache.label() if cache else "cache: –", style="" if cache and cache.status == "warm" else "dim")
        return text

    def _speed_text(self) -> Text:
        live = self.live
        text = Text()
        text.append(_num(live.inst_tps), style="bold")
        text.append(" tok/s now   ", style="dim")
        avg = (self.final.stats if self.final else live.stats).decode_tps
        text.append(_num(avg), style="bold")
        text.append(" tok/s avg", style="dim")
        return text

    def accept_length(self) -> tuple[float | None, str]:
        """Acceptance length and where it comes from: ``running`` while streaming, then ``exact`` or ``stream``."""
        if self.final is not None:
            return self.final.stats.acceptance_length, "exact" if self.final.exact else "stream"
        return self.live.stats.running_acceptance, "running"

    def _detail_table(self) -> Text:
        """Label/value lines as one Text (a rich Table costs ~10x more to render per repaint)."""
        text = Text(no_wrap=True, overflow="ellipsis")

        def row(label: str, value: str | Text) -> None:
            text.append(f"{label:<7}", style="dim")
            text.append(value)
            text.append("\n")

        req, live, final = self.request, self.live, self.final
        al, how = self.accept_length()
        row("accept", f"{_num(al, '{:.2f}')} tok/step ({how})" if al else "–")
        shown = final.stats if final else live.stats
        if shown.draft_n:
            accepted = shown.draft_n_accepted or 0
            row("drafts", f"{accepted}/{shown.draft_n} accepted ({accepted / shown.draft_n:.0%})")
            # which speculator of a chain drafted how much (coder's build reports it per request)
            for line in drafted_lines(draft_split(shown.draft_by_type)):
                text.append(line + "\n")
        else:
            row("drafts", "–")
        if req is not None:
            row("k", f"{req.k if req.k is not None else 'launch'} · {req.request_class} ({req.mode})")
            row("why", req.k_reason)
        else:
            row("k", "–")
            row("why", "–")
        row("TTFT", _num(shown.ttft, "{:.2f} s"))
        if shown.prompt_tokens is not None:
            cached = f" ({shown.cached_tokens} cached)" if shown.cached_tokens is not None else ""
            row("prompt", f"{shown.prompt_tokens}{cached}")
        else:
            row("prompt", "–")
        row("output", f"{shown.tokens} tok" if shown.tokens else "–")
        ideal = self.fraction_of_ideal()
        if ideal is not None:
            row("ideal", f"{ideal:.0%} of baseline × AL")
        elif req is not None and req.baseline_tps is None:
            row("ideal", Text("run /bench for a baseline", style="dim"))
        text.rstrip()
        return text

    def fraction_of_ideal(self) -> float | None:
        """delivered ÷ (baseline × AL), once a baseline tok/s is known."""
        if self.request is None or not self.request.baseline_tps:
            return None
        al, _ = self.accept_length()
        delivered = (self.final.stats if self.final else self.live.stats).decode_tps
        if not delivered or not al:
            return None
        return delivered / (self.request.baseline_tps * al)


def baseline_from_bench(paths: list[Path]) -> float | None:
    """Baseline (no speculation) decode tok/s from the newest ``coder bench`` report that has one.

    A report marks its baseline row ``results[].single[].baseline: true`` (:func:`coder.bench.report.analyse`).
    """
    import json

    for path in sorted((p for p in paths if p.is_file()), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        value = _find_baseline(data)
        if value:
            return value
    return None


def _find_baseline(data: object) -> float | None:
    results = data.get("results") if isinstance(data, dict) else None
    for result in results if isinstance(results, list) else []:
        rows = result.get("single") if isinstance(result, dict) else None
        for row in rows if isinstance(rows, list) else []:
            value = row.get("decode_tps") if isinstance(row, dict) and row.get("baseline") is True else None
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
                return float(value)
    return None
