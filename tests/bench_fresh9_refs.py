"""Hand-written results for the tasks of ``--set fresh9`` (:mod:`coder.bench.edits.tasks_fresh9`): a correct result
of each task whose check does not give one, and plausible wrong results, as edits on the task's original."""

from __future__ import annotations

from bench_sets import Edits

from coder.bench.edits.tasks_fresh9 import DUMP_REGISTRY, KEYED_REF, TESTING

# functools
_CACHED_END = "        return val\n\n    __class_getitem__"
_RESET = ("        return val\n\n    def reset(self, instance):\n"
          "        instance.__dict__.pop(self.attrname, None)\n\n    __class_getitem__")
_UNWRAP = "def _unwrap_partial(func):\n"
_COMPOSE = ("def compose(*funcs):\n    def composed(*args, **kwargs):\n        if not funcs:\n"
            "            (arg,) = args\n            return arg\n        result = funcs[-1](*args, **kwargs)\n"
            "        for f in reversed(funcs[:-1]):\n            result = f(result)\n        return result\n"
            "    return composed\n\n")
_KEY0 = "        return key[0]\n"
_FAST = "    elif len(key) == 1 and type(key[0]) in fasttypes:\n"
_LE = "    return op_result or self == other\n"
_LE_BUG = ("    'Return a <= b.  Computed by @total_ordering from (a < b) or (a == b).'\n"
           "    op_result = type(self).__lt__(self, other)\n    if op_result is NotImplemented:\n"
           "        return op_result\n    return op_result and self == other\n")

# bdb
_TDB = "class Tdb(Bdb):\n"
_TDB_CLASS_END = "        self.set_continue()\n\n"
_SET_TRACE = ('def set_trace():\n    """Start debugging with a Bdb instance from the caller\'s frame."""\n'
              "    Bdb().set_trace()\n")
_CLEAR_ALL = "    def clear_all_breaks(self):\n"
_DISABLE = ("    def disable_file_breaks(self, filename):\n        filename = self.canonic(filename)\n"
            "        if filename not in self.breaks:\n            return 'There are no breakpoints in %s' % filename\n"
            "        for line in self.breaks[filename]:\n            for bp in Breakpoint.bplist[filename, line]:\n"
            "                bp.disable()\n        return None\n\n")
_EFFECTIVE = "def effective(file, line, frame):\n"
_EFFECTIVE_HINTED = ("def effective(file: str, line: int,\n"
                     "              frame: FrameType) -> tuple[Breakpoint | None, bool | None]:\n")
_FNMATCH = "import fnmatch\n"
_WITH_FRAMETYPE = "import fnmatch\nfrom types import FrameType\n"
_BPFORMAT = "    def bpformat(self):\n"
_RET = ("        ret = '%-4dbreakpoint   %s at %s:%d' % (self.number, disp,\n"
        "                                                self.file, self.line)\n")
_IGNORE_BUG = "            if b.ignore > 1:\n"

# weakref
_WKD_GET = "        return self.data.get(ref(key),default)\n"
_WKD_GET_FIXED = ("        try:\n            wr = ref(key)\n        except TypeError:\n            return default\n"
                  "        return self.data.get(wr, default)\n")
_WVD = "class WeakValueDictionary("
_LEN_RET = "        return len(self.data) - len(self._pending_removals)\n"
_SCRUB_DEF = "    def _scrub_removals(self):\n"
_SCRUB_CALL = "            self._scrub_removals()\n"
_EQ_BUG = "            return ref.__eq__(self, other) or self._func_ref == other._func_ref\n"

# statistics
_COV_TAIL = ("    xbar = fsum(x) / n\n    ybar = fsum(y) / n\n"
             "    sxy = fsum((xi - xbar) * (yi - ybar) for xi, yi in zip(x, y))\n    return sxy / (n - 1)\n")
_COR_HEAD = ("    xbar = fsum(x) / n\n    ybar = fsum(y) / n\n"
             "    sxy = fsum((xi - xbar) * (yi - ybar) for xi, yi in zip(x, y))\n"
             "    sxx = fsum((d := xi - xbar) * d for xi in x)\n")
_COV_DEF = "def covariance(x, y, /):\n"
_CROSS = ("def _cross_sum(x, y):\n    n = len(x)\n    xbar = fsum(x) / n\n    ybar = fsum(y) / n\n"
          "    sxy = fsum((xi - xbar) * (yi - ybar) for xi, yi in zip(x, y))\n    return xbar, ybar, sxy\n\n\n")
