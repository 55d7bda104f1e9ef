"""``coder edit``'s wall-time split: exclusive phases that sum to the wall time, and every round trip counted.

The recorder is checked on a hand-driven clock; the CLI on the ReplayServer **test double** of a
llama-server (a recorded real edit), in process for the round trips and as a real process for the
interpreter's start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from cli_helpers import run_edit_cli
from ui_support import SCENARIOS, load, make_repo, replay

from coder.cli import edit as edit_cli
from coder.jsontypes import JSONValue
from coder.telemetry import timings
from coder.testing.hostile_transport import hostile_transport
from coder.testing.replay import ReplayServer, send_body


class SlotsReplay(ReplayServer):
    """**Test double**: the recording, plus the ``/slots`` of a speculating server (``--attach`` asks for it)."""

    def _other(self, handler: BaseHTTPRequestHandler, method: str, path: str, body: JSONValue) -> None:
        if path == "/slots":
            send_body(handler, 200, "application/json", json.dumps([{"id": 0, "n_ctx": 4096, "speculative": True}]))
        else:
            super()._other(handler, method, path, body)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(timings, "clock", fake)
    monkeypatch.setattr(timings, "process_started", lambda: (99.5, "test"))
    return fake


def test_phases_are_exclusive_and_sum_to_the_wall(clock: Clock) -> None:
    rec = timings.Timings(started=clock.now, _stack=["imports"])
    clock.now += 0.2
    rec.leave("imports")
    clock.now += 0.05  # in no phase: "other"
    with rec.phase("stats"):
        clock.now += 0.1
        with rec.phase("request"):
            clock.now += 1.0
        clock.now += 0.3
    rec.move(0.25, "stats", "checks")
    report = rec.report()
    phases = report["phases"]
    assert phases == {"python": 0.5, "imports": 0.2, "request": 1.0, "stats": 0.15, "checks": 0.25, "other": 0.05}
    assert report["wall_s"] == 2.15 and sum(phases.values()) == pytest.approx(2.15)
    assert report["outside_request_s"] == pytest.approx(1.15)


def test_a_phase_left_open_inside_another_ends_with_it(clock: Clock) -> None:
    rec = timings.Timings(started=clock.now)
    with rec.phase("stats"):
        rec.enter("request")  # a stream never closed
        clock.now += 1.0
    clock.now += 1.0
    phases = rec.report()["phases"]
    assert phases["request"] == 1.0 and phases["other"] == 1.0


def test_the_models_reading_is_the_models_time_its_own_work_is_reading(clock: Clock) -> None:
    """Issue 34's model reading is one chat completion: listed as the reading's, its seconds are the request's
    (the model's time, as the plan's short questions' are); what coder does around it stays ``reading``."""
    rec = timings.Timings(started=clock.now)
    with rec.phase("plan"), rec.phase(timings.READING):
        clock.now += 0.01  # the file's symbols, the schema, the prompt
        trip = rec.round_trip("POST", "/v1/chat/completions")
        with rec.phase(trip.charged):  # as the transport charges it
            clock.now += 0.25
    edit = rec.round_trip("POST", "/v1/chat/completions")
    with rec.phase(edit.charged):
        clock.now += 1.0
    report = rec.report()
    assert (trip.phase, edit.phase) == ("reading", "request") and trip.charged == edit.charged == "request"
    assert report["phases"]["reading"] == 0.01 and report["phases"]["request"] == 1.25
    assert report["outside_request_s"] == pytest.approx(report["wall_s"] - 1.25)


def test_a_chat_completion_lasts_until_its_stream_closes_on_any_thread() -> None:
    """The transport times a completion to its last token, the reading's and a plan's worker's too: the answer's
    tokens are the model's time, not the reading's nor the plan's own ``steps``."""
    from coder.backends.runtime.http import make_client  # loaded before the clock runs: no part of either phase

    rec = timings.start(timings.clock(), "imports")
    rec.leave("imports")
    body = {"messages": [], "stream": True}

    def whole_stream() -> None:
        with make_client(server.url) as client, client.stream("POST", "/v1/chat/completions", json=body) as reply:
            for _ in reply.iter_bytes():
                pass

    try:
        with hostile_transport("trickle", interval=0.05, hold=0.3) as server:
            with rec.phase(timings.READING):
                whole_stream()
            worker = threading.Thread(target=whole_stream)
            worker.start()
            worker.join()
        report = rec.report()
    finally:
        timings.stop()
    reading, plans = rec.trips
    assert (reading.phase, plans.phase) == ("reading", "(thread)")
    assert reading.seconds >= 0.25 and plans.seconds >= 0.25  # the whole stream, not the headers
    assert report["phases"]["request"] >= 0.25 and report["phases"].get("reading", 0.0) < 0.1


def test_a_chat_pool_made_before_the_recorder_is_made_again_and_other_clients_stay_untimed() -> None:
    """A process keeps one chat pool per server: one made by an earlier command (or a test's, on a reused port)
    is made again once a recorder runs, so the command's chat completions are counted (CI, stop 50: one was
    not); a client made before the recorder by something else (a poller of an earlier test) is not counted."""
    from coder.backends.runtime import chat
    from coder.backends.runtime.http import make_client

    body = {"messages": [], "stream": True}

    def ask(client: object) -> None:
        with client.stream("POST", "/v1/chat/completions", json=body) as reply:  # type: ignore[attr-defined]
            for _ in reply.iter_bytes():
                pass

    with hostile_transport("trickle", interval=0.01, hold=0.02) as server, make_client(server.url) as stray:
        earlier = chat._pool(server.url)
        rec = timings.start(timings.clock(), "imports")
        try:
            pooled = chat._pool(server.url)
            ask(pooled)
            ask(stray)
        finally:
            timings.stop()
        assert pooled is not earlier and chat._pool(server.url) is not pooled  # and plain again after
    assert [(t.method, t.path) for t in rec.trips] == [("POST", "/v1/chat/completions")]


def test_a_plans_wait_is_the_model_only_while_a_chat_completion_is_open(clock: Clock) -> None:
    """A plan's steps run on worker threads: their overlapping requests are the model, the gaps coder's steps."""
    rec = timings.Timings(started=clock.now)
    with rec.phase("probe"):
        clock.now += 0.5
        before = rec.round_trip("POST", "/v1/chat/completions")  # before the plan: not its wait
        before.began, before.seconds = clock.now - 0.4, 0.3
    since = clock.now
    with rec.phase(timings.REQUEST):
        for began, seconds, path in ((0.1, 1.0, "/v1/chat/completions"), (0.6, 1.0, "/v1/chat/completions"),
                                     (1.8, 0.5, "/tokenize"), (2.0, 0.5, "/v1/chat/completions")):
            trip = _thread_trip(rec, path)
            trip.began, trip.seconds = since + began, seconds
        clock.now += 3.0  # model: 0.1-1.6 and 2.0-2.5 (2.0 s); steps: 0-0.1, 1.6-2.0, 2.5-3.0 (1.0 s)
    assert rec.split_wait(since) == pytest.approx(1.0)
    report = rec.report()
    assert report["phases"]["request"] == pytest.approx(2.0) and report["phases"]["steps"] == pytest.approx(1.0)
    assert report["outside_request_s"] == pytest.approx(report["wall_s"] - 2.0)


def _thread_trip(rec: timings.Timings, path: str) -> timings.RoundTrip:
    """A round trip recorded on a worker thread, as a plan's steps send theirs."""
    trips: list[timings.RoundTrip] = []
    worker = threading.Thread(target=lambda: trips.append(rec.round_trip("POST", path)))
    worker.start()
    worker.join()
    return trips[0]


def test_other_threads_are_not_timed(clock: Clock) -> None:
    rec = timings.Timings(started=clock.now)
    seen: list[str] = []

    def work() -> None:
        with rec.phase("probe"):
            clock.now += 5.0
        seen.append(rec.round_trip("GET", "/metrics").phase)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    report = rec.report()
    assert "probe" not in report["phases"] and seen == ["(thread)"]
    assert report["phases"]["other"] == 5.0


def test_spawn_time_is_used_only_when_the_kernel_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel, how = timings.process_started() or (0.0, "")
    assert "/proc" in how
    monkeypatch.setenv("CODER_SPAWNED_AT", str(kernel + 0.001))
    assert timings.process_started() == (kernel + 0.001, "spawn time from the parent")
    monkeypatch.setenv("CODER_SPAWNED_AT", str(kernel - 60))  # inherited from some other process
    assert timings.process_started() == (kernel, how)


@pytest.fixture
def greet_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = make_repo(tmp_path, *SCENARIOS["edit_greet"].files)
    monkeypatch.chdir(root)
    yield root


def _greet_argv(*extra: str) -> list[str]:
    scenario = SCENARIOS["edit_greet"]
    return ["edit", scenario.file or "", "-m", scenario.instruction, "--mode", "full", "--dry-run", *extra]


def test_json_timings_count_every_round_trip(greet_repo: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with replay("edit_greet") as (server, info):
        monkeypatch.setattr(edit_cli, "_find_server", lambda args: info)
        assert run_edit_cli(_greet_argv("--json", "--timings")) == 0
        sent = [(method, path) for method, path, _ in server.requests]
    out, err = capsys.readouterr()
    report = json.loads(out)["timings"]
    trips = [(t["method"], t["path"]) for t in report["round_trips"]]
    assert sorted(trips) == sorted(sent)  # every request the server saw, and no other
    assert trips.count(("POST", "/v1/chat/completions")) == 1
    by_phase = {t["phase"] for t in report["round_trips"] if t["path"] == "/tokenize"}
    assert by_phase == {"tokenizer"}
    phases = report["phases"]
    assert {"imports", "config", "probe", "plan", "request", "stats", "checks", "other"} <= set(phases)
    assert all(v >= 0 for v in phases.values())
    assert sum(phases.values()) == pytest.approx(report["wall_s"], abs=0.002)
    assert "coder: timings: wall" in err and f"round trips: {len(sent)}" in err
    assert timings.RECORDER is None  # the command's recorder ends with it


def test_a_real_process_splits_its_whole_wall_time(greet_repo: Path, tmp_path: Path) -> None:
    """Spawned as a user would: the interpreter's start is a phase, and the split ends at the exit."""
    with SlotsReplay(load("edit_greet")) as server:
        env = {**os.environ, "CODER_HOME": str(tmp_path / "home"), "PYTHONPATH": str(Path(__file__).parents[2])}
        env.pop("CODER_API_KEY", None)
        env["CODER_SPAWNED_AT"] = str(timings.clock())
        started = timings.clock()
        proc = subprocess.run([sys.executable, "-m", "coder", *_greet_argv("--json"), "--attach", server.url],
                              cwd=greet_repo, env=env, capture_output=True, text=True, timeout=120)
        took = timings.clock() - started
    doc = json.loads(proc.stdout)
    report = doc["timings"]
    assert doc["ok"] and report["since"] == "spawn time from the parent", proc.stderr
    phases = report["phases"]
    assert all(phases[name] > 0 for name in ("python", "imports", "config", "probe", "plan", "request", "checks"))
    assert [t["path"] for t in report["round_trips"] if t["phase"] == "request"] == ["/v1/chat/completions"]
    assert sum(phases.values()) == pytest.approx(report["wall_s"], abs=0.002)
    assert 0 < report["wall_s"] <= took


def test_only_a_whole_process_freezes_what_the_edit_path_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    """The interpreter's teardown walked every imported object (0.2-0.4 s); a test's process is left alone."""
    import gc

    import coder
    from coder.cli.edit_timing import begin

    gc.unfreeze()
    try:
        begin()
        assert gc.get_freeze_count() == 0 and gc.isenabled()
        monkeypatch.setattr(coder, "WHOLE_PROCESS", True)
        begin()
        assert gc.get_freeze_count() > 10_000 and gc.isenabled()
    finally:
        gc.unfreeze()
        timings.stop()
