"""The mutable-default idiom, done without the model (issue 34, getopt-default).

On the H200 (run 8, Qwen2.5-Coder-1.5B) all three wordings of getopt-default were refused
(``none_default``): the reply changed ``longopts = []`` to ``None`` and never handled None, and the
retry that did lost gnu_getopt's ``return``. The change has one right answer per def, so the plan makes
it itself: the default becomes None and ``if longopts is None: longopts = []`` opens the body.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits.tasks import TASKS, source
from coder.edit.intent.mutable_default import none_default
from coder.edit.intent.read import read_instruction
from coder.edit.plan.derive import derive
from coder.edit.plan.none_default import with_none_default
from coder.edit.proposal import EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import PlanRequest, prepare, run_plan
from coder.testing.replies import ScriptedModel

TASK = next(t for t in TASKS if t.name == "getopt-default")
GETOPT = source("getopt.py")
READ = "change function getopt, function gnu_getopt (default of longopts to None) (done mechanically)"


@pytest.mark.parametrize("wording", range(3))
def test_every_wording_is_read_as_the_idiom_and_planned_alike(wording: int) -> None:
    spec = read_instruction(TASK.wordings[wording], {"getopt.py": GETOPT}, home="getopt.py")
    assert (spec.action, spec.facts.none_default) == ("change", "longopts")
    assert [s.qualname for s in spec.targets] == ["getopt", "gnu_getopt"]
    plan = derive("getopt.py", GETOPT, spec)
    assert plan is not None and plan.kind == "default" and plan.requests == 0
    assert plan.read == READ  # the bench's "same plan" key
    assert [(s.label, s.how) for s in plan.steps] == [("function getopt", "mechanical"),
                                                      ("function gnu_getopt", "mechanical")]


def test_the_mechanical_text_of_each_def() -> None:
    plan = derive("getopt.py", GETOPT, read_instruction(TASK.wordings[0], {"getopt.py": GETOPT}, home="getopt.py"))
    assert plan is not None
    first, second = (s.text or "" for s in plan.steps)
    assert first.startswith("def getopt(args, shortopts, longopts = None):\n")
    assert '    multiple occurrences.  Long and short options may be mixed.\n\n    """\n' \
           "    if longopts is None:\n        longopts = []\n\n    opts = []\n    if type(longopts)" in first
    assert second.startswith("def gnu_getopt(args, shortopts, longopts = None):\n")
    assert 'argument is encountered.\n\n    """\n    if longopts is None:\n        longopts = []\n\n    opts = []\n' \
           "    prog_args = []\n" in second
    assert first.endswith("    return opts, args\n") and second.endswith("    return opts, prog_args\n")


@pytest.mark.parametrize("wording", range(3))
def test_the_plan_asks_no_model_and_the_task_judges_it_correct(tmp_path: Path, wording: int) -> None:
    make_repo(tmp_path / "r", {"getopt.py": GETOPT})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    prepared = prepare(engine, tmp_path / "r" / "getopt.py", TASK.wordings[wording])
    assert isinstance(prepared, PlanRequest) and not prepared.requests

    def never(request: EditRequest) -> str:
        raise AssertionError(f"the model was asked for {request.region}")

    proposal = run_plan(engine, prepared, ScriptedModel(engine, never))
    assert proposal.ok and proposal.scope.ok, proposal.refusal
    (only,) = proposal.files
    assert TASK.judge({"getopt.py": GETOPT}, {"getopt.py": only.new}) == (True, "6 behaviour case(s) right, "
                                                                           "the rest unchanged")


SMALL = {"m.py": "def f(a, b={}, *, c=list()):\n    x = 1\n    return a, b, c, x\n\n\ndef g(k=[]): return k\n"}


@pytest.mark.parametrize(("instruction", "param"), [
    ("make b default to None in f", "b"),
    ("default c to None in f, None meaning an empty list", "c"),
    ("In f, change the default value of b to None and handle None", "b"),
    # what else is asked, or what None means otherwise, is the model's
    ("change the default of b in f to None and log a warning when it is None", None),
    ("change the default of b in f to None, None meaning every key", None),
    ("f should take b=None and c=None", None),
])
def test_the_reading_takes_the_idiom_alone(instruction: str, param: str | None) -> None:
    assert none_default(instruction, lambda w: w in ("f", "g")) == param


def test_no_docstring_a_keyword_only_default_and_what_is_not_mechanical() -> None:
    text = SMALL["m.py"]
    assert with_none_default(text, 1, 3, "b") == \
        "def f(a, b=None, *, c=list()):\n    if b is None:\n        b = {}\n    x = 1\n    return a, b, c, x\n"
    assert with_none_default(text, 1, 3, "c") == \
        "def f(a, b={}, *, c=None):\n    if c is None:\n        c = list()\n    x = 1\n    return a, b, c, x\n"
    assert with_none_default(text, 6, 6, "k") is None  # the body is on the def line
    assert with_none_default(text, 1, 3, "a") is None  # no default
    assert with_none_default("def f(x=[1]):\n    return x\n", 1, 2, "x") is None  # not an empty one
    spec = read_instruction("make k default to None in g", SMALL, home="m.py")
    assert spec.facts.none_default == "k" and derive("m.py", SMALL["m.py"], spec) is None
