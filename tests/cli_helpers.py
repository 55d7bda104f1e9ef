"""Run the real ``coder`` CLI in a subprocess with its own CODER_HOME (shared by issue-13 tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import git


def run_coder(*args: str, cwd: Path, home: Path, env: dict[str, str] | None = None,
              timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python -m coder ARGS`` in ``cwd`` with CODER_HOME=``home`` (artifacts stay shared)."""
    full = {k: v for k, v in os.environ.items() if k != "CODER_API_KEY"}
    full.update({"CODER_HOME": str(home), **(env or {})})
    return subprocess.run([sys.executable, "-m", "coder", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=full)


def error_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The ``coder: error:`` lines on stderr; a traceback fails the caller's assertion."""
    assert "Traceback" not in proc.stderr, proc.stderr
    return [line for line in proc.stderr.splitlines() if line.startswith("coder: error:")]


HELLO = 'def greet(name):\n    return f"hello {name}"\n'


def make_repo(root: Path, files: dict[str, str | bytes] | None = None) -> git.Repo:
    """A real git repository at ``root`` with ``files`` committed (default: ``hello.py``).

    The one builder of test repositories: ``tmp_repo`` and ``ui_support.make_repo`` use it too.
    """
    root.mkdir(parents=True, exist_ok=True)
    repo = git.Repo.init(root)
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "Test User")
        cfg.set_value("user", "email", "test@example.com")
    for rel, content in (files or {"hello.py": HELLO}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        repo.index.add([rel])
    repo.index.commit("initial")
    return repo


def run_edit_cli(argv: list[str]) -> int:
    """``coder edit``/``coder undo`` in this process: only that module's parsers (as coder.cli.main does)."""
    import argparse

    from coder.cli import edit as edit_cli

    parser = argparse.ArgumentParser(prog="coder")
    edit_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return int(args.func(args))
