"""An edit target is a tracked or trackable source file: never VCS metadata, never ignored by default."""

from __future__ import annotations

import os
from pathlib import Path

import git
import pytest
from cli_helpers import error_lines, make_repo, run_coder

from coder.edit.run.engine import EditEngine
from coder.errors import CoderError


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    make_repo(root, {"hello.py": "x = 1\n", ".gitignore": "build/\n*.log\n", "keep.log": "tracked anyway\n"})
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("y = 2\n")
    (root / "debug.log").write_text("noise\n")
    (root / "new.py").write_text("z = 3\n")  # untracked but trackable
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("path", [
    ".git/config", ".git/HEAD", ".git/hooks/pre-commit.sample", "sub/../.git/config", ".git/../.git/config",
])
def test_git_metadata_is_refused(repo: Path, path: str) -> None:
    engine = EditEngine(None, repo)
    with pytest.raises(CoderError, match=r"version-control metadata"):
        engine.check_target(path)


def test_absolute_and_symlinked_paths_into_git_are_refused(repo: Path) -> None:
    engine = EditEngine(None, repo)
    with pytest.raises(CoderError, match="version-control metadata"):
        engine.check_target(repo / ".git" / "config")
    (repo / "innocent.py").symlink_to(repo / ".git" / "config")
    with pytest.raises(CoderError, match=r"resolves into \.git/"):
        engine.check_target("innocent.py")
    os.symlink(".git/hooks", repo / "hooks")
    with pytest.raises(CoderError, match=r"resolves into \.git/"):
        engine.check_target("hooks/pre-commit.sample")


@pytest.mark.parametrize("meta", [".hg/hgrc", ".svn/entries", "vendor/.svn/wc.db", ".bzr/branch.conf"])
def test_other_vcs_metadata_is_refused(repo: Path, meta: str) -> None:
    (repo / meta).parent.mkdir(parents=True)
    (repo / meta).write_text("[paths]\n")
    with pytest.raises(CoderError, match="version-control metadata"):
        EditEngine(None, repo).check_target(meta)


def test_ignored_file_needs_the_flag(repo: Path) -> None:
    engine = EditEngine(None, repo)
    for path in ("build/gen.py", "debug.log"):
        with pytest.raises(CoderError, match=r"is ignored by git.*--allow-ignored"):
            engine.check_target(path)
    engine.allow_ignored = True
    assert engine.check_target("build/gen.py")[0].rel == "build/gen.py"


def test_tracked_and_trackable_files_are_targets(repo: Path) -> None:
    engine = EditEngine(None, repo)
    assert engine.check_target("hello.py")[0].rel == "hello.py"
    assert engine.check_target("keep.log")[0].rel == "keep.log"  # tracked: .gitignore does not apply
    assert engine.check_target("new.py")[0].rel == "new.py"


def test_nested_repository_and_worktree_gitfile(repo: Path, tmp_path: Path) -> None:
    make_repo(repo / "vendor" / "lib", {"lib.py": "v = 1\n"})
    with pytest.raises(CoderError, match="nested repository vendor/lib"):
        EditEngine(None, repo).check_target("vendor/lib/lib.py")
    wt = tmp_path / "wt"
    git.Repo(repo).git.worktree("add", str(wt), "-b", "side")
    assert (wt / ".git").is_file()
    with pytest.raises(CoderError, match="version-control metadata"):
        EditEngine(None, wt).check_target(wt / ".git")


@pytest.mark.server
@pytest.mark.parametrize("target", [".git/config", ".git/hooks/pre-commit"])
def test_cli_edit_of_git_metadata_refuses_with_real_server(tmp_path: Path, demo_server: object,
                                                           target: str) -> None:
    root = tmp_path / "repo"
    make_repo(root)
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    before = {p: p.read_bytes() for p in (root / ".git" / "config", hook)}
    url, key = demo_server.url, demo_server.api_key  # type: ignore[attr-defined]
    out = run_coder("edit", target, "-m", "rewrite this file", "--yes", "--mode", "full", "--attach", url,
                    cwd=root, home=tmp_path / "home", env={"CODER_API_KEY": key})
    assert out.returncode == 1
    lines = error_lines(out)
    assert len(lines) == 1 and "version-control metadata" in lines[0] and "refused" in lines[0]
    assert {p: p.read_bytes() for p in before} == before
    assert git.Repo(root).git.status("--porcelain") == ""  # every later git command still works