_COV_USE = "    xbar, ybar, sxy = _cross_sum(x, y)\n    return sxy / (n - 1)\n"
_COR_USE = "    xbar, ybar, sxy = _cross_sum(x, y)\n    sxx = fsum((d := xi - xbar) * d for xi in x)\n"
_MEDIAN_LOW = "def median_low(data):\n"
_MEDIAN_LOW_SORT = '    >>> median_low([1, 3, 5, 7])\n    3\n\n    """\n    data = sorted(data)\n'
_MEDIAN_HIGH_SORT = '    >>> median_high([1, 3, 5, 7])\n    5\n\n    """\n    data = sorted(data)\n'
_ZSCORE = "    def zscore(self, x):\n"
_FAIL_NEG_DEF = "def _fail_neg(values, errmsg='negative value'):\n"
_FAIL_NEG_DATA = "        data = _fail_neg(data, errmsg)\n"
_COV_BUG = "    return sxy / n\n"

# _py_abc
_ABCMETA = "class ABCMeta(type):\n"
_SCAN = ('        # Compute set of abstract method names\n        abstracts = {name\n'
         '                     for name, value in namespace.items()\n'
         '                     if getattr(value, "__isabstractmethod__", False)}\n        for base in bases:\n'
         '            for name in getattr(base, "__abstractmethods__", set()):\n'
         '                value = getattr(cls, name, None)\n'
         '                if getattr(value, "__isabstractmethod__", False):\n'
         '                    abstracts.add(name)\n        cls.__abstractmethods__ = frozenset(abstracts)\n')
_SCAN_CALL = "        cls.__abstractmethods__ = _abstract_names(cls, namespace, bases)\n"
_NAMES = ('def _abstract_names(cls, namespace, bases):\n    abstracts = {name\n'
          '                 for name, value in namespace.items()\n'
          '                 if getattr(value, "__isabstractmethod__", False)}\n    for base in bases:\n'
          '        for name in getattr(base, "__abstractmethods__", set()):\n'
          '            value = getattr(cls, name, None)\n'
          '            if getattr(value, "__isabstractmethod__", False):\n'
          '                abstracts.add(name)\n    return frozenset(abstracts)\n\n\n')
_NEW = "    def __new__(mcls, name, bases, namespace, /, **kwargs):\n"
_REGISTRY_CLEAR = ('    def _abc_registry_clear(cls):\n        """Clear the registry (for debugging or testing)."""\n'
                   "        cls._abc_registry.clear()\n")
_COUNTER = "    _abc_invalidation_counter = 0\n"
_TOKEN = "    return ABCMeta._abc_invalidation_counter\n"
_NEG_BUG = "        if cls._abc_negative_cache_version > ABCMeta._abc_invalidation_counter:\n"

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "functools-method": ((_CACHED_END, _RESET),),
    "functools-function": ((_UNWRAP, _COMPOSE + _UNWRAP),),
    "functools-comment": ((_KEY0, "        # a lone int or str is its own key: it caches its hash already\n" + _KEY0),),
    "functools-docstring": ((_UNWRAP, _UNWRAP + '    """The innermost callable under nested partial objects."""\n'),),
    "bdb-method": ((_CLEAR_ALL, _DISABLE + _CLEAR_ALL),),
    "bdb-hints": ((_FNMATCH, _WITH_FRAMETYPE), (_EFFECTIVE, _EFFECTIVE_HINTED)),
    "bdb-param": ((_BPFORMAT, "    def bpformat(self, brief=False):\n"),
                  (_RET, _RET + "        if brief:\n            return ret\n")),
    "weakref-fix": ((_WKD_GET, _WKD_GET_FIXED),),
    "weakref-comment": ((_LEN_RET, "        # keys that died while iterating are queued, still in data\n" + _LEN_RET),),
    "statistics-extract": ((_COV_TAIL, _COV_USE), (_COR_HEAD, _COR_USE), (_COV_DEF, _CROSS + _COV_DEF)),
    "statistics-param": ((_MEDIAN_LOW, "def median_low(data, key=None):\n"),
                         (_MEDIAN_LOW_SORT, _MEDIAN_LOW_SORT.replace("sorted(data)", "sorted(data, key=key)"))),
    "statistics-hints": ((_ZSCORE, "    def zscore(self, x: float) -> float:\n"),),
    "py_abc-extract": ((_SCAN, _SCAN_CALL), (_ABCMETA, _NAMES + _ABCMETA)),
    "py_abc-docstring": ((_NEW, _NEW + '        """Create the class, its abstract names, registry and caches."""\n'),),
}

