"""Reading rules of run 20, each pinned on the suite's files in wordings of our own (the fifth fresh set, read
since its first run, showed the misses; its own wordings are not copied here)."""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.intent.read import read_instruction


def read(file: str, said: str) -> tuple[str, list[str], str, tuple[str, ...]]:
    spec = read_instruction(said, {file: source(file)}, home=file)
    return spec.action, [t.qualname for t in spec.targets], spec.reach, spec.params


@pytest.mark.parametrize("said", [
    "Give dedent a docstring. Say that it finds the whitespace every line shares and that fill calls wrap first.",
    "dedent needs a docstring explaining how it differs from indent, and mentions that wrap never calls it",
])
def test_names_in_what_the_text_says_are_no_targets_and_no_callers(said: str) -> None:
    assert read("textwrap.py", said)[:3] == ("docstring", ["dedent"], "symbol")


def test_a_docstring_named_in_a_symptom_is_no_docstring_action() -> None:
    said = "textwrap.shorten('hello world', width=5) blows up with a ValueError, the example in its own docstring"
    assert read("textwrap.py", said)[:2] == ("change", ["shorten"])
    # with its verb it is still documentation
    assert read("textwrap.py", "Document shorten: it raises ValueError when width is too small")[0] == "docstring"


@pytest.mark.parametrize(("said", "params"), [
    ("add optional limit (default None) to sched.scheduler.run", ("limit=None",)),
    ("Add an optional timeout (default: None) to scheduler.run", ("timeout=None",)),
])
def test_a_name_added_with_its_default_in_brackets_is_a_new_parameter(said: str, params: tuple[str, ...]) -> None:
    action, targets, _, got = read("sched.py", said)
    assert (action, targets, got) == ("add_parameter", ["scheduler.run"], params)


@pytest.mark.parametrize("said", ["hints for shlex.split please", "add hints to split, thanks"])
def test_hints_alone_are_type_hints(said: str) -> None:
    assert read("shlex.py", said)[:2] == ("type_hints", ["split"])


@pytest.mark.parametrize(("said", "name"), [
    ("Queue should get a size property that returns qsize()", "size"),
    ("add a simple close method to Queue", "close"),
    ("Can you give Queue a read-only capacity property that hands back maxsize?", "capacity"),
    ("give the Queue class a cached length property", "length"),
])
def test_a_plain_word_right_before_method_or_property_is_the_new_name(said: str, name: str) -> None:
    spec = read_instruction(said, {"queue.py": source("queue.py")}, home="queue.py")
    assert (spec.action, spec.new_names, spec.owner and spec.owner.qualname) == ("add_method", (name,), "Queue")
