"""KPolicy: validation, precedence, how a k is applied (cap / restart / launch / recommend)."""

from __future__ import annotations

import threading

import pytest

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.config import Profile
from coder.errors import CoderError
from coder.kpolicy import policy_factory
from coder.kpolicy.policy import KPolicy
from coder.kpolicy.restart import RestartFallback


def _server(**kw: object) -> ServerInfo:
    base: dict[str, object] = dict(url="http://127.0.0.1:1", spec_type="draft-simple", k=8, managed=True,
                                   draft_cap=True)
    base.update(kw)
    return ServerInfo(**base)  # type: ignore[arg-type]


def _policy(profile: Profile | None = None, **kw: object) -> KPolicy:
    return KPolicy(profile or Profile(name="t", adaptive_k=False), _server(**kw), persist=False)


@pytest.mark.parametrize(("k", "fragment"), [
    (0, "at least 1"), (-3, "at least 1"), (9, "launch k=8"), (2.5, "whole number"), (True, "whole number"),
])
def test_bad_k_rejected_with_clear_message(k: object, fragment: str) -> None:
    policy = _policy()
    with pytest.raises(CoderError, match=fragment) as info:
        policy.override(k)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)
    assert policy.overrides() == {}  # nothing half-applied


def test_above_drafter_block_rejected() -> None:
    policy = _policy(k=7, k_max=7, spec_type="draft-dflash")
    with pytest.raises(CoderError, match="drafter's maximum k=7"):
        policy.override(8, "full")


def test_bad_profile_k_by_class_rejected_at_construction() -> None:
    with pytest.raises(CoderError, match=r"k_by_class\.region must be at least 1"):
        _policy(Profile(name="t", adaptive_k=False, k_by_class={"region": 0}))


def test_unknown_class_rejected() -> None:
    with pytest.raises(CoderError, match="unknown request class"):
        _policy().choose("bulk")


def test_defaults_and_precedence_on_capped_build() -> None:
    policy = _policy(Profile(name="t", adaptive_k=False, k_by_class={"region": 5}))
    full, region, fresh = (policy.choose(c) for c in ("full", "region", "fresh"))
    assert (full.k, full.via, full.source) == (8, "cap", "default")
    assert (region.k, region.source) == (5, "profile")
    assert fresh.k is not None and fresh.k < 8 and fresh.cap == fresh.k
    policy.override(2)
    assert policy.choose("full").k == 2
    policy.override(6, "full")  # class override beats the global one
    assert (policy.choose("full").k, policy.choose("region").k) == (6, 2)
    policy.override(None)
    assert policy.choose("region").k == 5
    assert policy.describe()["overrides"] == {"full": 6}


def test_attached_stock_server_recommends_instead_of_acting() -> None:
    policy = _policy(managed=False, draft_cap=False)
    choice = policy.choose("fresh")
    assert choice.via == "recommend"
    assert choice.k == 8 and choice.cap is None  # the launch k stays in force
    assert choice.recommended is not None and choice.recommended < 8
    assert "not managed" in choice.reason


def test_stock_managed_server_restart_is_a_decision_the_session_carries_out() -> None:
    calls: list[int] = []
    messages: list[str] = []
    seen: list[ServerInfo | None] = []

    def fake_restart(profile: Profile, k: int, cancel: threading.Event | None) -> ServerInfo:
        """TEST DOUBLE for manager.restart (the real one is exercised in test_kpolicy_server)."""
        calls.append(k)
        return _server(k=k, draft_cap=False, url="http://127.0.0.1:2")

    profile = Profile(name="t", adaptive_k=False)
    handle = BackendHandle(_server(draft_cap=False), profile, restart_fn=fake_restart,
                            policy_factory=policy_factory(False))
    policy = KPolicy(profile, handle.info, notify=messages.append, persist=False)  # type: ignore[arg-type]
    handle.subscribe(seen.append)
    handle.subscribe(lambda info: policy.follow(info, handle.last_restart_s))
    assert policy.choose("full").via == "launch"
    keep = policy.choose("fresh")  # no throughput estimate: never restart on a default
    assert keep.via == "launch" and keep.k == 8 and keep.recommended == 3
    policy.override(4, "region")
    switched = policy.choose("region")
    assert (switched.via, switched.k, calls) == ("restart", 4, [])  # choose() itself touches nothing
    assert handle.info is not None and handle.info.k == 8
    new = handle.apply(switched)
    assert calls == [4] and new is handle.info and new is not None and new.url.endswith(":2")
    assert [i.k if i else None for i in seen] == [4]  # subscribers told once, with the new server
    assert policy.server.k == 4 and policy.fallback is not None and policy.fallback.restarts == 1
    assert any("restarted with k=4" in m for m in messages)
    assert handle.apply(policy.choose("region")) is new and calls == [4]  # already at k=4: no restart


