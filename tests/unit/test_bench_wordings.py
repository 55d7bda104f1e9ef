"""``coder bench --edits`` in many wordings: the task table, --list --json, the per-wording report, the
same-plan count and the layer each refusal is charged to."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from bench_edit_refs import correct_result

from coder.bench.edits import report, wordings
from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.layers import BENCH_CODES, LAYERS, fell_back, misread, refusal_layer
from coder.bench.edits.run import Outcome, _note_request, _prepare, make_repo, on_disk, settle, tag_layer
from coder.bench.edits.tasks import TASKS, Task, source

BY_NAME = {t.name: t for t in TASKS}


def _words(text: str) -> str:
    """A wording with backticks, case and punctuation taken out: two wordings that differ only there are one."""
    return " ".join(re.findall(r"[a-z0-9_]+", text.replace("`", "").lower()))


def test_at_least_80_tasks_in_at_least_3_distinct_wordings() -> None:
    assert len(TASKS) >= 80
    for task in TASKS:
        assert len(task.wordings) >= 3, task.name
        assert len({_words(w) for w in task.wordings}) == len(task.wordings), task.name
        assert task.instruction == task.wordings[0]


def test_the_first_wording_backticks_names_and_the_second_is_plain_prose() -> None:
    for task in TASKS:
        first, plain = task.wordings[:2]
        assert "`" in first, task.name
        assert "`" not in plain, task.name
        assert plain[0] == plain[0].lower() or not plain[0].isalpha() or plain.split()[0][1:] != \
            plain.split()[0][1:].lower(), task.name  # lowercase, unless it opens on a name (PriorityQueue.get())


def test_wordings_vary_the_verb_or_the_order_not_only_the_backticks() -> None:
    """The third wording is not the first with its backticks dropped, and the suite's verbs vary."""
    for task in TASKS:
        assert _words(task.wordings[2]) != _words(task.wordings[0]), task.name
    openers = {w.split()[0].lower().strip(":") for t in TASKS for w in t.wordings[1:]}
    assert len(openers) >= 30, sorted(openers)
    text = " ".join(w for t in TASKS for w in t.wordings)
    for phrase in ("get rid of", "right after", "of the class", "fix ", "remove", " -> ", "from the class"):
        assert phrase in text.lower(), phrase


def test_no_check_depends_on_the_wording() -> None:
    """One check per task, built without any of its wordings: it can only judge the result."""
    for task in TASKS:
        checks = repr((task.check, task.also))
        for wording in task.wordings:
            assert wording not in checks, task.name


def test_bug_fixes_and_behaviour_tasks() -> None:
    bugs = [t for t in TASKS if t.kind == "bugfix"]
    assert len(bugs) >= 10
    assert len([t for t in TASKS if t.kind in ("extract", "method")]) >= 6
    for task in bugs:
        assert task.file.startswith("bugs/") and isinstance(task.check, Behaves), task.name
        buggy, fixed = source(task.file), source(task.file.removeprefix("bugs/"))
        assert buggy != fixed
        ok, why = task.check(buggy, fixed)  # called before and after: the original passes, the bug fails
        assert ok, (task.name, why)
        assert not task.check(buggy, buggy)[0], task.name
        # the bug sits inside the code the check names: outside it, the buggy copy is the original
        tree, orig = ast.parse(buggy), ast.parse(fixed)
        from coder.bench.edits.behaviour import without
        assert ast.dump(without(tree, task.check.names)) == ast.dump(without(orig, task.check.names)), task.name


def test_a_wrong_fix_of_a_bug_is_wrong() -> None:
    """A fix that silences the symptom the wrong way (quote('') -> '""') fails on behaviour."""
    task = BY_NAME["bug-shlex-quote"]
    buggy = source(task.file)
    wrong = buggy.replace("    if _find_unsafe(s) is None:", "    if not s:\n        return '\"\"'\n"
                          "    if _find_unsafe(s) is None:", 1)
    ok, why = task.check(buggy, wrong)
    assert not ok and "m.quote('')" in why


