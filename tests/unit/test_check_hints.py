"""A type-hints edit that annotates some returns annotates every def it changes (tabnanny-hints-all on the H200:
``-> None`` left out on ``NannyNag.__init__`` alone; replayed in ``test_h200_wrong_replayed.py``)."""

from __future__ import annotations

from spec_of import spec_of

from coder.edit.checks.hints import partial_returns
from coder.edit.checks.result import RETRIED, check_result, retry_note

NAG = ("class Nag(Exception):\n    def __init__(self, lineno, msg):\n"
       "        self.lineno, self.msg = lineno, msg\n\n"
       "    def get_lineno(self):\n        return self.lineno\n\n"
       "    def get_msg(self):\n        return self.msg\n")
ASK = "add type hints to all of Nag's methods (lineno is an int, msg is a str)"
ANNOTATED = (NAG.replace("def __init__(self, lineno, msg):", "def __init__(self, lineno: int, msg: str) -> None:")
             .replace("get_lineno(self):", "get_lineno(self) -> int:")
             .replace("get_msg(self):", "get_msg(self) -> str:"))


def test_a_method_left_without_its_return_is_refused_with_a_note() -> None:
    wrong = ANNOTATED.replace(") -> None:", "):")
    refused = check_result("m.py", wrong, old=NAG, spec=spec_of(ASK, "m.py", NAG))
    assert refused is not None and refused.code == "partial_hints" and "partial_hints" in RETRIED
    assert refused.reason == ("Nag.__init__ has no return annotation, while Nag.get_lineno, Nag.get_msg got one "
                              "(the instruction asks for type hints on each of them)")
    assert retry_note(refused.code, refused.reason).endswith("(-> None where it returns nothing).")


def test_every_return_annotated_passes() -> None:
    assert check_result("m.py", ANNOTATED, old=NAG, spec=spec_of(ASK, "m.py", NAG)) is None


def test_only_the_defs_the_edit_annotates_are_held() -> None:
    spec = spec_of(ASK, "m.py", NAG)
    one = NAG.replace("get_msg(self):", "get_msg(self) -> str:")  # the others untouched: not this rule's
    assert partial_returns(NAG, one, spec) is None
    params_only = NAG.replace("def __init__(self, lineno, msg):", "def __init__(self, lineno: int, msg: str):")
    assert partial_returns(NAG, params_only, spec) is None  # no return given anywhere: nothing inconsistent


EFFECTIVE = "def effective(file, line, frame):\n    return file, line\n"


def test_a_def_named_for_hints_with_its_return_annotated_and_no_parameter_is_refused() -> None:
    # ninth set, bdb-hints w1 on the 2-core CPU (run 23): only the return shown in the instruction was written
    ask = "type-annotate effective(file, line, frame) -> tuple[str, int]"
    spec = spec_of(ask, "m.py", EFFECTIVE)
    wrong = EFFECTIVE.replace("frame):", "frame) -> tuple[str, int]:")
    refused = check_result("m.py", wrong, old=EFFECTIVE, spec=spec)
    assert refused is not None and refused.code == "partial_hints"
    assert refused.reason.startswith("effective got hints, but its parameters file, line, frame have none")
    right = EFFECTIVE.replace("(file, line, frame):", "(file: str, line: int, frame: object) -> tuple[str, int]:")
    assert check_result("m.py", right, old=EFFECTIVE, spec=spec) is None
    # asked for the return's annotation alone: the parameters may stay bare
    only = spec_of("add a return type annotation to effective: tuple[str, int]", "m.py", EFFECTIVE)
    assert check_result("m.py", wrong, old=EFFECTIVE, spec=only) is None
