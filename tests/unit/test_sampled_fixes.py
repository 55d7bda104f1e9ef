"""A fix the greedy retry did not mend is sampled while an oracle fails on the code as it is (coder.edit.run.sample).

The replies are Qwen2.5-Coder-1.5B's, verbatim (``tests/data/edit/sampled/``): the greedy ones from the H200
(run 7), where a request and its retry both came back unchanged, and the sampled ones from 2 CPU cores
(``scripts/dev/sample_ab.py``: the retry's prompt, temperature 0.7, seeds 1-4). bug-quopri-unhex of the held-out
set, wording 0 ("... unhex(b'ff') returns 85 instead of 255"): no sample passed; its wrong fix is that model's
for wording 1 (``h200_1203/wrong_fixes_with_examples.json``: it fails wording 0's example). bug-colorsys-hue,
wording 1: samples 1 and 2 passed the module's failing upstream tests and the task's judge. Only the server is
replaced: ``stream_edit`` hands each request its scripted reply; the retry, the oracles, the checks and the
bench's settle are real.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import make_repo
from spec_helpers import region_reply

from coder.bench.edits import upstream
from coder.bench.edits.layers import refusal_layer
from coder.bench.edits.run import Outcome, settle, tag_layer
from coder.bench.edits.taskdef import source
from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.user_commands import UserCommand, commands
from coder.edit.intent.spec import ChangeSpec
from coder.edit.proposal import EditProposal, EditRequest, Sampled
from coder.edit.run import engine as engine_module
from coder.edit.run import sample
from coder.edit.run.engine import EditEngine
from coder.edit.run.sample import SAMPLES, due
from coder.session.streams import retry_notes
from coder.telemetry.stats import RequestStats
from coder.testing.replies import ScriptedStream, streamed

DATA = Path(__file__).parents[1] / "data" / "edit"
RECORDED = json.loads((DATA / "sampled" / "unhex.json").read_text())
UNCHANGED = RECORDED["greedy_reply"]  # the H200's reply, to the request and to its retry alike
SAMPLED = [s["reply"] for s in RECORDED["samples"]]  # the CPU's, seeds 1-4: none passes
HUE = json.loads((DATA / "sampled" / "colorsys_hue.json").read_text())
WRONG = next(r["reply"] for r in json.loads((DATA / "h200_1203" / "wrong_fixes_with_examples.json").read_text())[
    "rows"] if (r["task"], r["wording"]) == ("bug-quopri-unhex", 1))
TASK = next(t for t in HELDOUT if t.name == "bug-quopri-unhex")
FAILING = "the model made no changes; unhex(b'ff') still returns 85; the instruction expects 255"
# a test command that holds unhex to the report, as a project's test of it would
TEST = UserCommand("test", "python3 -c \"import sys; sys.path.insert(0, 'heldout/bugs'); import quopri; "
                           "assert quopri.unhex(b'ff') == 255, quopri.unhex(b'ff')\"", 60.0)


def _correct(request: EditRequest) -> str:
    """A correct fix of unhex (lowercase digits count from ten), as the fenced region reply."""
    return region_reply(request, request.prompt.target.replace("i = ord('a')", "i = ord('a')-10", 1))


def _engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replies: list[Any], *, runs: bool | None = True,
            checks: tuple[UserCommand, ...] = ()) -> tuple[EditEngine, EditRequest, ScriptedStream]:
    root = tmp_path / "r"
    make_repo(root, {TASK.file: source(TASK.file)})
    engine = EditEngine(None, root, ctx=32768, checks=checks, run_examples=runs)
    monkeypatch.setattr(engine_module, "stream_edit", model := ScriptedStream(replies))
    return engine, engine.prepare(root / TASK.file, RECORDED["instruction"], mode="region", symbol="unhex"), model


def _retry(engine: EditEngine, request: EditRequest) -> EditProposal:
    """The greedy retry's proposal, as the H200 ended with it: the region unchanged a second time."""
    again = engine.retry_request(engine.evaluate(request, UNCHANGED, finish_reason="stop"))
    assert again is not None
    proposal = engine.evaluate(again, UNCHANGED, finish_reason="stop")
    proposal.retried = FAILING
    return proposal


def _settled(engine: EditEngine, proposal: EditProposal) -> Outcome:
    out = Outcome(TASK.name, TASK.file, TASK.kind, "region", "skipped", "", wording=0,
                  instruction=RECORDED["instruction"])
    settle(engine, proposal, TASK, out, guard=True)
    tag_layer(out, TASK)  # as the bench's run does after settling
    return out


