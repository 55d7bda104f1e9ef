"""A new parameter's default keeps what existing calls did, and its value is used: on real files, with the
1.5B's replies recorded on the H200 (run 16: fresh/cmd.py, fresh2/getpass.py), which were applied wrong before."""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.checks.signature import asked_parameter_problem
from coder.edit.intent.read import grammar_read
from coder.edit.intent.symbols import SymbolTable

CMD, GETPASS = source("fresh/cmd.py"), source("fresh2/getpass.py")
_JOIN = 'self.stdout.write("%s\\n"%str("  ".join(texts)))'
_HEAD = "def columnize(self, list, displaywidth=80):"
_LOOP = """    for name in ('LOGNAME', 'USER', 'LNAME', 'USERNAME'):
        user = os.environ.get(name)
        if user:
            return user
"""


def _problem(rel: str, old: str, new: str, instruction: str) -> str | None:
    spec = grammar_read(instruction, SymbolTable.of({rel: old}, rel))
    assert spec.action == "add_parameter"
    return asked_parameter_problem(old, new, spec)


def _columnize(default: str) -> str:
    return CMD.replace(_HEAD, f"def columnize(self, list, displaywidth=80, sep={default}):").replace(
        _JOIN, _JOIN.replace('"  ".join', "sep.join"))


@pytest.mark.parametrize("instruction", [
    "let me pick the column separator in Cmd.columnize, e.g. columnize(names, sep=' | '). default stays two spaces",
    "add a sep parameter to Cmd.columnize for what goes between the columns",
])
def test_a_default_other_than_what_the_code_did_is_named(instruction: str) -> None:
    found = _problem("fresh/cmd.py", CMD, _columnize("' '"), instruction)  # the recorded reply's default
    assert found == ("called without sep, columnize now uses ' ' where it used '  ': sep's default must keep what "
                     "existing calls do (sep='  ')")
    assert _problem("fresh/cmd.py", CMD, _columnize("'  '"), instruction) is None


def test_a_default_the_instruction_spells_is_the_users_choice() -> None:
    said = "add a parameter sep=' ' to Cmd.columnize and join the columns with it"
    assert _problem("fresh/cmd.py", CMD, _columnize("' '"), said) is None


def _getuser(body: str) -> str:
    return GETPASS.replace("def getuser():", "def getuser(env_vars=None):").replace(_LOOP, body)


_SAID = ("I want to tell getpass.getuser() which environment variables to check, e.g. "
         "getuser(env_vars=['GIT_AUTHOR_NAME', 'USER']). Add that parameter; called without it, the lookup must "
         "stay exactly as it is.")


def test_a_parameter_only_tested_against_none_is_named() -> None:
    only_tested = "    if env_vars is None:\n" + "".join("    " + line + "\n" for line in _LOOP.splitlines())
    assert _problem("fresh2/getpass.py", GETPASS, _getuser(only_tested), _SAID) == (
        "env_vars is only tested in getuser (against None or for its truth); the value it is given is never used")
    used = _LOOP.replace("for name in ('LOGNAME', 'USER', 'LNAME', 'USERNAME'):",
                         "for name in env_vars or ('LOGNAME', 'USER', 'LNAME', 'USERNAME'):")
    assert _problem("fresh2/getpass.py", GETPASS, _getuser(used), _SAID) is None
    names = "    if env_vars is None:\n        env_vars = ('LOGNAME', 'USER', 'LNAME', 'USERNAME')\n" + _LOOP.replace(
        "('LOGNAME', 'USER', 'LNAME', 'USERNAME')", "env_vars")
    assert _problem("fresh2/getpass.py", GETPASS, _getuser(names), _SAID) is None


PY_COMPILE, CODE = source("fresh3/py_compile.py"), source("fresh3/code.py")


def test_a_parameter_rebound_and_never_read_again_is_named() -> None:
    # the 1.5B's reply on the 2-core CPU (run 17): argv set from sys.argv when None, then argparse reads sys.argv
    new = PY_COMPILE.replace("def main():\n", "def main(argv=None):\n    if argv is None:\n        argv = sys.argv\n")
    said = "make py_compile's main() take an optional argv list (None = use sys.argv like now)"
    assert _problem("fresh3/py_compile.py", PY_COMPILE, new, said) == (
        "argv is only tested in main (against None or for its truth); the value it is given is never used")
    used = new.replace("args = parser.parse_args()", "args = parser.parse_args(argv)")
    assert used != new and _problem("fresh3/py_compile.py", PY_COMPILE, used, said) is None


def test_a_call_on_an_instance_made_right_there_is_held_to_its_method() -> None:
    from coder.edit.checks.code_rules import broken_calls

    # the reply of both wordings on the CPU and of one on the H200 (run 17): the new filename passed on as a third
    # argument of InteractiveConsole.interact, which takes two
    new = CODE.replace("    console.interact(banner, exitmsg)\n", "    console.interact(banner, exitmsg, filename)\n")
    assert new != CODE
    assert broken_calls(CODE, new) == ("a call no longer fits its definition: InteractiveConsole.interact takes 2 "
                                       "positional argument(s) but the call gives 3 (it raises TypeError)")
    keyword = CODE.replace("    console.interact(banner, exitmsg)\n", "    console.interact(banner, exitmsg=exitmsg)\n")
    assert broken_calls(CODE, keyword) is None
