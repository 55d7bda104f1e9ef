"""A fix held to the instruction's own failing example (:mod:`coder.edit.checks.behaviour`).

The files are the bench's bug files (``coder/bench/edits/files/bugs/``, ``heldout/bugs/``); the wrong
fixes are Qwen2.5-Coder-1.5B's on the H200, applied because no check looked at behaviour: run4 of
2026-12-03 (auto mode; ``tests/data/edit/h200_1203/wrong_fixes_with_examples.json``) and 2026-12-02
(``tests/data/edit/h200_wrong/``). Those whose own wording had an example satisfy it (the example does not
show what they got wrong); four fail the example another wording of the same task gives, which is how
they are replayed here, as ``coder edit -m WORDING`` would hold them.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bench_edit_refs import correct_result
from cli_helpers import make_repo
from spec_helpers import region_reply

from coder.bench.edits.layers import refusal_layer
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.apply.files import read_snapshot
from coder.edit.checks import behaviour
from coder.edit.checks.behaviour import CODE, ExampleCheck, judge, run_calls
from coder.edit.checks.user_commands import UserCommand
from coder.edit.intent.read import read_instruction
from coder.edit.proposal import EditRequest
from coder.edit.run import engine as engine_module
from coder.edit.run.engine import EditEngine
from coder.edit.run.sample import SAMPLES
from coder.testing.replies import ScriptedStream, streamed

DATA = Path(__file__).parents[1] / "data" / "edit"
RECORDED = {(r["task"], r["wording"]): r for r in json.loads(
    (DATA / "h200_1203" / "wrong_fixes_with_examples.json").read_text())["rows"]}
EARLIER = {(r["task"], r["wording"]): {**r, "outcome": "wrong"}  # that record holds the wrong edits only
           for r in json.loads((DATA / "h200_wrong" / "wrong_2026-12-02.json").read_text())}
TASK = {t.name: t for t in (*TASKS, *HELDOUT)}


def _fixed(task: Task) -> str:
    """A correct fix of ``task``: the shipped file a held-out bug was put into, else the suite's reference."""
    if task.file.startswith("heldout/bugs/"):
        return source(task.file.replace("bugs/", "", 1))
    return correct_result(task)


def _check(tmp_path: Path, task: Task, wording: int, new: str) -> behaviour.Verdict | None:
    root = tmp_path / "r"
    make_repo(root, {task.file: source(task.file)})
    snap = read_snapshot(root, root / task.file)
    spec = read_instruction(task.wordings[wording], {task.file: snap.text}, home=task.file)
    return ExampleCheck(runs=True).verdict(snap, new, spec)


# Every fix/bugfix wording of the suite and the held-out set that gives an example, and what the example
# says of a correct fix: checked (the original shows the bug, the fix mends it) or skipped (the original
# does not do what the report quotes: getopt returns a pair of lists, quote('') already returns '').
@pytest.mark.parametrize(("name", "wording", "note"), [
    # _ishidden's code handles bytes (b'.'[0]): its str example brings the bytes twin along
    ("glob-fix", 2, "checked: _ishidden('') == False\nchecked: _ishidden(b'') == False"),
    ("bug-shlex-quote", 0, "quote('') returns '' in the original file, which does not show the bug the "
                           "instruction reports: not checked"),
    ("bug-shlex-quote", 2, "checked: join(['ls', '']) no longer returns 'ls ' (it returns \"ls ''\")"),
    ("bug-getopt-equals", 0, "getopt(['--alpha=1'], '', ['alpha=']) returns ([('--alpha', '=1')], []) in the "
                             "original file, which does not show the bug the instruction reports: not checked"),
    ("bug-getopt-equals", 1, "getopt(['--alpha=1'], '', ['alpha=']) returns ([('--alpha', '=1')], []) in the "
                             "original file, which does not show the bug the instruction reports: not checked"),
    ("bug-graphlib-order", 1, "checked: list(TopologicalSorter({'b': ['a']}).static_order()) no longer returns "
                              "['a'] (it returns ['a', 'b'])"),
    ("bug-wsgiref-hop", 0, "checked: is_hop_by_hop('Connection') no longer returns False (it returns True)"),
    ("bug-fnmatch-negate", 2, "checked: filter(['a', 'b', 'c'], '[!ab]') == ['c']"),
    ("bug-quopri-unhex", 0, "checked: unhex(b'ff') == 255"),
    ("bug-string-capwords", 0, "checked: capwords('hello-world', '-') == 'Hello-World'"),
    ("bug-tabnanny-level", 0, "checked: Whitespace('\\t').indent_level(8) no longer returns 1 (it returns 8)"),
])
def test_a_correct_fix_passes_its_example_or_the_example_is_skipped(
        name: str, wording: int, note: str, tmp_path: Path) -> None:
    verdict = _check(tmp_path, TASK[name], wording, _fixed(TASK[name]))
    assert verdict is not None and verdict.failure is None
    assert "\n".join(verdict.notes) == note


