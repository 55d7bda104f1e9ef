"""Reading rules of run 22, pinned on the suite's files in wordings of our own: "take X out" deletes X when X is a
def (named, or said with its kind), and changes the def that has X when X is a parameter or a local."""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.intent.read import read_instruction


def read(file: str, said: str) -> tuple[str, list[str]]:
    spec = read_instruction(said, {file: source(file)}, home=file)
    return spec.action, [t.qualname for t in spec.targets]


@pytest.mark.parametrize(("said", "target"), [
    ("Please take the cancel method out of sched.py, nobody calls it", "scheduler.cancel"),
    ("take dedent out of textwrap.py", "dedent"),
    ("rip the shorten function out of the module, we wrap everything ourselves", "shorten"),
    ("could you take the indent helper out? it is unused here", "indent"),
])
def test_take_a_def_out_deletes_it(said: str, target: str) -> None:
    file = "sched.py" if "sched" in said else "textwrap.py"
    assert read(file, said) == ("delete", [target])


@pytest.mark.parametrize("said", [
    "shorten should take width out of its kwargs",
    "Take it easy with shorten: take the placeholder out of its keyword arguments",
])
def test_take_a_parameter_out_changes_the_def_never_cuts_it(said: str) -> None:
    assert read("textwrap.py", said) == ("change", ["shorten"])


def test_taking_code_out_into_a_new_helper_is_an_extraction() -> None:
    said = "take the whitespace handling out of TextWrapper._munge_whitespace into a new helper _expand_tabs"
    assert read("textwrap.py", said)[0] == "extract"
