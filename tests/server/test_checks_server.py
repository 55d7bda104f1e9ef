"""The checks' retries and a plan's per-step figures on real llama-servers (CPU).

* a region edit refused by a retryable rule is asked a second time through :meth:`EditEngine.run`,
  the one place the CLI, the TUI and the bench share: two real requests, the second's prompt says
  what went wrong, the proposal keeps the first reply. Qwen2.5-Coder-0.5B writes a docstring into
  ``rgb_to_yiq``; the spec places the change at the end of the file, where no region reply of
  that function can land, so the placement check refuses both replies whatever the model writes;
* each model step of a plan reports what a single edit does (request class, k, TTFT, tok/s,
  acceptance length), measured on the demo server.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.bench.edits.tasks import source
from coder.config import QWEN_0_5B
from coder.edit.intent.spec import Anchor, ChangeSpec
from coder.edit.proposal import EditProposal
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import PlanProposal, PlanRequest
from coder.edit.run.plan_run import prepare, run_events
from coder.telemetry.stats import RequestStats

pytestmark = pytest.mark.server

DATA = Path(__file__).parents[1] / "data" / "plans"


@pytest.fixture(scope="module")
def real_model() -> Path:
    """The 0.5B model, fetched once (scripts/test fetches it first)."""
    from coder.models.catalog import MODELS
    from coder.models.store import fetch_model

    return fetch_model(MODELS[QWEN_0_5B])


def test_a_refused_region_edit_is_asked_once_more_through_engine_run(
        server_factory: Callable[..., ServerInfo], real_model: Path, tmp_path: Path) -> None:
    colorsys = source("colorsys.py")
    make_repo(tmp_path / "r", {"colorsys.py": colorsys})
    engine = EditEngine(BackendHandle(server_factory(model=QWEN_0_5B, ctx=4096)), tmp_path / "r")
    instruction = "Add a docstring to rgb_to_yiq."
    spec = ChangeSpec(instruction, "docstring", anchor=Anchor("end"))
    request = engine.prepare(tmp_path / "r" / "colorsys.py", instruction, mode="region", symbol="rgb_to_yiq",
                             spec=spec)
    events = list(engine.run(request))
    proposal = events[-1]
    assert isinstance(proposal, EditProposal)
    assert all(isinstance(e, RequestStats) for e in events[:-1])
    assert proposal.refusal_code == "placement", proposal.refusal  # refused again: the one retry was used
    assert proposal.retried is not None and proposal.retried.startswith(
        "the change was asked at the end of the file, but it is at line ")
    assert proposal.first_reply and '"""' in proposal.first_reply  # the first reply: a docstring, out of place
    note = proposal.request.retry_note
    assert note == f"(A first reply was refused: {proposal.retried}.) Put it at the end of the file, nowhere else."
    assert note in proposal.request.messages[-1]["content"] and proposal.request.instruction == instruction
    assert proposal.reply and proposal.stats.completion_tokens  # a second real request was streamed
    assert (tmp_path / "r" / "colorsys.py").read_text() == colorsys


def test_each_plan_step_reports_its_request_class_k_and_speed(demo_server: ServerInfo, tmp_path: Path) -> None:
    text = (DATA / "textwrap.py.txt").read_text()
    make_repo(tmp_path / "r", {"textwrap.py": text})
    engine = EditEngine(BackendHandle(demo_server), tmp_path / "r")
    # the model path on purpose (the scope analysis would rename without a request)
    prepared = prepare(engine, tmp_path / "r" / "textwrap.py", "Rename the method `_split` to `_split_chunks`.",
                       scope_rename=False)
    assert isinstance(prepared, PlanRequest) and prepared.requests
    proposal = list(run_events(engine, prepared))[-1]
    assert isinstance(proposal, PlanProposal)
    steps = proposal.to_json()["steps"]
    assert isinstance(steps, list) and len(steps) == len(prepared.plan.steps)
    for i, step in enumerate(steps):
        result = proposal.steps[i]
        if result.proposal is None:
            assert step["request_class"] is step["k"] is step["ttft"] is None
            continue
        asked = result.proposal.request
        assert step["request_class"] == "region" and step["k"] == asked.k.k and step["k_via"] == asked.k.via
        assert isinstance(step["ttft"], float) and step["ttft"] > 0
        assert isinstance(step["decode_tps"], float) and step["decode_tps"] > 0
        stats = step["stats"]
        assert isinstance(stats, dict) and stats["ttft"] == step["ttft"]
        assert stats["acceptance_length"] == step["acceptance_length"]
    assert any(s["request_class"] == "region" for s in steps)
