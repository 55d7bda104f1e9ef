"""The placement check (coder.edit.checks.placement) on real files: a change the instruction places must be there.

The wrong edit it exists for: the 1.5B model, asked in region mode for a comment *above* a function,
put it inside the function after the docstring, and it was applied. Rebuilt here on the shipped
copies of ``sched.py`` and ``colorsys.py``; each case also has the right placement, which must pass.
Specs are built directly (the reading is another module's) and carry the user's words only for the
prompt: the check gives the same verdict whatever the wording.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo
from spec_helpers import region_reply, symbol

from coder.bench.edits.tasks import source
from coder.edit.checks.placement import misplaced
from coder.edit.checks.result import check_result
from coder.edit.intent.read import read_instruction
from coder.edit.intent.spec import Action, Anchor, ChangeSpec, Where
from coder.edit.run.engine import EditEngine

SCHED = source("sched.py")
COLORSYS = source("colorsys.py")
EMPTY = '''    def empty(self):
        """Check whether the queue is empty."""
        with self._lock:
            return not self._queue
'''
COMMENT = "    # the lock: another thread may be adding events\n"
ABOVE = ("Add a comment above the method `scheduler.empty` saying why it takes the lock.",
         "put a comment above empty in scheduler explaining the lock",
         "comment on top of scheduler's empty(): why the lock")


def _spec(action: Action, where: Where, qualname: str | None = None, text: str = SCHED, rel: str = "sched.py",
          instruction: str = "", **fields: object) -> ChangeSpec:
    anchor = Anchor(where, symbol(rel, text, qualname) if qualname else None)
    return ChangeSpec(instruction or f"{action} {where} {qualname}", action, anchor=anchor, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("instruction", ABOVE)
def test_a_comment_asked_above_a_method_that_went_inside_is_refused(instruction: str) -> None:
    spec = read_instruction(instruction, {"sched.py": SCHED}, home="sched.py")  # the user's words, read as coder does
    assert spec.anchor == Anchor("above", symbol("sched.py", SCHED, "scheduler.empty")), spec.anchor
    inside = SCHED.replace('        """Check whether the queue is empty."""\n',
                           '        """Check whether the queue is empty."""\n' + "    " + COMMENT, 1)
    assert misplaced(SCHED, inside, spec) == ("the change was asked above scheduler.empty, but it is at line 100 "
                                              "('# the lock: another thread may be adding events')")
    refused = check_result("sched.py", inside, old=SCHED, spec=spec)
    assert refused is not None and refused.code == "placement"
    above = SCHED.replace(EMPTY, COMMENT + EMPTY, 1)
    assert misplaced(SCHED, above, spec) is None
    assert check_result("sched.py", above, old=SCHED, spec=spec) is None
    both = above.replace("        with self._lock:\n            return not", "        " + COMMENT.strip()
                         + "\n        with self._lock:\n            return not", 1)
    assert "one is also at line 101" in (misplaced(SCHED, both, spec) or "")  # asked once, written twice


def test_the_engine_refuses_the_region_reply_with_the_comment_inside_and_retries_with_the_place(
        tmp_path: Path) -> None:
    make_repo(tmp_path / "r", {"sched.py": SCHED})
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / "sched.py", ABOVE[1], mode="region", symbol="scheduler.empty")
    body = request.prompt.target
    inside = body.replace('"""\n', '"""\n    ' + COMMENT, 1)
    first = engine.evaluate(request, region_reply(request, inside), finish_reason="stop")
    assert not first.ok and first.refusal_code == "placement", first.refusal
    again = engine.retry_request(first)
    assert again is not None and again.retry_note.endswith("Put it above scheduler.empty, nowhere else.")
    second = engine.evaluate(again, region_reply(again, COMMENT + body), finish_reason="stop")
    assert second.ok, second.refusal
    assert second.new == SCHED.replace(EMPTY, COMMENT + EMPTY, 1)


def test_top_of_file_after_imports_and_end() -> None:
    top = _spec("comment", "top", text=COLORSYS, rel="colorsys.py")
    licence = "# SPDX-License-Identifier: PSF-2.0\n"
    assert misplaced(COLORSYS, licence + COLORSYS, top) is None
    at_end = COLORSYS + licence
    assert "asked at the top of the file, but it is at line" in (misplaced(COLORSYS, at_end, top) or "")

    imports = _spec("change", "after_imports")
    line = "_DEFAULT_PRIORITY = 1\n"
    after = SCHED.replace("from time import monotonic as _time\n", "from time import monotonic as _time\n" + line, 1)
    assert misplaced(SCHED, after, imports) is None
    assert "after the imports" in (misplaced(SCHED, SCHED.replace("_sentinel = object()\n", line + "_sentinel = "
                                                                  "object()\n", 1), imports) or "")

    end = _spec("add_function", "end", text=COLORSYS, rel="colorsys.py", new_names=("clamp",))
    helper = "def clamp(x):\n    return max(0.0, min(1.0, x))\n"
    assert misplaced(COLORSYS, COLORSYS + "\n" + helper, end) is None
    early = COLORSYS.replace("def rgb_to_yiq(", helper + "\ndef rgb_to_yiq(", 1)
    assert misplaced(COLORSYS, early, end) == "clamp is at line 40, not at the end of the file as the instruction asks"


def _functions(text: str) -> dict[str, str]:
    """Each top-level def of colorsys.py by name: its text up to the next one."""
    parts = text.split("\ndef ")
    return {p.split("(", 1)[0]: "def " + p for p in parts[1:]}


def test_a_moved_function_must_land_next_to_its_anchor() -> None:
    funcs = _functions(COLORSYS)
    v = funcs["_v"]
    without = COLORSYS.replace("\n" + v, "\n", 1)
    spec = _spec("move", "after", "hsv_to_rgb", text=COLORSYS, rel="colorsys.py",
                 targets=(symbol("colorsys.py", COLORSYS, "_v"),))
    moved = without.rstrip("\n") + "\n\n" + v.rstrip("\n") + "\n"
    assert misplaced(COLORSYS, moved, spec) is None
    before_it = without.replace("def hsv_to_rgb(", v.rstrip("\n") + "\n\ndef hsv_to_rgb(", 1)
    assert "_v is at line" in (misplaced(COLORSYS, before_it, spec) or "")
    assert "_v is at line" in (misplaced(COLORSYS, COLORSYS.replace("\n# HSV", "\n\n# HSV", 1), spec) or "")
    above = _spec("move", "above", "rgb_to_hls", text=COLORSYS, rel="colorsys.py",
                  targets=(symbol("colorsys.py", COLORSYS, "_v"),))
    assert misplaced(COLORSYS, before_it, above) is not None
    to_hls = without.replace("def rgb_to_hls(", v.rstrip("\n") + "\n\ndef rgb_to_hls(", 1)
    assert misplaced(COLORSYS, to_hls, above) is None


def test_a_new_method_asked_after_another_goes_right_after_it() -> None:
    owner = symbol("sched.py", SCHED, "scheduler")
    spec = _spec("add_method", "after", "scheduler.empty", new_names=("pending",), owner=owner)
    method = "\n    def pending(self):\n        return len(self._queue)\n"
    assert misplaced(SCHED, SCHED.replace(EMPTY, EMPTY + method, 1), spec) is None
    first = SCHED.replace("    def __init__(", method.lstrip("\n") + "\n    def __init__(", 1)
    assert misplaced(SCHED, first, spec) == ("scheduler.pending is at line 53, not after scheduler.empty "
                                             "as the instruction asks")


def test_no_anchor_no_verdict() -> None:
    spec = ChangeSpec("Add a comment to empty", "comment", targets=(symbol("sched.py", SCHED, "scheduler.empty"),))
    inside = SCHED.replace("        with self._lock:\n            return not", "    " + COMMENT
                           + "        with self._lock:\n            return not", 1)
    assert misplaced(SCHED, inside, spec) is None
    gone = _spec("comment", "above", "scheduler.empty")
    assert misplaced(SCHED, SCHED.replace(EMPTY, "", 1), gone) is None  # the anchor is gone: others judge that


def test_above_the_first_method_of_a_class_is_anywhere_in_the_gap_under_the_class_line() -> None:
    spec = _spec("comment", "above", "scheduler.__init__")
    head = "class scheduler:\n\n    def __init__("
    assert head in SCHED
    for placed in ("class scheduler:\n" + COMMENT + "\n    def __init__(",  # before the blank line
                   "class scheduler:\n\n" + COMMENT + "    def __init__("):  # right above the def
        assert misplaced(SCHED, SCHED.replace(head, placed, 1), spec) is None, placed
    inside = SCHED.replace("        self._queue = []\n", "    " + COMMENT + "        self._queue = []\n", 1)
    assert "the change was asked above scheduler.__init__, but it is at line 56" in (
        misplaced(SCHED, inside, spec) or "")
