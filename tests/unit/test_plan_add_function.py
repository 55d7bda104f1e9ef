"""A new module-level function in a long file is one small region: the def it goes beside, kept as it is.

Pinned on the suite's textwrap.py (491 lines, a ``__main__`` block at its end) in wordings of our own; the
model is the scripted test double (:class:`coder.testing.replies.ScriptedModel`), the plan, its checks and the
splice are real.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits.run import proposed
from coder.bench.edits.taskdef import source
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import PlanRequest, prepare, run_plan
from coder.testing.replies import ScriptedModel

FILE = "textwrap.py"
NEW = '''

def longest_line(text):
    """The length of the longest line of text."""
    return max((len(line) for line in text.splitlines()), default=0)
'''


def _planned(tmp_path: Path, said: str) -> tuple[EditEngine, PlanRequest]:
    make_repo(tmp_path / "r", {FILE: source(FILE)})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    prepared = prepare(engine, tmp_path / "r" / FILE, said)
    assert isinstance(prepared, PlanRequest)
    return engine, prepared


def _fenced(body: str) -> str:
    return f"```python\n{body.rstrip()}\n```\n"


def _region(text: str, first: str, last_line_start: str) -> str:
    start = text.index(first)
    end = text.index("\n", text.index(last_line_start, start)) + 1
    return text[start:end]


@pytest.mark.parametrize(("said", "beside"), [
    ("add a function longest_line(text) that returns the length of the longest line, e.g. longest_line('ab\\ncde') "
     "== 3", "indent"),
    ("new textwrap func longest_line(text) -> length of the longest line (longest_line('ab\\ncde') == 3)", "indent"),
    ("Write a helper longest_line(text) right after dedent: the length of the longest line of text, e.g. "
     "longest_line('ab\\ncde') == 3", "dedent"),
])
def test_the_new_function_is_asked_beside_one_def_and_written_after_it(tmp_path: Path, said: str,
                                                                        beside: str) -> None:
    engine, prepared = _planned(tmp_path, said)
    plan = prepared.plan
    assert (plan.kind, len(plan.steps), plan.steps[0].symbol) == ("add_function", 1, beside)
    text = source(FILE)
    shown = (_region(text, "def indent(", "    return ''.join(prefixed_lines())") if beside == "indent"
             else _region(text, "def dedent(", "    return text"))
    model = ScriptedModel(engine, [_fenced(shown.rstrip("\n") + "\n" + NEW)])
    proposal = run_plan(engine, prepared, model)
    assert proposal.ok, proposal.refusal
    new = proposed(proposal, tmp_path / "r")[FILE]
    # the def shown as it was, two blank lines, the new function; the rest of the file as it was
    assert new == text.replace(shown, shown + "\n\n" + NEW.strip("\n") + "\n", 1)
    assert len(model.asked) == 1 and "keep it exactly as it is" in model.asked[0].prompt.messages[-1]["content"]


def test_what_a_reply_changes_in_the_def_shown_is_dropped(tmp_path: Path) -> None:
    engine, prepared = _planned(tmp_path, "add a function longest_line(text) that returns the longest line's length, "
                                       "e.g. longest_line('ab\\ncde') == 3")
    text = source(FILE)
    shown = _region(text, "def indent(", "    return ''.join(prefixed_lines())")
    changed = shown.replace("prefix + line", "line + prefix")
    proposal = run_plan(engine, prepared, ScriptedModel(engine, [_fenced(changed + NEW)]))
    assert proposal.ok, proposal.refusal
    new = proposed(proposal, tmp_path / "r")[FILE]
    assert "prefix + line" in new and "line + prefix" not in new and "def longest_line(text):" in new


def test_a_reply_without_the_new_function_is_asked_again(tmp_path: Path) -> None:
    engine, prepared = _planned(tmp_path, "add a function longest_line(text) that returns the longest line's length, "
                                       "e.g. longest_line('ab\\ncde') == 3")
    shown = _region(source(FILE), "def indent(", "    return ''.join(prefixed_lines())")
    model = ScriptedModel(engine, [_fenced(shown), _fenced(shown + NEW)])
    proposal = run_plan(engine, prepared, model)
    assert proposal.ok and len(model.asked) == 2
    assert "no module-level function longest_line" in model.asked[1].instruction


def test_a_new_function_with_no_example_is_not_planned_beside_a_def(tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {FILE: source(FILE)})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    prepared = prepare(engine, tmp_path / "r" / FILE, "add a function longest_line(text) returning the longest line")
    assert not (isinstance(prepared, PlanRequest) and prepared.plan.kind == "add_function")


def test_a_short_file_is_still_one_whole_file_request(tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {"colorsys.py": source("colorsys.py")})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    prepared = prepare(engine, tmp_path / "r" / "colorsys.py", "add a function clamp(x) that limits x to 0..1")
    assert not isinstance(prepared, PlanRequest)


def test_the_new_functions_own_example_is_run_before_it_is_applied(tmp_path: Path) -> None:
    # run 20 (sixth fresh set, CPU): "e.g. nth_weekday(2024, 11, THURSDAY, 4) == 28" was never run, and a
    # reply giving 0 was applied; an argument may be a constant of the module (the call runs in its namespace)
    said = "add a function longest_line(text): the length of the longest line, e.g. longest_line('ab\\ncde') == 3"
    make_repo(tmp_path / "r", {FILE: source(FILE)})
    engine = EditEngine(None, tmp_path / "r", ctx=32768, run_examples=True)
    prepared = prepare(engine, tmp_path / "r" / FILE, said)
    assert isinstance(prepared, PlanRequest) and prepared.spec is not None
    assert [(e.call, e.expected) for e in prepared.spec.examples] == [("longest_line('ab\\ncde')", "3")]
    shown = _region(source(FILE), "def indent(", "    return ''.join(prefixed_lines())")
    wrong = NEW.replace("max((len(line) for line in text.splitlines()), default=0)", "0")
    refused = run_plan(engine, prepared, ScriptedModel(engine, [_fenced(shown + wrong)] * 4))
    assert not refused.ok and "longest_line" in (refused.refusal or "")
    right = run_plan(engine, prepare(engine, tmp_path / "r" / FILE, said),  # type: ignore[arg-type]
                     ScriptedModel(engine, [_fenced(shown + NEW)]))
    assert right.ok, right.refusal
