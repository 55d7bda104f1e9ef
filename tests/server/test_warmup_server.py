"""Warm-up against the real llama-server: the edit that follows reuses the warmed tokens."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.backends.engines.warm import LlamaCppWarmSender
from coder.backends.runtime.handle import BackendHandle
from coder.edit.proposal import EditProposal, EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.warmup.cache import CacheWarmer, edit_prefix
from coder.kpolicy import policy_factory
from coder.telemetry.prefill import PrefillView

SMALL_FILE = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(30))  # ~120 lines

pytestmark = [pytest.mark.server, pytest.mark.repo_files({"m.py": SMALL_FILE})]


def _first_prefill(engine: EditEngine, request: EditRequest) -> PrefillView | None:
    """The edit's first prompt-progress update: it already says how much of the prompt the cache holds.

    The stream stops there (closing it cancels the request): a full rewrite is not needed.
    """
    events = engine.run(request)
    try:
        for event in events:
            if isinstance(event, EditProposal):
                return None
            if event.prefill is not None:
                return event.prefill
    finally:
        events.close()  # type: ignore[attr-defined]
    return None


def test_warm_up_then_edit_reuses_the_prefix(demo_server: object, tmp_repo: Path) -> None:
    root = tmp_repo
    engine = EditEngine(BackendHandle(demo_server), root, ctx=4096)  # type: ignore[arg-type]
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
    first = _first_prefill(engine, request)
    assert first is not None, "no streamed prompt progress from llama-server"
    assert first.total is not None and first.total >= state.tokens
    assert first.cached is not None and first.cached >= state.tokens - 4  # all but the token at the cut
    assert first.to_process is not None and first.to_process <= 64  # only the instruction is left


def test_typing_warms_the_named_region_so_the_region_edit_prefills_only_the_instruction(
        demo_server: object, tmp_repo: Path) -> None:
    """The headless session, as the TUI drives it: ``@m.py``, a pause in typing, then Enter."""
    import time

    from coder import conversations
    from coder.config import builtin_profiles
    from coder.session import events as ev
    from coder.session.edit_session import EditSession

    root = tmp_repo
    profile = builtin_profiles()["demo"]
    seen: list[ev.Event] = []
    backend = BackendHandle(demo_server, profile, policy_factory=policy_factory(False))  # type: ignore[arg-type]
    edit = EditSession(root, conversations.new_conversation(root), backend, seen.append, persist=False)
    edit.warm_context()
    edit.submit("@m.py")

    def warmed(rel: str) -> ev.CacheChanged | None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            done = [e for e in seen if isinstance(e, ev.CacheChanged) and e.state.rel == rel
                    and e.state.status in ("warm", "failed")]
            if done:
                return done[-1]
            time.sleep(0.1)
        return None

    assert (file_warm := warmed("m.py")) is not None and file_warm.state.status == "warm"
    instruction = "Add a docstring to the function f3."
    edit.typing(instruction)
    region_warm = warmed("m.py, function f3")
    assert region_warm is not None and region_warm.state.status == "warm", region_warm
    engine = edit.engine()
    request = engine.prepare(root / "m.py", instruction, mode="auto")
    assert request.mode == "region" and request.region is not None and request.region.label == "function f3"
    assert edit_prefix("m.py", SMALL_FILE, engine.repo_context, request.region).is_prefix_of(request.messages)
    first = _first_prefill(engine, request)
    assert first is not None and first.cached is not None and first.to_process is not None
    assert first.cached >= region_warm.state.tokens - 4
    assert first.to_process <= 64  # only the instruction: well under a second of prefill on this CPU
