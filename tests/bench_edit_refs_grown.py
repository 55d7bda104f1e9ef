"""Hand-made correct results of the grown ``coder bench --edits`` tasks whose wording is free.

Each entry maps (task, file) to snippet edits on the shipped file: what a careful person writes.
"""

from __future__ import annotations

Edits = tuple[tuple[str, str], ...]

GROWN_HAND: dict[str, Edits] = {
    "graphlib-method": (("    def __bool__(self):\n        return self.is_active()\n",
                         "    def __bool__(self):\n        return self.is_active()\n\n"
                         "    def node_count(self):\n        return len(self._node2info)\n"),),
    "graphlib-fix": (("            for node, predecessors in graph.items():\n",
                      "            pairs = graph.items() if hasattr(graph, 'items') else graph\n"
                      "            for node, predecessors in pairs:\n"),),
    "graphlib-class-docstrings": (
        ("    def __init__(self, graph=None):\n", '    def __init__(self, graph=None):\n        """Start empty."""\n'),
        ("    def _get_nodeinfo(self, node):\n",
         '    def _get_nodeinfo(self, node):\n        """The info of node, made on first use."""\n'),
        ("    def __bool__(self):\n", '    def __bool__(self):\n        """Same as is_active()."""\n'),
        ("    def _find_cycle(self):\n", '    def _find_cycle(self):\n        """One cycle, or None."""\n')),
    "graphlib-comment": (("        for node in n2i:\n            if node in seen:",
                          "        # a depth-first search from every node\n        for node in n2i:\n"
                          "            if node in seen:"),),
    "queue-method": (("    # Override these methods to implement other queue organizations\n",
                      "    def clear(self):\n        with self.mutex:\n            self.queue.clear()\n\n"
                      "    # Override these methods to implement other queue organizations\n"),),
    "getopt-default": (
        ("def getopt(args, shortopts, longopts = []):", "def getopt(args, shortopts, longopts = None):"),
        ("def gnu_getopt(args, shortopts, longopts = []):", "def gnu_getopt(args, shortopts, longopts = None):"),
        ('    opts = []\n    if type(longopts) == type(""):',
         '    opts = []\n    if longopts is None:\n        longopts = []\n    if type(longopts) == type(""):'),
        ("    prog_args = []\n    if isinstance(longopts, str):",
         "    prog_args = []\n    if longopts is None:\n        longopts = []\n    if isinstance(longopts, str):")),
    "getopt-extract": (
        ('    if type(longopts) == type(""):\n        longopts = [longopts]\n    else:\n'
         '        longopts = list(longopts)\n', "    longopts = _longopts_list(longopts)\n"),
        ("    if isinstance(longopts, str):\n        longopts = [longopts]\n    else:\n"
         "        longopts = list(longopts)\n", "    longopts = _longopts_list(longopts)\n"),
        ("def getopt(args, shortopts, longopts = []):",
         "def _longopts_list(longopts):\n    if isinstance(longopts, str):\n        return [longopts]\n"
         "    return list(longopts)\n\ndef getopt(args, shortopts, longopts = []):")),
    "getopt-class-hints": (
        ("    def __init__(self, msg, opt=''):", "    def __init__(self, msg: str, opt: str = '') -> None:"),
        ("    def __str__(self):", "    def __str__(self) -> str:")),
    "getopt-docstring": (("def do_shorts(opts, optstring, shortopts, args):\n",
                          'def do_shorts(opts, optstring, shortopts, args):\n'
                          '    """Parse the short options in optstring; return (opts, args)."""\n'),),
    "glob-callers": (
        ("def _listdir(dirname, dir_fd, dironly):\n    with contextlib.closing(_iterdir(dirname, dir_fd, dironly))"
         " as it:\n        return list(it)\n",
         "def _listdir(dirname, dir_fd, dironly, include_hidden=True):\n"
         "    with contextlib.closing(_iterdir(dirname, dir_fd, dironly)) as it:\n"
         "        return [x for x in it if include_hidden or not _ishidden(x)]\n"),
        ("    names = _listdir(dirname, dir_fd, dironly)\n    if include_hidden",
         "    names = _listdir(dirname, dir_fd, dironly, include_hidden=include_hidden)\n    if include_hidden"),
        ("    names = _listdir(dirname, dir_fd, dironly)\n    for x in names:",
         "    names = _listdir(dirname, dir_fd, dironly, include_hidden=include_hidden)\n    for x in names:")),
    "glob-fix": (("    return path[0] in ('.', b'.'[0])", "    return bool(path) and path[0] in ('.', b'.'[0])"),),
    "glob-hints": (("def _join(dirname, basename):", "def _join(dirname: str, basename: str) -> str:"),),
    "netrc-class-hints": (
        ("    def __init__(self, msg, filename=None, lineno=None):",
         "    def __init__(self, msg: str, filename: str | None = None, lineno: int | None = None) -> None:"),
        ('    def __str__(self):\n        return "%s (%s, line %s)"',
         '    def __str__(self) -> str:\n        return "%s (%s, line %s)"')),
    "netrc-class-docstrings": (
        ("    def __init__(self, fp):\n", '    def __init__(self, fp):\n        """Read tokens from fp."""\n'),
        ("    def _read_char(self):\n", '    def _read_char(self):\n        """One character, counting lines."""\n'),
        ("    def get_token(self):\n", '    def get_token(self):\n        """The next token."""\n'),
        ("    def push_token(self, token):\n",
         '    def push_token(self, token):\n        """Give token back."""\n')),
    "netrc-fix": (("        if host in self.hosts:\n            return self.hosts[host]\n",
                   "        folded = {h.lower(): a for h, a in self.hosts.items()}\n"
                   "        if host.lower() in folded:\n            return folded[host.lower()]\n"),),
    "netrc-comment": (("            if ch == '\"':\n                for ch in fiter:",
                       "            # a quoted token may hold whitespace\n            if ch == '\"':\n"
                       "                for ch in fiter:"),),
    "handlers-docstring": (("    def _write(self,data):\n        result = self.stdout.write(data)",
                            '    def _write(self,data):\n        """Write data; on a partial write, warn and write '
                            'the rest."""\n        result = self.stdout.write(data)'),),
    "toml-docstring": (("def skip_comment(src: str, pos: Pos) -> Pos:\n",
                        'def skip_comment(src: str, pos: Pos) -> Pos:\n'
                        '    """The position after a comment at pos."""\n'),),
    "packaging-docstring": (("def process_env_var(env_var: str) -> Variable:\n",
                             'def process_env_var(env_var: str) -> Variable:\n'
                             '    """Map a marker variable name to its Variable."""\n'),),
}
