"""The new-signature check (coder.edit.checks.signature) on real files: a def may not gain a parameter nobody asked for.

The wrong edit it exists for: "Add a method m to the class C that returns ..." came back as
``def m(self, year)`` with ``year`` unused, was applied, and every call the instruction describes
raised TypeError. Here it is rebuilt on the shipped copy of ``sched.py`` and judged three ways:
by the check, by calling the edited module, and through the engine with a region reply in the
model's fenced shape. The spec is built directly (the reading is another module's), in several
wordings of the instruction: the check reads the spec, never the words.
"""

from __future__ import annotations

import types
from pathlib import Path

import pytest
from bench_edit_refs import correct_results
from cli_helpers import make_repo
from spec_helpers import region_reply, symbol

from coder.bench.edits.tasks import TASKS, Task, source
from coder.edit.checks.result import check_result
from coder.edit.checks.signature import param_names, unasked_parameters
from coder.edit.intent.spec import ChangeSpec
from coder.edit.run.engine import EditEngine

SCHED = source("sched.py")
GLOB = source("glob.py")
COLORSYS = source("colorsys.py")
EMPTY = '''    def empty(self):
        """Check whether the queue is empty."""
        with self._lock:
            return not self._queue
'''
WORDINGS = (
    "Add a method `pending` to the class `scheduler` that returns how many events are queued.",
    "add a pending method to scheduler returning the number of queued events",
    "scheduler should have pending(), which returns len of the queue",
)


def _add_pending(signature: str, body: str = "        with self._lock:\n            return len(self._queue)\n") -> str:
    assert EMPTY in SCHED
    return SCHED.replace(EMPTY, f"{EMPTY}\n    def {signature}:\n{body}", 1)


def _spec(instruction: str, *, new_names: tuple[str, ...] = ("pending",), params: tuple[str, ...] = ()) -> ChangeSpec:
    owner = symbol("sched.py", SCHED, "scheduler")
    return ChangeSpec(instruction, "add_method", new_names=new_names, params=params, owner=owner)


def _module(text: str) -> types.ModuleType:
    module = types.ModuleType("sched_edited")
    exec(compile(text, "sched.py", "exec"), module.__dict__)  # the stdlib's own sched.py, edited
    return module


@pytest.mark.parametrize("instruction", WORDINGS)
def test_the_observed_wrong_method_is_refused_in_every_wording(instruction: str) -> None:
    wrong = _add_pending("pending(self, year)")
    why = unasked_parameters(SCHED, wrong, _spec(instruction))
    assert why == ("scheduler.pending gained a parameter year that the instruction does not ask for and its "
                   "body never uses (a call as the instruction describes it raises TypeError)")
    refused = check_result("sched.py", wrong, old=SCHED, spec=_spec(instruction))
    assert refused is not None and refused.code == "signature" and refused.reason == why


def test_the_refused_method_really_breaks_the_described_call_and_the_accepted_one_does_not() -> None:
    wrong, right = _add_pending("pending(self, year)"), _add_pending("pending(self)")
    s = _module(wrong).scheduler()
    with pytest.raises(TypeError):
        s.pending()
    fixed = _module(right).scheduler()
    fixed.enter(10, 1, print)
    assert fixed.pending() == 1
    assert unasked_parameters(SCHED, right, _spec(WORDINGS[0])) is None
    assert check_result("sched.py", right, old=SCHED, spec=_spec(WORDINGS[0])) is None


def test_a_parameter_the_spec_names_or_the_body_reads_is_kept() -> None:
    used = _add_pending("pending(self, before)",
                        "        with self._lock:\n            return sum(e.time < before for e in self._queue)\n")
    assert unasked_parameters(SCHED, used, _spec(WORDINGS[0])) is None  # read by the body: not unasked
    named = _add_pending("pending(self, strict=False)")
    assert unasked_parameters(SCHED, named, _spec("x", params=("strict: bool = False",))) is None
    assert "gained a parameter strict" in (unasked_parameters(SCHED, named, _spec("x")) or "")
    assert unasked_parameters(SCHED, _add_pending("pending(self, _unused=None)"), _spec("x")) is None


