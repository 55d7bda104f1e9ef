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
from coder.bench.edits.tasks_fresh9 import FRESH9
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.intent.extraction import signatures
from coder.edit.intent.read import read_instruction
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


@pytest.mark.parametrize("wording", [0, 1, 2])
def test_getopt_extract_takes_getopts_lines_says_the_condition_gnu_getopt_loses_and_is_judged_right(
        tmp_path: Path, wording: int) -> None:
    # refused in every wording on the H200 (run 9): getopt tests type(longopts) == type(""), gnu_getopt
    # isinstance(longopts, str), so no run is the same text; the lines are alike but for that condition
    task = _task("getopt-extract")
    engine, prepared = _prepared(tmp_path, task, wording)
    assert isinstance(prepared, PlanRequest) and prepared.plan.kind == "extract" and not prepared.requests
    plan = prepared.plan
    assert plan.read == "extract function getopt, function gnu_getopt into _longopts_list (done mechanically)"
    assert plan.reason.startswith("extract: _longopts_list(longopts) from getopt, then call it from gnu_getopt ")
    assert plan.notes == ("gnu_getopt tested `isinstance(longopts, str)` where getopt tests "
                          "`type(longopts) == type(\"\")`: gnu_getopt now runs getopt's test (the same only if the "
                          "two conditions agree on every value)",)
    assert plan.to_json()["notes"] == list(plan.notes)
    proposal = run_plan(engine, prepared, _never)  # type: ignore[arg-type]  # it must never be called
    assert proposal.ok and proposal.scope.ok, proposal.refusal or proposal.scope.refusal()
    assert f"plan: note: {plan.notes[0]}" in proposal.review_lines()
    originals = task.originals()
    new = {**originals, **proposed(proposal, tmp_path / f"w{wording}")}
    assert task.judge(originals, new)[0], task.judge(originals, new)
    text = new[task.file]
    assert ("def _longopts_list(longopts):\n    if type(longopts) == type(\"\"):\n        longopts = [longopts]\n"
            "    else:\n        longopts = list(longopts)\n    return longopts\n\ndef getopt(") in text
    assert text.count("    longopts = _longopts_list(longopts)\n") == 2 and "isinstance(longopts, str)" not in text


@pytest.mark.parametrize("wording", [0, 1])
def test_an_extraction_from_one_function_still_goes_to_the_model(tmp_path: Path, wording: int) -> None:
    # copy-extract names one function: no lines to lift from several
    _, prepared = _prepared(tmp_path, _task("copy-extract"), wording)
    assert not (isinstance(prepared, PlanRequest) and prepared.plan.kind == "extract")


_ALIKE = """\
def left(items, n):
    total = 0
    if isinstance(items, str):
        items = [items]
    else:
        items = list(items)
    return total, items[:n]


def right(items, n):
    if type(items) == type(""):
        items = [items]
    else:
        items = list(items)
    return items[n:]
"""
_ASK_ALIKE = "Extract the code in `left` and `right` that turns items into a list into a new function `_f(items)`"


def _alike_plan(text: str) -> tuple[str, tuple[str, ...]] | None:
    spec = read_instruction(_ASK_ALIKE, {"m.py": text}, home="m.py")
    plan = derive("m.py", text, spec)
    if plan is None or plan.kind != "extract":
        return None
    from coder.edit.source.splice import Replacement, splice

    return splice(text, [Replacement(s.start, s.end, s.text or "") for s in plan.steps]), plan.notes


def test_alike_lines_take_the_first_named_functions_and_say_each_condition_changed() -> None:
    found = _alike_plan(_ALIKE)
    assert found is not None
    out, notes = found
    assert out.startswith("def _f(items):\n    if isinstance(items, str):\n")
    assert out.count("    items = _f(items)\n") == 2 and 'type("")' not in out
    assert notes == ("right tested `type(items) == type(\"\")` where left tests `isinstance(items, str)`: right now "
                     "runs left's test (the same only if the two conditions agree on every value)",)
    same = _alike_plan(_ALIKE.replace('type(items) == type("")', "isinstance(items, str)"))
    assert same is not None and same[1] == ()  # one if statement the same text: no condition changes, no note


@pytest.mark.parametrize("change", [
    # another statement
    ("        items = list(items)\n    return items[n:]", "        items = tuple(items)\n    return items[n:]"),
    # a comment only right has
    ("        items = [items]\n    else:\n        items = list(items)\n    return items[n:]",
     "        items = [items]\n    else:\n        # copied\n        items = list(items)\n    return items[n:]"),
    ('type(items) == type("")', 'type(items) == type("") and n'),  # the condition reads another local
    ("    return items[n:]", "    if type(items) == type(()):\n        items = [items]\n    else:\n"
                            "        items = list(items)\n    return items[n:]"),  # twice in right: which one is meant?
])
def test_lines_alike_otherwise_than_in_their_conditions_are_no_mechanical_extraction(change: tuple[str, str]) -> None:
    text = _ALIKE.replace(*change)
    assert text != _ALIKE
    assert _alike_plan(text) is None


