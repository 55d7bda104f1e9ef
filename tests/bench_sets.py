"""What the tests of the written-apart task sets (held-out, fresh, fresh2 to fresh10) share: a correct result
of a task, the plain words of a wording, a module's upstream tests run as a bug-fix task's repository runs them, and
the assertions each set makes on its tasks and files."""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from coder.bench.edits import upstream
from coder.bench.edits.checks import Exact, Renamed, SameAst, rename_names, replace_once
from coder.bench.edits.taskdef import Task, source

Edits = tuple[tuple[str, str], ...]


def expected_result(task: Task, solutions: Mapping[str, Edits]) -> str:
    """A correct result of ``task``: the check's own expected text, the renamed file, the original of a bug copy,
    or the hand-written solution in ``solutions``."""
    old = source(task.file)
    if isinstance(task.check, Exact | SameAst):
        return task.check.expected(old)
    if isinstance(task.check, Renamed):
        return rename_names(old, task.check.old, task.check.new)
    if "/bugs/" in task.file:
        return source(task.file.replace("bugs/", ""))
    return replace_once(old, solutions[task.name])


def plain_words(text: str) -> str:
    """A wording's words, lower case, without punctuation: two wordings must differ in these."""
    return " ".join(re.findall(r"[a-z0-9_]+", text.lower()))


def run_upstream(tmp_path: Path, rel: str, text: str) -> subprocess.CompletedProcess[str]:
    """The upstream tests of ``text`` written as ``rel`` in ``tmp_path``, run as a bug-fix task's repository
    runs them."""
    (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / rel).write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-m", "coder.bench.edits.upstream", rel], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


# The assertions every written-apart set makes on its own tasks (the third to tenth sets' tests use them; the
# older sets' tests spell them out).

def assert_two_wordings(task: Task) -> None:
    """Two wordings that differ in their plain words, with no backticks (as users type them)."""
    assert len(task.wordings) == 2
    assert plain_words(task.wordings[0]) != plain_words(task.wordings[1])
    assert not any("`" in w for w in task.wordings)


def assert_judged(task: Task, correct: str, wrong: tuple[Edits, ...] = ()) -> None:
    """The check passes on ``correct`` and fails on the original and on each ``wrong`` result (edits on it)."""
    old = source(task.file)
    ok, why = task.check(old, correct)
    assert ok, why
    for text in (old, *(replace_once(old, edits) for edits in wrong)):
        ok, why = task.check(old, text)
        assert not ok, why


def assert_one_line_bug(task: Task) -> None:
    """The bug copy differs from its original (the same path without ``bugs/``) in one line."""
    bug, fixed = source(task.file).splitlines(), source(task.file.replace("bugs/", "")).splitlines()
    changed = [x for x in difflib.unified_diff(fixed, bug, n=0, lineterm="")
               if x[:1] in "+-" and not x.startswith(("+++", "---"))]
    assert len(changed) == 2, (task.name, changed)


def assert_shipped_as_installed(folder: str, mods: tuple[str, ...]) -> None:
    """``files/FOLDER/MOD.py`` and the upstream tests of each module are pyenv's CPython 3.11.7 files, byte for
    byte (skipped where that Python is not installed)."""
    import pytest

    lib = Path("/root/.pyenv/versions/3.11.7/lib/python3.11")
    if not lib.is_dir():
        pytest.skip("no pyenv CPython 3.11.7 here")
    for mod in mods:
        assert source(f"{folder}/{mod}.py").encode() == (lib / f"{mod}.py").read_bytes()
        test = upstream.upstream_tests(mod)
        assert upstream._shipped(f"{test}.py") == (lib / "test" / f"{test}.py").read_bytes()


