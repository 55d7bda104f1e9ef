"""Pilot tests of the TUI: commands, @-mentions, chat streaming, edit review accept/reject, hunks, undo, bad input.

Replies are recorded real llama-server traffic (tests/data/ui/*.json, see their ``meta``) served by the
:class:`coder.testing.replay.ReplayServer` **test double** on 127.0.0.1; everything else is real: the
OpenAI client, the edit engine and its /metrics scrape (of the recorded pages), a temporary git
repository, git commits, the session files.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import git
import pytest
from textual.pilot import Pilot
from textual.widgets import Static
from ui_support import GREET, GREET_DOCSTRING, SCENARIOS, SHAPES, SHAPES_INSTRUCTION, load, make_repo, replay

from coder import config, conversations
from coder.backends.runtime.server import ServerInfo
from coder.telemetry.stats import draft_split
from coder.testing.replay import ReplayServer
from coder.ui.app import CoderApp
from coder.ui.screens.review import ReviewScreen
from coder.ui.widgets.conversation.prompt import PromptInput
from coder.ui.widgets.conversation.transcript import Transcript
from coder.ui.widgets.review.diff_view import DiffView
from coder.ui.widgets.speculation.panel import SpecPanel, drafted_lines
from coder.ui.widgets.status.backend_bar import BackendBar

pytestmark = pytest.mark.asyncio


@pytest.fixture
def ui_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


@pytest.fixture
def greet_repo(tmp_path: Path) -> Path:
    """The repository the greet recordings were made in."""
    return make_repo(tmp_path, *SCENARIOS["edit_greet"].files)


def make_app(root: Path, server: ServerInfo | None, **kwargs: Any) -> CoderApp:
    return CoderApp(root, config.load(root), conversations.new_conversation(root), server=server, persist_theme=False,
                    **kwargs)


async def submit(pilot: Pilot[None], text: str) -> None:
    prompt = pilot.app.screen.query_one(PromptInput)
    prompt.value = text
    await pilot.press("enter")
    await settle(pilot)


async def settle(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, CoderApp)
    for _ in range(2):
        await app.workers.wait_for_complete()
        await app.main.workers.wait_for_complete()
        await pilot.pause()


def transcript(app: CoderApp) -> str:
    return app.main.query_one(Transcript).text


@pytest.fixture
def greet_server() -> Iterator[tuple[Any, ServerInfo]]:
    with replay("edit_greet") as pair:
        yield pair


async def test_chat_streams_reply_and_panel_shows_recorded_metrics(ui_repo: Path) -> None:
    with replay("chat_reply") as (_, info):
        app = make_app(ui_repo, info)
        async with app.run_test(size=(120, 40)) as pilot:
            await submit(pilot, SCENARIOS["chat_reply"].instruction)
            text = transcript(app)
            panel = app.main.query_one(SpecPanel)
    assert "› " + SCENARIOS["chat_reply"].instruction in text
    reply = load("chat_reply").reply_text()
    assert reply.splitlines()[0] in text
    assert panel.final is not None and panel.final.spec is not None and panel.final.spec.drafts > 0
    al, how = panel.accept_length()
    assert how == "exact" and al is not None and al >= 1.0
    assert panel.live.stats.tokens > 0 and panel.live.stats.draft_n
    assert panel.request is not None and panel.request.request_class == "fresh"
    assert [t.role for t in app.conversation.turns] == ["user", "assistant"]


def _recorded_by_type(name: str) -> list[dict[str, dict[str, int]]]:
    """Every ``timings.draft_by_type`` the recorded stream carried, in order (coder's build sends one per chunk)."""
    import json

    out = []
    for chat in load(name).chats:
        for _, data in chat.events:
            if data.startswith("{") and (timings := json.loads(data).get("timings")):
                out.append(timings.get("draft_by_type") or {})
    return out


async def test_panel_shows_which_speculator_drafted_how_much_live_and_final(ui_repo: Path) -> None:
    recorded = _recorded_by_type("chat_hybrid")  # real reply of the chained demo-hybrid server
    assert len(draft_split(recorded[-1])) == 2, "the recording must show both speculators drafting"
    with replay("chat_hybrid", rate=40) as (_, info):  # ~4 s of reply: the panel is seen mid-stream
        app = make_app(ui_repo, info)
        async with app.run_test(size=(120, 40)) as pilot:
            panel = app.main.query_one(SpecPanel)
            detail = panel.query_one("#spec-detail", Static)
            app.main.prompt.value = SCENARIOS["chat_hybrid"].instruction
            await pilot.press("enter")
            live_rows: list[str] = []
            for _ in range(200):
                await asyncio.sleep(0.05)
                shown = str(detail.content)
                if panel.final is None and panel.live.stats.draft_n and "\n  " in shown:
                    live_rows = [line for line in shown.splitlines() if line.startswith("  ")]
                    break
            await settle(pilot)
            final_text = str(detail.content)
    # while streaming: the rows come from the live counters, one of the recorded states
    assert live_rows, "the panel never showed the split while the reply streamed"
    seen = [drafted_lines(draft_split(b)) for b in recorded]
    assert live_rows in seen
    # once finished: the final counts of the recording, every speculator on its own row
    assert panel.final is not None and panel.final.stats.draft_by_type == recorded[-1]
    want = drafted_lines(draft_split(recorded[-1]))
    assert f"accepted (100%)\n{want[0]}\n{want[1]}\n" in final_text  # right under the drafts row
    assert {want[0].split()[0], want[1].split()[0]} == {"ngram-mod", "draft-simple"}


async def test_panel_shows_no_split_without_per_speculator_counts(ui_repo: Path) -> None:
    with replay("chat_reply") as (_, info):  # recorded before the build reported draft_by_type
        app = make_app(ui_repo, info)
        async with app.run_test(size=(120, 40)) as pilot:
            await submit(pilot, SCENARIOS["chat_reply"].instruction)
            panel = app.main.query_one(SpecPanel)
            text = str(panel.query_one("#spec-detail", Static).content)
    assert panel.final is not None and panel.final.stats.draft_n and "drafts " in text
    assert "\n  " not in text


async def test_unknown_command_help_and_k(greet_repo: Path, greet_server: tuple[Any, ServerInfo]) -> None:
    server, info = greet_server
    app = make_app(greet_repo, info)
    async with app.run_test(size=(120, 40)) as pilot:
        await submit(pilot, "/frobnicate now")
        assert "Unknown command /frobnicate" in transcript(app)
        await submit(pilot, "/help")
        assert "/mode full|region|auto" in transcript(app)
        await submit(pilot, "/k 3")
        assert app.conversation.k_override == 3
        assert "k 3" in str(app.main.prompt.border_title)
        await submit(pilot, "@greet.py")
        await submit(pilot, GREET_DOCSTRING)
        for _ in range(100):
            if isinstance(app.screen, ReviewScreen):
                break
            await asyncio.sleep(0.05)
        assert isinstance(app.screen, ReviewScreen), transcript(app)
        assert server.chat_requests[-1]["speculative.n_max"] == 3  # what /k 3 sends
        await pilot.press("r")
        await settle(pilot)
        await submit(pilot, "/k auto")
        assert app.conversation.k_override is None


async def test_mentions_add_drop_and_refusals(ui_repo: Path) -> None:
    app = make_app(ui_repo, None, offer_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "greet.py" in app.main.prompt.files
        await submit(pilot, "@greet.py")
        assert app.conversation.context_files == ["greet.py"]
        await submit(pilot, "@missing.py please")
        assert "missing.py: no such file" in transcript(app)
        await submit(pilot, "@logo.png")
        assert "looks binary" in transcript(app)
        assert app.conversation.context_files == ["greet.py"]
        await submit(pilot, "/drop greet.py")
        assert app.conversation.context_files == []


async def test_tab_completes_mention_fuzzily(ui_repo: Path) -> None:
    app = make_app(ui_repo, None, offer_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        prompt = app.main.prompt
        prompt.focus()
        prompt.value = "fix @grt"
        prompt.cursor_position = len(prompt.value)
        await pilot.pause()
        await pilot.press("tab")
        assert prompt.value == "fix @greet.py "


async def _review(pilot: Pilot[None], app: CoderApp, file: str, instruction: str) -> ReviewScreen:
    await settle(pilot)
    await submit(pilot, f"@{file}")
    await submit(pilot, instruction)
    for _ in range(100):
        if isinstance(app.screen, ReviewScreen):
            break
        await asyncio.sleep(0.05)
    assert isinstance(app.screen, ReviewScreen), transcript(app)
    return app.screen


async def test_edit_review_accept_commits_then_undo(greet_repo: Path, greet_server: tuple[Any, ServerInfo]) -> None:
    repo = git.Repo(greet_repo)
    head_before = repo.head.commit.hexsha
    app = make_app(greet_repo, greet_server[1])
    async with app.run_test(size=(120, 40)) as pilot:
        review = await _review(pilot, app, "greet.py", GREET_DOCSTRING)
        assert '+    """' in review.diff
        await pilot.press("a")
        await settle(pilot)
        edited = (greet_repo / "greet.py").read_text()
        assert edited != GREET and '"""' in edited
        assert repo.head.commit.hexsha != head_before and not repo.is_dirty()
        assert "Applied greet.py" in transcript(app)
        await submit(pilot, "/undo")
        assert (greet_repo / "greet.py").read_text() == GREET
        assert repo.head.commit.hexsha == head_before
        assert "Undone:" in transcript(app)


async def test_edit_review_reject_leaves_file(greet_repo: Path, greet_server: tuple[Any, ServerInfo]) -> None:
    head_before = git.Repo(greet_repo).head.commit.hexsha
    app = make_app(greet_repo, greet_server[1])
    async with app.run_test(size=(120, 40)) as pilot:
        await _review(pilot, app, "greet.py", GREET_DOCSTRING)
        await pilot.press("r")
        await settle(pilot)
        assert (greet_repo / "greet.py").read_text() == GREET
        assert git.Repo(greet_repo).head.commit.hexsha == head_before
        assert "Rejected the edit of greet.py" in transcript(app)


async def test_hunk_navigation_moves_between_hunks(tmp_path: Path) -> None:
    ui_repo = make_repo(tmp_path, *SCENARIOS["edit_shapes"].files)
    # recorded (tests/data/ui/record.py edit_shapes, then renamed) since the TUI asks the docstrings of the two
    # functions as one short question first; edit_shapes.json, older, serves `coder edit` in auto mode's other tests
    recording = load("edit_shapes_asked")
    with ReplayServer(recording) as server:
        info = recording.server_info(server.url)
        app = make_app(ui_repo, info)
        async with app.run_test(size=(120, 30)) as pilot:
            review = await _review(pilot, app, "shapes.py", SHAPES_INSTRUCTION)
            view = review.query_one(DiffView)
            assert len(view.hunks) >= 2, review.diff
            assert view.current == 0 and view.hunk_label == f"hunk 1/{len(view.hunks)}"
            await pilot.press("n")
            await pilot.pause()
            assert view.current == 1
            assert view.scroll_offset.y == max(0, view.hunks[1] - 1) or view.scroll_offset.y == view.max_scroll_y
            assert f"hunk 2/{len(view.hunks)}" in str(review.query_one("#review-bar").render())
            await pilot.press("p")
            await pilot.pause()
            assert view.current == 0
            await pilot.press("r")
            await settle(pilot)
    assert (ui_repo / "shapes.py").read_text() == SHAPES


async def test_refused_reply_shows_reason_and_writes_nothing(greet_repo: Path) -> None:
    with replay("edit_truncated") as (_, info):
        app = make_app(greet_repo, info)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await submit(pilot, "@greet.py")
            await submit(pilot, GREET_DOCSTRING)
            assert "Edit of greet.py refused, nothing written:" in transcript(app)
            assert not isinstance(app.screen, ReviewScreen)
    assert (greet_repo / "greet.py").read_text() == GREET


async def test_backend_down_message_is_polite(ui_repo: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "no-servers"))  # hide any session-wide server
    app = make_app(ui_repo, None, offer_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await submit(pilot, "hello?")
        assert "No backend is running, so nothing was sent" in transcript(app)
        assert app.conversation.turns[-1].content == "hello?"  # kept
        assert "no backend" in str(app.main.query_one(BackendBar).render())


async def test_tiny_terminal_shows_notice(ui_repo: Path) -> None:
    app = make_app(ui_repo, None, offer_start=False)
    async with app.run_test(size=(30, 8)) as pilot:
        await pilot.pause()
        assert app.main.has_class("-too-small")
        await submit(pilot, "/help")  # still works, nothing crashes
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert not app.main.has_class("-too-small")


async def test_theme_switch_live_and_persisted(ui_repo: Path) -> None:
    app = CoderApp(ui_repo, config.load(ui_repo), conversations.new_conversation(ui_repo), offer_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.theme == "coder-dark"
        await submit(pilot, "/theme coder-amber")
        assert app.theme == "coder-amber"
        await submit(pilot, "/theme nope")
        assert "No theme named 'nope'" in transcript(app)
        assert app.theme == "coder-amber"
        await settle(pilot)  # the config write runs in a thread worker
    assert config.load(ui_repo).theme == "coder-amber"
    again = CoderApp(ui_repo, config.load(ui_repo), conversations.new_conversation(ui_repo), offer_start=False)
    assert again.theme == "coder-amber"
    config.save_user_setting(config.user_config_path(), None, "theme", "coder-dark")


async def test_command_palette_runs_slash_command(ui_repo: Path) -> None:
    app = make_app(ui_repo, None, offer_start=False)
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
    old = conversations.new_conversation(ui_repo)
    old.add_turn("user", "first question")
    old.add_turn("assistant", "first answer")
    old.add_file("greet.py")
    conversations.save(old)
    resumed = conversations.load_last(ui_repo)
    assert resumed is not None
    app = CoderApp(ui_repo, config.load(ui_repo), resumed, offer_start=False, persist_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = transcript(app)
        assert "› first question" in text and "first answer" in text
        assert f"Resumed conversation {old.id}" in text
        assert "greet.py" in str(app.main.prompt.border_title)


async def test_offers_to_start_when_no_backend(ui_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coder.backends.runtime import manager
    from coder.ui.screens.start import StartScreen

    # stand-in lookup: "no server recorded" even if a test server of this session is running
    monkeypatch.setattr(manager, "current", lambda name=None: None)
    app = CoderApp(ui_repo, config.load(ui_repo), conversations.new_conversation(ui_repo), persist_theme=False)
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

    app = make_app(ui_repo, None, offer_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await submit(pilot, "/backend")
        assert isinstance(app.screen, BackendScreen)
        await pilot.press("d")  # the real coder.doctor checks, in a thread worker
        for _ in range(240):
            if app.last_checks is not None:
                break
            await asyncio.sleep(0.25)
        await pilot.pause()
        assert app.last_checks is not None
        assert {"config", "profile"} <= {check.name for check in app.last_checks}
        await pilot.press("escape")
        assert not isinstance(app.screen, BackendScreen)


async def test_escape_stops_a_streaming_reply(ui_repo: Path) -> None:
    with replay("chat_reply", rate=10) as (_, info):  # 10 chunks/s: seconds of reply
        app = make_app(ui_repo, info)
        async with app.run_test(size=(120, 40)) as pilot:
            app.main.prompt.value = SCENARIOS["chat_reply"].instruction
            await pilot.press("enter")
            for _ in range(100):
                await asyncio.sleep(0.05)
                if app.main.query_one(SpecPanel).live.stats.tokens > 2:
                    break
            await pilot.press("escape")
            await settle(pilot)
            assert "Stopped; nothing was applied." in transcript(app)
            assert load("chat_reply").reply_text() not in transcript(app)  # the rest never arrived
            assert [t.role for t in app.conversation.turns] == ["user"]
            await submit(pilot, "/help")  # the app is still responsive
            assert "/undo" in transcript(app)


async def test_an_unexpected_worker_error_is_one_line_and_the_session_goes_on(
        ui_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that answers 200 with an HTML body made ``resp.json()`` raise inside the session worker;
    the worker swallowed it and the session stayed 'streaming' forever (every later message was told
    to press Escape). Now the one worker handler reports it and puts the session back to idle."""
    from coder.session.edit_session import EditSession

    calls: list[str] = []
    original = EditSession._chat_request

    def html_then_real(self: EditSession, question: str) -> None:
        calls.append(question)
        if len(calls) == 1:
            self._set_state("streaming")
            raise ValueError("Expecting value: line 1 column 1 (char 0)")  # what json() says of '<html>'
        original(self, question)

    monkeypatch.setattr(EditSession, "_chat_request", html_then_real)
    with replay("chat_reply") as (_, info):
        app = make_app(ui_repo, info)
        async with app.run_test(size=(120, 40)) as pilot:
            await submit(pilot, "first question")
            assert app.main.edit.state == "idle"
            failed = [line for line in transcript(app).splitlines() if "failed: ValueError" in line]
            assert len(failed) == 1
            await submit(pilot, "/clear")  # the recording was made without the failed turn
            await submit(pilot, SCENARIOS["chat_reply"].instruction)
            text = transcript(app)
    assert len(calls) == 2 and calls[0] == "first question"  # the second message ran
    assert load("chat_reply").reply_text().splitlines()[0] in text


async def test_a_flood_of_prefill_updates_is_coalesced(ui_repo: Path) -> None:
    """Prefill progress is a state: queued older updates are replaced by the newest (Textual's can_replace)."""
    from coder.session import events as ev
    from coder.telemetry.prefill import PrefillView
    from coder.ui.session_link import PrefillUpdate, message_for

    handled: list[PrefillView] = []

    def hook(message: object) -> None:
        if isinstance(message, PrefillUpdate):
            handled.append(message.event.view)

    app = make_app(ui_repo, None, offer_start=False)
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await pilot.pause()
        handled.clear()
        for i in range(1, 201):  # posted from the UI thread: all queue before the screen runs again
            app.main.post_message(message_for(ev.PrefillUpdate(PrefillView(elapsed=i / 10, total=200, processed=i))))
        await pilot.pause()
        await pilot.pause()
    assert handled and handled[-1].processed == 200
    assert len(handled) < 20, f"{len(handled)} of 200 updates were handled one by one"


async def test_an_interrupt_signal_quits_the_tui_and_gives_the_signal_back(ui_repo: Path) -> None:
    """``kill -INT`` was ignored (Ctrl+C is a key in raw mode): the TUI ran on with nobody to reach it."""
    import os
    import signal

    app = make_app(ui_repo, None)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.is_running
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(50):
            await asyncio.sleep(0.02)
            if not app.is_running:
                break
        assert not app.is_running
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
