"""Pilot tests of the TUI: commands, @-mentions, chat streaming, edit review accept/reject, undo, bad input.

Replies come from :class:`coder.ui.replay.RecordedChat`, the recorded-reply **test double** of the chat
stream (tests/data/ui/*.json); everything else is real: a temporary git repository, the edit engine,
git commits, the session files.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import git
import pytest

from coder import config, sessions
from coder.ui.app import CoderApp
from coder.ui.replay import RecordedChat, Recording
from coder.ui.screens.review import ReviewScreen
from coder.ui.widgets.conversation.prompt import PromptInput
from coder.ui.widgets.conversation.transcript import Transcript
from coder.ui.widgets.spec.panel import SpecPanel

pytestmark = pytest.mark.asyncio

DATA = Path(__file__).parent / "data" / "ui"
GREET = 'def greet(name):\n    return "Hello " + name\n\n\ndef shout(text):\n    return text.upper() + "!"\n'


@pytest.fixture
def ui_repo(tmp_repo: Path) -> Path:
    """tmp_repo plus greet.py (the file the recorded edit rewrites) and a binary file."""
    (tmp_repo / "greet.py").write_text(GREET)
    (tmp_repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0binary")
    repo = git.Repo(tmp_repo)
    repo.index.add(["greet.py", "logo.png"])
    repo.index.commit("add greet")
    return tmp_repo


def make_app(root: Path, recording: str | None = "chat_reply.json", **kwargs: object) -> CoderApp:
    chat = RecordedChat(Recording.load(DATA / recording), rate=0) if recording else None
    return CoderApp(root, config.load(root), sessions.new_session(root), chat_source=chat,
                    persist_theme=False, **kwargs)  # type: ignore[arg-type]


async def submit(pilot, text: str) -> None:
    prompt = pilot.app.screen.query_one(PromptInput)
    prompt.value = text
    await pilot.press("enter")
    await pilot.pause()


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    main = pilot.app.main
    await main.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


def transcript(app: CoderApp) -> str:
    return app.main.query_one(Transcript).text


async def test_chat_streams_reply_and_updates_panel(ui_repo: Path) -> None:
    app = make_app(ui_repo)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "how do I read a file safely?")
        await settle(pilot)
        text = transcript(app)
        assert "› how do I read a file safely?" in text
        assert "def read_text(path: str) -> str:" in text
        panel = app.main.query_one(SpecPanel)
        assert panel.final is not None
        assert panel.live.tokens == len(app.chat_source.recording.chunks)  # type: ignore[union-attr]
        al, how = panel.accept_length()
        assert al is not None and al > 1.0 and how == "stream"
        assert panel.request is not None and panel.request.request_class == "fresh"
        # the session kept both turns
        assert [t.role for t in app.session.turns] == ["user", "assistant"]


async def test_unknown_command_and_help(ui_repo: Path) -> None:
    app = make_app(ui_repo)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "/frobnicate now")
        assert "Unknown command /frobnicate" in transcript(app)
        await submit(pilot, "/help")
        assert "/mode full|region|auto" in transcript(app)
        await submit(pilot, "/mode sideways")
        assert "Usage: /mode full|region|auto" in transcript(app)
        await submit(pilot, "/mode region")
        assert app.session.mode == "region"
        await submit(pilot, "/k 3")
        assert app.session.k_override == 3
        await submit(pilot, "/k auto")
        assert app.session.k_override is None


async def test_mentions_add_drop_and_refusals(ui_repo: Path) -> None:
    app = make_app(ui_repo)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "greet.py" in app.main.files
        await submit(pilot, "@greet.py")
        assert app.session.context_files == ["greet.py"]
        await submit(pilot, "@missing.py please")
        assert "missing.py: no such file" in transcript(app)
        await submit(pilot, "@logo.png")
        assert "looks binary" in transcript(app)
        assert app.session.context_files == ["greet.py"]
        assert app.chat_source.requests == []  # type: ignore[union-attr]  # nothing was sent
        await submit(pilot, "/drop greet.py")
        assert app.session.context_files == []
        await submit(pilot, "/drop nothere.py")
        assert "nothere.py is not in the context" in transcript(app)


async def test_tab_completes_mention_fuzzily(ui_repo: Path) -> None:
    app = make_app(ui_repo)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        prompt = app.main.query_one(PromptInput)
        prompt.focus()
        prompt.value = "fix @grt"
        prompt.cursor_position = len(prompt.value)
        await pilot.pause()
        await pilot.press("tab")
        assert prompt.value == "fix @greet.py "


async def _edit_and_review(pilot, app: CoderApp) -> ReviewScreen:
    await settle(pilot)
    await submit(pilot, "@greet.py add type hints and a docstring")
    for _ in range(50):
        await settle(pilot)
        if isinstance(app.screen, ReviewScreen):
            break
    assert isinstance(app.screen, ReviewScreen), transcript(app)
    return app.screen


async def test_edit_review_accept_commits_then_undo(ui_repo: Path) -> None:
    app = make_app(ui_repo, "edit_greet.json")
    repo = git.Repo(ui_repo)
    head_before = repo.head.commit.hexsha
    async with app.run_test(size=(120, 40)) as pilot:
        review = await _edit_and_review(pilot, app)
        assert "+def greet(name: str) -> str:" in review.diff
        await pilot.press("n")  # hunk navigation must not break anything
        await pilot.press("a")
        await settle(pilot)
        assert 'def greet(name: str) -> str:' in (ui_repo / "greet.py").read_text()
        assert repo.head.commit.hexsha != head_before
        assert not repo.is_dirty()
        assert "Applied greet.py" in transcript(app)
        await submit(pilot, "/undo")
        await settle(pilot)
        assert (ui_repo / "greet.py").read_text() == GREET
        assert repo.head.commit.hexsha == head_before
        assert "Undone:" in transcript(app)


async def test_edit_review_reject_leaves_file(ui_repo: Path) -> None:
    app = make_app(ui_repo, "edit_greet.json")
    repo = git.Repo(ui_repo)
    head_before = repo.head.commit.hexsha
    async with app.run_test(size=(120, 40)) as pilot:
        await _edit_and_review(pilot, app)
        await pilot.press("r")
        await settle(pilot)
        assert (ui_repo / "greet.py").read_text() == GREET
        assert repo.head.commit.hexsha == head_before
        assert "Rejected the edit of greet.py" in transcript(app)


async def test_refused_reply_shows_reason_and_writes_nothing(ui_repo: Path) -> None:
    # a reply cut off by max_tokens: the engine refuses it, the UI shows why, the file stays as it was
    app = make_app(ui_repo, "edit_truncated.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await submit(pilot, "@greet.py rename greet")
        for _ in range(50):
            await settle(pilot)
            if "refused" in transcript(app):
                break
        assert "Edit of greet.py refused, nothing written:" in transcript(app)
        assert not isinstance(app.screen, ReviewScreen)
        assert (ui_repo / "greet.py").read_text() == GREET


async def test_backend_down_message_is_polite(ui_repo: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "no-servers"))  # hide any session-wide server
    app = make_app(ui_repo, None, offer_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await submit(pilot, "hello?")
        await settle(pilot)
        assert "No backend is running, so nothing was sent" in transcript(app)
        assert app.session.turns[-1].content == "hello?"  # kept


async def test_tiny_terminal_shows_notice(ui_repo: Path) -> None:
    app = make_app(ui_repo)
    async with app.run_test(size=(30, 8)) as pilot:
        await pilot.pause()
        assert app.main.has_class("-too-small")
        await submit(pilot, "/help")  # still works, nothing crashes
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert not app.main.has_class("-too-small")


async def test_theme_switch_live(ui_repo: Path) -> None:
    app = make_app(ui_repo)
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.theme == "coder-dark"
        await submit(pilot, "/theme coder-light")
        assert app.theme == "coder-light"
        await submit(pilot, "/theme nope")
        assert "No theme named 'nope'" in transcript(app)
        assert app.theme == "coder-light"


async def test_command_palette_runs_slash_command(ui_repo: Path) -> None:
    app = make_app(ui_repo)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"/help")
        for _ in range(40):  # the palette searches asynchronously
            await pilot.pause(0.05)
        await pilot.press("enter")
        await settle(pilot)
        assert "/mode full|region|auto" in transcript(app)


async def test_resumed_session_shows_history_and_context(ui_repo: Path) -> None:
    old = sessions.new_session(ui_repo)
    old.add_turn("user", "first question")
    old.add_turn("assistant", "first answer")
    old.add_file("greet.py")
    sessions.save(old)
    resumed = sessions.load_last(ui_repo)
    assert resumed is not None
    app = CoderApp(ui_repo, config.load(ui_repo), resumed, chat_source=None, offer_start=False,
                   persist_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = transcript(app)
        assert "› first question" in text and "first answer" in text
        assert f"Resumed session {old.id}" in text
        assert "greet.py" in str(app.main.query_one(PromptInput).border_title)


async def test_theme_choice_persists(ui_repo: Path) -> None:
    app = CoderApp(ui_repo, config.load(ui_repo), sessions.new_session(ui_repo), offer_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "/theme coder-amber")
        assert app.theme == "coder-amber"
    assert config.load(ui_repo).theme == "coder-amber"
    again = CoderApp(ui_repo, config.load(ui_repo), sessions.new_session(ui_repo), offer_start=False)
    assert again.theme == "coder-amber"
    config.save_user_setting(config.user_config_path(), None, "theme", "coder-dark")


async def test_offers_to_start_when_no_backend(ui_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coder.backends import manager
    from coder.ui.screens.start import StartScreen

    # stand-in lookup: "no server recorded" even if a test server of this session is running
    monkeypatch.setattr(manager, "current", lambda name=None: None)
    app = CoderApp(ui_repo, config.load(ui_repo), sessions.new_session(ui_repo), persist_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(50):
            await settle(pilot)
            if isinstance(app.screen, StartScreen):
                break
        assert isinstance(app.screen, StartScreen)
        await pilot.click("#start-skip")
        await pilot.pause()
        assert not isinstance(app.screen, StartScreen)



async def test_backend_screen_runs_doctor(ui_repo: Path) -> None:
    from coder.ui.screens.backend import BackendScreen

    app = make_app(ui_repo, offer_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await submit(pilot, "/backend")
        await pilot.pause()
        assert isinstance(app.screen, BackendScreen)
        await pilot.press("d")  # the real coder.doctor checks, in a thread worker
        for _ in range(240):
            if app.last_checks is not None:
                break
            await asyncio.sleep(0.25)
        await pilot.pause()
        assert app.last_checks is not None
        names = {check.name for check in app.last_checks}
        assert {"config", "profile"} <= names
        await pilot.press("escape")
        assert not isinstance(app.screen, BackendScreen)


async def test_escape_stops_a_streaming_reply(ui_repo: Path) -> None:
    chat = RecordedChat(Recording.load(DATA / "chat_reply.json"), rate=20)  # ~4.5 s of reply
    app = CoderApp(ui_repo, config.load(ui_repo), sessions.new_session(ui_repo), chat_source=chat,
                   persist_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "explain")
        await asyncio.sleep(0.6)
        await pilot.press("escape")
        await settle(pilot)
        assert "Stopped; nothing was applied." in transcript(app)
        shown = transcript(app)
        assert "never raises for a missing file" not in shown  # the rest never arrived
        assert [t.role for t in app.session.turns] == ["user"]
        await submit(pilot, "/help")  # the app is still responsive
        assert "/undo" in transcript(app)
