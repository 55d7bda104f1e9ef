"""Every task check of ``coder bench --edits`` passes on a correct result and fails on wrong ones.

The correct results are written here by hand from the shipped stdlib files (the edit a
careful person would make); the wrong ones are the untouched file, the correct result with
one unrelated change (a model's drift), and for renames a rename that misses a use.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from bench_edit_refs import correct_result, correct_results

from coder.bench.edits.behaviour import Behaves, evaluate
from coder.bench.edits.checks import Renamed, find_def, replace_once
from coder.bench.edits.run import Outcome, make_repo, on_disk, settle
from coder.bench.edits.tasks import TASKS, Task, select, source

BY_NAME = {t.name: t for t in TASKS}


def test_suite_size_and_files() -> None:
    assert len(TASKS) >= 60
    files = {f for t in TASKS for f in t.files}
    assert len(files) >= 12
    for f in files:
        assert 100 <= source(f).count("\n") <= 800, f
    kinds = {t.kind for t in TASKS}
    assert {"rename", "docstring", "param", "comment", "constant", "hints", "delete", "move", "callers",
            "default", "method", "extract", "fix", "class", "cross-file"} <= kinds
    assert sum(1 for t in TASKS if t.cross_file) >= 6
    long_renames = [t for t in TASKS if t.kind == "rename" and source(t.file).count("\n") >= 200]
    assert len(long_renames) >= 5
    assert len({t.name for t in TASKS}) == len(TASKS)
    assert all(t.kind == "cross-file" for t in TASKS if t.cross_file)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_check_passes_on_correct_result(task: Task) -> None:
    """The hand-made reference (tests/bench_edit_refs*.py) of every task passes its check, every file."""
    old, new = task.originals(), correct_results(task)
    for rel in task.files:
        assert new[rel] != old[rel], rel
        ast.parse(new[rel])
    ok, why = task.judge(old, new)
    assert ok, why


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_check_fails_on_untouched_file(task: Task) -> None:
    old = task.originals()
    assert not task.judge(old, old)[0]
    assert not task.check(old[task.file], old[task.file])[0]


@pytest.mark.parametrize("task", [t for t in TASKS if t.cross_file], ids=lambda t: t.name)
def test_cross_file_check_fails_when_one_file_is_left_as_it_was(task: Task) -> None:
    old, new = task.originals(), correct_results(task)
    for rel in task.files:
        assert not task.judge(old, {**new, rel: old[rel]})[0], rel
    assert not task.judge(old, {task.file: new[task.file]})[0]  # the other file missing


def test_default_changed_without_handling_none_is_wrong() -> None:
    """The wrong edit seen in review: the default became None and the body still calls list(longopts)."""
    task = BY_NAME["getopt-default"]
    src = source(task.file)
    new = src.replace("longopts = []):", "longopts = None):")
    ok, why = task.check(src, new)
    assert not ok and "TypeError" in why


def test_behaviour_check_rejects_a_change_outside_the_named_function() -> None:
    task = BY_NAME["glob-fix"]
    src = source(task.file)
    new = correct_result(task).replace("    return pattern == '**'", "    return pattern in ('**', '***')")
    ok, why = task.check(src, new)
    assert not ok and "outside _ishidden" in why


def test_behaviour_runs_the_module_apart_and_reports_a_broken_import() -> None:
    assert evaluate("x = 1\n", ["m.x + 1", "m.y"]) == ["2", "raised AttributeError"]
    broken = evaluate("import no_such_module_here\n", ["1"])
    assert isinstance(broken, str) and broken.startswith("does not import")


def test_callers_check_needs_every_call_updated() -> None:
    task = BY_NAME["glob-callers"]
    src, new = source(task.file), correct_result(task)
    one_missed = new.replace("    names = _listdir(dirname, dir_fd, dironly, include_hidden=include_hidden)\n"
                             "    for x in names:",
                             "    names = _listdir(dirname, dir_fd, dironly)\n    for x in names:")
    ok, why = task.check(src, one_missed)
    assert not ok and "does not pass" in why


def test_class_wide_checks_need_every_method() -> None:
    for name in ("graphlib-class-docstrings", "netrc-class-hints"):
        task = BY_NAME[name]
        src = source(task.file)
        edits = __import__("bench_edit_refs_grown").GROWN_HAND[name]
        assert not task.check(src, replace_once(src, edits[:-1]))[0], name  # the last method left out


def _named_rows(text: str, names: tuple[str, ...]) -> set[int]:
    """The 1-based lines of the definitions ``names`` in ``text``."""
    tree = ast.parse(text)
    nodes = [find_def(tree, n) for n in names]
    return {row for node in nodes if node is not None for row in range(node.lineno, (node.end_lineno or 0) + 1)}


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_check_fails_on_drift(task: Task) -> None:
    """The correct result plus one unrelated change (a statement, or a changed number) is wrong."""
    src = source(task.file)
    new = correct_result(task)
    assert not task.check(src, new + "\n_drift = 1\n")[0]
    if task.kind in ("fix", "bugfix", "method", "default", "extract"):  # outside the named code, as below
        assert not task.check(src, new.replace("\n", "\n_drift = 1\n", 1))[0]
    lines = new.splitlines(keepends=True)
    # change the last `return X` of the file into `return X or None`: still parses, different code. A behaviour
    # check allows any rewrite of the code it names that behaves, so for it the line is outside that code.
    named = _named_rows(new, task.check.names) if isinstance(task.check, Behaves) else set()
    i = max(n for n, line in enumerate(lines) if line.strip().startswith("return ") and line.rstrip()[-1] not in
            "([{,\\" and n + 1 not in named)
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


def test_a_cross_file_task_is_planned_over_both_of_its_files(tmp_path: Path) -> None:
    """The bench sends a cross-file task as the TUI sends two context files: one plan over both."""
    from coder.bench.edits.run import _prepare
    from coder.edit.run.engine import EditEngine
    from coder.edit.run.plan_run import PlanRequest

    task = BY_NAME["xfile-wsgiref-function"]
    _, path = make_repo(tmp_path, task)
    request = _prepare(EditEngine(None, tmp_path, ctx=32768), task, "auto", path)
    assert isinstance(request, PlanRequest), request
    assert set(request.plan.files) == {task.file, *(rel for rel, _ in task.also)}


def test_a_cross_file_edit_applied_to_one_file_only_is_wrong(tmp_path: Path) -> None:
    """The --yes path on a real repo holding both files: the renamed definition alone breaks the importer."""
    from coder.edit.run.engine import EditEngine

    task = BY_NAME["xfile-wsgiref-function"]
    _, path = make_repo(tmp_path, task)
    new = correct_results(task)[task.file]
    engine = EditEngine(None, tmp_path, ctx=32768)
    request = engine.prepare(path, task.instruction, mode="full")
    proposal = engine.evaluate(request, "```python\n" + new + "```\n", finish_reason="stop")
    out = Outcome(task.name, task.file, task.kind, "full", "skipped", "")
    settle(engine, proposal, task, out, guard=False)
    assert out.outcome == "wrong" and out.why.startswith("wsgiref/handlers.py:")
    assert on_disk(tmp_path, task)[task.file] == new


def test_report_counts_per_kind_and_the_plot_is_written(tmp_path: Path) -> None:
    from rich.console import Console

    from coder.bench.edits import report
    from coder.bench.plots import plot_edits

    def row(task: Task, outcome: str, s: float, run: str) -> Outcome:
        return Outcome(task.name, task.file, task.kind, run, outcome, "", mode="region", plan="2 regions",
                       enter_to_diff_s=s)

    picked = [BY_NAME[n] for n in ("glob-fix", "netrc-fix", "getopt-rename", "xfile-toml-move")]
    runs = {"auto": [row(t, o, 0.5, "auto") for t, o in zip(picked, ("correct", "wrong", "refused", "refused"),
                                                                strict=True)],
            "aider-whole": [row(t, "correct", 6.0, "aider-whole") for t in picked]}
    doc = report.build(runs, target="t", server={}, guard=True, argv=[])
    kinds = doc["runs"]["auto"]["summary"]["by_kind"]  # type: ignore[index]
    assert kinds["fix"]["correct"] == 1 and kinds["fix"]["wrong"] == 1 and kinds["fix"]["plans"] == ["2 regions"]
    assert kinds["cross-file"]["refused"] == 1
    console = Console(width=160, record=True)
    report.render_kinds(runs, console)
    text = console.export_text()
    assert "cross-file" in text and "aider-whole" in text
    png = plot_edits(runs, tmp_path / "edits.png", "edits")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_shipped_file_is_listed_with_its_licence() -> None:
    from importlib import resources

    listed = (resources.files("coder.bench.edits") / "files" / "SOURCES.md").read_text(encoding="utf-8")
    for rel in {f for t in TASKS for f in t.files}:
        row = next((line for line in listed.splitlines() if line.startswith(f"| {rel} |")), None)
        assert row is not None, rel
        assert ("PSF-2.0" in row) or ("Apache-2.0 OR BSD-2-Clause" in row), row


def test_a_full_task_name_selects_that_task_alone() -> None:
    """--tasks takes name prefixes: no name may be the prefix of another (the GPU script selects by name)."""
    for task in TASKS:
        assert [t.name for t in select(task.name)] == [task.name]


def test_shards_cover_the_suite_once(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.bench_edits import _shard

    parts = [_shard(f"{k}/3", list(TASKS)) for k in (1, 2, 3)]
    assert sorted(t.name for p in parts for t in p) == sorted(t.name for t in TASKS)
    from coder.cli.main import main

    assert main(["bench", "--edits", "--shard", "4/3"]) != 0
    assert "--shard takes K/N" in capsys.readouterr().err


def test_merge_joins_shards_and_rows_of_other_tools(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from coder.bench.edits import report
    from coder.cli.main import main

    a, b = TASKS[0], TASKS[1]
    one = report.build({"auto": [Outcome(a.name, a.file, a.kind, "auto", "correct", "", enter_to_diff_s=0.5)]},
                       target="gpu", server={}, guard=True, argv=[])
    two = report.build({"auto": [Outcome(b.name, b.file, b.kind, "auto", "refused", "", enter_to_diff_s=0.7)],
                        "aider-diff": [Outcome(b.name, b.file, b.kind, "aider-diff", "wrong", "")]},
                       target="gpu", server={}, guard=True, argv=[])
    paths = [report.write_json(doc, tmp_path / "in", f"part{i}") for i, doc in enumerate((one, two))]
    runs, merged_doc = report.merge(paths)
    assert merged_doc["merged_from"] == [str(p) for p in paths]
    assert [r.task for r in runs["auto"]] == [a.name, b.name] and len(runs["aider-diff"]) == 1
    assert main(["bench", "--edits", "--merge", *map(str, paths), "--out", str(tmp_path / "out"), "--no-plots"]) == 0
    merged = next((tmp_path / "out").glob("edits-*.json"))
    assert '"merged_from"' in merged.read_text()
    (tmp_path / "bad.json").write_text("{}")
    assert main(["bench", "--edits", "--merge", str(tmp_path / "bad.json")]) != 0
    assert "not an --edits result" in capsys.readouterr().err
