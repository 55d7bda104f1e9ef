"""Checks of run 24, each pinned on the tenth fresh set's real files and the replies its first run applied or
refused on the H200 (Qwen2.5-Coder-1.5B)."""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.bench.edits.tasks_fresh10 import FRESH10
from coder.edit.checks.code_rules import broken_calls, unset_self_reads
from coder.edit.checks.uses import uncalled_said
from coder.edit.intent.read import read_instruction

RANDOM = source("fresh10/random.py")
_WEIBULL_END = "        return alpha * (-_log(u)) ** (1.0 / beta)\n"


def _clone(body: str) -> str:
    return RANDOM.replace(_WEIBULL_END, _WEIBULL_END + "\n    def clone(self):\n" + body, 1)


@pytest.mark.parametrize("body", [
    "        return self.__class__(self.gauss_next, self._randbelow)\n",  # as applied, wording 0
    "        new = type(self)(self.gauss_next, self._randbelow)\n        new.setstate(self.getstate())\n"
    "        return new\n",  # as applied, wording 1
])
def test_a_new_method_calling_its_own_class_with_arguments_its_init_cannot_take_is_refused(body: str) -> None:
    assert broken_calls(RANDOM, _clone(body)) == ("a call no longer fits its definition: Random() takes 1 "
                                                  "positional argument(s) but the call gives 2 (it raises TypeError)")


def test_a_new_method_calling_its_own_class_as_its_init_takes_is_accepted() -> None:
    right = "        new = type(self)()\n        new.setstate(self.getstate())\n        return new\n"
    assert broken_calls(RANDOM, _clone(right)) is None
    assert broken_calls(RANDOM, _clone(right.replace("type(self)()", "self.__class__(None)"))) is None


def test_type_self_is_not_checked_where_a_subclass_here_has_an_init_of_its_own() -> None:
    old = ("class A:\n    def __init__(self, x=None):\n        self.x = x\n\n"
           "class B(A):\n    def __init__(self, x, y):\n        super().__init__(x)\n")
    new = old.replace("class B(A):", "    def copy(self):\n        return type(self)(self.x, 1)\n\nclass B(A):")
    assert broken_calls(old, new) is None  # type(self) may be a B, which takes two


DIFFLIB = source("fresh10/difflib.py")
_GETITEM = "    __class_getitem__ = classmethod(GenericAlias)\n"
_EARLY_TRUE = ("    def is_similar(self, cutoff=0.6):\n        if self.real_quick_ratio() >= cutoff:\n"
               "            return True\n        return self.quick_ratio() >= cutoff\n\n")
_RIGHT = ("    def is_similar(self, cutoff=0.6):\n        return (self.real_quick_ratio() >= cutoff and "
          "self.quick_ratio() >= cutoff\n                and self.ratio() >= cutoff)\n\n")


@pytest.mark.parametrize("wording", [0, 1])
def test_a_new_method_that_never_calls_the_method_its_instruction_says_it_uses_is_refused(wording: int) -> None:
    task = next(t for t in FRESH10 if t.name == "difflib-method")
    spec = read_instruction(task.wordings[wording], {task.file: DIFFLIB}, home=task.file)
    assert "ratio" in spec.facts.calls
    wrong = DIFFLIB.replace(_GETITEM, _EARLY_TRUE + _GETITEM, 1)  # as applied on the H200, wording 0
    assert uncalled_said(DIFFLIB, wrong, spec) == ("the instruction says is_similar uses ratio(), and "
                                                   "SequenceMatcher.is_similar never calls it")
    assert uncalled_said(DIFFLIB, DIFFLIB.replace(_GETITEM, _RIGHT + _GETITEM, 1), spec) is None