def test_more_conditions_changed_than_allowed_is_another_computation() -> None:
    chain = ("    if {a}:\n        items = [items]\n    elif {b}:\n        items = []\n    elif {c}:\n"
             "        items = [1]\n    else:\n        items = list(items)\n")
    left = chain.format(a="items == 1", b="items == 2", c="items == 3")
    right = chain.format(a="items == 1", b="items == 5", c="items == 6")
    text = f"def left(items, n):\n{left}    return items\n\n\ndef right(items, n):\n{right}    return items[n:]\n"
    assert _alike_plan(text) is not None  # two conditions differ: said
    assert _alike_plan(text.replace("items == 1:\n        items = [items]\n    elif items == 5",
                                    "items == 4:\n        items = [items]\n    elif items == 5")) is None  # three


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
    ("    t = x + y\n", "    t = x + y\n    if t:\n        return t\n"),  # a return inside
    ("def left(x, y):\n", "def left(x, y):\n    global u\n"),  # left's u is the module's: a new def's would be local
])
def test_what_a_mechanical_extraction_refuses(change: tuple[str, str]) -> None:
    text = _TWO.replace("    print(v)\n", "    base = ''\n    print(v)\n").replace(*change)
    out = _plan(text, _ASK.format("_f"))
    assert (out is not None) == (change[1].endswith("w = v\n"))


def test_two_outputs_are_returned_in_the_order_set_or_as_the_instruction_spells_the_tuple() -> None:
    text = _TWO.replace("    print(v)\n", "    base = ''\n    print(v)\n").replace("return v, base",
                                                                          "return v, u, base")
    out = _plan(text, _ASK.format("_f"))
    assert out is not None and "    return u, v\n" in out and out.count("    u, v = _f(x, y, base)\n") == 2
    out = _plan(text, _ASK.format("_f(x, y, base) -> (v, u)"))
    assert out is not None and "    return v, u\n" in out and out.count("    v, u = _f(x, y, base)\n") == 2
    compile(out, "m.py", "exec")
    assert _plan(text, _ASK.format("_f(x, y, base) -> (v, t)")) is None  # t is read by nobody after: not asked back


_N = "    n = len(x)\n"


@pytest.mark.parametrize(("left", "right", "planned"), [
    (_N, _N, True),  # each sets n once, the same way, from a parameter spelled
    (_N, "    n = len(y)\n", False),  # two ways
    ("    n = next(x)\n", "    n = next(x)\n", False),  # a call that changes something
    (_N + "    n = n + 1\n", _N, False),  # left sets n twice
    (_N + "    x = 0\n", _N, False),  # the parameter read is rebound
])
def test_a_local_the_spelled_signature_leaves_out_is_recomputed_only_when_each_sets_it_the_same_pure_way(
        left: str, right: str, planned: bool) -> None:
    # a line apart after n's (as covariance's and correlation's error messages): n's is not in the shared run
    text = (f"def left(x, y):\n{left}    print('l')\n    t = x + n\n    u = t * y\n    v = u - n\n    return v, n\n\n\n"
            f"def right(x, y):\n{right}    print('r')\n    t = x + n\n    u = t * y\n    v = u - n\n    print(v)\n")
    out = _plan(text, _ASK.format("_f(x, y)"))
    assert (out is not None) == planned
    if out is not None:
        assert "def _f(x, y):\n    n = len(x)\n    t = x + n\n" in out and out.count("    v = _f(x, y)\n") == 2
        assert out.count("    n = len(x)\n") == 3  # the callers keep theirs: left returns n
        compile(out, "m.py", "exec")


def test_statistics_cross_sum_three_outputs_and_n_recomputed_is_judged_right(tmp_path: Path) -> None:
    # the ninth fresh set's statistics-extract, its terse wording (refused on the H100 in run 23: the model's
    # rewrite did not parse): the three lines both share go to _cross_sum, n = len(x) first, no model request
    task = next(t for t in FRESH9 if t.name == "statistics-extract")
    engine, prepared = _prepared(tmp_path, task, 1)
    assert isinstance(prepared, PlanRequest) and prepared.plan.kind == "extract" and prepared.plan.requests == 0
    proposal = run_plan(engine, prepared, _never)  # type: ignore[arg-type]  # it must never be called
    assert proposal.ok and proposal.scope.ok, proposal.refusal or proposal.scope.refusal()
    originals = task.originals()
    new = {**originals, **proposed(proposal, tmp_path / "w1")}
    assert task.judge(originals, new)[0], task.judge(originals, new)
    assert ("def _cross_sum(x, y):\n    n = len(x)\n    xbar = fsum(x) / n\n    ybar = fsum(y) / n\n"
            "    sxy = fsum((xi - xbar) * (yi - ybar) for xi, yi in zip(x, y))\n    return xbar, ybar, sxy\n\n\n"
            "def covariance(x, y, /):\n") in new[task.file]
    assert new[task.file].count("    xbar, ybar, sxy = _cross_sum(x, y)\n") == 2


def test_a_name_the_span_sets_that_the_function_binds_elsewhere_is_refused() -> None:
    # u is set before the span in right too: where the span is a conditional set, the old u would be lost
    text = _TWO.replace("    print(v)\n", "    base = ''\n    print(v)\n").replace(
        "def right(x, y):\n", "def right(x, y):\n    u = 0\n")
    assert _plan(text, _ASK.format("_f")) is None


def test_a_run_the_same_text_that_the_word_for_word_rule_turned_down_stays_turned_down() -> None:
    # two runs of 3 statements, 44 characters each, in both: which is meant needs judgement (a tie); counted with
    # the statement nested in its if, the second is longer, but a run the same text is not the alike rule's
    a = "    a = x + 123\n    b = a * 2\n    c = b - 3\n"
    b = "    d = y\n    if d:\n        e = d\n    f = e\n"
    text = (f"def left(x, y):\n{a}    print(c)\n{b}    return c, f\n\n\n"
            f"def right(x, y):\n{a}    print(x)\n{b}    return f, c\n")
    assert _plan(text, _ASK.format("_f")) is None
