"""The second fresh set of ``coder bench --edits --set fresh2``: two distinct wordings per task, each check passes
on a hand-written correct result and fails on the original and on plausible wrong results; each bug is caught by
its task's check; the modules' upstream tests pass on the shipped originals and catch four of the five bugs."""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coder.bench.edits import upstream
from coder.bench.edits.checks import Exact, Renamed, SameAst, rename_names, replace_once
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_fresh2 import FRESH2

BY_NAME = {t.name: t for t in FRESH2}
MODULES = ("codeop", "uu", "xdrlib", "fileinput", "mimetypes")
Edits = tuple[tuple[str, str], ...]

_UU = source("fresh2/uu.py")
_DECODE = _UU[_UU.index("def decode(in_file"):_UU.index("def test():")]
_READ45 = (("        data = in_file.read(45)\n        while",
            "        data = in_file.read(bytes_per_line)\n        while"),
           ("            data = in_file.read(45)\n", "            data = in_file.read(bytes_per_line)\n"))
_UU_PARAM = (("mode=None, *, backtick=False):", "mode=None, *, backtick=False, bytes_per_line=45):"), *_READ45)
_TAKE = """    def _take(self, n):
        i = self.__pos
        self.__pos = j = i+n
        data = self.__buf[i:j]
        if len(data) < n:
            raise EOFError
        return data

"""


def _fixed(name: str, size: int, fmt: str) -> tuple[str, str]:
    """The body of Unpacker.NAME (a fixed-size unpack) as it is, and as it reads when it calls _take."""
    return (f"""    def {name}(self):
        i = self.__pos
        self.__pos = j = i+{size}
        data = self.__buf[i:j]
        if len(data) < {size}:
            raise EOFError
        return struct.unpack('{fmt}', data)[0]
""", f"""    def {name}(self):
        return struct.unpack('{fmt}', self._take({size}))[0]
""")


_EXTRACT = (("    def unpack_uint(self):\n", _TAKE + "    def unpack_uint(self):\n"),
            _fixed("unpack_uint", 4, ">L"), _fixed("unpack_int", 4, ">l"), _fixed("unpack_float", 4, ">f"),
            _fixed("unpack_double", 8, ">d"))
_OPTIONAL = """    def unpack_optional(self, unpack_item):
        if self.unpack_bool():
            return unpack_item()
        return None

"""
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
    "uu-param": _UU_PARAM,
    "uu-docstring": (("class Error(Exception):\n    pass\n",
                      'class Error(Exception):\n    """Raised when a uuencoded input cannot be decoded."""\n'),),
    "xdrlib-method": (("    def unpack_farray(self, n, unpack_item):\n",
                       _OPTIONAL + "    def unpack_farray(self, n, unpack_item):\n"),),
    "xdrlib-hints": (("    def pack_fstring(self, n, s):", "    def pack_fstring(self, n: int, s: bytes) -> None:"),),
    "xdrlib-extract": _EXTRACT,
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
    "uu-fstrings": ((("'begin %o %s\\n' % ((mode & 0o777), name)", "f'begin {mode & 0o777} {name}\\n'"),
                     ('"Warning: %s\\n" % v', 'f"Warning: {v}\\n"')),  # the mode in decimal, not octal
                    (('"Warning: %s\\n" % v', 'f"Warning: {v}\\n"'),)),  # the begin line left
    "uu-param": (_UU_PARAM[:1],  # accepted, ignored
                 _UU_PARAM[:2]),  # the first line only
    "uu-move": (((_DECODE, ""), ("if __name__ == '__main__':", _DECODE + "if __name__ == '__main__':")),),  # below
    "uu-docstring": ((('    """Uuencode file"""', '    """Uuencode file; raises Error"""'),),),  # not on Error
    "xdrlib-rename-list": ((("    def pack_list(self, list, pack_item):\n        for item in list:",
                             "    def pack_list(self, items, pack_item):\n        for item in items:"),),),
    "xdrlib-method": ((("    def unpack_farray(self, n, unpack_item):\n",
                        _OPTIONAL.replace("return None", "return False")
                        + "    def unpack_farray(self, n, unpack_item):\n"),),
                      (("    def unpack_farray(self, n, unpack_item):\n",  # the flag never read
                        "    def unpack_optional(self, unpack_item):\n        return unpack_item()\n\n"
                        "    def unpack_farray(self, n, unpack_item):\n"),),),
    "xdrlib-hints": ((("    def pack_fstring(self, n, s):", "    def pack_fstring(self, n: int, s: bytes):"),),
                     (("    def pack_string(self, s):", "    def pack_string(self, s: bytes) -> None:"),)),
    "xdrlib-extract": ((_EXTRACT[0], _EXTRACT[1], _EXTRACT[2], _EXTRACT[3]),  # unpack_double left as it was
                       (("    def unpack_uint(self):\n",  # _take never moves the position
                         _TAKE.replace("self.__pos = j = i+n", "j = i+n") + "    def unpack_uint(self):\n"),
                        *_EXTRACT[1:])),
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
    "bug-uu-backtick": ((("b' \\nend\\n')\n    finally", "b'`\\nend\\n')\n    finally"),  # both lines a backtick
                         ("        if backtick:\n            out_file.write(b' \\nend\\n')",
                          "        if backtick:\n            out_file.write(b'`\\nend\\n')")),),
    "bug-xdrlib-hyper": ((("        return int(hi)<<32 + lo", "        return int(hi)*32 + lo"),),),
    "bug-mimetypes-case": ((("        url = os.fspath(url)\n        scheme",  # the encodings too: .GZ is gzip
                             "        url = os.fspath(url).lower()\n        scheme"),),),
}


