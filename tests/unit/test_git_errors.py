"""Git trouble is one line with git's own reason, and nothing is written; huge files refused by size."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from cli_helpers import error_lines, make_repo, run_coder

from coder.edit.apply import gitcli, gitops
from coder.edit.proposal import EditProposal
from coder.edit.run.engine import EditEngine
from coder.errors import CoderError
from coder.telemetry.stats import RequestStats

HELLO = 'def greet(name):\n    return f"hello {name}"\n'


def _dubious(root: Path) -> dict[str, str]:
    """Make ``root`` another user's repository (real chown as root, else git's own test switch)."""
    if os.geteuid() == 0:
        shutil.chown(root, "nobody")
        for dirpath, dirs, files in os.walk(root):
            for name in dirs + files:
                os.lchown(os.path.join(dirpath, name), 65534, -1)
        return {}
    return {"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}


def _corrupt_config(root: Path) -> dict[str, str]:
    (root / ".git" / "config").write_text("[core\n\tbare = false\n")
    return {}


def _locked_index(root: Path) -> dict[str, str]:
    (root / ".git" / "index.lock").write_text("")
    return {}


@pytest.mark.server
@pytest.mark.parametrize(("breaker", "reason"), [
    (_dubious, "detected dubious ownership in repository"),
    (_corrupt_config, "bad config line 1 in file .git/config"),
    (_locked_index, "index.lock': File exists"),
])
def test_broken_git_is_one_line_and_writes_nothing(tmp_path: Path, demo_server: object, breaker: object,
                                                   reason: str) -> None:
    root = tmp_path / "repo"
    make_repo(root, {"hello.py": HELLO})
    env = breaker(root)  # type: ignore[operator]
    url, key = demo_server.url, demo_server.api_key  # type: ignore[attr-defined]
    out = run_coder("edit", "hello.py", "-m", "add a docstring", "--yes", "--attach", url, cwd=root,
                    home=tmp_path / "home", env={"CODER_API_KEY": key, **env})
    assert out.returncode == 1, out.stderr
    lines = error_lines(out)
    assert len(lines) == 1 and reason in lines[0] and "--no-git" in lines[0], out.stderr
    assert (root / "hello.py").read_text() == HELLO
    assert not list(root.glob(".*.coder-tmp"))


def test_no_git_goes_on_without_git(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, {"hello.py": HELLO})
    _corrupt_config(root)
    # no backend in this CODER_HOME: the edit stops there, after the git check it skipped
    out = run_coder("edit", "hello.py", "-m", "add a docstring", "--yes", "--no-git", cwd=root,
                    home=tmp_path / "home")
    assert error_lines(out) == ["coder: error: no backend is running; start one with `coder backend start`"]
    assert (root / "hello.py").read_text() == HELLO


def test_git_breaking_after_the_request_still_writes_nothing(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand-written proposal stands in for the model's reply; apply() itself is the real one."""
    root = tmp_path / "repo"
    make_repo(root, {"hello.py": HELLO})
    monkeypatch.chdir(root)
    engine = EditEngine(None, root)
    request = engine.prepare("hello.py", "add a docstring", mode="full")
    proposal = EditProposal(request, '"""Greetings."""\n' + HELLO, "diff", RequestStats())
    _locked_index(root)
    with pytest.raises(CoderError, match=r"index\.lock': File exists"):
        engine.apply(proposal)
    assert (root / "hello.py").read_text() == HELLO


def test_check_usable_passes_on_a_healthy_repo(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root)
    repo = gitops.open_repo(root)
    assert repo is not None
    gitops.check_usable(repo)


class RecordingCounter:
    """Test double for TokenCounter: records every text it is asked to count."""

    source = "recording double"
    calibrated = False
    ratio = 1.0

    def __init__(self) -> None:
        self.seen = 0

    def count(self, text: str) -> int:
        self.seen += 1
        return len(text)

    def count_messages(self, messages: list[dict[str, str]]) -> int:
        self.seen += 1
        return 0


