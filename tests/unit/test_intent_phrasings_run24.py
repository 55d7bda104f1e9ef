"""Reading rules of run 24, pinned on the suite's files in wordings of our own."""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.intent.extraction import returned
from coder.edit.intent.read import read_instruction


@pytest.mark.parametrize("said", [
    "extract the per-function loop of TextWrapper._wrap_chunks into _take_line(chunks, width)",
    "pull the helper-function part of TextWrapper._wrap_chunks out into _take_line(chunks, width)",
])
def test_a_kind_word_inside_a_hyphenated_modifier_names_no_new_def(said: str) -> None:
    # "the abstract-method scan of ABCMeta.__new__" (ninth fresh set): "scan" was read as a second new def
    spec = read_instruction(said, {"textwrap.py": source("textwrap.py")}, home="textwrap.py")
    assert spec.action == "extract" and spec.new_names == ("_take_line",)


@pytest.mark.parametrize(("said", "names"), [
    ("factor it into _cross_sum(x, y) -> (xbar, ybar, sxy)", ("xbar", "ybar", "sxy")),
    ("a helper _span(a) that returns the tuple (lo, hi), called from both", ("lo", "hi")),
    ("a helper _span(a) returning (lo, hi,)", ("lo", "hi")),
    ("a helper _span(a) that gives back the pair (lo, hi)", ("lo", "hi")),
    ("_span(a) -> (lo, hi), and _other(b) -> (x, y)", ()),  # two tuples: which is whose is not read here
    ("a helper _span(a) that returns (lo)", ()),  # one name in parentheses is no tuple
])
def test_the_tuple_a_new_def_returns_is_read_in_the_order_spelled(said: str, names: tuple[str, ...]) -> None:
    assert returned(said) == names


STATS = '''def median(data):
    data = sorted(data)
    return data[len(data) // 2]


def median_low(data):
    data = sorted(data)
    return data[(len(data) - 1) // 2]
'''


@pytest.mark.parametrize("said", [
    "median_low should take an optional key, so I can pick the record with the median age",
    "add key=None to median_low: I want the one with the median salary out of a list of dicts",
])
def test_a_def_name_said_as_an_adjective_is_no_target(said: str) -> None:
    spec = read_instruction(said, {"stats.py": STATS}, home="stats.py")
    assert [t.qualname for t in spec.targets] == ["median_low"]


def test_a_def_name_before_a_kind_word_or_a_verb_is_still_named() -> None:
    for said in ("add key=None to the median function", "the median crashes on an empty list"):
        spec = read_instruction(said, {"stats.py": STATS}, home="stats.py")
        assert [t.qualname for t in spec.targets] == ["median"], said


@pytest.mark.parametrize("said", [
    "I'd like a wrap_all function in textwrap that wraps each paragraph of a text on its own",
    "I'd like a small convenience function in textwrap, wrap_all(text, width), that wraps each paragraph",
    "we'd like to have a wrap_all helper: each paragraph wrapped on its own, the last function in the module",
])
def test_a_wished_new_function_is_added_under_its_name(said: str) -> None:
    spec = read_instruction(said, {"textwrap.py": source("textwrap.py")}, home="textwrap.py")
    assert (spec.action, spec.new_names) == ("add_function", ("wrap_all",))


@pytest.mark.parametrize(("said", "pair"), [
    ("Can the TextWrapper method _handle_long_word be renamed? Something like _break_long_word would be clearer",
     ("_handle_long_word", "_break_long_word")),
    ("Rename _munge_whitespace? Maybe _normalize_whitespace, or something else you like",
     ("_munge_whitespace", "_normalize_whitespace")),
    ("in textwrap, shorten() -> truncate()", ("shorten", "truncate")),
    ("I want dedent to be called remove_common_indent everywhere in the module", ("dedent", "remove_common_indent")),
    ("Please give wrap a better name: wrap_paragraph. Keep fill calling it.", ("wrap", "wrap_paragraph")),
    ("_munge_whitespace needs a clearer name, like _normalize_whitespace",
     ("_munge_whitespace", "_normalize_whitespace")),
])
def test_a_rename_said_with_its_new_name_apart_or_as_a_wish_is_read(said: str, pair: tuple[str, str]) -> None:
    spec = read_instruction(said, {"textwrap.py": source("textwrap.py")}, home="textwrap.py")
    assert (spec.action, spec.renames) == ("rename", (pair,))


@pytest.mark.parametrize("said", [
    "add type hints to shorten: shorten() -> str",  # a signature's return, not a new name
    "the output of fill is ugly. maybe _fill_lines would be clearer as a helper",  # no rename asked
    "Can TextWrapper._wrap_chunks be renamed? Something like wrapping chunks is clearer",  # no code-looking name
])
def test_no_rename_pair_is_read_where_none_is_said(said: str) -> None:
    spec = read_instruction(said, {"textwrap.py": source("textwrap.py")}, home="textwrap.py")
    assert spec.renames == ()


def _said(file: str, said: str) -> tuple[str, list[str], tuple[str, ...]]:
    spec = read_instruction(said, {file: source(file)}, home=file)
    return spec.action, [t.qualname for t in spec.targets], spec.new_names


def test_accept_a_named_flag_adds_that_parameter() -> None:
    assert _said("textwrap.py", "shorten should accept a placeholder_first flag that puts the placeholder first") == (
        "add_parameter", ["shorten"], ("placeholder_first",))


@pytest.mark.parametrize(("said", "new"), [
    ("TextWrapper could use a method reset_options(self) that puts width and the indents back", "reset_options"),
    ("can we get a __repr__ on TextWrapper showing width and the two indent strings", "__repr__"),
])
def test_a_method_wished_on_a_class_is_added_to_it(said: str, new: str) -> None:
    spec = read_instruction(said, {"textwrap.py": source("textwrap.py")}, home="textwrap.py")
    assert (spec.action, spec.new_names, spec.owner and spec.owner.qualname) == ("add_method", (new,), "TextWrapper")
    assert not spec.targets  # "the two indent strings": no function indent


@pytest.mark.parametrize(("said", "target"), [
    ("the queue property of scheduler: return a tuple, not a list", "scheduler.queue"),
    ("Document the class scheduler with a docstring describing what it does", "scheduler"),
])
def test_a_name_before_a_code_noun_or_after_a_kind_word_is_named(said: str, target: str) -> None:
    assert _said("sched.py", said)[1] == [target]


@pytest.mark.parametrize("said", [
    "the shorten function goes after dedent and indent",
    "move shorten so it comes after dedent and indent",
    "move shorten after both dedent and indent",
])
def test_a_move_after_two_defs_goes_after_the_later_and_moves_neither(said: str) -> None:
    spec = read_instruction(said, {"textwrap.py": source("textwrap.py")}, home="textwrap.py")
    assert spec.action == "move" and [t.qualname for t in spec.targets] == ["shorten"]
    assert spec.anchor is not None and (spec.anchor.where, spec.anchor.symbol and spec.anchor.symbol.qualname) == (
        "after", "indent")


def test_a_move_before_two_defs_goes_before_the_earlier() -> None:
    spec = read_instruction("move indent so it sits before wrap and fill", {"textwrap.py": source("textwrap.py")},
                            home="textwrap.py")
    assert [t.qualname for t in spec.targets] == ["indent"]
    assert spec.anchor is not None and spec.anchor.symbol is not None and spec.anchor.symbol.qualname == "wrap"
