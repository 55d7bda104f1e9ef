"""The scope-aware exact rename on real files (frozen CPython 3.11.7 modules and the bench's files).

An unambiguous rename is done without the model: the plan is run with an asker that fails the
test on any request. An ambiguous one keeps the model path (its regions have requests). No model
reply is used here at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import make_repo

from coder.bench.edits.checks import Renamed
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks import TASKS
from coder.edit.plan import derive as plan
from coder.edit.plan.rename_scope import ambiguity
from coder.edit.run import plan_run
from coder.edit.run.engine import EditEngine
from coder.edit.run.plan_result import apply_plan
from coder.edit.source.splice import rename_tokens
from coder.testing.replies import no_request

DATA = Path(__file__).parents[1] / "data" / "plans"
TEXTWRAP = (DATA / "textwrap.py.txt").read_text()
GENERICPATH = (DATA / "genericpath.py.txt").read_text()
POSIXPATH = (DATA / "posixpath.py.txt").read_text()


def _mechanical(root: Path, rel: str, instruction: str) -> plan_run.PlanRequest:
    prepared = plan_run.prepare(EditEngine(None, root), root / rel, instruction)
    assert isinstance(prepared, plan_run.PlanRequest) and prepared.plan.kind == "rename"
    assert prepared.plan.requests == 0 and not prepared.requests, prepared.plan.notes
    return prepared


@pytest.mark.repo_files({"textwrap.py": TEXTWRAP})
@pytest.mark.parametrize(("old", "new"), [
    ("_munge_whitespace", "_normalize_whitespace"),  # a method, used as self._munge_whitespace
    ("dedent", "remove_common_indent"),  # a module-level function in a 480-line file
    ("TextWrapper", "LineWrapper"),  # a class, used at module level and inside functions
    ("_whitespace_only_re", "_blank_line_re"),  # a module variable read inside a function
    ("margin", "common_margin"),  # a local variable of dedent
    ("predicate", "keep_line"),  # a parameter of indent (and its nested closure's free variable)
])
def test_an_unambiguous_rename_is_exact_and_sends_no_request(tmp_repo: Path, old: str, new: str) -> None:
    prepared = _mechanical(tmp_repo, "textwrap.py", f"rename `{old}` to `{new}`")
    proposal = plan_run.run_plan(EditEngine(None, tmp_repo), prepared, no_request)
    assert proposal.ok and proposal.scope.ok, proposal.refusal or proposal.scope.refusal()
    assert proposal.files[0].new == rename_tokens(TEXTWRAP, [(old, new)])
    assert all(s.done_by("rename") == plan.RENAMED_BY_SCOPE for s in prepared.plan.steps)
    assert plan.RENAMED_BY_SCOPE in prepared.reason
    said = proposal.review_lines()
    assert all(f"{s.step.label}: {plan.RENAMED_BY_SCOPE}" in "\n".join(said) for s in proposal.steps)
    steps = proposal.to_json()["steps"]
    assert isinstance(steps, list) and {s["done_by"] for s in steps} == {plan.RENAMED_BY_SCOPE}


@pytest.mark.repo_files({"genericpath.py": GENERICPATH, "posixpath.py": POSIXPATH})
def test_a_rename_everywhere_follows_module_attribute_uses_into_other_files(tmp_repo: Path) -> None:
    """posixpath uses ``genericpath._splitext`` after ``import genericpath``: renamed with no request."""
    prepared = _mechanical(tmp_repo, "genericpath.py", "rename `_splitext` to `_split_extension` everywhere")
    assert prepared.plan.files == ["genericpath.py", "posixpath.py"]
    engine = EditEngine(None, tmp_repo)
    proposal = plan_run.run_plan(engine, prepared, no_request)
    assert proposal.ok and proposal.scope.ok
    result = apply_plan(engine, proposal)
    assert result.commit is not None
    pairs = [("_splitext", "_split_extension")]
    assert (tmp_repo / "posixpath.py").read_text() == rename_tokens(POSIXPATH, pairs)
    assert (tmp_repo / "genericpath.py").read_text() == rename_tokens(GENERICPATH, pairs)


@pytest.mark.parametrize(("file", "old", "why"), [
    ("textwrap.py", "text", "does not bind it in one place"),  # a parameter of many functions
    ("textwrap.py", "indent", "function _wrap_chunks (line 238) has its own `indent`"),  # a shadowing local
    ("textwrap.py", "wrap", "class TextWrapper (line 17) has its own `wrap`"),  # a method of the same name
    ("textwrap.py", "initial_indent", "names `initial_indent` itself"),  # a parameter and self.initial_indent
    ("shlex.py", "get_token", "`.get_token` on a receiver that may not be shlex"),  # lex.get_token()
    ("wsgiref/handlers.py", "close", "used in a string"),  # hasattr(self.result, 'close')
    ("graphlib.py", "npredecessors", "used in a string"),  # an entry of __slots__
    ("queue.py", "_qsize", "does not bind it in one place"),  # overridden in three classes
])
def test_an_ambiguous_rename_names_why(file: str, old: str, why: str) -> None:
    text = TEXTWRAP if file == "textwrap.py" else source(file)
    found = ambiguity({file: text}, [(old, "renamed_" + old)], file)
    assert found is not None and why in found


def test_the_new_name_in_use_is_ambiguous() -> None:
    found = ambiguity({"textwrap.py": TEXTWRAP}, [("dedent", "indent")], "textwrap.py")
    assert found is not None and "`indent` is already used" in found


@pytest.mark.repo_files({"shlex.py": source("shlex.py")})
def test_an_ambiguous_rename_keeps_the_model_path(tmp_repo: Path) -> None:
    prepared = plan_run.prepare(EditEngine(None, tmp_repo), tmp_repo / "shlex.py",
                                "rename `get_token` to `next_lexeme`")
    assert isinstance(prepared, plan_run.PlanRequest) and prepared.plan.kind == "rename"
    assert prepared.plan.requests == len(prepared.plan.steps) > 1
    assert any("scope analysis: ambiguous" in n and "receiver" in n for n in prepared.plan.notes)
    assert {s.done_by("rename") for s in prepared.plan.steps} == {plan.ASKED_MODEL}


def test_the_bench_rename_tasks_that_are_unambiguous_pass_their_checks() -> None:
    """Every bench rename the analysis calls unambiguous is solved by the token rename alone."""
    renames = [t for t in TASKS if isinstance(t.check, Renamed) and "rename" in t.name]
    assert len(renames) == 19  # 18 single-file renames and one across two files
    exact = []
    for task in renames:
        assert isinstance(task.check, Renamed)
        pairs = [(task.check.old, task.check.new)]
        files = {rel: source(rel) for rel in task.files}
        if ambiguity(files, pairs, task.file) is None:
            new = {rel: rename_tokens(text, pairs) for rel, text in files.items()}
            ok, why = task.judge(files, new)
            assert ok, f"{task.name}: {why}"
            exact.append(task.name)
    assert len(exact) == 18 and "queue-rename" not in exact  # queue's _qsize is overridden by subclasses


@pytest.mark.parametrize("task", [t for t in TASKS if isinstance(t.check, Renamed) and "rename" in t.name],
                         ids=lambda t: t.name)
def test_the_planner_solves_the_bench_renames_without_the_model(tmp_path: Path, task: Task) -> None:
    """Through the planner, as ``coder edit`` runs it: 0 requests, and the task's own check passes."""
    files = {rel: source(rel) for rel in task.files}
    root = tmp_path / "repo"
    make_repo(root, files)
    engine = EditEngine(None, root)
    paths = [root / rel for rel in task.files]
    prepared = plan_run.prepare_files(engine, paths, task.instruction) if task.also else \
        plan_run.prepare(engine, paths[0], task.instruction)
    assert isinstance(prepared, plan_run.PlanRequest) and prepared.plan.kind == "rename"
    if task.name == "queue-rename":  # _qsize is a method of three classes: ambiguous, the model is asked
        assert prepared.plan.requests > 0 and any("ambiguous" in n for n in prepared.plan.notes)
        return
    assert prepared.plan.requests == 0, prepared.plan.notes
    proposal = plan_run.run_plan(engine, prepared, no_request)
    assert proposal.ok, proposal.refusal
    new = {p.rel: p.new for p in proposal.files}
    ok, why = task.judge(files, {rel: new.get(rel, text) for rel, text in files.items()})
    assert ok, why


