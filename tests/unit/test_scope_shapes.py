"""Wrong edits the H200 bench run committed (issue 18), rebuilt from the task definitions.

The lead's ``coder bench --edits`` run with Qwen2.5-Coder-1.5B committed wrong edits that
the scope check explained (they lay inside the region or near the named symbol). The
replies were not recorded, so each failure is rebuilt here as the damage its ``why``
names, applied to the task's correct result; every one must be flagged (refused under
``--yes``) and fail the task's own check, while every task's correct result stays unflagged.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from bench_edit_refs import correct_result
from spec_of import check_scope

from coder.bench.edits.tasks import TASKS, Task, source
from coder.edit.checks.shapes import one_block_moved
from coder.edit.source.regions import Region, find_symbol, line_range

BY_NAME = {t.name: t for t in TASKS}


def _region(task: Task) -> Region:
    src = source(task.file)
    return find_symbol(task.file, src, task.symbol) if task.symbol else line_range(src, task.lines or "")


def _sub(text: str, a: str, b: str) -> str:
    assert text.count(a) >= 1, a
    return text.replace(a, b, 1)


def _cut_def(text: str, head: str, tail: str) -> str:
    """``text`` without the lines from ``head`` up to (not including) ``tail``."""
    i, j = text.index(head), text.index(tail)
    return text[:i] + text[j:]


# (task, mode, what the model did) -> the wrong text, from the correct result
Damage = Callable[[str, str], str]  # (original, correct result) -> wrong result
CASES: dict[tuple[str, str, str], Damage] = {
    # fnmatch-move, auto picked full: "syntax tree differs from the expected file"
    ("fnmatch-move", "full", "copied, not moved"):
        lambda src, ok: _sub(src, "import os\n", "import os\nimport functools\n"),
    ("fnmatch-move", "full", "moved, and dropped another import"): lambda src, ok: _sub(ok, "import posixpath\n", ""),
    ("fnmatch-move", "full", "moved, and changed the decorator"):
        lambda src, ok: _sub(ok, "maxsize=32768, typed=True", "maxsize=32768"),
    # sched-move (auto/full and region): "syntax tree differs from the expected file"
    ("sched-move", "full", "copied, not moved"):
        lambda src, ok: _sub(src, "import time\n", "import time\nimport threading\n"),
    ("sched-move", "region", "moved, and dropped heapq"): lambda src, ok: _sub(ok, "import heapq\n", ""),
    ("sched-move", "region", "moved, and reordered another import"):
        lambda src, ok: _sub(ok, "import heapq\nfrom collections import namedtuple\n",
                             "from collections import namedtuple\nimport heapq\n"),
    ("sched-move", "full", "moved, and changed another import"):
        lambda src, ok: _sub(ok, "from time import monotonic as _time", "from time import time as _time"),
    # shlex-param, region (auto and region): "sep is never used in join"
    ("shlex-param", "region", "parameter added, never used"):
        lambda src, ok: _sub(src, "def join(split_command):", "def join(split_command, sep=' '):"),
    # textwrap-param, full (auto and full): "shorten is missing"
    ("textwrap-param", "full", "shorten deleted"):
        lambda src, ok: _cut_def(ok, "def shorten(", "# -- Loosely related"),
    ("textwrap-param", "full", "def line of shorten lost"):
        lambda src, ok: _cut_def(ok, "def shorten(", "    w = TextWrapper(width=width, max_lines=1, placeholder"),
    # fnmatch-param, full: "code outside _compile_pattern changed"
    ("fnmatch-param", "full", "call sites pass an undefined flags"):
        lambda src, ok: ok.replace("    match = _compile_pattern(pat)\n", "    match = _compile_pattern(pat, flags)\n"),
    ("fnmatch-param", "full", "line next to a call site dropped"):
        lambda src, ok: _sub(ok, "    pat = os.path.normcase(pat)\n    match = _compile_pattern(pat)\n",
                             "    match = _compile_pattern(pat)\n"),
    ("fnmatch-param", "full", "function after it changed"):
        lambda src, ok: _sub(ok, "    match = _compile_pattern(pat)\n    return match(name) is not None",
                             "    match = _compile_pattern(pat)\n    return match(name)"),
    # shlex-delete, region: "syntax tree differs from the expected file"
    ("shlex-delete", "region", "function deleted, its caller kept"):
        lambda src, ok: _cut_def(src, "def _print_tokens(", "if __name__ == '__main__':"),
    ("shlex-delete", "region", "caller deleted, function kept"):
        lambda src, ok: src[:src.index("if __name__ == '__main__':")].rstrip("\n") + "\n",
}


@pytest.mark.parametrize("case", list(CASES), ids=lambda c: f"{c[0]}-{c[1]}-{c[2].replace(' ', '_')}")
def test_rebuilt_wrong_edit_is_wrong_and_flagged(case: tuple[str, str, str]) -> None:
    name, mode, _ = case
    task = BY_NAME[name]
    src = source(task.file)
    wrong = CASES[case](src, correct_result(task))
    assert wrong != src
    assert not task.check(src, wrong)[0], "the rebuilt case must be wrong by the task's own check"
    scope = check_scope(src, wrong, task.instruction, rel=task.file,
                        region=_region(task) if mode == "region" else None)
    assert not scope.ok
    assert "\n" not in scope.refusal()


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_every_correct_result_stays_unflagged(task: Task) -> None:
    src, new = source(task.file), correct_result(task)
    assert check_scope(src, new, task.instruction, rel=task.file).ok
    if task.has_region:
        assert check_scope(src, new, task.instruction, rel=task.file, region=_region(task)).ok


def test_one_block_moved() -> None:
    a = ["import a", "import b", "import c", "x = 1"]
    assert one_block_moved(a, ["import a", "import c", "import b", "x = 1"])
    assert one_block_moved(a, ["import b", "import c", "import a", "x = 1"])
    assert one_block_moved(["if x:", "    f()", "g()"], ["if x:", "g()", "    f()"])  # same text, other block
    assert not one_block_moved(a, ["import b", "import a", "x = 1", "import c"])  # two blocks moved
    assert not one_block_moved(a, ["import a", "import c", "x = 1"])
    assert not one_block_moved(["def f():", "    if y:", "        g()", "    h()"],
                               ["def f():", "    if y:", "    h()", "        g()", "h()"])


def test_moving_a_statement_into_a_block_may_reindent_it() -> None:
    old = "import os\n\ndef f():\n    return 1\n\nX = os.sep\n"
    new = "import os\n\ndef f():\n    X = os.sep\n    return 1\n\n"
    assert check_scope(old, new, "Move the assignment `X` into `f`.", rel="m.py").ok
    drifted = new.replace("return 1", "return 2")
    assert not check_scope(old, drifted, "Move the assignment `X` into `f`.", rel="m.py").ok


def test_deleting_a_function_that_is_asked_for_is_explained() -> None:
    src = source("shlex.py")
    new = _cut_def(src, "def split(", "def join(")
    instruction = "Delete the function `split`."
    scope = check_scope(src, new, instruction, rel="shlex.py")
    assert scope.ok, scope.refusal()
    # the same deletion asked as a docstring edit of a neighbour is a deleted definition
    other = check_scope(src, new, "Add a docstring to the function `join`.", rel="shlex.py")
    assert not other.ok


QUEUEISH = '''class A:
    def close(self):
        return 1


class B:
    def close(self):
        return 2


def fetch(url):
    return url


def run():
    return fetch(
        "a")
'''


def test_removing_one_of_two_same_named_methods_is_not_called_incomplete() -> None:
    new = QUEUEISH.replace("    def close(self):\n        return 1\n", "    pass\n")
    assert check_scope(QUEUEISH, new, "Remove the method `close` of class `A`.", rel="q.py").ok


def test_new_parameter_passed_at_a_multiline_call_site_is_explained() -> None:
    new = QUEUEISH.replace("def fetch(url):\n    return url", "def fetch(url, timeout=5):\n    return url, timeout")
    new = new.replace('        "a")', '        "a", timeout=5)')
    instruction = "Add a parameter `timeout=5` to `fetch` and use it."
    assert check_scope(QUEUEISH, new, instruction, rel="q.py").ok
    # not used in fetch: not the edit asked for
    unused = new.replace("return url, timeout", "return url")
    scope = check_scope(QUEUEISH, unused, instruction, rel="q.py")
    assert not scope.ok and "never uses the new parameter timeout" in scope.unexplained[0].why


def test_parameter_rule_needs_a_function_of_that_name() -> None:
    new = QUEUEISH.replace("def fetch(url):\n    return url", "def fetch(url, verbose=False):\n    return url")
    # "to control" names no function: only the usual symbol rules apply (fetch is named, the change is in it)
    assert check_scope(QUEUEISH, new, "Add a parameter `verbose` to control `fetch` logging.", rel="q.py").ok


def test_a_move_that_comes_with_other_work_is_not_held_to_a_pure_move() -> None:
    new = QUEUEISH.replace("def run():\n    return fetch(\n        \"a\")\n",
                           "def run():\n    return _get()\n\n\ndef _get():\n    return fetch(\n        \"a\")\n")
    assert check_scope(QUEUEISH, new, "Move the body of `run` into a new helper `_get`.", rel="q.py").ok


def test_a_helper_nested_in_the_named_function_may_go() -> None:
    old = "def parse(s):\n    def step(x):\n        return x + 1\n    return step(s)\n\n\ndef other():\n    return 2\n"
    new = "def parse(s):\n    return s + 1\n\n\ndef other():\n    return 2\n"
    assert check_scope(old, new, "Simplify `parse`.", rel="p.py").ok
    gone = "def parse(s):\n    def step(x):\n        return x + 1\n    return step(s)\n"
    assert not check_scope(old, gone, "Simplify `parse`.", rel="p.py").ok  # `other` is not parse's


def test_move_means_a_request_to_move() -> None:
    old = "STEP = 1\n\n\ndef go(x):\n    return x + STEP\n"
    new = "STEP = 1\n\n\ndef go(x):\n    return x + STEP * 2\n"
    assert check_scope(old, new, "Fix `go`: the player does not move far enough.", rel="g.py").ok
    assert not check_scope(old, new, "Move `STEP` below `go`.", rel="g.py").ok
