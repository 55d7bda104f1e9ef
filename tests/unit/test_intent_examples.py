"""The failing examples a bug report gives, read into the spec (:mod:`coder.edit.intent.examples`).

Each shape in several wordings; the first of each is a recorded instruction of the 2026-12-03 H200 run
(run4-suite/run4-heldout, fix and bugfix kinds), the others are other users' wordings of the same shape.
"""

from __future__ import annotations

import pytest

from coder.edit.intent.read import read_instruction
from coder.edit.intent.spec import Example

FILE = '''\
def unhex(s):
    return 0

def capwords(s, sep=None):
    return s

def _ishidden(path):
    return path[0] == '.'

def fnmatch(name, pat):
    return False

class Timer:
    def __init__(self, stmt):
        self.stmt = stmt

class Whitespace:
    def __init__(self, ws):
        self.ws = ws

    def indent_level(self, tabsize):
        return 1

    def static_order(self):
        return []
'''


def examples(instruction: str) -> tuple[Example, ...]:
    return read_instruction(instruction, {"m.py": FILE}, home="m.py").examples


@pytest.mark.parametrize("instruction", [
    "decoding quoted-printable with lowercase hex is broken when binascii isn't used: unhex(b'ff') returns 85 "
    "instead of 255",
    "unhex(b'ff') gives 85 instead of 255",
    "Fix `unhex`: `unhex(b'ff')` returns `85` instead of `255`.",
    "unhex(b'ff') is 85 rather than 255, lowercase digits are wrong",
    "unhex(b'ff') returns 85, but should return 255",
])
def test_returns_x_instead_of_y(instruction: str) -> None:
    assert examples(instruction) == (Example("unhex(b'ff')", expected="255", wrong="85"),)


def test_strings_and_lists_in_both_places() -> None:
    assert examples("capwords ignores sep when joining: capwords('hello-world', '-') gives 'Hello World' "
                    "instead of 'Hello-World'") == (
        Example("capwords('hello-world', '-')", expected="'Hello-World'", wrong="'Hello World'"),)
    assert examples("fnmatch(['a', 'b', 'c'], '[!ab]') returns ['a', 'b'] instead of ['c']") == (
        Example("fnmatch(['a', 'b', 'c'], '[!ab]')", expected="['c']", wrong="['a', 'b']"),)


@pytest.mark.parametrize("instruction", [
    "unhex(b'ff') should return 255",
    "Fix unhex so that `unhex(b'ff')` must return `255` (lowercase digits)",
    "lowercase hex is broken: unhex(b'ff') should be 255.",
])
def test_should_return_y(instruction: str) -> None:
    assert examples(instruction) == (Example("unhex(b'ff')", expected="255"),)


@pytest.mark.parametrize(("instruction", "error"), [
    ("multi-line statements break timeit: Timer('x = 1\\ny = 2') raises IndentationError", "IndentationError"),
    ("Timer('x = 1\\ny = 2') throws an IndentationError when the statement has two lines", "IndentationError"),
    ("Fix Timer: `Timer('x = 1\\ny = 2')` fails with `IndentationError`.", "IndentationError"),
])
def test_raises_e(instruction: str, error: str) -> None:
    assert examples(instruction) == (Example("Timer('x = 1\\ny = 2')", raises=error),)


@pytest.mark.parametrize("instruction", [
    "Fix _ishidden: _ishidden('') raises IndexError, it should return False",
    "_ishidden('') raises IndexError; it should just return False for an empty path",
    "_ishidden('') raises IndexError. Instead, it must return False.",
])
def test_it_should_return_after_the_call(instruction: str) -> None:
    assert examples(instruction) == (Example("_ishidden('')", expected="False", raises="IndexError"),)


def test_only_the_wrong_value() -> None:
    assert examples("Fix `fnmatch`: a negated set like `[!a]` matches the listed characters instead of the "
                    "others, so `fnmatch('b', '[!a]')` is False.") == (
        Example("fnmatch('b', '[!a]')", wrong="False"),)
    assert examples("[!a] patterns are not negated: fnmatch('a', '[!a]') is True and fnmatch('b', '[!a]') is "
                    "False") == (Example("fnmatch('a', '[!a]')", wrong="True"),
                                  Example("fnmatch('b', '[!a]')", wrong="False"))
    # a method of an instance the report builds, and a pure builtin around the call
    assert examples("Whitespace('\\t').indent_level(8) gives 1 but a tab at tab size 8 is 8 columns") == (
        Example("Whitespace('\\t').indent_level(8)", wrong="1"),)
    assert examples("list(Whitespace('x').static_order()) returns ['a'] and b is missing") == (
        Example("list(Whitespace('x').static_order())", wrong="['a']"),)


def test_the_case_that_works_after_but_is_no_example() -> None:
    """"f('A') is False but f('a') is True": the second call is the contrast that works, not a bug."""
    assert examples("fnmatch('A', 'a') is False but fnmatch('a', 'a') is True, names should match in any "
                    "case") == (Example("fnmatch('A', 'a')", wrong="False"),)


def test_a_condition_is_no_example() -> None:
    assert examples("when `fnmatch('a', 'a')` is True the name is skipped; fix the skipping") == ()
    assert examples("if unhex(b'ff') returns 255, the next byte is lost") == ()


def test_it_should_return_belongs_to_the_call_only_close_by() -> None:
    assert examples("_ishidden('') raises IndexError. Separately, unhex should handle None: it should return "
                    "0") == (Example("_ishidden('')", raises="IndexError"),)
    assert examples("_ishidden('') raises IndexError, which breaks globbing in the current directory whenever "
                    "the pattern is empty and nothing else was given on the command line; it should return "
                    "False") == (Example("_ishidden('')", raises="IndexError"),)


@pytest.mark.parametrize("instruction", [
    "make unhex(b'ff') return 255",  # an order, not a report: no value of what it does now
    "rgb_to_hls(1.0, 0.0, 0.5) returns a negative hue (-0.083), hues should always be between 0 and 1",  # prose
    "Fix `unhex`: `unhex(b'ff')` gives about -0.083; it must be in [0, 1).",  # "about": no literal
    "fix unhex: unhex(x) returns 85 instead of 255",  # an argument that is no literal
    "print(b'ff') returns 85 instead of 255",  # a callee the file does not define
    "reprlib.repr([1, 2]) prints '[1, 2, ...]'",  # "prints" says no value; a name of another module
    "put 3, 1 and 2 and get() returns 1, 3, 2",  # a list in prose is no literal
    "unhex(b'ff') returns 85 instead of 255; add a docstring to unhex",  # not a fix's reading: a docstring
])
def test_no_example(instruction: str) -> None:
    assert examples(instruction) == ()