@pytest.mark.parametrize(("said", "calls"), [
    ("add a method is_similar(self, cutoff) to SequenceMatcher: True when ratio() >= cutoff", ("ratio",)),
    ("add a method fast_ratio(self) to SequenceMatcher, like quick_ratio() but cached", ()),  # compared, not called
    ("add a method is_same(self) to SequenceMatcher that is True when a == b, without calling ratio()", ()),
    # what holds after it ran (the suite's sched-method w2: "afterwards empty() should be True")
    ("add a method reset(self) to SequenceMatcher; afterwards ratio() should be 0", ()),
])
def test_the_methods_a_new_method_is_told_to_call_are_read(said: str, calls: tuple[str, ...]) -> None:
    assert read_instruction(said, {"difflib.py": DIFFLIB}, home="difflib.py").facts.calls == calls


MARKUPBASE = source("fresh10/_markupbase.py")


def test_a_renamed_method_reading_what_its_class_read_before_is_no_new_read() -> None:
    # ParserBase is a mixin: self.rawdata is set by HTMLParser; renaming _scan_name was refused in both wordings
    renamed = MARKUPBASE.replace("_scan_name", "_scan_token")
    assert renamed != MARKUPBASE and unset_self_reads(MARKUPBASE, renamed) is None
    invented = renamed.replace("rawdata = self.rawdata\n        n = len(rawdata)\n        if i == n:",
                               "rawdata = self.rawtext\n        n = len(rawdata)\n        if i == n:", 1)
    assert invented != renamed and "reads self.rawtext" in (unset_self_reads(MARKUPBASE, invented) or "")


def test_a_module_level_name_renamed_is_not_confined_to_the_def_said_to_use_it() -> None:
    task = next(t for t in FRESH10 if t.name == "optparse-rename")
    spec = read_instruction(task.wordings[1], {task.file: source(task.file)}, home=task.file)
    assert spec.renames == (("_builtin_cvt", "_builtin_converters"),) and spec.facts.confined is None


@pytest.mark.parametrize("wording", [0, 1])
def test_a_def_said_as_the_user_of_the_one_meant_is_no_target(wording: int) -> None:
    task = next(t for t in FRESH10 if t.name == "difflib-hints")
    spec = read_instruction(task.wordings[wording], {task.file: DIFFLIB}, home=task.file)
    assert (spec.action, [t.qualname for t in spec.targets]) == ("type_hints", ["_format_range_context"])


def _read(name: str, wording: int) -> tuple[str, list[str], tuple[str, ...]]:
    task = next(t for t in FRESH10 if t.name == name)
    spec = read_instruction(task.wordings[wording], {task.file: source(task.file)}, home=task.file)
    return spec.action, [t.qualname for t in spec.targets], spec.params


@pytest.mark.parametrize("wording", [0, 1])
def test_the_main_blocks_own_functions_go_with_it_whether_named_or_not(wording: int) -> None:
    # wording 1 ("the little benchmark demo at the bottom of random.py, both of its functions and the if __name__
    # == '__main__' part"): "python -m random" was read as SystemRandom.random, and the functions left unnamed
    assert _read("random-delete", wording)[:2] == ("delete", ["_test_generator", "_test"])


def test_main_helpers_are_the_defs_only_the_main_block_reaches() -> None:
    text = ("__all__ = ['kept']\n\ndef kept():\n    return 1\n\ndef shared():\n    return 2\n\ndef helper():\n"
            "    return shared()\n\ndef demo():\n    return helper() + kept()\n\nX = shared()\n\n"
            "if __name__ == '__main__':\n    demo()\n")
    spec = read_instruction("delete the little showcase at the end, both of its functions and the __main__ block",
                            {"m.py": text}, home="m.py")
    assert [t.qualname for t in spec.targets] == ["helper", "demo"]  # kept is exported, shared used at top level


@pytest.mark.parametrize("wording", [0, 1])
def test_an_optional_parameter_said_the_way_another_def_has_it_is_added(wording: int) -> None:
    # wording 0: "Could random.randint take an optional step, the way randrange does? ... for the same seed"
    action, targets, params = _read("random-param", wording)
    assert (action, targets) == ("add_parameter", ["Random.randint"]) and params[0].startswith("step")


