"""The backend handle is the profile's one home: the configured profile, the running one, and the one
adopt rule that names the profile a found or attached server runs; a k restart relaunches the running one."""

from __future__ import annotations

import threading

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.config import Profile, builtin_profiles
from coder.kpolicy import policy_factory

PROFILES = builtin_profiles()
CONFIGURED = PROFILES["demo"]
OTHER = PROFILES["qwen-0.5b"]


def _server(profile: str | None, *, managed: bool = True, k: int = 8) -> ServerInfo:
    return ServerInfo(url="http://127.0.0.1:9", profile=profile, managed=managed, spec_type="ngram-mod", k=k,
                      draft_cap=False, verified=True)


def test_the_adopt_rule() -> None:
    handle = BackendHandle(configured=CONFIGURED, profiles=PROFILES)
    assert handle.running is None and handle.profile is CONFIGURED
    handle.adopt(_server(OTHER.name))
    assert handle.running == OTHER  # a managed server's recorded profile wins over the configured one
    handle.adopt(_server(None, managed=False))
    assert handle.running is CONFIGURED  # an attached server that does not say runs under the configured one
    handle.adopt(_server("gone-from-config"))
    assert handle.running is not None and handle.running.name == "gone-from-config"  # its state files' name
    assert handle.running.model == CONFIGURED.model
    handle.adopt(None)
    assert handle.running is None and handle.profile is CONFIGURED


def test_the_configured_profile_as_given_wins_for_its_own_server() -> None:
    mine = CONFIGURED.with_overrides(ctx=4096)
    handle = BackendHandle(configured=mine, profiles=PROFILES)
    handle.adopt(_server(CONFIGURED.name))
    assert handle.running is mine


def test_a_k_restart_relaunches_the_running_profile_not_the_configured_one() -> None:
    restarted: list[tuple[str, int]] = []

    def restart_double(profile: Profile, k: int, cancel: threading.Event | None) -> ServerInfo:
        restarted.append((profile.name, k))
        return _server(profile.name, k=k)

    handle = BackendHandle(configured=CONFIGURED, profiles=PROFILES, policy_factory=policy_factory(False),
                           restart_fn=restart_double)
    handle.adopt(_server(OTHER.name))
    handle.pin(3)
    choice = handle.decide("full")
    assert (choice.k, choice.via) == (3, "restart"), choice
    new = handle.apply(choice)
    assert restarted == [(OTHER.name, 3)] and new is not None and new.k == 3
    assert handle.running is not None and handle.running.name == OTHER.name and handle.running.k == 3
