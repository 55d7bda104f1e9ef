"""A new method asked for: the class's other members are never the model's to change, and the new method must act on
the state the class has. Replays the 1.5B's recorded H200 replies (run 16, fresh2 codeop-method), which rewrote the
short class besides; one reply here is built from a recorded one by hand, and says so."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.checks.new_method import graft_method, new_state_unread
from coder.edit.intent.words import said_words
from coder.edit.run import plan_run
from coder.edit.run.engine import EditEngine
from coder.testing.replies import ScriptedModel

CODEOP = source("fresh2/codeop.py")
RECORDED = json.loads((Path(__file__).parents[1] / "data" / "edit" / "new_method" / "codeop_reset.json").read_text())


def _run(root: Path, wording: str, replies: list[str]) -> plan_run.PlanProposal:
    engine = EditEngine(None, root)
    prepared = plan_run.prepare(engine, root / "codeop.py", RECORDED[wording]["instruction"])
    assert isinstance(prepared, plan_run.PlanRequest) and prepared.plan.kind == "add_method"
    return plan_run.run_plan(engine, prepared, ScriptedModel(engine, replies))


@pytest.mark.repo_files({"codeop.py": CODEOP})
@pytest.mark.parametrize(("wording", "attr"), [("w0", "future_imports"), ("w1", "flags")])
def test_a_reset_that_sets_state_nothing_reads_is_refused_and_names_the_state(tmp_repo: Path, wording: str,
                                                                             attr: str) -> None:
    proposal = _run(tmp_repo, wording, RECORDED[wording]["replies"])
    assert not proposal.ok and proposal.refusal is not None
    assert (f"CommandCompiler.reset sets self.{attr}, which nothing of CommandCompiler or the file reads or set "
            f"before, so it changes nothing CommandCompiler does (its state: self.compiler)") in proposal.refusal
    assert (tmp_repo / "codeop.py").read_text() == CODEOP


@pytest.mark.repo_files({"codeop.py": CODEOP})
def test_only_the_new_method_is_kept_when_the_reply_rewrote_the_class_besides(tmp_repo: Path) -> None:
    # built by hand from the recorded w1 reply: its reset made right, its change to __init__ left in
    reply = RECORDED["w1"]["replies"][0].replace(
        '"""Reset the CommandCompiler to its initial state."""\n        self.flags = 0',
        '"""Reset the CommandCompiler to its initial state."""\n        self.compiler = Compile()')
    assert "self.compiler = Compile()\n        self.flags = 0" in reply  # __init__ changed besides
    proposal = _run(tmp_repo, "w1", [reply])
    assert proposal.ok, proposal.refusal
    assert proposal.steps[0].note == ("the reply also changed existing members of CommandCompiler: only its new "
                                      "method reset was kept")
    new = proposal.files[0].new
    assert new == CODEOP.rstrip("\n") + ('\n\n    def reset(self):\n        """Reset the CommandCompiler to its '
                                         'initial state."""\n        self.compiler = Compile()\n')
    ast.parse(new)


def test_no_graft_without_one_new_method_of_the_name_asked() -> None:
    start = CODEOP.splitlines().index("class CommandCompiler:") + 1
    end = len(CODEOP.splitlines())
    reply = RECORDED["w1"]["replies"][0].removeprefix("```python\n").removesuffix("```")
    assert graft_method(CODEOP, start, end, reply, "CommandCompiler", "clear") is None
    assert graft_method(CODEOP, start, end, "class Other:\n    pass\n", "CommandCompiler", "reset") is None
    assert graft_method(CODEOP, start, end, reply, "CommandCompiler", "reset") is not None


def test_a_new_attribute_the_instruction_names_is_no_problem() -> None:
    new = CODEOP.rstrip("\n") + "\n\n    def close(self):\n        self.closed = True\n"
    assert new_state_unread(CODEOP, new, "CommandCompiler", "close", said_words("add a close() method that marks it "
                                                                                 "closed")) is None
    found = new_state_unread(CODEOP, new, "CommandCompiler", "close", said_words("add a close() method"))
    assert found is not None and found.startswith("CommandCompiler.close sets self.closed")
