"""A rename the instruction confines to one function ("in the function X only") may not reach the others.

Seen for real: vLLM 0.26.0 serving Qwen2.5-Coder-1.5B renamed the local ``lines`` in ``getline`` and
also in ``checkcache`` and ``updatecache`` of linecache.py; coder's scope check passed it as a rename.
"""

from __future__ import annotations

import linecache
import re
from pathlib import Path

import pytest
from spec_of import check_scope

from coder.edit.intent.words import confined_to

INSTRUCTION = "In the function getline only, rename the local variable `lines` to `file_lines`."
SOURCE = Path(linecache.__file__).read_text()  # the standard library's own file


def _rename_in(text: str, function: str) -> str:
    """``lines`` -> ``file_lines`` inside ``function`` only (the def up to the next top-level statement)."""
    start = text.index(f"\ndef {function}(") + 1
    end = text.find("\ndef ", start)
    body = re.sub(r"\blines\b", "file_lines", text[start:end])
    return text[:start] + body + text[end:]


def test_the_rename_inside_the_named_function_is_explained() -> None:
    scope = check_scope(SOURCE, _rename_in(SOURCE, "getline"), INSTRUCTION, rel="linecache.py")
    assert scope.ok, scope.refusal()


def test_the_same_rename_in_other_functions_is_not() -> None:
    beyond = _rename_in(_rename_in(SOURCE, "getline"), "updatecache")
    scope = check_scope(SOURCE, beyond, INSTRUCTION, rel="linecache.py")
    assert not scope.ok and "linecache.py" in scope.refusal()


def test_without_the_confinement_the_whole_file_rename_is_explained() -> None:
    beyond = re.sub(r"\blines\b", "file_lines", SOURCE)
    scope = check_scope(SOURCE, beyond, "Rename the variable `lines` to `file_lines`.", rel="linecache.py")
    assert scope.ok, scope.refusal()


@pytest.mark.parametrize(("instruction", "name"), [
    (INSTRUCTION, "getline"),
    ("Rename `x` to `y` only in `parse`.", "parse"),
    ("Rename `x` to `y` in `Parser.feed` only.", "Parser.feed"),
    ("Rename the local variable `x` of the function `walk` to `node`.", "walk"),
    ("Rename `x` to `y` everywhere.", None),
])
def test_the_confinement_is_read_from_the_instruction(instruction: str, name: str | None) -> None:
    assert confined_to(instruction) == name
