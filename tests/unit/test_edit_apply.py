"""Applying edits in a real temporary git repository: commit, undo, snapshots, refusals."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from coder.edit.run.engine import EditEngine, EditProposal
from coder.errors import CoderError

DATA = Path(__file__).parents[1] / "data" / "edit"
ORIGINAL = (DATA / "ttl_cache.py.txt").read_text()
INSTRUCTION = "add a docstring to TTLCache.get"
GET_LINE = "    def get(self, key: K, default: V | None = None) -> V | None:\n"
DOC_LINE = '        """The live value for ``key``."""\n'


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


pytestmark = pytest.mark.repo_files({"ttl_cache.py": ORIGINAL, "other.py": "x = 1\n"})


@pytest.fixture
def repo(tmp_repo: Path) -> Path:
    """conftest's ``tmp_repo``, holding ``ttl_cache.py`` and ``other.py`` committed."""
    return tmp_repo


def _reply_for(text: str) -> str:
    """A well-formed full-file reply adding one docstring line to ``text``."""
    assert GET_LINE in text
    return "```python\n" + text.replace(GET_LINE, GET_LINE + DOC_LINE) + "```\n"


def _propose(engine: EditEngine, path: Path) -> EditProposal:
    request = engine.prepare(path, INSTRUCTION, mode="full")
    proposal = engine.evaluate(request, _reply_for(request.snapshot.text), finish_reason="stop")
    assert proposal.ok and proposal.changed, proposal.refusal
    return proposal


def _head(repo: Path) -> str:
    return _git(repo, "rev-parse", "HEAD").strip()


def test_commit_then_undo_restores_exact_bytes(repo: Path) -> None:
    target = repo / "ttl_cache.py"
    before_bytes = target.read_bytes()
    initial = _head(repo)
    # The user's unrelated work: one staged file and one modified file, both must survive.
    (repo / "staged.py").write_text("y = 2\n")
    _git(repo, "add", "staged.py")
    (repo / "other.py").write_text("x = 2  # user's change\n")

    engine = EditEngine(None, repo)
    result = engine.apply(_propose(engine, target))
    assert result.written and result.commit and result.snapshot is None
    assert DOC_LINE in target.read_text()
    assert _git(repo, "log", "-1", "--format=%s").strip() == f"coder: {INSTRUCTION}"
    assert _git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["ttl_cache.py"]
    assert "Coder-Edit: ttl_cache.py" in _git(repo, "log", "-1", "--format=%B")

    undone = engine.undo()
    assert undone.paths == ["ttl_cache.py"]
    assert target.read_bytes() == before_bytes
    assert _head(repo) == initial
    status = _git(repo, "status", "--porcelain").splitlines()
    assert sorted(status) == [" M other.py", "A  staged.py"]
    assert (repo / "other.py").read_text() == "x = 2  # user's change\n"


def test_dirty_file_is_snapshotted_first(repo: Path) -> None:
    target = repo / "ttl_cache.py"
    dirty = "# the user's own uncommitted note\n" + ORIGINAL
    target.write_text(dirty)
    engine = EditEngine(None, repo, snapshot_dirty=True)
    result = engine.apply(_propose(engine, target))
    assert result.snapshot and result.commit
    subjects = _git(repo, "log", "-3", "--format=%s").splitlines()
    assert subjects == [f"coder: {INSTRUCTION}", "coder: snapshot of your changes to ttl_cache.py", "initial"]
    assert _git(repo, "show", f"{result.snapshot}:ttl_cache.py") == dirty
    assert _git(repo, "status", "--porcelain") == ""
    engine.undo()
    assert target.read_text() == dirty  # back to the user's version, which stays committed
    with pytest.raises(CoderError, match="snapshot of your own changes"):
        engine.undo()  # the snapshot is the user's work: never undone
    assert target.read_text() == dirty


def test_dirty_file_without_snapshot_is_written_but_not_committed(repo: Path) -> None:
    target = repo / "ttl_cache.py"
    target.write_text(ORIGINAL + "\n# local\n")
    head = _head(repo)
    engine = EditEngine(None, repo, snapshot_dirty=False)
    result = engine.apply(_propose(engine, target))
    assert result.written and result.commit is None
    assert any("snapshot_dirty = false" in n for n in result.notes)
    assert _head(repo) == head and DOC_LINE in target.read_text()


def test_file_changed_on_disk_after_request_is_not_overwritten(repo: Path) -> None:
    target = repo / "ttl_cache.py"
    engine = EditEngine(None, repo)
    proposal = _propose(engine, target)
    concurrent = ORIGINAL + "# saved by the editor meanwhile\n"
    target.write_text(concurrent)
    head = _head(repo)
    with pytest.raises(CoderError, match="changed on disk"):
        engine.apply(proposal)
    assert target.read_text() == concurrent
    assert _head(repo) == head


