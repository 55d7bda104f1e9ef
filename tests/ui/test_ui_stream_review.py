"""Pilot tests at the client's pace: a fast reply streams into the transcript in frame-sized batches,
and the review opens on a 5,000-line proposal and moves through it (rows render lazily)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from textual.app import App
from ui_support import CHAT_QUESTION, load, make_repo

from coder import config, conversations
from coder.edit.apply.files import diff_stat, unified_diff
from coder.session.feed import Batch
from coder.testing.replay import ReplayServer
from coder.ui import themes
from coder.ui.app import CoderApp
from coder.ui.screens.review import ReviewScreen
from coder.ui.widgets.conversation.prompt import PromptInput
from coder.ui.widgets.conversation.transcript import Transcript
from coder.ui.widgets.review.diff_view import DiffView

pytestmark = pytest.mark.asyncio


class Probe:
    """The app's lag probe: counts the batches the transcript appended."""

    def __init__(self) -> None:
        self.batches: list[Batch] = []
        self.done = asyncio.Event()

    def appended(self, batch: Batch) -> None:
        self.batches.append(batch)

    def visible(self, batch: Batch) -> None:
        """Unused here (scripts/dev/bench_tui.py measures lag)."""

    def finished(self) -> None:
        self.done.set()


async def test_a_fast_reply_streams_whole_in_frame_sized_batches(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    recording = load("chat_reply").stretched(3)  # 3,072 tokens
    events = recording.chats[0].events
    with ReplayServer(recording, rate=5000.0, strict=False) as server:
        probe = Probe()
        app = CoderApp(root, config.load(root), conversations.new_conversation(root),
                       server=recording.server_info(server.url), persist_theme=False, persist_state=False,
                       lag_probe=probe, chat_max_tokens=100_000)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            app.main.query_one(PromptInput).value = CHAT_QUESTION
            await pilot.press("enter")
            await asyncio.wait_for(probe.done.wait(), timeout=120)
            await pilot.pause()
            shown = app.main.query_one(Transcript).text
    tokens = sum(b.chunks for b in probe.batches)
    assert tokens == sum(1 for _, data in events if data != "[DONE]"
                         for choice in json.loads(data)["choices"] if choice["delta"].get("content")) == 3072
    assert len(probe.batches) < tokens / 10  # ~0.6 s at 5,000 tok/s: about one batch per 40 ms frame
    reply = "".join(b.text for b in probe.batches)
    assert reply.splitlines()[-1] in shown and reply.splitlines()[0] in shown


class ReviewApp(App[None]):
    """A bare app with coder's theme variables: the review screen alone."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}


def _big_diff(lines: int = 5000) -> str:
    old = "".join(f"def f{i}(x):  # {i}\n    return x + {i}\n" for i in range(lines // 2))
    new = "".join(f"def f{i}(x):  # {i}\n    return {'2 * ' if i % 10 == 0 else ''}x + {i}\n"
                  for i in range(lines // 2))  # every 10th function changes: 250 hunks
    return unified_diff("big.py", old, new)


async def test_review_opens_on_a_5000_line_proposal_and_reaches_its_end() -> None:
    diff = _big_diff()
    added, removed = diff_stat(diff)
    app = ReviewApp()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = ReviewScreen(diff, "big.py")
        await app.push_screen(screen)
        await pilot.pause()
        box = screen.query_one("#review")
        assert box.border_title == f"Review edit of big.py: +{added} −{removed}" and added == removed == 250
        view = screen.query_one(DiffView)
        assert view.virtual_size.height == len(diff.splitlines())
        assert "hunk 1/" in str(screen.query_one("#review-bar").render())
        await pilot.press("n")
        assert view.hunk_label.startswith("hunk 2/")
        await pilot.press("end")
        await pilot.pause()
        last = diff.splitlines()[-1]
        rows = [view.render_line(y).text for y in range(view.size.height)]
        assert any(last[1:].strip() in row for row in rows), rows[-3:]
        # rendered lazily: not every row was rendered. The scroll to the end passes through pages, and how
        # many depends on the box's speed (562-673 rows of 2,250 seen on 2 cores), so the bound is a half
        assert len(view._cache) < len(diff.splitlines()) / 2
        await pilot.press("r")
        await pilot.pause()
        assert not isinstance(app.screen, ReviewScreen)


async def test_a_long_code_block_is_not_lexed_whole_on_the_ui_thread() -> None:
    from coder.ui.widgets.conversation.transcript import BLOCK_LEX_MAX_LINES

    app = ReviewApp()
    async with app.run_test(size=(120, 40)) as pilot:
        transcript = Transcript()
        await app.mount(transcript)
        for lines in (10, BLOCK_LEX_MAX_LINES + 1):
            transcript.begin_stream()
            transcript.append("```python\n" + "".join(f"x{i} = {i}\n" for i in range(lines)) + "```\n")
            transcript.end_stream()
            await pilot.pause()
            code = [line for line in transcript._lines if line.kind == "code"][-lines:]
            assert len(code) == lines
            # short: lexed whole (multi-line strings right); long: keeps the per-line colours it streamed with
            assert all(line.styled is not None for line in code) == (lines <= BLOCK_LEX_MAX_LINES)