def _big_file(root: Path, mb: int = 50) -> Path:
    path = root / "big.py"
    line = b"value = 'x' * 40  # padding to make a very large source file\n"
    with path.open("wb") as fh:
        fh.write(line * (mb * 1024 * 1024 // len(line)))
    subprocess.run(["git", "add", "big.py"], cwd=root, check=True)
    return path


def test_huge_file_refused_before_any_token_is_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    make_repo(root)
    _big_file(root)
    monkeypatch.chdir(root)
    engine = EditEngine(None, root, ctx=65536)
    counter = RecordingCounter()
    engine.backend._counter = counter  # type: ignore[assignment]  # the recording counter stands in
    with pytest.raises(CoderError, match=r"big.py: 52.4 MB cannot fit the server context \(65536 tokens"):
        engine.prepare("big.py", "tidy up")
    assert counter.seen == 0


@pytest.mark.server
def test_50mb_file_is_refused_fast_by_the_cli(tmp_path: Path, demo_server: object) -> None:
    root = tmp_path / "repo"
    make_repo(root)
    big = _big_file(root)
    url, key = demo_server.url, demo_server.api_key  # type: ignore[attr-defined]
    t0 = time.monotonic()
    out = run_coder("edit", "big.py", "-m", "tidy up", "--yes", "--attach", url, cwd=root,
                    home=tmp_path / "home", env={"CODER_API_KEY": key})
    elapsed = time.monotonic() - t0
    lines = error_lines(out)
    # refused from its size on disk (fstat), before any read or /tokenize
    assert out.returncode == 1 and len(lines) == 1 and "larger than coder edits" in lines[0], lines
    assert elapsed < 15, elapsed  # was 35 s of /tokenize before the refusal
    assert big.stat().st_size > 50_000_000


@pytest.mark.parametrize(("breaker", "reason"), [
    (_dubious, "detected dubious ownership in repository"),
    (_corrupt_config, "bad config line 1 in file .git/config"),
    (_locked_index, "index.lock': File exists"),
])
def test_plain_git_refuses_a_broken_repository_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           breaker: object, reason: str) -> None:
    """The check before the request (plain ``git``, no GitPython) says git's reason, as gitops does after it."""
    root = tmp_path / "repo"
    make_repo(root, {"hello.py": HELLO})
    for key, value in breaker(root).items():  # type: ignore[operator]
        monkeypatch.setenv(key, value)
    with pytest.raises(CoderError) as refused:
        gitcli.find_tree(root / "hello.py")
    text = str(refused.value)
    assert reason in text and "--no-git" in text and "\n" not in text


def test_plain_git_finds_the_work_tree_from_below_and_from_its_git_directory(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, {"pkg/mod.py": HELLO})
    for start in (root, root / "pkg", root / "pkg" / "mod.py", root / ".git", root / ".git" / "objects"):
        tree = gitcli.find_tree(start)
        assert tree is not None and tree.root == root.resolve(), start
    assert gitcli.find_tree(tmp_path) is None  # no repository: the edit goes on without git
    assert gitcli.locate(tmp_path) == (tmp_path.resolve(), None)
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "bare.git")], check=True)
    with pytest.raises(CoderError, match=r"git cannot use the repository at .*work tree.*--no-git"):
        gitcli.find_tree(tmp_path / "bare.git")


def test_no_git_finds_the_root_without_asking_git(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, {"pkg/mod.py": HELLO})
    _corrupt_config(root)  # git would refuse; --no-git only needs the directory holding .git (its .coder.toml)
    assert gitcli.dot_git_root(root / "pkg" / "mod.py") == root.resolve()
    assert gitcli.dot_git_root(tmp_path) is None


def test_gitpython_opens_the_tree_plain_git_found_and_says_in_one_line_when_it_went(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, {"hello.py": HELLO})
    tree = gitcli.find_tree(root)
    assert tree is not None
    repo = gitops.repo_of(tree)
    assert Path(str(repo.working_tree_dir)).resolve() == tree.root
    assert repo.git.environment()["GIT_LITERAL_PATHSPECS"] == "1"  # gitops' rule holds for the commit too
    shutil.rmtree(root / ".git")  # gone between the request and the commit
    with pytest.raises(CoderError, match=r"is no longer a git repository; fix it, or pass --no-git"):
        gitops.repo_of(tree)
