"""A new def the instruction says returns something must return a value (coder.edit.checks.returns).

graphlib-method w2 on the H200 (run 11): the greedy reply was right, a reply sampled to check it returned None, and
the agreement check refused the right edit as "the model's answers disagree ... 0 ... None".
"""

from __future__ import annotations

import pytest

from coder.bench.edits.tasks import TASKS
from coder.edit.checks.result import check_result
from coder.edit.checks.returns import returns_nothing
from coder.edit.intent.read import read_instruction

TASK = next(t for t in TASKS if t.name == "graphlib-method")
OLD = TASK.originals()[TASK.file]
ANCHOR = "    __class_getitem__ = classmethod(GenericAlias)\n"


def _with(method: str) -> str:
    assert ANCHOR in OLD
    return OLD.replace(ANCHOR, ANCHOR + "\n" + method)


@pytest.mark.parametrize("wording", range(3))
def test_a_new_method_that_never_returns_a_value_is_refused(wording: int) -> None:
    spec = read_instruction(TASK.wordings[wording], {TASK.file: OLD}, home=TASK.file)
    assert spec.action == "add_method" and spec.facts.returns
    nothing = _with("    def node_count(self):\n        n = len(self._node2info)\n")
    said = ("TopologicalSorter.node_count never returns a value (every call of it gives None), but the instruction "
            "says what it returns")
    assert returns_nothing(OLD, nothing, spec) == said
    refused = check_result(TASK.file, nothing, old=OLD, spec=spec)
    assert refused is not None and (refused.code, refused.reason) == ("returns_nothing", said)
    right = _with('    def node_count(self):\n        """Returns the number of nodes in the graph."""\n'
                  "        return len(self._node2info)\n")  # the H200's greedy reply (run 11)
    assert returns_nothing(OLD, right, spec) is None and check_result(TASK.file, right, old=OLD, spec=spec) is None


def test_a_generator_a_stub_or_an_explicit_none_are_told_apart() -> None:
    spec = read_instruction(TASK.wordings[0], {TASK.file: OLD}, home=TASK.file)
    assert returns_nothing(OLD, _with("    def node_count(self):\n        yield from self._node2info\n"), spec) is None
    assert returns_nothing(OLD, _with("    def node_count(self):\n        raise NotImplementedError\n"), spec) is None
    assert returns_nothing(OLD, _with("    def node_count(self):\n        return None\n"), spec) is not None
    # a value returned by a nested def is not the method's own
    nested = "    def node_count(self):\n        def inner():\n            return 1\n        inner()\n"
    assert returns_nothing(OLD, _with(nested), spec) is not None


@pytest.mark.parametrize(("instruction", "returns"), [
    ("add a node_count(self) method to TopologicalSorter that returns how many nodes the graph has", True),
    ("TopologicalSorter needs node_count(self) -> int", True),
    ("add a node_count(self) method to TopologicalSorter that prints the count and returns nothing", False),
    ("add a node_count(self) -> None method to TopologicalSorter that logs the count", False),
    ("add a node_count(self) method to TopologicalSorter that logs the count", False),
])
def test_the_reading_says_when_a_new_def_returns_a_value(instruction: str, returns: bool) -> None:
    spec = read_instruction(instruction, {TASK.file: OLD}, home=TASK.file)
    assert spec.action == "add_method" and spec.facts.returns is returns
