"""The third fresh set of ``coder bench --edits --set fresh3``: two distinct wordings per task, each check passes on
a hand-written correct result and fails on the original and on a plausible wrong result (one at least for every
task); each bug is caught by its task's check; the modules' upstream tests pass on the shipped originals and catch
all five bugs (``scripts/dev/fresh_sets_on.py`` runs these tests under a Python without pytest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_sets import (
    Edits,
    assert_listed,
    assert_one_line_bug,
    assert_shipped_as_installed,
    assert_two_wordings,
    assert_upstream_catches_the_bug,
    expected_result,
    run_upstream,
)

from coder.bench.edits import upstream
from coder.bench.edits.checks import replace_once
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_fresh3 import _COMPARE, _FILENAME, _ONE_LINERS, FRESH3

BY_NAME = {t.name: t for t in FRESH3}
MODULES = ("py_compile", "code", "tracemalloc", "gettext", "gzip")

_BLOCK = ("try:\n", "    stat = stats[traceback]\n", "    stat.size += size\n", "    stat.count += 1\n",
          "except KeyError:\n", "    stats[traceback] = Statistic(traceback, size, 1)\n")


def _block(indent: int) -> str:
    return "".join(" " * indent + line for line in _BLOCK)


_ADD = "def _add_to_stats(stats, traceback, size):\n" + _block(4) + "\n\n"
_EXTRACT = ((_block(16), " " * 16 + "_add_to_stats(stats, traceback, size)\n"),
            (_block(20), " " * 20 + "_add_to_stats(stats, traceback, size)\n"),
            ("class Snapshot:", _ADD + "class Snapshot:"))
_PUSHLINES = ("    def pushlines(self, lines):\n        more = False\n        for line in lines:\n"
              "            more = self.push(line)\n        return more\n\n")
_RAW_INPUT = '    def raw_input(self, prompt=""):'
_COMPILE_DEF = ("def compile(file, cfile=None, dfile=None, doraise=False, optimize=-1,\n"
                "            invalidation_mode=None, quiet=0):")
_COMPILE_HINTS = ("def compile(file: str, cfile: str | None = None, dfile: str | None = None, doraise: bool = False,\n"
                  "            optimize: int = -1, invalidation_mode: PycInvalidationMode | None = None,\n"
                  "            quiet: int = 0)")
_COMPRESS_DEF = "def compress(data, compresslevel=_COMPRESS_LEVEL_BEST, *, mtime=None):"
_COMPRESS_HINTS = "def compress(data: bytes, compresslevel: int = _COMPRESS_LEVEL_BEST, *, mtime: float | None = None)"
_INTERACT_DEF = "def interact(banner=None, readfunc=None, local=None, exitmsg=None):"
_FIND_STR = ("    # now normalize and expand the languages\n",
             "    if isinstance(languages, str):\n        languages = [languages]\n"
             "    # now normalize and expand the languages\n")

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "py_compile-hints": ((_COMPILE_DEF, _COMPILE_HINTS + " -> str | None:"),),
    "py_compile-docstring": (("class PycInvalidationMode(enum.Enum):\n",
                              'class PycInvalidationMode(enum.Enum):\n    """How a .pyc is checked against its '
                              'source."""\n'),),
    "py_compile-param": (("def main():\n", "def main(argv=None):\n"),
                         ("    args = parser.parse_args()\n", "    args = parser.parse_args(argv)\n")),
    "code-method": ((_RAW_INPUT, _PUSHLINES + _RAW_INPUT),),
    "code-comment": (('        source = "\\n".join(self.buffer)\n',
                      "        # every line typed so far is compiled again, so a block runs once complete\n"
                      '        source = "\\n".join(self.buffer)\n'),),
    "code-param": ((_INTERACT_DEF, _INTERACT_DEF.replace("None)", "None, filename='<console>')")),
                   ("    console = InteractiveConsole(local)\n",
                    "    console = InteractiveConsole(local, filename)\n")),
    "tracemalloc-docstring": (("    def format(self, limit=None, most_recent_first=False):\n",
                               "    def format(self, limit=None, most_recent_first=False):\n"
                               '        """The frames as the lines of a Python traceback."""\n'),),
    "tracemalloc-extract": _EXTRACT,
    "gettext-comment": (("    while frame.f_back is not None",
                         "    # climb out of gettext's own frames: the warning names the caller's line\n"
                         "    while frame.f_back is not None"),),
    "gettext-fix": (_FIND_STR,),
    "gzip-hints": ((_COMPRESS_DEF, _COMPRESS_HINTS + " -> bytes:"),),
    "gzip-docstring": (("    def write(self,data):\n",
                        '    def write(self,data):\n        """Compress and write data; the bytes taken."""\n'),),
}

