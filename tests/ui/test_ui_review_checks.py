"""The review notes what the user's test command said of the proposal (it ran before the review opened).

The reply is recorded from llama-server (tests/data/ui/edit_greet.json), served by the
ReplayServer **test double**; the command is real and runs in a copy of the work tree.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static
from ui_support import GREET, GREET_DOCSTRING, SCENARIOS, make_repo, replay

from coder import config, conversations
from coder.ui.app import CoderApp
from coder.ui.screens.review import ReviewScreen
from coder.ui.widgets.conversation.prompt import PromptInput
from coder.ui.widgets.conversation.transcript import Transcript

pytestmark = pytest.mark.asyncio


async def _submit(app: CoderApp, pilot: Pilot[None], text: str) -> None:
    app.screen.query_one(PromptInput).value = text
    await pilot.press("enter")
    await pilot.pause()


async def _until(check: Callable[[], bool], tries: int = 200) -> None:
    for _ in range(tries):
        if check():
            return
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("passes", [True, False])
async def test_the_review_shows_the_test_command_and_a_failure_is_refused(tmp_path: Path, passes: bool) -> None:
    root = make_repo(tmp_path, *SCENARIOS["edit_greet"].files)
    cfg = config.load(root)
    code = "import ast\nast.parse(open('greet.py').read())" if passes else "import greet"  # the reply crashes
    cfg.test_command = f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"
    with replay("edit_greet") as (_, info):
        app = CoderApp(root, cfg, conversations.new_conversation(root), server=info, persist_theme=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await _submit(app, pilot, "@greet.py")
            await _submit(app, pilot, GREET_DOCSTRING)
            def text() -> str:
                return app.main.query_one(Transcript).text

            await _until(lambda: isinstance(app.screen, ReviewScreen) or "refused" in text())
            await pilot.pause()  # a screen just pushed mounts its widgets on the next turns of the loop (loaded CI)
            if passes:
                assert isinstance(app.screen, ReviewScreen), text()
                note = str(app.screen.query_one("#review-checks", Static).render())
                assert note.startswith("✓ test command passed in ") and "ast.parse" in note
            else:
                assert not isinstance(app.screen, ReviewScreen)
                assert "Edit of greet.py refused, nothing written: the test command" in text()
                assert "AttributeError" in text()
    assert (root / "greet.py").read_text() == GREET
