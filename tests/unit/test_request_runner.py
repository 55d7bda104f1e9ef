"""The one request runner (coder.backends.runtime.request): k applied once, /metrics around the
request, the tap's verdicts, cancel, and the k controller fed.

Replies come from recorded real llama-server traffic served by the
:class:`coder.testing.replay.ReplayServer` **test double**; the client, the SSE decoding, the
/metrics scrape and the k policy are coder's real ones.
"""

from __future__ import annotations

import threading

import pytest
from ui_support import load, replay

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.request import FixedServer, RequestCancelled, run_request, stream_request
from coder.bench.runner import Runner, Settings
from coder.bench.workloads import Workload
from coder.config import builtin_profiles
from coder.kchoice import KChoice
from coder.kpolicy import policy_factory
from coder.kpolicy.policy import KPolicy
from coder.telemetry.stats import Chunk, RequestStats


def _recorded_messages() -> list[dict[str, str]]:
    body = load("chat_reply").chats[0].body
    assert isinstance(body, dict) and isinstance(body["messages"], list)
    return [{str(k): str(v) for k, v in m.items()} for m in body["messages"] if isinstance(m, dict)]


MESSAGES = _recorded_messages()  # the strict replay answers only the recorded prompt
PROFILE = builtin_profiles()["demo"]


def test_a_request_returns_the_reply_its_delta_and_feeds_the_controller() -> None:
    with replay("chat_reply") as (server, info):
        backend = BackendHandle(info, PROFILE, policy_factory=policy_factory(False))
        choice = backend.decide("fresh")
        assert choice.via == "cap" and choice.k is not None  # the recorded server takes a per-request cap
        seen: list[Chunk] = []
        outcome = run_request(backend, MESSAGES, choice, max_tokens=64, tap=seen.append)
        body = server.chat_requests[0]
    assert outcome.answered and outcome.text == load("chat_reply").reply_text()
    assert "".join(c.text for c in seen) == outcome.text  # the tap saw every chunk
    assert isinstance(body, dict) and body["speculative.n_max"] == choice.cap  # one cap formula: KChoice.cap
    assert outcome.delta is not None and outcome.delta.drafts > 0
    assert outcome.stats.exact_acceptance == outcome.delta.acceptance_length  # exact, from /metrics
    policy = backend.policy
    assert isinstance(policy, KPolicy)
    assert policy._tokens.get("fresh", 0) > 0  # the controller learned this request's length


def test_live_snapshots_then_the_outcome() -> None:
    with replay("chat_reply") as (_, info):
        backend = BackendHandle(info)
        gen = stream_request(backend, MESSAGES, KChoice(None, "fresh", "launch", "launch"), max_tokens=64,
                             learn=False)
        snaps: list[RequestStats] = []
        while True:
            try:
                snaps.append(next(gen))
            except StopIteration as done:
                outcome = done.value
                break
    assert snaps and all(isinstance(s, RequestStats) for s in snaps)
    assert snaps[-1].chars == len(outcome.text)  # the last snapshot: the stream as read, before /metrics


@pytest.mark.parametrize(("verdict", "kept"), [("stop", 3), ("end", 2)])
def test_a_tap_ends_the_stream(verdict: str, kept: int) -> None:
    chunks: list[Chunk] = []

    def tap(chunk: Chunk) -> str | None:
        chunks.append(chunk)
        return verdict if len(chunks) == 3 else None

    with replay("chat_reply") as (_, info):
        outcome = run_request(BackendHandle(info), MESSAGES, KChoice(None, "fresh", "launch", "launch"),
                              max_tokens=64, tap=tap)  # type: ignore[arg-type]
    assert not outcome.answered and len(chunks) == 3
    assert outcome.text == "".join(c.text for c in chunks[:kept])
    assert outcome.stats.completion_tokens  # no usage came: counted from the text or the counters


def test_drop_keeps_reading_without_the_text() -> None:
    with replay("chat_reply") as (_, info):
        outcome = run_request(BackendHandle(info), MESSAGES, KChoice(None, "fresh", "launch", "launch"),
                              max_tokens=64, tap=lambda chunk: "drop")
    assert outcome.answered and outcome.text == ""


def test_cancel_stops_the_request() -> None:
    cancel = threading.Event()

    def tap(chunk: Chunk) -> None:
        cancel.set()

    with replay("chat_reply") as (_, info), pytest.raises(RequestCancelled):
        run_request(BackendHandle(info), MESSAGES, KChoice(None, "fresh", "launch", "launch"), max_tokens=64,
                    tap=tap, cancel=cancel)


def test_bench_requests_go_through_the_runner_and_teach_nothing() -> None:
    with replay("chat_reply", strict=False) as (server, info):
        runner = Runner(info, Settings(reps=1, priming=False))
        try:
            rec = runner.request(Workload("w", "fresh", MESSAGES), 0, k_cap=2)
        finally:
            runner.close()
        body = server.chat_requests[0]
    assert rec.error is None and rec.answered and rec.text == load("chat_reply").reply_text()
    assert isinstance(body, dict) and body["speculative.n_max"] == 2
    assert isinstance(runner.backend, FixedServer)  # the k given is measured: nothing restarts or learns
