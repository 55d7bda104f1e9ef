"""The session's prompt-cache warm-up: off for attached servers unless asked, and a failed warm-up
is only a state: the next edit runs as if it never happened (ReplayServer test double: a recorded
real llama-server conversation, which has no /apply-template, so a forced warm-up fails)."""

from __future__ import annotations

import time
from pathlib import Path

from test_session import PROFILE, Recorder
from ui_support import GREET, GREET_DOCSTRING, SCENARIOS, make_repo, replay

from coder import conversations
from coder.backends.runtime.handle import BackendHandle
from coder.kpolicy import policy_factory
from coder.session import events as ev
from coder.session.edit_session import EditSession


def _session(root: Path, info: object, warm_up: str) -> tuple[EditSession, Recorder]:
    rec = Recorder()
    backend = BackendHandle(info, PROFILE, policy_factory=policy_factory(False))  # type: ignore[arg-type]
    edit = EditSession(root, conversations.new_conversation(root), backend, rec, persist=False,
                       warm_up=warm_up)
    edit.load_files()
    return edit, rec


def _cache_states(rec: Recorder) -> list[str]:
    return [e.state.status for e in rec.of(ev.CacheChanged)]  # type: ignore[attr-defined]


def test_attached_server_is_not_warmed_unless_asked(tmp_path: Path) -> None:
    root = make_repo(tmp_path, *SCENARIOS["edit_greet"].files)
    with replay("edit_greet") as (_, info):
        edit, rec = _session(root, info, "managed")
        edit.warm_context()
        edit.submit("/add greet.py")
    states = rec.of(ev.CacheChanged)
    assert states and states[-1].state.status == "off"  # type: ignore[attr-defined]
    assert "attached server" in states[-1].state.label()  # type: ignore[attr-defined]


def test_failed_warm_up_shows_and_never_breaks_the_next_edit(tmp_path: Path) -> None:
    root = make_repo(tmp_path, *SCENARIOS["edit_greet"].files)
    with replay("edit_greet") as (_, info):
        edit, rec = _session(root, info, "always")
        edit.warm_context()
        edit.submit("@greet.py")
        deadline = time.monotonic() + 10
        while "failed" not in _cache_states(rec) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "failed" in _cache_states(rec), _cache_states(rec)
        edit.submit(GREET_DOCSTRING)
        assert edit.state == "reviewing", rec.notes()
        review = rec.of(ev.ReviewRequested)[-1]
        assert '"""' in review.proposal.new and review.proposal.new != GREET  # type: ignore[attr-defined]
        edit.decide(False)
    assert (root / "greet.py").read_text() == GREET
