"""The review screen marks the hunks the instruction does not explain (coder.edit.checks.explained).

The diff is a rename of CPython's shlex.py (the shipped bench copy) with one unrelated change,
the kind of drift a model made on real rewrites; the screen and the diff widget are real.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from spec_of import check_scope
from textual.widgets import Static
from ui_support import make_repo

from coder import config, conversations
from coder.bench.edits.checks import rename_names
from coder.bench.edits.tasks import source
from coder.edit.apply.files import unified_diff
from coder.ui.app import CoderApp
from coder.ui.screens.review import ReviewScreen
from coder.ui.widgets.review.diff_view import DiffView

pytestmark = pytest.mark.asyncio


async def test_unexplained_hunk_is_marked_in_the_review(tmp_path: Path) -> None:
    shlex = source("shlex.py")
    new = rename_names(shlex, "read_token", "next_token").replace("self.debug = 0", "self.debug = 1")
    scope = check_scope(shlex, new, "rename read_token to next_token", rel="shlex.py")
    diff = unified_diff("shlex.py", shlex, new)
    flags = scope.hunk_flags(diff)
    assert flags.count(True) == 1 and len(flags) >= 2
    root = make_repo(tmp_path)
    app = CoderApp(root, config.load(root), conversations.new_conversation(root), server=None,
                   persist_theme=False, offer_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.push_screen(ReviewScreen(diff, "shlex.py", flagged=flags, unexplained=scope.refusal()))
        await pilot.pause()
        review = app.screen
        assert isinstance(review, ReviewScreen)
        banner = str(review.query_one("#review-unexplained", Static).render())
        assert "shlex.py:50 (changed)" in banner and "rename read_token -> next_token" in banner
        view = review.query_one(DiffView)
        first = flags.index(True)
        assert view.flagged == {view.hunks[first]}
        row = "".join(seg.text for seg in view.render_line(view.hunks[first] - view.scroll_offset.y))
        assert DiffView.FLAG.strip() in row
        view._go(first)
        await pilot.pause()
        assert "!! not explained by the instruction" in str(review.query_one("#review-bar", Static).render())
        other = next(i for i, f in enumerate(flags) if not f)
        view._go(other)
        await pilot.pause()
        assert "not explained" not in str(review.query_one("#review-bar", Static).render())
