"""The scope check: which changes of a proposal the instruction explains (real stdlib files).

The drift cases are the kinds a model made on real rewrites (issue 18): asked only to
rename, it also changed `end` to `end + 1`, deleted a block, renamed another method.
They are built here from the shipped byte-copy of CPython's shlex.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_edit_refs import correct_result
from cli_helpers import make_repo
from spec_of import check_scope

from coder.bench.edits.checks import rename_names
from coder.bench.edits.run import Outcome, settle
from coder.bench.edits.tasks import TASKS, Task, source
from coder.edit.apply.files import unified_diff
from coder.edit.checks.subs import renamed_only
from coder.edit.intent.renames import rename_pairs
from coder.edit.intent.words import value_pairs
from coder.edit.run.engine import EditEngine
from coder.edit.source.regions import find_symbol, line_range, split

SHLEX = source("shlex.py")
RENAME = "Rename the method `read_token` to `next_token` everywhere in this file."
RENAMED = rename_names(SHLEX, "read_token", "next_token")


def _line(text: str, n: int) -> str:
    return text.splitlines()[n - 1]


def test_rename_pairs_read_the_usual_phrasings() -> None:
    assert rename_pairs(RENAME) == [("read_token", "next_token")]
    assert rename_pairs("rename function foo to bar and baz to qux") == [("foo", "bar"), ("baz", "qux")]
    assert rename_pairs("`Cache.get` -> `fetch`") == [("get", "fetch")]
    assert rename_pairs("rename the variable x as y") == [("x", "y")]
    assert rename_pairs("add a docstring to get") == []


def test_renamed_only_is_token_exact() -> None:
    pairs = [("end", "stop")]
    assert renamed_only("_w(s, end)", "_w(s, stop)", pairs)
    assert not renamed_only("_w(s, end)", "_w(s, stop + 1)", pairs)
    assert not renamed_only("_w(s, end)", "_w(s,stop)", pairs)  # spacing changed too
    assert not renamed_only("send(end)", "sstop(stop)", pairs)  # not a whole identifier


def test_pure_rename_is_explained() -> None:
    scope = check_scope(SHLEX, RENAMED, RENAME, rel="shlex.py")
    assert scope.kind == "rename" and scope.ok and len(scope.changes) == 3
    assert scope.refusal() == ""


def test_rename_with_an_off_by_one_is_flagged_at_its_line() -> None:
    assert _line(SHLEX, 142).strip() == "self.lineno += 1"
    lines = RENAMED.splitlines(keepends=True)
    lines[141] = lines[141].replace("+= 1", "+= 2")
    scope = check_scope(SHLEX, "".join(lines), RENAME, rel="shlex.py")
    assert [c.where("shlex.py") for c in scope.unexplained] == ["shlex.py:142 (changed)"]
    assert "rename read_token -> next_token" in scope.refusal()


def test_rename_with_a_deleted_block_and_another_rename_is_flagged() -> None:
    lines = RENAMED.splitlines(keepends=True)
    assert lines[295].startswith("    def __iter__")
    del lines[295:298]  # __iter__ gone
    drifted = "".join(lines).replace("def push_token(", "def push(")
    scope = check_scope(SHLEX, drifted, RENAME, rel="shlex.py")
    assert {c.where("shlex.py") for c in scope.unexplained} == {"shlex.py:72 (changed)", "shlex.py:296-298 (deleted)"}
    diff = unified_diff("shlex.py", SHLEX, drifted)
    flags = scope.hunk_flags(diff)
    assert flags.count(True) == 2 and len(flags) == diff.count("\n@@") + diff.startswith("@@")
    marked = scope.mark_diff(diff)
    assert marked.count("!! not explained by the instruction") == 2
    assert marked.replace("".join(x + "\n" for x in marked.splitlines() if x.startswith("!!")), "") != ""


def test_region_edit_keeps_the_rest_byte_identical() -> None:
    region = find_symbol("shlex.py", SHLEX, "quote")
    parts = split(SHLEX, region)
    new = parts.before + parts.target.replace("    if not s:", "    # empty\n    if not s:") + parts.after
    scope = check_scope(SHLEX, new, "add a comment in quote", rel="shlex.py", region=region)
    assert scope.kind == "region" and scope.ok
    outside = new.replace("import os", "import os  # x")
    scope = check_scope(SHLEX, outside, "add a comment in quote", rel="shlex.py", region=region)
    assert [c.old_start for c in scope.unexplained] == [SHLEX.splitlines().index("import os") + 1]


def test_named_symbol_explains_changes_inside_and_near_it_only() -> None:
    instruction = "Add a parameter `sep=' '` to the function `join` and use it instead of the literal space."
    new = SHLEX.replace("def join(split_command):", "def join(split_command, sep=' '):").replace(
        "return ' '.join(quote(arg)", "return sep.join(quote(arg)")
    assert check_scope(SHLEX, new, instruction, rel="shlex.py").ok
    far = new.replace("self.debug = 0", "self.debug = 1")
    scope = check_scope(SHLEX, far, instruction, rel="shlex.py")
    line = SHLEX.splitlines().index("        self.debug = 0") + 1
    assert [c.where("shlex.py") for c in scope.unexplained] == [f"shlex.py:{line} (changed)"]


def test_plain_word_that_the_file_defines_counts_as_named() -> None:
    sched = source("sched.py")
    new = sched.replace("class scheduler:\n", 'class scheduler:\n    """Runs events."""\n')
    assert check_scope(sched, new, "add a docstring to scheduler", rel="sched.py").ok


def test_unscoped_instruction_explains_nothing() -> None:
    new = SHLEX.replace("def quote(s):\n", 'def quote(s):\n    """Quote s."""\n')
    scope = check_scope(SHLEX, new, "make it better", rel="shlex.py")
    assert scope.kind == "unscoped" and not scope.ok


def test_type_hints_may_add_an_import() -> None:
    new = SHLEX.replace("def quote(s):", "def quote(s: str) -> str:")
    new = new.replace("import os\n", "import os\nimport typing\n")
    assert check_scope(SHLEX, new, "add type hints to `quote`", rel="shlex.py").ok
    assert not check_scope(SHLEX, new, "add a comment to `quote`", rel="shlex.py").ok


@pytest.mark.parametrize("guard", [True, False])
def test_yes_path_never_commits_a_flagged_wrong_rewrite(tmp_path: Path, guard: bool) -> None:
    """The bench's --yes path (EditEngine.evaluate → apply) on a drifted full reply, in a real repo."""
    repo = make_repo(tmp_path / "r", {"shlex.py": SHLEX})
    head = repo.head.commit.hexsha
    task = next(t for t in TASKS if t.name == "shlex-rename")
    lines = RENAMED.splitlines(keepends=True)
    lines[141] = lines[141].replace("+= 1", "+= 2")
    reply = "```python\n" + "".join(lines) + "```\n"
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / "shlex.py", task.instruction, mode="full")
    proposal = engine.evaluate(request, reply, finish_reason="stop")
    assert proposal.ok and proposal.scope is not None and not proposal.scope.ok  # every other check passes
    assert proposal.to_json()["scope"]["unexplained"][0]["where"] == "shlex.py:142 (changed)"  # type: ignore[index]
    out = Outcome(task.name, task.file, task.kind, "full", "skipped", "")
    settle(engine, proposal, task, out, guard=guard)
    assert out.flagged and out.flagged_would_be == "wrong"
    assert out.reply == reply and out.diff == proposal.diff and "+= 2" in out.diff  # kept to replay offline
    assert out.to_json()["reply"] == reply
    if guard:
        assert out.outcome == "refused" and repo.head.commit.hexsha == head
        assert (tmp_path / "r" / "shlex.py").read_text() == SHLEX
    else:  # what --allow-unexplained would have committed
        assert out.outcome == "wrong" and repo.head.commit.hexsha != head


