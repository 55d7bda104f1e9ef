"""Reading rules of run 19, each pinned on the suite's queue.py in wordings of our own (the fourth fresh set, read
since its first run, showed the miss; its own wordings are not copied here)."""

from __future__ import annotations

import pytest

from coder.bench.edits.taskdef import source
from coder.edit.intent.read import read_instruction

QUEUE = "queue.py"


@pytest.mark.parametrize(("instruction", "names"), [
    # the plain words of what the new method is about are no new defs ("inner function closes over": run 18)
    ("Add a peek_nowait() method to Queue that returns the next item without removing it, the way a reader "
     "function peeks at a buffer", ("peek_nowait",)),
    ("Queue needs an is_idle() method, i.e. true when no worker method waits on it", ("is_idle",)),
    # no code-shaped name: the plain one is the new method, as before
    ("add a drain method to Queue that empties it and returns the items", ("drain",)),
    # two code-shaped names before any description: both
    ("add a method drain_all and a helper _take_all to Queue", ("drain_all", "_take_all")),
])
def test_a_new_defs_description_names_no_other_new_def(instruction: str, names: tuple[str, ...]) -> None:
    spec = read_instruction(instruction, {QUEUE: source(QUEUE)}, home=QUEUE)
    assert spec.action == "add_method" and spec.new_names == names
