"""The scope guard on the H200's recorded hints-, docstring- and comment-only replies (run of 2026-12-03).

Each reply is evaluated as the region request of its task and wording (:meth:`EditEngine.evaluate`):
the guard's verdict is pinned, and where the result is applied, the task's judge on it.
"""

from __future__ import annotations

from pathlib import Path

from cli_helpers import make_repo

from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.proposal import EditProposal
from coder.edit.run.engine import EditEngine

DATA = Path(__file__).resolve().parents[1] / "data" / "edit" / "h200_1203"


def evaluated(tmp_path: Path, name: str, wording: int, reply: str) -> tuple[Task, EditProposal]:
    """The region request of task ``name`` in ``wording`` (its symbol) answered with ``reply``."""
    task = next(t for t in (*TASKS, *HELDOUT) if t.name == name)
    make_repo(tmp_path / "r", task.originals())
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / task.file, task.wordings[wording], mode="region", symbol=task.symbol)
    return task, engine.evaluate(request, reply, finish_reason="stop")


def test_a_class_attribute_annotated_with_its_value_is_a_hint_and_one_that_loses_it_is_not(tmp_path: Path) -> None:
    # getopt-class-hints, all three wordings on the H200: `opt = ''` became `opt: str`: the class attribute is
    # gone (GetoptError.opt raises AttributeError), a true change; the guard keeps refusing it
    reply = (DATA / "getopt_class_hints_w0.reply.txt").read_text()
    _, dropped = evaluated(tmp_path / "a", "getopt-class-hints", 0, reply)
    assert dropped.scope is not None and not dropped.scope.ok
    assert "getopt.py:44-46 (changed)" in dropped.scope.refusal()
    # the same annotations keeping the values: type hints only
    kept = reply.replace("opt: str\n", "opt: str = ''\n").replace("msg: str\n", "msg: str = ''\n")
    _, hinted = evaluated(tmp_path / "b", "getopt-class-hints", 0, kept)
    assert hinted.scope is not None and hinted.scope.ok, hinted.scope.refusal()
