"""Real edits by a real coding model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M) on real files, on the CPU.

The files are frozen copies of CPython 3.11.7's ``fnmatch.py``, ``shlex.py`` and ``colorsys.py``
(``tests/data/real_edits/``); nobody here wrote them. Each case gets a fresh server of its own
(greedy replies on the CPU repeat for a fixed server and request sequence: the verification probe,
then the edit), so an earlier test cannot change the reply.

* two region edits the model makes correctly are applied, and the committed bytes are pinned
  (an AST comparison also checks that nothing but the asked-for change was made);
* one real reply that drifts (asked for a docstring, it also adds a statement that reads two names
  before they are assigned) is one of the recorded real replies (the reply depends on the CPU's
  floating-point path; each recording names where it was made), and the result check refuses it.

``CODER_RECORD_REAL=1`` re-records the expected files from the live replies instead of asserting.
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
from coder.edit.proposal import EditProposal
from coder.edit.run.engine import EditEngine

pytestmark = pytest.mark.server

DATA = Path(__file__).parents[1] / "data" / "real_edits"
RECORD = os.environ.get("CODER_RECORD_REAL") == "1"


@pytest.fixture(scope="module")
def real_model() -> Path:
    """The 0.5B model, fetched once (scripts/test fetches it first, with a progress bar)."""
    from coder.models.catalog import MODELS
    from coder.models.store import fetch_model

    return fetch_model(MODELS[QWEN_0_5B])


Case = dict[str, object]


def _edit(server_factory: Callable[..., ServerInfo], tmp_path: Path,
          case: str) -> tuple[EditEngine, EditProposal, Path, Case]:
    """Run the case's region edit on a fresh 0.5B server; the engine, proposal, file and case."""
    spec = json.loads((DATA / f"{case}.json").read_text())
    info = server_factory(model=QWEN_0_5B, ctx=4096)
    root = tmp_path / "repo"
    make_repo(root, {str(spec["file"]): (DATA / f"{spec['file']}.txt").read_text()})
    engine = EditEngine(BackendHandle(info), root)
    request = engine.prepare(root / str(spec["file"]), str(spec["instruction"]), mode="region",
                             symbol=str(spec["symbol"]))
    proposal = list(engine.run(request))[-1]
    assert isinstance(proposal, EditProposal)
    if RECORD:
        (DATA / f"{case}.reply.txt").write_text(proposal.reply, encoding="utf-8")
    return engine, proposal, root / str(spec["file"]), spec


