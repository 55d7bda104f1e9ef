"""The conversation transcript: a Line-API scroll view that streams by appending.

Appending touches only the end of the last logical line (and any new lines): rows wrap at a fixed
cell width, so the full rows of a growing line keep their cached strips and are not repainted; only
its last row and the new ones are rendered, each from its own slice. A batch costs the same however
long the transcript or the line it grows (elia re-renders everything per token; here a reply without
a line break was re-rendered whole, every row of it, per batch)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from coder.textsafe import visible
from coder.ui.widgets.conversation.highlight import highlight_block, highlight_line, lexer_for, styled_text

_FENCE = re.compile(r"^\s*```\s*([\w+#.-]*)\s*$")
_INLINE_CODE = re.compile(r"`[^`\n]+`")

# Whole-block lexing (multi-line strings coloured right) costs ~0.12 ms per line and grows faster
# than the block (3,000 lines: ~0.45 s); it runs on the UI thread when the fence closes.
BLOCK_LEX_MAX_LINES = 400
# What the transcript keeps per item beyond its text is bounded: every cached row drags along
# Textual's per-strip caches (offsets, crops, the compositor's cuts: several KB a row), so the
# row cache covers a dozen screens of scroll-back, not the whole session; and whole-block
# colours (a Rich Text per code line) are kept for the latest blocks only: an older block,
# scrolled back to, is coloured line by line (multi-line strings may then differ in colour)
STRIP_CACHE_ROWS = 512
STYLED_BLOCKS_KEPT = 32
KINDS = ("user", "assistant", "code", "fence", "note", "error")


@dataclass
class Line:
    """One logical line; ``version`` changes whenever its look changes other than by text appended to it.

    A row's cache key is the version plus the cells the row holds: text only ever grows at the end,
    so a row that holds as many cells as before looks as before.
    """

    kind: str
    text: str
    lang: str | None = None
    version: int = 0
    styled: Text | None = None  # set when a finished code block was lexed as a whole
    cells: int = field(init=False)  # cell width of ``text`` (kept as it grows: no re-measuring per batch)

    def __post_init__(self) -> None:
        self.cells = cell_len(self.text)

    def grow(self, text: str) -> None:
        """Append ``text``; a new version where that can restyle what was there."""
        self.text += text
        self.cells += cell_len(text)
        # code is lexed as a whole line (a closing quote recolours the string); a backtick may
        # close an inline-code span opened rows back
        if self.kind != "assistant" or "`" in text:
            self.version += 1


class Transcript(ScrollView, can_focus=True):
    """All turns of the conversation, streamed in place."""

    DEFAULT_CSS = """
    Transcript { background: $surface; overflow-y: scroll; overflow-x: hidden; }
    Transcript > .transcript--user { color: $user-text; text-style: bold; }
    Transcript > .transcript--assistant { color: $foreground; }
    Transcript > .transcript--code { color: $foreground; background: $panel; }
    Transcript > .transcript--fence { color: $text-muted; background: $panel; }
    Transcript > .transcript--note { color: $text-muted; text-style: italic; }
    Transcript > .transcript--error { color: $error; text-style: bold; }
    Transcript > .transcript--inline-code { color: $accent; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"transcript--{kind}" for kind in (*KINDS, "inline-code")}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: list[Line] = []
        self._rows: list[tuple[int, int]] = []  # (line index, row within that line)
        self._first_row: list[int] = []  # first row of each line
        self._wrap_width = 0
        self._strips: LRUCache[tuple[int, int, int, int], Strip] = LRUCache(STRIP_CACHE_ROWS)
        self._text_key: tuple[int, int, int] | None = None  # the line whose styled text is in _text
        self._text = Text()
        self._after_paint: list[Callable[[], object]] = []
        self._styled_blocks: list[list[Line]] = []  # the latest blocks that hold whole-block colours
        self._styles: dict[str, Style] = {}
        self._in_code = False
        self._code_lang: str | None = None
        self._block_start = 0
        self._streaming_kind: str | None = None

    # ---- model ---------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """Everything shown, one logical line per line (tests and copy use this)."""
        return "\n".join(line.text for line in self._lines)

    @property
    def line_count(self) -> int:
        """Logical lines in the transcript."""
        return len(self._lines)

    def add_message(self, kind: str, text: str) -> None:
        """A complete block: a user prompt, a note or an error (one or more lines)."""
        self.end_stream()
        if self._lines and self._lines[-1].text:
            self._push(Line("note", ""))
        first = True
        for raw in text.splitlines() or [""]:
            prefix = "› " if kind == "user" and first else ("  " if kind == "user" else "")
            self._push(Line(kind, prefix + _clean(raw)))
            first = False
        self._after_change(len(self._lines) - len(text.splitlines() or [""]))
        self._settle_height()

    def begin_stream(self) -> None:
        """Start an assistant reply; following :meth:`append` calls extend it."""
        self.end_stream()
        if self._lines and self._lines[-1].text:
            self._push(Line("note", ""))
        self._streaming_kind = "assistant"
        self._in_code = False
        self._code_lang = None
        self._push(Line("assistant", ""))
        self._after_change(max(0, len(self._lines) - 2))

    def append(self, chunk: str) -> None:
        """Append streamed text to the reply in progress (a batch of tokens)."""
        if self._streaming_kind is None:
            self.begin_stream()
        first_changed = len(self._lines) - 1
        parts = _clean(chunk).split("\n")
        last = self._lines[-1]
        version, grown_from = last.version, last.cells
        last.grow(parts[0])
        for part in parts[1:]:
            self._close_line(len(self._lines) - 1)
            kind = "code" if self._in_code else "assistant"
            self._push(Line(kind, part, self._code_lang if self._in_code else None))
        self._reclassify(len(self._lines) - 1)
        # unless its look changed, the grown line's rows before the one it grew in are as they were
        self._after_change(first_changed, grown_from if last.version == version else 0)

    def end_stream(self) -> None:
        """The reply in progress is complete: settle its last line and any open code block."""
        if self._streaming_kind is None:
            return
        self._streaming_kind = None
        self._close_line(len(self._lines) - 1)
        if self._in_code:  # an unterminated block still gets whole-block highlighting
            self._finish_block(len(self._lines))
            self._in_code = False
            self.refresh()
        self._settle_height()

    def call_after_paint(self, callback: Callable[..., object], *args: object) -> None:
        """Call ``callback(*args)`` after the screen refresh that paints what was appended so far.

        The screen's ``call_after_refresh`` ran at its next idle, on most streamed batches before it
        handled this widget's repaint: "shown" came a frame and a render early. Where no paint of the
        new rows is coming (scrolled back, hidden, another screen on top) this is ``call_after_refresh``.
        """
        if self.screen.is_current and self.region.area and self.is_vertical_scroll_end:
            self._after_paint.append(partial(callback, *args))
        else:
            self.call_after_refresh(callback, *args)

    def clear(self) -> None:
        """Remove everything."""
        self._lines.clear()
        self._styled_blocks.clear()
        self._rows.clear()
        self._first_row.clear()
        self._strips.clear()
        self._text_key = None
        self._streaming_kind = None
        self._in_code = False
        self.virtual_size = Size(self._wrap_width, 0)
        self.refresh()

    def _push(self, line: Line) -> None:
        self._lines.append(line)
        self._first_row.append(len(self._rows))
        self._rows.append((len(self._lines) - 1, 0))

    def _reclassify(self, index: int) -> None:
        """A line still being streamed may turn out to be a fence."""
        line = self._lines[index]
        kind = line.kind
        if _FENCE.match(line.text):
            kind = "fence"
        elif line.kind == "fence":
            kind = "code" if self._in_code else "assistant"
        if kind != line.kind:
            line.kind = kind
            line.version += 1

    def _close_line(self, index: int) -> None:
        """A line got its newline: settle fences and whole-block highlighting."""
        line = self._lines[index]
        match = _FENCE.match(line.text)
        if match and self._streaming_kind is not None:
            line.kind = "fence"
            line.version += 1
            if self._in_code:
                self._finish_block(index)
                self._in_code = False
                self._code_lang = None
            else:
                self._in_code = True
                self._code_lang = match.group(1) or None
                self._block_start = index + 1

    def _finish_block(self, end: int) -> None:
        code = [ln for ln in self._lines[self._block_start:end] if ln.kind == "code"]
        if not code or len(code) > BLOCK_LEX_MAX_LINES:
            return  # a long block keeps its per-line colours: lexing it whole on the UI thread freezes it
        styled = highlight_block([ln.text for ln in code], lexer_for(code[0].lang), self._dark,
                                 self._style("code"))
        for line, text in zip(code, styled, strict=False):
            line.styled = text
            line.version += 1
        self._styled_blocks.append(code)
        first = self._first_row[self._block_start]
        self.refresh_lines(first, len(self._rows) - first)  # its rows are recoloured (multi-line strings)
        if len(self._styled_blocks) > STYLED_BLOCKS_KEPT:
            for old in self._styled_blocks.pop(0):
                old.styled = None  # same key (version kept): a cached row stays as it was painted

    # ---- layout ---------------------------------------------------------------------------

    def _row_count(self, line: Line) -> int:
        width = max(1, self._wrap_width)
        return max(1, -(-line.cells // width))

    def _after_change(self, first: int, from_cell: int = 0) -> None:
        """Re-wrap lines ``first..`` (always at the end) from cell ``from_cell`` of line ``first`` on,
        and repaint only those rows."""
        following = self.is_vertical_scroll_end
        first = max(0, first)
        kept = from_cell // max(1, self._wrap_width)  # rows of line ``first`` that stay as they are
        start = self._first_row[first] + kept
        del self._rows[start:]
        self._rows.extend((first, r) for r in range(kept, self._row_count(self._lines[first])))
        for index in range(first + 1, len(self._lines)):
            self._first_row[index] = len(self._rows)
            self._rows.extend((index, r) for r in range(self._row_count(self._lines[index])))
        rows = len(self._rows)
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if not following or height <= 0:
            self._set_virtual_height(rows)
        else:
            # Jump scroll (as xterm/less do): when the reply reaches the bottom edge, move it up
            # to leave a third of the view empty, so the next lines land without scrolling.
            # Scrolling repaints every row; filling a blank row repaints one.
            if rows > top + height:
                top = max(0, rows - max(1, (height * 2) // 3))
            self._set_virtual_height(max(rows, top + height))
            if top != self.scroll_offset.y:
                self.scroll_to(y=top, animate=False, immediate=True)
        self.refresh_lines(start, rows - start)

    def _settle_height(self) -> None:
        """Drop the jump-scroll slack once nothing streams (no blank tail to scroll into)."""
        following = self.is_vertical_scroll_end
        self._set_virtual_height(len(self._rows))
        if following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def _set_virtual_height(self, rows: int) -> None:
        """Grow (or shrink) the scrollable area without a screen-wide layout pass.

        ``virtual_size`` is a layout reactive: assigning it re-lays out the whole screen
        (~10 ms on a busy 2-core box) on every streamed batch. The vertical scrollbar is
        always shown (CSS), so our own size never changes: setting the value without its
        watcher and telling the scrollbar is all that growing needs. Only public API is
        used; ``tests/test_ui_textual_api.py`` fails if a Textual upgrade changes what it means.
        """
        size = Size(self._wrap_width, rows)
        if size == self.virtual_size:
            return
        self.set_reactive(Transcript.virtual_size, size)
        bar = self.vertical_scrollbar
        bar.window_virtual_size = size.height
        bar.window_size = self.scrollable_content_region.height
        self.scroll_y = self.validate_scroll_y(self.scroll_y)

    def _rewrap_all(self) -> None:
        self._rows.clear()
        for index, line in enumerate(self._lines):
            self._first_row[index] = len(self._rows)
            self._rows.extend((index, r) for r in range(self._row_count(line)))
        self.virtual_size = Size(self._wrap_width, len(self._rows))

    def on_resize(self) -> None:
        """Re-wrap everything at the new width."""
        width = self.scrollable_content_region.width
        if width != self._wrap_width:
            self._wrap_width = width
            self._strips.clear()
            self._rewrap_all()
            self.refresh()

    # ---- rendering ------------------------------------------------------------------------

    @property
    def _dark(self) -> bool:
        theme = self.app.current_theme
        return bool(theme.dark) if theme is not None else True

    def _style(self, kind: str) -> Style:
        """A kind's style, or the widget's own for ``"base"``: ``rich_style`` walks every ancestor's styles
        on each call, most of a cached row's cost when it was asked for per row."""
        style = self._styles.get(kind)
        if style is None:
            style = self.rich_style if kind == "base" else self.get_component_rich_style(f"transcript--{kind}")
            self._styles[kind] = style
        return style

    def notify_style_update(self) -> None:
        """The theme changed: drop cached styles and strips."""
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()
        self._text_key = None
        for line in self._lines:
            line.styled = None  # re-lexed lazily per line with the new palette

    def _line_text(self, line: Line) -> Text:
        if line.kind == "code":
            if line.styled is not None:
                return line.styled
            return highlight_line(line.text, lexer_for(line.lang), self._dark, self._style("code"))
        text = styled_text(line.text, self._style(line.kind))
        if line.kind == "assistant" and "`" in line.text:
            inline = self._style("inline-code")
            for match in _INLINE_CODE.finditer(line.text):
                text.stylize(inline, match.start(), match.end())
        return text

    def render_lines(self, crop: Region) -> list[Strip]:
        """Rows for the screen's refresh; what waits for a paint runs after this refresh."""
        strips = super().render_lines(crop)
        for callback in self._after_paint:
            self.call_after_refresh(callback)
        self._after_paint.clear()
        return strips

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the view, from the strip cache when unchanged."""
        scroll_y = self.scroll_offset.y
        width = self.size.width
        row = scroll_y + y
        base = self._style("base")  # cleared with the strips, which hold it, on a style update
        if row >= len(self._rows):
            return Strip.blank(width, base)
        index, sub = self._rows[row]
        line = self._lines[index]
        wrap = max(1, self._wrap_width)
        key = (index, line.version, sub, min(wrap, line.cells - sub * wrap))
        strip = self._strips.get(key)
        if strip is None:
            text = self._text_of(index, line)
            if line.text.isascii():  # a cell per character: the row alone is rendered, not the whole line
                strip = Strip(list(text[sub * wrap:(sub + 1) * wrap].render(self.app.console)))
            else:
                strip = Strip(list(text.render(self.app.console))).crop(sub * wrap, (sub + 1) * wrap)
            pad = base + self._style(line.kind) if line.kind in ("code", "fence") else base
            strip = strip.extend_cell_length(width, pad).apply_style(base)
            self._strips[key] = strip
        return strip.apply_offsets(0, row)

    def _text_of(self, index: int, line: Line) -> Text:
        """The styled text of a line, kept for the line last asked for: a repaint renders its rows in turn."""
        key = (index, line.version, line.cells)
        if key != self._text_key:
            self._text_key, self._text = key, self._line_text(line)
        return self._text


def _clean(text: str) -> str:
    # CR is dropped rather than shown: a CRLF split across two streamed chunks is no control
    return visible(text.expandtabs(4).replace("\r", ""))
