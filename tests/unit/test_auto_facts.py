"""Auto mode chooses on facts: where a new method goes, and what the server's costs really are.

Tried as a new user would, on lib2to3's fixer_base.py (CPython 3.11.7, 186 lines, two classes;
tests/data/edit/fixer_base.py.txt): "add a method should_skip to class BaseFix", where
ConditionalFix already has should_skip, was matched to ConditionalFix.should_skip, and the
"region" spanned both classes. And the prefill cost was "not measured yet: default" although
the backend's start-up probe had just run a request whose timings say what it costs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from cli_helpers import make_repo
from spec_of import find_target

from coder.backends.runtime.handle import BackendHandle
from coder.backends.runtime.server import ServerInfo
from coder.edit.plan.auto import Candidate, CostModel, Target, choose
from coder.edit.run.engine import EditEngine

FIXER_BASE = (Path(__file__).parents[1] / "data" / "edit" / "fixer_base.py.txt").read_text()
ADD = "Add a method `should_skip` to class `BaseFix` that returns False for every node."
NEW_METHOD = "\n    def should_skip(self, node):\n        return False\n"


def _class_lines(text: str) -> dict[str, tuple[int, int]]:
    tree = ast.parse(text)
    return {c.name: (c.lineno, c.end_lineno or c.lineno) for c in tree.body if isinstance(c, ast.ClassDef)}


@pytest.mark.parametrize("instruction", [ADD, "add a method should_skip to the BaseFix class",
                                         "Add a new method should_skip in class BaseFix."])
def test_a_method_the_instruction_adds_to_a_class_targets_that_class(instruction: str) -> None:
    base, cond = _class_lines(FIXER_BASE)["BaseFix"], _class_lines(FIXER_BASE)["ConditionalFix"]
    target = find_target("fixer_base.py", FIXER_BASE, instruction)
    assert target.region is not None, target.why
    # after BaseFix's last method (finish_tree), inside BaseFix, nowhere near ConditionalFix
    assert base[0] < target.region.start and target.region.end == base[1] < cond[0]
    assert FIXER_BASE.splitlines()[target.region.start - 1].strip().startswith("def finish_tree(")
    assert "adds should_skip to class BaseFix" in target.why


def test_an_existing_method_of_the_named_class_is_its_own_target() -> None:
    target = find_target("fixer_base.py", FIXER_BASE, "add a method start_tree to class ConditionalFix")
    assert target.region is not None and target.region.label == "function ConditionalFix.start_tree"


def test_auto_mode_edits_the_end_of_the_class_and_leaves_the_other_class_alone(tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {"fixer_base.py": FIXER_BASE})
    engine = EditEngine(None, tmp_path / "r", ctx=16384)
    request = engine.prepare(tmp_path / "r" / "fixer_base.py", ADD, mode="auto")
    assert request.mode == "region" and request.region is not None
    assert request.region.label == "the end of class BaseFix (lines 159-166)"
    reply = "```python\n" + request.prompt.target + NEW_METHOD + "```\n"
    proposal = engine.evaluate(request, reply, finish_reason="stop")
    assert proposal.ok and proposal.scope is not None and proposal.scope.ok, proposal.refusal
    tree = ast.parse(proposal.new)
    methods = {c.name: [f.name for f in c.body if isinstance(f, ast.FunctionDef)]
               for c in tree.body if isinstance(c, ast.ClassDef)}
    assert methods["BaseFix"][-1] == "should_skip" and methods["ConditionalFix"] == ["start_tree", "should_skip"]
    assert proposal.new.replace(NEW_METHOD, "", 1) == FIXER_BASE


def test_probe_timings_give_prefill_and_decode_costs() -> None:
    from coder.backends.engines.llamacpp_probe import probe_costs  # new: imported here so the rest runs without it

    timings = {"prompt_n": 96, "prompt_ms": 4176.0, "predicted_n": 48, "predicted_ms": 2087.0}
    prefill, decode = probe_costs(timings)
    assert prefill == pytest.approx(0.0435) and decode == pytest.approx(23.0, rel=1e-3)
    assert probe_costs({"prompt_n": 4, "prompt_ms": 10.0, "predicted_n": 1, "predicted_ms": 5.0}) == (None, None)


def test_the_prediction_uses_and_shows_the_measured_costs() -> None:
    cost = CostModel({"full": 60.0, "region": 45.0})
    cost.adopt_probe(0.0435, 23.0)
    full = cost.predict("full", "full", 1600, 0, 1400)
    assert full.prefill_s == pytest.approx(69.6) and full.decode_tps == pytest.approx(23.0)
    assert full.describe() == ("full ~130.5s (1600 uncached prompt tok × 43.5 ms [start-up probe] = 69.6s + "
                               "1400 out tok at 23 tok/s [start-up probe] = 60.9s)")
    region = cost.predict("region", "region", 300, 0, 100)
    assert region.decode_tps == pytest.approx(23.0 * 45 / 60)  # the prior's ratio to a full rewrite
    mode, reason, _ = choose(Candidate("full", "full", "a", 1600, 1400), Candidate("region", "region", "b", 300, 100),
                             Target(None, "function f"), cost, lambda text, n: 0)
    assert mode == "region" and "not measured" not in reason and "[start-up probe]" in reason
    cost.observe_timings({"prompt_n": 2000, "prompt_ms": 10_000.0})  # an edit's own timings win
    assert cost.prefill_source == "edits" and cost.prefill_s_per_token == pytest.approx(0.005)
    cost.adopt_probe(0.04, 20.0)  # a later probe does not override what edits measured
    assert cost.prefill_s_per_token == pytest.approx(0.005)


def test_the_engine_takes_the_costs_the_backend_measured_at_start(tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {"fixer_base.py": FIXER_BASE})
    info = ServerInfo("http://127.0.0.1:9", prefill_s_per_token=0.0435, decode_tps=23.0)
    engine = EditEngine(BackendHandle(info), tmp_path / "r", ctx=16384)
    request = engine.prepare(tmp_path / "r" / "fixer_base.py", "Add type hints to `BaseFix.match`.", mode="auto")
    assert "not measured yet" not in request.mode_reason
    assert "× 43.5 ms [start-up probe]" in request.mode_reason and "[start-up probe]" in request.mode_reason
    plain = EditEngine(None, tmp_path / "r", ctx=16384)
    unmeasured = plain.prepare(tmp_path / "r" / "fixer_base.py", "Add type hints to `BaseFix.match`.", mode="auto")
    assert "(prefill cost not measured yet: default)" in unmeasured.mode_reason