def expected(task: Task) -> str:
    """A correct result of ``task``: the check's own expected text, the renamed file, the original of a bug copy,
    or the hand-written solution."""
    old = source(task.file)
    if isinstance(task.check, Exact | SameAst):
        return task.check.expected(old)
    if isinstance(task.check, Renamed):
        return rename_names(old, task.check.old, task.check.new)
    if task.file.startswith("fresh2/bugs/"):
        return source(task.file.replace("bugs/", ""))
    return replace_once(old, SOLUTIONS[task.name])


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9_]+", text.lower()))


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
    assert _words(task.wordings[0]) != _words(task.wordings[1])
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


def test_a_bug_copy_differs_from_its_original_in_one_line() -> None:
    for task in (t for t in FRESH2 if t.kind == "bugfix"):
        bug, fixed = source(task.file).splitlines(), source(task.file.replace("bugs/", "")).splitlines()
        changed = [x for x in difflib.unified_diff(fixed, bug, n=0, lineterm="")
                   if x[:1] in "+-" and not x.startswith(("+++", "---"))]
        assert 1 <= len(changed) <= 2, (task.name, changed)


def test_the_shipped_files_are_the_installed_modules_byte_for_byte() -> None:
    lib = Path("/root/.pyenv/versions/3.11.7/lib/python3.11")
    if not lib.is_dir():
        pytest.skip("no pyenv CPython 3.11.7 here")
    for mod in MODULES:
        assert source(f"fresh2/{mod}.py").encode() == (lib / f"{mod}.py").read_bytes()
        assert upstream._shipped(f"test_{mod}.py") == (lib / "test" / f"test_{mod}.py").read_bytes()


def test_the_prefixes_keep_fresh2_apart_from_fresh() -> None:
    assert upstream.module_of("fresh2/bugs/uu.py") == "uu" and upstream.module_of("fresh2/codeop.py") == "codeop"
    assert upstream.module_of("fresh/bugs/cmd.py") == "cmd" and upstream.module_of("fresh2/cmd.py") == "cmd"
    assert upstream.module_of("fresh2/bugs/nosuch.py") is None
    assert upstream._pristine("xdrlib") == source("fresh2/xdrlib.py")
    assert upstream._pristine("zipapp") == source("fresh/zipapp.py")


def _upstream(tmp_path: Path, rel: str, text: str) -> subprocess.CompletedProcess[str]:
    """The upstream tests of ``text`` written as ``rel`` in ``tmp_path``, run as a bug-fix task's repository
    runs them."""
    (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / rel).write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-m", "coder.bench.edits.upstream", rel], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("mod", MODULES)
def test_upstream_tests_pass_on_the_original_and_fail_on_most_bugs(mod: str, tmp_path: Path) -> None:
    assert upstream.module_of(f"fresh2/{mod}.py") == mod and upstream.module_of(f"fresh2/bugs/{mod}.py") == mod
    assert upstream.test_command("bugfix", f"fresh2/bugs/{mod}.py") is not None
    good = _upstream(tmp_path, f"fresh2/{mod}.py", source(f"fresh2/{mod}.py"))
    assert good.returncode == 0 and "passed" in good.stdout, good.stdout + good.stderr[-2000:]
    bad = _upstream(tmp_path, f"fresh2/bugs/{mod}.py", source(f"fresh2/bugs/{mod}.py"))
    if mod != "codeop":  # codeop's tests never compile after a __future__ import: its bug is not caught
        assert bad.returncode == 1 and "FAILED" in bad.stdout, bad.stdout


@pytest.mark.parametrize("task", [t for t in FRESH2 if t.kind in upstream.KINDS], ids=lambda t: t.name)
def test_a_correct_change_of_behaviour_or_fix_passes_the_upstream_tests(task: Task, tmp_path: Path) -> None:
    # coder runs them on a fix before applying it: a request they contradict could never be met
    run = _upstream(tmp_path, task.file, expected(task))
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
