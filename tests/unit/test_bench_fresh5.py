"""The fifth fresh set of ``coder bench --edits --set fresh5``: two distinct wordings per task, each check passes on
a hand-written correct result and fails on the original and on plausible wrong results (one at least for every
task); each bug is caught by its task's check; the modules' upstream tests pass on the shipped originals and catch
all five bugs (``scripts/dev/fresh_sets_on.py`` runs these tests under a Python without pytest). The hand-written
results are in ``tests/bench_fresh5_refs.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_fresh5_refs import SOLUTIONS, WRONG
from bench_sets import (
    assert_judged,
    assert_listed,
    assert_one_line_bug,
    assert_shipped_as_installed,
    assert_two_wordings,
    assert_upstream_catches_the_bug,
    expected_result,
    run_upstream,
)

from coder.bench.edits import upstream
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_fresh5 import FRESH5

BY_NAME = {t.name: t for t in FRESH5}
MODULES = ("heapq", "operator", "bz2", "modulefinder", "stringprep")


def expected(task: Task) -> str:
    """A correct result of ``task`` (:func:`bench_sets.expected_result`)."""
    return expected_result(task, SOLUTIONS)


def test_25_tasks_on_files_no_other_set_uses() -> None:
    from coder.bench.edits.tasks import TASKS
    from coder.bench.edits.tasks_fresh import FRESH
    from coder.bench.edits.tasks_fresh2 import FRESH2
    from coder.bench.edits.tasks_fresh3 import FRESH3
    from coder.bench.edits.tasks_fresh4 import FRESH4
    from coder.bench.edits.tasks_heldout import HELDOUT

    assert len(FRESH5) == 25 and len(BY_NAME) == len(FRESH5)
    others = {Path(f).name for t in (*TASKS, *HELDOUT, *FRESH, *FRESH2, *FRESH3, *FRESH4) for f in t.files}
    for task in FRESH5:
        assert task.file.startswith("fresh5/") and Path(task.file).name not in others and not task.also
    bugs = [t for t in FRESH5 if t.kind == "bugfix"]
    assert len(bugs) == 5 and {Path(t.file).stem for t in bugs} == set(MODULES)
    for mod in MODULES:  # four tasks and a bug on each module
        assert sum(Path(t.file).stem == mod for t in FRESH5) == 5
    assert not [a.name for a in FRESH5 for b in FRESH5 if a is not b and b.name.startswith(a.name)]


def test_the_kinds_are_varied() -> None:
    kinds = [t.kind for t in FRESH5]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "rename": 3, "docstring": 3, "hints": 2, "comment": 2, "method": 2, "function": 1, "fix": 1, "extract": 2,
        "move": 1, "delete": 1, "param": 1, "transform": 1, "bugfix": 5}
    for mod in MODULES:  # no module gets two tasks of one kind
        mine = [t.kind for t in FRESH5 if Path(t.file).stem == mod]
        assert len(set(mine)) == 5, (mod, mine)


def test_a_wrong_result_for_every_task() -> None:
    assert set(WRONG) == set(BY_NAME)
    assert set(SOLUTIONS) <= set(BY_NAME)
    assert sum(len(w) for w in WRONG.values()) >= 30


@pytest.mark.parametrize("task", FRESH5, ids=lambda t: t.name)
def test_two_distinct_plain_wordings(task: Task) -> None:
    assert_two_wordings(task)


@pytest.mark.parametrize("task", FRESH5, ids=lambda t: t.name)
def test_check_passes_on_the_expected_result_and_fails_on_the_original_and_the_wrong_ones(task: Task) -> None:
    assert_judged(task, expected(task), WRONG[task.name])


def test_a_bug_copy_differs_from_its_original_in_one_line() -> None:
    for task in (t for t in FRESH5 if t.kind == "bugfix"):
        assert_one_line_bug(task)


def test_the_shipped_files_are_the_installed_modules_byte_for_byte() -> None:
    assert_shipped_as_installed("fresh5", MODULES)


def test_every_file_is_listed_with_its_licence_and_each_bug_in_the_table() -> None:
    assert_listed(FRESH5, MODULES)


def test_the_prefixes_keep_fresh5_apart_from_the_other_sets() -> None:
    assert upstream.module_of("fresh5/bugs/heapq.py") == "heapq"
    assert upstream.module_of("fresh5/stringprep.py") == "stringprep"
    assert upstream.module_of("fresh5/bugs/modulefinder.py") == "modulefinder"
    assert upstream.module_of("fresh4/bugs/lzma.py") == "lzma" and upstream.module_of("fresh/cmd.py") == "cmd"
    assert upstream.module_of("fresh5/bugs/nosuch.py") is None
    assert upstream._pristine("bz2") == source("fresh5/bz2.py")
    assert upstream._pristine("types") == source("fresh4/types.py")
    assert upstream._pristine("gettext") == source("fresh3/gettext.py")
    assert upstream.upstream_tests("operator") == "test_operator"
    assert upstream.upstream_tests("_strptime") == "test_strptime"


def test_operator_cases_call_the_files_own_code() -> None:
    """operator.py ends in `from _operator import *`: a case must run the file's pure-Python code, not the C one."""
    from coder.bench.edits.behaviour import evaluate
    from coder.bench.edits.tasks_fresh5_bugs import PY_OPERATOR

    old = source("fresh5/operator.py")
    truth = '    "Return True if a is true, False otherwise."\n    return True if a else False\n'
    marked = old.replace(truth, truth.replace("True if a else False", '"file"'))
    assert marked != old
    assert evaluate(marked, ["m.truth(1)", f"{PY_OPERATOR}.truth(1)", f"{PY_OPERATOR}.attrgetter.__module__"]) == [
        "True", "'file'", "'bench_module_under_test'"]


@pytest.mark.parametrize("mod", MODULES)
def test_upstream_tests_pass_on_the_original_and_fail_on_each_bug(mod: str, tmp_path: Path) -> None:
    assert_upstream_catches_the_bug(tmp_path, "fresh5", mod)


@pytest.mark.parametrize("task", [t for t in FRESH5 if t.kind in upstream.KINDS], ids=lambda t: t.name)
def test_a_correct_change_of_behaviour_or_fix_passes_the_upstream_tests(task: Task, tmp_path: Path) -> None:
    # coder runs them on a fix before applying it: a request they contradict could never be met
    run = run_upstream(tmp_path, task.file, expected(task))
    assert run.returncode == 0, run.stdout


def test_list_json_set_fresh5(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert main(["bench", "--edits", "--list", "--json", "--set", "fresh5"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [t.name for t in FRESH5]
    assert all(r["wordings"] == list(BY_NAME[r["id"]].wordings) for r in rows)
    argv = ["bench", "--edits", "--list", "--json", "--set", "fresh5", "--kinds", "bugfix", "--wordings", "1"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} == {t.name for t in FRESH5 if t.kind == "bugfix"}
    assert all(r["wordings"] == [BY_NAME[r["id"]].wordings[1]] for r in rows)
    assert main(["bench", "--edits", "--list", "--json", "--set", "fresh4"]) == 0  # fresh4 is still its own
    assert "fresh5/" not in capsys.readouterr().out
