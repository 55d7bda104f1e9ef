"""Docstrings for a class's methods as a short structured question, replayed from the CPU 1.5B's real answers.

Each recording in ``tests/data/docstrings/`` is the HTTP exchange of one question, sent by the real engine
through ``plan_for`` to Qwen2.5-Coder-1.5B Q4_K_M on llama-server (AMD EPYC, 2 cores), and kept through
:class:`coder.testing.record.RecordingProxy` (``scripts/dev/record_asked.py`` records them again). Here the
replay test double answers it; the question, its schema, the parsing and the writing are real, and each
result is judged by the bench's own judges (the task's ``MethodDocstrings``; one ``Docstring`` per def for the
two instructions of the recordings' own, every function of colorsys.py and three named methods of queue.py).
On the H200 (run 9) graphlib-class-docstrings was refused in wordings 0 and 1, where one region per bare
method came back with the lines shown before it.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.bench.edits.checks import Docstring
from coder.bench.edits.run import proposed
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.intent.read import read_instruction
from coder.edit.plan import docstrings_asked
from coder.edit.proposal import EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import PlanRequest, plan_for, run_plan
from coder.testing.replay import HttpRecording, ReplayServer

DATA = Path(__file__).parents[1] / "data" / "docstrings"
GRAPHLIB_KEYS = ["__init__", "_get_nodeinfo", "__bool__", "_find_cycle"]
NETRC_KEYS = ["__init__", "_read_char", "get_token", "push_token"]
COLORSYS_KEYS = ["rgb_to_yiq", "yiq_to_rgb", "rgb_to_hls", "hls_to_rgb", "_v", "rgb_to_hsv", "hsv_to_rgb"]
CASES = {  # recording -> the keys asked ("_own": an instruction of the recording's own on the task's file)
    "graphlib-class-docstrings_w0": GRAPHLIB_KEYS,
    "graphlib-class-docstrings_w1": GRAPHLIB_KEYS,
    "graphlib-class-docstrings_w2": GRAPHLIB_KEYS,
    "netrc-class-docstrings_w0": NETRC_KEYS,
    "netrc-class-docstrings_w1": NETRC_KEYS,
    "netrc-class-docstrings_w2": NETRC_KEYS,
    "colorsys-docstring_own0": COLORSYS_KEYS,  # "Add a docstring to every function of this file that has none"
}


def _task(name: str) -> Task:
    return next(t for t in (*TASKS, *HELDOUT) if t.name == name)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_docstrings_are_asked_once_and_written_under_the_headers(tmp_path: Path, case: str) -> None:
    name, own, wording = case.rpartition("_own")[0] or case.rpartition("_w")[0], "_own" in case, case[-1]
    task = _task(name)
    recording = HttpRecording.load(DATA / f"{case}.json")
    instruction = str(recording.meta["instruction"])
    assert own or instruction == task.wordings[int(wording)]  # the recording answers this very wording
    originals = task.originals()
    root = tmp_path / "r"
    make_repo(root, originals)
    with ReplayServer(recording) as server:
        engine = EditEngine(BackendHandle(recording.server_info(server.url)), root)
        prepared = plan_for(engine, root / task.file, instruction)
        (body,) = server.chat_requests
    assert isinstance(prepared, PlanRequest) and prepared.plan.kind == "docstrings"
    assert prepared.requests == {}  # no region request: every docstring is written mechanically
    assert prepared.plan.reason.startswith(f"asked: docstrings of {len(CASES[case])} " + ("def(s)" if own else
                                                                                          "method(s) of "))
    assert isinstance(body, dict) and body["temperature"] == 0.0
    (asked,) = recording.chats  # the question sent today is the one the model answered
    assert isinstance(asked.body, dict) and body["messages"] == asked.body["messages"]
    schema = body["response_format"]["json_schema"]["schema"]  # type: ignore[call-overload,index]
    assert schema["required"] == CASES[case] and schema["additionalProperties"] is False
    proposal = run_plan(engine, prepared, lambda request: pytest.fail("no region may be asked"))  # type: ignore[arg-type,return-value]
    assert proposal.ok, proposal.refusal
    new = {**originals, **proposed(proposal, root)}
    # the bench's own judges: the task's (every method of the class), or one Docstring judge per def asked
    documented = [str(step.symbol) for step in prepared.plan.steps]
    assert [name.rpartition(".")[2] for name in documented] == CASES[case]
    verdicts = ([Docstring(name)(originals[task.file], new[task.file]) for name in documented] if own
                else [task.judge(originals, new)])
    assert all(ok for ok, _ in verdicts), verdicts
    # every original line is there, in order: only docstring lines were added
    old_lines, new_lines = originals[task.file].splitlines(), new[task.file].splitlines()
    added = iter(new_lines)
    assert all(any(line == got for got in added) for line in old_lines)
    assert len(new_lines) - len(old_lines) >= len(CASES[case])


def _question(text: str, instruction: str, rel: str = "m.py") -> docstrings_asked.Question | None:
    return docstrings_asked.question(text, read_instruction(instruction, {rel: text}, home=rel))


CLASS = ("class C:\n    def __init__(self, a):\n        self.a = a\n\n    def get(self):\n        \"\"\"Say a.\"\"\"\n"
         "        return self.a\n\n    def put(self, a):\n        # the new value\n        self.a = a\n")


def test_a_cut_empty_repeating_or_uniform_answer_is_not_written() -> None:
    q = _question(CLASS, "add a docstring to every method of C that has none")
    assert q is not None and [key for _, key, _ in q.defs] == ["__init__", "put"]  # get has one
    good = {"__init__": "keep a", "put": "replace a"}
    assert docstrings_asked.parse(json.dumps(good), q) == {"C.__init__": "Keep a.", "C.put": "Replace a."}
    for answer, why in (
            ({"__init__": "x" * docstrings_asked.TEXT_CHARS, "put": "Set a."}, "for __init__ was cut at 200"),
            ({"__init__": "  ", "put": "Set a."}, "for __init__ is not words"),
            ({"__init__": "Set a.", "put": ""}, "for put is not words"),
            ({"__init__": "__init__", "put": "Set a."}, "for __init__ repeats the code"),
            ({"__init__": "Set a.", "put": "self.a = a"}, "for put repeats the code"),
            ({"__init__": "Set a.", "put": "def put(self, a):"}, "for put repeats the code"),
            ({"__init__": "Set a.", "put": "Set a."}, "the same docstring for every def"),
            ({"__init__": "Set a."}, "no docstring for put")):
        got = docstrings_asked.parse(json.dumps(answer), q)
        assert isinstance(got, str) and why in got, (answer, got)
    assert isinstance(docstrings_asked.parse("__init__: keep a", q), str)


def test_the_words_are_written_as_a_pep257_docstring_that_reads_back_as_said() -> None:
    q = _question(CLASS, "add a docstring to every method of C that has none")
    assert q is not None
    said = {"C.__init__": 'Keep "a" as C:\\ sees it, and say "so"', "C.put": "Replace a " + "with b " * 20 + "."}
    docs = docstrings_asked.write(CLASS, q, said)
    assert not isinstance(docs, str)
    assert docs[0] == (3, '        """Keep "a" as C:\\\\ sees it, and say "so\\""""\n')
    lines = CLASS.splitlines(keepends=True)
    for row, doc in sorted(docs, reverse=True):
        lines[row - 1:row - 1] = [doc]
    new = "".join(lines)
    tree = ast.parse(new)
    methods = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert ast.get_docstring(methods["__init__"]) == said["C.__init__"]
    assert " ".join(str(ast.get_docstring(methods["put"])).split()) == " ".join(said["C.put"].split())
    assert max(len(line) for line in new.splitlines()) <= docstrings_asked.WIDTH
    assert "        # the new value\n" in new  # put's comment stays under its docstring


def test_one_named_def_or_a_def_on_its_header_line_stays_a_region_edit() -> None:
    # run 9: every single-def docstring pair was right as a region; a class's own docstring is one region too
    for task in (*TASKS, *HELDOUT):
        if task.kind == "docstring":
            text = task.originals()[task.file]
            assert all(_question(text, w, task.file) is None for w in task.wordings), task.name
    assert _question("class C:\n    def f(self): return 1\n\n    def g(self):\n        return 2\n",
                     "add docstrings to the methods of C") is None
    assert _question("class C:\n    def f(self): \\\n        return 1\n\n    def g(self):\n        return 2\n",
                     "add docstrings to the methods of C") is None
    prop = ("class C:\n    @property\n    def a(self):\n        return 1\n\n    @a.setter\n    def a(self, v):\n"
            "        pass\n")
    assert _question(prop, "add docstrings to the methods of C") is None  # which a is meant: the region says
    text = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    q = _question(text, "add docstrings to f and g")
    assert q is not None and [key for _, key, _ in q.defs] == ["f", "g"] and q.owner is None


def test_no_server_no_question_the_region_plan_as_before(tmp_path: Path) -> None:
    task = _task("graphlib-class-docstrings")
    make_repo(tmp_path / "r", task.originals())
    engine = EditEngine(None, tmp_path / "r")
    got = plan_for(engine, tmp_path / "r" / task.file, task.wordings[0])
    assert isinstance(got, PlanRequest) and got.plan.kind == "docstrings" and len(got.requests) == 4
    task = _task("netrc-class-docstrings")
    make_repo(tmp_path / "n", task.originals())
    got = plan_for(EditEngine(None, tmp_path / "n"), tmp_path / "n" / task.file, task.wordings[0])
    assert isinstance(got, EditRequest) and got.mode == "region"


def test_every_function_of_the_file_is_asked_only_when_no_def_is_named() -> None:
    task = _task("colorsys-docstring")
    text = task.originals()[task.file]
    for wording in ("Add a docstring to every function of this file that has none",
                    "add docstrings to all functions in colorsys.py", "Add docstrings to the undocumented functions",
                    "document each function with a docstring"):
        q = _question(text, wording, task.file)
        assert q is not None and [key for _, key, _ in q.defs] == COLORSYS_KEYS and q.owner is None, wording
    for wording in ("Add a module docstring", "add a docstring to colorsys.py", "Add type hints to every function",
                    "add a comment to every function"):
        assert _question(text, wording, task.file) is None, wording
    # over MAX_DEFS bare defs: one question would be long, and the answer too; the edit goes on as before
    many = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(docstrings_asked.MAX_DEFS + 1))
    assert _question(many, "add a docstring to every function") is None
    assert _question(many.replace("def f0():\n", "def f0():\n    \"\"\"Zero.\"\"\"\n"),
                     "add a docstring to every function") is not None  # those with one are not asked


def test_a_server_that_does_not_answer_leaves_the_region_plan_with_the_reason_in_its_notes(tmp_path: Path) -> None:
    task = _task("graphlib-class-docstrings")
    make_repo(tmp_path / "r", task.originals())
    gone = BackendHandle(ServerInfo(url="http://127.0.0.1:9", model="m", served_model="q"))  # nothing listens there
    got = plan_for(EditEngine(gone, tmp_path / "r"), tmp_path / "r" / task.file, task.wordings[0])
    assert isinstance(got, PlanRequest) and got.plan.kind == "docstrings" and len(got.requests) == 4
    (note,) = got.plan.notes
    assert note.startswith("the docstrings not written from the model's short answer: the model could not be asked")


def test_the_prompts_example_copied_is_not_written(tmp_path: Path) -> None:
    """The CPU 1.5B answered Queue._qsize with the prompt's example word for word: true there, and a docstring
    that would be written on any def it is copied to; coder goes on as without an answer (the region plan)."""
    task = _task("queue-method")
    recording = HttpRecording.load(DATA / "queue-docstring_own0.json")
    root = tmp_path / "r"
    make_repo(root, task.originals())
    with ReplayServer(recording) as server:
        engine = EditEngine(BackendHandle(recording.server_info(server.url)), root)
        prepared = plan_for(engine, root / task.file, str(recording.meta["instruction"]))
        assert len(server.chat_requests) == 1
    assert not (isinstance(prepared, PlanRequest) and prepared.plan.kind == "docstrings"
                and prepared.requests == {})
    said = " ".join(getattr(getattr(prepared, "plan", None), "notes", ()) or ()) + " " + str(
        getattr(getattr(prepared, "plan", None), "reason", "")) + " " + str(getattr(prepared, "mode_reason", ""))
    assert "is the prompt's example: 'Return the number of items in the queue.'" in said, said
