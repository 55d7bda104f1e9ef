"""A changed def still returns a value where it did, and still uses each parameter it takes.

The wrong edits these rules refuse were applied on the H200 (getopt-default: gnu_getopt lost its last
``return``; bug-textwrap-indent: indent stopped calling ``predicate``); the replay of those diffs is in
``test_h200_wrong_replayed.py``. Here each rule is held on small files, wrong and right.
"""

from __future__ import annotations

import pytest
from spec_of import spec_of

from coder.bench.edits.taskdef import source
from coder.edit.checks.contract import broken_contract
from coder.edit.checks.result import RETRIED, check_result, retry_note

TOTAL = "def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
SHOW = "def show(items, fmt=str):\n    return ', '.join(fmt(i) for i in items)\n"


def _refused(old: str, new: str, instruction: str) -> tuple[str, str] | None:
    spec = spec_of(instruction, "m.py", old)
    refused = check_result("m.py", new, old=old, spec=spec)
    return None if refused is None else (refused.code, refused.reason)


def test_a_fix_that_drops_the_final_return_is_refused_with_a_note_for_the_retry() -> None:
    wrong = TOTAL.replace("t = 0\n", "t = 0.0\n").replace("    return t\n", "")
    code, reason = _refused(TOTAL, wrong, "fix total: it should start from 0.0") or ("", "")
    assert code == "contract" and "\n" not in reason
    assert reason == "total can now reach its end without a return, so it returns None where it returned t"
    assert "contract" in RETRIED
    assert retry_note(code, reason).endswith("Keep returning what the function returned and keep using every "
                                             "parameter it takes.")


def test_a_fix_that_keeps_every_path_returning_passes() -> None:
    right = TOTAL.replace("t = 0\n", "t = 0.0\n")
    assert _refused(TOTAL, right, "fix total: it should start from 0.0") is None
    branches = TOTAL.replace("    return t\n", "    if t < 0:\n        return 0.0\n    else:\n        return t\n")
    assert broken_contract(TOTAL, branches, spec_of("total should not go below 0", "m.py", TOTAL)) is None


def test_an_end_that_cannot_be_judged_is_left_alone() -> None:
    spec = spec_of("fix total", "m.py", TOTAL)
    exits = TOTAL.replace("    return t\n", "    sys.exit(t)\n")  # a call may never return
    assert broken_contract(TOTAL, exits, spec) is None
    generator = TOTAL.replace("    return t\n", "    yield t\n")  # a generator falls off its end by design
    assert broken_contract(TOTAL, generator, spec) is None
    forever = TOTAL.replace("    return t\n", "    while True:\n        t += 1\n")
    assert broken_contract(TOTAL, forever, spec) is None


def test_a_fix_that_stops_using_a_parameter_is_refused() -> None:
    wrong = SHOW.replace("fmt(i) for i in items", "str(i) for i in items if i")
    code, reason = _refused(SHOW, wrong, "show should skip empty items") or ("", "")
    assert code == "contract"
    assert reason == "show no longer uses its parameter fmt, so what a caller passes as fmt is ignored"


def test_a_test_against_none_is_no_use_of_the_parameter() -> None:
    old = ("def indent(text, pred=None):\n    if pred is None:\n        pred = str.strip\n"
           "    return [line for line in text if pred(line)]\n")
    wrong = old.replace("if pred(line)", "if line.strip()")  # pred is now only tested, never called
    assert broken_contract(old, wrong, spec_of("indent should skip blank lines", "m.py", old)) == (
        "indent no longer uses its parameter pred, so what a caller passes as pred is ignored")


def test_a_fix_that_keeps_the_parameter_or_is_asked_to_drop_it_passes() -> None:
    right = SHOW.replace("for i in items)", "for i in items if i)")
    assert _refused(SHOW, right, "show should skip empty items") is None
    dropped = SHOW.replace("fmt(i) for i in items", "str(i) for i in items")
    assert _refused(SHOW, dropped, "stop using `fmt` in show and always use str") is None  # named: asked


TEXTWRAP = source("textwrap.py")
# indent keeps taking predicate (its callers pass it) but no longer reads it
DEFAULT = "    if predicate is None:\n        def predicate(line):\n            return line.strip()\n\n"
IGNORING = TEXTWRAP.replace(DEFAULT, "").replace("prefix + line if predicate(line) else line",
                                                 "prefix + line if line.strip() else line")


@pytest.mark.parametrize("wording", [
    "make indent ignore predicate", "indent should ignore its predicate argument and always skip blank lines",
    "Stop using the predicate parameter in indent; whitespace-only lines never get the prefix",
    "the predicate passed to indent should be ignored (keep the parameter for compatibility)",
    "indent shouldn't use predicate anymore, blank lines are never prefixed"])
def test_a_def_asked_to_ignore_a_parameter_may_stop_using_it(wording: str) -> None:
    assert IGNORING != TEXTWRAP and "predicate" in IGNORING  # still taken, documented, never read
    spec = spec_of(wording, "textwrap.py", TEXTWRAP)
    assert [s.qualname for s in spec.targets] == ["indent"] and "predicate" in spec.facts.ignored
    assert check_result("textwrap.py", IGNORING, old=TEXTWRAP, spec=spec) is None


def test_the_same_edit_unasked_still_ignores_what_callers_pass() -> None:
    spec = spec_of("indent should never prefix whitespace-only lines", "textwrap.py", TEXTWRAP)
    refused = check_result("textwrap.py", IGNORING, old=TEXTWRAP, spec=spec)
    assert refused is not None and refused.reason == (
        "indent no longer uses its parameter predicate, so what a caller passes as predicate is ignored")
