"""The ninth fresh set of ``coder bench --edits --set fresh9``: two distinct wordings per task, each check passes on
a hand-written correct result and fails on the original and on plausible wrong results (two at least for every
task); each bug is caught by its task's check; the modules' upstream tests pass on the shipped originals and catch
all five bugs (``scripts/dev/fresh_sets_on.py`` runs these tests under a Python without pytest). The hand-written
results are in ``tests/bench_fresh9_refs.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_fresh9_refs import SOLUTIONS, WRONG
from bench_sets import (
    assert_apart,
    assert_judged,
    assert_listed,
    assert_listed_by_the_cli,
    assert_one_line_bug,
    assert_shipped_as_installed,
    assert_two_wordings,
    assert_upstream_catches_the_bug,
    expected_result,
    run_upstream,
)

from coder.bench.edits import upstream
from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_fresh9 import FRESH9

BY_NAME = {t.name: t for t in FRESH9}
MODULES = ("functools", "bdb", "weakref", "statistics", "_py_abc")


def expected(task: Task) -> str:
    """A correct result of ``task`` (:func:`bench_sets.expected_result`)."""
    return expected_result(task, SOLUTIONS)


def test_25_tasks_on_files_no_other_set_uses() -> None:
    from coder.bench.edits.tasks import TASKS
    from coder.bench.edits.tasks_fresh import FRESH
    from coder.bench.edits.tasks_fresh2 import FRESH2
    from coder.bench.edits.tasks_fresh3 import FRESH3
    from coder.bench.edits.tasks_fresh4 import FRESH4
    from coder.bench.edits.tasks_fresh5 import FRESH5
    from coder.bench.edits.tasks_fresh6 import FRESH6
    from coder.bench.edits.tasks_fresh7 import FRESH7
    from coder.bench.edits.tasks_fresh8 import FRESH8
    from coder.bench.edits.tasks_heldout import HELDOUT

    assert_apart(FRESH9, "fresh9", MODULES,
                 (*TASKS, *HELDOUT, *FRESH, *FRESH2, *FRESH3, *FRESH4, *FRESH5, *FRESH6, *FRESH7, *FRESH8))


def test_the_kinds_are_varied() -> None:
    kinds = [t.kind for t in FRESH9]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "rename": 3, "docstring": 2, "hints": 2, "comment": 2, "method": 2, "function": 1, "fix": 1, "extract": 2,
        "move": 1, "delete": 2, "param": 2, "bugfix": 5}


def test_a_wrong_result_for_every_task() -> None:
    assert set(WRONG) == set(BY_NAME)
    assert set(SOLUTIONS) <= set(BY_NAME)
    assert all(len(w) >= 2 for w in WRONG.values())
    assert sum(len(w) for w in WRONG.values()) >= 60


@pytest.mark.parametrize("task", FRESH9, ids=lambda t: t.name)
def test_two_distinct_plain_wordings(task: Task) -> None:
    assert_two_wordings(task)


@pytest.mark.parametrize("task", FRESH9, ids=lambda t: t.name)
def test_check_passes_on_the_expected_result_and_fails_on_the_original_and_the_wrong_ones(task: Task) -> None:
    assert_judged(task, expected(task), WRONG[task.name])


def test_a_bug_copy_differs_from_its_original_in_one_line() -> None:
    for task in (t for t in FRESH9 if t.kind == "bugfix"):
        assert_one_line_bug(task)


def test_the_shipped_files_are_the_installed_modules_byte_for_byte() -> None:
    assert_shipped_as_installed("fresh9", MODULES)


def test_every_file_is_listed_with_its_licence_and_each_bug_in_the_table() -> None:
    assert_listed(FRESH9, MODULES)


def test_the_prefixes_keep_fresh9_apart_from_the_other_sets() -> None:
    assert upstream.module_of("fresh9/bugs/functools.py") == "functools"
    assert upstream.module_of("fresh9/_py_abc.py") == "_py_abc"
    assert upstream.module_of("fresh9/bugs/statistics.py") == "statistics"
    assert upstream.module_of("fresh8/bugs/pty.py") == "pty" and upstream.module_of("fresh/cmd.py") == "cmd"
    assert upstream.module_of("fresh9/bugs/nosuch.py") is None
    assert upstream._pristine("weakref") == source("fresh9/weakref.py")
    assert upstream._pristine("profile") == source("fresh8/profile.py")
    assert upstream._pristine("hmac") == source("fresh6/hmac.py")
    assert upstream.upstream_tests("bdb") == "test_bdb"
    assert upstream.upstream_tests("_py_abc") == "test_abc"


def test_weakrefs_tests_get_mapping_tests_and_py_abcs_are_test_abc(tmp_path: Path) -> None:
    """test_weakref imports test.mapping_tests (already shipped for shelve's); _py_abc's tests are test_abc, which
    runs the same tests on abc's ABCMeta and on _py_abc's. Both are staged beside the module."""
    files = Path(upstream.__file__).parent / "files"
    (tmp_path / "weakref").mkdir()
    upstream._stage(tmp_path / "weakref", files / "fresh9" / "weakref.py.txt", "weakref")
    assert (tmp_path / "weakref" / "test" / "mapping_tests.py").read_bytes() == upstream._shipped("mapping_tests.py")
    (tmp_path / "abc").mkdir()
    upstream._stage(tmp_path / "abc", files / "fresh9" / "_py_abc.py.txt", "_py_abc")
    assert (tmp_path / "abc" / "test_abc.py").read_bytes() == upstream._shipped("test_abc.py")
    assert (tmp_path / "abc" / "_py_abc.py").read_bytes() == (files / "fresh9" / "_py_abc.py.txt").read_bytes()


def test_no_case_starts_a_process_or_opens_a_socket() -> None:
    """No behaviour case forks, spawns, execs or opens a socket; the bdb cases read no file but the module's own
    and os's (linecache, to set a breakpoint)."""
    for task in (t for t in FRESH9 if isinstance(t.check, Behaves)):
        for expr, _ in task.check.cases:
            words = ("fork", "spawn", "exec", "Popen", "system", "socket", "open(")
            assert not any(word in expr for word in words), expr


def test_none_of_the_modules_is_frozen() -> None:
    """A frozen module (genericpath, ntpath, posixpath, stat, ...) is imported from the interpreter, not from the
    staged copy, so its upstream tests would never see a bug: none of the five is frozen."""
    import _imp

    assert not any(_imp.is_frozen(mod) for mod in MODULES)


@pytest.mark.parametrize("mod", MODULES)
def test_upstream_tests_pass_on_the_original_and_fail_on_each_bug(mod: str, tmp_path: Path) -> None:
    assert_upstream_catches_the_bug(tmp_path, "fresh9", mod)


@pytest.mark.parametrize("task", [t for t in FRESH9 if t.kind in upstream.KINDS], ids=lambda t: t.name)
def test_a_correct_change_of_behaviour_or_fix_passes_the_upstream_tests(task: Task, tmp_path: Path) -> None:
    # coder runs them on a fix before applying it: a request they contradict could never be met
    run = run_upstream(tmp_path, task.file, expected(task))
    assert run.returncode == 0, run.stdout


def test_list_json_set_fresh9(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert_listed_by_the_cli(main, lambda: capsys.readouterr().out, "fresh9", FRESH9, "fresh8")