# Plausible wrong results, as edits on the task's original (a bug task's: the buggy copy): each must fail.
WRONG: dict[str, tuple[Edits, ...]] = {
    "py_compile-rename": ((("def _get_default_invalidation_mode():", "def _default_invalidation_mode():"),),),
    "py_compile-hints": (((_COMPILE_DEF, _COMPILE_HINTS + ":"),),  # no return annotation
                         ((_COMPILE_DEF, _COMPILE_HINTS + " -> Optional[str]:"),)),  # Optional never imported
    "py_compile-docstring": ((("def _get_default_invalidation_mode():\n",  # the function beside it
                               'def _get_default_invalidation_mode():\n    """TIMESTAMP or CHECKED_HASH."""\n'),),),
    "py_compile-param": ((("def main():\n", "def main(argv=None):\n"),),  # accepted, ignored
                         (("def main():\n", "def main(argv):\n"),  # required: main() no longer runs
                          ("    args = parser.parse_args()\n", "    args = parser.parse_args(argv)\n"))),
    "code-rename": ((("        self.resetbuffer()\n\n    def resetbuffer(self):",  # interact's call left
                      "        self.reset_buffer()\n\n    def reset_buffer(self):"),
                     ("            self.resetbuffer()\n        return more", "            self.reset_buffer()\n"
                                                                           "        return more")),),
    "code-method": (((_RAW_INPUT, _PUSHLINES.replace("(self, lines)", "(self, lines, filename)") + _RAW_INPUT),),
                    ((_RAW_INPUT, _PUSHLINES.replace("more = False", "more = None") + _RAW_INPUT),)),
    "code-comment": ((("        self.buffer.append(line)\n",
                       "        # the buffer is compiled as a whole\n        self.buffer.append(line)\n"),),),
    "code-param": ((SOLUTIONS["code-param"][0],),  # accepted, never passed on
                   ((_INTERACT_DEF, _INTERACT_DEF.replace("exitmsg=None)", "exitmsg=None, filename=None)")),
                    SOLUTIONS["code-param"][1])),
    "tracemalloc-delete": ((("        super().__init__(inclusive)\n        self.inclusive = inclusive\n",
                             "        self.inclusive = inclusive\n"),),),
    "tracemalloc-docstring": ((('    def __repr__(self):\n        s = f"<Traceback',
                                '    def __repr__(self):\n        """The repr."""\n        s = f"<Traceback'),),),
    "tracemalloc-move": (((_COMPARE, ""), ("def take_snapshot():", _COMPARE + "def take_snapshot():")),),
    "tracemalloc-extract": ((_EXTRACT[2],),  # defined, never called
                            (*_EXTRACT[:2], ("class Snapshot:", _ADD.replace("        stat.count += 1\n", "")
                                             + "class Snapshot:"))),
    "gettext-rename": ((("languages=None, all=False):", "languages=None, all_files=False):"),
                        ("    if all:\n        result = []", "    if all_files:\n        result = []"),
                        ("            if all:\n", "            if all_files:\n")),),  # translation's call left
    "gettext-comment": ((("    stacklevel = 2\n", "    # skip our own frames\n    stacklevel = 2\n"),),),
    "gettext-transform": (_ONE_LINERS[:4],),  # dngettext and dnpgettext left
    "gettext-fix": ((("    mofiles = find(domain, localedir, languages, all=True)\n",  # translation only
                      "    if isinstance(languages, str):\n        languages = [languages]\n"
                      "    mofiles = find(domain, localedir, languages, all=True)\n"),),
                    ((_FIND_STR[0], "    if not isinstance(languages, list):\n        languages = [languages]\n"
                      + _FIND_STR[0]),)),  # a tuple of languages becomes one language
    "gzip-rename": ((("def write32u(output, value):", "def _write_u32(output, value):"),
                     ("        write32u(self.fileobj, int(mtime))", "        _write_u32(self.fileobj, int(mtime))")),),
    "gzip-delete": (((_FILENAME + '    @property\n    def mtime(self):\n        """Last modification time read from '
                      'stream, or None"""\n        return self._buffer.raw._last_mtime\n\n', ""),),),
    "gzip-hints": (((_COMPRESS_DEF, _COMPRESS_HINTS.replace("mtime: float | None", "mtime") + " -> bytes:"),),
                   ((_COMPRESS_DEF, _COMPRESS_HINTS.replace("float | None", "Optional[float]") + " -> bytes:"),)),
    "gzip-docstring": ((("    def read(self, size=-1):\n        self._check_not_closed()",
                         '    def read(self, size=-1):\n        """Read and uncompress."""\n'
                         "        self._check_not_closed()"),),),
    "bug-py_compile-hash": ((("        return PycInvalidationMode.CHECKED_HASH",  # the default, not the flag
                              "        return PycInvalidationMode.UNCHECKED_HASH"),),
                            (("(invalidation_mode == PycInvalidationMode.UNCHECKED_HASH)",
                              "(invalidation_mode != PycInvalidationMode.CHECKED_HASH)"),)),
    "bug-code-traceback": ((("sys.excepthook(ei[0], ei[1], last_tb)",  # the other branch
                             "sys.excepthook(ei[0], ei[1], last_tb.tb_next)"),),),
    "bug-tracemalloc-freed": ((("StatisticDiff(traceback, 0, stat.size, 0, -stat.count)",
                                "StatisticDiff(traceback, 0, -stat.size, 0, stat.count)"),),),
    "bug-gettext-context": ((("        ctxt_msg_id = self.CONTEXT % (message, context)\n",
                              "        ctxt_msg_id = message\n"),),),  # the entry without a context
    "bug-gzip-extra": ((("        _read_exact(fp, extra_len)\n", ""),),),
}