def assert_listed(tasks: tuple[Task, ...], mods: tuple[str, ...]) -> None:
    """Every file of ``tasks`` has its row (line count, licence) in ``files/SOURCES.md``, each bug its row in a
    bug table, and each module is named among the shipped upstream tests."""
    listed = (Path(upstream.__file__).parent / "files" / "SOURCES.md").read_text(encoding="utf-8")
    for rel in {f for t in tasks for f in t.files}:
        row = next((line for line in listed.splitlines() if line.startswith(f"| {rel} |")), None)
        assert row is not None and row.endswith("| PSF-2.0 |"), rel
        assert f"| {len(source(rel).splitlines())} |" in row, row
    for task in (t for t in tasks if t.kind == "bugfix"):
        assert f"| {task.file} | `{task.symbol}` |" in listed, task.name
    for mod in mods:
        assert mod in listed.split("## `upstream/`")[1]


def assert_upstream_catches_the_bug(tmp_path: Path, folder: str, mod: str) -> None:
    """The upstream tests of ``mod`` pass on ``files/FOLDER/MOD.py`` and fail on its bug copy."""
    assert upstream.module_of(f"{folder}/{mod}.py") == mod and upstream.module_of(f"{folder}/bugs/{mod}.py") == mod
    assert upstream.test_command("bugfix", f"{folder}/bugs/{mod}.py") is not None
    good = run_upstream(tmp_path, f"{folder}/{mod}.py", source(f"{folder}/{mod}.py"))
    assert good.returncode == 0 and "passed" in good.stdout, good.stdout + good.stderr[-2000:]
    bad = run_upstream(tmp_path, f"{folder}/bugs/{mod}.py", source(f"{folder}/bugs/{mod}.py"))
    assert bad.returncode == 1 and "FAILED" in bad.stdout, bad.stdout


def assert_apart(tasks: tuple[Task, ...], folder: str, mods: tuple[str, ...], earlier: tuple[Task, ...]) -> None:
    """25 tasks on ``folder/``'s files, none of which an ``earlier`` task uses: five on each module of ``mods``, one
    of them its bug; no task's name is the start of another's (``--tasks`` picks by prefix)."""
    assert len(tasks) == 25 and len({t.name for t in tasks}) == len(tasks)
    others = {Path(f).name for t in earlier for f in t.files}
    for task in tasks:
        assert task.file.startswith(f"{folder}/") and Path(task.file).name not in others and not task.also
    bugs = [t for t in tasks if t.kind == "bugfix"]
    assert len(bugs) == 5 and {Path(t.file).stem for t in bugs} == set(mods)
    for mod in mods:
        mine = [t.kind for t in tasks if Path(t.file).stem == mod]
        assert len(mine) == 5 and len(set(mine)) == 5, (mod, mine)  # no module gets two tasks of one kind
    assert not [a.name for a in tasks for b in tasks if a is not b and b.name.startswith(a.name)]


def assert_listed_by_the_cli(main: Callable[[list[str]], int], read: Callable[[], str], name: str,
                             tasks: tuple[Task, ...], earlier: str) -> None:
    """``coder bench --edits --list --json --set NAME`` lists ``tasks`` with their wordings, ``--kinds`` and
    ``--wordings`` pick among them, and the set ``earlier`` lists none of them (``read``: the captured output)."""
    by_name = {t.name: t for t in tasks}
    assert main(["bench", "--edits", "--list", "--json", "--set", name]) == 0
    rows = json.loads(read())
    assert [r["id"] for r in rows] == [t.name for t in tasks]
    assert all(r["wordings"] == list(by_name[r["id"]].wordings) for r in rows)
    assert main(["bench", "--edits", "--list", "--json", "--set", name, "--kinds", "bugfix", "--wordings", "1"]) == 0
    rows = json.loads(read())
    assert {r["id"] for r in rows} == {t.name for t in tasks if t.kind == "bugfix"}
    assert all(r["wordings"] == [by_name[r["id"]].wordings[1]] for r in rows)
    assert main(["bench", "--edits", "--list", "--json", "--set", earlier]) == 0
    assert f"{name}/" not in read()
