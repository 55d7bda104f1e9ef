"""A region edit whose reply changed nothing, or that the scope check flags, is asked once more (EditEngine.run).

The first replies are real: Qwen2.5-Coder-1.5B's on the H200 (``coder bench --edits``, auto mode), kept
verbatim in ``tests/data/region_retry/first_replies.json``; each got no second try then. The second
replies are written here. Only the server is replaced: ``stream_edit`` hands each request its scripted
reply, and everything after it (validation, scope check, the retry decision, the bench's settle) is real.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import make_repo
from spec_helpers import region_reply

from coder.bench.edits.run import Outcome, settle
from coder.bench.edits.tasks import TASKS, source
from coder.edit.checks.result import KEEP_REST, retry_note
from coder.edit.intent.spec import ChangeSpec
from coder.edit.plan import derive as planning
from coder.edit.proposal import EditProposal, EditRequest
from coder.edit.run import engine as engine_module
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_step import _retry_note
from coder.testing.replies import ScriptedStream, streamed

DATA = json.loads((Path(__file__).parents[1] / "data" / "region_retry" / "first_replies.json").read_text())
FIRST = {(row["task"], row["wording"]): row for row in DATA["rows"]}
UNCHANGED = "(A first reply was refused: the model made no changes.) "


def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: tuple[str, int],
           replies: list[Any]) -> tuple[EditEngine, EditRequest, ScriptedStream]:
    row = FIRST[key]
    make_repo(tmp_path / "r", {row["file"]: source(row["file"])})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / row["file"], row["instruction"], mode="region", symbol=row["symbol"])
    model = ScriptedStream(replies)
    monkeypatch.setattr(engine_module, "stream_edit", model)
    return engine, request, model


def _settled(engine: EditEngine, proposal: EditProposal, key: tuple[str, int]) -> Outcome:
    """The bench's row for ``proposal``, settled as ``coder bench --edits`` does (scope guard on)."""
    task = next(t for t in TASKS if t.name == key[0])
    out = Outcome(task.name, task.file, task.kind, "region", "skipped", "", wording=key[1],
                  instruction=task.wordings[key[1]])
    settle(engine, proposal, task, out, guard=True)
    return out


def _mended(old: str, new: str) -> Any:
    return lambda request: region_reply(request, request.prompt.target.replace(old, new, 1))


