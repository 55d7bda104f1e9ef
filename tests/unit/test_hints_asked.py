"""Type hints as a short structured question, replayed from the CPU 1.5B's real answers.

Each recording in ``tests/data/hints/`` is the HTTP exchange of one question, sent by the real engine
through ``plan_for`` to Qwen2.5-Coder-1.5B Q4_K_M on llama-server (AMD EPYC, 2 cores), and kept through
:class:`coder.testing.record.RecordingProxy` (``scripts/dev/record_asked.py`` records them again). Here the replay
test double answers it; the question, its
schema, the parsing and the header writing are real, and each result is judged by the bench task's judge.
These four wordings were all refused on the H200 in run 8, where the model rewrote each function.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.backends.runtime.handle import BackendHandle
from coder.bench.edits.run import proposed
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.intent.read import read_instruction
from coder.edit.plan import hints_asked
from coder.edit.proposal import EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import PlanRequest, plan_for, run_plan
from coder.testing.replay import HttpRecording, ReplayServer

DATA = Path(__file__).parents[1] / "data" / "hints"
FILES = Path(__file__).parents[2] / "coder" / "bench" / "edits" / "files"
CASES = {  # recording -> (task, wording, the keys asked)
    "insort_right": ("bisect-hints", 2, ["a", "x", "lo", "hi", "key", "return"]),
    "put_nowait": ("queue-hints", 2, ["item", "return"]),
    "rgb_to_hsv": ("colorsys-hints", 2, ["r", "g", "b", "return"]),
    "netrc_class": ("netrc-class-hints", 2, ["__init__.msg", "__init__.filename", "__init__.lineno",
                                             "__str__.return"]),
}
HEADERS = {
    "insort_right": "def insort_right(a: list, x: object, lo: int = 0, hi: int | None = None, *, key: object = None)"
                    " -> None:",
    "put_nowait": "    def put_nowait(self, item: object) -> None:",
    "rgb_to_hsv": "def rgb_to_hsv(r: float, g: float, b: float) -> tuple[float, float, float]:",
    "netrc_class": "    def __init__(self, msg: str, filename: str | None = None, lineno: int | None = None) -> None:",
}


def _task(name: str) -> Task:
    return next(t for t in (*TASKS, *HELDOUT) if t.name == name)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_types_are_asked_once_and_written_into_the_original_headers(tmp_path: Path, case: str) -> None:
    name, wording, keys = CASES[case]
    task = _task(name)
    recording = HttpRecording.load(DATA / f"{case}.json")
    assert recording.meta["instruction"] == task.wordings[wording]  # the recording answers this very wording
    originals = task.originals()
    root = tmp_path / "r"
    make_repo(root, originals)
    with ReplayServer(recording) as server:
        engine = EditEngine(BackendHandle(recording.server_info(server.url)), root)
        prepared = plan_for(engine, root / task.file, task.wordings[wording])
        sent = server.chat_requests
    assert isinstance(prepared, PlanRequest) and prepared.plan.kind == "hints"
    assert prepared.requests == {}  # no region request: every step is written mechanically
    (body,) = sent
    assert isinstance(body, dict) and body["temperature"] == 0.0
    schema = body["response_format"]["json_schema"]["schema"]  # type: ignore[call-overload,index]
    assert schema["required"] == keys and schema["additionalProperties"] is False
    proposal = run_plan(engine, prepared, lambda request: pytest.fail("no region may be asked"))  # type: ignore[arg-type,return-value]
    assert proposal.ok, proposal.refusal
    new = {**originals, **proposed(proposal, root)}
    assert HEADERS[case] in new[task.file].splitlines()
    assert task.judge(originals, new)[0], task.judge(originals, new)[1]
    # nothing but the headers changed: the bodies are the original's byte for byte
    old_lines, new_lines = originals[task.file].splitlines(), new[task.file].splitlines()
    assert len(old_lines) == len(new_lines)
    changed = [i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)) if a != b]
    assert all(new_lines[i].lstrip().startswith("def ") for i in changed)


def _question(text: str, instruction: str, rel: str = "m.py") -> hints_asked.Question:
    q = hints_asked.question(text, read_instruction(instruction, {rel: text}, home=rel))
    assert q is not None
    return q


def test_a_type_the_file_does_not_bind_there_is_not_written() -> None:
    text = "def f(x):\n    return x\n\n\nclass Later:\n    pass\n"
    q = _question(text, "add type hints to f")
    for value, why in (("List[int]", "names List"), ("Later", "names Later"), ("int(3)", "not an annotation"),
                       ("[int]", "not an annotation"), ("'int'", "not an annotation"), ("in t", "not Python")):
        got = hints_asked.parse(json.dumps({"x": "int", "return": value}), q, text)
        assert isinstance(got, str) and why in got, (value, got)
    assert hints_asked.parse("{\"x\": \"int\"}", q, text) == "the model gave no type for return"
    assert isinstance(hints_asked.parse("x: int", q, text), str)
    # bound before the def, imported, or a tuple spelled as one: written
    text2 = "from typing import Any\nT = int\n\n\ndef f(x):\n    return x\n"
    q2 = _question(text2, "add type hints to f")
    assert hints_asked.parse(json.dumps({"x": "Any", "return": "(T, str)"}), q2, text2) == {
        "x": "Any", "return": "tuple[T, str]"}


def test_a_header_keeps_its_layout_and_a_default_in_parentheses_is_left_to_the_model() -> None:
    text = "def f(a,\n      b=1, *args, c=(2), **kw):\n    return a\n"
    q = _question(text, "add type hints to f")
    assert [s.key for s in q.slots] == ["a", "b", "args", "c", "kw", "return"]
    types = {"a": "int", "b": "int", "args": "str", "c": "int", "kw": "object", "return": "int"}
    assert hints_asked.write(text, q, types) == "the default of c in f could not be read"
    text = "def f(a,\n      b=1, *args, c=2, **kw):\n    return a\n"
    ((start, end, header),) = hints_asked.write(text, _question(text, "add type hints to f"), types)
    assert (start, end) == (1, 2)
    assert header == "def f(a: int,\n      b: int = 1, *args: str, c: int = 2, **kw: object) -> int:\n"
    ast.parse(header + "    return a\n")


def test_no_server_no_question_the_region_request_as_before(tmp_path: Path) -> None:
    task = _task("bisect-hints")
    make_repo(tmp_path / "r", task.originals())
    engine = EditEngine(None, tmp_path / "r")
    got = plan_for(engine, tmp_path / "r" / task.file, task.wordings[2])
    assert isinstance(got, EditRequest) and got.mode == "region"


def test_already_annotated_defs_are_not_asked() -> None:
    text = ("class C:\n    def __init__(self, a: int) -> None:\n        self.a = a\n\n"
            "    def g(self) -> int:\n        return 1\n")
    assert hints_asked.question(text, read_instruction("add type hints to every method of C", {"m.py": text},
                                                       home="m.py")) is None
