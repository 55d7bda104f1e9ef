"""Headless pieces behind the TUI: coalescing and live stats, recordings, sessions, theme files, fuzzy files,
commands."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from ui_support import load

from coder import conversations
from coder.errors import CoderError
from coder.session import commands, context
from coder.session.feed import Batch, Coalescer, LiveFeed, LiveStats, RateWindow
from coder.telemetry import figures
from coder.telemetry.stats import Chunk
from coder.ui import themes
from coder.ui.widgets.conversation.prompt import rank_files

DATA = Path(__file__).parents[1] / "data" / "ui"


class FakeClock:
    """A manual clock so coalescing is tested without real time."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_feed_coalesces_a_flood_into_frames() -> None:
    clock = FakeClock()
    batches: list[Batch] = []
    feed = LiveFeed(batches.append, interval=0.04, clock=clock)
    for i in range(1000):  # 5,000 tok/s for 0.2 s
        clock.now = i * 0.0002
        feed.push(Chunk(f"t{i} ", clock.now, None, None, i + 1))
    feed.flush()
    assert "".join(b.text for b in batches) == "".join(f"t{i} " for i in range(1000))
    assert sum(b.chunks for b in batches) == 1000
    # one batch per 40 ms frame (plus the first token at once and the final flush)
    assert 5 <= len(batches) <= 7
    assert [b.seq for b in batches] == list(range(len(batches)))
    assert batches[-1].live.stats.tokens == 1000


def test_feed_slow_stream_posts_every_token() -> None:
    clock = FakeClock()
    batches: list[Batch] = []
    feed = LiveFeed(batches.append, interval=0.04, clock=clock)
    for i in range(5):  # 10 tok/s: every token is its own frame
        clock.now = i * 0.1
        feed.push(Chunk("x", clock.now))
    assert len(batches) == 5


def test_feed_sends_sooner_once_the_ui_showed_the_last_batch() -> None:
    """A UI that keeps up gets a batch every ``gap`` (20 ms); one still busy, every ``interval`` (40 ms)."""
    for shows, expected_gap in ((True, 0.02), (False, 0.04)):
        clock = FakeClock()
        batches: list[Batch] = []

        def post(batch: Batch, shows: bool = shows, batches: list[Batch] = batches) -> None:
            batches.append(batch)
            if shows and batch.shown is not None:
                batch.shown()  # as the screen does after the refresh that shows it

        feed = LiveFeed(post, interval=0.04, gap=0.02, clock=clock)
        for i in range(200):  # 1,000 tok/s for 0.2 s
            clock.now = i * 0.001
            feed.push(Chunk("x", clock.now))
        feed.flush()
        assert sum(b.chunks for b in batches) == 200
        middle = batches[1:-1]  # not the first (at once) nor the final flush
        gaps = [b.first_arrival - a.first_arrival for a, b in itertools.pairwise(middle)]
        assert gaps and all(g == pytest.approx(expected_gap, abs=0.0015) for g in gaps), (shows, gaps)


def test_a_batch_shown_late_does_not_release_the_next_early() -> None:
    clock = FakeClock()
    batches: list[Batch] = []
    feed = LiveFeed(batches.append, interval=0.04, gap=0.02, clock=clock)
    feed.push(Chunk("a", 0.0))  # the first goes at once
    clock.now = 0.001
    feed.push(Chunk("b", clock.now))  # buffered: nothing shown yet
    clock.now = 0.025
    feed.push(Chunk("c", clock.now))
    assert len(batches) == 1  # 25 ms, the UI has not shown batch 0: wait for the 40 ms frame
    shown = batches[0].shown
    assert shown is not None
    shown()
    clock.now = 0.026
    feed.push(Chunk("d", clock.now))
    assert [b.text for b in batches] == ["a", "bcd"]