def test_yes_path_applies_a_pure_rename(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"shlex.py": SHLEX})
    task = next(t for t in TASKS if t.name == "shlex-rename")
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / "shlex.py", task.instruction, mode="full")
    proposal = engine.evaluate(request, "```python\n" + RENAMED + "```\n", finish_reason="stop")
    out = Outcome(task.name, task.file, task.kind, "full", "skipped", "")
    settle(engine, proposal, task, out, guard=True)
    assert out.outcome == "correct" and not out.flagged and repo.head.commit.message.startswith("coder:")
    assert out.reply is None and out.diff is None  # a correct outcome keeps no evidence
    assert (tmp_path / "r" / "shlex.py").read_text() == RENAMED


def test_keep_replies_keeps_a_correct_outcomes_reply(tmp_path: Path) -> None:
    """``coder bench --edits --keep-replies``: the GPU run keeps every reply, to replay later readings and checks."""
    make_repo(tmp_path / "r", {"shlex.py": SHLEX})
    task = next(t for t in TASKS if t.name == "shlex-rename")
    engine = EditEngine(None, tmp_path / "r", ctx=32768)
    request = engine.prepare(tmp_path / "r" / "shlex.py", task.instruction, mode="full")
    reply = "```python\n" + RENAMED + "```\n"
    proposal = engine.evaluate(request, reply, finish_reason="stop")
    out = Outcome(task.name, task.file, task.kind, "full", "skipped", "")
    settle(engine, proposal, task, out, guard=True, keep_replies=True)
    assert out.outcome == "correct" and out.reply == reply and out.diff == proposal.diff and out.diff


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_correct_results_of_every_bench_task_are_explained(task: Task) -> None:
    """No false alarm on a correct edit: whole-file, and as a region edit where the task has a region."""
    src, new = source(task.file), correct_result(task)
    full = check_scope(src, new, task.instruction, rel=task.file)
    assert full.ok, full.refusal()
    if task.has_region:
        region = find_symbol(task.file, src, task.symbol) if task.symbol else line_range(src, task.lines or "")
        scoped = check_scope(src, new, task.instruction, rel=task.file, region=region)
        assert scoped.ok, scoped.refusal()


