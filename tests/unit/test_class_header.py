"""A long class's docstring is asked of its header, never of the whole class (plan/auto.py ``_class_header``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.run.engine import EditEngine


def _task(name: str) -> Task:
    return next(t for t in (*TASKS, *HELDOUT) if t.name == name)


@pytest.mark.parametrize(("name", "wording", "label"), [
    ("sched-docstring", 0, "class scheduler (its header)"),
    ("sched-docstring", 1, "class scheduler (its header)"),
    ("sched-docstring", 2, "class scheduler (its header)"),
    ("reprlib-docstring", 1, "class Repr (its header)"),
    ("tabnanny-docstring", 1, "class Whitespace (its header)"),
    # the members' docstrings, and a comment block to turn into one: the whole class
    ("graphlib-class-docstrings", 0, "class TopologicalSorter"),
    ("netrc-class-docstrings", 2, "class _netrclex"),
    ("tabnanny-docstring", 0, "class Whitespace"),
])
def test_which_lines_a_class_docstring_asks_for(tmp_path: Path, name: str, wording: int, label: str) -> None:
    task = _task(name)
    make_repo(tmp_path / "r", task.originals())
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / task.file, task.wordings[wording], mode="auto")
    assert request.mode == "region" and request.region is not None and request.region.label == label


def test_a_docstring_written_into_the_header_is_the_task_s_correct_result(tmp_path: Path) -> None:
    # the H200 asked for all of scheduler (117 lines) dropped its last method in every wording
    task = _task("sched-docstring")
    make_repo(tmp_path / "r", task.originals())
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / task.file, task.wordings[0], mode="auto")
    assert request.prompt.target == "class scheduler:\n\n"
    reply = '```python\nclass scheduler:\n    """Runs events at the times they are scheduled for."""\n\n```\n'
    proposal = engine.evaluate(request, reply, finish_reason="stop")
    assert proposal.ok and proposal.scope is not None and proposal.scope.ok
    assert task.judge(task.originals(), {task.file: proposal.new}) == (True, "docstring added, code unchanged")
