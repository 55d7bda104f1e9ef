"""``coder edit``'s status line: redrawn by its own thread a few times a second, never per token,
and counting down a stalled stream to its idle timeout."""

from __future__ import annotations

import io
import time

from coder.backends.runtime.chat import stream_idle_s
from coder.cli.streamline import StreamLine, stream_status
from coder.telemetry.stats import Chunk, RequestStats


def _stats(tokens: int) -> RequestStats:
    stats = RequestStats()
    stats.add(Chunk("x" * tokens, 0.5, count=tokens))
    stats.elapsed = 1.0
    return stats


def test_ten_thousand_updates_draw_a_few_lines() -> None:
    out = io.StringIO()
    with StreamLine(out, every=0.05) as line:
        start = time.monotonic()
        for n in range(10_000):
            line.update(_stats(n + 1))
        while time.monotonic() - start < 0.3:
            time.sleep(0.01)
    drawn = out.getvalue().splitlines()
    assert 1 <= line.lines <= 12 and len(drawn) == line.lines
    assert drawn[-1].strip().startswith("streaming: 10000 tok")


def test_a_stalled_stream_counts_down_to_the_idle_timeout() -> None:
    stats = _stats(40)
    assert "no token" not in stream_status(stats, 1.0, 30.0)  # a short pause is ordinary
    assert stream_status(stats, 7.2, 30.0).endswith("no token for 7 s, giving up in 23 s")
    assert "no token" not in stream_status(RequestStats(), 7.2, 30.0)  # before the first token: prefill


def test_idle_timeout_setting(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CODER_STREAM_IDLE_S", "5")
    assert stream_idle_s() == 5.0
    for bad in ("0", "-3", "soon", "nan", "1e99"):
        monkeypatch.setenv("CODER_STREAM_IDLE_S", bad)
        assert stream_idle_s() == 30.0
