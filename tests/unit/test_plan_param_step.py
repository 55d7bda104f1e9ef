"""A parameter-adding plan step whose reply leaves the new parameter unused is asked again before the splice.

Recorded on the H200 (2026-12-03, run 4, Qwen2.5-Coder-1.5B): shlex-param, wordings 0 and 2, "a sep
parameter ... used in place of the literal space" came back as ``def join(split_command, sep=' ')`` with
``' '.join`` unchanged. The plan's whole-file check refused it ("sep is never used in join") with no
second try. Now the step itself is judged: the retry is told what went wrong, and a second reply that uses
the parameter is the plan's result. :class:`coder.testing.replies.ScriptedModel` is the test double.
"""

from __future__ import annotations

from pathlib import Path

from cli_helpers import make_repo

from coder.bench.edits.tasks import TASKS, source
from coder.edit.proposal import EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_run import PlanRequest, prepare, run_plan
from coder.testing.replies import ScriptedModel

UNUSED = ("```python\ndef join(split_command, sep=' '):\n"
          '    """Return a shell-escaped string from *split_command*."""\n'
          "    return ' '.join(quote(arg) for arg in split_command)\n```")
USED = UNUSED.replace("return ' '.join", "return sep.join")


def _run(tmp_path: Path, wording: int, replies: list[str]) -> tuple[ScriptedModel, object]:
    task = next(t for t in TASKS if t.name == "shlex-param")
    make_repo(tmp_path / "r", {"shlex.py": source("shlex.py")})
    engine = EditEngine(None, tmp_path / "r")
    prepared = prepare(engine, tmp_path / "r" / "shlex.py", task.wordings[wording])
    assert isinstance(prepared, PlanRequest) and prepared.plan.kind == "add_param"
    model = ScriptedModel(engine, replies)
    return model, run_plan(engine, prepared, model)


def test_the_unused_parameter_is_asked_again_and_the_second_reply_lands(tmp_path: Path) -> None:
    model, proposal = _run(tmp_path, 0, [UNUSED, USED])
    assert proposal.ok, proposal.refusal  # type: ignore[attr-defined]
    (retry,) = proposal.retries  # type: ignore[attr-defined]
    assert retry.retried == "sep is never used in join"
    second: EditRequest = model.asked[1]
    assert "sep is never used in join" in second.instruction
    # the reply took sep: the retry shows the region as it is (shown the header with sep, the 1.5B on the CPU left
    # sep unused again; asked this way, it used it: tests/unit/test_param_plans_replayed.py)
    assert "use it in the body" in second.instruction and "already takes" not in second.instruction
    assert second.prompt.target == model.asked[0].prompt.target
    task = next(t for t in TASKS if t.name == "shlex-param")
    new = {f.rel: f.new for f in proposal.files}  # type: ignore[attr-defined]
    assert task.judge({"shlex.py": source("shlex.py")}, new) == (True, "parameter added and used")


def test_a_second_unused_reply_is_refused_and_nothing_lands(tmp_path: Path) -> None:
    model, proposal = _run(tmp_path, 2, [UNUSED, UNUSED])
    assert not proposal.ok  # type: ignore[attr-defined]
    assert len(model.asked) == 2
    assert "sep is never used in join" in str(proposal.refusal)  # type: ignore[attr-defined]


def test_only_the_region_of_the_def_that_gains_the_parameter_is_asked_again(tmp_path: Path) -> None:
    # glob-callers, wording 0, run 4's region replies: _listdir takes include_hidden and never reads it; only
    # _listdir's region is judged for the parameter and asked again
    import json

    recorded = json.loads((Path(__file__).parents[1] / "data" / "edit" / "h200_1203" /
                           "glob_callers_w0.steps.json").read_text())
    task = next(t for t in TASKS if t.name == "glob-callers")
    make_repo(tmp_path / "r", {"glob.py": source("glob.py")})
    engine = EditEngine(None, tmp_path / "r")
    prepared = prepare(engine, tmp_path / "r" / "glob.py", task.wordings[0])
    assert isinstance(prepared, PlanRequest)

    def reply(request: EditRequest) -> str:
        assert request.region is not None
        return str(recorded[request.region.label])

    model = ScriptedModel(engine, reply)
    proposal = run_plan(engine, prepared, model)
    assert not proposal.ok
    # the calls in _glob1 and _rlistdir gain include_hidden=include_hidden mechanically (the wording spells it):
    # only _listdir is asked, and asked again
    assert [r.region.label for r in model.asked if r.region] == ["function _listdir", "function _listdir"]
    retried = [r for r in model.asked if "A first reply was refused" in r.instruction]
    assert len(retried) == 1 and retried[0].region is not None and retried[0].region.label == "function _listdir"
    assert "include_hidden is never used in _listdir" in retried[0].instruction
