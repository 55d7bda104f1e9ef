"""Edits against the real llama-server with the demo model (SmolLM2-135M, n-gram speculation).

The tiny model often returns an invalid file: then the refusal and the byte-identical file
are asserted; when its reply is valid, the commit (and undo) are.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from coder.cli import edit as edit_cli
from coder.edit.engine import EditEngine, EditProposal, KChoice, Progress
from coder.errors import CoderError

pytestmark = pytest.mark.server

SOURCE = 'def greet(name):\n    return f"hello {name}"\n\n\ndef add(a, b):\n    return a + b\n'
REFUSALS = {"length", "empty", "no_fence", "unclosed_fence", "multiple_blocks", "elision", "syntax",
            "not_single_region"}


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_repo: Path) -> Path:
    (tmp_repo / "hello.py").write_text(SOURCE)
    _git(tmp_repo, "commit", "-qam", "two functions")
    return tmp_repo


def _check_outcome(engine: EditEngine, repo: Path, proposal: EditProposal) -> str:
    """Apply a valid proposal (commit, then undo to the exact bytes) or check a refusal left all as is."""
    target = repo / "hello.py"
    before, head = target.read_bytes(), _git(repo, "rev-parse", "HEAD")
    if not proposal.ok:
        assert proposal.refusal_code in REFUSALS, proposal.refusal
        with pytest.raises(CoderError, match="edit refused"):
            engine.apply(proposal)
        assert target.read_bytes() == before and _git(repo, "rev-parse", "HEAD") == head
        return f"refused: {proposal.refusal_code}"
    compile(proposal.new, "hello.py", "exec")
    result = engine.apply(proposal)
    if not proposal.changed:
        assert not result.written and target.read_bytes() == before
        return "unchanged"
    assert result.commit and target.read_text() == proposal.new
    assert _git(repo, "log", "-1", "--format=%s").startswith("coder: ")
    engine.undo()
    assert target.read_bytes() == before and _git(repo, "rev-parse", "HEAD") == head
    return "committed and undone"


class RecordingPolicy:
    """Test double for a coder.kpolicy policy: fixed k, records what the engine feeds back."""

    def __init__(self) -> None:
        self.chosen: list[str] = []
        self.observed: list[tuple[Any, dict[str, Any], Any]] = []

    def choose(self, request_class: str) -> KChoice:
        self.chosen.append(request_class)
        return KChoice(4, "test double", "cap")

    def observe(self, choice: Any, timings: dict[str, Any], delta: Any) -> None:
        self.observed.append((choice, timings, delta))


@pytest.mark.parametrize(("mode", "symbol"), [("full", None), ("region", "add")])
def test_round_trip(demo_server: Any, repo: Path, mode: str, symbol: str | None) -> None:
    policy = RecordingPolicy()
    engine = EditEngine(demo_server, repo, policy=policy)
    request = engine.prepare(repo / "hello.py", "add a docstring to add", mode=mode, symbol=symbol)
    assert request.request_class == mode and request.token_source == "server /tokenize"
    assert policy.chosen == [mode] and request.k.k == 4
    events = list(engine.run(request))
    assert len(policy.observed) == 1 and policy.observed[0][0] is request.k
    assert policy.observed[0][1]["predicted_n"] > 0
    proposal = events[-1]
    assert isinstance(proposal, EditProposal)
    assert events[:-1] and all(isinstance(e, Progress) for e in events[:-1])
    stats = proposal.stats
    assert stats.ttft is not None and stats.ttft > 0
    assert stats.completion_tokens and stats.completion_tokens > 0
    assert stats.prompt_tokens and stats.prompt_tokens > 0
    if mode == "region":
        user = request.messages[-1]["content"]
        assert "def add(a, b):" in user
    outcome = _check_outcome(engine, repo, proposal)
    print(f"{mode}: {outcome}; stats {stats}")


def test_cli_auto_mode_json(demo_server: Any, repo: Path, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(repo)
    parser = argparse.ArgumentParser(prog="coder")
    edit_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["edit", "hello.py", "-m", "add a docstring to `add`", "--mode", "auto",
                              "--profile", str(demo_server.profile), "--yes", "--json"])
    before = (repo / "hello.py").read_bytes()
    code = args.func(args)
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "region" and out["request_class"] == "region"
    assert "auto: region is faster" in out["mode_reason"]
    assert out["stats"]["completion_tokens"] > 0
    if out["ok"]:
        assert code == 0
        if out["changed"]:
            assert out["applied"] and out["commit"]
            assert _git(repo, "log", "-1", "--format=%H").strip() == out["commit"]
    else:
        assert code == 2 and out["refusal_code"] in REFUSALS and out["refusal"]
        assert (repo / "hello.py").read_bytes() == before


def test_backend_dying_mid_stream_leaves_file_untouched(server_factory: Any, repo: Path) -> None:
    from coder.backends import manager

    info = server_factory()
    engine = EditEngine(info, repo)
    request = engine.prepare(repo / "hello.py", "rewrite everything with type hints", mode="full")
    before = (repo / "hello.py").read_bytes()
    with pytest.raises(CoderError, match="backend"):
        for event in engine.run(request):
            if isinstance(event, Progress):
                manager.stop(str(info.profile), grace=0.5)
    assert (repo / "hello.py").read_bytes() == before
