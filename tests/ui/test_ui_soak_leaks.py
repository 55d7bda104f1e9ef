"""What the TUI soak found growing per review screen: the key bar kept every removed key alive."""

from __future__ import annotations

import gc
import weakref

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Footer, Static

from coder.ui import themes
from coder.ui.screens.review import ReviewScreen
from coder.ui.widgets.status.footer import KeyFooter

DIFF = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"


class _App(App[None]):
    BINDINGS = [("ctrl+r", "review", "review")]  # noqa: RUF012 - Textual's own idiom

    def __init__(self, footer: type[Footer]) -> None:
        super().__init__()
        self.footer_type = footer

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}

    def compose(self) -> ComposeResult:
        yield Static("main")
        yield self.footer_type()


async def _watchers_after_reviews(footer: type[Footer], reviews: int) -> tuple[int, list[weakref.ref[object]]]:
    app = _App(footer)
    gone: list[weakref.ref[object]] = []
    async with app.run_test(size=(100, 20)) as pilot:
        for _ in range(reviews):
            screen = ReviewScreen(DIFF, "x.py")
            gone.append(weakref.ref(screen))
            await app.push_screen(screen)
            await pilot.pause()
            await pilot.press("r")
            await pilot.pause()
            del screen
        bar = app.screen.query_one(Footer)
        watching = sum(len(w) for w in getattr(bar, "__watchers", {}).values())
    return watching, gone


@pytest.mark.asyncio
async def test_the_key_bar_keeps_no_removed_keys_alive() -> None:
    few, _ = await _watchers_after_reviews(KeyFooter, 2)
    many, screens = await _watchers_after_reviews(KeyFooter, 12)
    assert many <= few  # the keys on show, not one set per review screen since the start
    gc.collect()
    assert sum(ref() is not None for ref in screens) <= 1  # closed review screens are freed


@pytest.mark.asyncio
async def test_textuals_own_footer_is_what_grew() -> None:
    """The cause, pinned: if Textual stops leaking, KeyFooter can go (this test then fails)."""
    few, _ = await _watchers_after_reviews(Footer, 2)
    many, _ = await _watchers_after_reviews(Footer, 12)
    assert many > few


class _TranscriptApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}

    def compose(self) -> ComposeResult:
        from coder.ui.widgets.conversation.transcript import Transcript

        yield Transcript(id="t")


@pytest.mark.asyncio
async def test_the_transcript_keeps_whole_block_colours_for_the_latest_blocks_only() -> None:
    from coder.ui.widgets.conversation.transcript import STRIP_CACHE_ROWS, STYLED_BLOCKS_KEPT, Transcript

    app = _TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        t = app.query_one(Transcript)
        for i in range(STYLED_BLOCKS_KEPT + 8):
            t.add_message("user", f"edit {i}")
            t.begin_stream()
            t.append(f"```python\ns = '''multi\nline {i}'''\nx = {i}\n```\n")
            t.end_stream()
            await pilot.pause()
        styled = [line for line in t._lines if line.styled is not None]
        assert len(styled) == 3 * STYLED_BLOCKS_KEPT  # three code lines a block, the latest blocks only
        assert styled[-1].text == f"x = {STYLED_BLOCKS_KEPT + 7}"
        t.scroll_home(animate=False)
        await pilot.pause()
        assert "s = '''multi" in "".join(seg.text for seg in t.render_line(3))  # an old block still paints
        assert len(t._strips) <= STRIP_CACHE_ROWS
