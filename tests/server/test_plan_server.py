"""Two multi-region plans by a real coding model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M) on the CPU, pinned byte for byte.

The files are frozen copies of CPython 3.11.7 modules (``tests/data/plans/``); nobody here wrote them.

* a rename in a long file: ``textwrap.py`` (491 lines), two methods use the old name;
* a rename everywhere: ``genericpath.py`` and ``posixpath.py``, three regions in two files; the
  0.5B model gets one of them wrong twice, so the plan is refused and nothing is written.

Each case gets a fresh server (greedy replies on the CPU repeat for a fixed server and request
sequence). Every reply must be the recorded one; committed files must be the recorded ones, and
equal to the tokenized rename (docstrings aside).
``CODER_RECORD_REAL=1`` re-records the expected files and replies instead of asserting.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from cli_helpers import make_repo

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.config import QWEN_0_5B
from coder.edit.apply import gitops
from coder.edit.intent.renames import rename_pairs
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import PlanProposal, PlanRequest, apply_plan
from coder.edit.run.plan_run import prepare, run_events
from coder.edit.source.splice import rename_tokens

pytestmark = pytest.mark.server

DATA = Path(__file__).parents[1] / "data" / "plans"
RECORD = os.environ.get("CODER_RECORD_REAL") == "1"


@pytest.fixture(scope="module")
def real_model() -> Path:
    """The 0.5B model, fetched once (scripts/test fetches it first, with a progress bar)."""
    from coder.models.catalog import MODELS
    from coder.models.store import fetch_model

    return fetch_model(MODELS[QWEN_0_5B])


def _run(server_factory: Callable[..., ServerInfo], tmp_path: Path,
         case: str) -> tuple[EditEngine, PlanProposal, dict[str, str], dict[str, object]]:
    """Plan and run the case on a fresh 0.5B server; the engine, the proposal, the original files, the case."""
    spec = json.loads((DATA / f"{case}.json").read_text())
    files = {rel: (DATA / f"{rel}.txt").read_text() for rel in spec["files"]}
    info = server_factory(model=QWEN_0_5B, ctx=4096)
    root = tmp_path / "repo"
    make_repo(root, dict(files))
    engine = EditEngine(BackendHandle(info), root)
    # the model path on purpose: these renames are unambiguous, so the planner would not ask the model at all
    prepared = prepare(engine, root / str(spec["path"]), str(spec["instruction"]), scope_rename=False)
    assert isinstance(prepared, PlanRequest)
    assert [f"{s.rel} {s.label}" for s in prepared.plan.steps] == spec["steps"]
    proposal = list(run_events(engine, prepared))[-1]
    assert isinstance(proposal, PlanProposal)
    replies = [{"step": f"{s.step.rel} {s.step.label}", "flagged": s.flagged_reply, "retried": s.retried,
                "reply": s.proposal.reply if s.proposal else ""} for s in proposal.steps]
    if RECORD:
        (DATA / f"{case}.replies.json").write_text(json.dumps(replies, indent=1) + "\n")
    else:
        # the recorded replies: the 0.5B's greedy reply depends on the CPU's floating-point path, so each CPU path
        # seen is kept (``.replies.json`` on AVX-512 hosts, ``.replies-epyc-avx2.json`` on an AMD EPYC without it)
        recorded = [json.loads(p.read_text()) for p in sorted(DATA.glob(f"{case}.replies*.json"))]
        assert replies in recorded, f"replies not recorded for this CPU yet (CODER_RECORD_REAL=1):\n{replies}"
    return engine, proposal, files, spec


def _code(source: str) -> str:
    """The module's AST dump with every docstring removed (a rename may rename them too)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and \
                ast.get_docstring(node) is not None:
            node.body = node.body[1:]
    return ast.dump(tree)


def _apply_and_pin(engine: EditEngine, proposal: PlanProposal, files: dict[str, str], spec: dict[str, object],
                   case: str) -> None:
    assert proposal.ok, proposal.refusal
    assert proposal.scope.ok, proposal.scope.refusal()
    repo = git.Repo(engine.root)
    head = repo.head.commit.hexsha
    result = apply_plan(engine, proposal)
    assert result.commit == repo.head.commit.hexsha and repo.head.commit.parents[0].hexsha == head
    pairs = rename_pairs(str(spec["instruction"]))
    for rel, original in files.items():
        new = (engine.root / rel).read_text()
        expected = DATA / f"{case}.{rel}.expected.txt"
        if RECORD:
            expected.write_text(new)
        assert new == expected.read_text()  # byte for byte what the pinned build and model produce
        assert _code(new) == _code(rename_tokens(original, pairs))  # only the rename (docstrings may name it too)
    undone = gitops.undo_last(repo)
    assert sorted(undone.paths) == sorted(p.rel for p in proposal.files if p.changed)
    assert all((engine.root / rel).read_text() == text for rel, text in files.items())


def test_rename_in_a_long_file(server_factory: Callable[..., ServerInfo], real_model: Path, tmp_path: Path) -> None:
    engine, proposal, files, spec = _run(server_factory, tmp_path, "textwrap_rename")
    _apply_and_pin(engine, proposal, files, spec, "textwrap_rename")


def test_rename_everywhere_across_two_files(server_factory: Callable[..., ServerInfo], real_model: Path,
                                           tmp_path: Path) -> None:
    """Three regions in two files. The 0.5B model renames ``_splitext`` in genericpath.py and in the
    module-level statement of posixpath.py, but in ``splitext`` it renames the function itself; asked
    again for just the line that calls ``genericpath._splitext``, it drops ``genericpath.``. The plan is
    refused after that one retry, and neither file is touched (the recorded replies are pinned)."""
    engine, proposal, files, _ = _run(server_factory, tmp_path, "splitext_everywhere")
    assert not proposal.ok and proposal.refusal_code == "plan_region"
    assert "posixpath.py function splitext" in str(proposal.refusal)
    (retry,) = proposal.retries
    assert retry.step.label == "function splitext" and retry.refused is not None
    assert [s.text is not None for s in proposal.steps] == [True, False, True]  # the other two regions were right
    assert all((engine.root / rel).read_text() == text for rel, text in files.items())
