"""ServerAPI.snapshot around a cut stream: an impatient after-snapshot leaves no wait, and no miscount.

llama.cpp adds a cancelled request's counters when it notices the closed stream and releases the
slot. The after-snapshot of a stream cut early does not wait for that when the stream counted its
own drafts (its acceptance is the stream's); the next before-snapshot of the same server waits
instead, so the next request's delta does not take in the cut one's tokens.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from coder.backends.runtime import server as server_module
from coder.backends.runtime.server import ServerAPI
from coder.telemetry.metrics import SpecStats


def _api(monkeypatch: pytest.MonkeyPatch, generated: Iterator[float]) -> tuple[ServerAPI, list[float]]:
    api = ServerAPI("http://127.0.0.1:9", None)
    scraped: list[float] = []

    def metrics() -> SpecStats:
        scraped.append(next(generated))
        return SpecStats(engine="llama.cpp", generated=scraped[-1])

    monkeypatch.setattr(api, "metrics", metrics)
    monkeypatch.setattr(server_module, "_UNSETTLED", {})
    return api, scraped


def test_an_impatient_after_snapshot_looks_once_and_the_next_before_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    api, scraped = _api(monkeypatch, iter([100.0, 100.0, 100.0, 100.0, 140.0, 140.0]))
    before = api.snapshot()
    assert before is not None and before.generated == 100.0
    assert api.snapshot(wait_for=before, final_seen=False, patient=False) is None  # not moved: no delta at all
    assert scraped == [100.0, 100.0]
    nxt = api.snapshot()  # the next request's before: waits for the cut request's counters to land
    assert nxt is not None and nxt.generated == 140.0
    assert server_module._UNSETTLED == {}


def test_counters_already_moved_are_taken_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    api, scraped = _api(monkeypatch, iter([100.0, 130.0, 130.0]))
    before = api.snapshot()
    assert before is not None
    after = api.snapshot(wait_for=before, final_seen=False, patient=False)
    assert after is not None and after.generated == 130.0
    assert api.snapshot() is not None and scraped == [100.0, 130.0, 130.0]  # nothing left to settle


def test_a_patient_after_snapshot_still_waits_for_the_counters(monkeypatch: pytest.MonkeyPatch) -> None:
    api, scraped = _api(monkeypatch, itertools.chain([100.0, 100.0, 100.0], itertools.repeat(120.0)))
    before = api.snapshot()
    assert before is not None
    after = api.snapshot(wait_for=before, final_seen=False)
    assert after is not None and after.generated == 120.0 and len(scraped) == 4
