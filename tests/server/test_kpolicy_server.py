"""On the real patched llama-server: the cap is honoured, the restart fallback switches k,
the controller learns a synthetic acceptance profile."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from coder.backends.runtime.handle import BackendHandle, chat_client
from coder.backends.runtime.server import ServerInfo
from coder.config import Profile, builtin_profiles
from coder.kchoice import KChoice
from coder.kpolicy import policy_factory
from coder.kpolicy.controller import KController
from coder.kpolicy.policy import KPolicy
from coder.telemetry.metrics import SpecDelta
from coder.telemetry.stats import Reply

pytestmark = pytest.mark.server

SOURCE = (Path(__file__).resolve().parents[2] / "coder" / "kpolicy" / "controller.py").read_text()[:1500]
COPY = [{"role": "user", "content": f"Repeat this text exactly:\n\n{SOURCE}"}]


def _run(info: ServerInfo, k_cap: int | None, max_tokens: int = 96) -> tuple[Reply, SpecDelta]:
    with info.api(timeout=60) as api:
        before = api.metrics()
        result = None
        for item in chat_client(info).stream(COPY, max_tokens=max_tokens, k_cap=k_cap, cache_prompt=True):
            if isinstance(item, Reply):
                result = item
        after = api.metrics()
    assert result is not None and result.stats.tokens > 0
    return result, after - before


def _profile(binary: Path, **overrides: object) -> Profile:
    """The profile conftest's server_factory builds for the same overrides."""
    base = builtin_profiles()["demo"].with_overrides(binary=str(binary), ctx=4096, threads=2)
    return base.with_overrides(**overrides)


def test_cap_honoured_and_absent_field_unchanged(server_factory: Callable[..., ServerInfo]) -> None:
    info = server_factory(spec_type="draft-simple", drafter="demo", k=8, threads=1)
    assert info.draft_cap, "coder's build must report the per-request cap"
    _run(info, None, 8)  # prompt into the cache, so every request below decodes from the same state
    capped_res, capped = _run(info, 2)
    assert capped.drafts > 0
    assert capped.draft_tokens <= 2 * capped.drafts  # at most 2 drafted per step
    assert all(v == 0 for v in capped.accepted_per_pos[2:])  # positions ≥ 2 untouched
    assert any(v > 0 for v in capped.accepted_per_pos[:2])
    assert capped_res.stats.k_cap == 2
    assert (capped_res.stats.draft_n or 0) <= 2 * capped.drafts

    plain_res, plain = _run(info, None)
    full_res, full = _run(info, 8)  # a cap equal to the launch k must change nothing
    again_res, again = _run(info, None)
    assert plain.mean_draft_len is not None and plain.mean_draft_len > 2
    assert any(v > 0 for v in plain.accepted_per_pos[2:])
    for other in (full, again):
        assert (other.drafts, other.draft_tokens, other.accepted) == (plain.drafts, plain.draft_tokens,
                                                                     plain.accepted)
        assert other.accepted_per_pos == plain.accepted_per_pos
    assert plain_res.text == full_res.text == again_res.text == capped_res.text  # greedy: same output


def test_restart_decision_carried_out_by_the_session(server_factory: Callable[..., ServerInfo],
                                                    llama_server_binary: Path) -> None:
    info = server_factory(spec_type="draft-simple", drafter="demo", k=8, threads=1)
    profile = _profile(llama_server_binary, name=info.profile, spec_type="draft-simple", drafter="demo", k=8,
                       threads=1)
    info.draft_cap = False  # force the stock-binary path: k changes only by relaunching
    messages: list[str] = []
    handle = BackendHandle(info, profile, policy_factory=policy_factory(False))
    policy = KPolicy(profile, info, adaptive=False, notify=messages.append, persist=False)
    seen: list[ServerInfo | None] = []
    handle.subscribe(seen.append)
    handle.subscribe(lambda new: policy.follow(new, handle.last_restart_s))
    assert policy.fallback is not None
    policy.override(3, "region")
    choice = policy.choose("region")
    assert (choice.via, choice.k) == ("restart", 3)
    assert handle.info is info  # the decision alone restarts nothing
    new = handle.apply(choice)
    assert new is not None and new.k == 3 and new.pid != info.pid and seen == [new]
    assert policy.server is new and policy.fallback.cost_s > 0 and any("restarted" in m for m in messages)
    _, delta = _run(new, None)  # no cap sent: the launch k is what limits drafts now
    assert delta.drafts > 0
    assert delta.draft_tokens <= 3 * delta.drafts
    assert (delta.mean_draft_len or 0) > 2.5
    assert all(v == 0 for v in delta.accepted_per_pos[3:])
    assert any(v > 0 for v in delta.accepted_per_pos[:3])


def test_restart_cancelled_mid_load_stops_the_new_server(server_factory: Callable[..., ServerInfo],
                                                        llama_server_binary: Path) -> None:
    import threading

    from coder.backends.runtime import manager
    from coder.errors import CoderError

    info = server_factory(spec_type="draft-simple", drafter="demo", k=8, threads=1)
    profile = _profile(llama_server_binary, name=info.profile, spec_type="draft-simple", drafter="demo", k=8,
                       threads=1)
    handle = BackendHandle(info, profile, policy_factory=policy_factory(False))
    seen: list[ServerInfo | None] = []
    handle.subscribe(seen.append)
    cancel = threading.Event()
    cancel.set()  # Escape pressed before the model finished loading
    choice = KChoice(3, "full", "user override", "restart", "override")
    with pytest.raises(CoderError, match="cancelled"):
        handle.apply(choice, cancel)
    assert handle.info is None and seen == [None]
    assert manager.current(str(info.profile)) is None  # nothing left running under that name


# unconditional survival: positions 1–2 almost always accepted, then a cliff
SYNTH = [0.95, 0.9, 0.09, 0.009]


def test_controller_learns_synthetic_acceptance(server_factory: Callable[..., ServerInfo]) -> None:
    info = server_factory(spec_type="draft-simple", drafter="demo", k=4, threads=1,
                          extra_args=["--spec-synth-rates", ",".join(map(str, SYNTH))])
    ctrl = KController(4, probe_every=4)
    _run(info, None, 8)
    for _ in range(10):
        decision = ctrl.choose("full")
        res, delta = _run(info, decision.k, 48)
        ctrl.observe("full", decision.k, res.stats.timings, delta,
                     alone=abs(delta.draft_tokens - (res.stats.draft_n or 0)) < 0.5)
    cond = [SYNTH[0]] + [SYNTH[i] / SYNTH[i - 1] for i in range(1, len(SYNTH))]
    learned = ctrl.rates("full")
    assert learned[:2] == pytest.approx(cond[:2], abs=0.1)
    assert learned[2] < 0.5 < ctrl.prior["full"]  # the cliff after position 2 is seen through the prior
    # k=3 would add 0.09 tokens per step (3%) for a whole extra draft pass: never worth it
    final = ctrl.choose("full")
    assert not final.explore
    assert final.k <= 2, final.reason
