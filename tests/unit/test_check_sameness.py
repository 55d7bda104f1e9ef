"""A change of code that changes no behaviour is refused: a reworded docstring, a constant spelled anew.

Applied on the H200: asked to make ``_ishidden`` handle bytes, the reply reworded ``glob``'s docstring
(bug-glob-hidden); asked to fix ``unhex`` for lowercase digits, it rewrote ``ord(b'A')`` as ``ord('A')``
(bug-quopri-unhex). Both are replayed in ``test_h200_wrong_replayed.py``.
"""

from __future__ import annotations

import pytest
from spec_of import spec_of

from coder.bench.edits.taskdef import source
from coder.edit.checks.explained import check_scope
from coder.edit.checks.result import check_result, retry_note
from coder.edit.checks.sameness import same_behaviour

UNHEX = ("def unhex(c):\n    '''The value of one hex digit.'''\n    if b'0' <= c <= b'9':\n        i = ord('0')\n"
         "    else:\n        i = ord(b'A')-10\n    return ord(c) - i\n")
FIX = "Fix unhex: lowercase digits a-f give wrong values"


def test_a_fix_that_only_rewords_a_docstring_is_refused_and_retried() -> None:
    new = UNHEX.replace("The value of one hex digit.", "The value of one hex digit (a-f too).")
    refused = check_result("m.py", new, old=UNHEX, spec=spec_of(FIX, "m.py", UNHEX))
    assert refused is not None and refused.code == "no_code_change"
    assert refused.reason == ("the instruction asks to change code, but it changes only docstrings, comments "
                              "or layout")
    assert retry_note(refused.code, refused.reason).endswith("Change the code that the instruction is about.")


def test_a_fix_that_only_respells_a_constant_is_refused() -> None:
    new = UNHEX.replace("ord(b'A')-10", "ord('A')-10")
    refused = check_result("m.py", new, old=UNHEX, spec=spec_of(FIX, "m.py", UNHEX))
    assert refused is not None and refused.code == "no_code_change"
    assert refused.reason.endswith("it only rewrites ord(b'A') - 10 as ord('A') - 10, which has the same value")


def test_a_real_fix_passes_and_a_docstring_asked_for_is_no_code_change() -> None:
    fixed = UNHEX.replace("    else:\n        i = ord(b'A')-10\n",
                          "    elif b'a' <= c <= b'f':\n        i = ord('a')-10\n    else:\n        i = ord(b'A')-10\n")
    assert check_result("m.py", fixed, old=UNHEX, spec=spec_of(FIX, "m.py", UNHEX)) is None
    reworded = UNHEX.replace("one hex digit.", "one hexadecimal digit.")
    asked = spec_of("reword the docstring of unhex", "m.py", UNHEX)
    assert asked.action == "docstring"
    assert check_result("m.py", reworded, old=UNHEX, spec=asked) is None


def test_only_pure_builtins_of_constants_fold() -> None:
    assert same_behaviour("x = 2 ** 10\n", "x = 1024\n") is not None
    assert same_behaviour("x = 1\n", "x = 1.0\n") is None  # an int is not a float
    assert same_behaviour("x = ord('a')\n", "x = ord('b')\n") is None
    shadowed = "def ord(c):\n    return 0\n\n"  # the module's own ord is not the builtin
    assert same_behaviour(shadowed + "x = ord(b'A')\n", shadowed + "x = ord('A')\n") is None
    # too long to fold: judged as changed, and never built
    assert same_behaviour("x = 'a' * 10 ** 12\n", "x = 'a' * 10 ** 12 + ''\n") is None


SHLEX = source("shlex.py")
TYPO = SHLEX.replace('"""Return a shell-escaped version of the string *s*."""',
                     '"""Retrun a shell-escaped version of the string *s*."""')
# as different people ask it: a verb and its object, a report, a terse title, a possessive, a substitution
TYPO_FIXES = ["fix the typo in the docstring of quote",
              "The docstring of quote says 'Retrun', fix it",
              'Fix typo in quote docstring: "Retrun" -> "Return"',
              "quote's docstring has a typo (Retrun), please correct it",
              "Correct the spelling mistake in the documentation of quote",
              "Replace 'Retrun' with 'Return' in the docstring of quote"]


@pytest.mark.parametrize("wording", TYPO_FIXES)
def test_a_typo_fixed_in_a_docstring_is_a_docstring_change_not_a_missing_fix(wording: str) -> None:
    spec = spec_of(wording, "shlex.py", TYPO)
    assert (spec.action, spec.only, [s.qualname for s in spec.targets]) == (
        "docstring", frozenset({"docstrings"}), ["quote"]), wording
    assert check_result("shlex.py", SHLEX, old=TYPO, spec=spec) is None
    assert check_scope(TYPO, SHLEX, spec, rel="shlex.py").ok
    # docstrings are what it allows: a change of code beside the fixed typo is not explained
    coded = SHLEX.replace("return \"''\"", "return '\"\"'")
    assert coded != SHLEX and not check_scope(TYPO, coded, spec, rel="shlex.py").ok


def test_a_fix_of_code_that_quotes_its_docstring_stays_a_fix() -> None:
    spec = spec_of("Fix quote: its docstring says shell-escaped, but quote('') returns an empty string", "shlex.py",
                   SHLEX)
    assert spec.action == "change" and "code" in spec.allows


INDENT = ("def indent(text, prefix, predicate=None):\n    if predicate is None:\n        def predicate(line):\n"
          "            return line\n\n    def prefixed_lines():\n        for line in text.splitlines(True):\n"
          "            yield (prefix + line if predicate(line) else line)\n    return ''.join(prefixed_lines())\n")


def test_a_choice_rewritten_as_an_if_else_is_the_same_program() -> None:
    # bug-textwrap-indent w2 on the H200 (2026-12-03), applied WRONG: the "fix" spelled the conditional yield as
    # an if/else; the same for return and for one assignment
    branch = INDENT.replace("            yield (prefix + line if predicate(line) else line)\n",
                            "            if predicate(line):\n                yield (prefix + line)\n"
                            "            else:\n                yield line\n")
    assert same_behaviour(INDENT, branch) == "it only spells a choice as an if/else that makes the same choice"
    ret = ("def f(x):\n    return 1 if x else 2\n",
           "def f(x):\n    if x:\n        return 1\n    else:\n        return 2\n")
    assert same_behaviour(*ret) is not None
    assign = ("def f(x):\n    y = 1 if x else 2\n    return y\n",
              "def f(x):\n    if x:\n        y = 1\n    else:\n        y = 2\n    return y\n")
    assert same_behaviour(*assign) is not None
    # a different choice is a change: the real fix of indent
    fixed = INDENT.replace("            return line\n", "            return line.strip()\n")
    assert same_behaviour(INDENT, fixed) is None
    other = branch.replace("                yield line\n", "                yield ''\n")
    assert same_behaviour(INDENT, other) is None
