"""A unified diff with syntax-coloured +/- lines and hunk navigation (Line API: large diffs stay cheap)."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from coder.edit.apply.files import display_diff
from coder.textsafe import visible
from coder.ui.widgets.conversation.highlight import highlight_line, lexer_for, styled_text


class DiffView(ScrollView, can_focus=True):
    """Shows one diff; ``n``/``p`` (or ]/[) jump between hunks."""

    DEFAULT_CSS = """
    DiffView { background: $surface; }
    DiffView > .diff--added { background: $diff-added; }
    DiffView > .diff--removed { background: $diff-removed; }
    DiffView > .diff--hunk { color: $diff-hunk; text-style: bold; }
    DiffView > .diff--header { color: $text-muted; text-style: bold; }
    DiffView > .diff--current { background: $boost; }
    DiffView > .diff--flagged { color: $warning; text-style: bold reverse; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff--added", "diff--removed", "diff--hunk", "diff--header", "diff--current", "diff--flagged",
    }
    FLAG = "  !! not explained by the instruction"  # appended to a flagged hunk's @@ line
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,right_square_bracket,j", "next_hunk", "next hunk"),
        Binding("p,left_square_bracket,k", "prev_hunk", "prev hunk"),
    ]

    def __init__(self, diff: str, path: str, *, id: str | None = None, flagged: list[bool] | None = None) -> None:
        super().__init__(id=id)
        # the diff is the model's text: controls are shown (``^[``), never sent to the terminal
        self.lines = visible(display_diff(diff)).splitlines()
        self.hunks = [i for i, line in enumerate(self.lines) if line.startswith("@@")]
        # line indices of the @@ headers of hunks the instruction does not explain (coder.edit.checks.explained)
        self.flagged = {h for h, flag in zip(self.hunks, flagged or [], strict=False) if flag}
        self.current = 0
        self._lexer = lexer_for(path)
        self._cache: LRUCache[tuple[int, int, int], Strip] = LRUCache(1024)
        widest = max((len(x) + (len(self.FLAG) if i in self.flagged else 0) for i, x in enumerate(self.lines)),
                     default=0)
        self.virtual_size = Size(widest + 2, len(self.lines))

    def notify_style_update(self) -> None:
        """The theme changed: drop cached strips."""
        super().notify_style_update()
        self._cache.clear()

    @property
    def hunk_label(self) -> str:
        """``hunk i/n`` (or ``no hunks``)."""
        if not self.hunks:
            return "no hunks"
        return f"hunk {self.current + 1}/{len(self.hunks)}"

    @property
    def current_flagged(self) -> bool:
        """True when the hunk in focus holds a change the instruction does not explain."""
        return bool(self.hunks) and self.hunks[self.current] in self.flagged

    def action_next_hunk(self) -> None:
        """n: the next hunk."""
        self._go(min(self.current + 1, len(self.hunks) - 1))

    def action_prev_hunk(self) -> None:
        """p: the previous hunk."""
        self._go(max(self.current - 1, 0))

    def _go(self, index: int) -> None:
        if not self.hunks:
            return
        self.current = index
        self._cache.clear()
        self.scroll_to(y=max(0, self.hunks[index] - 1), animate=False)
        self.refresh()
        self.post_message(self.HunkChanged(self.hunk_label))

    class HunkChanged(Message):
        """The hunk in focus changed (the review screen shows the label)."""

        def __init__(self, label: str) -> None:
            super().__init__()
            self.label = label

    def _kind(self, line: str) -> str:
        if line.startswith(("+++", "---")):
            return "header"
        if line.startswith("@@"):
            return "hunk"
        if line.startswith("+"):
            return "added"
        if line.startswith("-"):
            return "removed"
        return "context"

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the view (cached per line and focus)."""
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.rich_style
        if index >= len(self.lines):
            return Strip.blank(width, base)
        current = bool(self.hunks) and index == self.hunks[self.current]
        fill_width = max(self.virtual_size.width, width)
        key = (index, int(current), fill_width)
        strip = self._cache.get(key)
        if strip is None:
            line = self.lines[index]
            kind = self._kind(line)
            dark = self.app.current_theme.dark if self.app.current_theme else True
            if kind in ("added", "removed", "context"):
                fill = self.get_component_rich_style(f"diff--{kind}") if kind != "context" else Style()
                body = highlight_line(line[1:], self._lexer, dark, fill)
                text = styled_text(line[:1], fill + Style(bold=True)) + body
            else:
                fill = self.get_component_rich_style(f"diff--{kind}")
                text = styled_text(line, fill)
                if index in self.flagged:
                    text += styled_text(self.FLAG, self.get_component_rich_style("diff--flagged"))
            if current:
                fill = fill + self.get_component_rich_style("diff--current")
                text.stylize(self.get_component_rich_style("diff--current"))
            strip = Strip(list(text.render(self.app.console)))
            strip = strip.extend_cell_length(fill_width, base + fill).apply_style(base)
            self._cache[key] = strip
        return strip.crop_extend(scroll_x, scroll_x + width, base).apply_offsets(scroll_x, index)
