"""The edit tasks of ``coder bench --edits``: real files, real requests, a mechanical check each.

The files under ``files/`` are byte-copies of modules of the CPython 3.11.7 standard library
(PSF License Agreement) and of ``packaging`` (see ``files/SOURCES.md``), shipped so that the
expected text does not change with the Python version that runs the bench. The first 29 tasks
(7 short stdlib files) are here; the grown part is :mod:`coder.bench.edits.tasks_grown`, and the
tasks judged by running the code (bugs put in by hand, new methods, extractions) are
:mod:`coder.bench.edits.tasks_behaviour`. Every task comes in at least three wordings.
"""

from __future__ import annotations

from coder.bench.edits.checks import Comment, Docstring, Exact, Hints, Param, Renamed, SameAst
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_behaviour import ADDED, BUGS
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
         ("In `rgb_to_yiq`, change the blue coefficient of y from 0.11 to 0.114.",
          "in rgb_to_yiq the blue coefficient of y should be 0.114, not 0.11",
          "Fix rgb_to_yiq: y weights blue with 0.11 where it should use 0.114"),
         Exact((("0.59*g + 0.11*b", "0.59*g + 0.114*b"),)), symbol="rgb_to_yiq"),
    Task("colorsys-docstring", "colorsys.py", "docstring",
         ("Add a docstring to the function `hls_to_rgb` saying what it converts and returns.",
          "add a docstring to hls_to_rgb that says what it converts and what it returns",
          "hls_to_rgb needs a docstring: document the conversion and the return value"),
         Docstring("hls_to_rgb"), symbol="hls_to_rgb"),
    Task("colorsys-hints", "colorsys.py", "hints",
         ("Add type hints to the function `rgb_to_hsv`: r, g and b are floats and it returns "
          "tuple[float, float, float].",
          "add type hints to rgb_to_hsv: r, g and b are floats, returns tuple[float, float, float]",
          "Annotate rgb_to_hsv (float arguments r, g, b; return type tuple[float, float, float])"),
         Hints("rgb_to_hsv"), symbol="rgb_to_hsv"),
    Task("colorsys-rename", "colorsys.py", "rename",
         ("Rename the function `_v` to `_hue_to_channel` everywhere in this file.",
          "rename _v to _hue_to_channel",
          "_v is a bad name, call it _hue_to_channel instead (update every use)"),
         Renamed("_v", "_hue_to_channel")),
    Task("colorsys-comment", "colorsys.py", "comment",
         ("Add a one-line comment at the top of the body of `_v` saying that the hue is wrapped into [0, 1).",
          "add a one-line comment at the start of _v explaining that the hue gets wrapped into [0, 1)",
          "Put a short comment as the first line in the body of _v: the hue is wrapped into [0, 1)"),
         Comment("_v", ("hue = hue % 1.0",)), symbol="_v"),
    # bisect.py (110 lines)
    Task("bisect-comment", "bisect.py", "comment",
         ("Add a comment above each while loop in `bisect_left` saying what it does.",
          "add a comment above each while loop in bisect_left explaining what it does",
          "Document the while loops of bisect_left with a comment above each one"),
         Comment("bisect_left", ("while lo < hi:",), each=True), symbol="bisect_left"),
    Task("bisect-hints", "bisect.py", "hints",
         ("Add type hints to every parameter and the return value of `insort_right`: "
          "a: list, x: object, lo: int, hi: int | None, key: object, returns None.",
          "add type hints to insort_right: a is a list, x an object, lo an int, hi int | None, key an object, "
          "returns None",
          "Type-annotate every parameter of insort_right (a: list, x: object, lo: int, hi: int | None, key: object) "
          "and its return (None)"),
         Hints("insort_right"), symbol="insort_right"),
    Task("bisect-delete-alias", "bisect.py", "delete",
         ("Delete the alias `insort` at the end of the file (the line `insort = insort_right`).",
          "delete the insort alias at the end of the file (insort = insort_right)",
          "Get rid of the line insort = insort_right at the bottom of bisect.py"),
         SameAst((("\ninsort = insort_right\n", "\n"),)), lines="108-110"),
    Task("bisect-rename", "bisect.py", "rename",
         ("Rename the function `bisect_right` to `bisect_after` everywhere in this file.",
          "rename bisect_right to bisect_after",
          "bisect_right should be called bisect_after; rename it and every use in this file"),
         Renamed("bisect_right", "bisect_after")),
    # fnmatch.py (185 lines)
    Task("fnmatch-rename", "fnmatch.py", "rename",
         ("Rename the function `_compile_pattern` to `_compiled_matcher` everywhere in this file.",
          "rename _compile_pattern to _compiled_matcher throughout the file",
          "Change the name of the function _compile_pattern to _compiled_matcher, callers included"),
         Renamed("_compile_pattern", "_compiled_matcher")),
    Task("fnmatch-param", "fnmatch.py", "param",
         ("Add a parameter `flags=0` to `_compile_pattern` and pass it on to `re.compile`.",
          "add a flags=0 parameter to _compile_pattern and pass it to re.compile",
          "_compile_pattern should take flags=0 and hand it on to re.compile"),
         Param("_compile_pattern", "flags", 0), symbol="_compile_pattern"),
    Task("fnmatch-constant", "fnmatch.py", "constant",
         ("Change the lru_cache maxsize of `_compile_pattern` from 32768 to 4096.",
          "the lru_cache on _compile_pattern should hold 4096 entries, not 32768",
          "Lower the cache size on _compile_pattern: maxsize=4096 instead of 32768"),
         Exact((("maxsize=32768", "maxsize=4096"),)), lines="38-46"),
    Task("fnmatch-move", "fnmatch.py", "move",
         ("Move the import of `functools` so that it comes right after the import of `os`.",
          "move the functools import so it comes right after import os",
          "Reorder the imports: import functools should come right after import os"),
         SameAst((("import os\nimport posixpath\nimport re\nimport functools\n",
                   "import os\nimport functools\nimport posixpath\nimport re\n"),)), lines="12-15"),
    # sched.py (167 lines)
    Task("sched-docstring", "sched.py", "docstring",
         ("Add a docstring to the class `scheduler` saying what it does.",
          "add a docstring to the scheduler class saying what it does",
          "Document the class scheduler with a docstring describing what it does"),
         Docstring("scheduler"), symbol="scheduler"),
    Task("sched-comment", "sched.py", "comment",
         ("Add a comment above the while loop in the method `scheduler.run` saying what it does.",
          "add a comment above the while loop in scheduler.run explaining it",
          "In the run method of the class scheduler, put a comment above the while loop saying what it does"),
         Comment("scheduler.run", ("while True:",)), symbol="scheduler.run"),
    Task("sched-rename", "sched.py", "rename",
         ("Rename the method `enterabs` to `enter_at` everywhere in this file.",
          "rename the enterabs method to enter_at",
          "Rename scheduler.enterabs -> enter_at (all uses in this file)"),
         Renamed("enterabs", "enter_at")),
    Task("sched-move", "sched.py", "move",
         ("Move the import of `threading` so that it comes right after the import of `time` (`import time`).",
          "move import threading so that it is right after import time",
          "Put the threading import directly below import time"),
         SameAst((("import time\nimport heapq\nfrom collections import namedtuple\nfrom itertools import count\n"
                   "import threading\n",
                   "import time\nimport threading\nimport heapq\nfrom collections import namedtuple\n"
                   "from itertools import count\n"),)), lines="26-31"),
    # shlex.py (350 lines)
    Task("shlex-rename", "shlex.py", "rename",
         ("Rename the method `read_token` to `next_token` everywhere in this file.",
          "rename read_token to next_token everywhere",
          "Rename the read_token method of shlex to next_token and update its callers"),
         Renamed("read_token", "next_token")),
    Task("shlex-delete", "shlex.py", "delete",
         ("Delete the function `_print_tokens` and the `if __name__ == '__main__':` block that uses it.",
          "delete _print_tokens and the if __name__ == '__main__' block that uses it",
          "Delete the function _print_tokens and the `if __name__` block at the end of the file"),
         SameAst(((_MAIN_SHLEX, ""),)), lines="335-350"),
    Task("shlex-param", "shlex.py", "param",
         ("Add a parameter `sep=' '` to the function `join` and use it instead of the literal space.",
          "add a sep=' ' parameter to join and use it instead of the hard-coded space",
          "Let join take a separator: a sep parameter defaulting to ' ', used in place of the literal space"),
         Param("join", "sep", " "), symbol="join"),
    Task("shlex-comment", "shlex.py", "comment",
         ("In the function `quote`, add a comment above `if _find_unsafe(s) is None:` saying that safe "
          "strings are returned unquoted.",
          "in quote, add a comment above if _find_unsafe(s) is None: saying that safe strings are returned unquoted",
          "Comment the _find_unsafe check in quote: safe strings come back unquoted"),
         Comment("quote", near=("if _find_unsafe(s) is None:",)), symbol="quote"),
    # queue.py (326 lines)
    Task("queue-hints", "queue.py", "hints",
         ("Add type hints to the method `Queue.put_nowait`: item is object and it returns None.",
          "add type hints to Queue.put_nowait: item is an object and it returns None",
          "Annotate put_nowait of the class Queue (item: object, returns None)"),
         Hints("Queue.put_nowait"), symbol="Queue.put_nowait"),
    Task("queue-rename", "queue.py", "rename",
         ("Rename the method `_qsize` to `_size` everywhere in this file.",
          "rename _qsize to _size everywhere in this file",
          "_qsize -> _size: rename the method in every class and at every call"),
         Renamed("_qsize", "_size")),
    Task("queue-constant", "queue.py", "constant",
         ("In `Queue.__init__`, change the default of `maxsize` from 0 to 1000.",
          "change the default maxsize in Queue.__init__ from 0 to 1000",
          "Queue should default to maxsize=1000 instead of 0 (in __init__)"),
         Exact((("    def __init__(self, maxsize=0):", "    def __init__(self, maxsize=1000):"),)),
         symbol="Queue.__init__"),
    Task("queue-docstring", "queue.py", "docstring",
         ("Add a docstring to the method `Queue._init` saying what it sets up.",
          "add a docstring to Queue._init saying what it sets up",
          "Write a docstring for the _init method of Queue describing what it initialises"),
         Docstring("Queue._init"), symbol="Queue._init"),
    # textwrap.py (491 lines)
    Task("textwrap-rename", "textwrap.py", "rename",
         ("Rename `_whitespace_only_re` to `_blank_line_re` everywhere in this file.",
          "rename _whitespace_only_re to _blank_line_re",
          "Rename the regex _whitespace_only_re to _blank_line_re wherever it's used"),
         Renamed("_whitespace_only_re", "_blank_line_re")),
    Task("textwrap-param", "textwrap.py", "param",
         ("Add a parameter `placeholder=' [...]'` to the function `shorten` and pass it on to `TextWrapper`.",
          "add a placeholder=' [...]' parameter to shorten and pass it to TextWrapper",
          "shorten should accept placeholder (default ' [...]') and forward it to TextWrapper"),
         Param("shorten", "placeholder", " [...]"), symbol="shorten"),
    Task("textwrap-constant", "textwrap.py", "constant",
         ("In the functions `wrap` and `fill`, change the default width from 70 to 80.",
          "change the default width of wrap and fill from 70 to 80",
          "Make wrap and fill default to width=80 instead of 70"),
         Exact((("def wrap(text, width=70, **kwargs):", "def wrap(text, width=80, **kwargs):"),
                ("def fill(text, width=70, **kwargs):", "def fill(text, width=80, **kwargs):"))),
         lines="373-397"),
    Task("textwrap-docstring", "textwrap.py", "docstring",
         ("Add a docstring to the method `TextWrapper._split_chunks`.",
          "add a docstring to TextWrapper._split_chunks",
          "Document the _split_chunks method of TextWrapper with a docstring"),
         Docstring("TextWrapper._split_chunks"), symbol="TextWrapper._split_chunks"),
)


TASKS: tuple[Task, ...] = FIRST + GROWN + BUGS + ADDED


def select(names: str | None = None, kinds: str | None = None, pool: tuple[Task, ...] = TASKS) -> list[Task]:
    """Tasks of ``pool`` (default the suite) by comma-separated name prefixes and/or kinds (all when both are None)."""
    out = list(pool)
    if names:
        wanted = [n.strip() for n in names.split(",") if n.strip()]
        out = [t for t in out if any(t.name.startswith(w) for w in wanted)]
    if kinds:
        ks = {k.strip() for k in kinds.split(",")}
        out = [t for t in out if t.kind in ks]
    return out
