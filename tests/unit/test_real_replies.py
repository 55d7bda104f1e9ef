"""Replies recorded from a real coding model (tests/data/real_edits), replayed through validation and the
scope check offline.

The live versions are in tests/server/test_real_model_server.py; here a validator change that would
alter or refuse an accepted reply, or change the verdict on the recorded drift, fails without a server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import make_repo
from spec_of import check_scope

from coder.edit.checks.reply import parse_fenced
from coder.edit.proposal import EditProposal
from coder.edit.run.engine import EditEngine

DATA = Path(__file__).parents[1] / "data" / "real_edits"
CASES = sorted(p.stem for p in DATA.glob("*.json"))


def _replay(case: str, tmp_path: Path) -> tuple[EditProposal, dict[str, object]]:
    spec = json.loads((DATA / f"{case}.json").read_text())
    root = tmp_path / "repo"
    make_repo(root, {spec["file"]: (DATA / f"{spec['file']}.txt").read_text()})
    engine = EditEngine(None, root, ctx=32768)
    request = engine.prepare(root / spec["file"], spec["instruction"], mode="region", symbol=spec["symbol"])
    reply = (DATA / f"{case}.reply.txt").read_text()
    return engine.evaluate(request, reply, finish_reason="stop"), spec


def _body(reply: str) -> str:
    fenced = parse_fenced(reply, "```")
    assert fenced is not None
    return fenced.body


@pytest.mark.parametrize("case", CASES)
def test_recorded_reply_gets_its_verdict(case: str, tmp_path: Path) -> None:
    proposal, spec = _replay(case, tmp_path)
    expected = DATA / f"{case}.expected.txt"
    if expected.exists():  # an accepted, correct edit: exactly the committed bytes, nothing flagged
        assert proposal.ok and proposal.new == expected.read_text(), proposal.refusal
        assert proposal.scope is not None and proposal.scope.ok, proposal.scope
    else:  # the drift: complete and parses, but it reads s and v before they are assigned; the docstring kept
        # only the docstring asked for is put on the original (checks/graft.py); the two lines are left out, said
        # (spec's ok_today / refused_today is the verdict on the drift alone: the AMD EPYC reply, with no docstring)
        assert proposal.ok and proposal.refusal_code is None and spec["refused_today"] == "undefined"
        assert proposal.scope is not None and proposal.scope.ok
        assert "colorsys.py:126 (added)" in proposal.scope.dropped_note()
        added = [line[1:] for line in proposal.diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
        assert added[0] == '    """' and added[-1] == '    """' and not any("s == 0.0" in line for line in added)
        assert proposal.new.replace("\n".join(added) + "\n", "", 1) == proposal.old
        scope = check_scope(proposal.old, proposal.request.before + _body(proposal.reply) + proposal.request.after,
                            str(spec["instruction"]), rel=str(spec["file"]), region=proposal.request.region)
        assert not scope.ok and ("rgb_to_hsv" in scope.refusal() or "colorsys.py" in scope.refusal())


def test_the_drift_changes_code_it_was_not_asked_to() -> None:
    original = (DATA / "colorsys.py.txt").read_text()
    reply = (DATA / "colorsys_drift.reply.txt").read_text()
    lines = original.splitlines()
    start = lines.index("def rgb_to_hsv(r, g, b):")
    body = lines[start + 1:lines.index("def hsv_to_rgb(h, s, v):", start) - 1]
    after_docstring = reply.split('"""')[-1].splitlines()[1:-1]  # the docstring was asked for
    # two lines nobody asked for in front of the unchanged body: they read s and v before either is assigned
    assert after_docstring == ["    if s == 0.0:", "        return 0.0, 0.0, v", *body]


def test_cases_are_recorded() -> None:
    assert len(CASES) >= 3 and all((DATA / f"{c}.reply.txt").exists() for c in CASES)


def test_the_other_cpus_drift_reads_s_and_v_before_assigning_them() -> None:
    """The reply recorded on an AMD EPYC (AVX-512, native) adds no docstring but the same two lines."""
    from spec_of import check_result

    original = (DATA / "colorsys.py.txt").read_text()
    reply = (DATA / "colorsys_drift.reply-epyc-avx512.txt").read_text()
    body = reply.split("\n", 1)[1].rsplit("```", 1)[0]  # the fenced function
    start = original.index("def rgb_to_hsv(r, g, b):")
    end = original.index("def hsv_to_rgb(h, s, v):")
    new = original[:start] + body + "\n\n" + original[end:]
    assert body.splitlines()[1:3] == ["    if s == 0.0:", "        return 0.0, 0.0, v"]
    refused = check_result("colorsys.py", new, old=original)
    assert refused is not None and "s (line 126), v (line 127)" in str(refused)
