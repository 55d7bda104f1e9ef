"""An extraction's new function written but left uncalled: coder writes the call where the same code was.

The replies are Qwen2.5-Coder-1.5B's on the H200, run 7 of 2026-12-03 (auto mode), every extract row, all
refused there: ``tests/data/edit/h200_1203/run7_extract.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import make_repo
from spec_of import spec_of

from coder.bench.edits.run import _prepare
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.extract_splice import extraction_spliced
from coder.edit.proposal import EditRequest
from coder.edit.run.engine import EditEngine

DATA = Path(__file__).parents[1] / "data" / "edit" / "h200_1203" / "run7_extract.json"
RUN7 = {(r["task"], r["wording"]): r for r in json.loads(DATA.read_text())["rows"]}
TASK = {t.name: t for t in (*TASKS, *HELDOUT)}


def _request(engine: EditEngine, task: Task, path: Path, instruction: str) -> EditRequest:
    """The model's region request for the row, as run 7 sent it.

    colorsys-extract and getopt-extract are now mechanical plans (their shared lines are the same text, or alike but
    for a condition: test_plan_extract_same.py); their recorded replies still test the checks an extraction gets on
    the model's path.
    """
    request = _prepare(engine, task, "auto", path, instruction)
    return request if isinstance(request, EditRequest) else engine.prepare(path, instruction, mode="auto")


def _evaluated(tmp_path: Path, name: str, wording: int) -> tuple[bool, bool, str, str]:
    """(accepted, the task's judge passes, the new text, why) of run 7's reply, as coder edit evaluates it now."""
    task, row = TASK[name], RUN7[(name, wording)]
    root = tmp_path / "r"
    make_repo(root, {task.file: source(task.file)})
    engine = EditEngine(None, root, ctx=32768)
    request = _request(engine, task, root / task.file, row["instruction"])
    proposal = engine.evaluate(request, row["reply"], finish_reason="stop")
    accepted = proposal.ok and proposal.changed and (proposal.scope is None or proposal.scope.ok)
    judged, why = task.check(source(task.file), proposal.new) if accepted else (False, proposal.refusal or "")
    return accepted, judged, proposal.new, why


def test_run7s_helper_written_beside_its_caller_is_called_there(tmp_path: Path) -> None:
    accepted, judged, new, why = _evaluated(tmp_path, "copy-extract", 0)
    assert accepted and judged, why
    assert "            state = deepcopy(state, memo)\n        _apply_state(y, state)\n\n    if listiter" in new
    assert new.count("y.__setstate__(state)") == 1  # in _apply_state only


GETOPT_CALLS = "(getopt calls it: `longopts = _longopts_list(longopts)`)"  # what the retry's note then quotes


@pytest.mark.parametrize(("name", "wording", "why"), [
    # getopt's lines are the helper's body and get the call; gnu_getopt's test isinstance(), not type(): kept
    ("getopt-extract", 0, f"gnu_getopt does not call the new function _longopts_list {GETOPT_CALLS}"),
    ("getopt-extract", 2, f"gnu_getopt does not call the new function _longopts_list {GETOPT_CALLS}"),
    # the helper returns list(longopts) alone: no caller holds that code
    ("getopt-extract", 1, "getopt does not call the new function _longopts_list"),
    ("colorsys-extract", 0, "the edit removes rgb_to_hsv, which should call the new function _hue"),
    # the lines setting rc, gc and bc left in the callers, or the helper never written: asked once more
    ("colorsys-extract", 1, "the new function _hue reads bc, gc, rc, which it never sets"),
    ("colorsys-extract", 2, "the new function _hue reads bc, gc, rc, which it never sets"),
    ("copy-extract", 1, "the new function _apply_state is not defined"),
])
def test_run7s_other_extractions_stay_refused(tmp_path: Path, name: str, wording: int, why: str) -> None:
    accepted, _, _, got = _evaluated(tmp_path, name, wording)
    assert not accepted and got == why


def test_an_extraction_half_done_is_refused_as_one_a_retry_can_mend(tmp_path: Path) -> None:
    task, row = TASK["colorsys-extract"], RUN7[("colorsys-extract", 1)]
    root = tmp_path / "r"
    make_repo(root, {task.file: source(task.file)})
    engine = EditEngine(None, root, ctx=32768)
    request = _request(engine, task, root / task.file, row["instruction"])
    proposal = engine.evaluate(request, row["reply"], finish_reason="stop")
    retry = engine.retry_request(proposal)
    assert proposal.refusal_code == "extract_uncalled" and retry is not None
    assert retry.retry_note == ("(A first reply was refused: the new function _hue reads bc, gc, rc, which it never "
                                "sets.) Put the extracted lines into the new function and call it from rgb_to_hls, "
                                "rgb_to_hsv in their place.")


def test_the_caller_whose_lines_are_the_body_gets_the_call_with_the_returned_name() -> None:
    row = RUN7[("getopt-extract", 0)]
    old = source("getopt.py")
    reply = row["reply"].split("```python\n", 1)[1].rsplit("```", 1)[0]
    new = old.replace(old[old.index("def getopt("):old.index("def do_longs(")], reply.split("def _longopts_list", 1)[1]
                      .join(("def _longopts_list", "")) + "\n")
    spliced = extraction_spliced(old, new, spec_of(row["instruction"], "getopt.py", old))
    assert "    opts = []\n    longopts = _longopts_list(longopts)\n    while args" in spliced
    assert "    if isinstance(longopts, str):\n        longopts = [longopts]" in spliced  # gnu_getopt: not the same


INSTRUCTION = "extract the scaling in f into a new function _scale(v) that returns w, and call it from f"


def _spliced(old: str, new: str) -> str:
    return extraction_spliced(old, new, spec_of(INSTRUCTION, "m.py", old))


HELPER = "def _scale(v):\n    w = v * 2\n    w += 1\n    return w\n\n"


def test_parameters_are_read_as_the_callers_names() -> None:
    old = "def f(n):\n    w = n * 2\n    w += 1\n    return w - 3\n"
    assert _spliced(old, HELPER + old) == HELPER + "def f(n):\n    w = _scale(n)\n    return w - 3\n"


@pytest.mark.parametrize("body", [
    "    w = n * 3\n    w += 1\n    return w\n",  # other code
    "    for i in range(3):\n        w = n * 2\n        w += 1\n        print(w)\n",  # in a loop
    "    try:\n        w = n * 2\n        w += 1\n    except ValueError:\n        pass\n    return w\n",  # in a try
    "    w = n * 2; w += 1; print(n)\n    return w\n",  # another statement on its line
])
def test_what_is_not_exactly_the_body_where_a_call_may_stand_is_left(body: str) -> None:
    old = "def f(n):\n" + body
    assert _spliced(old, HELPER + old) == HELPER + old


def test_the_returned_name_may_be_read_after_the_run_and_a_loop_after_it_sets_its_own() -> None:
    old = "def f(n):\n    if n:\n        w = n * 2\n        w += 1\n        for w in range(w):\n            print(w)\n"
    assert _spliced(old, HELPER + old) == HELPER + old.replace("w = n * 2\n        w += 1", "w = _scale(n)")


def test_a_name_the_run_sets_and_the_caller_reads_later_keeps_the_lines() -> None:
    helper = "def _scale(v):\n    u = v * 2\n    w = u + 1\n    return w\n\n"
    old = "def f(n):\n    u = n * 2\n    w = u + 1\n    return w + u\n"  # u is read after the run
    assert _spliced(old, helper + old) == helper + old
    without = "def f(n):\n    u = n * 2\n    w = u + 1\n    return w\n"
    assert _spliced(without, helper + without) == helper + "def f(n):\n    w = _scale(n)\n    return w\n"


def test_a_helper_that_returns_nothing_replaces_only_lines_whose_names_die_there() -> None:
    helper = "def _scale(v):\n    w = v * 2\n    print(w)\n\n"
    dead = "def f(n):\n    w = n * 2\n    print(w)\n    return n\n"
    assert _spliced(dead, helper + dead) == helper + "def f(n):\n    _scale(n)\n    return n\n"
    live = "def f(n):\n    w = n * 2\n    print(w)\n    return w\n"
    assert _spliced(live, helper + live) == helper + live


def test_a_global_of_the_helper_that_is_a_local_of_the_caller_keeps_the_lines() -> None:
    helper = "def _scale(v):\n    w = v * k\n    return w\n\n"
    old = "def f(n, k):\n    w = n * k\n    return w\n"  # k: the caller's parameter, the helper's global
    assert _spliced(old, helper + old) == helper + old
    two = "def _scale(v, x):\n    w = v * x\n    return w\n\n"
    same = "def f(n):\n    w = n * n\n    return w\n"  # two parameters read as one name
    assert _spliced(same, two + same) == two + same


def test_nothing_changes_without_an_extraction_or_with_a_function_that_was_there() -> None:
    old = "def f(n):\n    w = n * 2\n    w += 1\n    return w\n"
    new = HELPER + old
    assert extraction_spliced(old, new, spec_of("add a function _scale(v) that doubles v", "m.py", old)) == new
    assert _spliced(new, new) == new  # _scale was there: not a new function


@pytest.mark.parametrize("old", [
    "def f(n):\n    g = lambda: w\n    w = n * 2\n    w += 1\n    print(g())\n",  # a closure reads w later
    "def f(n):\n    global w\n    w = n * 2\n    w += 1\n    return w\n",  # w is the module's in f, F's own in F
    "def f(n):\n    w = n * 2\n    w += 1\n    return locals()\n",  # names reached otherwise than by name
    "def f(n, _scale):\n    w = n * 2\n    w += 1\n    return w\n",  # the new name is a local of the caller
])
def test_a_caller_whose_names_are_reached_otherwise_keeps_the_lines(old: str) -> None:
    helper = HELPER if "lambda" not in old else "def _scale(v):\n    w = v * 2\n    w += 1\n\n"
    assert _spliced(old, helper + old) == helper + old


def test_an_extraction_that_leaves_the_lines_in_place_beside_the_call_is_refused(tmp_path: Path) -> None:
    # the 1.5B's retry on the CPU: both callers keep the code and call the helper before returning
    row = json.loads((DATA.parent / "getopt_extract_cpu_retry.json").read_text())
    task = TASK[row["task"]]
    make_repo(tmp_path / "r", {task.file: source(task.file)})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = _request(engine, task, tmp_path / "r" / task.file, row["instruction"])
    proposal = engine.evaluate(request, row["reply"], finish_reason="stop")
    assert not proposal.ok and proposal.refusal_code == "extract_uncalled"
    assert proposal.refusal == ("getopt calls _longopts_list but still holds the lines it was extracted from "
                                "(`if type(longopts) == type(''):`): put the call in their place")
