"""Correct results of the ``coder bench --edits`` tasks, written by hand (shared by the check and scope tests)."""

from __future__ import annotations

from bench_edit_refs_behaviour import BEHAVIOUR_HAND, bug_original
from bench_edit_refs_grown import GROWN_HAND

from coder.bench.edits.checks import Check, Exact, Renamed, SameAst, rename_names, replace_once
from coder.bench.edits.tasks import Task, source

# task -> snippet edits that turn the shipped file into a correct result (free-wording tasks)
_HAND: dict[str, tuple[tuple[str, str], ...]] = {
    "colorsys-docstring": (("def hls_to_rgb(h, l, s):\n",
                            'def hls_to_rgb(h, l, s):\n    """Convert HLS to RGB; returns (r, g, b)."""\n'),),
    "colorsys-hints": (("def rgb_to_hsv(r, g, b):",
                        "def rgb_to_hsv(r: float, g: float, b: float) -> tuple[float, float, float]:"),),
    "colorsys-comment": (("def _v(m1, m2, hue):\n", "def _v(m1, m2, hue):\n    # wrap the hue into [0, 1)\n"),),
    "bisect-comment": (("    if key is None:\n        while lo < hi:\n            mid = (lo + hi) // 2\n"
                        "            if a[mid] < x:",
                        "    if key is None:\n        # binary search on the items\n        while lo < hi:\n"
                        "            mid = (lo + hi) // 2\n            if a[mid] < x:"),
                       ("        while lo < hi:\n            mid = (lo + hi) // 2\n            if key(a[mid]) < x:",
                        "        # binary search on the keys\n        while lo < hi:\n"
                        "            mid = (lo + hi) // 2\n            if key(a[mid]) < x:")),
    "bisect-hints": (("def insort_right(a, x, lo=0, hi=None, *, key=None):",
                      "def insort_right(a: list, x: object, lo: int = 0, hi: int | None = None, *,\n"
                      "                 key: object = None) -> None:"),),
    "fnmatch-param": (("def _compile_pattern(pat):", "def _compile_pattern(pat, flags=0):"),
                      ("    return re.compile(res).match", "    return re.compile(res, flags).match")),
    "sched-docstring": (("class scheduler:\n", 'class scheduler:\n    """Runs events at scheduled times."""\n'),),
    "sched-comment": (("        pop = heapq.heappop\n        while True:",
                       "        pop = heapq.heappop\n        # run due events until the queue is empty\n"
                       "        while True:"),),
    "shlex-param": (("def join(split_command):", "def join(split_command, sep=' '):"),
                    ("    return ' '.join(quote(arg) for arg in split_command)",
                     "    return sep.join(quote(arg) for arg in split_command)")),
    "shlex-comment": (("        return \"''\"\n    if _find_unsafe(s) is None:",
                       "        return \"''\"\n    # safe strings are returned unquoted\n"
                       "    if _find_unsafe(s) is None:"),),
    "queue-hints": (("    def put_nowait(self, item):\n        \'\'\'Put an item into the queue without blocking.\n\n"
                     "        Only enqueue",
                     "    def put_nowait(self, item: object) -> None:\n"
                     "        \'\'\'Put an item into the queue without blocking.\n\n        Only enqueue"),),
    "queue-docstring": (("    def _init(self, maxsize):\n        self.queue = deque()\n",
                         "    def _init(self, maxsize):\n        \'\'\'Set up an empty deque.\'\'\'\n"
                         "        self.queue = deque()\n"),),
    "textwrap-param": (("def shorten(text, width, **kwargs):",
                        "def shorten(text, width, placeholder=' [...]', **kwargs):"),
                       ("    w = TextWrapper(width=width, max_lines=1, **kwargs)",
                        "    w = TextWrapper(width=width, max_lines=1, placeholder=placeholder, **kwargs)")),
    "textwrap-docstring": (("    def _split_chunks(self, text):\n",
                            '    def _split_chunks(self, text):\n        """Munge whitespace, then split."""\n'),),
}


def correct_result(task: Task) -> str:
    """A correct result of ``task`` on its shipped file (the one the request names)."""
    if (fixed := bug_original(task.file)) is not None:  # a bug put in by hand: the file it was put into
        return source(fixed)
    return _result(task.name, source(task.file), task.check)


def correct_results(task: Task) -> dict[str, str]:
    """A correct result of ``task`` on every file it touches."""
    out = {task.file: correct_result(task)}
    out.update({rel: _result(task.name, source(rel), check) for rel, check in task.also})
    return out


def _result(name: str, src: str, check: Check) -> str:
    if isinstance(check, Exact | SameAst):
        return check.expected(src)
    if isinstance(check, Renamed):
        return rename_names(src, check.old, check.new)
    return replace_once(src, {**_HAND, **GROWN_HAND, **BEHAVIOUR_HAND}[name])
