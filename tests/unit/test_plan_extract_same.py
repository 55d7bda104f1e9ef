"""Extracting the lines several functions share word for word, mechanically (coder.edit.plan.extract_same).

colorsys-extract was refused in every wording on the H200 (issue 34); its shared span is the same text in both
functions, so the plan writes the new function and both calls itself: no region is asked of the model.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits.run import proposed
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.intent.read import read_instruction
from coder.edit.intent.words import signatures
from coder.edit.plan.derive import derive
from coder.edit.proposal import EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import PlanRequest
from coder.edit.run.plan_run import prepare, run_plan


def _task(name: str) -> Task:
    return next(t for t in (*TASKS, *HELDOUT) if t.name == name)


def _never(request: EditRequest) -> object:
    raise AssertionError(f"a region was asked of the model: lines {request.region}")


def _prepared(tmp_path: Path, task: Task, wording: int) -> tuple[EditEngine, PlanRequest | EditRequest | None]:
    root = tmp_path / f"w{wording}"
    make_repo(root, task.originals())
    engine = EditEngine(None, root)
    return engine, prepare(engine, root / task.file, task.wordings[wording])


@pytest.mark.parametrize("wording", [0, 1, 2])
def test_colorsys_extract_is_done_mechanically_and_judged_right(tmp_path: Path, wording: int) -> None:
    task = _task("colorsys-extract")
    engine, prepared = _prepared(tmp_path, task, wording)
    assert isinstance(prepared, PlanRequest) and prepared.plan.kind == "extract"
    assert prepared.plan.requests == 0 and not prepared.requests
    # the same plan, however worded (the bench's "same plan" key)
    assert prepared.plan.read == "extract function rgb_to_hls, function rgb_to_hsv into _hue (done mechanically)"
    proposal = run_plan(engine, prepared, _never)  # type: ignore[arg-type]  # it must never be called
    assert proposal.ok and proposal.scope.ok, proposal.refusal or proposal.scope.refusal()
    originals = task.originals()
    new = {**originals, **proposed(proposal, tmp_path / f"w{wording}")}
    assert task.judge(originals, new)[0], task.judge(originals, new)
    text = new[task.file]
    assert "def _hue(r, g, b, maxc, rangec):\n    rc = (maxc-r) / rangec\n" in text
    assert text.count("    h = _hue(r, g, b, maxc, rangec)\n") == 2
    assert "        h = (h/6.0) % 1.0\n        return h\n\ndef rgb_to_hls" not in text
    assert "    h = (h/6.0) % 1.0\n    return h\n\ndef rgb_to_hls(r, g, b):" in text


@pytest.mark.parametrize(("name", "wording"), [("getopt-extract", 0), ("getopt-extract", 1), ("getopt-extract", 2),
                                               ("copy-extract", 0), ("copy-extract", 1)])
def test_extractions_whose_lines_differ_still_go_to_the_model(tmp_path: Path, name: str, wording: int) -> None:
    # getopt tests isinstance(longopts, str) in one function and type(longopts) == type("") in the other;
    # copy-extract names one function: neither has lines to lift word for word
    _, prepared = _prepared(tmp_path, _task(name), wording)
    assert not (isinstance(prepared, PlanRequest) and prepared.plan.kind == "extract")


def test_signatures_are_read_as_spelled() -> None:
    assert signatures("into a new function `_hue(r, g, b, maxc, rangec)` that returns h") == (
        ("_hue", ("r", "g", "b", "maxc", "rangec")),)
    assert signatures("f(1) returns 2; h() is empty; g(x: int = 1)") == (
        ("f", ("1",)), ("h", ()), ("g", ("x: int = 1",)))


_TWO = """\
import os


def left(x, y):
    base = os.sep
    t = x + y
    u = t * 2
    v = u - base.count(x)
    return v, base


def right(x, y):
    t = x + y
    u = t * 2
    v = u - base.count(x)
    print(v)
"""


_ASK = "Extract the code left and right share into a new function `{}`, and call it from both"


def _plan(text: str, instruction: str) -> str | None:
    spec = read_instruction(instruction, {"m.py": text}, home="m.py")
    plan = derive("m.py", text, spec)
    if plan is None or plan.kind != "extract":
        return None
    from coder.edit.source.splice import Replacement, splice

    return splice(text, [Replacement(s.start, s.end, s.text or "") for s in plan.steps])


def test_inputs_are_the_locals_read_first_in_first_use_order_and_two_blank_lines_are_kept() -> None:
    text = _TWO.replace("    print(v)\n", "    base = ''\n    print(v)\n")  # right's base is set after: still a local
    out = _plan(text, _ASK.format("_f"))
    assert out is not None
    assert "\n\n\ndef _f(x, y, base):\n    t = x + y\n    u = t * 2\n    v = u - base.count(x)\n    return v\n\n\n" \
           "def left(x, y):" in out
    assert out.count("    v = _f(x, y, base)\n") == 2
    compile(out, "m.py", "exec")


def test_a_spelled_signature_orders_the_parameters_and_must_name_the_inputs() -> None:
    text = _TWO.replace("    print(v)\n", "    base = ''\n    print(v)\n")
    out = _plan(text, _ASK.format("_f(base, y, x)"))
    assert out is not None and "def _f(base, y, x):" in out and "v = _f(base, y, x)" in out
    assert _plan(text, _ASK.format("_f(x, y)")) is None  # base is read too
    assert _plan(text, _ASK.format("_f(base, y, x: int)")) is None  # an annotation coder would drop: the model's


def test_a_global_read_is_no_parameter() -> None:
    # in right, base is the module's (not bound there): a local in left but a global in right is no one signature
    text = _TWO.replace("import os\n", "import os\nbase = '/'\n")
    assert _plan(text, _ASK.format("_f")) is None


@pytest.mark.parametrize("change", [
    ("    v = u - base.count(x)\n", "    v = u - base.count(x)\n    w = v\n"),  # ... and w, read by nobody: fine
    ("    return v, base\n", "    return v, u, base\n"),  # two outputs: v and u
    ("    t = x + y\n", "    t = x + y\n    if t:\n        return t\n"),  # a return inside
    ("def left(x, y):\n", "def left(x, y):\n    global u\n"),  # left's u is the module's: a new def's would be local
])
def test_what_a_mechanical_extraction_refuses(change: tuple[str, str]) -> None:
    text = _TWO.replace("    print(v)\n", "    base = ''\n    print(v)\n").replace(*change)
    out = _plan(text, _ASK.format("_f"))
    assert (out is not None) == (change[1].endswith("w = v\n"))


def test_a_name_the_span_sets_that_the_function_binds_elsewhere_is_refused() -> None:
    # u is set before the span in right too: where the span is a conditional set, the old u would be lost
    text = _TWO.replace("    print(v)\n", "    base = ''\n    print(v)\n").replace(
        "def right(x, y):\n", "def right(x, y):\n    u = 0\n")
    assert _plan(text, _ASK.format("_f")) is None
