"""What the scope check reads as the objects of a request, on the grown benchmark's tasks.

Correct results that the check used to flag: a method named ``Class.method`` in a delete request,
two functions joined by "and" plus the comment line above them, a default changed in two
functions and handled in their bodies, a function moved to another file and imported back.
Each rule that explains them is held to its letter: the near misses beside each one stay flagged.
"""

from __future__ import annotations

from bench_edit_refs import correct_result, correct_results
from spec_of import check_scope

from coder.bench.edits.tasks import TASKS, source
from coder.edit.intent.words import asked_gone

BY_NAME = {t.name: t for t in TASKS}

TWO = '''class A:
    def __bool__(self):
        return True

    def size(self):
        return 1


class B:
    def __bool__(self):
        return False

    def size(self):
        return 0
'''
CALC = '''def add(a, b):
    return a + b


# Divides.
def div(a, b):
    return a / b
'''


def _flagged(task_name: str, new: str, rel: str | None = None) -> list[str]:
    task = BY_NAME[task_name]
    rel = rel or task.file
    scope = check_scope(source(rel), new, task.instruction, rel=rel)
    return [c.why for c in scope.unexplained]


def test_a_qualified_object_asks_for_that_member_only() -> None:
    assert asked_gone("Delete the method `A.__bool__`.") >= {"A.__bool__"}
    assert "A" not in asked_gone("Delete the method `A.__bool__`.")
    instruction = "Delete the method `A.__bool__`."
    gone_a = TWO.replace("    def __bool__(self):\n        return True\n\n", "", 1)
    assert check_scope(TWO, gone_a, instruction, rel="two.py").ok
    gone_b = TWO.replace("    def __bool__(self):\n        return False\n\n", "")
    assert "deletes B.__bool__ (the instruction does not ask to)" in [
        c.why for c in check_scope(TWO, gone_b, instruction, rel="two.py").unexplained]


def test_deleting_the_whole_class_is_not_deleting_its_method() -> None:
    src = source("graphlib.py")
    head = src.index("class TopologicalSorter")
    assert any(w.startswith("deletes TopologicalSorter") for w in _flagged("graphlib-delete", src[:head]))


def test_a_preposition_ends_the_object_of_a_deletion() -> None:
    assert "div" not in asked_gone("remove the comment above `div`")
    assert "g" not in asked_gone("delete `f` after `g`")
    no_div = CALC.replace("# Divides.\ndef div(a, b):\n    return a / b\n", "")
    scope = check_scope(CALC, no_div, "remove the comment above `div`", rel="calc.py")
    assert "deletes div (the instruction does not ask to)" in [c.why for c in scope.unexplained]


def test_functions_joined_by_and_go_with_the_comment_above_them_and_nothing_else() -> None:
    assert _flagged("glob-delete", correct_result(BY_NAME["glob-delete"])) == []
    ok = correct_result(BY_NAME["glob-delete"])
    helper = ok[ok.index("def _glob2("):ok.index("# If dironly is false")]
    assert any("deletes _glob2" in w for w in _flagged("glob-delete", ok.replace(helper, "")))


def test_a_handled_default_explains_code_that_checks_the_new_value_inside_the_functions() -> None:
    ok = correct_result(BY_NAME["getopt-default"])
    assert _flagged("getopt-default", ok) == []
    unrelated = ok.replace("    opts = []\n    if longopts is None:", "    opts = [0]\n    if longopts is None:", 1)
    assert _flagged("getopt-default", unrelated) == ["changes code (only [] -> None asked)"]
    no_value = ok.replace("    if longopts is None:\n        longopts = []\n",
                          "    if not longopts:\n        longopts = []\n", 1)
    assert _flagged("getopt-default", no_value) == ["changes code (only [] -> None asked)"]
    outside = ok.replace("error = GetoptError # backward compatibility\n",
                         "error = GetoptError # backward compatibility\nNO_LONGOPTS = None\n", 1)
    assert _flagged("getopt-default", outside) == ["changes code (only [] -> None asked)"]


def test_a_cross_file_move_takes_the_function_out_and_imports_it_back() -> None:
    task = BY_NAME["xfile-toml-move"]
    results = correct_results(task)
    ok, dest = results["tomllib/_parser.py"], results["tomllib/_re.py"]
    assert _flagged(task.name, ok) == []
    assert _flagged(task.name, dest, rel="tomllib/_re.py") == []
    src = source(task.file)
    copied = src.replace("    match_to_number,\n)", "    match_to_number,\n    is_unicode_scalar_value,\n)")
    assert _flagged(task.name, copied), "imported but never moved out"
    dropped = ok.replace("    RE_NUMBER,\n", "")
    assert _flagged(task.name, dropped), "another import dropped"
    extra = ok.replace("from ._re import (", "from ._re import (\n    RE_EXTRA,")
    assert _flagged(task.name, extra), "another name imported"
    changed = ok.replace("ASCII_CTRL = frozenset(chr(i) for i in range(32))",
                         "ASCII_CTRL = frozenset(chr(i) for i in range(31))")
    assert _flagged(task.name, changed), "a line the move does not touch changed"
    assert _flagged(task.name, dest.replace("    return int(match.group(), 0)\n", "    return int(match.group())\n"),
                    rel="tomllib/_re.py"), "the destination changed besides the arrival"
