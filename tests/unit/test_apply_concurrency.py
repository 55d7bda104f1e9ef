"""Apply is atomic against a concurrent edit, and a killed apply leaves nothing in the work tree.

Hand-written proposals stand in for the model's replies; apply(), git and the files are real.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.edit.apply import files as apply_mod
from coder.edit.proposal import EditProposal
from coder.edit.run.engine import EditEngine
from coder.errors import CoderError
from coder.telemetry.stats import RequestStats

HELLO = 'def greet(name):\n    return f"hello {name}"\n'
A_TEXT = '"""Edit A."""\n' + HELLO
B_TEXT = HELLO + "\n\ndef bye():\n    return 'bye'\n"


def _proposal(root: Path, new: str) -> tuple[EditEngine, EditProposal]:
    engine = EditEngine(None, root)
    request = engine.prepare("hello.py", "add a docstring", mode="full")
    return engine, EditProposal(request, new, "diff", RequestStats())


def test_an_edit_applied_meanwhile_is_never_silently_reverted(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    make_repo(root, {"hello.py": HELLO})
    monkeypatch.chdir(root)
    (engine_a, prop_a), (engine_b, prop_b) = _proposal(root, A_TEXT), _proposal(root, B_TEXT)
    a_checked = threading.Event()
    real_write = apply_mod.atomic_write

    def slow_for_a(path: Path, data: bytes | str, **kw: object) -> None:
        if threading.current_thread().name == "A":
            a_checked.set()  # A passed its unchanged-check: B now races it to the rename
            time.sleep(1.0)
        real_write(path, data, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(apply_mod, "atomic_write", slow_for_a)
    outcome: dict[str, object] = {}

    def run(name: str, engine: EditEngine, proposal: EditProposal) -> None:
        try:
            outcome[name] = engine.apply(proposal)
        except CoderError as exc:
            outcome[name] = exc

    a = threading.Thread(target=run, args=("A", engine_a, prop_a), name="A")
    a.start()
    assert a_checked.wait(10)
    run("B", engine_b, prop_b)
    a.join(10)
    assert isinstance(outcome["B"], CoderError) and "changed on disk" in str(outcome["B"]), outcome
    assert not isinstance(outcome["A"], CoderError), outcome
    assert (root / "hello.py").read_text() == A_TEXT
    head = subprocess.run(["git", "show", "HEAD:hello.py"], cwd=root, capture_output=True, text=True).stdout
    assert head == A_TEXT
    assert subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True,
                          text=True).stdout == ""


KILL_BEFORE_RENAME = """
import os, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
os.chdir({root!r})
from coder.edit.run.engine import EditEngine
from coder.edit.proposal import EditProposal
from coder.telemetry.stats import RequestStats
engine = EditEngine(None, Path({root!r}))
request = engine.prepare("hello.py", "add a docstring", mode="full")
os.replace = lambda *a: os.kill(os.getpid(), 9)  # killed between the temp file and the rename
engine.apply(EditProposal(request, "x = 1\\n", "diff", RequestStats()))
"""


def test_a_killed_apply_leaves_no_temp_file_in_the_work_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    make_repo(root, {"hello.py": HELLO})
    (root / ".hello.py.old1.coder-tmp").write_text("left by an older coder")
    script = KILL_BEFORE_RENAME.format(tests=str(Path(__file__).parents[1]), root=str(root))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={"CODER_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin",
                               "PYTHONPATH": str(Path(__file__).parents[2])})
    assert proc.returncode == -9, proc.stderr
    assert (root / "hello.py").read_text() == HELLO
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=root, capture_output=True,
                            text=True).stdout
    assert status == ""  # the older coder's stray file was cleaned under the lock; the new one is not here
    git_dir = root / ".git" / "coder-tmp"
    assert len(list(git_dir.iterdir())) == 1  # the killed apply's temp file: under .git, where git never shows it
    # the next apply cleans it up, under the lock
    monkeypatch.chdir(root)
    engine, proposal = _proposal(root, A_TEXT)
    engine.apply(proposal)
    assert list(git_dir.iterdir()) == [] and not list(root.glob("*.coder-tmp")) and not list(root.glob(".*tmp"))
    assert (root / "hello.py").read_text() == A_TEXT
