"""The scope guard on the H200's recorded hints-, docstring- and comment-only replies (run of 2026-12-03).

Each reply is evaluated as the region request of its task and wording (:meth:`EditEngine.evaluate`):
the guard's verdict is pinned, and where the result is applied, the task's judge on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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
    # gone (GetoptError.opt raises AttributeError), a true change; it is left out, and only the defs' annotations
    # are put on the original (checks/graft.py)
    reply = (DATA / "getopt_class_hints_w0.reply.txt").read_text()
    _, dropped = evaluated(tmp_path / "a", "getopt-class-hints", 0, reply)
    assert dropped.scope is not None and dropped.scope.ok
    assert "getopt.py:44-46 (changed)" in dropped.scope.dropped_note()
    assert "    opt = ''\n    msg = ''\n    def __init__(self, msg: str, opt: str = '') -> None:\n" in dropped.new
    # the same annotations keeping the values: type hints only
    kept = reply.replace("opt: str\n", "opt: str = ''\n").replace("msg: str\n", "msg: str = ''\n")
    _, hinted = evaluated(tmp_path / "b", "getopt-class-hints", 0, kept)
    assert hinted.scope is not None and hinted.scope.ok, hinted.scope.refusal()


REPLIES = json.loads((DATA / "guard_replies.json").read_text())


@pytest.mark.parametrize("case", ["colorsys-hints_w2", "netrc-class-hints_w2"])
def test_a_reply_that_is_only_a_change_of_another_kind_stays_flagged(tmp_path: Path, case: str) -> None:
    # the retries' replies on the H200: a docstring or a __repr__ where hints were asked, and nothing else;
    # with it given back nothing explained is left, so nothing is taken out and the guard refuses the reply
    # as it came (the same where a comment was asked and a docstring came: test_as_comment turns that one)
    recorded = REPLIES[case]
    _, proposal = evaluated(tmp_path, recorded["task"], recorded["wording"], recorded["reply"])
    assert proposal.scope is not None and not proposal.scope.ok and proposal.scope.dropped == ()
    assert f"scope guard: {proposal.scope.refusal()}" == recorded["why_then"]


def _with_line_after(reply: str, anchor: str, extra: str) -> str:
    head, tail = reply.split(anchor, 1)
    return f"{head}{anchor}{extra}{tail}"


def test_hints_with_a_docstring_besides_are_applied_without_the_docstring(tmp_path: Path) -> None:
    # built from two recorded H200 replies (the first reply of colorsys-hints w2 was not kept): the hints
    # of wording 0 and the docstring wording 2's retry wrote; the docstring is given back, the hints stay
    hints = (DATA / "colorsys_hints_w0.reply.txt").read_text()
    doc = REPLIES["colorsys-hints_w2"]["reply"].splitlines()[2]
    assert doc.startswith('    """Converts an RGB color')
    both = _with_line_after(hints, "tuple[float, float, float]:\n", doc + "\n")
    task, proposal = evaluated(tmp_path, "colorsys-hints", 2, both)
    assert proposal.ok and proposal.scope is not None and proposal.scope.ok, proposal.refusal
    assert proposal.scope.dropped_note() == (
        "left out 1 change of the reply that the instruction does not explain (region function rgb_to_hsv, only "
        "type hints): colorsys.py:126 (added); the original lines are kept there")
    assert "Converts" not in proposal.new
    assert task.judge(task.originals(), {task.file: proposal.new}) == (True, "annotated, code unchanged")


def test_hints_with_a_new_method_besides_are_applied_without_the_method(tmp_path: Path) -> None:
    # the same from netrc-class-hints: wording 0's hints, and the __repr__ wording 2's retry added
    hints = (DATA / "netrc_class_hints_w0.reply.txt").read_text()
    method = "\n".join(REPLIES["netrc-class-hints_w2"]["reply"].splitlines()[-3:-1])
    assert method.startswith("    def __repr__(self):")
    both = _with_line_after(hints, "self.lineno)\n", f"\n{method}\n")
    task, proposal = evaluated(tmp_path, "netrc-class-hints", 2, both)
    assert proposal.ok and proposal.scope is not None and proposal.scope.ok, proposal.refusal
    assert [c.where("netrc.py") for c in proposal.scope.dropped] == ["netrc.py:20 (added)"]
    assert task.judge(task.originals(), {task.file: proposal.new}) == (True, "annotated, code unchanged")


