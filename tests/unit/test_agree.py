"""A change of behaviour nothing checks is refused when sampled replies behave otherwise (coder.edit.run.agree).

The replies are Qwen2.5-Coder-1.5B's, verbatim (``tests/data/edit/agree/``): the greedy ones from the H200 (run 9;
the held-out pairs' were applied wrong in every run since run 3, glob-fix's right), the sampled ones from 2 CPU
cores (``scripts/dev/agree_ab.py``: the same request at temperature 0.7, seeds 1-3). Only the server is replaced:
``stream_edit`` hands each request its recorded reply in the order asked; the plan, its checks, the probes, the
bench's settle and judge are real.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import make_repo

from coder.bench.edits import upstream
from coder.bench.edits.layers import refusal_layer
from coder.bench.edits.run import UPSTREAM_TIMEOUT_S, Outcome, _prepare, settle, tag_layer
from coder.bench.edits.tasks import TASKS as SUITE
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.behaviour import ExampleCheck
from coder.edit.checks.user_commands import commands
from coder.edit.intent.read import read_instruction
from coder.edit.proposal import EditProposal, EditRequest
from coder.edit.run import agree
from coder.edit.run import engine as engine_module
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import PlanProposal
from coder.edit.run.plan_run import run_events
from coder.edit.run.sample import SAMPLES
from coder.testing.replies import ScriptedStream, streamed

DATA = Path(__file__).parents[1] / "data" / "edit" / "agree"
TASKS = {t.name: t for t in (*SUITE, *HELDOUT)}


def _recorded(name: str) -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads((DATA / name).read_text())
    return recorded


def _outcome(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recorded: dict[str, Any], *,
             runs: bool = True) -> tuple[Outcome, ScriptedStream, EditProposal | PlanProposal]:
    """The bench's outcome of the recorded pair, its replies given in the order they were asked."""
    task, wording = TASKS[recorded["task"]], recorded["wording"]
    root = tmp_path / "r"
    make_repo(root, dict(task.originals()))
    engine = EditEngine(None, root, ctx=32768, run_examples=runs,
                        checks=commands(upstream.test_command(task.kind, task.file), None, UPSTREAM_TIMEOUT_S))
    model = ScriptedStream([r["reply"] for r in recorded["replies"]])
    monkeypatch.setattr(engine_module, "stream_edit", model)
    request = _prepare(engine, task, "auto", root / task.file, task.wordings[wording])
    proposal: EditProposal | PlanProposal
    if isinstance(request, EditRequest):
        proposal = streamed(engine, request)
    else:
        (proposal,) = [e for e in run_events(engine, request) if isinstance(e, PlanProposal)]
    out = Outcome(task.name, task.file, task.kind, "auto", "skipped", "", wording=wording,
                  instruction=task.wordings[wording])
    settle(engine, proposal, task, out, guard=True)
    tag_layer(out, task)
    return out, model, proposal


def test_the_h200s_wrong_is_mixed_is_refused_when_its_samples_disagree(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = _recorded("tabnanny_method_w0.json")
    out, model, proposal = _outcome(tmp_path, monkeypatch, recorded)
    assert out.outcome == "refused" and out.refusal_code == agree.CODE, out.why
    assert refusal_layer(out.refusal_code) == "check" and not out.committed
    assert out.why.startswith("the model's answers disagree on Whitespace(") and ".is_mixed(): " in out.why
    assert "(1 sampled reply, temperature 0.7;" in out.why
    # the greedy step, then the first sample (seeded 1, as a rerun draws it): it passed and disagreed, so no more
    assert [r.seed for r in model.asked] == [None, 1]
    assert {r.temperature for r in model.asked[1:]} == {0.7}
    assert isinstance(proposal, PlanProposal) and not proposal.ok


def test_the_h200s_wrong_indent_level_fix_is_refused_by_the_first_sample_that_passes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """bug-tabnanny-level w1, "the tab count isn't multiplied by the tab size": no example, and the module's upstream
    tests pass the bug, so nothing checked the H200's fix of the wrong line. Samples 1 and 2 failed a check; 3 passed
    and gives another indentation."""
    out, model, _ = _outcome(tmp_path, monkeypatch, _recorded("bug_tabnanny_level_w1.json"))
    assert [r.seed for r in model.asked] == [None, 1, 2, 3]
    assert out.outcome == "refused" and out.refusal_code == agree.CODE, out.why
    assert out.why.startswith("the model's answers disagree on Whitespace(") and ".indent_level(" in out.why
    assert "(3 sampled replies, temperature 0.7;" in out.why


@pytest.mark.parametrize(("name", "drawn"), [("glob_fix_w0.json", 2), ("textwrap_constant_w0.json", 2),
                                             ("bug_wsgiref_hop_w2.json", 2), ("fnmatch_constant_w0.json", 2),
                                             ("reprlib_method_w0.json", 2)])
def test_a_right_change_whose_samples_agree_is_applied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       name: str, drawn: int) -> None:
    """Right changes of the suite the probes reach (5 to 13 calls), with no example the reading takes and upstream
    tests that pass on the code as it is: glob-fix w0 ("make `_ishidden` return False for an empty path instead of
    raising IndexError"), textwrap-constant w0 (wrap and fill default to 80), bug-wsgiref-hop w2 (hop-by-hop
    detection is case-sensitive), fnmatch-constant w0: both samples of each passed every check and agree. And the
    held-out reprlib-method w0 (a new Repr method, one call on Repr()): samples 1 and 2 pass (2 only since a reply
    shifted right is set back) and agree."""
    out, model, _ = _outcome(tmp_path, monkeypatch, _recorded(name))
    assert [r.seed for r in model.asked] == [None, *range(1, drawn + 1)]
    assert out.outcome == "correct", out.why


