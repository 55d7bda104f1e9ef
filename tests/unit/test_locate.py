"""Where the failing oracles point when the named function was not mended (:mod:`coder.edit.run.locate`).

The held-out set's bug reports name where the symptom shows: ``deepcopy`` for a bug in ``_deepcopy_dict``,
``Timer`` for one in ``reindent``. These pin the two clues, on the real files, and the choice between them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits.taskdef import source
from coder.edit.apply.files import read_snapshot
from coder.edit.checks.behaviour import run_calls, traced
from coder.edit.checks.user_commands import CheckRun
from coder.edit.intent.spec import Example
from coder.edit.run.locate import pick
from coder.edit.run.retry import Clues
from coder.edit.source.callees import reachable
from coder.edit.source.regions import Region, find_symbol, python_symbols

COPY, TIMEIT = "heldout/bugs/copy.py", "heldout/bugs/timeit.py"


def _functions(rel: str) -> dict[str, Region]:
    return {q: r for q, r in python_symbols(source(rel)) if r.kind == "function"}


def test_the_failing_tests_are_read_from_pytest_unittest_and_plain_lines() -> None:
    run = CheckRun("test", "t", 1, 0.1, tail=(
        "FAILED tests/test_copy.py::TestCopy::test_deepcopy_dict[1] - AssertionError: x",
        "FAIL: test_foo (m.T.test_foo)",
        "ERROR: test_bar (m.T)",
        "FAILED test_deepcopy_dict_subclass: AssertionError: y",
        "FAILED (failures=2)",  # unittest's total
        "ERROR tests/test_a.py - ImportError",  # a file, no test function
        "FAILED test_foo: again",  # named once
    ))
    assert run.failed_tests() == ("test_deepcopy_dict", "test_foo", "test_bar", "test_deepcopy_dict_subclass")


def test_an_example_is_traced_through_the_functions_of_the_file_it_runs(tmp_path: Path) -> None:
    make_repo(tmp_path, {TIMEIT: source(TIMEIT), COPY: source(COPY)})
    timeit, copy = read_snapshot(tmp_path, tmp_path / TIMEIT), read_snapshot(tmp_path, tmp_path / COPY)
    example = Example("Timer('x = 1\\ny = 2')", raises="IndentationError")
    (run,) = run_calls(timeit, timeit.text, [example], trace=True)
    assert not isinstance(run, str) and run.raises("IndentationError")
    assert run.reached == ("Timer.__init__", "reindent")  # in the order first called; nothing of the stdlib
    assert run.calls == (("", "Timer.__init__"), ("Timer.__init__", "reindent"))  # "": the example's own call
    assert traced(timeit, [example]) == (run.reached, run.calls)
    (plain,) = run_calls(timeit, timeit.text, [example])  # the checks' own runs are not profiled
    assert not isinstance(plain, str) and plain.raises("IndentationError") and plain.reached == plain.calls == ()
    (run,) = run_calls(copy, copy.text, [Example("deepcopy({'a': [1]})['a']", expected="[1]")], trace=True)
    assert not isinstance(run, str)
    assert run.reached == ("deepcopy", "_deepcopy_dict", "_deepcopy_atomic", "_keep_alive")
    # an example the code as it is passes shows no bug: it points nowhere
    assert traced(copy, [Example("deepcopy({'a': [1]})['a']", expected="[1]")]) == ((), ())


def _reach(rel: str, *start: str) -> set[str]:
    return reachable(source(rel), start)


def test_a_def_reaches_what_it_calls_and_what_its_module_tables_hold() -> None:
    # deepcopy reads _deepcopy_dispatch; "d = _deepcopy_dispatch = {}" and "d[dict] = _deepcopy_dict" fill it
    assert _reach(COPY, "deepcopy") == {"_deepcopy_atomic", "_deepcopy_dict", "_deepcopy_list", "_deepcopy_method",
                                        "_deepcopy_tuple", "_keep_alive", "_reconstruct", "deepcopy"}
    assert _reach(TIMEIT, "Timer.__init__") == {"reindent"}
    assert _reach(COPY, "_keep_alive") == set()  # nothing of the file: its callers are not reached
    assert reachable("def f(:\n", ["f"]) == set()


def test_the_tests_name_the_function_the_bug_is_in() -> None:
    functions, sent = _functions(COPY), find_symbol(COPY, source(COPY), "deepcopy")
    # copy-dict on the H200: test_deepcopy_bound_method is named for deepcopy, the function sent, and votes for none
    moved = pick(Clues(tests=("test_deepcopy_bound_method", "test_deepcopy_dict", "test_deepcopy_dict_subclass")),
                 functions, sent, _reach(COPY, "deepcopy"))
    assert moved is not None and moved.name == "_deepcopy_dict"
    assert moved.why == "the failing tests test_deepcopy_dict, test_deepcopy_dict_subclass name it"
    assert moved.line(sent) == (f"looked in _deepcopy_dict: {moved.why} (function deepcopy was not mended)")
    assert pick(Clues(tests=("test_deepcopy_bound_method",)), functions, sent, _reach(COPY, "deepcopy")) is None


def test_a_class_sent_narrows_to_the_one_method_the_example_ran_when_nothing_outside_is_left() -> None:
    functions, sent = _functions(TIMEIT), find_symbol(TIMEIT, source(TIMEIT), "Timer")
    moved = pick(Clues(reached=("Timer.__init__",)), functions, sent, set())
    assert moved is not None and moved.name == "Timer.__init__"
    sent = find_symbol(TIMEIT, source(TIMEIT), "Timer.__init__")  # one function sent: never narrowed, never back
    assert pick(Clues(reached=("Timer.__init__",)), functions, sent, set()) is None


def test_the_examples_trace_decides_where_one_function_is_left() -> None:
    functions, sent = _functions(TIMEIT), find_symbol(TIMEIT, source(TIMEIT), "Timer")
    # the tests are named for Timer.autorange, inside the class sent: they point nowhere else
    moved = pick(Clues(reached=("Timer.__init__", "reindent"), tests=("test_autorange", "test_autorange_second")),
                 functions, sent, {"reindent"})
    assert moved is not None and (moved.name, moved.why) == ("reindent", "the instruction's example runs it")
    assert (moved.region.start, moved.region.end) == (find_symbol(TIMEIT, source(TIMEIT), "reindent").start,
                                                      find_symbol(TIMEIT, source(TIMEIT), "reindent").end)


@pytest.mark.parametrize(("clues", "expected"), [
    # several ran: the one the tests name
    (Clues(reached=("deepcopy", "_deepcopy_dict", "_deepcopy_atomic"), tests=("test_deepcopy_dict",)),
     "_deepcopy_dict"),
    # several ran and the tests name none of them: nothing moves
    (Clues(reached=("deepcopy", "_deepcopy_dict", "_deepcopy_atomic"), tests=("test_copy_list",)), None),
    (Clues(reached=("deepcopy", "_deepcopy_dict", "_deepcopy_atomic")), None),
    # the tests name two alike: nothing moves
    (Clues(tests=("test_deepcopy_dict", "test_deepcopy_list")), None),
    (Clues(tests=("test_deepcopy_dict", "test_deepcopy_list", "test_deepcopy_list_subclass")), "_deepcopy_list"),
    # the function sent ran alone: nothing else to look at
    (Clues(reached=("deepcopy",)), None),
    (Clues(), None),
])
def test_one_function_and_only_one_is_the_place(clues: Clues, expected: str | None) -> None:
    moved = pick(clues, _functions(COPY), find_symbol(COPY, source(COPY), "deepcopy"), _reach(COPY, "deepcopy"))
    assert (moved.name if moved is not None else None) == expected
