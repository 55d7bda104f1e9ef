"""A comment asked for and a short docstring written instead: the docstring becomes the comment.

The replies are Qwen2.5-Coder-1.5B's on the H200, run 6 of 2026-12-03 (auto mode), each refused there by
the scope check: ``tests/data/edit/h200_1203/run6_comment_docstrings.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from spec_helpers import replayed

from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.as_comment import docstrings_as_comments
from coder.edit.intent.read import read_instruction

DATA = Path(__file__).parents[1] / "data" / "edit" / "h200_1203" / "run6_comment_docstrings.json"
RUN6 = {(r["task"], r["wording"]): r for r in json.loads(DATA.read_text())["rows"]}
TASK = {t.name: t for t in (*TASKS, *HELDOUT)}


def _evaluated(tmp_path: Path, name: str, wording: int) -> tuple[bool, bool, str, str]:
    """(accepted, the task's judge passes, the new text, why) of the recorded reply, as coder edit evaluates it now."""
    row = RUN6[(name, wording)]
    return replayed(tmp_path / "r", TASK[name], row["instruction"], row["reply"])


@pytest.mark.parametrize(("name", "wording", "comment"), [
    ("colorsys-comment", 1, "    # Wraps the hue into the range [0, 1).\n"),
    ("reprlib-comment", 1, "        # Split the type name and join it with underscores.\n"),
])
def test_run6s_docstring_for_a_comment_is_applied_as_that_comment(tmp_path: Path, name: str, wording: int,
                                                                  comment: str) -> None:
    accepted, judged, new, why = _evaluated(tmp_path, name, wording)
    assert accepted and judged, why
    assert comment in new.splitlines(keepends=True)


def test_a_turned_docstring_that_is_not_where_the_instruction_puts_it_is_refused(tmp_path: Path) -> None:
    # reprlib-comment w0 asks "above the if ' ' in typename: line": the docstring sat at the top of repr1's body
    accepted, _, _, why = _evaluated(tmp_path, "reprlib-comment", 0)
    assert not accepted and why.startswith("a comment was asked right above the line `if ' ' in typename:` in "
                                           "Repr.repr1, but it is at line 56")


@pytest.mark.parametrize(("name", "wording"), [
    ("colorsys-comment", 2),  # the docstring quotes coder's retry note back
    ("string-comment", 0),  # the words went into the docstring that was there
])
def test_what_is_not_a_misspelt_comment_stays_refused(tmp_path: Path, name: str, wording: int) -> None:
    accepted, _, _, _ = _evaluated(tmp_path, name, wording)
    assert not accepted


OLD = "def f(x):\n    return x + 1\n"
SPEC = read_instruction("add a comment in f saying it adds one", {"m.py": OLD}, home="m.py")


def test_only_a_new_short_docstring_with_code_after_it_is_turned() -> None:
    assert SPEC.only == frozenset({"comments"})
    doc = 'def f(x):\n    """Adds one."""\n    return x + 1\n'
    assert docstrings_as_comments(OLD, doc, SPEC) == "def f(x):\n    # Adds one.\n    return x + 1\n"
    long = 'def f(x):\n    """One.\n\n    Two.\n    Three.\n    Four.\n    """\n    return x + 1\n'
    assert docstrings_as_comments(OLD, long, SPEC) == long  # documentation, not a comment
    had = 'def f(x):\n    """Old."""\n    return x + 1\n'
    assert docstrings_as_comments(had, had.replace("Old.", "Adds one."), SPEC) == had.replace("Old.", "Adds one.")
    hints = read_instruction("add type hints to f", {"m.py": OLD}, home="m.py")
    assert docstrings_as_comments(OLD, doc, hints) == doc  # not a comments-only request