def test_session_restart_can_be_cancelled() -> None:
    started = threading.Event()

    def slow_restart(profile: Profile, k: int, cancel: threading.Event | None) -> ServerInfo:
        """TEST DOUBLE for manager.restart: blocks like a model load until cancelled."""
        started.set()
        assert cancel is not None
        if cancel.wait(10):
            raise CoderError("start of t cancelled; the half-started server was stopped")
        return _server(k=k)

    seen: list[ServerInfo | None] = []
    handle = BackendHandle(_server(draft_cap=False), Profile(name="t"), restart_fn=slow_restart,
                            policy_factory=policy_factory(False))
    handle.subscribe(seen.append)
    policy = KPolicy(Profile(name="t", adaptive_k=False), _server(draft_cap=False), persist=False)
    policy.override(2)
    cancel = threading.Event()
    errors: list[str] = []

    def run() -> None:
        try:
            handle.apply(policy.choose("full"), cancel)
        except CoderError as exc:
            errors.append(str(exc))

    worker = threading.Thread(target=run)
    worker.start()
    assert started.wait(5)
    cancel.set()
    worker.join(5)
    assert not worker.is_alive() and errors and "cancelled" in errors[0]
    assert handle.info is None and seen == [None]


def test_restart_hysteresis_compares_gain_to_measured_cost() -> None:
    fb = RestartFallback(Profile(name="t"), persist=False)
    fb.cost_s = 10.0
    rate = {8: 20.0, 3: 22.0, 2: 40.0}.get
    small = fb.verdict(8, 3, rate, coming_tokens=1000)  # saves 4.5 s < 10 s
    assert not small.restart and small.gain_s == pytest.approx(1000 / 20 - 1000 / 22)
    big = fb.verdict(8, 2, rate, coming_tokens=1000)  # saves 25 s > 10 s
    assert big.restart
    assert not fb.verdict(8, 2, rate, coming_tokens=200).restart  # same k, shorter horizon


def test_no_speculation_means_no_k() -> None:
    choice = _policy(spec_type="none", k=None).choose("full")
    assert choice.k is None and choice.cap is None


def test_adaptive_policy_reports_its_reasoning() -> None:
    import json

    from coder.telemetry.metrics import SpecDelta

    policy = KPolicy(Profile(name="t"), _server(), persist=False)
    assert policy.controller is not None
    first = policy.choose("region")
    assert (first.k, first.source, first.via) == (8, "adaptive", "cap") and "burn-in" in first.reason
    # a request where only the first two positions ever survive
    delta = SpecDelta(drafts=100, draft_tokens=800, accepted=150, accepted_per_pos=(90, 60, 0, 0, 0, 0, 0, 0))
    policy.learn(first.request_class, first.k, {"predicted_n": 250, "predicted_ms": 5000.0, "draft_n": 800,
                                                "draft_n_accepted": 150}, delta)
    second = policy.choose("region")
    assert second.k is not None and second.k < 8
    assert f"k={second.k}" in second.reason
    described = json.loads(json.dumps(policy.describe()))
    assert described["classes"]["region"]["last"]["k"] == second.k
    assert described["controller"]["classes"]["region"]["requests"] == 1
