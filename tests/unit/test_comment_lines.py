"""The line a comment is asked above, said by a (dotted) name, a call or a verb (intent/lines.py), in wordings of
our own on the suite's queue.py and the held-out set's files. On the fourth fresh set (run 18, 2-core CPU) such
wordings ("the shift line", "the self.__init__ call", "the statement that increases shift", "why __init__ is
called there") resolved no line, and the comment went to the model as a region: it answered the code unchanged,
or the scope guard refused what it changed besides."""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.intent.read import read_instruction

QUEUE = "queue.py"


def _read(instruction: str) -> tuple[list[str], str | None]:
    spec = read_instruction(instruction, {QUEUE: source(QUEUE)}, home=QUEUE)
    return [t.qualname for t in spec.targets], spec.anchor.line if spec.anchor is not None else None


@pytest.mark.parametrize(("instruction", "line"), [
    ("comment the self.not_empty.notify call in Queue.put", "self.not_empty.notify()"),
    ("in Queue.put, add a comment on the `not_empty.notify()` call saying a waiting getter wakes up",
     "self.not_empty.notify()"),
    ("add a comment in Queue.put explaining why _put is called under the lock", "self._put(item)"),
    ("Queue.put: put a comment above the call to self._put, it's the hook subclasses override", "self._put(item)"),
    ("Above the statement in Queue.put that increments unfinished_tasks, write a comment that join() waits on it",
     "self.unfinished_tasks += 1"),
    # not_full.wait is called on two lines of put: "remaining" says which
    ("comment the not_full.wait call in Queue.put that waits for the remaining time", "self.not_full.wait(remaining)"),
])
def test_a_line_said_by_name_call_or_verb_is_that_line(instruction: str, line: str) -> None:
    targets, anchor = _read(instruction)
    assert targets == ["Queue.put"] and anchor == line


@pytest.mark.parametrize("instruction", [
    "comment the not_full.wait call in Queue.put",  # on two lines, nothing else said tells them apart
    "add a comment in Queue.put about the lock",  # no line named: the comment stays a region edit
])
def test_a_line_said_ambiguously_or_not_at_all_is_none(instruction: str) -> None:
    targets, anchor = _read(instruction)
    assert targets == ["Queue.put"] and anchor is None


def test_a_comment_goes_in_the_def_that_calls_the_other_named_one() -> None:
    # "_put" is a method of Queue too; the comment is asked in put, whose body calls it
    targets, anchor = _read("Could you explain with a comment in Queue.put why _put is called there?")
    assert targets == ["Queue.put"] and anchor == "self._put(item)"
    # two defs named, neither calling the other: both stay targets
    targets, _ = _read("add a comment to Queue.put and Queue.get about blocking")
    assert sorted(targets) == ["Queue.get", "Queue.put"]
