"""SVG snapshots (pytest-textual-snapshot) of the main screen, the diff review and the backend screen.

Deterministic: fixed terminal size, recorded real replies served by the ReplayServer test double
(tests/data/ui), a fixed repository name, no cursor blink. The live figures (TTFT, tok/s) depend on
the replay's timing, so they are masked: the panel shows them only after ``_freeze`` replaces the
measured times with the recorded ones. Update with ``pytest --snapshot-update`` after looking at it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Log
from ui_support import GREET_DOCSTRING, SCENARIOS, make_repo, replay

from coder import config, conversations
from coder.backends.engines.base import Check
from coder.backends.runtime.server import ServerInfo
from coder.ui.app import CoderApp
from coder.ui.screens.review import ReviewScreen
from coder.ui.widgets.conversation.prompt import PromptInput
from coder.ui.widgets.speculation.panel import SpecPanel

DATA = Path(__file__).parents[1] / "data" / "ui"
SIZE = (120, 36)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path, *SCENARIOS["edit_greet"].files)


@pytest.fixture
def greet() -> Iterator[ServerInfo]:
    with replay("edit_greet") as (_, info):
        yield info


@pytest.fixture
def chat() -> Iterator[ServerInfo]:
    with replay("chat_reply") as (_, info):
        yield info


def app_for(root: Path, info: ServerInfo | None, **kwargs: object) -> CoderApp:
    return CoderApp(root, config.load(root), conversations.new_conversation(root), server=info, persist_theme=False,
                    persist_state=False,
                    offer_start=False, **kwargs)  # type: ignore[arg-type]


def _freeze(pilot: Pilot[None]) -> None:
    """Replace the replay's wall-clock figures with fixed ones so the panel renders the same every run."""
    import dataclasses

    app = pilot.app
    assert isinstance(app, CoderApp)
    panel = app.main.query_one(SpecPanel)
    if panel.final is not None:
        stats = dataclasses.replace(panel.final.stats, ttft=0.5, elapsed=10.5)
        panel.live = dataclasses.replace(panel.live, inst_tps=None, samples=())
        panel.finish(dataclasses.replace(panel.final, stats=stats))


async def _settle(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, CoderApp)
    app.main.prompt.cursor_blink = False  # public switch; a blinking cursor makes SVGs flaky
    for _ in range(3):
        await app.workers.wait_for_complete()
        await app.main.workers.wait_for_complete()
        await pilot.pause()


async def _say(pilot: Pilot[None], text: str) -> None:
    pilot.app.screen.query_one(PromptInput).value = text
    await pilot.press("enter")
    await _settle(pilot)


def test_main_screen_after_streamed_reply(snap_compare, repo: Path, chat: ServerInfo) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[None]) -> None:
        await _settle(pilot)
        await _say(pilot, SCENARIOS["chat_reply"].instruction)
        _freeze(pilot)
        await pilot.pause()

    assert snap_compare(app_for(repo, chat), terminal_size=SIZE, run_before=run_before)


def test_panel_splits_drafts_of_a_chained_reply(snap_compare, repo: Path) -> None:  # type: ignore[no-untyped-def]
    """The recorded demo-hybrid reply (ngram-mod, then draft-simple): one ``by`` row per speculator."""
    async def run_before(pilot: Pilot[None]) -> None:
        await _settle(pilot)
        await _say(pilot, SCENARIOS["chat_hybrid"].instruction)
        _freeze(pilot)
        await pilot.pause()

    with replay("chat_hybrid") as (_, info):
        assert snap_compare(app_for(repo, info), terminal_size=SIZE, run_before=run_before)


def test_diff_review(snap_compare, repo: Path, greet: ServerInfo) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[None]) -> None:
        await _settle(pilot)
        await _say(pilot, "@greet.py")
        await _say(pilot, GREET_DOCSTRING)
        for _ in range(100):
            if isinstance(pilot.app.screen, ReviewScreen):
                break
            await asyncio.sleep(0.05)
            await _settle(pilot)
        assert isinstance(pilot.app.screen, ReviewScreen)
        _freeze(pilot)
        await pilot.pause()

    assert snap_compare(app_for(repo, greet), terminal_size=SIZE, run_before=run_before)


def test_backend_screen(snap_compare, repo: Path) -> None:  # type: ignore[no-untyped-def]
    # a ServerInfo describing a managed demo server whose log is a real llama-server log excerpt
    info = ServerInfo(url="http://127.0.0.1:9", profile="demo", managed=True, log_path=str(DATA / "server.log"),
                      model="SmolLM2-135M-Instruct.Q4_1.gguf", spec_type="ngram-mod", k=8, k_max=16,
                      draft_cap=True, verified=True, verdict="speculator verified: probe drafted 36, accepted 21")
    app = app_for(repo, info)
    app.last_checks = [Check("llama-server", True, "build 11434 (cpu)"), Check("demo model", True, "sha256 ok"),
                       Check("GPU", None, "none found: CPU build")]

    async def run_before(pilot: Pilot[None]) -> None:
        await _settle(pilot)
        await pilot.press("ctrl+b")
        for _ in range(100):
            logs = pilot.app.screen.query(Log)
            if logs and logs.first().line_count > 5:
                break
            await asyncio.sleep(0.05)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
