"""``coder edit`` asks git whether its file is ignored once per process (issue 35: time outside the request)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.cli import edit as edit_cli
from coder.cli.main import build_parser
from coder.edit.apply import gitcli
from coder.edit.run.engine import EditEngine
from coder.errors import CoderError

pytestmark = pytest.mark.repo_files({"hello.py": "def greet(name):\n    return name\n",
                                     ".gitignore": "scratch.py\n"})


@pytest.fixture
def asked(tmp_repo: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The git subcommands run from now on, in ``tmp_repo`` as the working directory."""
    monkeypatch.chdir(tmp_repo)
    seen: list[str] = []
    real = gitcli.run_git

    def counting(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
        seen.append(args[0])
        return real(cwd, *args, env=env)

    monkeypatch.setattr(gitcli, "run_git", counting)
    return seen


def _engine(*argv: str) -> EditEngine:
    args = build_parser("edit").parse_args(["edit", *argv])
    engine, _ = edit_cli._make_engine(args)
    return engine


def test_the_target_checked_before_the_server_and_again_by_prepare_asks_git_once(asked: list[str]) -> None:
    engine = _engine("hello.py", "-m", "add a docstring to greet", "--symbol", "greet")
    engine.check_target("hello.py", symbol="greet")  # the CLI's bad-input check, before the probe
    request = engine.prepare("hello.py", "add a docstring to greet", mode="region", symbol="greet")
    assert request.region is not None and request.region.name == "greet"
    assert asked.count("check-ignore") == 1


def test_an_ignored_target_is_refused_each_time_from_the_one_verdict(tmp_repo: Path, asked: list[str]) -> None:
    (tmp_repo / "scratch.py").write_text("x = 1\n")
    engine = _engine("scratch.py", "-m", "add a comment")
    for _ in range(2):
        with pytest.raises(CoderError, match="is ignored by git"):
            engine.check_target("scratch.py")
    assert asked.count("check-ignore") == 1
