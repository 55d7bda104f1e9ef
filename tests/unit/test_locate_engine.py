"""A fix the named function did not hold is sought where the failing tests point, through ``EditEngine.run``.

bug-copy-dict w0 of the held-out set, on the bench's own test command: "deepcopy of a dict doesn't copy the
values" names ``deepcopy``; the bug is in ``_deepcopy_dict``. On the H200 (run 12) the reply, its retry and 16
samples left ``deepcopy`` unchanged, and the pair was refused. The moved request's reply is the CPU 1.5B's,
recorded by ``coder bench --edits --set heldout --tasks bug-copy-dict --wordings 0 --keep-replies``
(tests/data/edit/cpu_1204/copy_dict_w0_moved.json); the replies that leave the region as it was are mechanical.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits import upstream
from coder.bench.edits.taskdef import source
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.user_commands import commands
from coder.edit.proposal import EditRequest
from coder.edit.run import engine as engine_module
from coder.edit.run.engine import EditEngine
from coder.edit.run.prompt import predicted_reply
from coder.edit.run.sample import SAMPLES
from coder.session.streams import retry_notes
from coder.testing.replies import ScriptedStream, streamed

REC = json.loads((Path(__file__).parents[1] / "data" / "edit" / "cpu_1204" / "copy_dict_w0_moved.json").read_text())
TASK = next(t for t in HELDOUT if t.name == "bug-copy-dict")


def _as_it_was(request: EditRequest) -> str:
    return predicted_reply(request.prompt)


def _engine(tmp_path: Path) -> EditEngine:
    root = tmp_path / "r"
    make_repo(root, {TASK.file: source(TASK.file)})
    return EditEngine(None, root, ctx=32768, run_examples=True,
                      checks=commands(upstream.test_command(TASK.kind, TASK.file), None))  # as the bench runs it


def test_the_fix_is_found_in_the_function_the_failing_tests_name(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    engine = _engine(tmp_path)
    request = engine.prepare(engine.root / TASK.file, REC["instruction"])
    assert request.mode == "region" and request.region is not None and request.region.name == "deepcopy"
    monkeypatch.setattr(engine_module, "stream_edit", model := ScriptedStream(
        [_as_it_was, _as_it_was, *[_as_it_was] * SAMPLES, REC["reply"]]))
    proposal = streamed(engine, request)
    moved = model.asked[-1]
    assert len(model.asked) == 2 + SAMPLES + 1  # the reply, its retry, the samples, then _deepcopy_dict
    assert moved.region is not None and moved.region.name == "_deepcopy_dict" and moved.seed is None
    assert "so the bug is probably here, in _deepcopy_dict" in moved.retry_note
    assert proposal.ok and proposal.changed, proposal.refusal
    assert proposal.moved == REC["moved"]
    assert retry_notes(proposal)[-1] == f"{TASK.file}: {REC['moved']}."  # the TUI's note before the review
    assert proposal.diff == REC["diff"]
    assert [c.ok for c in proposal.checks] == [True]  # the upstream tests that failed now pass
    assert TASK.check(TASK.originals()[TASK.file], proposal.new)[0]  # and the task's judge calls it right


def test_where_the_moved_function_is_not_mended_either_the_refusal_stands(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    engine = _engine(tmp_path)
    request = engine.prepare(engine.root / TASK.file, REC["instruction"])
    monkeypatch.setattr(engine_module, "stream_edit", model := ScriptedStream([_as_it_was] * (2 * (1 + SAMPLES) + 1)))
    proposal = streamed(engine, request)
    assert len(model.asked) == 2 * (1 + SAMPLES) + 1  # moved once, greedy and sampled; never moved again
    assert [r.region.name for r in model.asked if r.region is not None].count("_deepcopy_dict") == 1 + SAMPLES
    assert proposal.ok and not proposal.changed and proposal.request.region is not None
    assert proposal.request.region.name == "deepcopy"  # the outcome is the named function's, as before
    assert proposal.moved == f"{REC['moved']}; not mended there either: the model made no changes"
    assert proposal.to_json()["moved"] == proposal.moved


def test_a_fix_with_nothing_failing_now_is_not_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "r"
    make_repo(root, {TASK.file: source(TASK.file)})
    engine = EditEngine(None, root, ctx=32768, run_examples=True)  # no test command: no oracle fails
    request = engine.prepare(engine.root / TASK.file, REC["instruction"])
    monkeypatch.setattr(engine_module, "stream_edit", model := ScriptedStream([_as_it_was, _as_it_was]))
    proposal = streamed(engine, request)
    assert len(model.asked) == 2 and proposal.moved is None
