"""An example that names only the wrong value is no oracle for sampling: the H200's one wrong edit of run 12.

"Whitespace('\\t').indent_level(8) gives 1 but a tab at tab size 8 is 8 columns" reads as the example
``indent_level(8)``, reported wrong at 1, with no expected value read. The greedy reply and its retry left the
method unchanged; with 16 samples (run 12), the 10th removed ``+ self.nt``, gave 0, passed the example (not 1)
and every check, and was applied wrong. Such an example still tells the retry what is wrong now, but a reply
passing it may be wrong another way, so nothing is sampled for it (:attr:`coder.edit.intent.spec.Example.pins`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import make_repo
from spec_helpers import region_reply

from coder.bench.edits import upstream
from coder.bench.edits.taskdef import source
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.user_commands import commands
from coder.edit.intent.spec import Example
from coder.edit.run import agree
from coder.edit.run import engine as engine_module
from coder.edit.run.engine import EditEngine
from coder.edit.run.retry import spec_of
from coder.edit.run.sample import SAMPLES, due
from coder.testing.replies import ScriptedStream, streamed

REC = json.loads((Path(__file__).parents[1] / "data" / "edit" / "h200_1204" /
                  "tabnanny_level_w0_sample10.json").read_text())
TASK = next(t for t in HELDOUT if t.name == "bug-tabnanny-level")


@pytest.mark.parametrize(("example", "pins"), [
    (Example("unhex(b'ff')", expected="255", wrong="85"), True),  # the right value is given
    (Example("fnmatch('b', '[!a]')", wrong="False"), True),  # not False: only True is left
    (Example("indent_level(8)", wrong="1"), False),  # not 1: 0 passes too
    (Example("_ishidden('')", raises="IndexError"), False),  # not raising: returning anything passes
    (Example("f()", wrong="None"), False),
])
def test_an_example_pins_the_answer_only_with_a_right_value_or_a_bool(example: Example, pins: bool) -> None:
    assert example.pins is pins


def _engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replies: list[str]) -> tuple[EditEngine, ScriptedStream]:
    root = tmp_path / "r"
    make_repo(root, {TASK.file: source(TASK.file)})
    engine = EditEngine(None, root, ctx=32768, run_examples=True,
                        checks=commands(upstream.test_command(TASK.kind, TASK.file), None))  # as the bench runs it
    monkeypatch.setattr(engine_module, "stream_edit", model := ScriptedStream(replies))
    return engine, model


def test_the_h200s_wrong_sample_is_never_drawn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, model = _engine(tmp_path, monkeypatch, [])
    request = engine.prepare(engine.root / TASK.file, REC["instruction"], mode="region",
                             symbol="Whitespace.indent_level")
    (example,) = spec_of(request).examples
    assert (example.wrong, example.expected, example.pins) == ("1", None, False)
    unchanged = region_reply(request, request.prompt.target)
    monkeypatch.setattr(engine_module, "stream_edit", model := ScriptedStream(
        [unchanged, unchanged, *[REC["sample_10_reply"]] * SAMPLES]))
    proposal = streamed(engine, request)
    assert len(model.asked) == 2  # the reply and its retry, both unchanged: no sample is drawn
    assert proposal.ok and not proposal.changed and proposal.sampled is None
    assert proposal.retried == REC["retried"]  # the retry is still told what the example shows now
    # the report is said, as a "report", not as an oracle: the user's tests pass on the code as it is
    assert [kind for kind, _ in engine.oracles.failing(proposal.request)] == ["report"]
    assert due(proposal, engine.oracles) is None


def test_the_recorded_sample_passes_the_example_and_is_wrong(tmp_path: Path) -> None:
    """Why it must not be drawn: the example and every check of the reply pass it. The module's upstream tests
    caught it on this machine's Python 3.11 (2 of 19 fail), not on the H200's 3.12, where it was applied: the
    tests differ by interpreter, so only the example, which is the same everywhere, is held here."""
    root = tmp_path / "r"
    make_repo(root, {TASK.file: source(TASK.file)})
    engine = EditEngine(None, root, ctx=32768, run_examples=True)
    request = engine.prepare(root / TASK.file, REC["instruction"], mode="region", symbol="Whitespace.indent_level")
    proposal = engine.evaluate(request, REC["sample_10_reply"], finish_reason="stop")
    assert proposal.ok and proposal.changed, proposal.refusal
    assert proposal.examples == ("checked: Whitespace('\\t').indent_level(8) no longer returns 1 (it returns 0)",)
    removed = "-        return trailing + tabsize * il + self.nt\n+        return trailing + tabsize * il\n"
    assert removed in proposal.diff
    judged, why = TASK.check(TASK.originals()[TASK.file], proposal.new)
    assert not judged and why == REC["judged"]


def test_a_reply_that_passes_only_a_report_is_held_to_its_samples(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Had the greedy reply been that sample, the report would not have checked it either: such a change is one
    nothing checks, so its samples must agree (:mod:`coder.edit.run.agree`). Here the first sample is the right fix
    (``tabsize * (il + self.nt)``, the original module's line), and the two give other indentations."""
    root = tmp_path / "r"
    make_repo(root, {TASK.file: source(TASK.file)})
    engine = EditEngine(None, root, ctx=32768, run_examples=True)  # no test command: as the H200's passed it
    request = engine.prepare(root / TASK.file, REC["instruction"], mode="region", symbol="Whitespace.indent_level")
    right = region_reply(request, request.prompt.target.replace("tabsize * il + self.nt", "tabsize * (il + self.nt)"))
    monkeypatch.setattr(engine_module, "stream_edit", model := ScriptedStream(
        [REC["sample_10_reply"], right, right, right, right]))
    proposal = streamed(engine, request)
    assert [r.seed for r in model.asked] == [None, 1]  # the reply, then one sample that passes and differs
    assert not proposal.ok and proposal.refusal_code == agree.CODE
    assert proposal.refusal is not None and proposal.refusal.startswith("the model's answers disagree on Whitespace(")
