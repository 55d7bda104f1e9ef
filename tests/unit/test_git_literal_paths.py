"""File names are literal in every git call: a file named ``*.py`` is that file, never a pattern."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.edit.apply import gitcli, gitops


def _status(root: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout


@pytest.mark.parametrize("name", ["*.py", "[ab].py", ":(glob)x.py", "?.py"])
def test_a_pattern_like_name_edits_and_commits_only_itself(tmp_path: Path, name: str) -> None:
    root = tmp_path / "r"
    make_repo(root, {name: "x = 1\n", "b.py": "b = 1\n", "a.py": "a = 1\n"})
    (root / "b.py").write_text("b = 2  # the user's own unstaged change\n")
    repo = gitops.open_repo(root)
    assert repo is not None
    assert not gitops.is_dirty(repo, name)  # b.py's change is not this file's
    (root / name).write_text("x = 2\n")
    assert gitops.is_dirty(repo, name)
    sha = gitops.commit_edit(repo, name, "set x")
    changed = subprocess.run(["git", "show", "--name-only", "--format=", sha], cwd=root, capture_output=True,
                             text=True).stdout.split("\n")
    assert [c for c in changed if c] == [name]
    assert _status(root) == " M b.py\n"  # still the user's, unstaged
    done = gitops.undo_last(repo)
    assert done.paths == [name] and (root / name).read_text() == "x = 1\n"
    assert (root / "b.py").read_text().startswith("b = 2") and _status(root) == " M b.py\n"


def test_the_target_check_takes_a_pattern_like_name_literally(tmp_path: Path) -> None:
    from coder.edit.source.target import check_edit_target
    from coder.errors import CoderError

    root = tmp_path / "r"
    make_repo(root, {"*.py": "x = 1\n", ".gitignore": "b.py\n"})
    (root / "b.py").write_text("ignored\n")
    tree = gitcli.find_tree(root)
    assert check_edit_target(root, tree, root / "*.py") == (root / "*.py").resolve()  # not "ignored" via b.py
    with pytest.raises(CoderError, match="is ignored by git"):
        check_edit_target(root, tree, root / "b.py")


def test_plain_git_runs_every_command_with_literal_pathspecs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The steps before the request (:mod:`coder.edit.apply.gitcli`) keep gitops' rule: paths are literal."""
    root = tmp_path / "r"
    make_repo(root, {"*.py": "x = 1\n", "a.py": "a = 1\n"})
    tree = gitcli.find_tree(root)
    assert tree is not None and tree.root == root.resolve() and tree.git_dir == (root / ".git").resolve()
    assert tree.git("ls-files", "--", "*.py") == "*.py"  # not a.py too: the name is no pattern
    seen: list[dict[str, str]] = []
    real_run = subprocess.run

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(kwargs["env"])  # type: ignore[arg-type]
        return real_run(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(gitcli.subprocess, "run", spy)
    gitcli.find_tree(root)
    tree.tracked_files()
    tree.is_ignored("a.py")
    # check-ignore alone turns it off: it takes names, never patterns, and refuses the switch
    assert [env["GIT_LITERAL_PATHSPECS"] for env in seen] == ["1", "1", "0"]
    assert all(env["LC_ALL"] == "C" for env in seen)
