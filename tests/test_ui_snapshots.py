"""SVG snapshots (pytest-textual-snapshot) of the main screen, the diff review and the backend screen.

Deterministic: fixed terminal size, replies from the RecordedChat test double reporting the
recorded timings, no clocks or absolute paths in view. Update with ``pytest --snapshot-update``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import git
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Log

from coder import config, sessions
from coder.backends.engine import Check
from coder.backends.server import ServerInfo
from coder.ui.app import CoderApp
from coder.ui.replay import RecordedChat, Recording
from coder.ui.screens.review import ReviewScreen
from coder.ui.widgets.conversation.prompt import PromptInput

DATA = Path(__file__).parent / "data" / "ui"
SIZE = (120, 36)
GREET = 'def greet(name):\n    return "Hello " + name\n\n\ndef shout(text):\n    return text.upper() + "!"\n'


@pytest.fixture(autouse=True)
def _no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    r = git.Repo.init(root)
    with r.config_writer() as cfg:
        cfg.set_value("user", "name", "Snap")
        cfg.set_value("user", "email", "snap@example.com")
    (root / "greet.py").write_text(GREET)
    r.index.add(["greet.py"])
    r.index.commit("initial")
    return root


def app_for(root: Path, recording: str, **kwargs: object) -> CoderApp:
    chat = RecordedChat(Recording.load(DATA / recording), rate=0, recorded_times=True)
    return CoderApp(root, config.load(root), sessions.new_session(root), chat_source=chat,
                    persist_theme=False, **kwargs)  # type: ignore[arg-type]


async def _settle(pilot: Pilot) -> None:
    app = pilot.app
    for _ in range(3):
        await app.workers.wait_for_complete()
        if hasattr(app, "main"):
            await app.main.workers.wait_for_complete()
        await pilot.pause()


async def _say(pilot: Pilot, text: str) -> None:
    pilot.app.screen.query_one(PromptInput).value = text
    await pilot.press("enter")
    await _settle(pilot)


def test_main_screen_after_streamed_reply(snap_compare, repo: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _settle(pilot)
        await _say(pilot, "how do I read a file safely?")

    assert snap_compare(app_for(repo, "chat_reply.json"), terminal_size=SIZE, run_before=run_before)


def test_diff_review(snap_compare, repo: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await _settle(pilot)
        await _say(pilot, "@greet.py add type hints and a docstring")
        for _ in range(100):
            if isinstance(pilot.app.screen, ReviewScreen):
                break
            await asyncio.sleep(0.05)
            await _settle(pilot)
        assert isinstance(pilot.app.screen, ReviewScreen)
        await pilot.pause()

    assert snap_compare(app_for(repo, "edit_greet.json"), terminal_size=SIZE, run_before=run_before)


def test_backend_screen(snap_compare, repo: Path) -> None:
    # a ServerInfo describing a managed demo server whose log is a real llama-server log excerpt
    info = ServerInfo(url="http://127.0.0.1:9", profile="demo", managed=True, log_path=str(DATA / "server.log"),
                      model="SmolLM2-135M-Instruct.Q4_1.gguf", spec_type="ngram-mod", k=8, k_max=16,
                      draft_cap=True, verified=True, verdict="speculator verified: probe drafted 36, accepted 21")
    app = app_for(repo, "chat_reply.json", server=info)
    app.last_checks = [Check("llama-server", True, "build 11434 (cpu)"), Check("demo model", True, "sha256 ok"),
                       Check("GPU", None, "none found: CPU build")]

    async def run_before(pilot: Pilot) -> None:
        await _settle(pilot)
        await pilot.press("ctrl+b")
        for _ in range(100):
            logs = pilot.app.screen.query(Log)
            if logs and logs.first().line_count > 5:
                break
            await asyncio.sleep(0.05)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
