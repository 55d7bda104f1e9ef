"""A hints-, docstring- or comment-only reply that also re-spaced code gets the original lines (source/layout.py)."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import make_repo

from coder.bench.edits.tasks import source
from coder.edit.run.engine import EditEngine
from coder.edit.source.layout import keep_layout

DATA = Path(__file__).resolve().parents[1] / "data" / "edit" / "h200_1203"
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


def test_a_hints_reply_that_left_init_bare_gets_its_none_return(tmp_path: Path) -> None:
    # recorded on the H200 (netrc-class-hints, wording 0): __str__ got `-> str`, __init__ no return annotation,
    # refused as partial hints in both wordings; __init__ returns None, so that one is filled in
    from coder.bench.edits.tasks import TASKS

    task = next(t for t in TASKS if t.name == "netrc-class-hints")
    make_repo(tmp_path / "r", {"netrc.py": source("netrc.py")})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / "netrc.py", task.wordings[0], mode="region", symbol=task.symbol)
    proposal = engine.evaluate(request, (DATA / "netrc_class_hints_w0.reply.txt").read_text(), finish_reason="stop")
    assert proposal.ok and proposal.scope is not None and proposal.scope.ok, proposal.refusal
    assert "+    def __init__(self, msg: str, filename: str = None, lineno: int = None) -> None:" in proposal.diff
    judged = task.judge({"netrc.py": source("netrc.py")}, {"netrc.py": proposal.new})
    assert judged == (True, "annotated, code unchanged")


def test_only_init_is_filled_in() -> None:
    from coder.edit.checks.hints import complete_init_returns
    from coder.edit.intent.read import read_instruction

    old = "class A:\n    def __init__(self, x):\n        self.x = x\n\n    def get(self, y):\n        return y\n"
    spec = read_instruction("add type hints to every method of A", {"a.py": old}, home="a.py")
    bare_get = old.replace("(self, x):", "(self, x: int) -> None:").replace("(self, y):", "(self, y: int):")
    assert complete_init_returns(old, bare_get, spec) == bare_get  # get's return is the model's to say
    bare_init = old.replace("(self, x):", "(self,\n                 x: int):")
    bare_init = bare_init.replace("(self, y):", "(self, y: int) -> int:")
    assert complete_init_returns(old, bare_init, spec) == bare_init.replace("x: int):", "x: int) -> None:")


def test_an_extraction_that_deletes_a_caller_is_refused() -> None:
    # applied on the H200 (colorsys-extract, wording 0, after a retry): rgb_to_hsv deleted, its body put into
    # rgb_to_hls, which called _hue; the extraction rule judged only the callers still there
    import subprocess
    import tempfile

    from coder.bench.edits.tasks import TASKS
    from coder.edit.checks.result import check_result
    from coder.edit.intent.read import read_instruction

    task = next(t for t in TASKS if t.name == "colorsys-extract")
    old = source("colorsys.py")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "colorsys.py").write_text(old)
        subprocess.run(["git", "apply", str(DATA / "colorsys_extract_w0.diff")], cwd=tmp, check=True)
        wrong = (Path(tmp) / "colorsys.py").read_text()
    spec = read_instruction(task.wordings[0], {"colorsys.py": old}, home="colorsys.py")
    refused = check_result("colorsys.py", wrong, old=old, spec=spec)
    assert refused is not None and refused.code == "extract_uncalled"
    assert refused.reason == "the edit removes rgb_to_hsv, which should call the new function _hue"


def test_a_comment_asked_in_the_body_may_not_land_above_the_def() -> None:
    # applied on the H200 (colorsys-comment, wording 2): "as the first line in the body of _v", put above the def
    from coder.bench.edits.tasks import TASKS
    from coder.edit.checks.result import check_result
    from coder.edit.intent.read import read_instruction

    task = next(t for t in TASKS if t.name == "colorsys-comment")
    old = source("colorsys.py")
    above = old.replace("def _v(m1, m2, hue):", "# HSV: Hue, Saturation, Value\ndef _v(m1, m2, hue):", 1)
    inside = old.replace("def _v(m1, m2, hue):\n", "def _v(m1, m2, hue):\n    # the hue is wrapped into [0, 1)\n", 1)
    for wording in task.wordings:
        spec = read_instruction(wording, {"colorsys.py": old}, home="colorsys.py")
        refused = check_result("colorsys.py", above, old=old, spec=spec)
        assert refused is not None and refused.code == "placement", wording
        assert check_result("colorsys.py", inside, old=old, spec=spec) is None
