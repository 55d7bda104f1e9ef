"""Every task check of ``coder bench --edits`` passes on a correct result and fails on wrong ones.

The correct results are written here by hand from the shipped stdlib files (the edit a
careful person would make); the wrong ones are the untouched file, the correct result with
one unrelated change (a model's drift), and for renames a rename that misses a use.
"""

from __future__ import annotations

import ast

import pytest
from bench_edit_refs import correct_result

from coder.bench.edits.checks import Renamed, replace_once
from coder.bench.edits.tasks import TASKS, Task, select, source


def test_suite_size_and_files() -> None:
    assert len(TASKS) >= 24
    files = {t.file for t in TASKS}
    assert len(files) >= 6
    for f in files:
        assert 100 <= source(f).count("\n") <= 600, f
    kinds = {t.kind for t in TASKS}
    assert {"rename", "docstring", "param", "comment", "constant", "hints", "delete", "move"} <= kinds
    assert len({t.name for t in TASKS}) == len(TASKS)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_check_passes_on_correct_result(task: Task) -> None:
    src = source(task.file)
    new = correct_result(task)
    assert new != src
    ast.parse(new)
    ok, why = task.check(src, new)
    assert ok, why


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_check_fails_on_untouched_file(task: Task) -> None:
    src = source(task.file)
    assert not task.check(src, src)[0]


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_check_fails_on_drift(task: Task) -> None:
    """The correct result plus one unrelated change (a statement, or a changed number) is wrong."""
    src = source(task.file)
    new = correct_result(task)
    assert not task.check(src, new + "\n_drift = 1\n")[0]
    lines = new.splitlines(keepends=True)
    # change the last `return X` of the file into `return X or None`: still parses, different code
    i = max(n for n, line in enumerate(lines) if line.strip().startswith("return ") and line.rstrip()[-1] not in
            "([{,\\")
    lines[i] = lines[i].rstrip("\n") + " or None\n"
    drifted = "".join(lines)
    ast.parse(drifted)
    assert not task.check(src, drifted)[0]


def test_check_fails_on_syntax_error() -> None:
    for task in TASKS:
        assert not task.check(source(task.file), correct_result(task) + "\ndef (:\n")[0], task.name


@pytest.mark.parametrize("task", [t for t in TASKS if t.kind == "rename"], ids=lambda t: t.name)
def test_rename_check_fails_on_partial_rename(task: Task) -> None:
    src = source(task.file)
    assert isinstance(task.check, Renamed)
    new = correct_result(task)
    # put the old name back at its last use only
    cut = new.rindex(task.check.new)
    partial = new[:cut] + task.check.old + new[cut + len(task.check.new):]
    assert not task.check(src, partial)[0]


def test_comment_check_rejects_code_change_with_comment() -> None:
    task = next(t for t in TASKS if t.name == "colorsys-comment")
    src = source(task.file)
    new = replace_once(src, (("def _v(m1, m2, hue):\n    hue = hue % 1.0",
                              "def _v(m1, m2, hue):\n    # wrap\n    hue = hue % 2.0"),))
    assert not task.check(src, new)[0]


def test_hints_check_rejects_an_annotation_that_is_never_imported() -> None:
    task = next(t for t in TASKS if t.name == "colorsys-hints")
    src = source(task.file)
    new = src.replace("def rgb_to_hsv(r, g, b):", "def rgb_to_hsv(r: float, g: float, b: float) -> Tuple[float, ...]:")
    ok, why = task.check(src, new)
    assert not ok and "Tuple" in why
    imported = "from typing import Tuple\n" + new
    assert task.check(src, imported)[0]


def test_select_by_name_and_kind() -> None:
    assert [t.name for t in select("shlex-r")] == ["shlex-rename"]
    assert all(t.kind == "rename" for t in select(kinds="rename"))
    assert len(select()) == len(TASKS)


@pytest.mark.parametrize(("argv", "message"), [
    (["--mode", "fast"], "--mode takes full, region and/or auto"),
    (["--tasks", "no-such-task"], "no task matches --tasks/--kinds"),
    (["--profiles", "a,b"], "--edits measures one server"),
])
def test_bad_options_are_one_clear_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert main(["bench", "--edits", *argv]) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
