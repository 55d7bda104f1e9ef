"""Hand-made correct results of the tasks judged by running the code (:mod:`coder.bench.edits.tasks_behaviour`).

A bug task's correct result is the shipped file the bug was put into (``bugs/x.py`` -> ``x.py``); the
new methods and the extraction are snippet edits on the shipped file, as a careful person writes them.
"""

from __future__ import annotations

Edits = tuple[tuple[str, str], ...]

_HUE_BLOCK = """    rc = (maxc-r) / rangec
    gc = (maxc-g) / rangec
    bc = (maxc-b) / rangec
    if r == maxc:
        h = bc-gc
    elif g == maxc:
        h = 2.0+rc-bc
    else:
        h = 4.0+gc-rc
    h = (h/6.0) % 1.0
"""

BEHAVIOUR_HAND: dict[str, Edits] = {
    "sched-method": (("    def empty(self):\n",
                      '    def clear(self):\n        """Cancel every pending event."""\n'
                      "        with self._lock:\n            self._queue.clear()\n\n    def empty(self):\n"),),
    "shlex-method": (("    def __iter__(self):\n",
                      "    def tokens(self):\n        return list(self)\n\n    def __iter__(self):\n"),),
    "colorsys-extract": ((_HUE_BLOCK + "    return h, l, s\n",
                          "    h = _hue(r, g, b, maxc, rangec)\n    return h, l, s\n"),
                         (_HUE_BLOCK + "    return h, s, v\n",
                          "    h = _hue(r, g, b, maxc, rangec)\n    return h, s, v\n"),
                         ("def rgb_to_hls(r, g, b):\n",
                          "def _hue(r, g, b, maxc, rangec):\n" + _HUE_BLOCK + "    return h\n\n"
                          "def rgb_to_hls(r, g, b):\n")),
}


def bug_original(rel: str) -> str | None:
    """The shipped file a bug was put into (``bugs/glob.py`` -> ``glob.py``); None for any other file."""
    return rel.removeprefix("bugs/") if rel.startswith("bugs/") else None