def test_a_described_call_must_bind_when_the_spec_names_the_parameters() -> None:
    spec = ChangeSpec("Add a function clamp(x, lo, hi) that returns x limited to [lo, hi]", "add_function",
                      new_names=("clamp",), params=("x", "lo", "hi"))
    end = COLORSYS.rstrip("\n") + "\n\n"
    right = end + "def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n"
    assert unasked_parameters(COLORSYS, right, spec) is None
    extra = end + "def clamp(x, lo, hi, scale):\n    return max(lo, min(hi, x * scale))\n"
    assert unasked_parameters(COLORSYS, extra, spec) == (
        "clamp requires scale, which the instruction does not describe (it describes the parameters hi, lo, x): "
        "a call as described raises TypeError")
    defaulted = end + "def clamp(x, lo, hi, scale=1.0):\n    return max(lo, min(hi, x * scale))\n"
    assert unasked_parameters(COLORSYS, defaulted, spec) is None  # clamp(x, lo, hi) still binds


def test_an_added_parameter_and_nothing_more() -> None:
    head = "def _listdir(dirname, dir_fd, dironly):"
    spec = ChangeSpec("Add a parameter include_hidden: bool = False to _listdir", "add_parameter",
                      targets=(symbol("glob.py", GLOB, "_listdir"),), params=("include_hidden: bool = False",))
    asked = GLOB.replace(head, "def _listdir(dirname, dir_fd, dironly, include_hidden: bool = False):", 1)
    assert unasked_parameters(GLOB, asked, spec) is None  # named by the spec: unused is fine (a later step uses it)
    more = GLOB.replace(head, "def _listdir(dirname, dir_fd, dironly, include_hidden=False, verbose=False):", 1)
    assert unasked_parameters(GLOB, more, spec) == (
        "_listdir gained a parameter verbose that the instruction does not ask for and its body never uses")


def test_signatures_something_else_dictates_are_left_alone() -> None:
    spec = _spec("add context manager support to scheduler", new_names=())
    exits = _add_pending("__exit__(self, exc_type, exc, tb)", "        return None\n")
    assert unasked_parameters(SCHED, exits, spec) is None  # the protocol's three arguments
    callback = _add_pending("_by_time(self, event)", "        return 0\n").replace(
        "return list(map(heapq.heappop", "self._queue.sort(key=self._by_time)\n        return list(map(heapq.heappop")
    assert unasked_parameters(SCHED, callback, spec) is None  # passed as key=: sort decides its arguments
    derived = "class Base:\n    def run(self, blocking):\n        return 1\n\nclass Child(Base):\n    pass\n"
    override = derived.replace("    pass\n", "    def run(self, blocking):\n        return 2\n")
    assert unasked_parameters(derived, override, spec) is None  # the base's signature
    elsewhere = "import threading\n\nclass T(threading.Thread):\n    pass\n"
    run = elsewhere.replace("    pass\n", "    def run(self, flag):\n        return 2\n")
    assert unasked_parameters(elsewhere, run, ChangeSpec("x", "change")) is None  # may override Thread.run
    asked = ChangeSpec("Add a method run to T that returns 2", "add_method", new_names=("run",))
    assert "gained a parameter flag" in (unasked_parameters(elsewhere, run, asked) or "")  # asked for: judged


def test_unchanged_renamed_and_moved_defs_gain_nothing() -> None:
    spec = ChangeSpec("rename rgb_to_hsv to rgb2hsv", "rename", renames=(("rgb_to_hsv", "rgb2hsv"),))
    renamed = COLORSYS.replace("def rgb_to_hsv(", "def rgb2hsv(", 1)
    assert unasked_parameters(COLORSYS, renamed, spec) is None
    assert unasked_parameters(COLORSYS, COLORSYS, spec) is None
    assert unasked_parameters(COLORSYS, "def broken(:\n", spec) is None  # the syntax check says that


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_no_bench_tasks_correct_result_is_flagged_even_by_a_spec_that_names_nothing(task: Task) -> None:
    spec = ChangeSpec(task.instruction, "unknown")  # the reading named no parameter: the strictest case
    for rel, new in correct_results(task).items():
        if rel.endswith(".py"):
            assert unasked_parameters(source(rel), new, spec) is None, rel