def test_without_examples_run_nothing_is_sampled_and_the_wrong_reply_stands(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """An untrusted repository runs none of its code: the probes cannot run, so no sample is drawn (as before)."""
    out, model, _ = _outcome(tmp_path, monkeypatch, _recorded("tabnanny_method_w0.json"), runs=False)
    assert [r.seed for r in model.asked] == [None]
    assert out.outcome == "wrong"  # what run 9 applied: the probes are what stops it


def test_due_only_for_a_change_of_behaviour_with_nothing_to_check_it(tmp_path: Path) -> None:
    task = TASKS["tabnanny-method"]
    text = task.originals()[task.file]
    files = {task.file: text}
    runs, quiet = ExampleCheck(runs=True), ExampleCheck(runs=False)
    method = read_instruction(task.wordings[0], files, home=task.file)
    assert method.action == "add_method" and not method.examples
    assert agree.due(method, runs, lambda: ()) and not agree.due(method, quiet, lambda: ())
    shown = TASKS["string-method"]  # its __repr__ is shown: the example checks it
    assert not agree.due(read_instruction(shown.wordings[0], {shown.file: shown.originals()[shown.file]},
                                          home=shown.file), runs, lambda: ())
    level = TASKS["bug-tabnanny-level"]
    fix = read_instruction(level.wordings[1], {level.file: level.originals()[level.file]}, home=level.file)
    assert fix.action == "change"
    assert agree.due(fix, runs, lambda: ())  # the module's upstream tests pass the bug
    assert not agree.due(fix, runs, lambda: (("tests", "FAILED test_x"),))  # a failing oracle checks it instead
    docstring = read_instruction(TASKS["tabnanny-docstring"].wordings[0], files, home=task.file)
    assert not agree.due(docstring, runs, lambda: ())


def test_the_verdict_needs_a_sample_that_passed() -> None:
    """No sample passed every check: nothing contradicts the reply, which stands (CORROBORATED is off)."""
    assert agree.verdict(None, None, "x = 1\n", [None, None]) is None  # type: ignore[arg-type]
    assert agree.verdict(None, None, "x = 1\n", []) is None  # type: ignore[arg-type]


def test_a_plan_still_failing_its_example_after_the_retry_is_sampled(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """string-method w0 on the H200 (run 9): the plan's step and its retry both wrote ``Template("{self.template}")``,
    refused by the instruction's example. Now the step is sampled (SAMPLES seeds, not retried) before the
    refusal stands. No sampled reply of this request is recorded: the H200's greedy reply stands in for each (a
    sample may repeat the greedy reply), so this shows the mechanics, not how often a sample mends it."""
    rows = json.loads((DATA / "h200_rows.json").read_text())["rows"]
    row = next(r for r in rows if (r["task"], r["wording"]) == ("string-method", 0))
    (step,) = row["step_replies"]
    replies = [step["flagged_reply"], step["reply"], *[step["reply"]] * SAMPLES]
    out, model, proposal = _outcome(tmp_path, monkeypatch, {"task": "string-method", "wording": 0,
                                                            "replies": [{"reply": r} for r in replies]})
    assert [r.seed for r in model.asked] == [None, None, *range(1, SAMPLES + 1)]
    assert out.outcome == "refused" and out.refusal_code == "behaviour", out.why
    assert isinstance(proposal, PlanProposal) and proposal.sampled is not None
    assert proposal.sampled.line() == (f"{SAMPLES} sampled replies (temperature 0.7) drawn, none passed every check; "
                                       "the failing example still fails")
    assert out.sampled == proposal.sampled.line()  # the bench row says it too


def test_a_sample_that_agrees_with_the_wrong_reply_does_not_end_the_draw(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """tabnanny-method w1 ("does the indentation mix tabs and spaces?"): sample 1 failed a check, sample 2 passed
    and behaves as the H200's wrong reply does (wrong alike), sample 3 passed and differs: refused."""
    out, model, _ = _outcome(tmp_path, monkeypatch, _recorded("tabnanny_method_w1.json"))
    assert [r.seed for r in model.asked] == [None, 1, 2, 3]
    assert out.outcome == "refused" and out.refusal_code == agree.CODE, out.why
    assert "(3 sampled replies, temperature 0.7;" in out.why


def test_a_sample_that_mends_the_failing_repr_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """string-method w0 ("give Template a __repr__ so printing one shows Template('hello $name')"): the H200's step
    and its retry both wrote ``f'Template("{self.template}")'``. The CPU's first sample wrote
    ``f"Template('{self.template}')"``, its region shifted 4 spaces right as a whole (set back by
    ``reindent_region``): it passes the example, every check and the task's judge."""
    out, model, proposal = _outcome(tmp_path, monkeypatch, _recorded("string_method_w0.json"))
    assert [r.seed for r in model.asked] == [None, None, 1]
    assert out.outcome == "correct", out.why
    assert isinstance(proposal, PlanProposal) and proposal.sampled is not None
    assert proposal.sampled.line() == f"accepted sample 1 of {SAMPLES} (temperature 0.7): passes the failing example"