def test_an_unchanged_reply_is_asked_once_more_saying_so_and_the_retry_is_applied(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = ("colorsys-constant", 2)  # "Fix rgb_to_yiq: y weights blue with 0.11 where it should use 0.114"
    engine, request, model = _setup(tmp_path, monkeypatch, key, [
        FIRST[key]["reply"], _mended("0.59*g + 0.11*b", "0.59*g + 0.114*b")])
    proposal = streamed(engine, request)
    first, second = model.asked
    note = UNCHANGED + "The instruction asks for a change of the code: make it."
    assert second.retry_note == note and note in second.messages[-1]["content"]
    assert not first.retry_note and note not in first.messages[-1]["content"]
    assert second.instruction == request.instruction and second.spec == request.spec  # the checks keep the user's
    assert proposal.ok and proposal.changed and proposal.request is second
    assert proposal.retried == "the model made no changes" and proposal.first_reply == FIRST[key]["reply"]
    assert proposal.to_json()["retried"] == "the model made no changes"
    out = _settled(engine, proposal, key)
    assert (out.outcome, out.retried) == ("correct", "the model made no changes"), out.why
    assert "0.59*g + 0.114*b" in (tmp_path / "r" / "colorsys.py").read_text()


def test_unchanged_twice_is_refused_after_two_requests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = ("shlex-comment", 2)  # "Comment the _find_unsafe check in quote: ..." came back verbatim
    engine, request, model = _setup(tmp_path, monkeypatch, key, [FIRST[key]["reply"]] * 3)
    proposal = streamed(engine, request)
    assert len(model.asked) == 2  # never a second retry
    assert model.asked[1].retry_note == UNCHANGED + "The instruction asks for comments: add them."
    assert proposal.ok and not proposal.changed and proposal.retried == "the model made no changes"
    assert engine.retry_request(proposal) is None
    out = _settled(engine, proposal, key)
    assert (out.outcome, out.refusal_code, out.retried) == ("refused", "unchanged", "the model made no changes")


KEYWORD_ONLY = ("def insort_right(a, x, lo=0, hi=None, *, key=None):",
                "def insort_right(a: list, x: object, lo: int = 0, hi: int | None = None, *, key: object = None"
                ") -> None:")
COMMENTED = ("def _v(m1, m2, hue):\n", "def _v(m1, m2, hue):\n    # the hue is wrapped into [0, 1)\n")


@pytest.mark.parametrize(("key", "quoted", "mend"), [
    # the keyword-only marker dropped from an annotated signature
    (("bisect-hints", 2), f"it changed `{KEYWORD_ONLY[0]}`", KEYWORD_ONLY),
])
def test_a_reply_the_scope_check_flags_is_asked_once_more_naming_its_lines(
        key: tuple[str, int], quoted: str, mend: tuple[str, str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    engine, request, model = _setup(tmp_path, monkeypatch, key, [FIRST[key]["reply"], _mended(*mend)])
    first = engine.evaluate(request, FIRST[key]["reply"], finish_reason="stop")
    assert first.ok and first.scope is not None and not first.scope.ok  # as on the H200
    assert f"scope guard: {first.scope.refusal()}" == FIRST[key]["why"]
    proposal = streamed(engine, request)
    assert len(model.asked) == 2
    note = model.asked[1].retry_note
    assert note == f"{KEEP_REST} (A first reply was refused: {first.scope.refusal()}; {quoted}.)"
    assert note in model.asked[1].messages[-1]["content"]
    assert proposal.ok and proposal.scope is not None and proposal.scope.ok, proposal.scope
    assert proposal.retried == f"{first.scope.refusal()}; {quoted}"
    out = _settled(engine, proposal, key)
    assert (out.outcome, out.flagged, out.retried) == ("correct", False, proposal.retried), out.why


@pytest.mark.parametrize(("key", "comment"), [
    (("colorsys-comment", 2), "    # Hue is wrapped into [0, 1)\n"),
    (("colorsys-comment", 1), "    # Wraps the hue into the range [0, 1).\n"),
])
def test_a_docstring_where_a_comment_was_asked_is_applied_as_the_comment_with_no_second_request(
        key: tuple[str, int], comment: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the first replies on the H200 were flagged and asked again (coder.edit.checks.as_comment)
    engine, request, model = _setup(tmp_path, monkeypatch, key, [FIRST[key]["reply"], _mended(*COMMENTED)])
    proposal = streamed(engine, request)
    assert len(model.asked) == 1
    assert proposal.ok and proposal.scope is not None and proposal.scope.ok, proposal.scope
    assert comment in proposal.new.splitlines(keepends=True) and '"""' not in proposal.diff
    out = _settled(engine, proposal, key)
    assert (out.outcome, out.flagged, out.retried) == ("correct", False, None), out.why


def test_flagged_twice_is_refused_by_the_scope_guard_with_why_it_was_asked_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = ("bisect-hints", 2)
    engine, request, model = _setup(tmp_path, monkeypatch, key, [FIRST[key]["reply"]] * 3)
    proposal = streamed(engine, request)
    assert len(model.asked) == 2 and proposal.scope is not None and not proposal.scope.ok
    assert proposal.retried is not None and proposal.retried.startswith(proposal.scope.refusal())
    out = _settled(engine, proposal, key)
    assert (out.outcome, out.refusal_code, out.flagged) == ("refused", "unexplained", True)
    assert out.retried == proposal.retried


def test_a_reply_accepted_the_first_time_is_one_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = ("colorsys-constant", 2)
    engine, request, model = _setup(tmp_path, monkeypatch, key, [_mended("0.11*b", "0.114*b")])
    proposal = streamed(engine, request)
    assert len(model.asked) == 1 and proposal.ok and proposal.changed and proposal.retried is None


def test_plans_whole_files_and_unreadable_requests_are_not_asked_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = ("colorsys-constant", 2)
    engine, request, _ = _setup(tmp_path, monkeypatch, key, [])
    unchanged = FIRST[key]["reply"]
    assert engine.retry_request(engine.evaluate(request, unchanged, finish_reason="stop")) is not None
    # a plan step: its own retry (coder.edit.run.plan_step) judges it; the engine never asks it again
    in_plan = replace(request, in_plan=True)
    assert engine.retry_request(engine.evaluate(in_plan, unchanged, finish_reason="stop")) is None
    flagged_key = ("bisect-hints", 2)
    _, hints, _ = _setup(tmp_path / "b", monkeypatch, flagged_key, [])
    hints_in_plan = replace(hints, in_plan=True)
    step = engine.evaluate(hints_in_plan, FIRST[flagged_key]["reply"], finish_reason="stop")
    assert step.scope is not None and not step.scope.ok and engine.retry_request(step) is None
    # a reading that asks for nothing it can name: an unchanged reply may be the answer
    unknown = engine.prepare(request.snapshot.path, request.instruction, mode="region", symbol="rgb_to_yiq",
                             spec=ChangeSpec(request.instruction, "unknown"))
    assert engine.retry_request(engine.evaluate(unknown, unchanged, finish_reason="stop")) is None
    # a whole-file rewrite that changed nothing
    full = engine.prepare(request.snapshot.path, request.instruction, mode="full")
    whole = engine.evaluate(full, region_reply(full, full.prompt.target), finish_reason="stop")
    assert whole.ok and not whole.changed and engine.retry_request(whole) is None


def test_a_plan_steps_scope_retry_says_what_a_region_edits_says() -> None:
    flag = "colorsys.py:110 (added): not inside function _v"
    plan = planning.Plan("windows", "Comment _v", (), "")
    note = "Change nothing the instruction does not ask for. (A first reply was refused: " + flag + ".)"
    assert _retry_note(plan, flag) == retry_note("unexplained", flag) == note  # one phrasing, as before
    assert _retry_note(plan, flag, hint="Put it here.") == f"{KEEP_REST} Put it here."
