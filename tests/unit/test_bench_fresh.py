"""The fresh set of ``coder bench --edits --set fresh``: two distinct wordings per task, each check passes on a
hand-written correct result and fails on the original and on plausible wrong results; each bug is caught by
its task's check; the modules' upstream tests pass on the shipped originals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_sets import Edits, expected_result, plain_words, run_upstream

from coder.bench.edits import upstream
from coder.bench.edits.checks import replace_once
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_fresh import FRESH

BY_NAME = {t.name: t for t in FRESH}
MODULES = ("base64", "cmd", "filecmp", "rlcompleter", "zipapp")

_COLUMNIZE_SEP = (("    def columnize(self, list, displaywidth=80):",
                   "    def columnize(self, list, displaywidth=80, sep='  '):"),
                  ("            totwidth = -2\n", "            totwidth = -len(sep)\n"),
                  ("                totwidth += colwidth + 2\n", "                totwidth += colwidth + len(sep)\n"),
                  ('str("  ".join(texts))', 'str(sep.join(texts))'))
_ENCODE = """    while True:
        s = input.read(MAXBINSIZE)
        if not s:
            break
        while len(s) < MAXBINSIZE:
            ns = input.read(MAXBINSIZE-len(s))
            if not ns:
                break
            s += ns
        line"""

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "cmd-docstring": (("    def print_topics(self, header, cmds, cmdlen, maxcol):\n",
                       "    def print_topics(self, header, cmds, cmdlen, maxcol):\n"
                       '        """Write header, a ruler and cmds in columns fitting maxcol."""\n'),),
    "cmd-hints": (("    def parseline(self, line):",
                   "    def parseline(self, line: str) -> tuple[str | None, str | None, str]:"),),
    "cmd-method": (("        return dir(self.__class__)\n",
                    "        return dir(self.__class__)\n\n    def commands(self):\n"
                    "        return sorted(n[3:] for n in self.get_names() if n.startswith('do_'))\n"),),
    "cmd-param": _COLUMNIZE_SEP,
    "base64-docstring": (("    # Helper function for a85encode and b85encode\n",
                          '    """Encode b in base 85 with the tables chars and chars2."""\n'),),
    "base64-callers": (("def _b32encode(alphabet, s):", "def _b32encode(alphabet, s, pad=True):"),
                       ("    return bytes(encoded)\n\ndef _b32decode",
                        "    if not pad:\n        return bytes(encoded).rstrip(b'=')\n    return bytes(encoded)\n\n"
                        "def _b32decode"),
                       ("_b32encode(_b32alphabet, s)", "_b32encode(_b32alphabet, s, pad=True)"),
                       ("_b32encode(_b32hexalphabet, s)", "_b32encode(_b32hexalphabet, s, pad=True)")),
    "base64-extract": ((_ENCODE, "    while True:\n        s = _read_chunk(input)\n        if not s:\n"
                                 "            break\n        line"),
                       ("def encode(input, output):", "def _read_chunk(input):\n    s = input.read(MAXBINSIZE)\n"
                        "    while s and len(s) < MAXBINSIZE:\n        ns = input.read(MAXBINSIZE-len(s))\n"
                        "        if not ns:\n            break\n        s += ns\n    return s\n\n"
                        "def encode(input, output):")),
    "rlcompleter-hints-all": (
        ("    def __init__(self, namespace = None):", "    def __init__(self, namespace: dict | None = None) -> None:"),
        ("    def complete(self, text, state):", "    def complete(self, text: str, state: int) -> str | None:"),
        ("    def _callable_postfix(self, val, word):",
         "    def _callable_postfix(self, val: object, word: str) -> str:"),
        ("    def global_matches(self, text):", "    def global_matches(self, text: str) -> list[str]:"),
        ("    def attr_matches(self, text):", "    def attr_matches(self, text: str) -> list[str]:")),
    "rlcompleter-comment": (('        seen = {"__builtins__"}\n',
                             "        # a namespace's own __builtins__ entry is no completion\n"
                             '        seen = {"__builtins__"}\n'),),
    "filecmp-method": (("    methodmap = dict(",
                        "    def is_identical(self):\n"
                        "        return not (self.left_only or self.right_only or self.diff_files\n"
                        "                    or self.funny_files or self.common_funny)\n\n    methodmap = dict("),),
    "zipapp-comment": (("        if f.read(2) == b'#!':\n",
                        "        # no shebang: None, by falling off the end\n        if f.read(2) == b'#!':\n"),),
    "zipapp-fix": (("    if interpreter:\n        shebang",
                    "    if interpreter:\n        if interpreter.startswith('#!'):\n"
                    "            interpreter = interpreter[2:]\n        shebang"),),
}

# Plausible wrong results, as edits on the task's original (a bug task's: the buggy copy): each must fail.
WRONG: dict[str, tuple[Edits, ...]] = {
    "cmd-method": ((("        return dir(self.__class__)\n",
                     "        return dir(self.__class__)\n\n    def commands(self):\n"
                     "        return [n for n in self.get_names() if n.startswith('do_')]\n"),),),
    "cmd-param": (_COLUMNIZE_SEP[:1] + _COLUMNIZE_SEP[3:],),  # joined with sep, widths still counted with 2
    "cmd-delete": ((("    def complete_help(self, *args):", "    def complete_help_(self, *args):"),),),
    "base64-callers": (SOLUTIONS["base64-callers"][:2],),  # callers leave pad out
    "base64-extract": ((("def encode(input, output):", "def _read_chunk(input):\n    return input.read(MAXBINSIZE)\n\n"
                         "def encode(input, output):"),),),  # never called, and one read only
    "rlcompleter-rename-local": ((("        n = len(text)\n", "        prefix_len = len(text)\n"),
                                  ("            if word[:n] == text:\n", "            if word[:prefix_len] == text:\n"),
                                  ("                if word[:n] == text and word not in seen:\n",
                                   "                if word[:prefix_len] == text and word not in seen:\n"),
                                  ("        n = len(attr)\n", "        prefix_len = len(attr)\n"),
                                  ("                if (word[:n] == attr and\n",
                                   "                if (word[:prefix_len] == attr and\n"),
                                  ("word[:n+1] == noprefix", "word[:prefix_len+1] == noprefix")),),
    "rlcompleter-hints-all": ((("    def global_matches(self, text):",
                                "    def global_matches(self, text: str) -> list[str]:"),),),
    "rlcompleter-comment": ((("        matches = []\n        seen", "        # the matches\n        matches = []\n"
                              "        seen"),),),
    "rlcompleter-move": ((("def get_class_members(klass):", "def _get_class_members(klass):"),),),
    "filecmp-method": ((("    methodmap = dict(",
                         "    def is_identical(self):\n        return not (self.left_only or self.right_only or "
                         "self.diff_files)\n\n    methodmap = dict("),),),  # funny cases missed
    "filecmp-delete": ((("def demo():\n", "def _demo():\n"),),),
    "zipapp-rename-local": ((("            first_2 = b''\n", "            head = b''\n"),),),
    "zipapp-comment": ((("def get_interpreter(archive):\n",  # above the function, not in it
                         "# None without a shebang\ndef get_interpreter(archive):\n"),),),
    "zipapp-fix": ((("    if interpreter:\n        shebang",  # strips two characters off every interpreter
                     "    if interpreter:\n        interpreter = interpreter[2:]\n        shebang"),),),
    "bug-zipapp-names": ((("z.write(child, child.as_posix())", "z.write(child, child.name)"),),),
    "bug-cmd-columnize": ((("                if totwidth > displaywidth:\n",
                            "                if totwidth >= displaywidth:\n"),),),
    "bug-filecmp-size": ((("    if s1[2] != s2[2]:\n", "    if s1 != s2:\n"),),),
    "bug-rlcompleter-dupes": ((("                if word[:n] == text:\n",
                                "                if word[:n] == text and word not in matches:\n"),),),
}


def expected(task: Task) -> str:
    """A correct result of ``task`` (:func:`bench_sets.expected_result`)."""
    return expected_result(task, SOLUTIONS)


def test_about_24_tasks_on_files_no_other_set_uses() -> None:
    from coder.bench.edits.tasks import TASKS
    from coder.bench.edits.tasks_heldout import HELDOUT

    assert 22 <= len(FRESH) <= 28 and len(BY_NAME) == len(FRESH)
    others = {Path(f).name for t in (*TASKS, *HELDOUT) for f in t.files}
    for task in FRESH:
        assert task.file.startswith("fresh/") and Path(task.file).name not in others and not task.also
    bugs = [t for t in FRESH if t.kind == "bugfix"]
    assert len(bugs) == 5 and {Path(t.file).stem for t in bugs} == set(MODULES)


@pytest.mark.parametrize("task", FRESH, ids=lambda t: t.name)
def test_two_distinct_plain_wordings(task: Task) -> None:
    assert len(task.wordings) == 2
    assert plain_words(task.wordings[0]) != plain_words(task.wordings[1])
    assert not any("`" in w for w in task.wordings)  # as users type them, not as the suite spells names


@pytest.mark.parametrize("task", FRESH, ids=lambda t: t.name)
def test_check_passes_on_the_expected_result_and_fails_on_the_original(task: Task) -> None:
    old = source(task.file)
    ok, why = task.check(old, expected(task))
    assert ok, why
    ok, _ = task.check(old, old)
    assert not ok


@pytest.mark.parametrize("name", sorted(WRONG))
def test_check_fails_on_a_plausible_wrong_result(name: str) -> None:
    task = BY_NAME[name]
    old = source(task.file)
    for edits in WRONG[name]:
        ok, why = task.check(old, replace_once(old, edits))
        assert not ok, why


def test_a_bug_copy_differs_from_its_original_in_at_most_two_lines() -> None:
    import difflib

    for task in (t for t in FRESH if t.kind == "bugfix"):
        bug, fixed = source(task.file).splitlines(), source(task.file.replace("bugs/", "")).splitlines()
        changed = [x for x in difflib.unified_diff(fixed, bug, n=0, lineterm="")
                   if x[:1] in "+-" and not x.startswith(("+++", "---"))]
        assert 1 <= len(changed) <= 4, (task.name, changed)


def test_the_shipped_files_are_the_installed_modules_byte_for_byte() -> None:
    lib = Path("/root/.pyenv/versions/3.11.7/lib/python3.11")
    if not lib.is_dir():
        pytest.skip("no pyenv CPython 3.11.7 here")
    for mod in MODULES:
        assert source(f"fresh/{mod}.py").encode() == (lib / f"{mod}.py").read_bytes()
        assert upstream._shipped(f"test_{mod}.py") == (lib / "test" / f"test_{mod}.py").read_bytes()


@pytest.mark.parametrize("mod", MODULES)
def test_upstream_tests_pass_on_the_original_and_fail_on_most_bugs(mod: str, tmp_path: Path) -> None:
    assert upstream.module_of(f"fresh/{mod}.py") == mod and upstream.module_of(f"fresh/bugs/{mod}.py") == mod
    assert upstream.test_command("bugfix", f"fresh/bugs/{mod}.py") is not None
    good = run_upstream(tmp_path, f"fresh/{mod}.py", source(f"fresh/{mod}.py"))
    assert good.returncode == 0 and "passed" in good.stdout, good.stdout + good.stderr[-2000:]
    bad = run_upstream(tmp_path, f"fresh/bugs/{mod}.py", source(f"fresh/bugs/{mod}.py"))
    if mod != "cmd":  # cmd's doctests have no row of exactly the display width: its bug is not caught
        assert bad.returncode == 1 and "FAILED" in bad.stdout, bad.stdout


@pytest.mark.parametrize("task", [t for t in FRESH if t.kind in upstream.KINDS - {"bugfix"}], ids=lambda t: t.name)
def test_a_correct_change_of_behaviour_passes_the_upstream_tests(task: Task, tmp_path: Path) -> None:
    # coder runs them on a fix before applying it: a request they contradict could never be met
    run = run_upstream(tmp_path, task.file, expected(task))
    assert run.returncode == 0, run.stdout


def test_list_json_set_fresh(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert main(["bench", "--edits", "--list", "--json", "--set", "fresh"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [t.name for t in FRESH]
    assert all(r["wordings"] == list(BY_NAME[r["id"]].wordings) for r in rows)
    argv = ["bench", "--edits", "--list", "--json", "--set", "fresh", "--kinds", "bugfix", "--wordings", "0"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} == {t.name for t in FRESH if t.kind == "bugfix"}
    assert all(r["wordings"] == [BY_NAME[r["id"]].wordings[0]] for r in rows)
    assert main(["bench", "--edits", "--list", "--json"]) == 0  # the default is still the suite
    assert "fresh/" not in capsys.readouterr().out
