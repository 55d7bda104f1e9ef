"""A hints- or docstrings-only reply that rewrote code besides: what was asked put on the original.

The recorded replies are Qwen2.5-Coder-1.5B's on the H200, run 7 of 2026-12-03, each refused there by the
scope check: ``tests/data/edit/h200_1203/run7_grafts.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from spec_helpers import replayed

from coder.bench.edits.taskdef import source
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.graft import grafted
from coder.edit.checks.kinds import Invariant

DATA = Path(__file__).parents[1] / "data" / "edit" / "h200_1203" / "run7_grafts.json"
RUN7 = {(r["task"], r["wording"]): r for r in json.loads(DATA.read_text())["rows"]}
TASK = {t.name: t for t in (*TASKS, *HELDOUT)}
HINTS, DOCS = Invariant("only type hints", False, True), Invariant("only docstrings", True, False)


def _evaluated(tmp_path: Path, name: str, wording: int) -> tuple[bool, bool, str, str]:
    """(accepted, the task's judge passes, the new text, why) of the recorded reply, as coder edit evaluates it now."""
    row = RUN7[(name, wording)]
    return replayed(tmp_path / "r", TASK[name], row["instruction"], row["reply"])


@pytest.mark.parametrize("wording", [0, 1, 2])
def test_run7s_class_hints_land_without_the_dropped_class_values(tmp_path: Path, wording: int) -> None:
    accepted, judged, new, why = _evaluated(tmp_path, "getopt-class-hints", wording)
    assert accepted and judged, why
    old = source("getopt.py")
    hinted = old.replace("def __init__(self, msg, opt=''):", "def __init__(self, msg: str, opt: str = '') -> None:")
    assert new == hinted.replace("def __str__(self):\n", "def __str__(self) -> str:\n")


@pytest.mark.parametrize(("name", "wording"), [
    ("graphlib-class-docstrings", 1),  # docstrings on six methods, _find_cycle mangled and left bare: partial
    ("colorsys-hints", 2),  # the reply dropped lines and annotated nothing: nothing to put on the original
])
def test_what_a_graft_cannot_do_stays_refused(tmp_path: Path, name: str, wording: int) -> None:
    accepted, _, _, why = _evaluated(tmp_path, name, wording)
    assert not accepted, why


OLD = '''class C:
    x = 1

    def m(self, a, b=2, *rest):
        return a + b

    def n(self, s):  # keep
        return s

    def one(self): return 1
'''


def test_only_annotations_of_an_unchanged_header_are_taken() -> None:
    new = OLD.replace("def m(self, a, b=2, *rest):", "def m(self, a: int, b: int = 3, *rest: int) -> int:")
    assert grafted(OLD, new, HINTS) is None  # the default changed: code, not a hint
    new = OLD.replace("def m(self, a, b=2, *rest):", "def m(self, a: int, b: int = 2, *rest: int) -> int:")
    new = new.replace("return a + b", "return b + a").replace("    x = 1", "    x: int")
    assert grafted(OLD, new, HINTS) == OLD.replace("def m(self, a, b=2, *rest):",
                                                   "def m(self, a: int, b: int = 2, *rest: int) -> int:")


def test_a_header_with_a_comment_or_a_body_on_its_line_is_left_alone() -> None:
    new = OLD.replace("def n(self, s):  # keep", "def n(self, s: str) -> str:").replace(
        "def one(self): return 1", "def one(self) -> int: return 1")
    assert grafted(OLD, new, HINTS) is None


def test_a_docstring_goes_under_the_header_at_the_bodys_indentation() -> None:
    new = OLD.replace("    def m(self, a, b=2, *rest):\n", '    def m(self, a, b=2, *rest):\n        """Add.\n\n'
                      '        Twice.\n        """\n').replace("x = 1", "x = 2")
    out = grafted(OLD, new, DOCS)
    assert out == OLD.replace("    def m(self, a, b=2, *rest):\n",
                              '    def m(self, a, b=2, *rest):\n        """Add.\n\n        Twice.\n        """\n')


def test_two_docstrings_given_and_a_def_of_the_region_left_bare_is_partial() -> None:
    new = OLD.replace("return a + b", '"""Add."""\n        return a + b').replace(
        "return s", '"""Same."""\n        return s').replace("x = 1", "x = 2")
    assert grafted(OLD, new, DOCS, within=(1, 9)) is not None  # `one` (row 10) lies outside the rows replaced
    assert grafted(OLD, new, DOCS, within=(1, 10)) is None  # `one` has none, and the reply gave it none


def test_an_existing_docstring_is_not_reworded() -> None:
    old = 'def f():\n    """Old."""\n    return 1\n'
    assert grafted(old, 'def f():\n    """New."""\n    return 2\n', DOCS) is None


def test_class_hints_that_leave_a_method_bare_are_not_grafted(tmp_path: Path) -> None:
    # the 1.5B on the CPU (scripts/demo, 2026-12-03), the TUI's stream as shown: __init__ annotated, __str__ bare,
    # the class attributes' values dropped; the graft would have landed __init__ alone, which the user rejected
    reply = ("```python\nclass GetoptError(Exception):\n    opt: str\n    msg: str\n"
             "    def __init__(self, msg: str, opt: str = ''):\n        self.msg = msg\n        self.opt = opt\n"
             "        Exception.__init__(self, msg, opt)\n    def __str__(self):\n        return self.msg\n```\n")
    accepted, _, _, why = replayed(tmp_path / "r", TASK["getopt-class-hints"], RUN7[("getopt-class-hints", 0)]
                                   ["instruction"], reply)
    assert not accepted, why
