"""Hand-written results for the tasks of ``--set fresh5`` (:mod:`coder.bench.edits.tasks_fresh5`): a correct result
of each task whose check does not give one, and plausible wrong results, as edits on the task's original."""

from __future__ import annotations

from bench_sets import Edits

from coder.bench.edits.tasks_fresh5 import FROZEN, MAX_HELPERS, MERGE_DEF

_SIFTUP = "def _siftup(heap, pos):\n"
_FIRST_APPEND = "                h_append([next(), order * direction, next])\n"
_REDUCE = "    def __reduce__(self):\n        if not self._kwargs:\n"
_HINT_DEF = "def length_hint(obj, default=0):"
_COUNT_IF = "        if i is b or i == b:\n"
_INDEX_IF = "        if j is b or j == b:\n"
_COUNT_DEF = "def countOf(a, b):\n"
_MATCHES = ('def _matches(item, value):\n    "True when item is value or equals it."\n'
            "    return item is value or item == value\n\n")
_INDEX_DEF = "def indexOf(a, b):\n"
_INDEX_LOOP = "    for i, j in enumerate(a):\n        if j is b or j == b:\n"
_INDEX_START = ("    for i, j in enumerate(a):\n        if i < start:\n            continue\n"
                "        if j is b or j == b:\n")
_FILENO = "    def fileno(self):\n"
_NAME = ("    @property\n    def name(self):\n        \"\"\"The name of the underlying file.\"\"\"\n"
         "        return self._fp.name\n\n")
_MODES = """        if mode in ("", "r", "rb"):
            mode = "rb"
            mode_code = _MODE_READ
        elif mode in ("w", "wb"):
            mode = "wb"
            mode_code = _MODE_WRITE
            self._compressor = BZ2Compressor(compresslevel)
        elif mode in ("x", "xb"):
            mode = "xb"
            mode_code = _MODE_WRITE
            self._compressor = BZ2Compressor(compresslevel)
        elif mode in ("a", "ab"):
            mode = "ab"
            mode_code = _MODE_WRITE
            self._compressor = BZ2Compressor(compresslevel)
        else:
            raise ValueError("Invalid mode: %r" % (mode,))
"""
_PARSE_MODE = '''def _parse_mode(mode):
    if mode in ("", "r", "rb"):
        return "rb", _MODE_READ
    if mode in ("w", "wb", "x", "xb", "a", "ab"):
        return mode[0] + "b", _MODE_WRITE
    raise ValueError("Invalid mode: %r" % (mode,))


'''
_USE_PARSE_MODE = ("        mode, mode_code = _parse_mode(mode)\n        if mode_code == _MODE_WRITE:\n"
                   "            self._compressor = BZ2Compressor(compresslevel)\n")
_CLASS_BZ2 = "class BZ2File(_compression.BaseStream):\n"
_UNUSED = "        data = decomp.unused_data\n"
_MODULE = "class Module:\n"
_ANY_MISSING = "    def any_missing(self):\n"
_IMPORTERS = ("    def importers_of(self, name):\n        return sorted(self.badmodules.get(name, {}).keys())\n\n")
_ADD_PATH = "    packagePathMap.setdefault(packagename, []).append(path)\n"
_ADD_ONCE = ("    paths = packagePathMap.setdefault(packagename, [])\n    if path not in paths:\n"
             "        paths.append(path)\n")
_C22_DEF = "def in_table_c22(code):"
_D1_DEF = "def in_table_d1(code):\n"
_PROHIBITED = ("def is_prohibited(code):\n    return (in_table_c12(code) or in_table_c22(code) or in_table_c3(code)\n"
               "            or in_table_c4(code) or in_table_c5(code) or in_table_c6(code)\n"
               "            or in_table_c7(code) or in_table_c8(code) or in_table_c9(code))\n\n\n")

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "heapq-docstring": ((_SIFTUP, _SIFTUP + '    """Make a heap at pos, whose children are heaps."""\n'),),
    "heapq-comment": ((_FIRST_APPEND, "                # the order breaks ties: earlier inputs first (stable)\n"
                       + _FIRST_APPEND),),
    "operator-docstring": ((_REDUCE, _REDUCE.replace(
        "\n", '\n        """Pickle as the class and its arguments; keywords go through a partial."""\n', 1)),),
    "operator-hints": ((_HINT_DEF, "def length_hint(obj: object, default: int = 0) -> int:"),),
    "operator-extract": ((_COUNT_IF, "        if _matches(i, b):\n"), (_INDEX_IF, "        if _matches(j, b):\n"),
                         (_COUNT_DEF, _MATCHES + _COUNT_DEF)),
    "operator-param": ((_INDEX_DEF, "def indexOf(a, b, start=0):\n"), (_INDEX_LOOP, _INDEX_START)),
    "bz2-method": ((_FILENO, _NAME + _FILENO),),
    "bz2-extract": ((_MODES, _USE_PARSE_MODE), (_CLASS_BZ2, _PARSE_MODE + _CLASS_BZ2)),
    "bz2-comment": ((_UNUSED, "        # several streams may follow each other: go on with the rest\n" + _UNUSED),),
    "modulefinder-docstring": ((_MODULE, _MODULE + '    """What ModuleFinder knows of one module."""\n'),),
    "modulefinder-method": ((_ANY_MISSING, _IMPORTERS + _ANY_MISSING),),
    "modulefinder-fix": ((_ADD_PATH, _ADD_ONCE),),
    "stringprep-hints": ((_C22_DEF, "def in_table_c22(code: str) -> bool:"),),
    "stringprep-function": ((_D1_DEF, _PROHIBITED + _D1_DEF),),
}

