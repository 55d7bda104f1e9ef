"""The headless EditSession, without Textual: mentions, commands, the state machine, k, restarts, cancel.

Replies come from recorded real llama-server traffic (tests/data/ui/*.json) served by the
:class:`coder.testing.replay.ReplayServer` **test double**; everything on coder's side is real: the
OpenAI client, the edit engine, the /metrics scrape, the k policy, git commits, session files.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import git
import pytest
from cli_helpers import make_repo as build_repo
from ui_support import GREET, GREET_DOCSTRING, SCENARIOS, load, make_repo, replay

from coder import conversations
from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.config import Profile, builtin_profiles
from coder.errors import CoderError
from coder.kpolicy import policy_factory
from coder.session import events as ev
from coder.session.edit_session import EditSession

PROFILE = builtin_profiles()["demo"]


class Recorder:
    """Collects the session's events (what a front end would show)."""

    def __init__(self) -> None:
        self.events: list[ev.Event] = []

    def __call__(self, event: ev.Event) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[object]:
        """The events of one type, in order."""
        return [e for e in self.events if isinstance(e, kind)]

    def notes(self) -> str:
        """Every note and error, one per line."""
        return "\n".join(e.text for e in self.events if isinstance(e, ev.Note))


def session_for(root: Path, info: ServerInfo | None, *, profile: Profile = PROFILE,
                backend: BackendHandle | None = None) -> tuple[EditSession, Recorder]:
    rec = Recorder()
    edit = EditSession(root, conversations.new_conversation(root), backend or BackendHandle(info, profile,
                                                                                            policy_factory=policy_factory(False)),
                       rec, persist=False)
    edit.load_files()
    return edit, rec


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


@pytest.fixture
def greet_repo(tmp_path: Path) -> Path:
    """The repository the greet recordings were made in."""
    return make_repo(tmp_path, *SCENARIOS["edit_greet"].files)


