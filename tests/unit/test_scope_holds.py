"""Holes the scope and shrink checks had: a deletion explained away by a verb that asks for none.

A hostile-input review got ``refactor `div` to raise ValueError on zero`` answered with a reply
that deleted ``div``, and ``--yes`` committed it: "refactor", "rewrite", "convert" and "wrap"
counted as asking to delete every name the instruction mentions. The shrink check let a
reply lose most of the code when the instruction said "replace", or had "cut" inside a word
such as "execute". Each case goes through the engine's own evaluation in a real repository.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo
from spec_of import check_scope

from coder.edit.proposal import EditProposal
from coder.edit.run.engine import EditEngine

CALC = '''"""Arithmetic helpers."""


def add(a, b):
    return a + b


def div(a, b):
    return a / b


def mul(a, b):
    return a * b
'''
NO_DIV = CALC.replace("def div(a, b):\n    return a / b\n\n\n", "")


def _proposal(tmp_path: Path, instruction: str, new: str, files: dict[str, str | bytes] | None = None,
              rel: str = "calc.py") -> EditProposal:
    make_repo(tmp_path / "r", files or {"calc.py": CALC})
    engine = EditEngine(None, tmp_path / "r", ctx=16384)
    request = engine.prepare(tmp_path / "r" / rel, instruction, mode="full")
    return engine.evaluate(request, "```python\n" + new + "```\n", finish_reason="stop")


@pytest.mark.parametrize("verb", ["refactor", "rewrite", "convert", "wrap"])
def test_a_transform_verb_does_not_explain_deleting_the_symbol_it_names(tmp_path: Path, verb: str) -> None:
    instruction = {"refactor": "refactor `div` to raise ValueError on zero",
                   "rewrite": "rewrite `div` so that it raises ValueError on zero",
                   "convert": "convert `div` to use floor division",
                   "wrap": "wrap the body of `div` in a try block"}[verb]
    proposal = _proposal(tmp_path, instruction, NO_DIV)
    assert proposal.scope is not None and not proposal.scope.ok
    assert "deletes div" in proposal.scope.unexplained[0].why


def test_the_refactor_itself_is_explained() -> None:
    done = CALC.replace("    return a / b\n",
                        "    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b\n")
    assert check_scope(CALC, done, "refactor `div` to raise ValueError on zero", rel="calc.py").ok


def test_wrapping_a_function_in_a_class_keeps_its_name_defined() -> None:
    wrapped = NO_DIV + "\n\nclass Ops:\n    @staticmethod\n    def div(a, b):\n        return a / b\n"
    scope = check_scope(CALC, wrapped, "wrap `div` in a class Ops", rel="calc.py")
    assert not any(c.why.startswith("deletes") for c in scope.unexplained)


def test_the_deletion_verbs_ask_only_for_their_object() -> None:
    from coder.edit.intent.words import asked_gone  # new with the fix: imported here so the rest runs before it

    assert {"div", "mul"} <= asked_gone("delete `div` and `mul`")
    assert "div" not in asked_gone("remove the print from div")
    assert "div" not in asked_gone("refactor `div` to remove the zero check")
    assert "div" in asked_gone("merge div into mul")
    assert asked_gone("refactor `div` to raise ValueError on zero") == set()


def test_deleting_the_named_function_when_asked_is_explained(tmp_path: Path) -> None:
    proposal = _proposal(tmp_path, "delete the function `div`", NO_DIV)
    assert proposal.ok and proposal.scope is not None and proposal.scope.ok


LONG = "def run(cmds):\n" + "".join(f"    step_{i}(cmds)\n" for i in range(12)) + "    return cmds\n"
STUB = "def run(cmds):\n    return cmds\n"


@pytest.mark.parametrize("instruction", ["replace the return with a yield", "execute each step in order"])
def test_the_shrink_check_holds_on_replace_and_on_cut_inside_a_word(tmp_path: Path, instruction: str) -> None:
    proposal = _proposal(tmp_path, instruction, STUB, {"steps.py": LONG}, rel="steps.py")
    assert proposal.refusal_code == "shrunk"


@pytest.mark.parametrize("instruction", ["cut the steps", "remove the steps"])
def test_the_shrink_words_still_allow_a_shorter_reply(tmp_path: Path, instruction: str) -> None:
    proposal = _proposal(tmp_path, instruction, STUB, {"steps.py": LONG}, rel="steps.py")
    assert proposal.refusal_code is None
