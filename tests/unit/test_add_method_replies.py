"""Add-method plans replayed with the H200's recorded replies (run of 2026-12-03), judged by the task's judge.

Each case in ``tests/data/edit/h200_1203/add_method_replies.json`` holds a pair's replies in the order
they were given (the first ask's, then the retry's); :class:`coder.testing.replies.ScriptedModel` hands
them out, and the plan, its checks, the retry and the splice are real.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import make_repo

from coder.bench.edits.run import proposed
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import PlanProposal
from coder.edit.run.plan_run import PlanRequest, prepare, run_plan
from coder.testing.replies import ScriptedModel

DATA = Path(__file__).resolve().parents[1] / "data" / "edit" / "h200_1203"
CASES = json.loads((DATA / "add_method_replies.json").read_text())


def replay(tmp_path: Path, case: str) -> tuple[Task, PlanProposal, ScriptedModel, dict[str, str]]:
    """The plan of the case's task in its wording, answered with its recorded replies (not applied)."""
    recorded = CASES[case]
    task = next(t for t in (*TASKS, *HELDOUT) if t.name == recorded["task"])
    originals = task.originals()
    root = tmp_path / "r"
    make_repo(root, originals)
    engine = EditEngine(None, root, ctx=32768)
    prepared = prepare(engine, root / task.file, task.wordings[recorded["wording"]])
    assert isinstance(prepared, PlanRequest) and prepared.plan.kind == "add_method"
    model = ScriptedModel(engine, recorded["replies"])
    return task, run_plan(engine, prepared, model), model, originals


def planned(tmp_path: Path, task: Task, wording: int) -> tuple[EditEngine, PlanRequest]:
    """The engine over a fresh repository of ``task``'s files, and the plan of its ``wording`` (not run)."""
    make_repo(tmp_path / "r", task.originals())
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    prepared = prepare(engine, tmp_path / "r" / task.file, task.wordings[wording])
    assert isinstance(prepared, PlanRequest)
    return engine, prepared


def judged(tmp_path: Path, case: str) -> tuple[bool, str]:
    """The task's judge on the case's result, which must be applied (ok, scope ok) on the first reply."""
    task, proposal, model, originals = replay(tmp_path, case)
    assert proposal.ok and (proposal.scope is None or proposal.scope.ok), proposal.refusal
    assert len(model.asked) == 1  # the first reply was used: no retry
    return task.judge(originals, {**originals, **proposed(proposal, tmp_path / "r")})


def test_a_reply_that_is_only_the_new_method_is_inserted_after_the_region(tmp_path: Path) -> None:
    # queue-method w0, shlex-method w0/w1: refused twice ("changes or drops existing members"): the region
    # (the class's last method) was replaced by the new method alone
    assert judged(tmp_path / "q0", "queue-method_w0") == (True, "2 behaviour case(s) right, the rest unchanged")
    assert judged(tmp_path / "s0", "shlex-method_w0") == (True, "3 behaviour case(s) right, the rest unchanged")
    assert judged(tmp_path / "s1", "shlex-method_w1") == (True, "3 behaviour case(s) right, the rest unchanged")


def test_a_lone_def_that_redefines_an_existing_method_is_still_refused(tmp_path: Path) -> None:
    # queue-method w2: asked for clear, the reply is `def empty` (Queue has one): refused after the retry
    _, proposal, model, _ = replay(tmp_path, "queue-method_w2")
    assert not proposal.ok and len(model.asked) == 2
    assert "the new method is empty, not clear" in str(proposal.refusal)


def test_the_add_method_note_gives_the_values_init_sets(tmp_path: Path) -> None:
    # reprlib-method w0 was applied WRONG: "puts all the limits back to their defaults" came back with
    # self.maxlist = 1000 ... (the note named the attributes only); __init__ sets maxlevel = 6, maxstring = 30
    _, prepared = planned(tmp_path, next(t for t in HELDOUT if t.name == "reprlib-method"), 0)
    (step,) = prepared.plan.steps
    assert str(step.note).endswith(
        "The attributes the methods of class Repr set (with the values __init__ gives them): self.fillvalue = '...', "
        "self.maxlevel = 6, self.maxtuple = 6, self.maxlist = 6, self.maxarray = 5, self.maxdict = 4, "
        "self.maxset = 6, self.maxfrozenset = 6, self.maxdeque = 6, self.maxstring = 30, self.maxlong = 40, "
        "self.maxother = 30.")


def test_init_values_are_literals_of_init_itself() -> None:
    import ast

    from coder.edit.source.attrs import init_values, state_listed

    cls = ast.parse("class C:\n    def __init__(self, n):\n        self.a = -1\n        self.b = n\n"
                    "        self.c: tuple[int, ...] = ()\n        if n:\n            self.d = 2\n"
                    "    def m(self):\n        self.e = 3\n").body[0]
    assert isinstance(cls, ast.ClassDef)
    assert init_values(cls) == {"a": "-1", "c": "()"}  # not b (a parameter), not d (under an if)
    assert state_listed(cls) == "self.a = -1, self.c = (), self.b, self.d, self.e"