def test_param_names_reads_each_entry_as_written() -> None:
    spec = ChangeSpec("x", "add_parameter", params=("strict: bool = False", "*args", "**kw", "n=1", "year"))
    assert param_names(spec) == {"strict", "args", "kw", "n", "year"}


def test_the_engine_refuses_the_region_reply_and_its_retry_request_says_why(tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {"sched.py": SCHED})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / "sched.py", WORDINGS[1], mode="region", symbol="scheduler")
    assert request.spec is not None and request.spec.action == "add_method"  # the user's words, read by the grammar
    target = request.prompt.target
    wrong = target.replace(EMPTY, f"{EMPTY}\n    def pending(self, year):\n        return len(self._queue)\n")
    first = engine.evaluate(request, region_reply(request, wrong), finish_reason="stop")
    assert not first.ok and first.refusal_code == "signature"
    again = engine.retry_request(first)
    assert again is not None and again.instruction == WORDINGS[1] and again.region == request.region
    assert again.retry_note == (f"(A first reply was refused: {first.refusal}.) Remove that parameter: the "
                                "instruction describes no such argument.")
    assert again.retry_note in again.messages[-1]["content"]
    right = target.replace(EMPTY, f"{EMPTY}\n    def pending(self):\n        return len(self._queue)\n")
    second = engine.evaluate(again, region_reply(again, right), finish_reason="stop")
    assert second.ok and second.new == _add_pending("pending(self)", "        return len(self._queue)\n")
    assert engine.retry_request(second) is None  # accepted
    refused_again = engine.evaluate(again, region_reply(again, wrong), finish_reason="stop")
    assert engine.retry_request(refused_again) is None  # a retry is never retried


def test_a_plan_step_with_an_unasked_parameter_is_asked_again_with_the_reason(tmp_path: Path) -> None:
    from coder.edit.proposal import EditRequest
    from coder.edit.run import plan_run
    from coder.edit.run.plan_result import PlanRequest
    from coder.testing.replies import ScriptedModel

    graphlib = source("graphlib.py")
    make_repo(tmp_path / "r", {"graphlib.py": graphlib})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    prepared = plan_run.prepare(engine, engine.root / "graphlib.py",
                                "give TopologicalSorter a node_count method that returns how many nodes it holds")
    assert isinstance(prepared, PlanRequest) and prepared.spec is not None  # read by the grammar, no server
    assert prepared.spec.action == "add_method" and prepared.spec.new_names[:1] == ("node_count",)
    assert prepared.spec.owner is not None and prepared.spec.owner.qualname == "TopologicalSorter"
    signatures = iter(["node_count(self, year)", "node_count(self)"])

    def add_count(request: EditRequest) -> str:  # the region, then the new method: first wrong, then right
        body = request.prompt.target + f"\n    def {next(signatures)}:\n        return len(self._node2info)\n"
        return region_reply(request, body)
    model = ScriptedModel(engine, add_count)
    proposal = plan_run.run_plan(engine, prepared, model)
    assert proposal.ok, proposal.refusal
    (retry,) = proposal.retries
    assert retry.retried == ("TopologicalSorter.node_count gained a parameter year that the instruction does not "
                             "ask for and its body never uses (a call as the instruction describes it raises "
                             "TypeError)")
    assert "Remove that parameter: the instruction describes no such argument." in model.asked[-1].instruction
    assert "    def node_count(self):\n        return len(self._node2info)\n" in proposal.files[0].new
    signatures = iter(["node_count(self, year)"] * 2)
    refused = plan_run.run_plan(engine, prepared, ScriptedModel(engine, add_count))
    assert not refused.ok and "gained a parameter year" in (refused.refusal or "")


def test_a_def_that_loses_a_parameter_the_instruction_does_not_name_is_refused(tmp_path: Path) -> None:
    # applied WRONG on the H200 (bug-textwrap-indent, wording 1, the retry's reply): `def indent(text, prefix)`,
    # predicate gone; every caller passing one now raises TypeError
    task = next(t for t in TASKS if t.name == "bug-textwrap-indent")
    make_repo(tmp_path / "r", task.originals())
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / task.file, task.wordings[1], mode="region", symbol="indent")
    reply = (Path(__file__).resolve().parents[1] / "data" / "edit" / "h200_1203" / "textwrap_indent_w1.reply.txt")
    proposal = engine.evaluate(request, reply.read_text(), finish_reason="stop")
    assert not proposal.ok and proposal.refusal_code == "contract"
    assert "indent no longer takes its parameter predicate" in str(proposal.refusal)


