"""Several replies' defs called on probe inputs the original file shows (coder.edit.checks.probes).

The candidates are the H200's greedy replies of run 9 (``tests/data/edit/agree/h200_rows.json``: each row's applied
diff, verbatim), applied to the task's original file: the two wrong ``is_mixed`` of tabnanny-method's wordings,
the wrong ``indent_level`` fix of bug-tabnanny-level, and correct new methods of sched-method and shlex-method.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from coder.bench.edits.tasks import TASKS
from coder.bench.edits.tasks_heldout import HELDOUT
from coder.edit.apply.files import FileSnapshot, read_snapshot
from coder.edit.checks.probes import Disagreement, compare, pool, targets, worldly
from coder.edit.intent.read import read_instruction
from coder.edit.run.agree import named

DATA = Path(__file__).parents[1] / "data" / "edit" / "agree"
ROWS = json.loads((DATA / "h200_rows.json").read_text())["rows"]
TASK = {t.name: t for t in (*TASKS, *HELDOUT)}


def _row(task: str, wording: int) -> dict[str, str]:
    return next(r for r in ROWS if (r["task"], r["wording"]) == (task, wording))


def _tree(tmp_path: Path, task: str) -> FileSnapshot:
    t = TASK[task]
    for rel, text in t.originals().items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return read_snapshot(tmp_path, tmp_path / t.file)


def _applied(tmp_path: Path, task: str, wording: int) -> str:
    """The file as the H200's reply left it: the row's diff applied to a fresh copy of the original."""
    where = tmp_path / f"{task}-{wording}"
    snap = _tree(where, task)
    subprocess.run(["patch", "-p1", "-s"], input=_row(task, wording)["diff"], text=True, cwd=where, check=True)
    return (where / snap.rel).read_text()


def _compared(tmp_path: Path, task: str, wordings: tuple[int, ...]) -> Disagreement | str:
    snap = _tree(tmp_path / "original", task)
    spec = read_instruction(_row(task, wordings[0])["instruction"], {snap.rel: snap.text}, home=snap.rel)
    return compare(snap, [_applied(tmp_path, task, w) for w in wordings], named(spec))


def test_two_wrong_is_mixed_replies_disagree_on_an_indentation_the_class_builds(tmp_path: Path) -> None:
    found = _compared(tmp_path, "tabnanny-method", (0, 1))
    assert isinstance(found, Disagreement) and found.call is not None
    assert found.call.startswith("Whitespace(") and found.call.endswith(".is_mixed()")
    assert set(found.answers) == {"True", "False"}
    assert found.line().startswith("the model's answers disagree on Whitespace(")


def test_a_reply_agrees_with_itself(tmp_path: Path) -> None:
    found = _compared(tmp_path, "tabnanny-method", (0, 0))
    assert isinstance(found, Disagreement) and found.call is None
    assert found.compared > 10  # strings of the class's characters and one letter


@pytest.mark.parametrize(("task", "wordings"), [("sched-method", (0, 2)), ("shlex-method", (0, 1))])
def test_classes_that_reach_the_world_are_not_probed(tmp_path: Path, task: str, wordings: tuple[int, ...]) -> None:
    assert TASK[task].check(TASK[task].originals()[TASK[task].file], _applied(tmp_path, task, wordings[0]))[0]
    found = _compared(tmp_path, task, wordings)
    # sched's scheduler reaches threading, shlex's lexer sys and io: not called on made-up inputs at all
    assert found == "no def whose inputs the original file shows"


def test_the_wrong_indent_level_fix_changes_what_the_original_returns(tmp_path: Path) -> None:
    """The fix is compared with the original itself here (as a candidate): the probes reach the changed loop."""
    snap = _tree(tmp_path / "original", "bug-tabnanny-level")
    found = compare(snap, [_applied(tmp_path, "bug-tabnanny-level", 1), snap.text])
    assert isinstance(found, Disagreement) and found.call is not None
    assert found.call.startswith("Whitespace(") and ".indent_level(" in found.call


def test_the_targets_are_the_defs_any_candidate_adds_or_changes(tmp_path: Path) -> None:
    snap = _tree(tmp_path / "original", "tabnanny-method")
    new = _applied(tmp_path, "tabnanny-method", 0)
    (target,) = targets(snap.text, [new, new])
    assert (target.cls, target.meth, target.new) == ("Whitespace", "is_mixed", True)
    assert targets(snap.text, [snap.text]) == []  # nothing changed, nothing named: nothing to call
    assert compare(snap, [snap.text, snap.text]) == "no def to compare"


def test_the_pool_builds_strings_of_the_literals_characters() -> None:
    import ast

    values = pool([ast.parse("class W:\n    S, T = ' \\t'\n    limit = 8\n")])
    assert "'\\tx '" in values and "''" in values and "8" in values and "' \\t'" in values
    assert all(len(ast.literal_eval(v)) <= 3 for v in values if v.startswith("'"))


def test_a_def_that_may_touch_files_is_never_called_on_made_up_inputs() -> None:
    import ast

    tree = ast.parse("import shutil\nfrom os import remove\n\ndef clean(p):\n    return _drop(p)\n\n"
                     "def _drop(p):\n    remove(p)\n\ndef pure(p):\n    return p * 2\n\n"
                     "class C:\n    def m(self, p):\n        return self.w(p)\n    def w(self, p):\n"
                     "        shutil.rmtree(p)\n")
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert worldly(tree, [defs["clean"]]) and worldly(tree, [defs["m"]])  # through the helper it calls
    assert not worldly(tree, [defs["pure"]])
    assert "'/'" not in pool([ast.parse("SEP = '/'\nUP = '..'\nDOT = '.'\n")])
    assert "'..'" not in pool([ast.parse("DOT = '.'\n")]) and "'.'" in pool([ast.parse("DOT = '.'\n")])
