"""A verb after "class" or "function" is prose, not a name: the TUI demo of 2026-12-03 on CPython's string.py.

"add a docstring to check_unused_args saying the base class does nothing ..." was refused before any request:
"the instruction names class does, which string.py does not define".
"""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.intent.read import read_instruction

STRING = source("heldout/string.py")  # CPython 3.11.7's string.py


@pytest.mark.parametrize(("instruction", "action", "target"), [
    ("add a docstring to check_unused_args saying the base class does nothing and subclasses may override it",
     "docstring", "Formatter.check_unused_args"),
    ("add a docstring to capwords; the function returns a str", "docstring", "capwords"),
    ("add a comment in vformat explaining the class has no state", "comment", "Formatter.vformat"),
])
def test_a_verb_after_a_kind_word_names_nothing(instruction: str, action: str, target: str) -> None:
    spec = read_instruction(instruction, {"string.py": STRING}, home="string.py")
    assert (spec.action, [t.qualname for t in spec.targets], spec.facts.missing) == (action, [target], ())


def test_a_missing_def_named_after_a_kind_word_is_still_an_error() -> None:
    spec = read_instruction("delete the function foo", {"string.py": STRING}, home="string.py")
    assert spec.facts.missing == ("function foo",)