def test_list_json_prints_every_task(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert main(["bench", "--edits", "--list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [t.name for t in TASKS]
    for row, task in zip(rows, TASKS, strict=True):
        assert set(row) == {"id", "kind", "file", "wordings", "check"}
        assert row["wordings"] == list(task.wordings) and row["kind"] == task.kind and row["file"] == task.file
        assert row["check"].split("(")[0] == type(task.check).__name__ or task.also
    assert main(["bench", "--edits", "--list", "--json", "--tasks", "glob-fix", "--wordings", "1,2"]) == 0
    (only,) = json.loads(capsys.readouterr().out)
    assert only["wordings"] == list(BY_NAME["glob-fix"].wordings[1:])


@pytest.mark.parametrize(("argv", "message"), [
    (["--wordings", "first"], "--wordings takes `all` or indexes"),
    (["--subset", "gpu"], "--subset takes cpu"),
    (["--subset", "cpu", "--tasks", "glob"], "--subset is a fixed set"),
    (["--json"], "--json goes with --list"),
    (["--tasks", "glob-fix", "--wordings", "7"], "no task matches"),
])
def test_bad_wording_options_are_one_clear_line(argv: list[str], message: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert main(["bench", "--edits", *argv]) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_pairs_default_to_every_wording_and_shards_cover_them_once() -> None:
    from coder.cli.bench_edits import _shard

    every = wordings.pairs(TASKS, wordings.parse_wordings(None))
    assert len(every) == sum(len(t.wordings) for t in TASKS) >= 240
    assert wordings.pairs(TASKS, wordings.parse_wordings("all")) == every
    assert {w for _, w in wordings.pairs(TASKS, wordings.parse_wordings("0,2"))} == {0, 2}
    parts = [_shard(f"{k}/4", every) for k in (1, 2, 3, 4)]
    assert sorted((t.name, w) for p in parts for t, w in p) == sorted((t.name, w) for t, w in every)


def test_cpu_subset_spans_kinds_and_wordings() -> None:
    chosen = wordings.subset(TASKS, "cpu")
    assert len(chosen) == 10 and len({t.name for t, _ in chosen}) == 10
    assert {w for _, w in chosen} == {0, 1, 2}
    assert len({t.kind for t, _ in chosen}) >= 8
    for task, _ in chosen:
        assert source(task.file).count("\n") <= 260, task.name  # a whole-file reply stays a few minutes on 2 cores


# --- the plan key and the same-plan count -------------------------------------------------------------------

def test_plan_key_reads_the_reading_first_then_the_plan_then_the_region() -> None:
    plan = {"kind": "delete", "steps": [{"path": "g.py", "label": "function C.m", "lines": [3, 4]}]}
    assert wordings.plan_key({"mode": "plan", "plan": plan}) == "delete: g.py function C.m"
    assert wordings.plan_key({"mode": "plan", "plan": {**plan, "read": "delete method C.m (cut mechanically)"}}) \
        == "read: delete method C.m (cut mechanically)"
    assert wordings.plan_key({"mode": "plan", "plan": plan, "read": "delete method C.m"}) == "read: delete method C.m"
    assert wordings.plan_key({"mode": "region", "region": {"label": "function f", "start": 1, "end": 2}}) \
        == "region: function f"
    assert wordings.plan_key({"mode": "full", "region": None}) == "full: whole file"


def test_plan_keys_of_real_requests_tell_a_region_from_windows(tmp_path: Path) -> None:
    """The key comes from the request coder builds: a named method is a region, a long file's fallback windows."""
    from coder.edit.run.engine import EditEngine

    task = BY_NAME["queue-docstring"]
    keys = []
    for i, wording in enumerate(("Add a docstring to the method `Queue._init` saying what it sets up.",
                                 "Write docs for the whole module, every function of it")):
        _, path = make_repo(tmp_path / str(i), task)
        engine = EditEngine(None, tmp_path / str(i), ctx=32768)
        out = Outcome(task.name, task.file, task.kind, "auto", "skipped", "", wording=i)
        _note_request(_prepare(engine, task, "auto", path, wording), out)
        engine.close()
        keys.append((out.plan_key, out.plan_kind))
    assert keys[0] == ("read: docstrings method Queue._init (region function Queue._init)", None)
    assert keys[1][0] is not None and keys[1][0].endswith("region(s) to the model)") and keys[1][1] == "windows"


def _row(task: str, w: int, outcome: str, key: str | None, layer: str | None = None) -> Outcome:
    t = BY_NAME[task]
    return Outcome(task, t.file, t.kind, "auto", outcome, "", mode="plan", wording=w, plan_key=key, layer=layer)


RECORDED = [  # as a run writes them: three tasks in three wordings
    _row("getopt-rename", 0, "correct", "rename: getopt.py function long_has_args"),
    _row("getopt-rename", 1, "correct", "rename: getopt.py function long_has_args"),
    _row("getopt-rename", 2, "refused", "region: function long_has_args", "model"),
    _row("glob-fix", 0, "correct", "region: function _ishidden"),
    _row("glob-fix", 1, "wrong", "region: function _ishidden"),
    _row("glob-fix", 2, "correct", "region: function _ishidden"),
    _row("graphlib-delete", 0, "correct", "delete: graphlib.py function TopologicalSorter.__bool__"),
    _row("graphlib-delete", 1, "refused", None, "reading"),
    _row("graphlib-delete", 2, "refused", "windows: graphlib.py lines 1-85", "reading"),
]


def test_per_wording_counts_and_same_plan_on_recorded_rows(tmp_path: Path) -> None:
    """Written and read back as a run's JSON (the --merge path), then counted."""
    path = report.write_json(report.build({"auto": RECORDED}, target="t", server={}, guard=True, argv=[]),
                             tmp_path, "t")
    runs, doc = report.merge([path])
    rows = runs["auto"]
    assert [(r.task, r.wording, r.plan_key, r.layer) for r in rows] == \
        [(r.task, r.wording, r.plan_key, r.layer) for r in RECORDED]
    per = wordings.by_wording(rows)
    assert {w: (c["correct"], c["refused"], c["wrong"]) for w, c in per.items()} == \
        {0: (3, 0, 0), 1: (1, 1, 1), 2: (1, 2, 0)}
    assert per[2]["refused: model"] == 1 and per[2]["refused: reading"] == 1 and per[1]["refused: reading"] == 1
    same = wordings.same_plan(rows)
    assert same == {"tasks": 3, "same": 1, "differs": ["getopt-rename", "graphlib-delete"]}
    summary = doc["runs"]["auto"]["summary"]  # type: ignore[index]
    assert summary["refused_by_layer"] == {"reading": 2, "model": 1, "check": 0, "user command": 0, "other": 0}
    assert summary["same_plan"]["same"] == 1
    assert summary["by_wording"][1]["wrong"] == 1


def test_wording_table_and_plot(tmp_path: Path) -> None:
    from rich.console import Console

    from coder.bench.plots import plot_edit_wordings

    console = Console(width=160, record=True)
    report.render_wordings({"auto": RECORDED, "aider-whole": RECORDED[:3]}, console)
    report.render(RECORDED, "t auto", console)
    text = console.export_text()
    assert "the same plan in every wording for 1 of 3 tasks" in text
    assert "aider-whole" not in text.split("per wording")[1].split("\n\n")[0]  # Aider sends one wording
    assert "refused by layer: reading 2, model 1, check 0, user command 0" in text
    png = plot_edit_wordings({"auto": RECORDED}, tmp_path / "w.png", "edits")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- the refusal layers ---------------------------------------------------------------------------------------

def _codes_in_coder() -> set[str]:
    """Every refusal code coder's edit path can report, read from its source (so a new code needs a layer)."""
    root = Path(__file__).resolve().parents[2] / "coder" / "edit"
    text = "\n".join(p.read_text(encoding="utf-8") for p in root.rglob("*.py"))
    codes = set(re.findall(r'EditRefused\(\s*"([a-z_]+)"', text))
    codes |= set(re.findall(r'refusal_code, \w+\.refusal = "([a-z_]+)"', text))
    codes |= set(re.findall(r'PlanProposal\([^)]*?"([a-z_]+)", f"', text))
    return codes


def test_every_refusal_code_of_coder_has_a_layer() -> None:
    codes = _codes_in_coder()
    assert {"elision", "syntax", "undefined", "check_failed", "plan_region", "loop", "length"} <= codes
    for code in codes | set(BENCH_CODES):
        assert refusal_layer(code, step_code="elision") in LAYERS, code


@pytest.mark.parametrize(("code", "step", "fallback", "layer"), [
    ("elision", None, False, "model"),
    ("length", None, False, "model"),
    ("no_fence", None, False, "model"),
    ("unchanged", None, False, "model"),
    ("syntax", None, False, "check"),
    ("undefined", None, False, "check"),
    ("extract_uncalled", None, False, "check"),
    ("unexplained", None, False, "check"),
    ("check_failed", None, False, "user command"),
    ("request_refused", None, False, "reading"),
    ("plan_region", "elision", False, "model"),
    ("plan_region", "call_mismatch", False, "check"),
    ("plan_region", None, False, "model"),
    ("elision", None, True, "reading"),  # a named change sent as whole-file windows: lost in the reading
    ("plan_region", "elision", True, "reading"),
    ("check_failed", None, True, "user command"),
    ("no_such_code", None, False, "other"),
])
def test_refusal_layer(code: str, step: str | None, fallback: bool, layer: str) -> None:
    assert refusal_layer(code, step_code=step, fallback=fallback) == layer


def test_fell_back_is_windows_or_auto_full_without_a_region() -> None:
    assert fell_back("plan", "auto: ...", "windows")
    assert fell_back("full", "auto: full (no region named); predicted 3.0 s", None)
    assert not fell_back("full", "auto: full is faster than region function f; predicted 1 s vs 2 s", None)
    assert not fell_back("region", "auto: region is faster, function f; ...", None)
    assert not fell_back("plan", "a rename", "rename")
    assert not fell_back("full", None, None)  # --mode full asked by the user: nothing fell back


def test_misread_is_a_rename_not_planned_as_one() -> None:
    assert misread("rename", "windows") and misread("rename", None) and misread("rename", "delete")
    assert not misread("rename", "rename") and not misread(None, "windows")


def test_a_rename_read_as_a_region_edit_is_lost_in_the_reading() -> None:
    """Seen on the CPU: "Rename the helper long_has_args to ... (definition and calls)" became one region edit of
    the definition, refused because the call was left undefined: the reading lost it, not the check."""
    task = BY_NAME["getopt-rename"]
    out = Outcome(task.name, task.file, task.kind, "auto", "refused", "", mode="region",
                  mode_reason="auto: region is faster, function long_has_args", refusal_code="undefined",
                  plan_key="region: function long_has_args", wording=2)
    tag_layer(out, task)
    assert out.layer == "reading"
    out.plan_key = "read: rename long_has_args -> long_option_info (renamed mechanically)"
    out.mode, out.plan_kind, out.layer = "plan", "rename", None
    tag_layer(out, task)
    assert out.layer == "check"


def test_a_refused_reply_is_tagged_model_and_a_bad_result_check(tmp_path: Path) -> None:
    """Through the --yes path on a real repo: the refusal's code becomes its layer, and the file is intact."""
    from coder.edit.run.engine import EditEngine

    task = BY_NAME["glob-fix"]
    for i, (reply, layer) in enumerate((
        ("I would change _ishidden.", "model"),  # no fenced block
        ("```python\n" + correct_result(task).replace("import os", "import os\nx = no_such_name", 1) + "```\n",
         "check"),  # the result uses a name nothing defines
    )):
        root = tmp_path / str(i)
        _, path = make_repo(root, task)
        engine = EditEngine(None, root, ctx=32768)
        request = engine.prepare(path, task.wordings[1], mode="full")
        proposal = engine.evaluate(request, reply, finish_reason="stop")
        out = Outcome(task.name, task.file, task.kind, "full", "skipped", "", wording=1)
        settle(engine, proposal, task, out, guard=True)
        tag_layer(out, task)
        engine.close()
        assert (out.outcome, out.layer) == ("refused", layer), out.why
        assert on_disk(root, task)[task.file] == source(task.file)


def test_every_task_in_every_wording_reads_its_own_file(tmp_path: Path) -> None:
    """A bug task's repository holds the buggy copy under its own path (the copy is what gets fixed)."""
    task: Task = BY_NAME["bug-wsgiref-hop"]
    make_repo(tmp_path, task)
    assert (tmp_path / "bugs/wsgiref/util.py").read_text() == source("bugs/wsgiref/util.py")


def test_plans_only_prints_each_pairs_plan_without_a_server(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert main(["bench", "--edits", "--plans-only", "--tasks", "graphlib-delete", "--wordings", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "graphlib-delete (0): read: delete method TopologicalSorter.__bool__ (cut mechanically)"
    assert out[-1] == "the same plan in every wording: 0 of 0 tasks"  # one wording: nothing to compare
    assert main(["bench", "--edits", "--plans-only", "--tasks", "getopt-rename,graphlib-delete"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 7 and re.fullmatch(r"the same plan in every wording: [0-2] of 2 tasks", out[-1])
