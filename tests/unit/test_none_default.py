"""A default changed to None that the body never handles is refused (the wrong edit of the CPU subset run).

Recorded on the 2-core CPU with Qwen2.5-Coder-1.5B (``coder bench --edits --subset cpu`` at 7670ca0,
getopt-default wording 2): the reply changed both defaults to None and nothing else, and it was
applied; ``getopt(['-a', 'x'], 'a')`` then raised TypeError.
"""

from __future__ import annotations

import types

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.checks.defaults import none_dereferenced, unhandled_none_defaults
from coder.edit.checks.result import RETRIED, check_result
from coder.edit.intent.read import read_instruction

GETOPT = source("getopt.py")
INSTRUCTION = ("Don't use a mutable default: getopt and gnu_getopt should take longopts=None "
               "(None meaning no long options)")
APPLIED = GETOPT.replace("shortopts, longopts = []):", "shortopts, longopts = None):")  # the reply's whole diff
HANDLED = APPLIED.replace("    if type(longopts) == type(\"\"):", "    if longopts is None:\n        longopts = []\n"
                          "    if type(longopts) == type(\"\"):", 1) \
    .replace("    if isinstance(longopts, str):", "    if longopts is None:\n        longopts = []\n"
             "    if isinstance(longopts, str):", 1)


def _module(text: str) -> types.ModuleType:
    module = types.ModuleType("getopt_edited")
    exec(compile(text, "getopt.py", "exec"), module.__dict__)  # CPython's own getopt.py, edited
    return module


def test_the_applied_reply_really_breaks_the_call_and_is_now_refused() -> None:
    with pytest.raises(TypeError):
        _module(APPLIED).getopt(["-a", "x"], "a")
    why = unhandled_none_defaults(GETOPT, APPLIED)
    assert why == "getopt's longopts now defaults to None, but getopt never handles None (it used to default to [])"
    spec = read_instruction(INSTRUCTION, {"getopt.py": GETOPT}, home="getopt.py")
    refused = check_result("getopt.py", APPLIED, old=GETOPT, spec=spec)
    assert refused is not None and refused.code == "none_default" and "none_default" in RETRIED


def test_a_fix_that_handles_none_passes() -> None:
    assert HANDLED.count("if longopts is None:") == 2  # getopt and gnu_getopt both
    assert _module(HANDLED).getopt(["-a", "x"], "a") == ([("-a", "")], ["x"])
    assert unhandled_none_defaults(GETOPT, HANDLED) is None
    spec = read_instruction(INSTRUCTION, {"getopt.py": GETOPT}, home="getopt.py")
    assert check_result("getopt.py", HANDLED, old=GETOPT, spec=spec) is None


def test_a_default_that_was_already_none_or_a_new_parameter_is_left_alone() -> None:
    assert unhandled_none_defaults("def f(x=None):\n    return x\n", "def f(x=None):\n    return [x]\n") is None
    assert unhandled_none_defaults("def f():\n    return 1\n", "def f(x=None):\n    return 1\n") is None
    assert unhandled_none_defaults("def f(x=1):\n    return x\n", "def f(x=None):\n    return x or 1\n") is None
    assert unhandled_none_defaults("class C:\n    def m(self, k=()):\n        return list(k)\n",
                                   "class C:\n    def m(self, k=None):\n        return list(k)\n") == \
        "C.m's k now defaults to None, but C.m never handles None (it used to default to ())"


CAPWORDS = "def capwords(s, sep=None):\n    return ' '.join(map(str.capitalize, s.split(sep)))\n"
JOIN = "Fix capwords: words should be joined back with sep when one is given, not with a space"


def test_a_none_default_used_without_a_test_is_refused() -> None:
    wrong = CAPWORDS.replace("' '.join", "sep.join")  # capwords('a b') now raises AttributeError
    refused = check_result("string.py", wrong, old=CAPWORDS,
                           spec=read_instruction(JOIN, {"string.py": CAPWORDS}, home="string.py"))
    assert refused is not None and refused.code == "none_default"
    assert refused.reason == ("capwords uses sep.join, but sep defaults to None and capwords never handles None "
                              "(a call without sep fails)")


def test_a_none_default_handled_or_never_supported_passes() -> None:
    spec = read_instruction(JOIN, {"string.py": CAPWORDS}, home="string.py")
    right = CAPWORDS.replace("' '.join", "(sep or ' ').join")
    assert check_result("string.py", right, old=CAPWORDS, spec=spec) is None
    # the def already used sep unguarded: its None default never worked, so a new use breaks nothing
    required = "def split_on(s, sep=None):\n    return s.split(sep.strip())\n"
    assert none_dereferenced(required, required.replace("sep.strip()", "sep.strip() or sep.lower()")) is None
