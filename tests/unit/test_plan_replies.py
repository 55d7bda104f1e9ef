"""Recorded real replies replayed offline: a plan whose flagged region is retried and then accepted.

The replies in ``tests/data/plans/<case>.replies.json`` were given by Qwen2.5-Coder-0.5B-Instruct
Q4_K_M on the CPU (``tests/server/test_plan_server.py`` records them); here
:class:`coder.testing.replies.ScriptedModel` (a **test double** of the server) hands each region
request its recorded reply: the flagged first reply to the first ask, the recorded retry's reply
to the retry. Validation, the rename check, the retry, the splice and the scope check are real.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import make_repo

from coder.edit.proposal import EditRequest
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import PlanProposal
from coder.edit.run.plan_run import PlanRequest, prepare, run_plan
from coder.testing.replies import ScriptedModel

DATA = Path(__file__).parents[1] / "data" / "plans"


def _replay(tmp_path: Path, case: str) -> tuple[ScriptedModel, PlanProposal, dict[str, object]]:
    spec = json.loads((DATA / f"{case}.json").read_text())
    recorded = json.loads((DATA / f"{case}.replies.json").read_text())
    root = tmp_path / "repo"
    make_repo(root, {rel: (DATA / f"{rel}.txt").read_text() for rel in spec["files"]})
    engine = EditEngine(None, root)
    prepared = prepare(engine, root / str(spec["path"]), str(spec["instruction"]), scope_rename=False)
    assert isinstance(prepared, PlanRequest)
    by_step = {r["step"]: r for r in recorded}
    labels = {}
    for i, step in enumerate(prepared.plan.steps):
        if i in prepared.requests:
            labels[prepared.requests[i].region] = f"{step.rel} {step.label}"

    def reply(request: EditRequest) -> str:
        if "A first reply was refused" in request.instruction:  # the retry: its recorded reply
            step = next(r for r in recorded if r["flagged"] and r["step"].startswith(request.snapshot.rel + " "))
            return str(step["reply"])
        entry = by_step[labels[request.region]]
        return str(entry["flagged"] or entry["reply"])

    model = ScriptedModel(engine, reply)
    return model, run_plan(engine, prepared, model), spec


def test_a_recorded_flagged_reply_is_retried_narrower_and_then_accepted(tmp_path: Path) -> None:
    """textwrap.py (491 lines): the 0.5B model renamed ``_split_chunks`` itself; asked again for just
    the line that calls the method, it renamed the call, and the plan is the exact rename."""
    model, proposal, _ = _replay(tmp_path, "textwrap_rename")
    assert proposal.ok and proposal.scope.ok, proposal.refusal
    (retry,) = proposal.retries
    assert retry.step.label == "method TextWrapper._split_chunks"
    assert "should have '_split_chunks' where the reply has '_normalize_whitespace'" in str(retry.retried)
    asked = [r.region.label if r.region else "" for r in model.asked]
    assert asked == ["function TextWrapper._munge_whitespace", "function TextWrapper._split_chunks", "lines 342-342"]
    expected = (DATA / "textwrap_rename.textwrap.py.expected.txt").read_text()
    assert proposal.files[0].new == expected
    # the first region's reply reworded the docstring ("Munge" -> "Normalize"): the original wording is kept
    assert "Munge whitespace in text" in expected and "_normalize_whitespace(text : string)" in expected


def test_a_recorded_reply_that_adds_no_method_is_not_applied(tmp_path: Path) -> None:
    """Asked to add ``size`` to xdrlib's Packer (the region: its last method), the 0.5B model added
    ``return n`` to ``pack_array`` instead. The scope check explains it (inside the class named), so
    the plan checks the class itself: one new method, every old member unchanged. Replayed twice
    (the first ask and the retry), it is refused and nothing is written."""
    recorded = json.loads((DATA / "xdrlib_size.reply.json").read_text())
    root = tmp_path / "repo"
    original = (DATA / "xdrlib.py.txt").read_text()
    make_repo(root, {"xdrlib.py": original})
    engine = EditEngine(None, root)
    prepared = prepare(engine, root / "xdrlib.py", str(recorded["instruction"]))
    assert isinstance(prepared, PlanRequest) and prepared.plan.kind == "add_method"
    assert [f"{s.rel} {s.label}" for s in prepared.plan.steps] == [recorded["step"]]
    model = ScriptedModel(engine, [str(recorded["reply"])] * 2)
    proposal = run_plan(engine, prepared, model)
    assert not proposal.ok and len(model.asked) == 2
    assert "changes or drops existing members of Packer" in str(proposal.refusal)
    assert (root / "xdrlib.py").read_text() == original
