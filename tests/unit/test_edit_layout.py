"""A hints-, docstring- or comment-only reply that also re-spaced code gets the original lines (source/layout.py)."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import make_repo

from coder.bench.edits.tasks import source
from coder.edit.run.engine import EditEngine
from coder.edit.source.layout import keep_layout

DATA = Path(__file__).resolve().parents[1] / "data" / "edit" / "h200_run3"
HINTS = ("Add type hints to the function `rgb_to_hsv`: r, g and b are floats and it returns "
         "tuple[float, float, float].")


def test_the_h200s_re_spaced_hints_reply_becomes_the_hints_alone(tmp_path: Path) -> None:
    # recorded on the H200 (run of 2026-12-03): the signature annotated, and `maxc-minc` re-spaced on 8 lines;
    # the guard refused it ("only type hints"); with the layout given back it is exactly the edit asked for
    make_repo(tmp_path / "r", {"colorsys.py": source("colorsys.py")})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / "colorsys.py", HINTS, mode="region", symbol="rgb_to_hsv")
    proposal = engine.evaluate(request, (DATA / "colorsys_hints_w0.reply.txt").read_text(), finish_reason="stop")
    assert proposal.ok and proposal.scope is not None and proposal.scope.ok, proposal.scope and proposal.scope.refusal()
    changed = [line for line in proposal.diff.splitlines() if line.startswith(("+", "-")) and line[1:2] not in "+-"]
    assert changed == ["-def rgb_to_hsv(r, g, b):",
                       "+def rgb_to_hsv(r: float, g: float, b: float) -> tuple[float, float, float]:"]


def test_a_code_change_keeps_its_own_layout() -> None:
    old = "def f(a, b):\n    return a-b\n"
    assert keep_layout(old, "def f(a, b):\n    return a - b\n") == old  # tokens the same: the original
    assert keep_layout(old, "def f(a, b):\n    return a + b\n") == "def f(a, b):\n    return a + b\n"
    # a string's inner spaces are tokens: never "the same line"
    assert keep_layout("x = 'a b'\n", "x = 'ab'\n") == "x = 'ab'\n"
    # indentation is part of the line: a re-indented line is a change
    assert keep_layout("if x:\n    y()\n", "if x:\n        y()\n") == "if x:\n        y()\n"
