"""The header of a def that gains a parameter, written by coder as the instruction spells it (plan.passes).

A retry of the region shows it in place, so the model is asked only for the body's use of it
(:func:`coder.edit.run.plan_step.header_shown`).
"""

from __future__ import annotations

import pytest

from coder.bench.edits.tasks import TASKS, source
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.intent.read import read_instruction
from coder.edit.intent.spec import ChangeSpec
from coder.edit.plan.passes import with_params_in_header

TASKS_BY_NAME = {t.name: t for t in (*TASKS, *HELDOUT)}


@pytest.mark.parametrize(("name", "wording", "header"), [
    ("glob-callers", 0, "def _listdir(dirname, dir_fd, dironly, include_hidden=True):"),
    ("glob-callers", 2, "def _listdir(dirname, dir_fd, dironly, include_hidden=True):"),
    ("timeit-param", 1, "def reindent(src, indent, char=' '):"),
    ("fnmatch-param", 0, "def _compile_pattern(pat, flags=0):"),
    ("shlex-param", 1, "def join(split_command, sep=' '):"),
])
def test_the_header_gains_the_parameter_as_spelled(name: str, wording: int, header: str) -> None:
    task = TASKS_BY_NAME[name]
    text = source(task.file)
    spec = read_instruction(task.wordings[wording], {task.file: text}, home=task.file)
    new = with_params_in_header(text, spec.targets[0].qualname, spec)
    assert new is not None
    changed = [(a, b) for a, b in zip(text.splitlines(), new.splitlines(), strict=True) if a != b]
    assert [b for _, b in changed] == [header]


def _spec(*params: str) -> ChangeSpec:
    return ChangeSpec("", "add_parameter", params=params)


@pytest.mark.parametrize(("text", "params", "header"), [
    ("class C:\n    def m(self):\n        pass\n", ("strict: bool = False",),
     "    def m(self, strict: bool = False):"),
    ("def f():\n    pass\n", ("n=1",), "def f(n=1):"),
    ("def f(a, *, key=None):\n    pass\n", ("n=1",), "def f(a, *, key=None, n=1):"),
    ("def f(a,\n      b=2,\n      ):\n    pass\n", ("n=1",), "      b=2, n=1,"),
    ("def f(a, *args):\n    pass\n", ("n=1",), "def f(a, *args, n=1):"),
])
def test_where_the_parameter_goes(text: str, params: tuple[str, ...], header: str) -> None:
    qual = "C.m" if text.startswith("class") else "f"
    new = with_params_in_header(text, qual, _spec(*params))
    assert new is not None and header in new.splitlines()
    assert len(new.splitlines()) == len(text.splitlines())  # the same lines: the prompt's region is the file's


@pytest.mark.parametrize(("text", "params"), [
    ("def f(a, **kw):\n    pass\n", ("n=1",)),  # before **kw: not a plain append
    ("def f(a):\n    pass\n", ("n",)),  # no default: a required parameter changes every call
    ("def f(a, n=2):\n    pass\n", ("n=1",)),  # taken already: a change of its default
    ("def f(a):\n    pass\n", ("n=[]",)),  # not a literal the instruction spells exactly
    ("def f(a):\n    pass\n", ("n=' [",)),  # a default the wording cut
])
def test_what_is_left_to_the_model(text: str, params: tuple[str, ...]) -> None:
    assert with_params_in_header(text, "f", _spec(*params)) is None