def expected(task: Task) -> str:
    """A correct result of ``task`` (:func:`bench_sets.expected_result`)."""
    return expected_result(task, SOLUTIONS)


def test_25_tasks_on_files_no_other_set_uses() -> None:
    from coder.bench.edits.tasks import TASKS
    from coder.bench.edits.tasks_fresh import FRESH
    from coder.bench.edits.tasks_fresh2 import FRESH2
    from coder.bench.edits.tasks_heldout import HELDOUT

    assert len(FRESH3) == 25 and len(BY_NAME) == len(FRESH3)
    others = {Path(f).name for t in (*TASKS, *HELDOUT, *FRESH, *FRESH2) for f in t.files}
    for task in FRESH3:
        assert task.file.startswith("fresh3/") and Path(task.file).name not in others and not task.also
    bugs = [t for t in FRESH3 if t.kind == "bugfix"]
    assert len(bugs) == 5 and {Path(t.file).stem for t in bugs} == set(MODULES)
    for mod in MODULES:  # four tasks and a bug on each module
        assert sum(Path(t.file).stem == mod for t in FRESH3) == 5
    assert not [a.name for a in FRESH3 for b in FRESH3 if a is not b and b.name.startswith(a.name)]


def test_the_kinds_are_those_of_fresh2() -> None:
    kinds = [t.kind for t in FRESH3]
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "rename": 4, "delete": 2, "hints": 2, "comment": 2, "docstring": 3, "param": 2, "method": 1, "move": 1,
        "extract": 1, "transform": 1, "fix": 1, "bugfix": 5}


def test_a_wrong_result_for_every_task() -> None:
    assert set(WRONG) == set(BY_NAME)
    assert set(SOLUTIONS) <= set(BY_NAME)


@pytest.mark.parametrize("task", FRESH3, ids=lambda t: t.name)
def test_two_distinct_plain_wordings(task: Task) -> None:
    assert_two_wordings(task)  # as users type them, not as the suite spells names


@pytest.mark.parametrize("task", FRESH3, ids=lambda t: t.name)
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
    for task in (t for t in FRESH3 if t.kind == "bugfix"):
        assert_one_line_bug(task)


def test_the_shipped_files_are_the_installed_modules_byte_for_byte() -> None:
    assert_shipped_as_installed("fresh3", MODULES)


def test_every_file_is_listed_with_its_licence_and_each_bug_in_the_table() -> None:
    assert_listed(FRESH3, MODULES)


def test_the_prefixes_keep_fresh3_apart_from_fresh_and_fresh2() -> None:
    assert upstream.module_of("fresh3/bugs/gzip.py") == "gzip"
    assert upstream.module_of("fresh3/py_compile.py") == "py_compile"
    assert upstream.module_of("fresh2/bugs/getpass.py") == "getpass" and upstream.module_of("fresh/cmd.py") == "cmd"
    assert upstream.module_of("fresh3/bugs/nosuch.py") is None
    assert upstream._pristine("gettext") == source("fresh3/gettext.py")
    assert upstream._pristine("linecache") == source("fresh2/linecache.py")
    assert upstream.upstream_tests("code") == "test_code_module" and upstream.upstream_tests("gzip") == "test_gzip"


@pytest.mark.parametrize("mod", MODULES)
def test_upstream_tests_pass_on_the_original_and_fail_on_each_bug(mod: str, tmp_path: Path) -> None:
    assert_upstream_catches_the_bug(tmp_path, "fresh3", mod)


@pytest.mark.parametrize("task", [t for t in FRESH3 if t.kind in upstream.KINDS], ids=lambda t: t.name)
def test_a_correct_change_of_behaviour_or_fix_passes_the_upstream_tests(task: Task, tmp_path: Path) -> None:
    # coder runs them on a fix before applying it: a request they contradict could never be met
    run = run_upstream(tmp_path, task.file, expected(task))
    assert run.returncode == 0, run.stdout


def test_list_json_set_fresh3(capsys: pytest.CaptureFixture[str]) -> None:
    from coder.cli.main import main

    assert main(["bench", "--edits", "--list", "--json", "--set", "fresh3"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [t.name for t in FRESH3]
    assert all(r["wordings"] == list(BY_NAME[r["id"]].wordings) for r in rows)
    argv = ["bench", "--edits", "--list", "--json", "--set", "fresh3", "--kinds", "bugfix", "--wordings", "1"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} == {t.name for t in FRESH3 if t.kind == "bugfix"}
    assert all(r["wordings"] == [BY_NAME[r["id"]].wordings[1]] for r in rows)
    assert main(["bench", "--edits", "--list", "--json", "--set", "fresh2"]) == 0  # fresh2 is still its own
    assert "fresh3/" not in capsys.readouterr().out