def test_live_figures_come_from_the_one_definitions_module() -> None:
    clock = FakeClock()
    feed = LiveFeed(lambda batch: None, clock=clock)
    # 100 tokens at 200 tok/s after a 0.3 s TTFT; every step accepts 2 drafts of 4
    for i in range(100):
        feed.push(Chunk("x", 0.3 + i * 0.005, draft_n=(i // 3 + 1) * 4, draft_n_accepted=i - i // 3,
                        predicted_n=i + 1))
    live = feed.live()
    assert live.stats.ttft == pytest.approx(0.3)
    assert live.stats.decode_tps == figures.decode_tps(100, 0.3, 0.3 + 99 * 0.005) == pytest.approx(200, rel=0.01)
    assert live.inst_tps == pytest.approx(200, rel=0.01)
    running = live.stats.running_acceptance  # defined by coder.telemetry (the panel only shows it)
    assert running is not None and 1.0 < running <= 3.0
    window = RateWindow()
    assert window.rate() is None


def test_coalescer_take_empty() -> None:
    assert Coalescer().take(LiveStats(), 0.0) is None


def test_recording_stretch_keeps_counters_growing() -> None:
    rec = load("chat_reply")
    assert rec.meta["how"].startswith("recorded from the real llama-server")
    text = rec.reply_text()
    double = rec.stretched(2)
    assert double.reply_text() == text * 2
    counts = [c for _, d in double.chats[0].events
              if (c := (json.loads(d).get("timings") or {}).get("predicted_n") if d != "[DONE]" else None)]
    assert counts == sorted(counts)


def test_sessions_save_resume_and_per_repo(tmp_path: Path) -> None:
    repo_a, repo_b = tmp_path / "a", tmp_path / "b"
    repo_a.mkdir()
    repo_b.mkdir()
    assert conversations.load_last(repo_a) is None
    first = conversations.new_conversation(repo_a)
    first.add_turn("user", "hello")
    first.add_file("x.py")
    conversations.save(first)
    second = conversations.new_conversation(repo_a)
    second.id = first.id + "-later"
    second.add_turn("user", "again")
    conversations.save(second)
    last = conversations.load_last(repo_a)
    assert last is not None and last.id == second.id and last.turns[0].content == "again"
    assert conversations.load_last(repo_b) is None
    # a corrupt newest file is skipped, not fatal
    conversations.conversations_dir(repo_a).joinpath("zzzz.json").write_text("{not json")
    assert conversations.load_last(repo_a) is not None
    with pytest.raises(CoderError):
        conversations.load(conversations.conversations_dir(repo_a) / "zzzz.json")
    assert first.chat_messages() == [{"role": "user", "content": "hello"}]


def test_builtin_themes_load() -> None:
    result = themes.load_builtin()
    assert result.errors == []
    names = {t.name for t in result.themes}
    assert {"coder-dark", "coder-light"} <= names
    for theme in result.themes:
        assert set(themes.VARIABLE_DEFAULTS) <= set(theme.variables)


def test_bad_user_theme_is_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "good.toml").write_text('name = "mine"\nprimary = "#ff0000"\n[variables]\ndiff-added = "#003300"\n')
    (tmp_path / "broken.toml").write_text("name = \n")
    (tmp_path / "badcolor.toml").write_text('name = "x"\nprimary = "reddish"\n')
    (tmp_path / "unknown.toml").write_text('name = "y"\nprimary = "#fff"\nsparkle = true\n')
    result = themes.load_all(tmp_path)
    assert "mine" in {t.name for t in result.themes}
    assert len(result.errors) == 3
    assert any("broken.toml: not valid TOML" in e for e in result.errors)
    assert any("'reddish' is not a colour" in e for e in result.errors)
    assert any("unknown key(s) sparkle" in e for e in result.errors)


def test_fuzzy_ranking_uses_textual_matcher() -> None:
    files = ["coder/ui/widgets/conversation/transcript.py", "tests/test_transcript_x.py", "coder/ui/app.py",
             "greet.py"]
    assert rank_files("transcript", files)[0] == "coder/ui/widgets/conversation/transcript.py"
    assert rank_files("uiapp", files)[0] == "coder/ui/app.py"
    assert rank_files("grt", files)[0] == "greet.py"
    assert rank_files("zzz", files) == []
    assert context.mentions("fix @a.py and @b/c.py, please") == ["a.py", "b/c.py"]
    assert context.mentions("mail me at x@y.com") == []
    assert context.resolve_mention("app.py", files) == "coder/ui/app.py"
    assert context.resolve_mention("missing.py", files) == "missing.py"


def test_command_parsing() -> None:
    assert commands.parse("/mode full") == commands.Parsed("mode", ["full"])
    with pytest.raises(commands.CommandError, match="Unknown command /nope"):
        commands.parse("/nope")
    with pytest.raises(commands.CommandError, match="Usage: /k"):
        commands.parse("/k many")
    with pytest.raises(commands.CommandError):
        commands.parse("/")
    assert "/theme [NAME]" in commands.help_text()


def test_headless_core_imports_without_textual() -> None:
    """coder.conversations and the stream/metrics core must not pull Textual in (only coder.ui may)."""
    code = ("import sys, coder.conversations, coder.session.edit_session, coder.config, coder.cli.main\n"
            "print(','.join(m for m in ('textual', 'coder.ui') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_run_tui_refuses_outside_git(tmp_path: Path) -> None:
    import argparse

    from coder.errors import CoderError
    from coder.ui.run import run_tui

    with pytest.raises(CoderError, match="not inside a git repository"):
        run_tui(argparse.Namespace(path=str(tmp_path), resume=False, profile=None, attach=None, api_key=None))
    with pytest.raises(CoderError, match="no such file"):
        run_tui(argparse.Namespace(path=str(tmp_path / "nope"), resume=False, profile=None, attach=None,
                                   api_key=None))


def test_the_tui_freezes_its_startup_heap_only_in_its_own_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A full collection mid-stream walked every startup object (0.1-0.2 s of frozen screen); a test's
    process keeps its collector as it is."""
    import gc

    import coder
    from coder.ui.screens.main import _freeze_startup_heap

    gc.unfreeze()
    try:
        _freeze_startup_heap()
        assert gc.get_freeze_count() == 0
        monkeypatch.setattr(coder, "WHOLE_PROCESS", True)
        _freeze_startup_heap()
        frozen = gc.get_freeze_count()
        assert frozen > 10_000
        _freeze_startup_heap()  # once per process: later requests freeze nothing more
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_a_flood_keeps_its_frames_even_when_the_ui_keeps_up() -> None:
    """At 5,000 tok/s a batch 20 ms after the last holds ~100 events: it waits for the 40 ms frame."""
    clock = FakeClock()
    batches: list[Batch] = []

    def post(batch: Batch) -> None:
        batches.append(batch)
        if batch.shown is not None:
            batch.shown()

    feed = LiveFeed(post, interval=0.04, gap=0.02, clock=clock)
    for i in range(1000):  # 5,000 tok/s for 0.2 s
        clock.now = i * 0.0002
        feed.push(Chunk("x", clock.now))
    assert 5 <= len(batches) <= 7
