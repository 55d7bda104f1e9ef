"""The user's test and lint commands run on a proposal, in a copy of the work tree, before it is applied.

Real git repositories, real commands (``python -c`` importing the edited module), the engine's
own evaluation, and ``coder edit`` end to end on a reply recorded from llama-server (served
by the ReplayServer test double). A failure refuses the edit with the command's last lines;
the file and the history stay as they were.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import git
import pytest
from cli_helpers import make_repo, run_edit_cli
from ui_support import GREET, GREET_DOCSTRING, SCENARIOS, replay
from ui_support import make_repo as make_ui_repo

from coder import config, trust
from coder.cli import edit as edit_cli
from coder.edit.checks.user_commands import UserCommand, commands
from coder.edit.proposal import EditProposal
from coder.edit.run.engine import EditEngine

CALC = "def div(a, b):\n    return a / b\n"
PY = shlex.quote(sys.executable)


def _py(code: str) -> str:
    return f"{PY} -c {shlex.quote(code)}"


def _evaluate(root: Path, new: str, *checks: UserCommand) -> EditProposal:
    engine = EditEngine(None, root, ctx=16384, checks=checks)
    request = engine.prepare(root / "calc.py", "Make `div` raise ValueError on zero.", mode="full")
    return engine.evaluate(request, "```python\n" + new + "```\n", finish_reason="stop")


@pytest.fixture
def calc_repo(tmp_path: Path) -> Path:
    make_repo(tmp_path / "r", {"calc.py": CALC, ".gitignore": "secret.txt\n"})
    return tmp_path / "r"


GUARDED = ("def div(a, b):\n    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b\n")
CHECK_ZERO = _py("import calc\ntry:\n    calc.div(1, 0)\nexcept ValueError:\n    pass\n"
                 "else:\n    raise SystemExit('div(1, 0) did not raise ValueError')")


def test_the_test_command_runs_on_the_proposal_not_on_the_file(calc_repo: Path) -> None:
    proposal = _evaluate(calc_repo, GUARDED, UserCommand("test", CHECK_ZERO))
    assert proposal.ok, proposal.refusal  # the original would fail this command: it saw the proposal
    (run,) = proposal.checks
    assert run.ok and run.rc == 0 and run.line().startswith("test command passed in ")
    assert (calc_repo / "calc.py").read_text() == CALC  # evaluating writes nothing


def test_a_failing_command_refuses_with_its_last_lines(calc_repo: Path) -> None:
    head = git.Repo(calc_repo).head.commit.hexsha
    wrong = "def div(a, b):\n    return a / (b or 1)\n"
    proposal = _evaluate(calc_repo, wrong, UserCommand("lint", _py("pass")), UserCommand("test", CHECK_ZERO))
    assert proposal.refusal_code == "check_failed"
    assert proposal.refusal is not None and proposal.refusal.startswith(
        f"the test command `{CHECK_ZERO}` failed on the proposal (exit 1, ")
    assert proposal.refusal.endswith(": div(1, 0) did not raise ValueError")
    assert [c.kind for c in proposal.checks] == ["lint", "test"] and proposal.checks[0].ok
    doc = proposal.to_json()["checks"]
    assert isinstance(doc, list) and doc[1]["ok"] is False and doc[1]["rc"] == 1
    assert (calc_repo / "calc.py").read_text() == CALC and git.Repo(calc_repo).head.commit.hexsha == head


def test_the_copy_holds_untracked_files_but_not_ignored_ones_and_output_is_made_visible(calc_repo: Path) -> None:
    (calc_repo / "helper.py").write_text("VALUE = 3\n")  # untracked, not ignored: part of the project
    (calc_repo / "secret.txt").write_text("do not copy\n")  # ignored
    seen = _py("import os, helper\nprint('\\x1b[8mhidden')\nassert not os.path.exists('secret.txt'), 'copied'\n"
               "raise SystemExit(helper.VALUE)")
    proposal = _evaluate(calc_repo, GUARDED, UserCommand("test", seen))
    (run,) = proposal.checks
    assert run.rc == 3 and run.tail == ("^[[8mhidden",)  # the escape is shown, not obeyed


def test_a_command_past_its_time_limit_is_killed_and_refuses(calc_repo: Path) -> None:
    proposal = _evaluate(calc_repo, GUARDED, UserCommand("test", "sleep 30", timeout_s=0.5))
    (run,) = proposal.checks
    assert proposal.refusal_code == "check_failed" and run.rc is None and run.seconds < 10
    assert "(timed out after 0.5 s, " in run.line()


def test_without_git_the_command_cannot_run_and_the_edit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    engine = EditEngine(None, tmp_path, ctx=16384, use_git=False, checks=[UserCommand("test", "true")])
    request = engine.prepare(tmp_path / "calc.py", "Make `div` raise ValueError on zero.", mode="full")
    proposal = engine.evaluate(request, "```python\n" + GUARDED + "```\n", finish_reason="stop")
    assert proposal.refusal == ("the test command `true` could not run on the proposal "
                                "(the copy of the work tree needs git)")
    assert (tmp_path / "calc.py").read_text() == CALC


def test_commands_come_from_the_users_config_and_only_from_a_trusted_repo_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / ".coder.toml").write_text('test_command = "make test"\nlint_command = "ruff check ."\n'
                                      'check_timeout = 30\n')
    cfg = config.load(repo)
    assert (cfg.test_command, cfg.lint_command, cfg.check_timeout) == (None, None, 30.0)
    assert "ignored test_command, lint_command" in cfg.ignored[0]
    trust.trust(repo / ".coder.toml")
    cfg = config.load(repo)
    assert commands(cfg.test_command, cfg.lint_command, cfg.check_timeout) == [
        UserCommand("lint", "ruff check .", 30.0), UserCommand("test", "make test", 30.0)]
    user = tmp_path / "home" / "config" / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('test_command = "pytest -q"\n')
    trust.revoke(repo / ".coder.toml")
    assert config.load(repo).test_command == "pytest -q"  # the user's own file needs no trust


@pytest.fixture
def greet_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = make_ui_repo(tmp_path, *SCENARIOS["edit_greet"].files)
    monkeypatch.chdir(root)
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    with replay("edit_greet") as (_, info):
        monkeypatch.setattr(edit_cli, "_find_server", lambda args: info)
        yield root


def _user_config(test_command: str) -> None:
    path = config.user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"test_command = {json.dumps(test_command)}\n")


# the recorded reply (SmolLM2) rewrites greet.py into code that crashes on import: the command catches it
def test_coder_edit_shows_a_failing_test_command_and_leaves_the_file(greet_cli: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    _user_config(_py("import greet"))
    head = git.Repo(greet_cli).head.commit.hexsha
    code = run_edit_cli(["edit", "greet.py", "-m", GREET_DOCSTRING, "--yes", "--json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert code == 2 and doc["refusal_code"] == "check_failed" and doc["checks"][0]["rc"] == 1
    crash = "AttributeError: 'function' object has no attribute 'greet_decorator'"
    assert f"coder:   | {crash}" in err.splitlines()
    (line,) = [x for x in err.splitlines() if x.startswith("coder: error:")]
    assert line.startswith("coder: error: edit refused: the test command `") and line.endswith(
        f"{crash}; greet.py untouched")
    assert (greet_cli / "greet.py").read_text() == GREET and git.Repo(greet_cli).head.commit.hexsha == head


def test_coder_edit_reports_a_passing_test_command(greet_cli: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _user_config(_py("import ast\nast.parse(open('greet.py').read())"))
    assert run_edit_cli(["edit", "greet.py", "-m", GREET_DOCSTRING, "--dry-run", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["checks"][0]["ok"] is True
    assert any(x.startswith("coder: test command passed in ") for x in err.splitlines())
    assert (greet_cli / "greet.py").read_text() == GREET


NOT_RUN = ("{path}: its test_command and lint_command were not run on this edit: the file is not trusted, and a "
           "repository's commands run only once you trust it (review it, then run `coder trust`)")


def test_an_untrusted_repositorys_commands_are_said_not_run_by_the_edit_not_at_every_load(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CODER_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(trust, "_notified", set())
    repo = tmp_path / "r"
    repo.mkdir()
    path = repo / ".coder.toml"
    path.write_text('test_command = "make test"\nlint_command = "ruff check ."\n')
    cfg = config.load(repo)
    assert cfg.commands_not_run == NOT_RUN.format(path=path)
    assert capsys.readouterr().err == ""  # the edit says it, where it matters (CLI, --json, TUI)
    path.write_text('test_command = "make test"\n[profiles.demo]\nthreads = 64\n')
    cfg = config.load(repo)
    assert cfg.commands_not_run == (f"{path}: its test_command was not run on this edit: the file is not trusted, "
                                    "and a repository's commands run only once you trust it (review it, then run "
                                    "`coder trust`)")
    err = capsys.readouterr().err
    assert "profiles.demo.threads" in err and "test_command" not in err  # the load says the rest, as before
    trust.trust(path)
    assert config.load(repo).commands_not_run is None


def test_the_engine_says_it_once_for_a_changed_proposal(calc_repo: Path) -> None:
    engine = EditEngine(None, calc_repo, ctx=16384, checks_not_run="not run: untrusted")
    request = engine.prepare(calc_repo / "calc.py", "Make `div` raise ValueError on zero.", mode="full")
    same = engine.evaluate(request, "```python\n" + CALC + "```\n", finish_reason="stop")
    assert same.ok and not same.changed and same.checks_not_run == ""  # nothing would have run on no change
    first = engine.evaluate(request, "```python\n" + GUARDED + "```\n", finish_reason="stop")
    assert first.checks_not_run == "not run: untrusted" and first.to_json()["checks_not_run"] == "not run: untrusted"
    again = engine.evaluate(request, "```python\n" + GUARDED + "```\n", finish_reason="stop")
    assert again.ok and again.checks_not_run == "" and again.to_json()["checks_not_run"] is None


def test_coder_edit_in_an_untrusted_repository_says_its_commands_were_not_run(
        greet_cli: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trust, "_notified", set())
    path = greet_cli / ".coder.toml"
    path.write_text(f"test_command = {json.dumps(_py('raise SystemExit(1)'))}\nlint_command = \"false\"\n")
    assert run_edit_cli(["edit", "greet.py", "-m", GREET_DOCSTRING, "--dry-run", "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    line = NOT_RUN.format(path=path.resolve())  # the work tree's root, as git names it
    assert doc["checks"] == [] and doc["checks_not_run"] == line  # a failing command: it did not run
    assert err.splitlines().count(f"coder: {line}") == 1 and err.count("not trusted") == 1
    assert (greet_cli / "greet.py").read_text() == GREET
