"""The second fresh set of ``coder bench --edits --set fresh2``: two distinct wordings per task, each check passes
on a hand-written correct result and fails on the original and on plausible wrong results; each bug is caught by
its task's check; the modules' upstream tests pass on the shipped originals and catch four of the five bugs."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest
from bench_sets import Edits, expected_result, plain_words, run_upstream

from coder.bench.edits import upstream
from coder.bench.edits.checks import replace_once
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_fresh2 import FRESH2

BY_NAME = {t.name: t for t in FRESH2}
MODULES = ("codeop", "linecache", "getpass", "fileinput", "mimetypes")

_LINECACHE = source("fresh2/linecache.py")
_LAZYCACHE = _LINECACHE[_LINECACHE.index("def lazycache("):]
_SEARCH = """        for dirname in sys.path:
            try:
                fullname = os.path.join(dirname, basename)
            except (TypeError, AttributeError):
                # Not sufficiently string-like to do anything useful with.
                continue
            try:
                stat = os.stat(fullname)
                break
            except OSError:
                pass
        else:
            return []
"""
_FIND = """def _find_on_path(basename):
    for dirname in sys.path:
        try:
            fullname = os.path.join(dirname, basename)
        except (TypeError, AttributeError):
            continue
        try:
            return fullname, os.stat(fullname)
        except OSError:
            pass
    return None


