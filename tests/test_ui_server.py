"""End to end against the real llama-server with the demo model: the live panel moves while a reply streams."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.message import Message

from coder import config, sessions
from coder.ui.app import CoderApp
from coder.ui.messages import ReplyBatch, ReplyFailed, ReplyFinished
from coder.ui.widgets.conversation.prompt import PromptInput
from coder.ui.widgets.conversation.transcript import Transcript
from coder.ui.widgets.spec.panel import SpecPanel

pytestmark = [pytest.mark.server, pytest.mark.asyncio]

LIST = " ".join(["alpha beta gamma delta epsilon zeta eta theta iota kappa"] * 4)


async def test_live_stats_move_with_real_server(demo_server, tmp_repo: Path) -> None:
    seen: list[Message] = []
    app = CoderApp(tmp_repo, config.load(tmp_repo), sessions.new_session(tmp_repo), server=demo_server,
                   persist_theme=False, chat_max_tokens=40)
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await pilot.pause()
        app.main.query_one(PromptInput).value = f"Repeat this list exactly, nothing else: {LIST}"
        await pilot.press("enter")
        for _ in range(1200):  # the shared CPU box can be slow: up to ~10 minutes
            await asyncio.sleep(0.5)
            if any(isinstance(m, (ReplyFinished, ReplyFailed)) for m in seen):
                break
        await pilot.pause()
        failed = [m.error for m in seen if isinstance(m, ReplyFailed)]
        assert not failed, failed
        batches = [m.batch for m in seen if isinstance(m, ReplyBatch)]
        assert batches, "no streamed batch reached the UI"
        assert any(b.stats.avg_tps and b.stats.avg_tps > 0 for b in batches) or \
            any(b.stats.inst_tps and b.stats.inst_tps > 0 for b in batches)
        panel = app.main.query_one(SpecPanel)
        assert panel.final is not None and panel.final.result.tokens > 0
        assert panel.live.tokens > 0 and panel.live.ttft is not None
        # speculation counters: per-chunk draft counts and the exact /metrics delta both moved
        assert panel.live.draft_tokens and panel.live.draft_tokens > 0
        assert panel.final.spec is not None and panel.final.spec.drafts > 0
        al, how = panel.accept_length()
        assert how == "exact" and al is not None and al >= 1.0
        assert panel.request is not None and panel.request.request_class == "fresh"
        assert "alpha" in app.main.query_one(Transcript).text