def test_a_new_method_the_model_named_otherwise_is_renamed_as_asked(tmp_path: Path) -> None:
    # sched-method w1: "add a clear method to scheduler ..." came back as `def drop_queue` twice: refused;
    # nothing else spells drop_queue, so the method is renamed clear and the plan says so
    task, proposal, model, originals = replay(tmp_path, "sched-method_w1")
    assert proposal.ok and len(model.asked) == 1, proposal.refusal
    assert "plan: sched.py lines 154-167: the model named the new method drop_queue: renamed clear, as asked" \
        in proposal.review_lines()
    assert "+    def clear(self):" in proposal.diff and "drop_queue" not in proposal.diff
    new = {**originals, **proposed(proposal, tmp_path / "r")}
    assert task.judge(originals, new) == (True, "2 behaviour case(s) right, the rest unchanged")


def test_a_new_method_is_not_renamed_when_its_name_is_used_or_taken() -> None:
    from coder.edit.source.splice import named_as_asked

    old = "class C:\n    def a(self):\n        return 1\n"
    reply = "    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n"
    assert named_as_asked(old, 2, 3, reply, "C", "z") == (
        reply.replace("def b", "def z"), "the model named the new method b: renamed z, as asked")
    used = reply.replace("return 1", "return self.b()")  # a's change aside, b is called: not renamed
    assert named_as_asked(old, 2, 3, used, "C", "z") == (used, "")
    assert named_as_asked(old, 2, 3, reply, "C", "a") == (reply, "")  # the asked name is a member already


def test_a_read_the_value_lacks_is_asked_again_and_a_subclass_value_counts(tmp_path: Path) -> None:
    # queue-method w1 on the H200 (run 10): `while not self.queue.empty(): self.queue.popleft()` was refused only by
    # the whole plan's check, with no second try. The step now retries it; the CPU 1.5B's retry, `while self.queue:
    # self.queue.popleft()`, would have been applied WRONG: PriorityQueue and LifoQueue keep a list, which has no
    # popleft, and neither overrides clear
    _, proposal, model, _ = replay(tmp_path, "queue-method_w1")
    assert len(model.asked) == 2
    retry = model.asked[1].prompt.messages[-1]["content"]
    assert ("(A first reply was refused: self.queue is a deque, which has no attribute empty (reading it raises "
            "AttributeError); self.queue is true while it holds items: `not self.queue` says it is empty and `while "
            "self.queue:` loops until it is; and self.queue is a list in PriorityQueue, which has no attribute "
            "popleft (reading it raises AttributeError).) Use only attributes that value has.") in retry
    assert not proposal.ok
    assert "retried once after" in str(proposal.refusal)
    assert "self.queue is a list in PriorityQueue, which has no attribute popleft" in str(proposal.refusal)


def test_a_method_every_queue_can_run_is_applied(tmp_path: Path) -> None:
    # the same plan answered (a reply written here, a test double's) with what deque and list both have
    task = next(t for t in TASKS if t.name == "queue-method")
    originals = task.originals()
    engine, prepared = planned(tmp_path, task, 1)
    reply = ("```python\n    def _get(self):\n        return self.queue.popleft()\n\n    def clear(self):\n"
             "        with self.mutex:\n            self.queue.clear()\n```")
    model = ScriptedModel(engine, [reply])
    proposal = run_plan(engine, prepared, model)
    assert proposal.ok and len(model.asked) == 1, proposal.refusal
    assert task.judge(originals, {**originals, **proposed(proposal, tmp_path / "r")})[0]


def test_the_note_spells_the_new_def_and_the_replies_to_it_are_right(tmp_path: Path) -> None:
    # run 10 on the H200: queue-method w2 ("Queue should have a clear method: empty the queue ...") came back as
    # `def empty`, graphlib-method w2 as static_order with a new return, retries included. Told the new def's first
    # line, the CPU 1.5B wrote each method as asked, on the first reply
    _, prepared = planned(tmp_path, next(t for t in TASKS if t.name == "queue-method"), 2)
    (step,) = prepared.plan.steps
    assert "keep it exactly as it is and write the new method `def clear(self...)` right after it" in str(step.note)
    assert judged(tmp_path / "q2", "queue-method_w2_named") == (True, "2 behaviour case(s) right, the rest unchanged")
    assert judged(tmp_path / "g2", "graphlib-method_w2_named") == (True, "2 behaviour case(s) right, the rest "
                                                                         "unchanged")
