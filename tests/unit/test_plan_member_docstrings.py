"""Docstrings for every method of a long class: one region per bare method (issue 34, graphlib-class-docstrings).

Recorded on the H200 (run 8, Qwen2.5-Coder-1.5B, auto mode): asked for the whole of TopologicalSorter (215
lines), two wordings' replies (the retries') documented ``__init__`` and ``_get_nodeinfo`` only (the third none),
left ``__bool__`` and ``_find_cycle`` bare, inverted ``prepare``'s test and dropped ``__class_getitem__``. The
graft takes only docstrings, but rightly none from a partial "every method": the result would be wrong ("no
docstring on __bool__, _find_cycle"). Today each bare method is its own region.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits.tasks import TASKS, source
from coder.edit.checks.graft import grafted
from coder.edit.checks.kinds import invariant_for
from coder.edit.intent.read import read_instruction
from coder.edit.plan.derive import derive
from coder.edit.plan.members import bare_methods, undocumented
from coder.edit.proposal import EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import PlanRequest, prepare, run_plan
from coder.testing.replies import ScriptedModel

TASK = next(t for t in TASKS if t.name == "graphlib-class-docstrings")
GRAPHLIB = source("graphlib.py")
RECORDED = json.loads((Path(__file__).parents[1] / "data" / "edit" / "h200_1203" /
                       "graphlib_class_docstrings_run8.json").read_text())
BARE = ["TopologicalSorter.__init__", "TopologicalSorter._get_nodeinfo", "TopologicalSorter.__bool__",
        "TopologicalSorter._find_cycle"]


def _code(reply: str) -> str:
    found = re.search(r"```python\n(.*?)```", reply, re.S)
    assert found is not None
    return found.group(1)


def _methods(reply: str) -> dict[str, str]:
    """Each method of the reply's class as the model wrote it (its text, indented as in the class)."""
    code = _code(reply)
    (cls,) = [n for n in ast.parse(code).body if isinstance(n, ast.ClassDef)]
    return {n.name: ast.get_source_segment(code, n, padded=True) or "" for n in cls.body
            if isinstance(n, ast.FunctionDef)}


@pytest.mark.parametrize(("wording", "left"), [(0, BARE[2:]), (1, BARE[2:]), (2, BARE)])
def test_the_recorded_reply_is_partial_so_the_graft_takes_nothing(wording: int, left: list[str]) -> None:
    assert RECORDED[str(wording)]["outcome"] == "refused"
    spec = read_instruction(TASK.wordings[wording], {"graphlib.py": GRAPHLIB}, home="graphlib.py")
    start, end = spec.targets[0].start, spec.targets[0].end
    whole = "".join(GRAPHLIB.splitlines(keepends=True)[start - 1:end])
    new = GRAPHLIB.replace(whole, _code(RECORDED[str(wording)]["reply"]))
    assert bare_methods(new, "TopologicalSorter") == left  # wording 2's retry documented none
    invariant = invariant_for(spec, "graphlib.py")
    assert invariant is not None and grafted(GRAPHLIB, new, invariant, (start, end), every=True) is None


@pytest.mark.parametrize("wording", range(3))
def test_every_wording_plans_one_region_per_bare_method(wording: int) -> None:
    spec = read_instruction(TASK.wordings[wording], {"graphlib.py": GRAPHLIB}, home="graphlib.py")
    plan = derive("graphlib.py", GRAPHLIB, spec)
    assert plan is not None and plan.kind == "docstrings"
    assert plan.read == "docstrings class TopologicalSorter (4 region(s) to the model)"
    assert [s.symbol for s in plan.steps] == BARE and all(s.how == "model" for s in plan.steps)
    assert plan.steps[2].note == ("This region is function TopologicalSorter.__bool__, one of the methods of class "
                                  "TopologicalSorter without a docstring: give it one, and copy every line of its "
                                  "code exactly.")


def test_a_short_class_is_still_asked_whole() -> None:
    netrc = source("netrc.py")  # _netrclex, 42 lines: right whole in all three wordings of run 8
    spec = read_instruction("add a docstring to every method of _netrclex", {"netrc.py": netrc}, home="netrc.py")
    assert derive("netrc.py", netrc, spec) is None


def test_the_recorded_methods_land_and_a_method_left_bare_is_asked_again_then_refused(tmp_path: Path) -> None:
    """The run's own method texts as the regions' replies: the two documented ones are taken; ``__bool__``, which
    the reply left bare, is flagged, asked once more and refused, where the whole-class reply was partial."""
    methods = _methods(RECORDED["0"]["reply"])
    make_repo(tmp_path / "r", {"graphlib.py": GRAPHLIB})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    prepared = prepare(engine, tmp_path / "r" / "graphlib.py", TASK.wordings[0])
    assert isinstance(prepared, PlanRequest)

    def reply(request: EditRequest) -> str:
        assert request.region is not None
        return "```python\n" + methods[request.region.label.rsplit(".", 1)[-1]] + "\n```"

    model = ScriptedModel(engine, reply)
    proposal = run_plan(engine, prepared, model)
    assert not proposal.ok
    assert "TopologicalSorter.__bool__ still has no docstring; retried once after" in str(proposal.refusal)
    asked = [r.region.label for r in model.asked if r.region]
    assert asked[:2] == ["function TopologicalSorter.__init__", "function TopologicalSorter._get_nodeinfo"]
    assert asked.count("function TopologicalSorter.__bool__") == 2
    assert "The instruction asks for docstrings: add them." in model.asked[asked.index(
        "function TopologicalSorter.__bool__") + 1].messages[-1]["content"]


def test_undocumented_names_the_method_only_while_it_is_bare() -> None:
    assert undocumented(GRAPHLIB, "TopologicalSorter.__bool__") == "TopologicalSorter.__bool__ still has no docstring"
    documented = GRAPHLIB.replace("    def __bool__(self):\n", "    def __bool__(self):\n        \"\"\"Active?\"\"\"\n")
    assert undocumented(documented, "TopologicalSorter.__bool__") is None
