"""A change of code that changes no code is refused: the diff a windows plan applied as a bug fix.

Seen on the 2-core CPU with the 1.5B model: "fix reindent ..." on a buggy timeit.py went to windows,
and the plan's whole diff was one deleted blank line. It was applied, and the bug stayed.
"""

from __future__ import annotations

from coder.bench.edits.taskdef import source
from coder.edit.checks.result import RETRIED, check_result, retry_note
from coder.edit.intent.read import read_instruction
from coder.edit.intent.spec import ChangeSpec

BUGGY = source("heldout/bugs/timeit.py")
FIXED = source("heldout/timeit.py")
INSTRUCTION = "reindent() indents continuation lines one space short, fix it"


def _spec(instruction: str = INSTRUCTION) -> ChangeSpec:
    return read_instruction(instruction, {"timeit.py": BUGGY}, home="timeit.py")


def test_a_fix_that_only_drops_a_blank_line_is_refused_and_retried_with_the_reason() -> None:
    spec = _spec()
    assert spec.action in ("fix", "change")
    blank_gone = BUGGY.replace("\n\n\ndef reindent", "\n\ndef reindent", 1)
    assert blank_gone != BUGGY
    refused = check_result("timeit.py", blank_gone, old=BUGGY, spec=spec)
    assert refused is not None and refused.code == "no_code_change"
    assert "no_code_change" in RETRIED
    assert retry_note(refused.code, refused.reason, spec).endswith("Change the code that the instruction is about.")


def test_a_comment_only_reply_to_a_fix_is_refused_and_the_real_fix_passes() -> None:
    spec = _spec()
    commented = BUGGY.replace('    """Helper to reindent a multi-line statement."""\n',
                              '    """Helper to reindent a multi-line statement."""\n'
                              '    # indent continuation lines\n', 1)
    refused = check_result("timeit.py", commented, old=BUGGY, spec=spec)
    assert refused is not None and refused.code == "no_code_change"
    assert check_result("timeit.py", FIXED, old=BUGGY, spec=spec) is None


def test_a_comment_asked_for_is_not_a_change_of_code() -> None:
    spec = _spec("add a comment in reindent saying why the first line is left alone")
    assert spec.action == "comment"
    commented = BUGGY.replace('    """Helper to reindent a multi-line statement."""\n',
                              '    """Helper to reindent a multi-line statement."""\n'
                              '    # the first line is already placed by the template\n', 1)
    assert check_result("timeit.py", commented, old=BUGGY, spec=spec) is None
