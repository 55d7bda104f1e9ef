"""Reading rules of run 23, pinned on the suite's files in wordings of our own."""

from __future__ import annotations

import pytest
from test_intent_phrasings_run22 import read

from coder.edit.intent.read import read_instruction


@pytest.mark.parametrize("said", [
    "shlex.split drops the last word when the line ends in a quote. Typing into the REPL shows the same thing.",
    "split() loses the final token after a closing quote; typing on the keyboard or reading a file, same result",
])
def test_typing_at_a_keyboard_is_no_request_for_type_hints(said: str) -> None:
    assert read("shlex.py", said)[0] == "change"


@pytest.mark.parametrize("said", ["add typing to split", "split needs typing", "typing for shlex.split please"])
def test_typing_of_a_def_still_asks_for_hints(said: str) -> None:
    assert read("shlex.py", said) == ("type_hints", ["split"])


TALLY = '''class Tally:
    def run(self, cmd):
        return self.count(cmd)

    def count(self, cmd):
        return len(cmd)


def run(cmd):
    return Tally().run(cmd)


def main(argv):
    return [run(a) for a in argv]
'''


def test_the_module_prefix_names_the_modules_def_before_a_class_of_the_same_name_in_another_case() -> None:
    # "tally.run()" is the module's run, not Tally.run, whose class differs from the module's name in case only
    spec = read_instruction("tally.run() always gives 0 for a long command", {"tally.py": TALLY}, home="tally.py")
    assert [t.qualname for t in spec.targets] == ["run"]
    spec = read_instruction("Tally.run gives 0", {"tally.py": TALLY}, home="tally.py")
    assert [t.qualname for t in spec.targets] == ["Tally.run"]


@pytest.mark.parametrize(("said", "reach"), [
    ("tally.run() output is always 0: a main() that only calls other functions shows 0 too", "symbol"),
    ("tally.run() is wrong, fix it and its callers", "callers"),
])
def test_a_report_describing_what_calls_what_asks_no_callers(said: str, reach: str) -> None:
    spec = read_instruction(said, {"tally.py": TALLY}, home="tally.py")
    assert ([t.qualname for t in spec.targets], spec.reach) == (["run"], reach)