# Plausible wrong results, one or more per task: each must fail the task's check.
WRONG: dict[str, tuple[Edits, ...]] = {
    "heapq-rename": (
        (("def _siftdown(heap, startpos, pos):", "def _bubble_up(heap, startpos, pos):"),
         ("    _siftdown(heap, 0, len(heap)-1)", "    _bubble_up(heap, 0, len(heap)-1)"),
         ("    _siftdown(heap, startpos, pos)", "    _bubble_up(heap, startpos, pos)"),
         ("def _siftdown_max(", "def _bubble_up_max("),
         ("    _siftdown_max(heap, startpos, pos)", "    _bubble_up_max(heap, startpos, pos)")),  # the _max one too
        (("def _siftdown(heap, startpos, pos):", "def _bubble_up(heap, startpos, pos):"),
         ("    _siftdown(heap, 0, len(heap)-1)", "    _bubble_up(heap, 0, len(heap)-1)")),),  # _siftup's call left
    "heapq-move": (
        ((MAX_HELPERS, ""), ("def nsmallest(", MAX_HELPERS + "def nsmallest(")),  # after merge
        ((MAX_HELPERS, MAX_HELPERS.split("def _heapify_max")[0]),
         (MERGE_DEF, "def _heapify_max" + MAX_HELPERS.split("def _heapify_max")[1] + MERGE_DEF)),),  # one moved
    "heapq-docstring": (
        ((_SIFTUP, '# Make a heap at pos.\n' + _SIFTUP),),  # a comment, no docstring
        ((_SIFTUP, _SIFTUP + '    """Make a heap at pos."""\n'),
         ("    _siftdown(heap, startpos, pos)\n\ndef _siftdown_max",
          "    _siftdown(heap, startpos, pos)\n    return heap\n\ndef _siftdown_max")),),  # returns the heap now
    "heapq-comment": (
        (("    h = []\n    h_append = h.append\n",
          "    # ties: order * direction\n    h = []\n    h_append = h.append\n"),),
        (("            h_append([key(value), order * direction, value, next])\n",
          "            # ties go to the earlier input\n"
          "            h_append([key(value), order * direction, value, next])\n"),),),  # the key path's
    "operator-docstring": (
        (("class methodcaller:\n    \"\"\"\n", "class methodcaller:\n    \"\"\"Pickles through a partial.\n"),),
        ((_REDUCE, _REDUCE.replace("\n", '\n        """Support pickling."""\n', 1)),
         ("            from functools import partial\n", "            import functools\n"
          "            partial = functools.partial\n")),),
    "operator-hints": (
        ((_HINT_DEF, "def length_hint(obj: object, default: int = 0):"),),
        ((_HINT_DEF, "def length_hint(obj: Any, default: int = 0) -> int:"),),),  # Any never imported
    "operator-extract": (
        ((_COUNT_IF, "        if _matches(i, b):\n"), (_INDEX_IF, "        if _matches(j, b):\n"),
         (_COUNT_DEF, _MATCHES.replace("item is value or ", "") + _COUNT_DEF)),  # NaN no longer finds itself
        ((_COUNT_IF, "        if _matches(i, b):\n"), (_COUNT_DEF, _MATCHES + _COUNT_DEF)),),  # indexOf left
    "operator-param": (
        ((_INDEX_DEF, "def indexOf(a, b, start=0):\n"),
         (_INDEX_LOOP, "    for i, j in enumerate(a[start:]):\n        if j is b or j == b:\n")),  # relative index
        ((_INDEX_DEF, "def indexOf(a, b, start=0):\n"),
         (_INDEX_LOOP, "    for i, j in enumerate(a[start:], start):\n        if j is b or j == b:\n")),),  # slices
    "bz2-rename": (
        (("from builtins import open as _builtin_open", "from builtins import open as _open_file"),),
        (("from builtins import open as _builtin_open", "from builtins import open as _open_file"),
         ("self._fp = _builtin_open(filename, mode)", "self._fp = open(filename, mode)")),),  # bz2's own open
    "bz2-method": (
        (("        self._fp = None\n        self._closefp = False\n",
          "        self.name = getattr(filename, 'name', filename)\n        self._fp = None\n"
          "        self._closefp = False\n"),),  # an attribute set in __init__
        ((_FILENO, _NAME.replace("self._fp.name", "self._fp") + _FILENO),),),
    "bz2-extract": (
        ((_MODES, "        mode, mode_code = _parse_mode(mode)\n"), (_CLASS_BZ2, _PARSE_MODE + _CLASS_BZ2)),  # no comp.
        ((_MODES, _USE_PARSE_MODE), (_CLASS_BZ2, _PARSE_MODE.replace('mode[0] + "b"', "mode") + _CLASS_BZ2)),),
    "bz2-comment": (
        (("        results.append(res)\n", "        # streams may be concatenated\n        results.append(res)\n"),),
        (("                raise  # Error on the first iteration; bail out.\n",
          "                raise  # Error on the first iteration; bail out.\n"
          "        # a new decompressor for each stream\n"),),),  # in the except block
    "modulefinder-delete": (
        (("        code = co.co_code\n        scanner = self.scan_opcodes\n", ""),
         ("        for what, args in scanner(co):\n", "        for what, args in self.scan_opcodes(co):\n")),
        (("        code = co.co_code\n", "        _ = co.co_code\n"),),),
    "modulefinder-docstring": (
        (("    def __init__(self, name, file=None, path=None):\n        self.__name__ = name\n",
          "    def __init__(self, name, file=None, path=None):\n        \"\"\"A found module.\"\"\"\n"
          "        self.__name__ = name\n"),),),
    "modulefinder-method": (
        ((_ANY_MISSING, _IMPORTERS.replace("sorted(self.badmodules.get(name, {}).keys())",
                                           "list(self.badmodules.get(name, {}))") + _ANY_MISSING),),  # unsorted
        ((_ANY_MISSING, _IMPORTERS.replace(".get(name, {})", "[name]") + _ANY_MISSING),),),  # KeyError
    "modulefinder-fix": (
        ((_ADD_PATH, "    packagePathMap[packagename] = [path]\n"),),  # forgets the earlier paths
        ((_ADD_PATH, "    packagePathMap.setdefault(packagename, set()).add(path)\n"),),),  # a set: no order
    "stringprep-rename": (
        (("c22_specials = set(", "c22_set = set("), ("    return c in c22_specials", "    return c in c22_set")),),
    "stringprep-transform": (
        FROZEN[:3],
        (*FROZEN, ("b3_exceptions = {", "b3_exceptions = dict({"), ("0x1d7a8:'\\u03c9', 0x1d7bb:'\\u03c3', }",
                                                                   "0x1d7a8:'\\u03c9', 0x1d7bb:'\\u03c3', })")),),
    "stringprep-hints": (
        ((_C22_DEF, "def in_table_c22(code: str):"),),
        ((_C22_DEF, "def in_table_c22(code: str) -> bool:"), ("    if c < 128: return False", "    if c < 127: "
                                                                   "return False")),),
    "stringprep-function": (
        ((_D1_DEF, _PROHIBITED.replace("in_table_c12(code) or in_table_c22(code)", "in_table_c11_c12(code) or "
                                       "in_table_c21_c22(code)") + _D1_DEF),),  # C.1.1 and C.2.1 too
        ((_D1_DEF, _PROHIBITED.replace("\n            or in_table_c7(code) or in_table_c8(code) or in_table_c9(code)",
                                       "") + _D1_DEF),),),  # C.7 to C.9 forgotten
    "bug-heapq-merge-key": (
        (("                s[0] = value\n", "                s[0] = key(s[2])\n"),),),  # the previous value's key
    "bug-operator-attrgetter": (
        (("            names = attr.split('.', 1)\n", "            names = attr.rsplit('.', 1)\n"),),),
    "bug-bz2-exclusive": (
        (('        elif mode in ("x", "xb"):\n            mode = "wb"\n',
          '        elif mode in ("x", "xb"):\n            mode = "ab"\n'),),),
    "bug-modulefinder-globals": (
        (("                elif name in pkg.globalnames:\n",
          "                elif name.split('.')[0] in pkg.globalnames:\n"),),),
    "bug-stringprep-controls": (
        (('    return unicodedata.category(code) == "Cc" and \\\n',
          '    return unicodedata.category(code) == "Cc" and ord(code) < 128 or \\\n'),),),
}