# Plausible wrong results, two or more per task: each must fail the task's check.
WRONG: dict[str, tuple[Edits, ...]] = {
    "functools-method": (
        ((_CACHED_END, _RESET.replace("instance.__dict__.pop(self.attrname, None)",
                                      "del instance.__dict__[self.attrname]")),),  # KeyError when not cached
        ((_CACHED_END, _RESET.replace("instance.__dict__.pop(self.attrname, None)", "instance.__dict__.clear()")),),
        ((_CACHED_END, _RESET.replace("instance.__dict__.pop(self.attrname, None)",
                                      "instance.__dict__[self.attrname] = None")),),  # None cached
        ((_CACHED_END, _RESET.replace("instance.__dict__.pop(self.attrname, None)", "self.func = self.func")),),),
    "functools-function": (
        ((_UNWRAP, _COMPOSE.replace("reversed(funcs[:-1])", "funcs[:-1]") + _UNWRAP),),  # wrong order for 3+
        ((_UNWRAP, _COMPOSE.replace("        if not funcs:\n            (arg,) = args\n            return arg\n", "")
          + _UNWRAP),),  # compose() fails
        ((_UNWRAP, _COMPOSE.replace("funcs[-1](*args, **kwargs)", "funcs[-1](*args)") + _UNWRAP),),  # no kwargs
        ((_UNWRAP, "def compose(f, g):\n    return lambda *a, **kw: f(g(*a, **kw))\n\n" + _UNWRAP),),),
    "functools-comment": (
        ((_FAST, "    # a lone int or str is its own key\n" + _FAST),),  # above the elif, not the return
        ((_KEY0, "        # fast path\n" + _KEY0), ("             fasttypes = {int, str},\n",
                                                   "             fasttypes = {int, str, float},\n")),
        ((_KEY0, _KEY0 + "        # a lone int or str is its own key\n"),),),  # below it
    "functools-docstring": (
        ((_UNWRAP, _UNWRAP + "    # the innermost callable under nested partials\n"),),
        ((_UNWRAP, _UNWRAP + '    """The innermost callable."""\n'),
         ("    while isinstance(func, partial):\n", "    if isinstance(func, partial):\n")),),
    "bdb-method": (
        ((_CLEAR_ALL, _DISABLE.replace("bp.disable()", "bp.deleteMe()") + _CLEAR_ALL),),  # deletes them
        ((_CLEAR_ALL, _DISABLE.replace("            for bp in Breakpoint.bplist[filename, line]:\n"
                                       "                bp.disable()\n",
                                       "            Breakpoint.bplist[filename, line][0].disable()\n")
          + _CLEAR_ALL),),  # only the first breakpoint of a line
        ((_CLEAR_ALL, _DISABLE.replace("        for line in self.breaks[filename]:\n"
                                       "            for bp in Breakpoint.bplist[filename, line]:\n"
                                       "                bp.disable()\n",
                                       "        for bp in Breakpoint.bpbynumber:\n            if bp:\n"
                                       "                bp.disable()\n") + _CLEAR_ALL),),  # every file's
        ((_CLEAR_ALL, _DISABLE.replace("            return 'There are no breakpoints in %s' % filename\n",
                                       "            return None\n").replace("        return None\n\n",
                                                                            "        return True\n\n")
          + _CLEAR_ALL),),),
    "bdb-delete": (
        ((TESTING[:TESTING.index(_TDB_CLASS_END) + len(_TDB_CLASS_END)], ""),),  # foo, bar and test left
        ((TESTING, "def test():\n    pass\n"),),  # a stub left
        ((TESTING, ""), (_SET_TRACE, "")),),  # set_trace too
    "bdb-hints": (
        ((_EFFECTIVE, "def effective(file: str, line: int, frame: FrameType):\n"),),  # FrameType not imported
        ((_FNMATCH, _WITH_FRAMETYPE), (_EFFECTIVE, "def effective(file: str, line: int, frame: FrameType):\n")),
        ((_FNMATCH, _WITH_FRAMETYPE), (_EFFECTIVE, _EFFECTIVE_HINTED),
         ("    possibles = Breakpoint.bplist[file, line]\n",
          "    possibles = Breakpoint.bplist.get((file, line), [])\n")),),
    "bdb-param": (
        ((_BPFORMAT, "    def bpformat(self, brief=False):\n"),),  # never used
        ((_BPFORMAT, "    def bpformat(self, brief=True):\n"),
         (_RET, _RET + "        if brief:\n            return ret\n")),  # brief by default
        ((_BPFORMAT, "    def bpformat(self, brief=False):\n        if brief:\n            return str(self)\n"),),
        ((_BPFORMAT, "    def bpformat(self, brief=False):\n"),
         (_RET, _RET + "        if brief:\n            return '%s:%d' % (self.file, self.line)\n")),),
    "weakref-fix": (
        ((_WKD_GET, _WKD_GET_FIXED.replace("            return default\n", "            return None\n")),),
        ((_WKD_GET, "        if isinstance(key, (int, str)):\n            return default\n" + _WKD_GET),),  # lists
        ((_WKD_GET, _WKD_GET_FIXED),
         ("    def __getitem__(self, key):\n        return self.data[ref(key)]\n",
          "    def __getitem__(self, key):\n        return self.data.get(ref(key))\n")),),  # more changed
    "weakref-move": (
        ((KEYED_REF, ""), ("class WeakMethod(ref):", KEYED_REF + "\n\nclass WeakMethod(ref):")),  # too high
        ((KEYED_REF, ""), (_WVD, KEYED_REF.replace("    def __init__(self, ob, callback, key):\n"
                                                   "        super().__init__(ob, callback)\n", "")
                           + "\n\n" + _WVD)),  # __init__ dropped
        ((_WVD, KEYED_REF + "\n\n" + _WVD),),),  # copied, not moved
    "weakref-comment": (
        (("        if self._dirty_len and self._pending_removals:\n",
          "        # dead keys queued while iterating\n        if self._dirty_len and self._pending_removals:\n"),),
        (("        return len(self.data)\n", "        # dead keys queued while iterating\n"
                                            "        return len(self.data)\n"),),  # WeakValueDictionary's
        ((_LEN_RET, "        # dead keys are queued\n        return len(self.data) - len(self._pending_removals"
                    ") if self._pending_removals else len(self.data)\n"),),),
    "weakref-rename": (
        ((_SCRUB_DEF, "    def _drop_stale_removals(self):\n"),),
        ((_SCRUB_CALL, "            self._drop_stale_removals()\n"),),
        ((_SCRUB_DEF, "    def _drop_stale_removals(self):\n"),
         (_SCRUB_CALL, "            self._drop_stale_removals()\n"),
         ("    def _commit_removals(self):\n        # NOTE", "    def _commit_pending(self):\n        # NOTE")),),
    "statistics-extract": (
        ((_COR_HEAD, _COR_USE), (_COV_DEF, _CROSS + _COV_DEF)),  # covariance keeps its copy
        ((_COV_TAIL, _COV_USE), (_COR_HEAD, _COR_USE),
         (_COV_DEF, _CROSS.replace("return xbar, ybar, sxy", "return sxy, xbar, ybar") + _COV_DEF)),
        ((_COV_TAIL, _COV_USE), (_COR_HEAD, _COR_USE),
         (_COV_DEF, _CROSS.replace("zip(x, y)", "zip(x, x)") + _COV_DEF)),
        ((_COV_TAIL, "    xbar, ybar, sxy = _cross_sum(x, y)\n    return sxy / n\n"), (_COR_HEAD, _COR_USE),
         (_COV_DEF, _CROSS + _COV_DEF)),),
    "statistics-param": (
        ((_MEDIAN_LOW, "def median_low(data, key=None):\n"),),  # key never used
        ((_MEDIAN_LOW, "def median_low(data, key=None):\n"),
         (_MEDIAN_LOW_SORT, _MEDIAN_LOW_SORT.replace("sorted(data)", "sorted(data, key=key)")),
         ("        return data[n // 2 - 1]\n", "        return key(data[n // 2 - 1]) if key else data[n // 2 - 1]\n")),
        ((_MEDIAN_LOW, "def median_low(data, key=None):\n"),
         (_MEDIAN_LOW_SORT, _MEDIAN_LOW_SORT.replace("sorted(data)", "sorted(data, key=key)")),
         ("def median_high(data):\n", "def median_high(data, key=None):\n"),
         (_MEDIAN_HIGH_SORT, _MEDIAN_HIGH_SORT.replace("sorted(data)", "sorted(data, key=key)"))),),  # more changed
    "statistics-rename": (
        ((_FAIL_NEG_DEF, _FAIL_NEG_DEF.replace("_fail_neg", "_reject_negatives")),),
        ((_FAIL_NEG_DEF, _FAIL_NEG_DEF.replace("_fail_neg", "_reject_negatives")),
         (_FAIL_NEG_DATA, _FAIL_NEG_DATA.replace("_fail_neg", "_reject_negatives"))),),  # the weights use left
    "statistics-hints": (
        ((_ZSCORE, "    def zscore(self, x) -> float:\n"),),
        ((_ZSCORE, "    def zscore(self, x: float):\n"),),
        ((_ZSCORE, "    def zscore(self, x: float) -> float:\n"),
         ("        return (x - self._mu) / self._sigma\n", "        return float(x - self._mu) / self._sigma\n")),),
    "py_abc-extract": (
        ((_SCAN, _SCAN_CALL), (_ABCMETA, _NAMES.replace("return frozenset(abstracts)", "return abstracts")
                               + _ABCMETA)),  # a set
        ((_SCAN, _SCAN_CALL), (_ABCMETA, _NAMES.replace(
            '    for base in bases:\n        for name in getattr(base, "__abstractmethods__", set()):\n'
            '            value = getattr(cls, name, None)\n'
            '            if getattr(value, "__isabstractmethod__", False):\n                abstracts.add(name)\n',
            "") + _ABCMETA)),  # the bases ignored
        ((_ABCMETA, _NAMES + _ABCMETA),),  # __new__ keeps its copy
        ((_SCAN, "        cls.__abstractmethods__ = mcls._abstract_names(cls, namespace, bases)\n"),
         (_NEW, "    @staticmethod\n" + _NAMES.replace("\n    ", "\n        ").replace("def _abstract_names",
                                                                                    "    def _abstract_names")
          .rstrip("\n") + "\n\n" + _NEW)),),  # a static method, not a module function
    "py_abc-delete": (
        ((DUMP_REGISTRY, ""), (_REGISTRY_CLEAR, "")),
        ((DUMP_REGISTRY, '    def _dump_registry(cls, file=None):\n        """Debug helper."""\n        pass\n'),),
        ((DUMP_REGISTRY, "    _dump_registry = None\n"),),),
    "py_abc-docstring": (
        ((_NEW, _NEW + "        # create the class, its abstract methods, registry and caches\n"),),
        (('    """Metaclass for defining Abstract Base Classes (ABCs).\n',
          '    """Metaclass for defining Abstract Base Classes (ABCs); __new__ builds the caches.\n'),),),
    "py_abc-rename": (
        ((_COUNTER, "    _abc_generation = 0\n"),),
        ((_COUNTER, "    _abc_generation = 0\n"), (_TOKEN, "    return ABCMeta._abc_generation\n")),
        ((_TOKEN, "    return ABCMeta._abc_generation\n"),),),
    "bug-functools-le": (
        ((_LE_BUG, _LE_BUG.replace("    return op_result and self == other\n", "    return op_result\n")),),
        ((_LE_BUG, _LE_BUG.replace("    return op_result and self == other\n",
                                   "    return not op_result or self == other\n")),),
        ((_LE_BUG, _LE_BUG.replace("op_result and self == other", "op_result or self == other")),
         ("    'Return a > b.  Computed by @total_ordering from (not a < b) and (a != b).'\n",
          "    'Return a > b.'\n"), (("    return not op_result and self != other\n"
                                     "\ndef _le_from_lt"), "    return not op_result\n\ndef _le_from_lt")),),
    "bug-bdb-ignore": (
        ((_IGNORE_BUG, "            if b.ignore > 2:\n"),),
        ((_IGNORE_BUG, "            if b.ignore >= 0:\n"),),
        ((_IGNORE_BUG, "            if b.ignore > 0:\n"),
         ("                    if b.ignore > 0:\n", "                    if b.ignore > 1:\n")),),  # and the cond's
    "bug-weakref-weakmethod-eq": (
        ((_EQ_BUG, "            return ref.__eq__(self, other) and self._func_ref is other._func_ref\n"),),
        ((_EQ_BUG, "            return self is other\n"),),
        ((_EQ_BUG, "            return ref.__eq__(self, other) and self._func_ref == other._func_ref\n"),
         ("            return ref.__ne__(self, other) or self._func_ref != other._func_ref\n",
          "            return ref.__ne__(self, other) and self._func_ref != other._func_ref\n")),),  # != broken
    "bug-statistics-covariance": (
        ((_COV_BUG, "    return sxy / (n + 1)\n"),),
        ((_COV_BUG, "    return sxy / (n - 2)\n"),),
        ((_COV_BUG, "    return sxy / (n - 1) if n > 2 else sxy / n\n"),),),
    "bug-py-abc-negative-cache": (
        ((_NEG_BUG, _NEG_BUG.replace(" > ", " >= ")),),
        (("        cls._abc_registry.add(subclass)\n",
          "        cls._abc_registry.add(subclass)\n        cls._abc_negative_cache.clear()\n"),),  # in register
        ((_NEG_BUG, "        if False:\n"),),),
}
