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


# --- read since the sixth fresh set's first run (2-core CPU, run 20); wordings of our own on the suite's files ---

def spec_of(file: str, said: str):  # type: ignore[no-untyped-def]
    return read_instruction(said, {file: source(file)}, home=file)


@pytest.mark.parametrize(("said", "targets"), [
    ("Remove dedent from textwrap.py. Keep indent, which sits right below it.", ["dedent"]),
    ("get rid of _glob0 in glob, plus nothing else", ["_glob0"]),
    ("Delete _glob0: nobody needs it any more, and it only calls _lexists", ["_glob0"]),
    ("relocate _glob0 in glob up to just before glob1", ["_glob0"]),
])
def test_the_module_a_def_to_keep_and_a_def_the_target_calls_are_no_targets(said: str, targets: list[str]) -> None:
    spec = spec_of("textwrap.py" if "dedent" in said else "glob.py", said)
    assert [t.qualname for t in spec.targets] == targets


def test_a_def_named_by_called_is_still_deleted() -> None:
    spec = spec_of("glob.py", "delete _glob0 and the helper called _glob2")
    assert [t.qualname for t in spec.targets] == ["_glob0", "_glob2"]


def test_the_module_name_stays_a_function_among_several() -> None:
    spec = spec_of("glob.py", "change the default of recursive in glob and iglob to True")
    assert [t.qualname for t in spec.targets] == ["glob", "iglob"]


@pytest.mark.parametrize("said", [
    "The helper _glob0 has a cryptic name. I'd prefer _glob_literal; please rename the function and its calls.",
    "The literal-pattern helper is called _glob0, which tells nobody anything. I would like it to be called "
    "_glob_literal instead.",
    "Our style guide wants readable names for _glob0 in glob. Could you change its name to _glob_literal?",
])
def test_a_wished_name_and_the_name_it_replaces_are_a_rename(said: str) -> None:
    spec = spec_of("glob.py", said)
    assert (spec.action, spec.renames) == ("rename", (("_glob0", "_glob_literal"),))


def test_a_comments_text_after_its_colon_is_no_rename_and_a_method_called_on_a_value_is_no_missing_name() -> None:
    spec = spec_of("queue.py", "comment on the popleft() line in Queue._get: FIFO -> oldest first")
    assert (spec.action, spec.renames, spec.facts.missing) == ("comment", (), ())
    assert [t.qualname for t in spec.targets] == ["Queue._get"]


@pytest.mark.parametrize(("file", "said", "action", "new"), [
    ("queue.py", "I'd like the Queue class to offer a drain method taking no arguments and returning the items",
     "add_method", ("drain",)),
    ("queue.py", "deque has rotate_left() and I need the same on Queue: a method moving n items to the back",
     "add_method", ("rotate_left",)),
    ("textwrap.py", "textwrap needs longest_line(text): the length of the longest line of text",
     "add_function", ("longest_line",)),
    ("glob.py", "glob0 and glob1 check the same thing. Pull that into one private function _exists(dirname, name) "
                "and call it from both", "extract", ("_exists",)),
])
def test_new_defs_said_in_other_ways(file: str, said: str, action: str, new: tuple[str, ...]) -> None:
    spec = spec_of(file, said)
    assert (spec.action, spec.new_names, spec.facts.missing) == (action, new, ())


def test_a_parameter_of_a_new_functions_signature_names_no_def() -> None:
    said = ("add a module-level function indent_all(texts, indent) to textwrap.py; indent is the prefix every line "
            "of every text gets")
    spec = spec_of("textwrap.py", said)
    assert (spec.action, spec.new_names, spec.targets) == ("add_function", ("indent_all",), ())


def test_a_name_in_what_a_comment_says_is_no_ambiguity_for_the_model() -> None:
    said = ("In Queue.get, add a comment above the `with self.not_empty:` line. It should say that it pairs with "
            "the notify in put.")
    spec = spec_of("queue.py", said)
    assert ([t.qualname for t in spec.targets], spec.ambiguous) == (["Queue.get"], ())


def test_a_comments_line_said_by_an_expression_of_two_operators() -> None:
    said = ("In rgb_to_yiq there is a line computing 0.30*r + 0.59*g + 0.11*b. Put a comment directly above it "
            "explaining the weights.")
    anchor = spec_of("colorsys.py", said).anchor
    assert anchor is not None and anchor.line == "y = 0.30*r + 0.59*g + 0.11*b"
