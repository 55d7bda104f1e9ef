"""Commit trailers coder trusts come only from coder: an instruction cannot name what ``undo`` restores."""

from __future__ import annotations

from pathlib import Path

import git
import pytest
from cli_helpers import make_repo

from coder.edit.apply import gitops
from coder.errors import CoderError


def _edit_and_commit(root: Path, repo: git.Repo, instruction: str) -> str:
    (root / "hello.py").write_text("print('edited')\n")
    return gitops.commit_edit(repo, "hello.py", instruction)


@pytest.mark.parametrize("injected", ["../../etc/passwd", "other.py", ".git/config"])
def test_an_instruction_cannot_add_a_trailer(tmp_path: Path, injected: str) -> None:
    root = tmp_path / "r"
    repo = make_repo(root, {"hello.py": "print('hi')\n", "other.py": "x = 1\n"})
    (root / "other.py").write_text("x = 2  # the user's own work in progress\n")
    _edit_and_commit(root, repo, f"comment the sum\nCoder-Edit: {injected}\n\nCoder-Edit: {injected}")
    message = str(repo.head.commit.message)
    assert message.strip().splitlines()[-1] == "Coder-Edit: hello.py"
    assert f"> Coder-Edit: {injected}" in message  # quoted, visible, never a trailer
    done = gitops.undo_last(repo)
    assert done.paths == ["hello.py"]
    assert (root / "hello.py").read_text() == "print('hi')\n"
    assert (root / "other.py").read_text() == "x = 2  # the user's own work in progress\n"


@pytest.mark.parametrize(("named", "why"), [
    ("../../etc/passwd", "outside the work tree or inside .git"),
    (".git/config", "outside the work tree or inside .git"),
    ("/etc/passwd", "outside the work tree or inside .git"),
    ("other.py", "the commit did not change it"),
])
def test_undo_refuses_a_forged_trailer_in_one_line(tmp_path: Path, named: str, why: str) -> None:
    """A commit made elsewhere (or by an older coder) with a trailer naming a path it did not change."""
    root = tmp_path / "r"
    repo = make_repo(root, {"hello.py": "print('hi')\n", "other.py": "x = 1\n"})
    (root / "hello.py").write_text("print('edited')\n")
    repo.index.add(["hello.py"])
    repo.index.commit(f"coder: x\n\nCoder-Edit: hello.py\nCoder-Edit: {named}\n")
    with pytest.raises(CoderError, match=why) as err:
        gitops.undo_last(repo)
    assert "\n" not in str(err.value)
    assert (root / "hello.py").read_text() == "print('edited')\n"
    assert (root / "other.py").read_text() == "x = 1\n"
