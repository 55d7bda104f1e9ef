"""Every task check of ``coder bench --edits`` passes on a correct result and fails on wrong ones.

The correct results are written here by hand from the shipped stdlib files (the edit a
careful person would make); the wrong ones are the untouched file, the correct result with
one unrelated change (a model's drift), and for renames a rename that misses a use.
"""

from __future__ import annotations

import ast

import pytest

from coder.bench.edits.checks import Exact, Renamed, SameAst, rename_names, replace_once
from coder.bench.edits.tasks import TASKS, Task, select, source

# task -> snippet edits that turn the shipped file into a correct result (free-wording tasks)
_HAND: dict[str, tuple[tuple[str, str], ...]] = {
    "colorsys-docstring": (("def hls_to_rgb(h, l, s):\n",
                            'def hls_to_rgb(h, l, s):\n    """Convert HLS to RGB; returns (r, g, b)."""\n'),),
    "colorsys-hints": (("def rgb_to_hsv(r, g, b):",
                        "def rgb_to_hsv(r: float, g: float, b: float) -> tuple[float, float, float]:"),),
    "colorsys-comment": (("def _v(m1, m2, hue):\n", "def _v(m1, m2, hue):\n    # wrap the hue into [0, 1)\n"),),
    "bisect-comment": (("    if key is None:\n        while lo < hi:\n            mid = (lo + hi) // 2\n"
                        "            if a[mid] < x:",
                        "    if key is None:\n        # binary search on the items\n        while lo < hi:\n"
                        "            mid = (lo + hi) // 2\n            if a[mid] < x:"),),
    "bisect-hints": (("def insort_right(a, x, lo=0, hi=None, *, key=None):",
                      "def insort_right(a: list, x: object, lo: int = 0, hi: int | None = None, *,\n"
                      "                 key: Callable | None = None) -> None:"),
                     ('"""Bisection algorithms."""\n', '"""Bisection algorithms."""\nfrom typing import Callable\n')),
    "fnmatch-param": (("def _compile_pattern(pat):", "def _compile_pattern(pat, flags=0):"),
                      ("    return re.compile(res).match", "    return re.compile(res, flags).match")),
    "sched-docstring": (("class scheduler:\n", 'class scheduler:\n    """Runs events at scheduled times."""\n'),),
    "sched-comment": (("        pop = heapq.heappop\n        while True:",
                       "        pop = heapq.heappop\n        # run due events until the queue is empty\n"
                       "        while True:"),),
    "shlex-param": (("def join(split_command):", "def join(split_command, sep=' '):"),
                    ("    return ' '.join(quote(arg) for arg in split_command)",
                     "    return sep.join(quote(arg) for arg in split_command)")),
    "shlex-comment": (("        return \"''\"\n    if _find_unsafe(s) is None:",
                       "        return \"''\"\n    # safe strings are returned unquoted\n"
                       "    if _find_unsafe(s) is None:"),),
    "queue-hints": (("    def put_nowait(self, item):\n        \'\'\'Put an item into the queue without blocking.\n\n"
                     "        Only enqueue",
                     "    def put_nowait(self, item: object) -> None:\n"
                     "        \'\'\'Put an item into the queue without blocking.\n\n        Only enqueue"),),
    "queue-docstring": (("    def _init(self, maxsize):\n        self.queue = deque()\n",
                         "    def _init(self, maxsize):\n        \'\'\'Set up an empty deque.\'\'\'\n"
                         "        self.queue = deque()\n"),),
    "textwrap-param": (("def shorten(text, width, **kwargs):",
                        "def shorten(text, width, placeholder=' [...]', **kwargs):"),
                       ("    w = TextWrapper(width=width, max_lines=1, **kwargs)",
                        "    w = TextWrapper(width=width, max_lines=1, placeholder=placeholder, **kwargs)")),
    "textwrap-docstring": (("    def _split_chunks(self, text):\n",
                            '    def _split_chunks(self, text):\n        """Munge whitespace, then split."""\n'),),
}


def correct_result(task: Task) -> str:
    """A correct result of ``task`` on its shipped file."""
    src = source(task.file)
    check = task.check
    if isinstance(check, Exact | SameAst):
        return check.expected(src)
    if isinstance(check, Renamed):
        return rename_names(src, check.old, check.new)
    return replace_once(src, _HAND[task.name])


def test_suite_size_and_files() -> None:
    assert len(TASKS) >= 24
    files = {t.file for t in TASKS}
    assert len(files) >= 6
    for f in files:
        assert 100 <= source(f).count("\n") <= 600, f
    kinds = {t.kind for t in TASKS}
    assert {"rename", "docstring", "param", "comment", "constant", "hints", "delete", "move"} <= kinds
    assert len({t.name for t in TASKS}) == len(TASKS)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_check_passes_on_correct_result(task: Task) -> None:
    src = source(task.file)
    new = correct_result(task)
    assert new != src
    ast.parse(new)
    ok, why = task.check(src, new)
    assert ok, why


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_check_fails_on_untouched_file(task: Task) -> None:
    src = source(task.file)
    assert not task.check(src, src)[0]


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_check_fails_on_drift(task: Task) -> None:
    """The correct result plus one unrelated change (a statement, or a changed number) is wrong."""
    src = source(task.file)
    new = correct_result(task)
    assert not task.check(src, new + "\n_drift = 1\n")[0]
    lines = new.splitlines(keepends=True)
    # change the last `return X` of the file into `return X or None`: still parses, different code
    i = max(n for n, line in enumerate(lines) if line.strip().startswith("return ") and line.rstrip()[-1] not in
            "([{,\\")
    lines[i] = lines[i].rstrip("\n") + " or None\n"
    drifted = "".join(lines)
    ast.parse(drifted)
    assert not task.check(src, drifted)[0]


def test_check_fails_on_syntax_error() -> None:
    for task in TASKS:
        assert not task.check(source(task.file), correct_result(task) + "\ndef (:\n")[0], task.name


@pytest.mark.parametrize("task", [t for t in TASKS if t.kind == "rename"], ids=lambda t: t.name)
def test_rename_check_fails_on_partial_rename(task: Task) -> None:
    src = source(task.file)
    assert isinstance(task.check, Renamed)
    new = correct_result(task)
    # put the old name back at its last use only
    cut = new.rindex(task.check.new)
    partial = new[:cut] + task.check.old + new[cut + len(task.check.new):]
    assert not task.check(src, partial)[0]


def test_comment_check_rejects_code_change_with_comment() -> None:
    task = next(t for t in TASKS if t.name == "colorsys-comment")
    src = source(task.file)
    new = replace_once(src, (("def _v(m1, m2, hue):\n    hue = hue % 1.0",
                              "def _v(m1, m2, hue):\n    # wrap\n    hue = hue % 2.0"),))
    assert not task.check(src, new)[0]


def test_select_by_name_and_kind() -> None:
    assert [t.name for t in select("shlex-r")] == ["shlex-rename"]
    assert all(t.kind == "rename" for t in select(kinds="rename"))
    assert len(select()) == len(TASKS)