def test_comment_instruction_explains_no_code_change_inside_the_function() -> None:
    instruction = "In the function `quote`, add a comment above `if _find_unsafe(s) is None:`."
    region = find_symbol("shlex.py", SHLEX, "quote")
    commented = SHLEX.replace("    if _find_unsafe(s) is None:", "    # safe: as is\n    if _find_unsafe(s) is None:")
    assert check_scope(SHLEX, commented, instruction, rel="shlex.py", region=region).ok
    trailing = SHLEX.replace("    if _find_unsafe(s) is None:", "    if _find_unsafe(s) is None:  # safe")
    assert check_scope(SHLEX, trailing, instruction, rel="shlex.py", region=region).ok
    changed = commented.replace("        return s\n", "        return s.strip()\n", 1)
    scope = check_scope(SHLEX, changed, instruction, rel="shlex.py", region=region)
    (bad,) = scope.unexplained
    assert "only comments" in bad.why and "only comments" in scope.refusal()


def test_docstring_instruction_explains_no_code_change() -> None:
    instruction = "add a docstring to `_print_tokens`"
    new = SHLEX.replace("def _print_tokens(lexer):\n", 'def _print_tokens(lexer):\n    """Print tokens."""\n')
    assert check_scope(SHLEX, new, instruction, rel="shlex.py").ok
    second = SHLEX.replace("def quote(s):\n", 'def quote(s):\n    """Quote s."""\n')  # quote has one already
    assert not check_scope(SHLEX, second, "add a docstring to `quote`", rel="shlex.py").ok
    worse = new.replace("        if not tt:\n            break", "        if not tt:\n            return")
    assert [c.why for c in check_scope(SHLEX, worse, instruction, rel="shlex.py").unexplained] == [
        "changes code (only docstrings asked)"]


