"""A rename of a local, type hints, a docstring, a comment or a new parameter changes no def it does not target.

Applied on the H200: "pieces -> parts in Repr._repr_iterable. don't touch the other methods" also renamed
``pieces`` in ``repr_dict``; "in Template._invalid rename i to start" also renamed the loop variable of
``Formatter.get_field`` (both replayed in ``test_h200_wrong_replayed.py``).
"""

from __future__ import annotations

from spec_of import spec_of

from coder.edit.checks.reach import outside_targets
from coder.edit.checks.result import RETRIED, check_result, retry_note

TWO = ("class C:\n    def a(self):\n        n = 1\n        return n\n\n"
       "    def b(self):\n        n = 2\n        return n\n")
FG = "def f(x):\n    return x\n\n\ndef g(y):\n    return f(y)\n"


def test_a_local_rename_that_reaches_another_method_is_refused_with_what_to_keep() -> None:
    spec = spec_of("in C.a rename the local n to count", "m.py", TWO)
    both = TWO.replace("n = ", "count = ").replace("return n", "return count")
    refused = check_result("m.py", both, old=TWO, spec=spec)
    assert refused is not None and refused.code == "outside_targets" and "outside_targets" in RETRIED
    assert refused.reason == "it changes the code of C.b, but the instruction asks to change only C.a"
    assert retry_note(refused.code, refused.reason, spec).endswith(
        "Change only C.a; leave every other function and class exactly as it was.")


def test_a_local_rename_inside_its_target_passes() -> None:
    spec = spec_of("in C.a rename the local n to count", "m.py", TWO)
    one = TWO.replace("n = 1\n        return n", "count = 1\n        return count")
    assert check_result("m.py", one, old=TWO, spec=spec) is None


def test_a_rename_of_a_def_reaches_its_callers() -> None:
    renamed = FG.replace("def f(", "def first(").replace("return f(", "return first(")
    assert outside_targets(FG, renamed, spec_of("rename f to first", "m.py", FG), "m.py") is None


def test_type_hints_on_a_def_not_named_are_refused_and_on_the_named_one_pass() -> None:
    spec = spec_of("add type hints to f", "m.py", FG)
    right = FG.replace("def f(x):", "def f(x: int) -> int:")
    assert check_result("m.py", right, old=FG, spec=spec) is None
    wrong = right.replace("def g(y):", "def g(y: int) -> int:")
    assert outside_targets(FG, wrong, spec, "m.py") == (
        "it changes the code of g, but the instruction asks to change only f")


def test_a_new_parameter_may_change_the_calls_to_its_def_and_nothing_else() -> None:
    spec = spec_of("add a parameter `scale=1` to `f` and use it", "m.py", FG)
    assert spec.action == "add_parameter" and [t.qualname for t in spec.targets] == ["f"]
    right = FG.replace("def f(x):\n    return x", "def f(x, scale=1):\n    return x * scale").replace(
        "return f(y)", "return f(y, scale=1)")
    assert outside_targets(FG, right, spec, "m.py") is None
    wrong = right.replace("return f(y, scale=1)", "return f(y, scale=1) + 1")
    assert outside_targets(FG, wrong, spec, "m.py") is not None


def test_a_change_of_behaviour_may_reach_past_its_targets() -> None:
    # the symptom is named in g, the bug is in f: a fix reaches the helper
    fixed = FG.replace("    return x\n", "    return abs(x)\n")
    spec = spec_of("g should never return a negative number", "m.py", FG)
    assert spec.action == "change" and [t.qualname for t in spec.targets] == ["g"]
    assert outside_targets(FG, fixed, spec, "m.py") is None
