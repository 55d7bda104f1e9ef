"""Warm-up against the real llama-server: the edit that follows reuses the warmed tokens."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from coder.backends.session import BackendSession
from coder.backends.warmup import LlamaCppWarmSender
from coder.edit.engine import EditEngine
from coder.edit.model import EditProposal
from coder.edit.warmup import CacheWarmer, edit_prefix

pytestmark = pytest.mark.server

SMALL_FILE = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(30))  # ~120 lines


def test_warm_up_then_edit_reuses_the_prefix(demo_server: object, tmp_path: Path) -> None:
    root = tmp_path / "warm-repo"
    root.mkdir()
    (root / "m.py").write_text(SMALL_FILE)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    engine = EditEngine(BackendSession(demo_server), root, ctx=4096)  # type: ignore[arg-type]
    prefix = edit_prefix("m.py", SMALL_FILE, engine.repo_context)
    sender = LlamaCppWarmSender(demo_server)  # type: ignore[arg-type]
    updates: list[object] = []
    warmer = CacheWarmer(sender, on_state=updates.append)
    warmer.warm(prefix)
    state = warmer.join(300)
    assert state.status == "warm", state
    assert state.tokens > 500
    request = engine.prepare(root / "m.py", "Add a docstring to the function f3.", mode="full")
    assert prefix.is_prefix_of(request.messages)
    # The first prompt-progress update already says how much of the prompt the cache holds:
    # stop there (closing the stream cancels the request), a full rewrite is not needed.
    events = engine.run(request)
    first = None
    try:
        for event in events:
            if isinstance(event, EditProposal):
                break
            if event.prefill is not None:
                first = event.prefill
                break
    finally:
        events.close()  # type: ignore[attr-defined]
    assert first is not None, "no streamed prompt progress from llama-server"
    assert first.total is not None and first.total >= state.tokens
    assert first.cached is not None and first.cached >= state.tokens - 4  # all but the token at the cut
    assert first.to_process is not None and first.to_process <= 64  # only the instruction is left
