"""The edit tasks of ``coder bench --edits``: real files, real requests, a mechanical check each.

The files under ``files/`` are byte-copies of modules of the CPython 3.11.7 standard library
(PSF License Agreement) and of ``packaging`` (see ``files/SOURCES.md``), shipped so that the
expected text does not change with the Python version that runs the bench. The first 29 tasks
(7 short stdlib files) are here; the grown part is :mod:`coder.bench.edits.tasks_grown`.
"""

from __future__ import annotations

from coder.bench.edits.checks import Comment, Docstring, Exact, Hints, Param, Renamed, SameAst
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_grown import GROWN

__all__ = ["TASKS", "Task", "select", "source"]

_MAIN_SHLEX = """

def _print_tokens(lexer):
    while 1:
        tt = lexer.get_token()
        if not tt:
            break
        print("Token: " + repr(tt))

if __name__ == '__main__':
    if len(sys.argv) == 1:
        _print_tokens(shlex())
    else:
        fn = sys.argv[1]
        with open(fn) as f:
            _print_tokens(shlex(f, fn))
"""

FIRST: tuple[Task, ...] = (
    # colorsys.py (166 lines)
    Task("colorsys-constant", "colorsys.py", "constant",
         "In `rgb_to_yiq`, change the blue coefficient of y from 0.11 to 0.114.",
         Exact((("0.59*g + 0.11*b", "0.59*g + 0.114*b"),)), symbol="rgb_to_yiq"),
    Task("colorsys-docstring", "colorsys.py", "docstring",
         "Add a docstring to the function `hls_to_rgb` saying what it converts and returns.",
         Docstring("hls_to_rgb"), symbol="hls_to_rgb"),
    Task("colorsys-hints", "colorsys.py", "hints",
         "Add type hints to the function `rgb_to_hsv`: r, g and b are floats and it returns "
         "tuple[float, float, float].",
         Hints("rgb_to_hsv"), symbol="rgb_to_hsv"),
    Task("colorsys-rename", "colorsys.py", "rename",
         "Rename the function `_v` to `_hue_to_channel` everywhere in this file.",
         Renamed("_v", "_hue_to_channel")),
    Task("colorsys-comment", "colorsys.py", "comment",
         "Add a one-line comment at the top of the body of `_v` saying that the hue is wrapped into [0, 1).",
         Comment("_v"), symbol="_v"),
    # bisect.py (110 lines)
    Task("bisect-comment", "bisect.py", "comment",
         "Add a comment above each while loop in `bisect_left` saying what it does.",
         Comment("bisect_left"), symbol="bisect_left"),
    Task("bisect-hints", "bisect.py", "hints",
         "Add type hints to every parameter and the return value of `insort_right`: "
         "a: list, x: object, lo: int, hi: int | None, key: object, returns None.",
         Hints("insort_right"), symbol="insort_right"),
    Task("bisect-delete-alias", "bisect.py", "delete",
         "Delete the alias `insort` at the end of the file (the line `insort = insort_right`).",
         SameAst((("\ninsort = insort_right\n", "\n"),)), lines="108-110"),
    Task("bisect-rename", "bisect.py", "rename",
         "Rename the function `bisect_right` to `bisect_after` everywhere in this file.",
         Renamed("bisect_right", "bisect_after")),
    # fnmatch.py (185 lines)
    Task("fnmatch-rename", "fnmatch.py", "rename",
         "Rename the function `_compile_pattern` to `_compiled_matcher` everywhere in this file.",
         Renamed("_compile_pattern", "_compiled_matcher")),
    Task("fnmatch-param", "fnmatch.py", "param",
         "Add a parameter `flags=0` to `_compile_pattern` and pass it on to `re.compile`.",
         Param("_compile_pattern", "flags", 0), symbol="_compile_pattern"),
    Task("fnmatch-constant", "fnmatch.py", "constant",
         "Change the lru_cache maxsize of `_compile_pattern` from 32768 to 4096.",
         Exact((("maxsize=32768", "maxsize=4096"),)), lines="38-46"),
    Task("fnmatch-move", "fnmatch.py", "move",
         "Move the import of `functools` so that it comes right after the import of `os`.",
         SameAst((("import os\nimport posixpath\nimport re\nimport functools\n",
                   "import os\nimport functools\nimport posixpath\nimport re\n"),)), lines="12-15"),
    # sched.py (167 lines)
    Task("sched-docstring", "sched.py", "docstring",
         "Add a docstring to the class `scheduler` saying what it does.",
         Docstring("scheduler"), symbol="scheduler"),
    Task("sched-comment", "sched.py", "comment",
         "Add a comment above the while loop in the method `scheduler.run` saying what it does.",
         Comment("scheduler.run"), symbol="scheduler.run"),
    Task("sched-rename", "sched.py", "rename",
         "Rename the method `enterabs` to `enter_at` everywhere in this file.",
         Renamed("enterabs", "enter_at")),
    Task("sched-move", "sched.py", "move",
         "Move the import of `threading` so that it comes right after the import of `time` (`import time`).",
         SameAst((("import time\nimport heapq\nfrom collections import namedtuple\nfrom itertools import count\n"
                   "import threading\n",
                   "import time\nimport threading\nimport heapq\nfrom collections import namedtuple\n"
                   "from itertools import count\n"),)), lines="26-31"),
    # shlex.py (350 lines)
    Task("shlex-rename", "shlex.py", "rename",
         "Rename the method `read_token` to `next_token` everywhere in this file.",
         Renamed("read_token", "next_token")),
    Task("shlex-delete", "shlex.py", "delete",
         "Delete the function `_print_tokens` and the `if __name__ == '__main__':` block that uses it.",
         SameAst(((_MAIN_SHLEX, ""),)), lines="335-350"),
    Task("shlex-param", "shlex.py", "param",
         "Add a parameter `sep=' '` to the function `join` and use it instead of the literal space.",
         Param("join", "sep", " "), symbol="join"),
    Task("shlex-comment", "shlex.py", "comment",
         "In the function `quote`, add a comment above `if _find_unsafe(s) is None:` saying that safe "
         "strings are returned unquoted.",
         Comment("quote"), symbol="quote"),
    # queue.py (326 lines)
    Task("queue-hints", "queue.py", "hints",
         "Add type hints to the method `Queue.put_nowait`: item is object and it returns None.",
         Hints("Queue.put_nowait"), symbol="Queue.put_nowait"),
    Task("queue-rename", "queue.py", "rename",
         "Rename the method `_qsize` to `_size` everywhere in this file.",
         Renamed("_qsize", "_size")),
    Task("queue-constant", "queue.py", "constant",
         "In `Queue.__init__`, change the default of `maxsize` from 0 to 1000.",
         Exact((("    def __init__(self, maxsize=0):", "    def __init__(self, maxsize=1000):"),)),
         symbol="Queue.__init__"),
    Task("queue-docstring", "queue.py", "docstring",
         "Add a docstring to the method `Queue._init` saying what it sets up.",
         Docstring("Queue._init"), symbol="Queue._init"),
    # textwrap.py (491 lines)
    Task("textwrap-rename", "textwrap.py", "rename",
         "Rename `_whitespace_only_re` to `_blank_line_re` everywhere in this file.",
         Renamed("_whitespace_only_re", "_blank_line_re")),
    Task("textwrap-param", "textwrap.py", "param",
         "Add a parameter `placeholder=' [...]'` to the function `shorten` and pass it on to `TextWrapper`.",
         Param("shorten", "placeholder", " [...]"), symbol="shorten"),
    Task("textwrap-constant", "textwrap.py", "constant",
         "In the functions `wrap` and `fill`, change the default width from 70 to 80.",
         Exact((("def wrap(text, width=70, **kwargs):", "def wrap(text, width=80, **kwargs):"),
                ("def fill(text, width=70, **kwargs):", "def fill(text, width=80, **kwargs):"))),
         lines="373-397"),
    Task("textwrap-docstring", "textwrap.py", "docstring",
         "Add a docstring to the method `TextWrapper._split_chunks`.",
         Docstring("TextWrapper._split_chunks"), symbol="TextWrapper._split_chunks"),
)


TASKS: tuple[Task, ...] = FIRST + GROWN


def select(names: str | None = None, kinds: str | None = None) -> list[Task]:
    """Tasks by comma-separated name prefixes and/or kinds (all when both are None)."""
    out = list(TASKS)
    if names:
        wanted = [n.strip() for n in names.split(",") if n.strip()]
        out = [t for t in out if any(t.name.startswith(w) for w in wanted)]
    if kinds:
        ks = {k.strip() for k in kinds.split(",")}
        out = [t for t in out if t.kind in ks]
    return out
