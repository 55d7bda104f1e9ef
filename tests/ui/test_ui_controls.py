"""The TUI shows a model's escape sequences as text (``^[``): the transcript and the review never emit them."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from coder.ui import themes
from coder.ui.widgets.conversation.transcript import Transcript
from coder.ui.widgets.review.diff_view import DiffView

ESCAPES = "\x1b]0;pwned\x07\x1b]52;c;ZWNobyBoaQ==\x07\x1b[8m\x9b2J\u202e"
DIFF = f"--- a/x.py\n+++ b/x.py\n@@ -1 +1,2 @@\n-a = 1\n+a = 2  # {ESCAPES}\n+import os\n"


class _App(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **themes.VARIABLE_DEFAULTS}

    def compose(self) -> ComposeResult:
        yield Transcript(id="t")
        yield DiffView(DIFF, "x.py", id="d")


def _painted(widget: Transcript | DiffView, rows: int) -> str:
    return "".join(seg.text for y in range(rows) for seg in widget.render_line(y))


@pytest.mark.asyncio
async def test_escapes_are_shown_not_sent() -> None:
    app = _App()
    async with app.run_test(size=(120, 30)) as pilot:
        t = app.query_one(Transcript)
        t.begin_stream()
        t.append(f"sure:\n```python\nprint(1)  # {ESCAPES}\n```\n")
        t.end_stream()
        t.add_message("error", f"server said: {ESCAPES}")
        await pilot.pause()
        d = app.query_one(DiffView)
        for painted in (_painted(t, 10), _painted(d, 6)):
            assert not any(c in painted for c in "\x1b\x07\x9b\u202e"), repr(painted)
            assert "^[]52;c;ZWNobyBoaQ==^G^[[8m<0x9b>2J<U+202E>" in painted
        assert "+import os" in "\n".join(d.lines)  # the line SGR 8 would have hidden is there
