"""What the tests of the written-apart task sets (held-out, fresh, fresh2, fresh3) share: a correct result of a
task, the plain words of a wording, and a module's upstream tests run as a bug-fix task's repository runs them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from coder.bench.edits.checks import Exact, Renamed, SameAst, rename_names, replace_once
from coder.bench.edits.taskdef import Task, source

Edits = tuple[tuple[str, str], ...]


def expected_result(task: Task, solutions: Mapping[str, Edits]) -> str:
    """A correct result of ``task``: the check's own expected text, the renamed file, the original of a bug copy,
    or the hand-written solution in ``solutions``."""
    old = source(task.file)
    if isinstance(task.check, Exact | SameAst):
        return task.check.expected(old)
    if isinstance(task.check, Renamed):
        return rename_names(old, task.check.old, task.check.new)
    if "/bugs/" in task.file:
        return source(task.file.replace("bugs/", ""))
    return replace_once(old, solutions[task.name])


def plain_words(text: str) -> str:
    """A wording's words, lower case, without punctuation: two wordings must differ in these."""
    return " ".join(re.findall(r"[a-z0-9_]+", text.lower()))


def run_upstream(tmp_path: Path, rel: str, text: str) -> subprocess.CompletedProcess[str]:
    """The upstream tests of ``text`` written as ``rel`` in ``tmp_path``, run as a bug-fix task's repository
    runs them."""
    (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / rel).write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-m", "coder.bench.edits.upstream", rel], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
