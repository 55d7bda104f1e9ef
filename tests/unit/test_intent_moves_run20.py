"""Moves read in run 20: a def said after a relation word stays where it is, the nearer of two relations is where
the block lands, defs described as a group ("the three private low helpers") are found by their names and
adjacency, and a move that names nothing to move is refused, not sent to the model. Wordings of our own on a
small module of our own (the fifth and fourth fresh sets showed the misses; their wordings are not copied)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits.run import proposed
from coder.edit.intent.read import read_instruction
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import PlanRequest, plan_for, run_plan
from coder.errors import CoderError

MOD = "mod.py"
TEXT = '''LIMIT = 3
_seen = {}


def first(x):
    return _low_a(x) + _low_b(x) + _low_c(x)


def _low_a(x):
    return x


def _low_b(x):
    return x + 1


def _low_c(x):
    return x + 2


def _high_a(x):
    return x * 2


def last(x):
    return first(x) + _high_a(x)
'''
LOWS = ["_low_a", "_low_b", "_low_c"]


def read(said: str) -> tuple[str, list[str], str | None, str | None]:
    spec = read_instruction(said, {MOD: TEXT}, home=MOD)
    anchor = spec.anchor
    return (spec.action, [t.qualname for t in spec.targets], anchor.where if anchor else None,
            anchor.symbol.qualname if anchor and anchor.symbol else None)


@pytest.mark.parametrize("said", [
    "The three private low helpers sit between first and _high_a. Put them after _high_a so they immediately "
    "precede last.",
    "relocate the three low helpers so that they come after _high_a, right before the last function",
])
def test_defs_described_as_a_group_move_and_the_landmarks_stay(said: str) -> None:
    action, targets, where, at = read(said)
    assert (action, targets) == ("move", LOWS)
    assert (where, at) in (("before", "last"), ("after", "_high_a"))


def test_of_two_relations_the_one_said_immediately_is_where_the_block_lands() -> None:
    assert read("move _high_a so it follows _low_c and comes immediately before last") == (
        "move", ["_high_a"], "before", "last")


@pytest.mark.parametrize("said", [
    "move the low helpers after _high_a",  # no count: a group of any size is no reading
    "move the two private low helpers right before last",  # three fit, not two
])
def test_a_group_that_does_not_fit_exactly_names_nothing(said: str) -> None:
    assert read(said)[1] == []


def test_a_named_def_still_moves_when_a_relation_word_precedes_another() -> None:
    assert read("move first so that it follows last") == ("move", ["first"], "after", "last")


def test_a_move_that_names_nothing_to_move_is_refused_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_repo(root, {MOD: TEXT})
    engine = EditEngine(None, root)
    with pytest.raises(CoderError, match="names nothing to move"):
        plan_for(engine, root / MOD, "Those two module-level assignments should sit right before the last function")


def test_the_group_moves_mechanically_with_no_model(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_repo(root, {MOD: TEXT})
    engine = EditEngine(None, root)
    prep = plan_for(engine, root / MOD, "please move the three low helpers so they come right before last")
    assert isinstance(prep, PlanRequest) and not prep.requests

    def no_model(_request: object) -> object:
        raise AssertionError("asked the model")

    prop = run_plan(engine, prep, no_model)
    assert prop.ok
    new = proposed(prop, root)[MOD]
    lows = TEXT[TEXT.index("def _low_a"):TEXT.index("def _high_a")]
    expected = TEXT.replace(lows, "").replace("def last", lows + "def last")
    assert ast.dump(ast.parse(new)) == ast.dump(ast.parse(expected))  # blank lines are the mover's own
