"""``coder edit`` / ``coder undo`` bad input: one clear line, non-zero exit, file untouched."""

from __future__ import annotations

import argparse
import json
import socket
from pathlib import Path

import pytest
from cli_helpers import run_edit_cli

from coder.cli import edit as edit_cli
from coder.errors import CoderError

SOURCE = "def greet(name):\n    return name\n"


pytestmark = pytest.mark.repo_files({"hello.py": SOURCE})


@pytest.fixture
def repo(tmp_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """conftest's ``tmp_repo`` (``hello.py`` committed), as the working directory."""
    monkeypatch.chdir(tmp_repo)
    return tmp_repo


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(("argv", "message"), [
    (["edit", "nope.py", "-m", "x"], "no such file"),
    (["edit", ".", "-m", "x"], "is a directory"),
    (["edit", "hello.py", "-m", "x", "--symbol", "missing"], "no symbol named 'missing'"),
    (["edit", "hello.py", "-m", "x", "--lines", "1-99"], "out of bounds"),
    (["edit", "hello.py", "-m", "x", "--lines", "z"], "A-B"),
    (["edit", "/etc/hostname", "-m", "x"], "outside the repository"),
    (["edit", "hello.py", "-m", "x", "--profile", "edit-cli-test-none"],
     "no backend is running; start one with `coder backend start`"),
])
def test_bad_input_is_one_clear_error(repo: Path, argv: list[str], message: str) -> None:
    with pytest.raises(CoderError, match=message) as err:
        run_edit_cli(argv)
    assert "\n" not in str(err.value)
    assert (repo / "hello.py").read_text() == SOURCE


def test_backend_down_with_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    code = run_edit_cli(["edit", "hello.py", "-m", "x", "--attach", url, "--json"])
    assert code == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and out["applied"] is False and out["error"]
    assert (repo / "hello.py").read_text() == SOURCE


def test_undo_without_coder_commit(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_edit_cli(["undo", "--json"]) == 1
    assert "not a coder edit" in json.loads(capsys.readouterr().out)["error"]
    with pytest.raises(CoderError, match="not a coder edit"):
        run_edit_cli(["undo"])


def test_undo_outside_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CoderError, match="needs a git repository"):
        run_edit_cli(["undo"])


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        run_edit_cli(["edit", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "examples:" in text and "--symbol Cache.get" in text and "--dry-run" in text


def test_undo_after_an_applied_edit(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from coder.edit.run.engine import EditEngine

    engine = EditEngine(None, repo)
    request = engine.prepare(repo / "hello.py", "return a greeting", mode="full")
    new = SOURCE.replace("return name", 'return f"hi {name}"')
    proposal = engine.evaluate(request, f"```python\n{new}```\n", finish_reason="stop")
    applied = engine.apply(proposal)
    assert applied.commit and (repo / "hello.py").read_text() == new
    assert run_edit_cli(["undo", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"ok": True, "undone": applied.commit, "subject": "coder: return a greeting",
                   "paths": ["hello.py"]}
    assert (repo / "hello.py").read_text() == SOURCE


def test_k_on_a_coder_managed_stock_server_restarts_the_profile_it_runs(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """``coder edit --k N`` against a coder-managed server without the per-request cap: the k policy comes
    from the profile that server runs, so the restart relaunches it (it raised "this backend is not
    managed by coder" when the CLI built its backend without a profile)."""
    from coder.backends.runtime.handle import BackendHandle
    from coder.backends.runtime.server import ServerInfo
    from coder.config import load
    from coder.kpolicy import policy_factory

    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    server = ServerInfo(url="http://127.0.0.1:9", profile="demo", managed=True, spec_type="ngram-mod", k=8,
                        k_max=None, draft_cap=False, verified=True)
    restarted: list[tuple[str, int]] = []

    def restart_double(profile: object, k: int, cancel: object) -> ServerInfo:
        restarted.append((getattr(profile, "name", "?"), k))
        return ServerInfo(url=server.url, profile="demo", managed=True, spec_type="ngram-mod", k=k)

    cfg = load(None)
    handle = BackendHandle(configured=cfg.profile(None), profiles=cfg.profiles, policy_factory=policy_factory(False),
                           restart_fn=restart_double)
    args = argparse.Namespace(k=3, profile=None)
    edit_cli._adopt(handle, args, server)
    assert handle.running is not None and handle.running.name == "demo"
    choice = handle.decide("full")
    assert (choice.k, choice.via) == (3, "restart"), choice
    new = handle.apply(choice)
    assert restarted == [("demo", 3)] and new is not None and new.k == 3
