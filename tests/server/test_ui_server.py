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

import git
import pytest
from textual.message import Message
from textual.pilot import Pilot
from ui_support import SCENARIOS, SHAPES, load, make_repo

from coder import config, conversations
from coder.backends.runtime.server import ServerInfo
from coder.config import builtin_profiles
from coder.ui import session_link as sl
from coder.ui.app import CoderApp
from coder.ui.screens.review import ReviewScreen
from coder.ui.widgets.speculation.panel import SpecPanel
from coder.ui.widgets.status.backend_bar import BackendBar

pytestmark = [pytest.mark.server, pytest.mark.asyncio]

WAIT = 1200  # half-seconds: the shared 2-core box can be slow


async def _until(pilot: Pilot[None], done: Callable[[], bool]) -> None:
    for _ in range(WAIT):
        if done():
            return
        await asyncio.sleep(0.5)
    await pilot.pause()


TYPED = "In the function area, return the product directly"  # names a region: warmed while typed


async def test_typed_edit_streams_reviews_commits_and_undoes(server_factory: Callable[..., ServerInfo],
                                                              tmp_path: Path) -> None:
    """Type ``@shapes.py`` and an instruction; it is warmed, streams, is reviewed, accepted, committed, undone.

    A fresh server of its own: the shared session server's n-gram pool and prompt cache hold
    whatever earlier tests left, and the tiny model's greedy reply flips with them (a refused loop
    in one run, an edit in the next). Here the server sees the same requests in the same order
    every run: the verification probe, the file's warm-up and the typed region's warm-up (the test
    waits for each), then the edit.
    """
    info = server_factory()
    root = make_repo(tmp_path, *SCENARIOS["edit_shapes"].files)
    repo = git.Repo(root)
    head = repo.head.commit.hexsha
    seen: list[Message] = []
    app = CoderApp(root, config.load(root), conversations.new_conversation(root), server=info, persist_theme=False,
                   persist_state=False)
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await pilot.pause()
        await pilot.press(*"@shapes.py", "enter")
        await _until(pilot, lambda: app.conversation.context_files == ["shapes.py"])
        panel = app.main.query_one(SpecPanel)
        await _until(pilot, lambda: panel.cache is not None and panel.cache.status in ("warm", "failed"))
        assert panel.cache is not None and panel.cache.status == "warm", panel.cache
        assert panel.cache.rel == "shapes.py" and panel.cache.tokens > 100  # system prompt + file block
        await pilot.press(*TYPED)  # a pause in typing warms the region the instruction names
        await _until(pilot, lambda: panel.cache is not None and panel.cache.rel == "shapes.py, function area"
                     and panel.cache.status in ("warm", "failed"))
        assert panel.cache is not None and panel.cache.status == "warm", panel.cache
        await pilot.press("enter")
        await _until(pilot, lambda: any(isinstance(m, sl.RequestStarted) for m in seen))
        started = next(m.event for m in seen if isinstance(m, sl.RequestStarted))
        assert started.title.startswith("edit shapes.py (region: auto: region is faster"), started.title
        # a review, or the session back at idle (a refusal is a note, not a failure)
        await _until(pilot, lambda: isinstance(app.screen, ReviewScreen) or app.edit.state == "idle")
        failed = [m.event.error for m in seen if isinstance(m, sl.RequestFailed)]
        assert not failed, failed
        assert isinstance(app.screen, ReviewScreen), app.main.transcript.text
        # it streamed: batches reached the UI with live figures from the server's timings
        batches = [m.event.batch for m in seen if isinstance(m, sl.StreamBatch)]
        assert len(batches) >= 2
        assert batches[-1].live.stats.tokens > batches[0].live.stats.tokens
        assert (batches[-1].live.stats.decode_tps or 0) > 0
        assert panel.final is not None and panel.final.stats.tokens > 0
        await pilot.press("a")
        await _until(pilot, lambda: repo.head.commit.hexsha != head)
        await pilot.pause()
        edited = (root / "shapes.py").read_text()
        # one proposal was reviewed (the hook sees its message at each node it passes), and it was committed
        reviewed = {id(m.event.proposal): m.event.proposal for m in seen if isinstance(m, sl.ReviewRequested)}
        assert len(reviewed) == 1 and edited == next(iter(reviewed.values())).new != SHAPES
        compile(edited, "shapes.py", "exec")  # it still parses
        # what this server and model reply to it, every run: the region rewritten as asked, the rest kept
        assert edited == SHAPES.replace("    result = math.pi * squared\n    return result\n",
                                        "    return math.pi * squared\n")
        assert not repo.is_dirty() and "Applied shapes.py" in app.main.transcript.text
        assert str(repo.head.commit.message).startswith("coder: ")
        await pilot.press(*"/undo", "enter")
        await _until(pilot, lambda: repo.head.commit.hexsha == head)
        await pilot.pause()
        assert (root / "shapes.py").read_text() == SHAPES
        assert "Undone:" in app.main.transcript.text


async def test_k_restart_mid_session_follows_the_new_server(server_factory: Callable[..., ServerInfo],
                                                            llama_server_binary: Path, tmp_path: Path) -> None:
    info = server_factory(k=8)
    info.draft_cap = False  # the stock-binary path: k changes only by relaunching
    profile = builtin_profiles()["demo"].with_overrides(name=info.profile, binary=str(llama_server_binary),
                                                        ctx=4096, threads=2)
    root = make_repo(tmp_path)
    seen: list[Message] = []
    app = CoderApp(root, config.load(root), conversations.new_conversation(root), profile=profile, server=info,
                   persist_theme=False, persist_state=False, chat_max_tokens=64)
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await pilot.pause()
        assert "k 8" in str(app.main.query_one(BackendBar).render())
        await pilot.press(*"/k 3", "enter")
        await _until(pilot, lambda: app.conversation.k_override == 3)
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
        await _until(pilot, lambda: app.conversation.k_override == 2)
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