def test_a_new_function_said_with_its_signature_before_its_noun_is_added() -> None:
    assert _read("secrets-function", 0)[0] == "add_function"  # "add a randint(a, b) function to the secrets module"


def test_a_fault_said_of_a_long_class_asks_the_model_which_of_its_methods() -> None:
    from coder.edit.intent.model_read import MAX_TOKENS
    from coder.edit.intent.read import needs_model

    task = next(t for t in FRESH10 if t.name == "bug-markupbase-comment")
    asked: list[object] = []

    def ask(messages: object, schema: dict[str, object], n: int) -> str:
        asked.append(schema)
        assert n == MAX_TOKENS
        return '{"action": "change", "target": "ParserBase.parse_comment"}'

    spec = read_instruction(task.wordings[1], {task.file: source(task.file)}, home=task.file)
    assert (spec.action, [t.qualname for t in spec.targets]) == ("change", ["ParserBase"]) and not needs_model(spec)
    spec = read_instruction(task.wordings[1], {task.file: source(task.file)}, home=task.file, ask=ask)
    assert (spec.action, [t.qualname for t in spec.targets], spec.read_by) == (
        "change", ["ParserBase.parse_comment"], "model")
    schema = asked[0]
    assert isinstance(schema, dict)
    enum = schema["properties"]["target"]["enum"]  # type: ignore[index]
    assert "ParserBase.parse_comment" in enum and "ParserBase" not in enum and all(
        e == "none" or e.startswith("ParserBase.") for e in enum)


@pytest.mark.parametrize("wording", [0, 1])
def test_a_report_about_comments_of_the_users_data_is_a_fix_not_a_comment(wording: int) -> None:
    task = next(t for t in FRESH10 if t.name == "bug-markupbase-comment")
    # wording 0 gives no order at all: the model reads it ("unknown"); wording 1 names ParserBase, a fix of it
    action = read_instruction(task.wordings[wording], {task.file: source(task.file)}, home=task.file).action
    assert action == ("unknown", "change")[wording]


def test_accepting_a_plain_worded_option_of_the_users_input_is_no_new_parameter() -> None:
    assert _read("bug-optparse-ambiguous", 1)[:2] == ("change", ["OptionParser.parse_args"])


_RANDINT = '''    def randint(self, a, b):
        """Return random integer in range [a, b], including both end points.
        """

        return self.randrange(a, b+1)
'''
_STEP_RAISING = '''    def randint(self, a, b, step=1):
        """Return random integer in range [a, b], including both end points.
        """

        if (b - a) % step != 0:
            raise ValueError("b must be a multiple of step")
        return a + step * self._randbelow((b - a) // step + 1)
'''


def test_a_new_parameter_that_raises_where_no_error_was_asked_is_refused() -> None:
    from coder.edit.checks.guards import unasked_raises

    assert _RANDINT in RANDOM
    task = next(t for t in FRESH10 if t.name == "random-param")
    spec = read_instruction(task.wordings[0], {task.file: RANDOM}, home=task.file)
    raising = RANDOM.replace(_RANDINT, _STEP_RAISING)  # as applied on the 2-core CPU at 6461869
    assert unasked_raises(RANDOM, raising, spec) == ("the instruction asks for no error, but the change raises one "
                                                     "(`raise ValueError('b must be a multiple of step')`)")
    right = RANDOM.replace("return self.randrange(a, b+1)", "return self.randrange(a, b + 1, step)").replace(
        "def randint(self, a, b):", "def randint(self, a, b, step=1):")
    assert unasked_raises(RANDOM, right, spec) is None
    asked = read_instruction("add step=1 to Random.randint; raise ValueError when step is 0", {task.file: RANDOM},
                             home=task.file)
    assert unasked_raises(RANDOM, raising, asked) is None  # an error said: the new raise may be it