def test_a_parameter_the_instruction_removes_or_renames_may_go() -> None:
    from coder.edit.checks.signature import lost_parameters
    from coder.edit.intent.read import read_instruction

    old = "def f(a, b=None):\n    return a if b is None else b\n\n\nf(1)\n"
    new = "def f(a):\n    return a\n\n\nf(1)\n"
    renamed = "def f(a, c=None):\n    return a if c is None else c\n\n\nf(1)\n"
    asked = read_instruction("remove the parameter b from f", {"m.py": old}, home="m.py")
    assert lost_parameters(old, new, asked) is None
    other = read_instruction("make f return a when `b` is None", {"m.py": old}, home="m.py")
    assert lost_parameters(old, new, other) is None  # b is named as code: the instruction speaks of it
    plain = read_instruction("simplify f", {"m.py": old}, home="m.py")
    assert lost_parameters(old, new, plain) == ("f no longer takes its parameter b, which the instruction does not "
                                                "ask to remove: a caller that passes b now raises TypeError")
    assert lost_parameters(old, renamed, plain) is not None  # a rename the instruction does not ask for


def test_a_caller_that_gains_the_callers_parameter_is_flagged() -> None:
    # timeit-param w0 on the H200 (2026-12-03, run 5), applied WRONG: "have both calls in Timer.__init__ pass
    # char=' ' explicitly" came back with Timer.__init__ taking char=' ' itself and passing it on
    from coder.bench.edits.tasks_heldout import HELDOUT
    from coder.edit.checks.signature import unasked_parameters
    from coder.edit.intent.read import read_instruction

    task = next(t for t in HELDOUT if t.name == "timeit-param")
    old = task.originals()[task.file]
    spec = read_instruction(task.wordings[0], task.originals(), home=task.file)
    callee = old.replace("def reindent(src, indent):", "def reindent(src, indent, char=' '):").replace(
        '"\\n" + " " * indent', '"\\n" + char * indent')
    assert callee != old
    right = callee.replace("reindent(setup, 4)", "reindent(setup, 4, char=' ')").replace(
        "reindent(stmt, 8)", "reindent(stmt, 8, char=' ')")
    assert unasked_parameters(old, right, spec) is None
    wrong = callee.replace("                 globals=None):", "                 globals=None, char=' '):").replace(
        "reindent(setup, 4)", "reindent(setup, 4, char=char)").replace(
        "reindent(stmt, 8)", "reindent(stmt, 8, char=char)")
    assert "globals=None, char=' '):" in wrong
    assert unasked_parameters(old, wrong, spec) == (
        "Timer.__init__ gained the parameter char, which the instruction adds to reindent only: where "
        "Timer.__init__ calls it, it passes char, it does not take it")


def test_a_parameter_with_another_default_than_asked_is_flagged() -> None:
    # glob-callers w1 on the H200 (2026-12-03, run 5), applied WRONG: "add an include_hidden=True parameter to
    # _listdir" came back as include_hidden=False (every existing call now leaves hidden names out)
    from coder.bench.edits.tasks import TASKS, source
    from coder.edit.checks.signature import asked_parameter_problem
    from coder.edit.intent.read import read_instruction

    task = next(t for t in TASKS if t.name == "glob-callers")
    old = source("glob.py")
    spec = read_instruction(task.wordings[1], {"glob.py": old}, home="glob.py")
    body = ("    with contextlib.closing(_iterdir(dirname, dir_fd, dironly)) as it:\n"
            "        return [x for x in it if include_hidden or not _ishidden(x)]\n")
    head = "def _listdir(dirname, dir_fd, dironly):\n"
    start = old.index(head)
    end = old.index("\n\n", start)
    for default, problem in (("True", None),
                             ("False", "include_hidden defaults to False in _listdir; the instruction asks for "
                                       "include_hidden=True")):
        new = (old[:start] + f"def _listdir(dirname, dir_fd, dironly, include_hidden={default}):\n" + body
               + old[end + 1:])
        assert asked_parameter_problem(old, new, spec) == problem