def test_an_exception_no_longer_raised_passes(tmp_path: Path) -> None:
    task = TASK["bug-timeit-reindent"]  # "Timer('x = 1\ny = 2') raises IndentationError"
    verdict = _check(tmp_path, task, 0, _fixed(task))
    assert verdict is not None and verdict.failure is None
    assert verdict.notes[0].startswith("checked: Timer('x = 1\\ny = 2') no longer raises IndentationError (it "
                                       "returns <")


def test_both_examples_of_one_wording_are_checked(tmp_path: Path) -> None:
    task = TASK["bug-fnmatch-negate"]  # "fnmatch('a', '[!a]') is True and fnmatch('b', '[!a]') is False"
    verdict = _check(tmp_path, task, 1, correct_result(task))
    assert verdict is not None and verdict.failure is None
    assert verdict.notes == ["checked: fnmatch('a', '[!a]') no longer returns True (it returns False)",
                             "checked: fnmatch('b', '[!a]') no longer returns False (it returns True)"]


def _applied(row: dict[str, Any], tmp_path: Path) -> str:
    """The file the recorded diff left, applied to the task's original."""
    (tmp_path / "d" / row["file"]).parent.mkdir(parents=True)
    (tmp_path / "d" / row["file"]).write_text(source(row["file"]))
    subprocess.run(["git", "apply", "--unsafe-paths", "-"], input=row["diff"], text=True, cwd=tmp_path / "d",
                   check=True)
    return (tmp_path / "d" / row["file"]).read_text()


@pytest.mark.parametrize(("recorded", "wording", "failure"), [
    # run4-heldout: "Fix unhex: lowercase digits a-f give wrong values (uppercase works)" -> wrong, applied
    (("bug-quopri-unhex", 1), 0, "after the edit, unhex(b'ff') still returns 85; the instruction expects 255"),
    # run4-heldout: "tabnanny's indent_level is wrong whenever there are tabs, ..." -> wrong, applied
    (("bug-tabnanny-level", 1), 0, "after the edit, Whitespace('\\t').indent_level(8) still returns 1; the "
                                   "instruction reports that as the bug"),
    # 2026-12-02 (tests/data/edit/h200_wrong): "... filter(['a', 'b', 'c'], '[!ab]') returns ['a', 'b'] instead
    # of ['c']" -> a fix that mends filter's example but not fnmatch's
    (("bug-fnmatch-negate", 2), 0, "after the edit, fnmatch('b', '[!a]') still returns False; the instruction "
                                   "reports that as the bug"),
])
def test_a_recorded_wrong_fix_fails_the_example_of_another_wording(
        recorded: tuple[str, int], wording: int, failure: str, tmp_path: Path) -> None:
    row = RECORDED.get(recorded) or EARLIER[recorded]
    assert row["outcome"] == "wrong"
    verdict = _check(tmp_path, TASK[recorded[0]], wording, _applied(row, tmp_path))
    assert verdict is not None and verdict.failure == failure


def test_a_recorded_wrong_fix_fails_the_bytes_twin_of_its_own_example(tmp_path: Path) -> None:
    """``path == ''`` mends _ishidden('') but not b'': the function's code handles bytes, so the twin runs."""
    verdict = _check(tmp_path, TASK["glob-fix"], 2, _applied(RECORDED[("glob-fix", 2)], tmp_path))
    assert verdict is not None and verdict.notes == ["checked: _ishidden('') == False"]
    assert verdict.failure == "after the edit, _ishidden(b'') still raises IndexError; the instruction expects False"


def test_a_recorded_fix_that_loops_fails_on_the_time_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """run4-suite: "Fix `TopologicalSorter.done`: ..." -> wrong, applied; with the example of wording 1 the
    call never returns."""
    monkeypatch.setattr(behaviour, "TIMEOUT_S", 1.0)
    row = RECORDED[("bug-graphlib-order", 0)]
    verdict = _check(tmp_path, TASK["bug-graphlib-order"], 1, _applied(row, tmp_path))
    assert verdict is not None and verdict.failure == (
        "after the edit, list(TopologicalSorter({'b': ['a']}).static_order()) does not return within 1 s (an "
        "endless loop?)")


@pytest.mark.parametrize("recorded", [("bug-string-capwords", 0), ("bug-shlex-quote", 2)])
def test_a_recorded_wrong_fix_that_satisfies_its_own_example_passes(recorded: tuple[str, int],
                                                                     tmp_path: Path) -> None:
    """What the check cannot see: ``'-'.join`` mends capwords('hello-world', '-') but breaks the default
    separator; join(['ls', '']) giving 'ls' is no longer the 'ls ' reported (2026-12-02), though not right
    either. Pinned so a change here is noticed."""
    row = RECORDED.get(recorded) or EARLIER[recorded]
    verdict = _check(tmp_path, TASK[recorded[0]], recorded[1], _applied(row, tmp_path))
    assert verdict is not None and verdict.failure is None and verdict.notes[0].startswith("checked: ")


