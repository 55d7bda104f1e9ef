"""Reading rules found on the third fresh set's first run (run 17, H200), each in wordings of its own on the suite's
files (and on gettext for a module named like one of its functions); the set's own wordings are not copied here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from coder.edit.intent.read import read_instruction
from coder.edit.intent.renames import rename_pairs
from coder.edit.intent.spec import ChangeSpec
from coder.edit.plan.locate import symbol_rows

FILES = Path(__file__).resolve().parents[2] / "coder" / "bench" / "edits" / "files"


def _read(rel: str, wording: str) -> ChangeSpec:
    return read_instruction(wording, {rel: (FILES / f"{rel}.txt").read_text(encoding="utf-8")}, home=rel)


def _targets(spec: ChangeSpec) -> list[str]:
    return [s.qualname for s in spec.targets]


@pytest.mark.parametrize("wording", [
    "TextWrapper.__init__ sets self.width twice. drop the extra one",
    "remove the duplicate assignment in TextWrapper.__init__",
    "there's a redundant line in TextWrapper.__init__, please delete that line",
])
def test_a_statement_deleted_inside_a_def_is_a_change_of_it_never_the_def_cut(wording: str) -> None:
    spec = _read("textwrap.py", wording)
    assert (spec.action, _targets(spec)) == ("change", ["TextWrapper.__init__"]), wording


def test_a_def_or_a_module_statement_deleted_is_still_cut() -> None:
    assert _read("textwrap.py", "delete the function dedent").action == "delete"
    assert _read("textwrap.py", "remove the one function shorten").action == "delete"
    spec = _read("bisect.py", "get rid of the line insort = insort_right at the bottom of bisect.py")
    assert (spec.action, spec.facts.statements) == ("delete", ("insort",))


def test_the_class_right_before_constructor_owns_it() -> None:
    spec = _read("queue.py", "remove the duplicate assignment in the Queue constructor")
    assert (spec.action, _targets(spec)) == ("change", ["Queue.__init__"])


def test_a_quoted_word_is_no_verb_and_dropping_is_deleting() -> None:
    spec = _read("textwrap.py", "shorten only says 'use the other one' now. We're dropping it")
    assert (spec.action, _targets(spec)) == ("delete", ["shorten"])


def test_a_member_deleted_is_used_as_an_attribute_and_a_def_where_no_local_shadows_it() -> None:
    text = (FILES / "textwrap.py.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    fill = symbol_rows(text, "fill", member=True)
    assert fill == {i for i, line in enumerate(lines, 1) if ".fill(" in line}  # w.fill(...), not def fill
    indent = symbol_rows(text, "indent", member=False)
    tree = ast.parse(text)
    own = {n.lineno for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in ("dedent", "_wrap_chunks")
           for n in ast.walk(n) if hasattr(n, "lineno")}
    assert indent is not None and "indent" in text and not indent & own  # their own locals named indent
    assert any("'indent'" in lines[r - 1] for r in indent)  # __all__ names it


@pytest.mark.parametrize(("rel", "wording", "action", "params"), [
    ("textwrap.py", "make dedent take an optional tabsize int (None means no tab expansion)", "add_parameter",
     ("tabsize",)),
    ("textwrap.py", "let shorten accept a strict keyword that raises instead of truncating", "add_parameter",
     ("strict",)),
])
def test_a_parameter_said_by_its_noun_after_take_or_accept(rel: str, wording: str, action: str,
                                                           params: tuple[str, ...]) -> None:
    spec = _read(rel, wording)
    assert (spec.action, spec.params) == (action, params)


def test_get_a_method_adds_one_and_factor_it_into_extracts() -> None:
    spec = _read("textwrap.py", "could TextWrapper get a method wrap_all that wraps a list of paragraphs")
    assert (spec.action, spec.new_names) == ("add_method", ("wrap_all",))
    spec = _read("textwrap.py", "the loop in dedent that finds the margin: factor it into a module-level function "
                                "_margin_of")
    assert (spec.action, spec.new_names) == ("extract", ("_margin_of",))


@pytest.mark.parametrize(("wording", "pairs"), [
    ("rename the wrapper's _munge_whitespace method to _normalize_whitespace",
     [("_munge_whitespace", "_normalize_whitespace")]),
    ("rename the text param of indent() to source pls", [("text", "source")]),
    ("The second parameter of textwrap.indent is named prefix. I'd like it called line_prefix", [("prefix",
                                                                                                   "line_prefix")]),
    ("I'd like the private helper that splits chunks to be called _chunks instead", []),
])
def test_renames_said_other_ways(wording: str, pairs: list[tuple[str, str]]) -> None:
    assert rename_pairs(wording) == pairs


def test_the_module_named_before_its_def_is_the_module_level_def_and_its_possessive_the_module() -> None:
    spec = _read("textwrap.py", "give textwrap.fill() a strict parameter")
    assert (spec.action, _targets(spec)) == ("add_parameter", ["fill"])
    spec = _read("fresh3/gettext.py", "in gettext's _as_int helper, add a comment above the while loop")
    assert "gettext" not in _targets(spec) and _targets(spec) == ["_as_int"]


def test_a_parameter_renamed_is_not_confined_to_its_def_its_callers_keywords_follow() -> None:
    spec = _read("fresh3/gettext.py", "in find, rename the all param to every_match")
    assert (spec.action, spec.renames, spec.facts.confined) == ("rename", (("all", "every_match"),), None)
    local = _read("textwrap.py", "in TextWrapper.wrap rename the local chunks to pieces")
    assert local.facts.confined == "TextWrapper.wrap"
