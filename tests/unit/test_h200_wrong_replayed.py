"""The edits applied wrong on the H200 (2026-12-02, docs/benchmarks/2026-12-02-h200-reading.md), replayed.

Each recorded diff is applied to its task's original, then the result check of today's code reads the
instruction as coder does and judges it. The ones listed in REFUSED_NOW are refused by the rules added
after that run (an asked parameter missing or unused; a def that now falls off its end or ignores a
parameter; a fix that changes only a docstring or an expression's spelling; a local rename or hints
request that reaches past its targets or stops halfway; an attribute its value cannot have; a None
default used unhandled). The rest are wrong behaviour no static rule here sees, or a reading that
names the wrong targets, and stay counted as wrong until a new run says otherwise.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.checks.result import check_result
from coder.edit.intent.read import read_instruction
from coder.edit.plan import derive

DATA = Path(__file__).parents[1] / "data" / "edit" / "h200_wrong" / "wrong_2026-12-02.json"
ROWS = json.loads(DATA.read_text())
BY_NAME = {t.name: t for t in (*TASKS, *HELDOUT)}
REFUSED_NOW = {
    ("shlex-param", 2), ("textwrap-param", 1), ("textwrap-param", 2),  # an asked parameter missing or unused
    ("getopt-default", 1), ("getopt-default", 2),  # gnu_getopt lost its final return
    ("bug-textwrap-indent", 1),  # indent stopped using predicate
    ("bug-glob-hidden", 1), ("bug-quopri-unhex", 1),  # only a docstring, or ord(b'A') -> ord('A')
    ("reprlib-rename-local", 1), ("string-rename-local", 0),  # the local rename reached another def
    # "(repr_dict keeps its own pieces)": an aside, no target, so the rename is held to _repr_iterable
    ("reprlib-rename-local", 0),
    ("reprlib-method", 1),  # self.__init__.maxother: a method has no such attribute
    ("quopri-param", 0), ("quopri-param", 1),  # HEX[i].upper(): an item of bytes is an int
    ("bug-string-capwords", 1),  # sep.join with sep=None unhandled
    ("tabnanny-hints-all", 0),  # -> None left out on __init__ alone
}
CONFINED_NOW = {("reprlib-rename-local", 0), ("reprlib-rename-local", 1), ("string-rename-local", 0)}


def _applied(original: str, rel: str, diff: str, tmp: Path) -> str:
    target = tmp / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(original)
    subprocess.run(["git", "apply", "--unsafe-paths", "-"], input=diff, text=True, cwd=tmp, check=True)
    return target.read_text()


def test_the_record_holds_the_25_wrong_edits_of_that_run() -> None:
    assert len(ROWS) == 25 and {r["task"] for r in ROWS} <= set(BY_NAME)


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['task']}-{r['wording']}" for r in ROWS])
def test_each_recorded_wrong_edit_against_todays_checks(row: dict[str, object], tmp_path: Path) -> None:
    task = BY_NAME[str(row["task"])]
    rel = str(row["file"])
    original = task.originals()[task.file]
    new = _applied(original, rel, str(row["diff"]), tmp_path)
    assert new != original
    spec = read_instruction(str(row["instruction"]), {rel: original}, home=rel)
    refused = check_result(rel, new, old=original, spec=spec)
    key = (str(row["task"]), int(str(row["wording"])))
    assert (refused is not None) == (key in REFUSED_NOW), (key, refused)
    if key in CONFINED_NOW:  # the plan no longer reaches the other def, so this diff cannot come back
        plan = derive.derive(rel, original, spec)
        assert plan is not None and plan.kind == "rename" and len(plan.steps) == 1, plan
