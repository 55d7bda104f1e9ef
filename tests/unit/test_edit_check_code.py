"""The exact code rules of the result check, on wrong proposals rebuilt from the H200 bench's wrong edits.

Each wrong proposal is built on the shipped byte-copy of the file its bench task names
(graphlib.py, getopt.py) the way the model's reply was described: a new method reading an
attribute the class never sets, an extracted function nobody calls. Every bench task's
hand-made correct result must still pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_edit_refs import correct_results
from cli_helpers import make_repo
from spec_of import check_result, extracted_uncalled

from coder.bench.edits.run import Outcome, settle
from coder.bench.edits.tasks import TASKS, Task, source
from coder.edit.checks.code_rules import broken_calls, unset_self_reads
from coder.edit.proposal import EditRequest
from coder.edit.run import plan_run
from coder.edit.run.engine import EditEngine
from coder.edit.run.prompt import predicted_reply
from coder.testing.replies import ScriptedModel

GRAPHLIB = source("graphlib.py")
GETOPT = source("getopt.py")
BOOL = "    def __bool__(self):\n        return self.is_active()\n"
METHOD = "Add a method `node_count(self)` to the class `TopologicalSorter` that returns how many nodes it holds."
EXTRACT = ("Extract the code in `getopt` and `gnu_getopt` that turns `longopts` into a list into a new "
           "function `_longopts_list(longopts)` that returns the list, and call it from both.")
HELPER = ("def _longopts_list(longopts):\n    if isinstance(longopts, str):\n        return [longopts]\n"
          "    return list(longopts)\n\ndef getopt(args, shortopts, longopts = []):")
TO_LIST = "        longopts = [longopts]\n    else:\n        longopts = list(longopts)\n"
GETOPT_BODY = '    if type(longopts) == type(""):\n' + TO_LIST
GNU_BODY = "    if isinstance(longopts, str):\n" + TO_LIST
CALL = "    longopts = _longopts_list(longopts)\n"


def _add_method(body: str) -> str:
    assert BOOL in GRAPHLIB
    return GRAPHLIB.replace(BOOL, f"{BOOL}\n    def node_count(self):\n{body}", 1)


def test_a_new_method_reading_an_attribute_the_class_never_sets_is_refused() -> None:
    wrong = _add_method("        return len(self._nodes)\n")
    why = unset_self_reads(GRAPHLIB, wrong)
    assert why == ("TopologicalSorter.node_count reads self._nodes, which TopologicalSorter never sets "
                   "(calling it raises AttributeError); it sets self._nfinished, self._node2info, "
                   "self._npassedout, self._ready_nodes")  # what a retried request is told there is
    refused = check_result("graphlib.py", wrong, old=GRAPHLIB, instruction=METHOD)
    assert refused is not None and refused.code == "unset_attribute" and "\n" not in refused.reason


def test_a_new_method_reading_what_the_class_sets_or_has_is_accepted() -> None:
    for body in ("        return len(self._node2info)\n",  # set in __init__
                 "        return len(list(self.static_order()))\n",  # a method of the class
                 "        return self.__class__.__name__ and 0\n",  # every object has it
                 "        self._n = len(self._node2info)\n        return self._n\n"):  # set before it is read
        assert unset_self_reads(GRAPHLIB, _add_method(body)) is None, body


def test_a_changed_method_is_judged_on_the_reads_it_gains() -> None:
    old = "class A:\n    def f(self):\n        return self.x\n"  # relies on a subclass: left alone
    assert unset_self_reads(old, old.replace("return self.x", "return self.x + 1")) is None
    assert "reads self.y" in (unset_self_reads(old, old.replace("return self.x", "return self.y")) or "")


def test_unknown_inheritance_ends_the_attribute_check() -> None:
    method = "    def g(self):\n        return self.z\n"
    for head in ("class A(Base):\n", "class A(metaclass=Meta):\n", "class A:\n    __slots__ = ()\n"):
        old = f"{head}    def f(self):\n        return 1\n"
        assert unset_self_reads(old, old + method) is None, head
    local = "class Base:\n    def __init__(self):\n        self.z = 1\n\nclass A(Base):\n    pass\n"
    assert unset_self_reads(local, local + method) is None  # a base of this file that sets it
    assert "self.w" in (unset_self_reads(local, local + method.replace(".z", ".w")) or "")


def test_a_setattr_on_another_object_does_not_end_the_attribute_check() -> None:
    # run 19, CPU: modulefinder's ModuleFinder sets an attribute of a parent module with setattr(parent, ...); a new
    # method calling an invented self.find_missing was applied
    old = ("class Finder:\n    def __init__(self):\n        self.found = {}\n\n"
           "    def add(self, parent, name, mod):\n        setattr(parent, name, mod)\n")
    invented = old + "\n    def missing(self, name):\n        return self.find_missing(name)\n"
    assert "reads self.find_missing" in (unset_self_reads(old, invented) or "")
    assert unset_self_reads(old, invented.replace("self.find_missing(name)", "self.found.get(name)")) is None
    dynamic = old.replace("setattr(parent, name, mod)", "setattr(self, name, mod)")
    assert unset_self_reads(dynamic, dynamic + "\n    def missing(self, name):\n        return self.x\n") is None


def test_an_extracted_function_that_a_named_function_does_not_call_is_refused() -> None:
    only_gnu = GETOPT.replace(GNU_BODY, CALL, 1).replace("def getopt(args, shortopts, longopts = []):", HELPER, 1)
    assert extracted_uncalled(GETOPT, only_gnu, EXTRACT) == (
        "getopt does not call the new function _longopts_list "
        "(gnu_getopt calls it: `longopts = _longopts_list(longopts)`)")
    refused = check_result("getopt.py", only_gnu, old=GETOPT, instruction=EXTRACT)
    assert refused is not None and refused.code == "extract_uncalled"
    both = only_gnu.replace(GETOPT_BODY, CALL, 1)
    assert extracted_uncalled(GETOPT, both, EXTRACT) is None
    assert extracted_uncalled(GETOPT, GETOPT, EXTRACT) == "the new function _longopts_list is not defined"


def test_an_extracted_function_no_one_calls_is_refused_when_the_instruction_names_no_function() -> None:
    instruction = "Factor out the list conversion into a new helper `_longopts_list`."
    defined = GETOPT.replace("def getopt(args, shortopts, longopts = []):", HELPER, 1)
    assert extracted_uncalled(GETOPT, defined, instruction) == "the new function _longopts_list is never called"
    assert extracted_uncalled(GETOPT, defined.replace(GNU_BODY, CALL, 1), instruction) is None
    assert extracted_uncalled(GETOPT, defined, "Add a new function `_longopts_list`.") is None  # no extraction


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_every_bench_tasks_correct_result_passes_the_result_check(task: Task) -> None:
    for rel, new in correct_results(task).items():
        assert check_result(rel, new, old=source(rel), instruction=task.instruction) is None, rel


def test_the_engine_refuses_the_wrong_method_and_the_bench_keeps_its_reply(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"graphlib.py": GRAPHLIB})
    head = repo.head.commit.hexsha
    task = next(t for t in TASKS if t.name == "graphlib-method")
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / "graphlib.py", task.instruction, mode="full")
    reply = "```python\n" + _add_method("        return len(self._nodes)\n") + "```\n"
    proposal = engine.evaluate(request, reply, finish_reason="stop")
    assert not proposal.ok and proposal.refusal_code == "unset_attribute"
    out = Outcome(task.name, task.file, task.kind, "full", "skipped", "")
    settle(engine, proposal, task, out, guard=True)
    assert out.outcome == "refused" and out.reply == reply and repo.head.commit.hexsha == head
    assert (tmp_path / "r" / "graphlib.py").read_text() == GRAPHLIB


GLOB = source("glob.py")
LISTDIR = "def _listdir(dirname, dir_fd, dironly):"


def test_a_call_that_no_longer_fits_its_definition_is_refused() -> None:
    # a parameter added without a default, and the callers left as they were
    wrong = GLOB.replace(LISTDIR, "def _listdir(dirname, dir_fd, dironly, include_hidden):", 1)
    assert broken_calls(GLOB, wrong) == ("a call no longer fits its definition: _listdir is called without "
                                         "include_hidden (it raises TypeError)")
    refused = check_result("glob.py", wrong, old=GLOB, instruction="add a parameter include_hidden to _listdir")
    assert refused is not None and refused.code == "call_mismatch"
    defaulted = GLOB.replace(LISTDIR, "def _listdir(dirname, dir_fd, dironly, include_hidden=True):", 1)
    assert broken_calls(GLOB, defaulted) is None
    keyword = GLOB.replace("_listdir(dirname, dir_fd, dironly)\n", "_listdir(dirname, dir_fd, dironly, hidden=1)\n", 1)
    assert "has no parameter hidden" in (broken_calls(GLOB, keyword) or "")
    textwrap = source("textwrap.py")
    extra = textwrap.replace("        return self._split(text)", "        return self._split(text, True)", 1)
    assert "TextWrapper._split takes 1 positional argument(s) but the call gives 2" in (
        broken_calls(textwrap, extra) or "")


def test_the_graphlib_fix_type_error_binds_to_the_signature_so_no_call_rule_sees_it() -> None:
    # add(self, node, *predecessors) binds any count: a loop that unpacks the mapping itself, or a list
    # passed where its items were, fails only at run time, on the argument's type
    unpacked = GRAPHLIB.replace("for node, predecessors in graph.items():", "for node, predecessors in graph:", 1)
    listed = GRAPHLIB.replace("self.add(node, *predecessors)", "self.add(node, predecessors)", 1)
    assert unpacked != GRAPHLIB and listed != GRAPHLIB
    assert broken_calls(GRAPHLIB, unpacked) is None and broken_calls(GRAPHLIB, listed) is None


def test_an_add_method_plan_asks_again_when_the_new_method_reads_an_unset_attribute(tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {"graphlib.py": GRAPHLIB})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    prepared = plan_run.prepare(engine, engine.root / "graphlib.py", METHOD)
    assert isinstance(prepared, plan_run.PlanRequest) and prepared.plan.kind == "add_method"
    bodies = iter(["        return len(self._nodes)\n", "        return len(self._node2info)\n"])

    def add_count(request: EditRequest) -> str:  # the region, then the new method: first wrong, then right
        body = request.prompt.target + f"\n    def node_count(self):\n{next(bodies)}"
        return predicted_reply(type(request.prompt)(request.prompt.messages, request.prompt.fence,
                                                    request.prompt.lang, body))
    proposal = plan_run.run_plan(engine, prepared, ScriptedModel(engine, add_count))
    assert proposal.ok, proposal.refusal
    (retry,) = proposal.retries
    assert retry.retried is not None and "reads self._nodes" in retry.retried
    assert "len(self._node2info)" in proposal.files[0].new and "self._nodes" not in proposal.files[0].new
    bodies = iter(["        return len(self._nodes)\n"] * 2)
    refused = plan_run.run_plan(engine, prepared, ScriptedModel(engine, add_count))
    assert not refused.ok and "never sets" in (refused.refusal or "")


def test_an_add_method_plan_shows_the_model_the_attributes_its_class_sets(tmp_path: Path) -> None:
    # the region is only the class's last method; without this line the 1.5B guessed self.nodes
    make_repo(tmp_path / "r", {"graphlib.py": GRAPHLIB})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    prepared = plan_run.prepare(engine, engine.root / "graphlib.py", METHOD)
    assert isinstance(prepared, plan_run.PlanRequest)
    (step,) = prepared.plan.steps
    assert step.note is not None and step.note.endswith(
        "The attributes the methods of class TopologicalSorter set (with the values __init__ gives them): "
        "self._node2info = {}, self._ready_nodes = None, self._npassedout = 0, self._nfinished = 0.")
