"""Several defs deleted at once, and a def moved to another file, mechanically: no model request, one commit.

The bench's own tasks on their real files (glob.py, tomllib/_parser.py and tomllib/_re.py, shipped in
coder/bench/edits/files/), in every wording, each judged by the task's own check and compared byte for
byte with the file the check expects. No server: a model request would fail the test (``ScriptedModel``
holds no reply). Validation, the scope check, the splice, git and undo are the real ones.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from cli_helpers import make_repo as make_files

from coder.bench.edits.checks import SameAst
from coder.bench.edits.run import _prepare, make_repo
from coder.bench.edits.tasks import TASKS, source
from coder.edit.apply import gitops
from coder.edit.intent.read import read_instruction
from coder.edit.plan.across import _appended, _module_for, move_across
from coder.edit.plan.derive import derive
from coder.edit.proposal import EditRequest
from coder.edit.run import plan_run
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import PlanRequest, apply_plan
from coder.edit.source.splice import Replacement, splice
from coder.testing.replies import ScriptedModel

BY_NAME = {t.name: t for t in TASKS}
READS = {
    "glob-delete": "delete function glob0, function glob1 and the comment above (cut mechanically)",
    "xfile-toml-move": "move function is_unicode_scalar_value to the end of tomllib/_re.py and import it in "
                       "tomllib/_parser.py (cut and pasted mechanically)",
}


def _expected(task_name: str) -> dict[str, str]:
    """Each file of the task as its SameAst check expects it (the text the check compares trees with)."""
    task = BY_NAME[task_name]
    out = {}
    for rel, check in ((task.file, task.check), *task.also):
        assert isinstance(check, SameAst)
        out[rel] = check.expected(source(rel))
    return out


@pytest.mark.parametrize(("name", "wording"), [(n, w) for n in READS for w in range(3)])
def test_every_wording_plans_mechanically_and_passes_the_tasks_check(tmp_path: Path, name: str, wording: int) -> None:
    task = BY_NAME[name]
    repo, path = make_repo(tmp_path, task)
    engine = EditEngine(None, tmp_path, ctx=32768)
    prepared = _prepare(engine, task, "auto", path, task.wordings[wording])  # as the bench (and the TUI) sends it
    assert isinstance(prepared, PlanRequest), prepared.mode_reason
    assert prepared.plan.read == READS[name] and prepared.plan.requests == 0
    proposal = plan_run.run_plan(engine, prepared, ScriptedModel(engine, []))  # no reply: no request may be sent
    assert proposal.ok and proposal.scope.ok, proposal.refusal or proposal.scope.refusal()
    new = {f.rel: f.new for f in proposal.files}
    assert task.judge(task.originals(), new) == (True, "every file is right" if task.also else "same syntax tree")
    assert new == _expected(name)  # byte for byte: the blank lines too, as a person would leave them
    head = repo.head.commit.hexsha
    result = apply_plan(engine, proposal)
    assert repo.head.commit.parents[0].hexsha == head  # one commit, whatever the files
    assert sorted(repo.head.commit.stats.files) == sorted(new)
    undone = gitops.undo_last(repo)
    assert undone.sha == result.commit and all((tmp_path / rel).read_text() == source(rel) for rel in new)
    engine.close()


# --- several defs deleted, with or without the comment above ------------------------------------------

def test_a_delete_without_comment_words_keeps_the_comment_above() -> None:
    text = source("glob.py")
    for wording in ("Delete the functions `glob0` and `glob1`.", "delete glob0 and glob1"):
        spec = read_instruction(wording, {"glob.py": text}, home="glob.py")
        assert not spec.facts.with_comment
        plan = derive("glob.py", text, spec)
        assert plan is not None and plan.read == "delete function glob0, function glob1 (cut mechanically)"
        step, = plan.steps  # the two defs and the blank lines between: one cut
        assert step.how == "mechanical" and text.splitlines()[step.start - 1] == "def glob0(dirname, pattern):"
    # the comment stays, and stays a comment about the defs that follow it (as a single delete leaves it)
    assert "# Following functions are not public" in text.splitlines()[step.start - 3]


def test_a_comment_touching_the_first_def_is_the_comment_above() -> None:
    text = ("import os\n\n\n# legacy helpers\ndef old_a():\n    return 1\n\n\ndef old_b():\n    return 2\n\n\n"
            "def c():\n    return 3\n")
    spec = read_instruction("delete old_a and old_b and the comment above them", {"m.py": text}, home="m.py")
    plan = derive("m.py", text, spec)
    assert plan is not None and [s.how for s in plan.steps] == ["mechanical"]
    step = plan.steps[0]
    assert (step.start, step.end) == (4, 12)  # "# legacy helpers" to the blank lines after b


def test_a_comment_asked_for_but_not_there_is_not_cut_blindly() -> None:
    text = "def old_a():\n    return 1\n\n\ndef old_b():\n    return 2\n"
    spec = read_instruction("delete old_a and old_b and the comment line above them", {"m.py": text}, home="m.py")
    assert len(spec.targets) == 2
    assert spec.facts.with_comment and derive("m.py", text, spec) is None


def test_defs_at_different_levels_are_not_deleted_mechanically_together() -> None:
    text = "class C:\n    def m(self):\n        return 1\n\n\ndef f():\n    return 2\n"
    spec = read_instruction("delete the method C.m and the function f", {"m.py": text}, home="m.py")
    assert spec.action == "delete" and len(spec.targets) == 2
    assert derive("m.py", text, spec) is None


# --- a move to another file ---------------------------------------------------------------------------

def _move_repo(tmp_path: Path, a: str, b: str) -> EditEngine:
    make_files(tmp_path, {"pkg/a.py": a, "pkg/b.py": b, "pkg/__init__.py": ""})
    return EditEngine(None, tmp_path)


def test_a_move_whose_def_needs_a_name_the_destination_lacks_is_not_mechanical(tmp_path: Path) -> None:
    engine = _move_repo(tmp_path, "LIMIT = 3\n\n\ndef small(x):\n    return x < LIMIT\n\n\nprint(small(2))\n",
                        "def other():\n    return 0\n")
    request = plan_run.prepare(engine, tmp_path / "pkg/a.py", "move small to the end of pkg/b.py and import it")
    assert isinstance(request, EditRequest)  # the ordinary request, saying why
    assert "not moved mechanically: small uses LIMIT, which pkg/b.py does not define or import" in request.mode_reason


def test_a_real_def_using_a_name_of_its_own_file_stays_a_model_request() -> None:
    parser, re_text = source("tomllib/_parser.py"), source("tomllib/_re.py")
    spec = read_instruction("Move the function `suffixed_err` from tomllib/_parser.py to the end of tomllib/_re.py",
                            {"tomllib/_parser.py": parser}, home="tomllib/_parser.py")
    why = move_across("tomllib/_parser.py", parser, spec, "tomllib/_re.py", re_text)
    # its annotation's Pos counts: a deferred annotation is still read by typing.get_type_hints
    assert why == "not moved mechanically: suffixed_err uses Pos, TOMLDecodeError, which tomllib/_re.py does not " \
                  "define or import"


def test_a_move_after_a_def_of_the_other_file_with_a_new_import_line(tmp_path: Path) -> None:
    a = '"""A."""\n\nimport os\n\n\ndef half(x: int) -> int:\n    return x // 2\n\n\nprint(half(os.getpid()))\n'
    b = "def one():\n    return 1\n\n\ndef two():\n    return 2\n"
    engine = _move_repo(tmp_path, a, b)
    prepared = plan_run.prepare(engine, tmp_path / "pkg/a.py", "move `half` to pkg/b.py, right after `one`")
    assert isinstance(prepared, PlanRequest) and prepared.plan.requests == 0
    assert prepared.plan.read == "move function half after one in pkg/b.py (cut and pasted mechanically)"
    assert prepared.plan.notes == ("pkg/a.py still uses half: it imports it from pkg/b.py",)
    proposal = plan_run.run_plan(engine, prepared, ScriptedModel(engine, []))
    new = {f.rel: f.new for f in proposal.files}
    assert proposal.ok, proposal.refusal
    assert new["pkg/b.py"] == "def one():\n    return 1\n\n\ndef half(x: int) -> int:\n    return x // 2\n\n\n" \
                              "def two():\n    return 2\n"
    # a.py has no relative import: the absolute module, dotted from the repository's root
    assert new["pkg/a.py"] == '"""A."""\n\nimport os\nfrom pkg.b import half\n\n\nprint(half(os.getpid()))\n'


def test_a_destination_that_imports_the_source_is_not_a_mechanical_move(tmp_path: Path) -> None:
    a = "def f():\n    return 1\n\n\ndef g():\n    return f()\n"
    b = "from .a import g\n\n\ndef h():\n    return g()\n"
    text = {"pkg/a.py": a}
    spec = read_instruction("move f to the end of pkg/b.py", text, home="pkg/a.py")
    assert spec.dest is not None and not spec.dest.imports
    assert move_across("pkg/a.py", a, spec, "pkg/b.py", b) == \
        "not moved mechanically: pkg/b.py imports pkg/a.py, so importing f back would be circular"


def test_a_same_file_move_is_not_read_as_a_move_to_another_file() -> None:
    text = source("shlex.py")
    spec = read_instruction("Move quote so that it comes right after split", {"shlex.py": text}, home="shlex.py")
    assert spec.dest is None and spec.anchor is not None
    spec = read_instruction("move quote from shlex.py to the end of other.py", {"shlex.py": text}, home="shlex.py")
    assert spec.dest is not None and spec.dest.rel == "other.py"
    spec = read_instruction("move quote from other.py to here", {"shlex.py": text}, home="shlex.py")
    assert spec.dest is None  # from another file: not a move of this file's def


@pytest.mark.parametrize(("stmt", "want"), [
    ("from .b import x, y\n", "from .b import x, y, f\n"),
    ("from .b import (x, y)\n", "from .b import (x, y, f)\n"),
    ("from .b import (\n    x,\n    y,\n)\n", "from .b import (\n    x,\n    y,\n    f,\n)\n"),
    ("from .b import (\n    x,\n    y\n)\n", "from .b import (\n    x,\n    y,\n    f\n)\n"),
    ("from .b import (\n    x,\n    y)\n", "from .b import (\n    x,\n    y,\n    f)\n"),
])
def test_the_name_is_the_last_of_the_import_as_it_is_written(stmt: str, want: str) -> None:
    node = ast.parse(stmt).body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _appended(stmt, node, "f") == want


def test_the_reading_of_a_move_to_another_file_in_every_wording() -> None:
    task = BY_NAME["xfile-toml-move"]
    text = source(task.file)
    for wording in task.wordings:
        spec = read_instruction(wording, {task.file: text}, home=task.file)
        assert spec.dest is not None and (spec.dest.rel, spec.dest.where, spec.dest.name, spec.dest.imports) == (
            "tomllib/_re.py", "end", None, True), wording
        assert spec.anchor is None and spec.facts.moves  # the edited file has no anchor: its def leaves whole
        assert "_re" not in spec.facts.ticked  # `from ._re import (...)`: the module is no name asked for


def test_an_edit_of_the_source_alone_finds_the_destination_by_its_path(tmp_path: Path) -> None:
    """``coder edit tomllib/_parser.py -m ...`` with no context files: the destination is read from the spec."""
    task = BY_NAME["xfile-toml-move"]
    _, path = make_repo(tmp_path, task)
    engine = EditEngine(None, tmp_path, ctx=32768)
    prepared = plan_run.prepare(engine, path, task.wordings[1])
    assert isinstance(prepared, PlanRequest) and prepared.plan.files == ["tomllib/_parser.py", "tomllib/_re.py"]
    proposal = plan_run.run_plan(engine, prepared, ScriptedModel(engine, []))
    apply_plan(engine, proposal)
    assert {rel: (tmp_path / rel).read_text() for rel in _expected(task.name)} == _expected(task.name)
    engine.close()


@pytest.mark.parametrize(("source", "text", "dest", "want"), [
    ("pkg/a.py", "from .c import x\n", "pkg/b.py", ".b"),  # the source imports its neighbours relatively
    ("a.py", "import os\n", "b.py", "b"),  # scripts side by side
    ("src/pkg/a.py", "from pkg.c import x\n", "src/pkg/b.py", "pkg.b"),  # the package root its imports use
    ("pkg/a.py", "import os\n", "lib/b.py", "lib.b"),  # nothing to go by: dotted from the repository's root
])
def test_a_new_import_spells_the_module_as_the_source_would(source: str, text: str, dest: str, want: str) -> None:
    assert _module_for(source, dest, ast.parse(text)) == want


def test_the_last_def_moves_with_its_comment_and_the_import_takes_its_place() -> None:
    a = "import os\n\n\n# doubles a number\ndef twice(x):\n    return 2 * x\n"
    spec = read_instruction("move twice to the end of pkg/b.py and import it in pkg/a.py", {"pkg/a.py": a},
                            home="pkg/a.py")
    plan = move_across("pkg/a.py", a, spec, "pkg/b.py", "X = 1\n")
    assert not isinstance(plan, str), plan
    new = {rel: splice(text, [Replacement(s.start, s.end, s.text or "") for s in plan.steps if s.rel == rel])
           for rel, text in (("pkg/a.py", a), ("pkg/b.py", "X = 1\n"))}
    assert new == {"pkg/a.py": "import os\nfrom pkg.b import twice\n",
                   "pkg/b.py": "X = 1\n\n\n# doubles a number\ndef twice(x):\n    return 2 * x\n"}