"""
_EXTRACT = ((_SEARCH, "        found = _find_on_path(basename)\n        if found is None:\n            return []\n"
                      "        fullname, stat = found\n"),
            ("def updatecache(", _FIND + "def updatecache("))
_RESET = "    def reset(self):\n        self.compiler = Compile()\n\n"
_GETUSER = (("def getuser():", "def getuser(env_vars=('LOGNAME', 'USER', 'LNAME', 'USERNAME')):"),
            ("    for name in ('LOGNAME', 'USER', 'LNAME', 'USERNAME'):", "    for name in env_vars:"))
_TYPES_MAP = "        self.types_map[strict][ext] = type\n"
_ADD_TYPE = (_TYPES_MAP, "        if not ext.startswith('.'):\n            ext = '.' + ext\n" + _TYPES_MAP)

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "codeop-hints-class": (("import warnings\n", "import types\nimport warnings\n"),
                           ("    def __init__(self):\n        self.flags",
                            "    def __init__(self) -> None:\n        self.flags"),
                           ("    def __call__(self, source, filename, symbol, **kwargs):",
                            "    def __call__(self, source: str, filename: str, symbol: str,\n"
                            "                 **kwargs: bool) -> types.CodeType:")),
    "codeop-comment": (("        for feature in _features:\n",
                        "        # a __future__ import stays in force: its flag joins self.flags\n"
                        "        for feature in _features:\n"),),
    "codeop-method": (("    def __call__(self, source, filename=\"<input>\"", _RESET
                       + "    def __call__(self, source, filename=\"<input>\""),),
    "linecache-extract": _EXTRACT,
    "linecache-hints": (("def getline(filename, lineno, module_globals=None):",
                         "def getline(filename: str, lineno: int, module_globals: dict | None = None) -> str:"),),
    "getpass-param": _GETUSER,
    "getpass-docstring": (("    warnings.warn(\"Can not control echo",
                           '    """Read a password with echo on, after a GetPassWarning."""\n'
                           "    warnings.warn(\"Can not control echo"),),
    "fileinput-docstring": (("    if encoding is None and \"b\" not in mode:  # EncodingWarning",
                             '    """Open filename, through gzip or bz2 when it ends in .gz or .bz2."""\n'
                             "    if encoding is None and \"b\" not in mode:  # EncodingWarning"),),
    "fileinput-param": (("def hook_encoded(encoding, errors=None):",
                         "def hook_encoded(encoding, errors=None, newline=None):"),
                        ("encoding=encoding, errors=errors)\n    return openhook",
                         "encoding=encoding, errors=errors, newline=newline)\n    return openhook")),
    "fileinput-comment": (("        self._write_mode = mode.replace('r', 'w')\n",
                           "        # the in-place output file's mode: 'w' or 'wb'\n"
                           "        self._write_mode = mode.replace('r', 'w')\n"),),
    "mimetypes-fix": (_ADD_TYPE,),
    "mimetypes-docstring": (("def init(files=None):\n",
                             'def init(files=None):\n    """Build the database from knownfiles and files."""\n'),),
}

# Plausible wrong results, as edits on the task's original (a bug task's: the buggy copy): each must fail.
WRONG: dict[str, tuple[Edits, ...]] = {
    "codeop-rename": ((("def _maybe_compile(", "def _try_compile("),
                       ("return _maybe_compile(_compile,", "return _try_compile(_compile,")),),  # one caller left
    "codeop-delete": ((("    if rep1 == rep2:\n        return True\n    return False\n",  # shortened, not deleted
                        "    return rep1 == rep2\n"),),),
    "codeop-hints-class": ((SOLUTIONS["codeop-hints-class"][0], SOLUTIONS["codeop-hints-class"][2]),  # __init__ bare
                           (SOLUTIONS["codeop-hints-class"][1],  # types.CodeType never imported
                            SOLUTIONS["codeop-hints-class"][2])),
    "codeop-comment": ((("        codeob = compile(source, filename, symbol, flags, True)\n",
                         "        # remember future imports\n"
                         "        codeob = compile(source, filename, symbol, flags, True)\n"),),),
    "codeop-method": ((("    def __call__(self, source, filename=\"<input>\"",  # the incomplete-input flags lost
                        _RESET.replace("self.compiler = Compile()", "self.compiler.flags = 0")
                        + "    def __call__(self, source, filename=\"<input>\""),),),
    "linecache-move": ((("\n\n" + _LAZYCACHE, "\n"), ("def clearcache(", _LAZYCACHE + "\n\ndef clearcache(")),),
    "linecache-extract": ((_EXTRACT[1],),  # defined, never called
                          ((_SEARCH, _EXTRACT[0][1]),  # the first sys.path entry, found or not
                           ("def updatecache(", _FIND.replace("            return fullname, os.stat(fullname)\n",
                                                              "            return fullname, os.stat(fullname)\n"
                                                              "        except FileNotFoundError:\n"
                                                              "            return None\n") + "def updatecache("))),
    "linecache-hints": ((("def getline(filename, lineno, module_globals=None):",
                          "def getline(filename: str, lineno: int, module_globals=None) -> str:"),),),
    "getpass-param": (_GETUSER[:1],),  # accepted, ignored
    "getpass-docstring": ((("def _raw_input(prompt=\"\", stream=None, input=None):\n",
                            'def _raw_input(prompt="", stream=None, input=None):\n    """Read a line."""\n'),),),
    "getpass-rename": ((("def _raw_input(", "def _read_line("), ("    return _raw_input(prompt, stream)",
                                                                 "    return _read_line(prompt, stream)")),),
    "mimetypes-bools": ((("    strict = 1\n    extension = 0\n", "    strict = True\n    extension = False\n"),
                         ("            strict = 0\n", "            strict = False\n"),
                         ("            extension = 1\n", "            extension = True\n")),),  # while 1 left
    "fileinput-rename-global": ((("    global _state\n    if _state and _state._file:",
                                  "    global _active\n    if _active and _active._file:"),
                                 ("    _state = FileInput(files,", "    _active = FileInput(files,"),
                                 ("    return _state\n\ndef close", "    return _active\n\ndef close")),),
    "fileinput-docstring": ((("def hook_encoded(encoding, errors=None):\n",
                              'def hook_encoded(encoding, errors=None):\n    """An openhook for gz and bz2."""\n'),),),
    "fileinput-param": (SOLUTIONS["fileinput-param"][:1],),
    "fileinput-comment": ((("        self._mode = mode\n", "        # r or rb\n        self._mode = mode\n"),),),
    "mimetypes-fix": ((("    return _db.add_type(type, ext, strict)",  # the module's function only
                        "    if not ext.startswith('.'):\n        ext = '.' + ext\n"
                        "    return _db.add_type(type, ext, strict)"),),
                      ((_TYPES_MAP, "        ext = '.' + ext\n" + _TYPES_MAP),)),  # a dot more on '.qqy' too
    "mimetypes-delete": ((("if __name__ == '__main__':\n    _main()\n", ""),),),
    "mimetypes-rename-local": ((("            return type, None", "            return mime_type, None"),
                                ("                type = url[:semi]", "                mime_type = url[:semi]")),),
    "bug-codeop-future": ((("                flags |= feature.compiler_flag\n",
                            "                flags |= feature.compiler_flag\n        self.flags = flags\n"),),),
    "bug-linecache-last": ((("    if 1 <= lineno < len(lines):", "    if 0 <= lineno < len(lines):"),
                            ("        return lines[lineno - 1]", "        return lines[lineno]")),),  # 0-based now
    "bug-getpass-user": ((("        return user\n", "        if user is not None:\n            return user\n"),),),
    "bug-mimetypes-case": ((("        url = os.fspath(url)\n        scheme",  # the encodings too: .GZ is gzip
                             "        url = os.fspath(url).lower()\n        scheme"),),),
}


def expected(task: Task) -> str:
    """A correct result of ``task`` (:func:`bench_sets.expected_result`)."""
    return expected_result(task, SOLUTIONS)


def test_25_tasks_on_files_no_other_set_uses() -> None:
    from coder.bench.edits.tasks import TASKS
    from coder.bench.edits.tasks_fresh import FRESH
    from coder.bench.edits.tasks_heldout import HELDOUT

    assert len(FRESH2) == 25 and len(BY_NAME) == len(FRESH2)
    others = {Path(f).name for t in (*TASKS, *HELDOUT, *FRESH) for f in t.files}
    for task in FRESH2:
        assert task.file.startswith("fresh2/") and Path(task.file).name not in others and not task.also
    bugs = [t for t in FRESH2 if t.kind == "bugfix"]
    assert len(bugs) == 5 and {Path(t.file).stem for t in bugs} == set(MODULES)
    assert {Path(t.file).stem for t in FRESH2 if t.kind != "bugfix"} == set(MODULES)


def test_a_wrong_result_for_at_least_15_tasks() -> None:
    assert len(WRONG) >= 15 and set(WRONG) <= set(BY_NAME)
    assert set(SOLUTIONS) <= set(BY_NAME)


@pytest.mark.parametrize("task", FRESH2, ids=lambda t: t.name)
def test_two_distinct_plain_wordings(task: Task) -> None:
    assert len(task.wordings) == 2
    assert plain_words(task.wordings[0]) != plain_words(task.wordings[1])
    assert not any("`" in w for w in task.wordings)  # as users type them, not as the suite spells names


@pytest.mark.parametrize("task", FRESH2, ids=lambda t: t.name)
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


def test_a_bug_copy_differs_from_its_original_in_one_place() -> None:
    for task in (t for t in FRESH2 if t.kind == "bugfix"):
        bug, fixed = source(task.file).splitlines(), source(task.file.replace("bugs/", "")).splitlines()
        changed = [x for x in difflib.unified_diff(fixed, bug, n=0, lineterm="")
                   if x[:1] in "+-" and not x.startswith(("+++", "---"))]
        assert 1 <= len(changed) <= 3, (task.name, changed)


def test_the_shipped_files_are_the_installed_modules_byte_for_byte() -> None:
    lib = Path("/root/.pyenv/versions/3.11.7/lib/python3.11")
    if not lib.is_dir():
        pytest.skip("no pyenv CPython 3.11.7 here")
    for mod in MODULES:
        assert source(f"fresh2/{mod}.py").encode() == (lib / f"{mod}.py").read_bytes()
        assert upstream._shipped(f"test_{mod}.py") == (lib / "test" / f"test_{mod}.py").read_bytes()


def test_the_prefixes_keep_fresh2_apart_from_fresh() -> None:
    assert upstream.module_of("fresh2/bugs/getpass.py") == "getpass"
    assert upstream.module_of("fresh2/codeop.py") == "codeop"
    assert upstream.module_of("fresh/bugs/cmd.py") == "cmd" and upstream.module_of("fresh2/cmd.py") == "cmd"
    assert upstream.module_of("fresh2/bugs/nosuch.py") is None
    assert upstream._pristine("linecache") == source("fresh2/linecache.py")
    assert upstream._pristine("zipapp") == source("fresh/zipapp.py")


@pytest.mark.parametrize("mod", MODULES)
def test_upstream_tests_pass_on_the_original_and_fail_on_most_bugs(mod: str, tmp_path: Path) -> None:
    assert upstream.module_of(f"fresh2/{mod}.py") == mod and upstream.module_of(f"fresh2/bugs/{mod}.py") == mod
    assert upstream.test_command("bugfix", f"fresh2/bugs/{mod}.py") is not None
    good = run_upstream(tmp_path, f"fresh2/{mod}.py", source(f"fresh2/{mod}.py"))
    assert good.returncode == 0 and "passed" in good.stdout, good.stdout + good.stderr[-2000:]
    bad = run_upstream(tmp_path, f"fresh2/bugs/{mod}.py", source(f"fresh2/bugs/{mod}.py"))
    if mod != "codeop":  # codeop's tests never compile after a __future__ import: its bug is not caught
        assert bad.returncode == 1 and "FAILED" in bad.stdout, bad.stdout


@pytest.mark.parametrize("task", [t for t in FRESH2 if t.kind in upstream.KINDS], ids=lambda t: t.name)
def test_a_correct_change_of_behaviour_or_fix_passes_the_upstream_tests(task: Task, tmp_path: Path) -> None:
    # coder runs them on a fix before applying it: a request they contradict could never be met
    run = run_upstream(tmp_path, task.file, expected(task))
    assert run.returncode == 0, run.stdout


def test_list_json_set_fresh2(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert main(["bench", "--edits", "--list", "--json", "--set", "fresh2"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [t.name for t in FRESH2]
    assert all(r["wordings"] == list(BY_NAME[r["id"]].wordings) for r in rows)
    argv = ["bench", "--edits", "--list", "--json", "--set", "fresh2", "--kinds", "bugfix", "--wordings", "1"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} == {t.name for t in FRESH2 if t.kind == "bugfix"}
    assert all(r["wordings"] == [BY_NAME[r["id"]].wordings[1]] for r in rows)
    assert main(["bench", "--edits", "--list", "--json", "--set", "fresh"]) == 0  # the fresh set is still its own
    assert "fresh2/" not in capsys.readouterr().out
