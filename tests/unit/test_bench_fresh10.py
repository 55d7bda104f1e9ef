"""The tenth fresh set of ``coder bench --edits --set fresh10``: two distinct wordings per task, each check passes on
a hand-written correct result and fails on the original and on plausible wrong results (two at least for every
task); each bug is caught by its task's check; the modules' upstream tests pass on the shipped originals and catch
all five bugs (``scripts/dev/fresh_sets_on.py`` runs these tests under a Python without pytest). The hand-written
results are in ``tests/bench_fresh10_refs.py``; the correct results a check must also take (a new function listed in
``__all__``, a comment at the end of the line) are in its ``ALSO_RIGHT``."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_fresh10_refs import ALSO_RIGHT, SOLUTIONS, WRONG
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
from coder.bench.edits.checks import replace_once
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_fresh10 import FRESH10

BY_NAME = {t.name: t for t in FRESH10}
MODULES = ("secrets", "_markupbase", "random", "optparse", "difflib")


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
    from coder.bench.edits.tasks_fresh9 import FRESH9
    from coder.bench.edits.tasks_heldout import HELDOUT

    assert_apart(FRESH10, "fresh10", MODULES,
                 (*TASKS, *HELDOUT, *FRESH, *FRESH2, *FRESH3, *FRESH4, *FRESH5, *FRESH6, *FRESH7, *FRESH8,
                  *FRESH9))


def test_the_kinds_are_varied() -> None:
    kinds = [t.kind for t in FRESH10]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "rename": 3, "docstring": 2, "hints": 2, "comment": 2, "method": 2, "function": 1, "fix": 1, "extract": 2,
        "move": 1, "delete": 2, "param": 2, "bugfix": 5}


def test_a_wrong_result_for_every_task() -> None:
    assert set(WRONG) == set(BY_NAME)
    assert set(SOLUTIONS) <= set(BY_NAME)
    assert all(len(w) >= 2 for w in WRONG.values())
    assert sum(len(w) for w in WRONG.values()) >= 70
    assert set(ALSO_RIGHT) <= set(BY_NAME)


@pytest.mark.parametrize("task", FRESH10, ids=lambda t: t.name)
def test_two_distinct_plain_wordings(task: Task) -> None:
    assert_two_wordings(task)


@pytest.mark.parametrize("task", FRESH10, ids=lambda t: t.name)
def test_check_passes_on_the_expected_result_and_fails_on_the_original_and_the_wrong_ones(task: Task) -> None:
    assert_judged(task, expected(task), WRONG[task.name])


@pytest.mark.parametrize("name", sorted(ALSO_RIGHT))
def test_check_takes_the_other_correct_results(name: str) -> None:
    """A new public function listed in ``__all__`` or not, a comment at the end of the line, a comment left or not
    where its code is deleted, a fix that turns the error round: each is right too."""
    task = BY_NAME[name]
    old = source(task.file)
    for edits in ALSO_RIGHT[name]:
        ok, why = task.check(old, replace_once(old, edits))
        assert ok, why


def test_a_bug_copy_differs_from_its_original_in_one_line() -> None:
    for task in (t for t in FRESH10 if t.kind == "bugfix"):
        assert_one_line_bug(task)


def test_the_shipped_files_are_the_installed_modules_byte_for_byte() -> None:
    assert_shipped_as_installed("fresh10", MODULES)


def test_every_file_is_listed_with_its_licence_and_each_bug_in_the_table() -> None:
    assert_listed(FRESH10, MODULES)


def test_the_prefixes_keep_fresh10_apart_from_the_other_sets() -> None:
    assert upstream.module_of("fresh10/bugs/secrets.py") == "secrets"
    assert upstream.module_of("fresh10/_markupbase.py") == "_markupbase"
    assert upstream.module_of("fresh10/bugs/difflib.py") == "difflib"
    assert upstream.module_of("fresh9/bugs/functools.py") == "functools" and upstream.module_of("fresh/cmd.py") == "cmd"
    assert upstream.module_of("fresh10/bugs/nosuch.py") is None and upstream.module_of("fresh1/random.py") is None
    assert upstream._pristine("random") == source("fresh10/random.py")
    assert upstream._pristine("weakref") == source("fresh9/weakref.py")
    assert upstream._pristine("profile") == source("fresh8/profile.py")
    assert upstream.upstream_tests("optparse") == "test_optparse"
    assert upstream.upstream_tests("_markupbase") == "test_htmlparser"


def test_markupbases_tests_are_test_htmlparser(tmp_path: Path) -> None:
    """_markupbase has no tests of its own: html.parser's are its tests, and the staged copy is the one html.parser
    imports (nothing run before the tests imports html.parser), so a bug put in it is seen."""
    files = Path(upstream.__file__).parent / "files"
    upstream._stage(tmp_path, files / "fresh10" / "_markupbase.py.txt", "_markupbase")
    assert (tmp_path / "test_htmlparser.py").read_bytes() == upstream._shipped("test_htmlparser.py")
    assert (tmp_path / "_markupbase.py").read_bytes() == (files / "fresh10" / "_markupbase.py.txt").read_bytes()


def test_no_case_starts_a_process_or_opens_a_socket() -> None:
    """No behaviour case forks, spawns, execs, opens a socket or a file."""
    for task in (t for t in FRESH10 if isinstance(t.check, Behaves)):
        for expr, _ in task.check.cases:
            words = ("fork", "spawn", "exec", "Popen", "system", "socket", "open(")
            assert not any(word in expr for word in words), expr


def test_none_of_the_modules_is_frozen() -> None:
    """A frozen module (genericpath, ntpath, posixpath, stat, runpy, ...) is imported from the interpreter, not from
    the staged copy, so its upstream tests would never see a bug: none of the five is frozen."""
    import _imp

    assert not any(_imp.is_frozen(mod) for mod in MODULES)


@pytest.mark.parametrize("mod", MODULES)
def test_upstream_tests_pass_on_the_original_and_fail_on_each_bug(mod: str, tmp_path: Path) -> None:
    assert_upstream_catches_the_bug(tmp_path, "fresh10", mod)


@pytest.mark.parametrize("task", [t for t in FRESH10 if t.kind in upstream.KINDS], ids=lambda t: t.name)
def test_a_correct_change_of_behaviour_or_fix_passes_the_upstream_tests(task: Task, tmp_path: Path) -> None:
    # coder runs them on a fix before applying it: a request they contradict could never be met
    run = run_upstream(tmp_path, task.file, expected(task))
    assert run.returncode == 0, run.stdout


def test_list_json_set_fresh10(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert_listed_by_the_cli(main, lambda: capsys.readouterr().out, "fresh10", FRESH10, "fresh9")
