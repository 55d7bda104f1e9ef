"""The transcript streams by appending: a growing line re-renders only the rows it grew, paints the same
rows as the whole text would, and says when what was appended is on screen (the feed's pacing and the
lag probe wait for that)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.message import Message
from textual.screen import Screen
from textual.strip import Strip

from coder.ui import themes
from coder.ui.widgets.conversation.transcript import Transcript

pytestmark = pytest.mark.asyncio

WIDTH = 60


class _App(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}

    def compose(self) -> ComposeResult:
        yield Transcript(id="t")


def _rows(t: Transcript) -> list[tuple[str, list[str]]]:
    """Every row of the view as painted: its text and the styles of its segments."""
    return [(strip.text, [str(seg.style) for seg in strip]) for strip in map(t.render_line, range(t.size.height))]


def _reply(wrap: int) -> str:
    """A line of many rows: inline code closed rows after it opened, wide characters; then an open code
    block whose line's first row ends in ``b``, a name until the ``'`` on the next row makes it a prefix."""
    code = "x = " + "a" * (wrap - 8) + " + b'bytes' + 'and a string that runs on past the edge'"
    return ("words " * 30 + "`an inline span that runs " + "on " * 20 + "and closes` " + "日本語テキスト " * 12
            + f"tail\n```python\n{code}")


@pytest.mark.parametrize("piece", [1, 7, 64])
async def test_a_line_streamed_in_pieces_paints_as_the_whole_text(piece: int) -> None:
    whole, streamed = _App(), _App()
    async with whole.run_test(size=(WIDTH, 40)) as pilot:
        t = whole.query_one(Transcript)
        reply = _reply(t.scrollable_content_region.width)
        t.begin_stream()
        t.append(reply)
        await pilot.pause()
        expected = _rows(t)
    async with streamed.run_test(size=(WIDTH, 40)) as pilot:
        t = streamed.query_one(Transcript)
        t.begin_stream()
        for i in range(0, len(reply), piece):
            t.append(reply[i:i + piece])
            _rows(t)  # painted as the screen would: a row that should change but kept its key shows stale
        await pilot.pause()
        assert _rows(t) == expected
    assert t.virtual_size.height > 10 and t.scroll_offset.y == 0  # many rows, all in view
    assert len({style for _, styles in expected for style in styles}) > 4  # inline code and syntax colours


async def test_an_append_renders_only_the_rows_it_grew() -> None:
    """A reply with no line break was re-rendered whole, every row of it, per streamed batch."""
    app = _App()
    async with app.run_test(size=(WIDTH, 30)) as pilot:
        t = app.query_one(Transcript)
        t.begin_stream()
        t.append("x" * (t.scrollable_content_region.width * 10 + 5))
        await pilot.pause()
        painted = [t.render_line(y).text for y in range(t.size.height)]
        before = len(t._strips)
        t.append("yz")
        await pilot.pause()
        now = [t.render_line(y).text for y in range(t.size.height)]
        assert now[:10] == painted[:10] and now[10].rstrip() == "xxxxxyz"
        assert len(t._strips) == before + 1  # the grown last row; the 10 full rows came from the cache
        t.append("`code`")  # may restyle the whole line: every row of it is rendered anew
        await pilot.pause()
        for y in range(t.size.height):
            t.render_line(y)
        assert len(t._strips) >= before + 1 + 11


async def test_a_theme_switch_repaints_rows_in_the_new_colours() -> None:
    """Rows keep their strips and the widget's own style across appends, not across a theme change."""
    app = _App()
    async with app.run_test(size=(WIDTH, 20)) as pilot:
        app.theme = "textual-dark"
        t = app.query_one(Transcript)
        t.begin_stream()
        t.append("some words and `code`")
        await pilot.pause()
        t.render_line(0)
        app.theme = "textual-light"
        await pilot.pause()
        surface = app.current_theme.surface
        assert surface is not None
        # the text and the padding after it, which is painted in the widget's own style
        backgrounds = {seg.style.bgcolor.triplet for seg in t.render_line(0) if seg.style and seg.style.bgcolor}
        assert backgrounds == {Color.parse(surface).rich_color.triplet}


class AddText(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class _PaintedTranscript(Transcript):
    """Records the text of every row it paints."""

    painted: list[str]

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        self.painted.append(strip.text)
        return strip


class _StreamScreen(Screen[None]):
    """Appends in a message handler, as the main screen does with a streamed batch."""

    def compose(self) -> ComposeResult:
        transcript = _PaintedTranscript(id="t")
        transcript.painted = []
        yield transcript

    def on_mount(self) -> None:
        self.seen: list[bool] = []

    def on_add_text(self, message: AddText) -> None:
        t = self.query_one(_PaintedTranscript)
        mark = len(t.painted)
        t.append(message.text)
        row = message.text.strip()
        t.call_after_paint(lambda: self.seen.append(any(r.rstrip() == row for r in t.painted[mark:])))


class _ScreenApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}


async def test_call_after_paint_runs_once_the_appended_rows_are_painted() -> None:
    """The screen's call_after_refresh ran before the transcript's repaint on most batches (the screen went
    idle first), so the feed heard "shown" a frame and a render early and the lag probe measured short."""
    app = _ScreenApp()
    async with app.run_test(size=(WIDTH, 20)) as pilot:
        screen = _StreamScreen()
        await app.push_screen(screen)
        await pilot.pause()
        screen.query_one(Transcript).begin_stream()
        for i in range(20):
            screen.post_message(AddText(f"\nbatch {i}"))
            await pilot.pause()
            await pilot.pause()
        assert screen.seen == [True] * 20
