"""A rename the reading confines to one def is done by scope analysis of that def alone (no model request).

``chunks`` is a parameter of three methods of textwrap and a local of ``TextWrapper.wrap``; ``indent`` is a
module function and a local of two defs: the whole file's analysis finds no one symbol, so such renames used to
ask the model, which renamed words of the docstring too (run 16, applied wrong). Only the def's lines change,
its docstring does not, and every other def is the same syntax tree.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from coder.edit.plan import derive as plan
from coder.edit.plan.rename_local import confined_ambiguity
from coder.edit.plan.rename_scope import ambiguity
from coder.edit.run import plan_run
from coder.edit.run.engine import EditEngine
from coder.edit.source.splice import rename_tokens
from coder.testing.replies import no_request

TEXTWRAP = (Path(__file__).parents[1] / "data" / "plans" / "textwrap.py.txt").read_text()


def _defs(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            out.update({f"{node.name}.{m.name}": ast.dump(m) for m in node.body if isinstance(m, ast.FunctionDef)})
        elif isinstance(node, ast.FunctionDef) and node.col_offset == 0:
            out[node.name] = ast.dump(node)
    return out


@pytest.mark.repo_files({"textwrap.py": TEXTWRAP})
@pytest.mark.parametrize(("wording", "old", "new", "home"), [
    ("in TextWrapper.wrap rename the local chunks to pieces", "chunks", "pieces", "TextWrapper.wrap"),
    ("rename the variable w in fill to wrapper, only there", "w", "wrapper", "fill"),
    ("In TextWrapper._wrap_chunks, rename the local variable `indent` to `prefix`", "indent", "prefix",
     "TextWrapper._wrap_chunks"),
])
def test_a_confined_local_rename_changes_that_def_alone(tmp_repo: Path, wording: str, old: str, new: str,
                                                        home: str) -> None:
    assert ambiguity({"textwrap.py": TEXTWRAP}, [(old, new)], "textwrap.py") is not None  # no one symbol in the file
    prepared = plan_run.prepare(EditEngine(None, tmp_repo), tmp_repo / "textwrap.py", wording)
    assert isinstance(prepared, plan_run.PlanRequest) and prepared.plan.kind == "rename"
    assert prepared.plan.requests == 0 and [s.symbol for s in prepared.plan.steps] == [home]
    assert f"{plan.RENAMED_BY_SCOPE} in {home}" in prepared.reason
    proposal = plan_run.run_plan(EditEngine(None, tmp_repo), prepared, no_request)
    assert proposal.ok and proposal.scope.ok, proposal.refusal or proposal.scope.refusal()
    after = proposal.files[0].new
    before_defs, after_defs = _defs(TEXTWRAP), _defs(after)
    assert {k for k in before_defs if before_defs[k] != after_defs[k]} == {home}
    renamed = _defs(rename_tokens(TEXTWRAP, [(old, new)]))[home]
    assert after_defs[home] == renamed
    assert ast.get_docstring(ast.parse(after)) == ast.get_docstring(ast.parse(TEXTWRAP))


@pytest.mark.parametrize(("old", "new", "home", "why"), [
    ("text", "source", "TextWrapper._split", "a parameter of"),  # callers may pass text= anywhere
    ("chunks", "text", "TextWrapper.wrap", "`text` is already used"),
    ("line", "row", "indent", "not a variable of indent"),  # only its nested defs bind line
    ("lines", "rows", "TextWrapper.wrap", "not a variable"),
    ("margin", "m", "nothere", "no def nothere"),
])
def test_a_confined_rename_that_is_not_the_defs_own_local_is_ambiguous(old: str, new: str, home: str,
                                                                       why: str) -> None:
    found = confined_ambiguity(TEXTWRAP, [(old, new)], home)
    assert found is not None and why in found


def test_a_nested_def_with_its_own_binding_makes_it_ambiguous() -> None:
    text = "def f():\n    x = 1\n    def g():\n        x = 2\n        return x\n    return x + g()\n"
    found = confined_ambiguity(text, [("x", "y")], "f")
    assert found is not None and "function g" in found
    closure = "def f():\n    x = 1\n    def g():\n        return x\n    return g()\n"
    assert confined_ambiguity(closure, [("x", "y")], "f") is None
