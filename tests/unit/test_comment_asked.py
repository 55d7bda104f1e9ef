"""Comments placed where the instruction puts them: the line read, the place held, the words asked.

The recordings in ``tests/data/comments/`` are the HTTP exchanges of one question each, sent by the real
engine through ``plan_for`` to Qwen2.5-Coder-1.5B Q4_K_M on llama-server (AMD EPYC, 2 cores) and kept by
:class:`coder.testing.record.RecordingProxy` (``scripts/dev/record_asked.py`` records them again); the replay
test double answers them here. Everything on
coder's side is real. On the H200, run 8 applied these wordings' comments under the line they were asked
above, inside its block (or at the wrong place of the body), or refused them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.backends.runtime.handle import BackendHandle
from coder.bench.edits.run import proposed
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.placement import misplaced
from coder.edit.intent.read import read_instruction
from coder.edit.plan import comment_asked
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import PlanRequest, plan_for, run_plan
from coder.testing.replay import HttpRecording, ReplayServer

DATA = Path(__file__).parents[1] / "data" / "comments"
CASES = {  # recording -> the comment lines written, as they land in the file
    "bisect-comment_w0": ["        # This while loop is used to find the midpoint of the slice of the list to be "
                          "searched."],
    "quopri-comment_w0": ["    # The pure-python loop further down only runs when binascii has no a2b_qp"],
    "string-comment_w0": ["    # split(None) also drops leading and trailing whitespace"],
    "netrc-comment_w1": ["            # quoted tokens may contain whitespace"],
    "tabnanny-comment_w0": ["            # a new indent must be deeper than the previous one at every tab size"],
    "colorsys-comment_w0": ["    # The hue is wrapped into [0, 1)."],
}


def _task(name: str) -> Task:
    return next(t for t in (*TASKS, *HELDOUT) if t.name == name)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_words_are_asked_and_written_right_above_the_line(tmp_path: Path, case: str) -> None:
    name, wording = case.rsplit("_w", 1)
    task = _task(name)
    recording = HttpRecording.load(DATA / f"{case}.json")
    assert recording.meta["instruction"] == task.wordings[int(wording)]
    originals = task.originals()
    make_repo(tmp_path / "r", originals)
    with ReplayServer(recording) as server:
        engine = EditEngine(BackendHandle(recording.server_info(server.url)), tmp_path / "r")
        prepared = plan_for(engine, tmp_path / "r" / task.file, task.wordings[int(wording)])
        (body,) = server.chat_requests
    assert isinstance(prepared, PlanRequest) and prepared.plan.kind == "comment" and prepared.requests == {}
    assert isinstance(body, dict) and body["temperature"] == 0.0
    proposal = run_plan(engine, prepared, lambda request: pytest.fail("no region may be asked"))  # type: ignore[arg-type,return-value]
    assert proposal.ok, proposal.refusal
    new = {**originals, **proposed(proposal, tmp_path / "r")}
    added = [line for line in new[task.file].splitlines() if line not in originals[task.file].splitlines()]
    assert set(added) == set(CASES[case])  # the comment, once per line it is asked above, and nothing else
    assert task.judge(originals, new) == (True, task.judge(originals, new)[1])


def test_the_reading_resolves_the_line_in_every_wording_that_names_one() -> None:
    seen = {}
    for task in (*TASKS, *HELDOUT):
        if task.kind != "comment":
            continue
        text = task.originals()[task.file]
        for w, wording in enumerate(task.wordings):
            anchor = read_instruction(wording, {task.file: text}, home=task.file).anchor
            seen[(task.name, w)] = (anchor.line, anchor.each) if anchor is not None else None
    assert seen[("bisect-comment", 2)] == ("while lo < hi:", True)  # "the while loops ... above each one"
    assert seen[("colorsys-comment", 2)] == ("hue = hue % 1.0", False)  # "the first line in the body of _v"
    assert seen[("quopri-comment", 1)] == ("if a2b_qp is not None:", False)  # "at the start of decode's body"
    assert seen[("netrc-comment", 2)] == ("if ch == '\"':", False)  # "(if ch == '\"':) with a comment above it"
    assert seen[("graphlib-comment", 2)] == ("for node in n2i:", False)  # "the for node in n2i loop", no colon
    assert seen[("string-comment", 1)] == ("return (sep or ' ').join(map(str.capitalize, s.split(sep)))", False)
    assert seen[("shlex-comment", 2)] == ("if _find_unsafe(s) is None:", False)  # "the _find_unsafe check"
    # named by no line: "the INDENT branch's check" (two lines read INDENT), why the type name is split
    assert seen[("tabnanny-comment", 1)] is None and seen[("reprlib-comment", 1)] is None


def test_a_comment_under_the_line_it_was_asked_above_is_refused() -> None:
    # shlex-comment w0 on the H200 (run 8): the reply put it inside the if's block, and it was applied
    task = _task("shlex-comment")
    old = task.originals()[task.file]
    new = old.replace("    if _find_unsafe(s) is None:\n        return s\n", "    if _find_unsafe(s) is None:\n"
                      "        # safe strings are returned unquoted\n        return s\n")
    spec = read_instruction(task.wordings[0], {task.file: old}, home=task.file)
    assert misplaced(old, new, spec) == (
        "a comment was asked right above the line `if _find_unsafe(s) is None:` in quote, but it is at line 330 "
        "('# safe strings are returned unquoted')")
    right = old.replace("    if _find_unsafe(s) is None:\n", "    # safe strings come back as they are\n"
                                                              "    if _find_unsafe(s) is None:\n")
    assert misplaced(old, right, spec) is None
    assert task.judge({task.file: old}, {task.file: right})[0]
    assert task.judge({task.file: old}, {task.file: new})[0]  # the judge, for every wording, takes "near" the line


def test_each_loop_must_get_its_comment() -> None:
    task = _task("bisect-comment")
    old = task.originals()[task.file]
    spec = read_instruction(task.wordings[0], {task.file: old}, home=task.file)
    lines = old.splitlines(keepends=True)
    assert lines[85] == "        while lo < hi:\n"  # bisect_left's first (bisect_right's read the same)
    one = "".join([*lines[:85], "        # search\n", *lines[85:]])
    assert misplaced(old, one, spec) == ("a comment was asked right above each line `while lo < hi:` in bisect_left "
                                         "(2 of them), but 1 got one")


def test_words_that_repeat_the_code_or_were_cut_short_are_not_written() -> None:
    task = _task("quopri-comment")
    old = task.originals()[task.file]
    q = comment_asked.anchored(old, read_instruction(task.wordings[0], {task.file: old}, home=task.file))
    assert q is not None and q.rows == (122,)
    key = "comment above line 122"
    # the CPU 1.5B's answer when the key was "line 122": the line itself
    assert comment_asked.parse(json.dumps({key: "if a2b_qp is not None:"}), q) == (
        "the model's comment repeats the code: 'if a2b_qp is not None:'")
    cut = "x" * comment_asked.TEXT_CHARS
    said = str(comment_asked.parse(json.dumps({key: cut}), q))
    assert said.startswith(f"the model's comment was cut at {comment_asked.TEXT_CHARS}")
    one = "decode falls back to the pure-python loop, e.g. when binascii lacks a2b_qp, and s.split is not an end "
    said = str(comment_asked.parse(json.dumps({key: (one * 3)[:comment_asked.TEXT_CHARS]}), q))
    assert said.startswith(f"the model's comment was cut at {comment_asked.TEXT_CHARS}")  # no sentence is whole
    assert comment_asked.parse(json.dumps({key: "binascii does it when it can"}), q) == [
        (122, "binascii does it when it can")]


def test_of_words_cut_after_a_whole_sentence_the_whole_sentences_are_written() -> None:
    # sched-comment w1 and shlex-comment w2 on the H200 (run 10): cut at maxLength ("... until the queue is
    # empty. It is a loop that,"); the region the edit went to instead ran to the token limit or misplaced it
    task = _task("sched-comment")
    old = task.originals()[task.file]
    q = comment_asked.anchored(old, read_instruction(task.wordings[1], {task.file: old}, home=task.file))
    assert q is not None and q.code == "while True:"
    (row,) = q.rows
    first = "This loop runs the events due now, one at a time, until the queue is empty."
    words = (first + " It is a loop that, on each pass, takes the lock, looks at the first event and, when it is "
             "due, pops it and runs its action; when it is not due yet it")[:comment_asked.TEXT_CHARS]
    assert len(words) == comment_asked.TEXT_CHARS
    assert comment_asked.parse(json.dumps({f"comment above line {row}": words}), q) == [(row, first)]
