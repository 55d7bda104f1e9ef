"""The user's own test and lint commands, run on a proposal before it is applied.

Aider runs ``--auto-test``/``--auto-lint`` after it has committed; here the command runs
first, on a temporary copy of the work tree with the proposal written in, so a failing
edit never reaches the file or the history. The copy holds git's files (tracked, and
untracked ones git does not ignore) as they are on disk now, so the command sees exactly
what applying would leave. Each command has a time limit; what it printed last is kept,
made visible (:func:`coder.textsafe.visible`), for the one line that refuses the edit.

A command is a program the repository may name, so it comes from the user's own config or
from a ``.coder.toml`` the user trusted (:mod:`coder.trust`): ``test_command`` and
``lint_command`` at the top level, run by ``/bin/sh -c`` in the copy's root.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from coder.edit.apply.files import FileSnapshot
from coder.textsafe import visible

if TYPE_CHECKING:  # annotations only: the edit command imports this module before its request, GitPython after
    import git

TAIL_LINES = 8  # what a failure shows of the command's output
_LINE_MAX = 200
_FAILED = ("FAILED", "FAIL:", "ERROR")  # lines of pytest and unittest that name a failing test
_NAMED = 3  # failing tests a retry's prompt names


@dataclass(frozen=True)
class UserCommand:
    """One configured command: ``kind`` is ``lint`` or ``test``."""

    kind: str
    command: str
    timeout_s: float = 120.0


@dataclass(frozen=True)
class CheckRun:
    """What one command did on the proposal."""

    kind: str
    command: str
    rc: int | None  # None: it did not finish (timed out) or could not start
    seconds: float
    tail: tuple[str, ...] = ()  # its last output lines, made visible
    why: str = ""  # set when it did not run to an exit status: "timed out after 120 s", ...

    @property
    def ok(self) -> bool:
        """True when the command exited 0."""
        return self.rc == 0

    def line(self) -> str:
        """``test command passed in 1.2 s: pytest -q`` / ``... failed (exit 1) ...: last line``."""
        if self.ok:
            return f"{self.kind} command passed in {self.seconds:.1f} s: {self.command}"
        if self.rc is None and not self.why.startswith("timed out"):
            return f"the {self.kind} command `{self.command}` could not run on the proposal ({self.why})"
        how = self.why or f"exit {self.rc}"
        last = f": {self.tail[-1]}" if self.tail else ""
        return f"the {self.kind} command `{self.command}` failed on the proposal ({how}, {self.seconds:.1f} s){last}"

    def failures(self) -> str:
        """What the failure says of itself, for a retry's prompt: the lines naming failed tests, else the last.

        pytest's ``FAILED tests/test_x.py::test_y - AssertionError: ...`` and unittest-style ``FAIL:``/``ERROR:``
        lines name the test and what it asserted; the command itself (a path to an interpreter) says nothing
        to the model.
        """
        named = [x for x in self.tail if x.startswith(_FAILED) and not x.startswith("FAILED (")]  # unittest's total
        said = "; ".join(named[:_NAMED]) if named else (self.tail[-1] if self.tail else self.why or f"exit {self.rc}")
        return f"the repository's {self.kind} command failed on it: {said}"

    def failed_tests(self) -> tuple[str, ...]:
        """The failing tests' function names (``test_deepcopy_dict``) from the lines naming them, in order.

        pytest's node id (``tests/test_x.py::TestX::test_y[1] - ...``), unittest's ``FAIL: test_y (mod.TestX)``
        and a plain ``FAILED test_y: ...`` all give ``test_y``; a line naming no test function gives nothing.
        """
        names: list[str] = []
        for line in self.tail:
            if not line.startswith(_FAILED) or line.startswith("FAILED ("):
                continue
            parts = line.split(None, 1)
            said = parts[1] if len(parts) == 2 else ""
            node = said.split(" - ", 1)[0].split(" (", 1)[0].split(": ", 1)[0].rstrip(":")
            name = node.split("::")[-1].split("[", 1)[0].strip()
            if name.startswith("test") and name.isidentifier() and name not in names:
                names.append(name)
        return tuple(names)

    def to_json(self) -> dict[str, object]:
        """The ``--json`` form."""
        return {"kind": self.kind, "command": self.command, "ok": self.ok, "rc": self.rc,
                "seconds": round(self.seconds, 3), "why": self.why, "tail": list(self.tail)}


def commands(test: str | None, lint: str | None, timeout_s: float = 120.0) -> list[UserCommand]:
    """The commands to run, lint first (it is usually the quicker to fail)."""
    return [UserCommand(kind, cmd, timeout_s) for kind, cmd in (("lint", lint), ("test", test)) if cmd]


def run_on_proposal(repo: git.Repo | None, snap: FileSnapshot, new: str,
                    checks: Sequence[UserCommand]) -> list[CheckRun]:
    """Run ``checks`` in a copy of the work tree holding ``new`` at ``snap.rel``; stop at the first failure.

    Without git there is no list of the project's files to copy: one run says so, as a failure.
    """
    return run_on_files(repo, [(snap, new)], checks)


def run_on_files(repo: git.Repo | None, files: Sequence[tuple[FileSnapshot, str]],
                 checks: Sequence[UserCommand]) -> list[CheckRun]:
    """Run ``checks`` once in a copy of the work tree holding every ``(snapshot, new text)`` of a proposal.

    A plan over several files is checked as one change: the commands see all of its files at once.
    """
    if not checks:
        return []
    if repo is None:
        first = checks[0]
        return [CheckRun(first.kind, first.command, None, 0.0, why="the copy of the work tree needs git")]
    root = Path(repo.working_tree_dir or ".")
    runs: list[CheckRun] = []
    with tempfile.TemporaryDirectory(prefix="coder-check-") as tmp:
        copy = Path(tmp) / root.name
        _copy_tree(repo, root, copy)
        for snap, new in files:
            target = copy / snap.rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(snap.encode(new))
        for check in checks:
            runs.append(_run(check, copy))
            if not runs[-1].ok:
                break
    return runs


def _copy_tree(repo: git.Repo, root: Path, copy: Path) -> None:
    """git's files of ``root`` (tracked, and untracked that are not ignored), as on disk, into ``copy``."""
    listed = repo.git.ls_files("-z", "--cached", "--others", "--exclude-standard")
    copy.mkdir(parents=True)
    for rel in dict.fromkeys(p for p in listed.split("\0") if p):
        src, dst = root / rel, copy / rel
        if src.is_symlink():
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(src), dst)
        elif src.is_file():  # a deleted file or a submodule's directory is not copied
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)


def _run(check: UserCommand, cwd: Path) -> CheckRun:
    env = {k: v for k, v in os.environ.items() if k != "CODER_API_KEY"}  # the server's key is not the test's
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(["/bin/sh", "-c", check.command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        return CheckRun(check.kind, check.command, None, 0.0, why=f"could not start: {exc.strerror}")
    why = ""
    try:
        out, _ = proc.communicate(timeout=check.timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # its own session: the command and whatever it started
        out, _ = proc.communicate()
        why = f"timed out after {check.timeout_s:g} s"
    seconds = time.perf_counter() - started
    lines = [visible(x)[:_LINE_MAX] for x in out.decode("utf-8", "replace").splitlines() if x.strip()]
    return CheckRun(check.kind, check.command, None if why else proc.returncode, seconds,
                    tuple(lines[-TAIL_LINES:]), why)
