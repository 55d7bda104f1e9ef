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
