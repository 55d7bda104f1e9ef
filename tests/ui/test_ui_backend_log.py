"""The TUI's backend screen follows a managed server's log without showing the server's API key."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import Log
from ui_support import make_repo

from coder import config, conversations
from coder.backends.runtime.server import ServerInfo
from coder.ui.app import CoderApp
from coder.ui.screens.backend import BackendScreen
from coder.ui.widgets.conversation.prompt import PromptInput

pytestmark = pytest.mark.asyncio
KEY = "sk-live-0123456789abcdef"


async def test_backend_screen_log_hides_the_server_key(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    log_file = tmp_path / "vllm.log"  # vLLM logs its arguments, the key among them
    log_file.write_text(f"(APIServer pid=9) INFO non-default args: {{'port': 1, 'api_key': ['{KEY}']}}\n")
    info = ServerInfo(url="http://127.0.0.1:9", engine="vllm", api_key=KEY, log_path=str(log_file), managed=True)
    app = CoderApp(root, config.load(root), conversations.new_conversation(root), server=info,
                   persist_theme=False, offer_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.screen.query_one(PromptInput).value = "/backend"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, BackendScreen)
        log = app.screen.query_one(Log)
        for _ in range(40):  # the follower thread posts the lines
            if "api_key" in "\n".join(log.lines):
                break
            await asyncio.sleep(0.25)
        shown = "\n".join(log.lines)
        assert "'api_key': ['<redacted>']" in shown and KEY not in shown