def test_the_module_imports_once_per_run_and_its_prints_do_not_spoil_the_result(tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {"m.py": "print('loading')\ndef f(x):\n    print('called')\n    return x + 1\n"})
    snap = read_snapshot(tmp_path / "r", tmp_path / "r" / "m.py")
    spec = read_instruction("f(1) returns 2 instead of 3", {"m.py": snap.text}, home="m.py")
    before = run_calls(snap, snap.text, spec.examples)
    after = run_calls(snap, snap.text.replace("x + 1", "x + 2"), spec.examples)
    assert judge(spec.examples, before, after).notes == ["checked: f(1) == 3"]
    broken = run_calls(snap, "raise ImportError('no')\n", spec.examples)
    assert judge(spec.examples, before, broken).failure == "after the edit, importing m.py raises ImportError"


def _engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replies: list[Any], *,
            checks: tuple[UserCommand, ...] = (), runs: bool | None = True) -> tuple[EditEngine, EditRequest,
                                                                                     ScriptedStream]:
    """``coder edit --symbol unhex -m WORDING-0`` of bug-quopri-unhex, its replies scripted."""
    root, task = tmp_path / "r", TASK["bug-quopri-unhex"]
    make_repo(root, {task.file: source(task.file)})
    engine = EditEngine(None, root, ctx=32768, checks=checks, run_examples=runs)
    monkeypatch.setattr(engine_module, "stream_edit", model := ScriptedStream(replies))
    return engine, engine.prepare(root / task.file, task.wordings[0], mode="region", symbol="unhex"), model


WRONG = RECORDED[("bug-quopri-unhex", 1)]["reply"]
FAILED = "after the edit, unhex(b'ff') still returns 85; the instruction expects 255"


def _mended(request: EditRequest) -> str:
    return region_reply(request, request.prompt.target.replace("i = ord('a')", "i = ord('a')-10", 1))


def test_a_failing_example_is_asked_once_more_with_its_line_and_the_retry_passes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, request, model = _engine(tmp_path, monkeypatch, [WRONG, _mended])
    proposal = streamed(engine, request)
    assert len(model.asked) == 2
    assert model.asked[1].retry_note == f"(A first reply was refused: {FAILED}.)"
    assert model.asked[1].retry_note in model.asked[1].messages[-1]["content"]
    assert proposal.ok and proposal.changed and proposal.retried == FAILED
    assert proposal.examples == ("checked: unhex(b'ff') == 255",)
    assert proposal.to_json()["examples"] == ["checked: unhex(b'ff') == 255"]


def test_a_second_failure_is_refused_by_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, request, model = _engine(tmp_path, monkeypatch, [WRONG] * (2 + SAMPLES + 1))
    proposal = streamed(engine, request)
    # never a second greedy retry; the example fails now, so the retry is sampled, and no sample passes
    assert len(model.asked) == 2 + SAMPLES and {r.seed for r in model.asked[2:]} == set(range(1, SAMPLES + 1))
    assert proposal.request is model.asked[1] and proposal.sampled is not None and proposal.sampled.accepted is None
    assert (proposal.ok, proposal.refusal_code, proposal.refusal) == (False, CODE, FAILED)
    assert refusal_layer(proposal.refusal_code) == "check"  # the bench's table files it under the checks


def test_an_untrusted_repository_runs_no_example_and_says_so_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, request, model = _engine(tmp_path, monkeypatch, [WRONG, WRONG], runs=None)  # no test command
    first = streamed(engine, request)
    assert first.ok and len(model.asked) == 1  # nothing ran: the wrong fix is not refused by the examples
    assert first.examples == (behaviour.NOT_RUN.format(calls="unhex(b'ff')"),)
    assert not streamed(engine, request).examples  # said once per engine


def test_a_test_command_lets_the_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, _, _ = _engine(tmp_path, monkeypatch, [], checks=(UserCommand("test", "true"),), runs=None)
    assert engine.examples.runs
    engine, _, _ = _engine(tmp_path / "2", monkeypatch, [], checks=(UserCommand("lint", "true"),), runs=None)
    assert not engine.examples.runs  # a linter does not run the repository's code


def test_a_module_of_a_package_imports_its_siblings(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_repo(root, {"pkg/__init__.py": "", "pkg/helper.py": "TWO = 2\n",
                     "pkg/m.py": "from .helper import TWO\n\ndef f():\n    return 1\n"})
    snap = read_snapshot(root, root / "pkg" / "m.py")
    spec = read_instruction("f() returns 1 instead of 2", {"pkg/m.py": snap.text}, home="pkg/m.py")
    verdict = ExampleCheck(runs=True).verdict(snap, snap.text.replace("return 1", "return TWO"), spec)
    assert verdict is not None and verdict.notes == ["checked: f() == 2"] and verdict.failure is None


def test_a_call_that_writes_a_relative_path_leaves_the_tree_alone(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_repo(root, {"m.py": "def save(name):\n    open(name, 'w').write('x')\n    return 0\n"})
    snap = read_snapshot(root, root / "m.py")
    spec = read_instruction("save('out.txt') returns 0 instead of 1", {"m.py": snap.text}, home="m.py")
    verdict = ExampleCheck(runs=True).verdict(snap, snap.text.replace("return 0", "return 1"), spec)
    assert verdict is not None and verdict.notes == ["checked: save('out.txt') == 1"]
    assert not (root / "out.txt").exists()  # the calls ran in an empty temporary folder