def test_incomplete_rename_is_flagged_at_the_line_still_using_the_old_name() -> None:
    row = SHLEX.splitlines().index("        raw = self.read_token()") + 1
    lines = RENAMED.splitlines(keepends=True)
    lines[row - 1] = lines[row - 1].replace("next_token", "read_token")  # one call site missed: breaks at run time
    scope = check_scope(SHLEX, "".join(lines), RENAME, rel="shlex.py")
    assert [c.where("shlex.py") for c in scope.unexplained] == [f"shlex.py:{row} (not renamed)"]
    assert "still uses read_token" in scope.unexplained[0].why


def test_change_from_a_to_b_explains_only_that_substitution() -> None:
    colorsys = source("colorsys.py")
    instruction = "In `rgb_to_yiq`, change the blue coefficient of y from 0.11 to 0.114."
    assert value_pairs(instruction) == [("0.11", "0.114")]
    assert value_pairs("change the default width from `70` to `80`") == [("70", "80")]
    assert value_pairs("convert it from recursion to iteration") == []
    region = find_symbol("colorsys.py", colorsys, "rgb_to_yiq")
    right = colorsys.replace("0.59*g + 0.11*b", "0.59*g + 0.114*b")
    assert check_scope(colorsys, right, instruction, rel="colorsys.py", region=region).ok
    assert check_scope(colorsys, right, instruction, rel="colorsys.py").ok
    also = right.replace("y = 0.30*r", "y = 0.299*r")  # same line, one more number changed
    scope = check_scope(colorsys, also, instruction, rel="colorsys.py", region=region)
    assert [c.why for c in scope.unexplained] == ["changes code (only 0.11 -> 0.114 asked)"]
    assert not renamed_only("x = 0.11", "x = 0.1144", [("0.11", "0.114")])
    assert not renamed_only("x = 10.11", "x = 10.114", [("0.11", "0.114")])


def test_a_new_name_the_instruction_asks_for_must_appear() -> None:
    """SmolLM2's region reply to fnmatch-param changed `_compile_pattern` without adding `flags`."""
    fnmatch = source("fnmatch.py")
    instruction = "Add a parameter `flags=0` to `_compile_pattern` and pass it on to `re.compile`."
    region = find_symbol("fnmatch.py", fnmatch, "_compile_pattern")
    without = fnmatch.replace("    return re.compile(res).match", "    return re.compile(res, re.S).match")
    scope = check_scope(fnmatch, without, instruction, rel="fnmatch.py", region=region)
    assert scope.missing == ("flags",) and not scope.ok
    # the shape rule for "add a parameter" names the same fault at the signature
    assert all("flags" in c.why for c in scope.unexplained)
    assert "never uses flags" in scope.refusal()
    assert scope.to_json()["missing"] == ["flags"]
    right = fnmatch.replace("def _compile_pattern(pat):", "def _compile_pattern(pat, flags=0):").replace(
        "    return re.compile(res).match", "    return re.compile(res, flags).match")
    assert check_scope(fnmatch, right, instruction, rel="fnmatch.py", region=region).ok


def test_a_new_method_after_its_class_s_blank_line_is_explained() -> None:
    # the H200's reply to "... add tokens(self) returning them as a list" (shlex-method, wording 2): the method
    # is the class's last, written after the blank line that ended the class
    from coder.edit.checks.explained import check_scope as guard
    from coder.edit.intent.read import read_instruction

    task = next(t for t in TASKS if t.name == "shlex-method")
    old = source("shlex.py")
    end = "            raise StopIteration\n        return token\n\n"
    new = old.replace(end, end + "    def tokens(self):\n        return list(self)\n\n", 1)
    assert new != old
    spec = read_instruction(task.wordings[2], {"shlex.py": old}, home="shlex.py")
    scope = guard(old, new, spec, rel="shlex.py")
    assert scope.ok, scope.refusal()