# small sources for scope rules the frozen modules do not exercise (the analysis is pure: no model, no repo)
_SHAPES = {
    "keyword call of a module-level function": ("def f(size):\n    return size\n\nf(size=2)\n", "size", None),
    "keyword call of another function": ("def f(size):\n    return size\n\ng(size=2)\n", "size", "another function"),
    "closure reads the local": ("def f():\n    n = 1\n    def g():\n        return n\n    return g\n", "n", None),
    "closure rebinds it": ("def f():\n    n = 1\n    def g():\n        n = 2\n    return g\n", "n",
                          "does not bind it in one place"),
    "global statement": ("n = 1\n\ndef f():\n    global n\n    n = 2\n", "n", None),
    "comprehension variable": ("n = 1\nxs = [n for n in range(3)]\n", "n", "own `n`"),
    "string annotation": ("class A:\n    pass\n\ndef f(a: 'A') -> None:\n    pass\n", "A", "in a string"),
    "getattr": ("def f():\n    pass\n\ng = getattr(object, 'f')\n", "f", "in a string"),
    "an imported name": ("from os import sep\n\nprint(sep)\n", "sep", "rename it where it is defined"),
    "an import alias": ("from os import sep as s\n\nprint(s)\n", "s", None),
    "except name": ("def f():\n    try:\n        pass\n    except OSError as e:\n        return e\n", "e",
                    "cannot place"),
}


@pytest.mark.parametrize("shape", list(_SHAPES))
def test_scope_rules(shape: str) -> None:
    text, old, why = _SHAPES[shape]
    found = ambiguity({"m.py": text}, [(old, "renamed")], "m.py")
    assert (found is None) if why is None else (found is not None and why in found), found