def test_session_package_imports_no_textual() -> None:
    code = ("import sys, coder.session.edit_session, coder.testing.replay, coder.session.feed\n"
            "print(','.join(m for m in ('textual', 'coder.ui') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_mentions_and_commands_without_a_server(repo: Path) -> None:
    edit, rec = session_for(repo, None)
    assert "greet.py" in edit.files
    edit.submit("@greet.py")
    assert edit.conversation.context_files == ["greet.py"]
    edit.submit("@missing.py please")
    edit.submit("@logo.png")
    assert "missing.py: no such file" in rec.notes()
    assert "looks binary" in rec.notes()
    assert "Nothing was sent" in rec.notes()
    assert edit.conversation.context_files == ["greet.py"]
    assert rec.of(ev.UserSaid) == []  # nothing went to the model
    edit.submit("/mode sideways")
    assert "Usage: /mode full|region|auto" in rec.notes()
    edit.submit("/mode region")
    assert edit.conversation.mode == "region"
    edit.submit("/frobnicate now")
    assert "Unknown command /frobnicate" in rec.notes()
    edit.submit("/drop nothere.py")
    assert "nothere.py is not in the context" in rec.notes()
    edit.submit("/drop greet.py")
    assert edit.conversation.context_files == []
    context = rec.of(ev.ContextChanged)[-1]
    assert isinstance(context, ev.ContextChanged) and context.files == () and context.mode == "region"
    edit.submit("/theme coder-light")
    assert ev.FrontEndCommand("theme", ("coder-light",)) in rec.events


def test_message_without_backend_is_kept_not_sent(repo: Path) -> None:
    edit, rec = session_for(repo, None)
    edit.submit("hello?")
    assert "No backend is running, so nothing was sent" in rec.notes()
    assert edit.conversation.turns[-1].content == "hello?"
    assert edit.state == "idle"


def test_chat_streams_with_recorded_metrics(repo: Path) -> None:
    with replay("chat_reply") as (server, info):
        edit, rec = session_for(repo, info)
        edit.submit(SCENARIOS["chat_reply"].instruction)
    finished = rec.of(ev.RequestFinished)
    assert len(finished) == 1, rec.notes()
    final = finished[0]
    assert isinstance(final, ev.RequestFinished)
    assert final.text == load("chat_reply").reply_text()
    # the exact figure comes from the recorded /metrics pages, not from the streamed counters
    assert final.final.spec is not None and final.final.spec.drafts > 0
    assert final.final.exact and final.final.stats.acceptance_length == final.final.spec.acceptance_length
    batches = rec.of(ev.StreamBatch)
    assert batches and "".join(b.batch.text for b in batches) == final.text  # type: ignore[attr-defined]
    assert [t.role for t in edit.conversation.turns] == ["user", "assistant"]
    states = [e.state for e in rec.of(ev.StateChanged)]  # type: ignore[attr-defined]
    assert states == ["streaming", "idle"]
    assert server.chat_requests[0]["speculative.n_max"] is not None  # coder's build: a per-request cap


def _edit_until_review(edit: EditSession, rec: Recorder) -> ev.ReviewRequested:
    edit.submit("@greet.py")
    edit.submit(GREET_DOCSTRING)
    assert edit.state == "reviewing", rec.notes()
    review = rec.of(ev.ReviewRequested)[-1]
    assert isinstance(review, ev.ReviewRequested)
    return review


def test_edit_review_accept_commits_then_undo(greet_repo: Path) -> None:
    head = git.Repo(greet_repo).head.commit.hexsha
    with replay("edit_greet") as (_, info):
        edit, rec = session_for(greet_repo, info)
        review = _edit_until_review(edit, rec)
        new = review.proposal.new
        assert '"""' in new and new != GREET
        edit.submit("next please")  # a second message while reviewing is refused, not queued
        assert "An edit waits for review" in rec.notes()
        edit.decide(True)
    assert edit.state == "idle"
    assert (greet_repo / "greet.py").read_text() == new  # the exact bytes of the recorded reply's file
    r = git.Repo(greet_repo)
    assert r.head.commit.hexsha != head and not r.is_dirty()
    assert "Applied greet.py" in rec.notes()
    edit.submit("/undo")
    assert (greet_repo / "greet.py").read_text() == GREET
    assert r.head.commit.hexsha == head
    assert "Undone:" in rec.notes()


def test_edit_reject_leaves_file(greet_repo: Path) -> None:
    with replay("edit_greet") as (_, info):
        edit, rec = session_for(greet_repo, info)
        _edit_until_review(edit, rec)
        edit.decide(False)
    assert (greet_repo / "greet.py").read_text() == GREET
    assert "Rejected the edit of greet.py" in rec.notes()
    assert edit.state == "idle"


def test_k_pin_is_sent_as_the_request_cap(greet_repo: Path) -> None:
    with replay("edit_greet") as (server, info):
        edit, rec = session_for(greet_repo, info)
        edit.submit("/k 3")
        assert "k pinned to 3" in rec.notes()
        _edit_until_review(edit, rec)
    body = server.chat_requests[-1]
    assert body["speculative.n_max"] == 3
    started = rec.of(ev.RequestStarted)[-1]
    assert isinstance(started, ev.RequestStarted) and started.info.k == 3


def test_truncated_reply_is_refused_and_nothing_written(greet_repo: Path) -> None:
    with replay("edit_truncated") as (_, info):
        edit, rec = session_for(greet_repo, info)
        edit.submit("@greet.py")
        edit.submit(GREET_DOCSTRING)
    assert "Edit of greet.py refused, nothing written:" in rec.notes()
    assert rec.of(ev.ReviewRequested) == []
    assert (greet_repo / "greet.py").read_text() == GREET
    assert edit.state == "idle"


def test_cancel_stops_the_stream(repo: Path) -> None:
    with replay("chat_reply", rate=10) as (_, info):  # 10 chunks/s: seconds of reply
        edit, rec = session_for(repo, info)
        worker = threading.Thread(target=edit.submit, args=(SCENARIOS["chat_reply"].instruction,))
        worker.start()
        deadline = time.monotonic() + 10
        while not rec.of(ev.StreamBatch) and time.monotonic() < deadline:
            time.sleep(0.02)
        edit.submit("second question")  # refused while streaming
        assert edit.cancel()
        worker.join(10)
    assert rec.of(ev.RequestStopped) and not rec.of(ev.RequestFinished)
    assert "A reply is still streaming" in rec.notes()
    assert edit.state == "idle"
    assert [t.role for t in edit.conversation.turns] == ["user"]


def test_k_restart_moves_chat_to_the_new_server(repo: Path) -> None:
    """A /k that needs a relaunch: the session's next request streams from the restarted server."""
    with replay("chat_reply") as (old, old_info), replay("chat_reply") as (new, new_info):
        old_info.managed, old_info.draft_cap = True, False  # a stock managed server: k changes by restart
        new_info.k = 3
        calls: list[int] = []

        def restart_double(profile: Profile, k: int, cancel: threading.Event | None) -> ServerInfo:
            """Test double of manager.restart: 'relaunches' by pointing at the second replay."""
            calls.append(k)
            return new_info

        backend = BackendHandle(old_info, PROFILE, restart_fn=restart_double, policy_factory=policy_factory(False))
        seen: list[ServerInfo | None] = []
        backend.subscribe(seen.append)
        edit, rec = session_for(repo, None, backend=backend)
        edit.submit("/k 3")
        edit.submit(SCENARIOS["chat_reply"].instruction)
    assert calls == [3]
    assert seen == [new_info]
    assert old.chat_requests == [] and len(new.chat_requests) == 1
    assert rec.of(ev.RequestFinished), rec.notes()
    assert "Restarting the backend at k=3" in rec.notes()


def test_escape_cancels_a_restart(repo: Path) -> None:
    with replay("chat_reply") as (old, info):
        info.managed, info.draft_cap = True, False
        entered = threading.Event()

        def slow_restart(profile: Profile, k: int, cancel: threading.Event | None) -> ServerInfo:
            """Test double of manager.restart that blocks until cancelled, as a minutes-long load would."""
            assert cancel is not None
            entered.set()
            cancel.wait(30)
            raise CoderError("restart cancelled")

        backend = BackendHandle(info, PROFILE, restart_fn=slow_restart, policy_factory=policy_factory(False))
        edit, rec = session_for(repo, None, backend=backend)
        edit.submit("/k 3")
        worker = threading.Thread(target=edit.submit, args=(SCENARIOS["chat_reply"].instruction,))
        worker.start()
        assert entered.wait(10)
        assert edit.state == "streaming"
        assert edit.cancel()
        worker.join(10)
    assert not worker.is_alive()
    assert rec.of(ev.RequestStopped) and old.chat_requests == []
    assert backend.info is None and edit.state == "idle"


def test_backend_changes_close_the_previous_connection_pool() -> None:
    """Each change of backend used to open an HTTP client for the token counter and never close it."""
    first = ServerInfo(url="http://127.0.0.1:9", k=4, spec_type="ngram-mod")
    handle = BackendHandle(first)
    pools = [handle.counter.server]
    for port in (10, 11):
        handle.replace(ServerInfo(url=f"http://127.0.0.1:{port}", k=4, spec_type="ngram-mod"))
        pools.append(handle.counter.server)
    handle.replace(None)
    closed = [pool._http.is_closed for pool in pools]  # type: ignore[union-attr]
    assert closed == [True, True, True]
    assert handle.counter.server is None


def test_a_mechanical_plan_gets_one_review_and_one_commit(tmp_path: Path) -> None:
    """A deletion of a def and its ``__main__`` block (frozen CPython shlex.py) sends no model request."""
    shlex = (Path(__file__).parents[1] / "data" / "real_edits" / "shlex.py.txt").read_text()
    root = tmp_path / "repo"
    build_repo(root, {"shlex.py": shlex})
    head = git.Repo(root).head.commit.hexsha
    with replay("edit_greet") as (_, info):
        edit, rec = session_for(root, info)
        edit.submit("@shlex.py")
        edit.submit("delete the function _print_tokens and its __main__ block")
        (review,) = rec.of(ev.ReviewRequested)
        assert isinstance(review, ev.ReviewRequested)
        assert "_print_tokens" in review.proposal.diff and "__main__" in review.proposal.diff
        edit.decide(True)
    new = (root / "shlex.py").read_text()
    assert "_print_tokens" not in new and "__main__" not in new
    r = git.Repo(root)
    assert r.head.commit.parents[0].hexsha == head and not r.is_dirty()
    edit.submit("/undo")
    assert (root / "shlex.py").read_text() == shlex


def test_an_untrusted_repositorys_commands_are_said_not_run_once_in_the_session(greet_repo: Path) -> None:
    line = f"{greet_repo / '.coder.toml'}: its test_command was not run on this edit: the file is not trusted"
    with replay("edit_greet") as (_, info):
        rec = Recorder()
        edit = EditSession(greet_repo, conversations.new_conversation(greet_repo),
                           BackendHandle(info, PROFILE, policy_factory=policy_factory(False)), rec, persist=False,
                           checks_not_run=line)
        edit.load_files()
        review = _edit_until_review(edit, rec)
        assert review.proposal.checks_not_run == line
        edit.decide(False)
    assert rec.notes().splitlines().count(line) == 1
    assert edit.engine().checks_not_run == ""  # said: the session's next edit does not say it again