def _make_dir_unwritable(path: Path) -> bool:
    """Make ``path`` refuse new entries (chattr +i as root, chmod otherwise); False if impossible."""
    if os.geteuid() == 0:
        if shutil.which("chattr") is None:
            return False
        return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0
    path.chmod(0o555)
    return True


def _restore_dir(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)
    else:
        path.chmod(0o755)


def test_read_only_directory_leaves_original_intact(repo: Path) -> None:
    pkg = repo / "pkg"
    pkg.mkdir()
    target = pkg / "ttl_cache.py"
    target.write_text(ORIGINAL)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "add pkg")
    engine = EditEngine(None, repo)
    proposal = _propose(engine, target)
    head = _head(repo)
    if not _make_dir_unwritable(pkg):
        pytest.skip("cannot make a directory read-only here")
    try:
        with pytest.raises(CoderError, match="cannot write"):
            engine.apply(proposal)
        assert target.read_text() == ORIGINAL
        assert sorted(p.name for p in pkg.iterdir()) == ["ttl_cache.py"]  # no temp file left
        assert _head(repo) == head
    finally:
        _restore_dir(pkg)


def test_mode_bits_and_crlf_are_kept(repo: Path) -> None:
    target = repo / "ttl_cache.py"
    target.write_bytes(ORIGINAL.replace("\n", "\r\n").encode())
    target.chmod(0o750)
    _git(repo, "commit", "-qam", "crlf")
    engine = EditEngine(None, repo)
    engine.apply(_propose(engine, target))
    data = target.read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert DOC_LINE.rstrip("\n").encode() + b"\r\n" in data
    assert stat.S_IMODE(target.stat().st_mode) == 0o750


def test_symlink_escaping_the_repo_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text(ORIGINAL)
    (repo / "link.py").symlink_to(outside)
    engine = EditEngine(None, repo)
    with pytest.raises(CoderError, match="symlink that points outside"):
        engine.prepare(repo / "link.py", INSTRUCTION, mode="full")
    (repo / "linkdir").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(CoderError, match="outside the repository"):
        engine.prepare(repo / "linkdir" / "outside.py", INSTRUCTION, mode="full")
    with pytest.raises(CoderError, match="outside the repository"):
        engine.prepare(outside, INSTRUCTION, mode="full")
    assert outside.read_text() == ORIGINAL


def test_symlink_inside_the_repo_writes_the_target(repo: Path) -> None:
    (repo / "alias.py").symlink_to("ttl_cache.py")
    engine = EditEngine(None, repo)
    result = engine.apply(_propose(engine, repo / "alias.py"))
    assert result.path == "ttl_cache.py"
    assert (repo / "alias.py").is_symlink()
    assert DOC_LINE in (repo / "ttl_cache.py").read_text()


@pytest.mark.parametrize(("make", "message"), [
    (lambda r: r / "missing.py", "no such file"),
    (lambda r: r, "is a directory"),
    (lambda r: (r / "blob.bin").write_bytes(b"\x00\x01\x02") and r / "blob.bin", "looks binary"),
    (lambda r: (r / "latin.txt").write_bytes("caf\xe9".encode("latin-1")) and r / "latin.txt", "not UTF-8"),
])
def test_bad_paths(repo: Path, make: object, message: str) -> None:
    path = make(repo)  # type: ignore[operator]
    with pytest.raises(CoderError, match=message):
        EditEngine(None, repo).prepare(path, INSTRUCTION, mode="full")


def test_not_a_git_repo_still_edits_without_commit(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    target = plain / "ttl_cache.py"
    target.write_text(ORIGINAL)
    engine = EditEngine(None, plain)
    assert not engine.has_git
    result = engine.apply(_propose(engine, target))
    assert result.written and result.commit is None
    assert any("not a git repository" in n for n in result.notes)
    assert DOC_LINE in target.read_text()
    with pytest.raises(CoderError, match="needs a git repository"):
        engine.undo()


def test_undo_refuses_when_head_is_not_coders(repo: Path) -> None:
    with pytest.raises(CoderError, match="not a coder edit"):
        EditEngine(None, repo).undo()


def test_undo_refuses_when_file_changed_after_the_edit(repo: Path) -> None:
    target = repo / "ttl_cache.py"
    engine = EditEngine(None, repo)
    engine.apply(_propose(engine, target))
    head = _head(repo)
    edited_then_touched = target.read_text() + "# user kept typing\n"
    target.write_text(edited_then_touched)
    with pytest.raises(CoderError, match="changed since coder's commit"):
        engine.undo()
    assert target.read_text() == edited_then_touched and _head(repo) == head


def test_refused_proposal_cannot_be_applied(repo: Path) -> None:
    target = repo / "ttl_cache.py"
    engine = EditEngine(None, repo)
    request = engine.prepare(target, INSTRUCTION, mode="full")
    proposal = engine.evaluate(request, "```python\n# ... rest of the code ...\n```\n", finish_reason="stop")
    assert proposal.refusal_code == "elision"
    with pytest.raises(CoderError, match="edit refused"):
        engine.apply(proposal)
    assert target.read_text() == ORIGINAL