def test_the_recorded_pair_fails_its_example_now(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, request, _ = _engine(tmp_path, monkeypatch, [])
    assert RECORDED["retried"] == FAILING  # what the H200's retry was told, as today's retry tells it
    retry = _retry(engine, request)
    assert retry.ok and not retry.changed and retry.request.retry_note
    assert due(retry, engine.oracles) == "the failing example"


def test_only_a_fixs_greedy_retry_with_a_failing_oracle_is_sampled(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    engine, request, _ = _engine(tmp_path, monkeypatch, [])
    retry = _retry(engine, request)
    assert due(engine.evaluate(request, UNCHANGED, finish_reason="stop"), engine.oracles) is None  # no retry yet
    sampled = engine.evaluate(sample.sampled_request(retry.request, 1), UNCHANGED, finish_reason="stop")
    assert due(sampled, engine.oracles) is None  # a sample is never sampled again
    step = engine.evaluate(replace(retry.request, in_plan=True), UNCHANGED, finish_reason="stop")
    assert due(step, engine.oracles) is None  # a plan step: the plan's own retry
    mended = engine.evaluate(retry.request, _correct(retry.request), finish_reason="stop")
    assert mended.changed and due(mended, engine.oracles) is None  # the retry passed
    full = engine.prepare(request.snapshot.path, request.instruction, mode="full")
    whole = engine.evaluate(replace(full, retry_note=retry.request.retry_note),
                            region_reply(full, full.prompt.target), finish_reason="stop")
    assert whole.ok and not whole.changed and due(whole, engine.oracles) is None  # a whole file
    # the same region read as a docstring: no fix, no oracle, whatever the file does
    docstring = ChangeSpec(request.instruction, "docstring")
    asked = replace(retry.request, spec=docstring)
    assert due(engine.evaluate(asked, UNCHANGED, finish_reason="stop"), engine.oracles) is None
    # no oracle: the examples do not run (an untrusted repository) and there is no test command
    quiet, quiet_request, _ = _engine(tmp_path / "q", monkeypatch, [], runs=False)
    assert due(_retry(quiet, quiet_request), quiet.oracles) is None
    # a test command that passes on the code as it is says nothing is wrong: with no example run, no sample
    passing, passing_request, _ = _engine(tmp_path / "p", monkeypatch, [], runs=False,
                                          checks=(UserCommand("test", "true"),))
    assert due(_retry(passing, passing_request), passing.oracles) is None


def test_the_users_failing_tests_are_an_oracle_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "runs"
    counted = replace(TEST, command=f"echo run >> {runs}; {TEST.command}")
    engine, request, _ = _engine(tmp_path, monkeypatch, [], runs=False, checks=(counted,))  # the tests alone
    retry = _retry(engine, request)
    assert "fails on the code as it is" in retry.request.retry_note  # the retry's note said so
    assert due(retry, engine.oracles) == "the failing tests"
    assert runs.read_text() == "run\n"  # one run on the code as it is, for the note and the decision both
    both, both_request, _ = _engine(tmp_path / "b", monkeypatch, [], runs=None, checks=(TEST,))
    assert due(_retry(both, both_request), both.oracles) == "the failing example and tests"


def test_a_wrong_sample_is_passed_over_and_the_first_that_passes_is_applied(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, request, model = _engine(tmp_path, monkeypatch, [UNCHANGED, UNCHANGED, WRONG, _correct])
    proposal = streamed(engine, request)
    first, retry, wrong, right = model.asked
    assert (first.temperature, retry.temperature, first.seed, retry.seed) == (0.0, 0.0, None, None)
    assert (wrong.temperature, wrong.seed, right.temperature, right.seed) == (0.7, 1, 0.7, 2)
    assert wrong.messages == right.messages == retry.messages  # the retry's prompt, naming what still fails
    assert "unhex(b'ff') still returns 85" in retry.retry_note
    assert proposal.request is right and proposal.ok and proposal.changed
    assert proposal.sampled == Sampled(2, 2, SAMPLES, 0.7, "the failing example")
    line = f"accepted sample 2 of {SAMPLES} (temperature 0.7): passes the failing example"
    assert proposal.sampled.line() == line and proposal.to_json()["sampled"] == {
        "accepted": 2, "drawn": 2, "of": SAMPLES, "temperature": 0.7, "oracle": "the failing example", "line": line}
    assert proposal.retried == FAILING and proposal.first_reply == UNCHANGED  # the retry's record is kept
    assert proposal.examples == ("checked: unhex(b'ff') == 255",)
    assert retry_notes(proposal) == [  # the TUI's notes before the review (every attempt streamed into one view)
        f"The first reply for {TASK.file} was refused ({FAILING}); asked once more.", f"{TASK.file}: {line}."]
    out = _settled(engine, proposal)
    assert (out.outcome, out.sampled, out.retried, out.layer) == ("correct", line, FAILING, None), out.why


def test_when_no_sample_passes_the_greedy_retrys_refusal_stands(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    assert [s["why"] == "unchanged" for s in RECORDED["samples"]] == [False, True, False, True]
    # the CPU's four samples stand in for every one of the SAMPLES drawn (recorded: seeds 1-4)
    engine, request, model = _engine(tmp_path, monkeypatch, [UNCHANGED, UNCHANGED, *SAMPLED * (SAMPLES // 4)])
    proposal = streamed(engine, request)
    assert len(model.asked) == 2 + SAMPLES and [r.seed for r in model.asked[2:]] == list(range(1, SAMPLES + 1))
    assert proposal.request is model.asked[1] and proposal.ok and not proposal.changed  # the retry's proposal
    assert proposal.retried == FAILING
    assert proposal.sampled == Sampled(None, SAMPLES, SAMPLES, 0.7, "the failing example")
    assert proposal.sampled.line() == (f"{SAMPLES} sampled replies (temperature 0.7) drawn, none passed every check; "
                                       "the failing example still fails")
    out = _settled(engine, proposal)
    assert (out.outcome, out.refusal_code, out.layer) == ("refused", "unchanged", "model")  # as unsampled
    assert refusal_layer("unchanged") == "model"
    assert out.sampled == proposal.sampled.line()


def test_nothing_is_sampled_where_no_oracle_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, request, model = _engine(tmp_path, monkeypatch, [UNCHANGED, UNCHANGED], runs=False)
    proposal = streamed(engine, request)  # a third request would find no scripted reply
    assert len(model.asked) == 2 and proposal.sampled is None and not proposal.changed


def test_no_sample_starts_once_the_budget_is_spent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, request, _ = _engine(tmp_path, monkeypatch, [])
    retry, asked, now = _retry(engine, request), [], [0.0]

    def ask(r: EditRequest) -> Any:
        asked.append(r)
        now[0] += 30.0  # each sample takes 30 s on this clock
        yield RequestStats()
        return engine.evaluate(r, WRONG, finish_reason="stop")

    drawn, stats = sample.draw(retry, "the failing example", ask, budget_s=45.0, clock=lambda: now[0]), []
    with pytest.raises(StopIteration) as done:
        while True:
            stats.append(next(drawn))
    assert len(asked) == 2 and len(stats) == 2  # the second started at 30 s, the third would at 60 s
    assert done.value.value is retry and retry.sampled == Sampled(None, 2, SAMPLES, 0.7, "the failing example")


def test_a_real_sample_that_passes_the_failing_tests_is_applied(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    task = next(t for t in TASKS if t.name == HUE["task"])
    root = tmp_path / "r"
    make_repo(root, {task.file: source(task.file)})
    engine = EditEngine(None, root, ctx=32768, run_examples=True, checks=commands(
        upstream.test_command(task.kind, task.file), None))  # as the bench runs it
    monkeypatch.setattr(engine_module, "stream_edit", model := ScriptedStream(
        [HUE["greedy_reply"], HUE["greedy_reply"], *(s["reply"] for s in HUE["samples"])]))
    proposal = streamed(engine, engine.prepare(root / task.file, HUE["instruction"], mode="region",
                                               symbol="rgb_to_hls"))
    assert len(model.asked) == 3 and model.asked[2].seed == 1  # the first sample passed: no more were asked
    assert model.asked[1].retry_note.startswith(f"(A first reply was refused: {HUE['retried']}")  # as on the H200
    line = f"accepted sample 1 of {SAMPLES} (temperature 0.7): passes the failing tests"
    assert proposal.ok and proposal.sampled is not None and proposal.sampled.line() == line
    assert [c.ok for c in proposal.checks] == [True]  # the module's upstream tests, failing before, pass
    assert "+    if h < 0.0:\n+        h += 1.0\n" in proposal.diff
    out = Outcome(task.name, task.file, task.kind, "region", "skipped", "", wording=HUE["wording"],
                  instruction=HUE["instruction"])
    settle(engine, proposal, task, out, guard=True)
    assert (out.outcome, out.sampled) == ("correct", line), out.why
