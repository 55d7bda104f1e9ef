"""The TUI's profile has one home, the backend handle: a server found at launch runs the profile it
records, and the backend screen's Restart and Stop act on that one, not on the configured one.

``manager.current``/``restart``/``stop`` are replaced by recording stand-ins (a real relaunch needs
a llama-server: ``tests/server/test_ui_server.py`` restarts a real one); the app, the handle's adopt
rule, the backend screen and its buttons are the real ones.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from ui_support import make_repo

from coder import config, conversations
from coder.backends.runtime import manager
from coder.backends.runtime.server import ServerInfo
from coder.config import Profile
from coder.ui.app import CoderApp
from coder.ui.screens.backend import BackendScreen

pytestmark = pytest.mark.asyncio


async def _until(pilot: object, done: object) -> None:
    for _ in range(200):
        if callable(done) and done():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


async def test_restart_and_stop_act_on_the_running_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path)
    cfg = config.load(root)
    configured = cfg.profile()
    other = next(name for name in cfg.profiles if name != configured.name)
    running = ServerInfo(url="http://127.0.0.1:9", profile=other, managed=True, spec_type="ngram-mod", k=4)
    restarted: list[tuple[str, int | None]] = []
    stopped: list[str] = []

    def restart(profile: Profile, k: int | None = None, cancel: object = None, progress: object = None) -> ServerInfo:
        restarted.append((profile.name, k))
        return dataclasses.replace(running, k=k)

    def stop(name: str, grace: float = 10.0) -> bool:
        stopped.append(name)
        return True

    # the launch lookup finds a server of another profile than the configured one
    monkeypatch.setattr(manager, "current", lambda name=None: running if name in (None, other) else None)
    monkeypatch.setattr(manager, "restart", restart)
    monkeypatch.setattr(manager, "stop", stop)
    app = CoderApp(root, cfg, conversations.new_conversation(root), persist_theme=False, persist_state=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: app.server is not None)
        assert app.backend.running is not None and app.backend.running.name == other
        assert app.configured.name == configured.name != other
        app.action_backend()
        await pilot.pause()
        assert isinstance(app.screen, BackendScreen)
        await pilot.click("#b-restart")
        await _until(pilot, lambda: restarted)
        assert restarted == [(other, 4)]  # the Restart button relaunched the running profile
        await _until(pilot, lambda: app.backend.running is not None and app.server is not None
                     and app.server.k == 4)
        await pilot.click("#b-stop")
        await _until(pilot, lambda: stopped)
        assert stopped == [other]
        await _until(pilot, lambda: app.server is None)
        assert app.backend.running is None and app.backend.profile == app.configured  # a Start launches this
