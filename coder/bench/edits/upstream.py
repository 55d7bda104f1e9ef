"""The module's own upstream tests, as the test command of a bug-fix task's repository.

A project with tests gets its fixes checked by them: coder runs the configured ``test_command`` on
every proposal before applying it (:mod:`coder.edit.checks.user_commands`), and asks once more with the
failing tests named (:mod:`coder.edit.run.retry`). The bench's files are CPython modules, whose tests
are CPython's ``Lib/test/test_<module>.py`` (code's: ``test_code_module.py``; ``_strptime``'s and
``_threading_local``'s: ``test_strptime.py`` and ``test_threading_local.py``). They are shipped here
(``files/upstream/``, version 3.11.7 like the modules, with the ``test.support`` helpers they import), so a
bug-fix task (kinds in :data:`KINDS`) runs in a repository that has them, as a user's project would. The
bench's own judge (:mod:`coder.bench.edits.checks`) is separate code, written for each task, and still decides
what is correct; the upstream tests only decide what coder refuses.

Run as ``python -m coder.bench.edits.upstream FILE`` in the repository (or the copy coder checks in): it
imports ``FILE`` under its standard-library name (``bugs/graphlib.py`` as ``graphlib``) from a private
folder placed first on ``sys.path``, runs that module's upstream tests, and exits 1 when any fails. Its
last lines name each failing test and its assertion, which is what a retry is told.

A test that fails on the unmodified module under this interpreter is no verdict on an edit, so it is left
out: tabnanny's compares the usage line of ``python -I -m tabnanny`` (the interpreter's own copy) with the
staged copy's path, and on Python 3.12 (the H200's) ten of its tests read the tokenizer's new messages.
Which tests those are is found once per interpreter and module, by the same run on the shipped original,
and kept in the temporary folder.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest
from importlib import resources
from pathlib import Path

from coder.bench.edits.taskdef import source

KINDS = frozenset({"fix", "bugfix", "default"})  # the tasks that change behaviour: what tests are for
# every module whose upstream test file is shipped (wsgiref's imports test_httpservers and a server: left out)
MODULES = frozenset({"base64", "cmd", "code", "codeop", "colorsys", "copy", "filecmp", "fileinput", "fnmatch",
                     "getopt", "getpass", "gettext", "glob", "graphlib", "gzip", "linecache", "lzma", "mimetypes",
                     "netrc", "py_compile", "queue", "quopri", "reprlib", "rlcompleter", "sched", "shlex", "string",
                     "symtable", "tabnanny", "textwrap", "timeit", "tracemalloc", "types", "zipapp", "_strptime",
                     "_threading_local", "heapq", "operator", "bz2", "modulefinder", "stringprep", "pprint",
                     "contextlib", "hmac", "calendar", "fractions", "uuid", "webbrowser",
                     "shelve", "pkgutil", "selectors", "plistlib", "pty", "copyreg", "profile", "socketserver",
                     "functools", "bdb", "weakref", "statistics", "_py_abc",
                     "secrets", "_markupbase", "random", "optparse", "difflib"})
# the test module of a module whose tests are not test_<module> (test_code tests code objects; a private module's
# tests drop its underscore; _py_abc's are test_abc, which runs them on both ABCMeta implementations; _markupbase's
# are test_htmlparser, whose html.parser imports the staged _markupbase)
_TEST_MODULES = {"code": "test_code_module", "_strptime": "test_strptime", "_threading_local": "test_threading_local",
                 "_py_abc": "test_abc", "_markupbase": "test_htmlparser"}
# the other test modules a module's tests import, shipped beside them (test_pprint builds its sets with test_set's
# cube and linegraph; test_shelve takes test_dbm's dbm_iterator and mapping_tests' BasicTestMappingProtocol;
# test_copyreg pickletester's ExtensionSaver; test_profile profilee's testfunc and timer; test_weakref
# mapping_tests' BasicTestMappingProtocol)
_ALSO_TESTS = {"pprint": ("test_set",), "shelve": ("test_dbm", "mapping_tests"), "copyreg": ("pickletester",),
               "profile": ("profilee",), "weakref": ("mapping_tests",)}
# the folders of the written-apart sets under files/ (the suite's files are at its top)
_SET_FOLDERS = ("heldout/", "fresh/", "fresh2/", "fresh3/", "fresh4/", "fresh5/", "fresh6/", "fresh7/", "fresh8/",
                "fresh9/", "fresh10/")
# longer prefixes first: fresh10/bugs/ before fresh10/ and fresh9/bugs/ before fresh9/; "fresh/" is no prefix of
# "fresh2/" to "fresh10/"
_PREFIXES = (*sorted((p for f in _SET_FOLDERS for p in (f + "bugs/", f)), key=len, reverse=True), "bugs/")
_RAISED = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Iteration|Warning)\b")
_SHOWN = 6  # failing tests named in the last lines
_LINE = 180


def module_of(rel: str) -> str | None:
    """The standard-library name of the task file ``rel`` when its tests are shipped (``bugs/glob.py``: glob)."""
    for prefix in _PREFIXES:
        if rel.startswith(prefix):
            rel = rel[len(prefix):]
            break
    name = rel[:-3] if rel.endswith(".py") else ""
    return name if name in MODULES else None


def test_command(kind: str, rel: str) -> str | None:
    """The ``test_command`` of a task of ``kind`` on ``rel``, or None when it runs without one."""
    if kind not in KINDS or module_of(rel) is None:
        return None
    return f"{shlex.quote(sys.executable)} -m coder.bench.edits.upstream {shlex.quote(rel)}"


def upstream_tests(name: str) -> str:
    """The name of the upstream test module of module ``name`` (``test_glob``; code's: ``test_code_module``;
    ``_strptime``'s: ``test_strptime``)."""
    return _TEST_MODULES.get(name, f"test_{name}")


def _shipped(rel: str) -> bytes:
    node = resources.files("coder.bench.edits") / "files" / "upstream"
    for part in f"{rel}.txt".split("/"):
        node = node / part
    return node.read_bytes()


def _stage(folder: Path, file: Path, name: str) -> None:
    """``file`` as ``folder/name.py``, the module's test file and the ``test`` package it imports beside it."""
    (folder / f"{name}.py").write_bytes(file.read_bytes())
    (folder / f"{upstream_tests(name)}.py").write_bytes(_shipped(f"{upstream_tests(name)}.py"))
    support = folder / "test" / "support"
    support.mkdir(parents=True)
    (folder / "test" / "__init__.py").write_bytes(_shipped("test/__init__.py"))
    for other in _ALSO_TESTS.get(name, ()):
        (folder / "test" / f"{other}.py").write_bytes(_shipped(f"{other}.py"))
    for helper in ("__init__", "os_helper", "script_helper", "threading_helper", "import_helper", "warnings_helper",
                   "hashlib_helper", "socket_helper"):
        (support / f"{helper}.py").write_bytes(_shipped(f"test/support/{helper}.py"))


def _raised(trace: str) -> str:
    """The line that says what was raised (``AssertionError: 'Abc-Def' != 'Abc Def'``), not a diff's last line."""
    lines = [x.strip() for x in trace.splitlines() if x.strip()]
    said = [x for x in lines if _RAISED.match(x)]
    line = said[-1] if said else lines[-1] if lines else ""
    return line if len(line) <= _LINE else line[:_LINE - 3] + "..."


def _tests(suite: unittest.TestSuite, skipped: frozenset[str]) -> unittest.TestSuite:
    kept = unittest.TestSuite()
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            kept.addTest(_tests(test, skipped))
        elif getattr(test, "_testMethodName", "") not in skipped:
            kept.addTest(test)
    return kept


def _failing(result: unittest.TestResult) -> list[tuple[str, str]]:
    """``(method, trace)`` of each failure and error; a failing subtest names its test method."""
    return [(getattr(getattr(t, "test_case", t), "_testMethodName", str(t)), trace)
            for t, trace in [*result.errors, *result.failures]]


def _pristine(name: str) -> str:
    """The shipped unmodified text of module ``name``: ``files/NAME.py``, else in a set's folder."""
    for folder in ("", *_SET_FOLDERS[:-1]):
        try:
            return source(f"{folder}{name}.py")
        except FileNotFoundError:
            continue
    return source(f"{_SET_FOLDERS[-1]}{name}.py")


def _broken(name: str) -> frozenset[str]:
    """The test methods of ``name`` that fail on its unmodified text under this interpreter (cached)."""
    text = _pristine(name)
    key = hashlib.sha256(f"{sys.version}\0{text}".encode()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / f"coder-upstream-{name}-{key}.json"
    try:
        return frozenset(json.loads(cache.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pass
    with tempfile.TemporaryDirectory(prefix="coder-pristine-") as tmp:
        (Path(tmp) / f"{name}.py").write_text(text, encoding="utf-8")
        proc = subprocess.run([sys.executable, "-m", "coder.bench.edits.upstream", "--list-failing", f"{name}.py"],
                              cwd=tmp, capture_output=True, text=True, timeout=300, check=False)
    lines = proc.stdout.strip().splitlines()
    failing = json.loads(lines[-1]) if lines else []
    part = cache.with_suffix(f".{os.getpid()}")
    part.write_text(json.dumps(failing), encoding="utf-8")
    os.replace(part, cache)  # several checks may race to write it: each writes the same list
    return frozenset(failing)


def run(file: Path, *, list_failing: bool = False) -> int:
    """Run the upstream tests of ``file`` (a path in the cwd); print a summary last; 0 when all pass.

    ``list_failing``: run every test and print only the failing methods' names, as one JSON list.
    """
    name = module_of(file.as_posix())
    if name is None:
        print(f"no upstream tests are shipped for {file}")
        return 2
    skipped = frozenset() if list_failing else _broken(name)
    folder = Path(tempfile.mkdtemp(prefix="coder-upstream-"))
    try:
        _stage(folder, file, name)
        cwd = str(Path.cwd())
        sys.path[:] = [str(folder), *(p for p in sys.path if p not in ("", cwd))]  # no file of the tree shadows
        for loaded in [m for m in sys.modules if m == name or m == "test" or m.startswith("test.")]:
            del sys.modules[loaded]  # string, copy, ... are imported at start: the tests must get the file's
        importlib.import_module(name)
        suite = _tests(unittest.defaultTestLoader.loadTestsFromName(upstream_tests(name)), skipped)
        stream = io.StringIO()
        result = unittest.TextTestRunner(stream=stream, verbosity=0).run(suite)
        sys.stderr.write(stream.getvalue())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    bad = _failing(result)
    if list_failing:
        print(json.dumps(sorted({method for method, _ in bad})))
        return 0
    for method, trace in bad[:_SHOWN]:
        print(f"FAILED {method}: {_raised(trace)}")
    left = f" ({len(skipped)} left out, failing on the unmodified module here)" if skipped else ""
    print(f"upstream tests of {name}: {len(bad)} of {result.testsRun} failed{left}" if bad
          else f"upstream tests of {name}: {result.testsRun} passed{left}")
    return 1 if bad else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    listing = args[:1] == ["--list-failing"]
    if len(args) != 1 + listing:
        sys.exit("usage: python -m coder.bench.edits.upstream [--list-failing] FILE")
    sys.exit(run(Path(args[-1]), list_failing=listing))
