"""The explained-change rules allow exactly the kinds the spec allows (the two false refusals of issue 34).

* "Add type hints to every function in this file": a window's hints were "not explained (the
  instruction names no symbol)"; the spec targets no symbol and allows annotations everywhere.
* "Add a parameter strict: bool = False to shorten and document it in its docstring": it was read
  as "only docstrings", then "the result never uses bool"; the spec allows code and docstrings there.
"""

from __future__ import annotations

from pathlib import Path

from spec_of import check_scope

TEXTWRAP = (Path(__file__).parents[2] / "coder" / "bench" / "edits" / "files" / "textwrap.py.txt").read_text()
HINTS = "Add type hints to every function in this file"
PARAM = "Add a parameter strict: bool = False to shorten and document it in its docstring"


def test_hints_everywhere_explain_annotations_everywhere() -> None:
    new = TEXTWRAP.replace("def shorten(text, width, **kwargs):",
                           "def shorten(text: str, width: int, **kwargs) -> str:")
    new = new.replace("def dedent(text):", "def dedent(text: str) -> str:")
    scope = check_scope(TEXTWRAP, new, HINTS, rel="textwrap.py")
    assert scope.ok, scope.refusal()
    assert "annotations" in scope.basis


def test_hints_everywhere_still_refuse_a_code_change() -> None:
    new = TEXTWRAP.replace("def dedent(text):", "def dedent(text: str) -> str:")
    new = new.replace("    w = TextWrapper(width=width, max_lines=1, **kwargs)",
                      "    w = TextWrapper(width=width, max_lines=2, **kwargs)")
    scope = check_scope(TEXTWRAP, new, HINTS, rel="textwrap.py")
    assert [c.why for c in scope.unexplained] == ["changes code (only type hints asked)"]


def test_a_new_parameter_documented_in_its_docstring_is_code_and_docstring_at_that_function() -> None:
    new = TEXTWRAP.replace("def shorten(text, width, **kwargs):",
                           "def shorten(text, width, strict: bool = False, **kwargs):")
    new = new.replace("        'Hello [...]'\n    \"\"\"\n    w = TextWrapper(width=width, max_lines=1, **kwargs)",
                      "        'Hello [...]'\n\n    If *strict* is true, raise ValueError when nothing fits.\n"
                      "    \"\"\"\n    w = TextWrapper(width=width, max_lines=1, **kwargs)\n"
                      "    if strict and len(text) > width:\n        raise ValueError('does not fit')")
    assert new.count("strict") == 3
    scope = check_scope(TEXTWRAP, new, PARAM, rel="textwrap.py")
    assert scope.ok, scope.refusal()  # not "only docstrings", and bool need not be used again
    elsewhere = new.replace("def dedent(text):", "def dedent(text, tabs=False):")
    assert not check_scope(TEXTWRAP, elsewhere, PARAM, rel="textwrap.py").ok


def test_a_docstring_request_still_holds_to_docstrings() -> None:
    new = TEXTWRAP.replace("def shorten(text, width, **kwargs):",
                           "def shorten(text, width, strict=False, **kwargs):")
    scope = check_scope(TEXTWRAP, new, "Add a docstring to dedent", rel="textwrap.py")
    assert not scope.ok
