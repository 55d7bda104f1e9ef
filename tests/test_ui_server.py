"""End to end against the real llama-server with the demo model, driven through the TUI with Pilot.

* an instruction typed into the prompt streams with live stats, is reviewed, accepted, committed
  and undone with ``/undo``;
* a ``/k`` that needs a relaunch (a stock build: no per-request cap) restarts the backend
  mid-session, and the footer, chat and live panel follow the new server; escape cancels a restart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.message import Message
from textual.pilot import Pilot
from ui_support import SCENARIOS, load, make_repo

from coder import config, sessions
from coder.backends.server import ServerInfo
from coder.config import builtin_profiles
from coder.ui import session_link as sl
from coder.ui.app import CoderApp
from coder.ui.widgets.spec.panel import SpecPanel
from coder.ui.widgets.status.backend_bar import BackendBar

pytestmark = [pytest.mark.server, pytest.mark.asyncio]

WAIT = 1200  # half-seconds: the shared 2-core box can be slow


async def _until(pilot: Pilot[None], done: Callable[[], bool]) -> None:
    for _ in range(WAIT):
        if done():
            return
        await asyncio.sleep(0.5)
    await pilot.pause()


async def test_k_restart_mid_session_follows_the_new_server(server_factory: Callable[..., ServerInfo],
                                                            llama_server_binary: Path, tmp_path: Path) -> None:
    info = server_factory(k=8)
    info.draft_cap = False  # the stock-binary path: k changes only by relaunching
    profile = builtin_profiles()["demo"].with_overrides(name=info.profile, binary=str(llama_server_binary),
                                                        ctx=4096, threads=2)
    root = make_repo(tmp_path)
    seen: list[Message] = []
    app = CoderApp(root, config.load(root), sessions.new_session(root), profile=profile, server=info,
                   persist_theme=False, persist_state=False, chat_max_tokens=64)
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await pilot.pause()
        assert "k 8" in str(app.main.query_one(BackendBar).render())
        await pilot.press(*"/k 3", "enter")
        await _until(pilot, lambda: app.session.k_override == 3)
        app.main.prompt.value = SCENARIOS["chat_reply"].instruction
        await pilot.press("enter")
        await _until(pilot, lambda: any(isinstance(m, sl.RequestFinished | sl.RequestFailed) for m in seen))
        failed = [m.event.error for m in seen if isinstance(m, sl.RequestFailed)]
        assert not failed, failed
        new = app.server
        assert new is not None and new.k == 3 and new.pid != info.pid  # restarted at the pinned k
        assert app.backend.info is new
        assert "k 3" in str(app.main.query_one(BackendBar).render())  # the footer follows
        assert "Backend restarted" in app.main.transcript.text
        panel = app.main.query_one(SpecPanel)
        assert panel.final is not None and panel.final.stats.tokens > 0  # the chat streamed from it
        assert panel.final.spec is not None and panel.final.spec.drafts > 0  # /metrics of the new server
        assert panel.final.spec.draft_tokens <= 3 * panel.final.spec.drafts
        # escape cancels a restart: pin another k, ask again, stop while the server relaunches
        seen.clear()
        new.draft_cap = False  # the relaunched build probes the cap again: keep the stock-binary path
        await pilot.press(*"/k 2", "enter")
        await _until(pilot, lambda: app.session.k_override == 2)
        app.main.prompt.value = SCENARIOS["chat_reply"].instruction
        await pilot.press("enter")
        # escape as soon as the restart begins: the demo model reloads in about a second on a quiet machine
        for _ in range(1200):
            if any(isinstance(m, sl.Noted) and "Restarting" in m.event.text for m in seen):
                break
            await asyncio.sleep(0.02)
        await pilot.press("escape")
        await _until(pilot, lambda: any(isinstance(m, sl.RequestStopped | sl.RequestFailed) for m in seen))
        assert any(isinstance(m, sl.RequestStopped) for m in seen), app.main.transcript.text
        await _until(pilot, lambda: app.server is None)
        assert app.server is None and app.edit.state == "idle"
        assert "no backend" in str(app.main.query_one(BackendBar).render())
    assert load("chat_reply").chats  # the recording this test's prompt comes from is present