def _without_docstring(source: str, name: str) -> str:
    """The module's AST dump with ``name``'s docstring removed (what a docstring edit may not change)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name and ast.get_docstring(node) is not None:
            node.body = node.body[1:]
    return ast.dump(tree)


def _split(source: str, name: str) -> tuple[str, str]:
    """AST dumps of the module without function ``name``, and of that function alone."""
    tree = ast.parse(source)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    tree.body.remove(func)
    return ast.dump(tree), ast.dump(func)


def _apply_and_pin(engine: EditEngine, proposal: EditProposal, path: Path, case: str) -> str:
    """Apply (commit) an accepted proposal; the committed text must be the recorded one."""
    assert proposal.ok and proposal.changed, proposal.refusal
    repo = git.Repo(path.parent)
    head = repo.head.commit.hexsha
    result = engine.apply(proposal)
    new = path.read_text()
    assert result.commit == repo.head.commit.hexsha != head
    assert repo.head.commit.tree[path.name].data_stream.read().decode() == new
    expected = DATA / f"{case}.expected.txt"
    if RECORD:
        expected.write_text(new)
    assert new == expected.read_text()  # byte for byte what the pinned build and model produce
    return new


def test_docstring_added_to_compile_pattern(server_factory: Callable[..., ServerInfo], real_model: Path,
                                            tmp_path: Path) -> None:
    engine, proposal, path, spec = _edit(server_factory, tmp_path, "fnmatch_docstring")
    original = (DATA / "fnmatch.py.txt").read_text()
    new = _apply_and_pin(engine, proposal, path, "fnmatch_docstring")
    func = next(n for n in ast.walk(ast.parse(new)) if isinstance(n, ast.FunctionDef) and n.name == spec["symbol"])
    assert ast.get_docstring(func) == spec["docstring"]
    assert _without_docstring(new, str(spec["symbol"])) == ast.dump(ast.parse(original))  # nothing else changed


def test_local_renamed_in_print_tokens(server_factory: Callable[..., ServerInfo], real_model: Path,
                                       tmp_path: Path) -> None:
    engine, proposal, path, spec = _edit(server_factory, tmp_path, "shlex_rename")
    original = (DATA / "shlex.py.txt").read_text()
    new = _apply_and_pin(engine, proposal, path, "shlex_rename")
    old_name, new_name = str(spec["old"]), str(spec["new"])
    symbol = str(spec["symbol"])
    before, after = _split(original, symbol), _split(new, symbol)
    assert before[0] == after[0]  # the rest of the module is untouched
    assert after[1].replace(f"id='{new_name}'", f"id='{old_name}'") == before[1]  # only the local renamed
    assert f"id='{old_name}'" not in after[1] and f"id='{new_name}'" in after[1]


# The 0.5B model's greedy reply depends on the CPU's floating-point path: each real reply is kept,
# named by where it was recorded (the first on the CI machine of its day, the second on an AMD EPYC
# with AVX-512, the third on an AMD EPYC without AVX-512, both native builds). All drift the same way: they
# read ``s`` and ``v`` before assigning them; the third also holds the docstring asked for.
DRIFT_REPLIES = {"colorsys_drift.reply.txt": "s (line 137), v (line 138)",
                 "colorsys_drift.reply-epyc-avx512.txt": "s (line 126), v (line 127)",
                 "colorsys_drift.reply-epyc-avx2.txt": "s (line 13), v (line 14)"}


def test_recorded_drift_reply(server_factory: Callable[..., ServerInfo], real_model: Path,
                              tmp_path: Path) -> None:
    """Asked only for a docstring, the model adds a statement nobody asked for (and, on some CPUs, a docstring).

    The new first statement reads ``s`` and ``v`` before they are assigned: every call would raise.

    The reply is complete, one block, and parses. Where it holds the docstring, that alone is put on the
    original and the statement is left out (``coder/edit/checks/graft.py``); where it holds only the statement,
    the result check refuses it (pyflakes: the new file reads ``s`` and ``v`` where nothing defines them), so
    it never reaches the review.
    """
    _, proposal, path, spec = _edit(server_factory, tmp_path, "colorsys_drift")
    recorded = {name: (DATA / name).read_text() for name in DRIFT_REPLIES}
    # the live reply is one of the recorded real ones (a new CPU path may need one more recording)
    matches = [name for name, text in recorded.items() if text == proposal.reply]
    assert matches, f"a reply not recorded yet (CODER_RECORD_REAL=1 records it):\n{proposal.reply}"
    original = (DATA / "colorsys.py.txt").read_text()
    assert path.read_text() == original  # nothing written before apply
    if '"""' in proposal.reply:  # the docstring asked for is there: put on the original, the drift left out
        assert proposal.ok and proposal.scope is not None and proposal.scope.ok
        # hls_to_rgb has an `if s == 0.0:` of its own: the drift's is not added to rgb_to_hsv
        assert proposal.new.count("if s == 0.0:") == original.count("if s == 0.0:") and proposal.scope.dropped_note()
        assert "Convert RGB values to HSV" in proposal.new
    else:  # nothing asked for in the reply, only the drift: refused
        assert proposal.ok is spec["ok_today"] is False and proposal.refusal_code == spec["refused_today"]
        assert proposal.refusal is not None and DRIFT_REPLIES[matches[0]] in proposal.refusal
    assert path.read_text() == original
