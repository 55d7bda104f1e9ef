"""Prefill progress: llama.cpp's streamed ``prompt_progress`` and the bar/spinner it drives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.telemetry.prefill import PrefillTracker, PromptProgress, parse_prompt_progress, render

DATA = Path(__file__).parents[1] / "data" / "prefill"


def test_parse_reads_the_fields_and_ignores_other_chunks() -> None:
    chunk = {"choices": [], "prompt_progress": {"total": 3400, "cache": 400, "processed": 1424, "time_ms": 5120}}
    got = parse_prompt_progress(chunk, elapsed=5.3)
    assert got == PromptProgress(3400, 400, 1424, 5120.0, 5.3)
    assert (got.new_total, got.new_done, got.done) == (3000, 1024, False)
    assert parse_prompt_progress({"choices": [{"delta": {"content": "x"}}]}) is None
    assert parse_prompt_progress({"prompt_progress": {"total": "x", "processed": 1}}) is None


def test_recorded_chunks_from_llama_server_parse() -> None:
    """Chunks captured from llama-server b11434 (chat stream with return_progress, cold prefill)."""
    path = DATA / "chat_progress_chunks.jsonl"
    if not path.exists():
        pytest.skip("recording not present")
    chunks = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    updates = [u for c in chunks if (u := parse_prompt_progress(c)) is not None]
    assert len(updates) >= 3
    assert updates[0].processed == updates[0].cache  # the 0 % update when the slot starts
    assert updates[-1].done
    assert [u.processed for u in updates] == sorted(u.processed for u in updates)


def test_tracker_rate_eta_and_queueing() -> None:
    t = PrefillTracker()
    t.update(PromptProgress(2100, 100, 100, 0.0, elapsed=0.5))  # slot took it after 0.5 s in the queue
    t.update(PromptProgress(2100, 100, 1100, 2000.0, elapsed=2.5))
    view = t.view(elapsed=3.0)
    assert view.processed == 1000 and view.to_process == 2000 and view.cached == 100
    assert view.tok_s == pytest.approx(500.0)
    assert view.eta == pytest.approx(1.5)  # 1000 left at 500 tok/s, 0.5 s already spent since
    assert view.queued == pytest.approx(0.5)
    assert view.fraction == pytest.approx(0.5)
    assert t.max_gap == pytest.approx(2.0)
    line = render(view)
    assert "1000/2000 tok" in line and "+100 cached" in line and "ETA 1.5s" in line


def test_engines_without_progress_get_an_honest_spinner() -> None:
    view = PrefillTracker().view(elapsed=4.2)
    assert view.fraction is None and not view.measured
    line = render(view, frame=3)
    assert "4.2s" in line and "%" not in line and "tok/s" not in line


def test_fully_cached_prompt_is_complete() -> None:
    t = PrefillTracker()
    t.update(PromptProgress(1500, 1499, 1500, 3.0, elapsed=0.01))
    assert t.view(0.02).fraction == 1.0
