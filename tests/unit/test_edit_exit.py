"""``coder edit`` as a process ends without the interpreter's teardown, its work complete (issue 35).

The command runs in a fresh interpreter through ``coder.cli.main.main()`` (the process's own command
line), against the :class:`coder.testing.replay.ReplayServer` **test double** of a recorded session:
the plan that deletes a function is mechanical (no model request), so the edit is written and
committed for real. An object whose finalizer prints, made by an atexit handler, marks the teardown: the
handler must run, the finalizer must not, and the file, the commit and the ``--json`` report must all be there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import git
from cli_helpers import make_repo

import coder

SHLEX = (Path(__file__).parents[1] / "data" / "real_edits" / "shlex.py.txt").read_text()
DELETE = "delete the function _print_tokens and its __main__ block"

_SCRIPT = """
import atexit, os, sys
from pathlib import Path

from ui_support import replay

from coder.cli import edit as edit_cli

class Teardown:
    def __del__(self, write=os.write):  # bound now: the teardown sets module globals to None
        write(2, b"TEARDOWN\\n")  # sys.stderr may be gone by then

mark = Path(sys.argv[1])


def at_exit():
    mark.write_text("atexit ran")
    # made after coder edit froze its objects for the collector (a frozen one is never freed), held by
    # sys.modules: only the interpreter's teardown, emptying it, frees it
    sys.modules["coder-exit-test"] = Teardown()


atexit.register(at_exit)
from coder.cli.main import main

sys.argv = ["coder", *(a for a in sys.argv[2:] if a != "--down")]
if "--down" in sys.argv[1:] or "http://127.0.0.1:9" in sys.argv:  # no server: the probe fails
    sys.exit(main())
with replay("edit_greet") as (_, info):  # the double serves from a daemon thread of this process
    edit_cli._find_server = lambda args: info
    sys.exit(main())
"""


def _coder_edit(repo: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    root = str(Path(coder.__file__).resolve().parents[1])  # this checkout's coder
    home = repo.parent / "coder-home"
    home.mkdir(exist_ok=True)
    tests = str(Path(__file__).resolve().parents[1])  # ui_support, the double's recordings
    # PYTHONSAFEPATH: `python -c` puts the cwd (the repo, holding a shlex.py) first on sys.path, so the stdlib's
    # shlex was that file and its bytecode landed in the repo; the `coder` entry point never runs from the cwd
    env = {**os.environ, "CODER_HOME": str(home), "PYTHONSAFEPATH": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [root, tests, os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", _SCRIPT, str(repo.parent / "atexit.txt"), *argv], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=120)


def test_edit_ends_without_teardown_after_its_commit(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, {"shlex.py": SHLEX})
    head = git.Repo(repo).head.commit.hexsha
    out = _coder_edit(repo, "edit", "shlex.py", "-m", DELETE, "--yes", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)  # the whole report reached the pipe before the process ended
    assert doc["ok"] and doc["applied"]
    assert "TEARDOWN" not in out.stderr  # os._exit: no teardown freed the module's object
    assert (tmp_path / "atexit.txt").read_text() == "atexit ran"  # the atexit handlers still ran
    commit = git.Repo(repo).head.commit
    assert commit.hexsha != head and commit.parents[0].hexsha == head
    text = (repo / "shlex.py").read_text()
    assert "def _print_tokens" not in text and "def split(" in text
    assert not git.Repo(repo).is_dirty(untracked_files=True)  # written and committed, nothing left half-done


def test_a_refused_edit_exits_as_before(tmp_path: Path) -> None:
    """An error (here: no server) is not the finished path: the normal exit, with its teardown."""
    repo = tmp_path / "repo"
    make_repo(repo, {"shlex.py": SHLEX})
    out = _coder_edit(repo, "edit", "shlex.py", "-m", DELETE, "--yes", "--json", "--down",
                      "--attach", "http://127.0.0.1:9")
    assert out.returncode == 1
    assert "TEARDOWN" in out.stderr and (tmp_path / "atexit.txt").read_text() == "atexit ran"