@pytest.mark.parametrize("case", ["graphlib-class-docstrings_w0", "graphlib-class-docstrings_w1",
                                  "graphlib-class-docstrings_w2"])
def test_docstrings_with_code_rewritten_besides_stay_refused(tmp_path: Path, case: str) -> None:
    # refused on the H200 in all three wordings, rightly: besides the docstrings, `is not None` became `is None`
    # in prepare (94-95), and the class's last member `__class_getitem__` was dropped (249-250); the comment fixed
    # at 170 is no docstring either. Code changed or deleted is never given back: the reply stays flagged
    recorded = REPLIES[case]
    _, proposal = evaluated(tmp_path, recorded["task"], recorded["wording"], recorded["reply"])
    assert proposal.scope is not None and not proposal.scope.ok and proposal.scope.dropped == ()
    assert f"scope guard: {proposal.scope.refusal()}" == recorded["why_then"]
    assert "-        if self._ready_nodes is not None:" in proposal.diff


def test_a_comment_with_a_docstring_besides_is_applied_without_the_docstring(tmp_path: Path) -> None:
    # reprlib-comment w0's recorded reply (a docstring where a comment was asked) with a comment put in by
    # hand where the instruction asks: the docstring is given back, the comment applied, and the judge agrees
    reply = _with_line_after(REPLIES["reprlib-comment_w0"]["reply"], "typename = type(x).__name__\n",
                             "        # some type names hold spaces (a class made by type()); '_' keeps one word\n")
    task, proposal = evaluated(tmp_path, "reprlib-comment", 0, reply)
    assert proposal.ok and proposal.scope is not None and proposal.scope.ok, proposal.refusal
    assert [c.where(task.file) for c in proposal.scope.dropped] == ["heldout/reprlib.py:56 (added)"]
    assert '"""' not in proposal.diff
    assert task.judge(task.originals(), {task.file: proposal.new})[0] is True


def test_a_comment_block_made_the_docstring_is_taken_and_a_comment_lost_elsewhere_given_back(tmp_path: Path) -> None:
    # tabnanny-docstring w0 on the H200: "turn the comment block into a class docstring" wrote the docstring,
    # deleted the block, and deleted an unrelated comment further down the class. The block's words are in the
    # new docstring: moved, so its deletion is what was asked. The other comment's words are nowhere in the
    # reply: lost, so it is given back, and the rest is applied
    recorded = REPLIES["tabnanny-docstring_w0"]
    task, proposal = evaluated(tmp_path, recorded["task"], recorded["wording"], recorded["reply"])
    assert proposal.scope is not None and proposal.scope.ok, proposal.scope
    assert [c.where(task.file) for c in proposal.scope.dropped] == ["heldout/tabnanny.py:247 (deleted)"]
    assert "# the self.n >= other.n test already did it for ts=1" in proposal.new
    assert "    # members:\n" not in proposal.new and "    # members:\n" in task.originals()[task.file]
    assert task.judge(task.originals(), {task.file: proposal.new})[0] is True


def test_a_code_line_deleted_beside_a_docstring_is_never_given_back(tmp_path: Path) -> None:
    # the same reply with a code line of the class deleted too: code is never given back, so the guard refuses
    recorded = REPLIES["tabnanny-docstring_w0"]
    reply = recorded["reply"].replace("        if self.n >= other.n:\n            return False\n", "", 1)
    assert reply != recorded["reply"]
    _, proposal = evaluated(tmp_path, recorded["task"], recorded["wording"], reply)
    assert proposal.scope is not None and not proposal.scope.ok
    assert "(deleted)" in proposal.scope.refusal()
