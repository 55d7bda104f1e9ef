"""The ninth fresh set of ``coder bench --edits --set fresh9``: the unseen measure once the eighth fresh set is read.

The suite, the held-out set and the eight fresh sets (:mod:`coder.bench.edits.tasks_fresh` to
:mod:`coder.bench.edits.tasks_fresh8`) may all have been read by the people tuning coder's instruction reader, so
none of them can be trusted to measure how coder does on wordings nobody tuned for. These tasks were written on
2026-12-05 by someone who had not read ``coder/edit/``, coder's CLI (other than ``coder/cli/bench_edits.py``, to
register the set), the benchmark pages or any bench result, on five CPython 3.11.7 modules no other set uses
(``functools``, ``bdb``, ``weakref``, ``statistics``, ``_py_abc``; shipped under ``files/fresh9/``,
``files/SOURCES.md`` lists them). Each task has two wordings, typed once the way two different people would type
the request into an assistant, and never tried on coder or a model (nor on coder's planner). Nothing may be tuned
on this set (no reading rule, prompt or repair written to pass one of its tasks), or it becomes one more suite.
Its first run is still to be recorded.

The bug tasks are in :mod:`coder.bench.edits.tasks_fresh9_bugs`; the rest reuse the suite's checks, and a
change of behaviour is judged by calling the code (:class:`~coder.bench.edits.behaviour.Behaves`). No case starts
a process or opens a socket, and none reads a file but the module's own and ``os.py`` (bdb's breakpoints must be
set on lines that exist).
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks_fresh9_bugs import BUGS, span

# a class C whose cached_property v counts its calls in n (so each computation gives the next number), then EXPR
_COUNTED = ("(lambda C: {expr})(type('C', (), {{'n': 0, "
            "'v': m.cached_property(lambda s: setattr(s, 'n', s.n + 1) or s.n)}}))")
# the items I of a tuple of steps: what reset returns is free
_PICK = "__import__('operator').itemgetter({items})({steps})"

FUNCTOOLS: tuple[Task, ...] = (
    Task("functools-method", "fresh9/functools.py", "method",
         ("We use functools.cached_property for an expensive config lookup, and when the config file changes we "
          "need to force a recompute. Right now we reach into obj.__dict__ and delete the key by hand. Could "
          "cached_property grow a method reset(instance) that forgets the value cached on that one instance, so "
          "the next access calls the function again? Calling it when nothing has been cached yet should just do "
          "nothing.",
          "cached_property.reset(self, instance): drop the cached value for that instance (no-op if not cached)"),
         Behaves(("cached_property.reset",), (
             (_COUNTED.format(expr=_PICK.format(items="0, 1, 3, 4", steps="(lambda o: (o.v, o.v, C.v.reset(o), "
                                                "o.v, o.v))(C())")), "(1, 1, 2, 2)"),
             (_COUNTED.format(expr="(lambda o: (C.v.reset(o), o.v)[1])(C())"), "1"),
             (_COUNTED.format(expr=_PICK.format(items="0, 1, 3, 4", steps="(lambda o, p: (o.v, p.v, C.v.reset(o), "
                                                "o.v, p.v))(C(), C())")), "(1, 1, 2, 1)"),
             (_COUNTED.format(expr="(lambda o: (o.v, C.v.reset(o), 'v' in o.__dict__)[2])(C())"), "False"),
             (_COUNTED.format(expr="(lambda o: (o.v, C.v.reset(o), C.v.reset(o), o.v)[3])(C())"), "2"),
             (_COUNTED.format(expr="(lambda o: (setattr(o, 'w', 5), o.v, C.v.reset(o), o.w, o.v)[3:])(C())"),
              "(5, 2)"),
             (_COUNTED.format(expr="(lambda o: (o.v, o.v, o.v))(C())"), "(1, 1, 1)"))),
         symbol="cached_property"),
    Task("functools-function", "fresh9/functools.py", "function",
         ("add functools.compose(*funcs): compose(f, g, h)(*a, **kw) == f(g(h(*a, **kw))); compose() with no "
          "functions is the identity (returns its single argument)",
          "I'd like a compose function in functools. compose(f, g) should give back a new callable that runs g "
          "first and then f on the result, the usual maths order, and it should take any number of functions. "
          "Whatever arguments the composed callable is called with, positional or keyword, all go to the last "
          "function in the list. And calling compose() with nothing should give a function that returns its one "
          "argument unchanged."),
         Behaves(("compose",), (
             ("m.compose(str, abs)(-3)", "'3'"),
             ("m.compose(len, str.split)('a b c')", "3"),
             ("m.compose(lambda s: s + '!', lambda s: s * 2, lambda a, b: a + b)('x', 'y')", "'xyxy!'"),
             ("m.compose(abs)(-2)", "2"),
             ("m.compose()(7)", "7"),
             ("m.compose()('same')", "'same'"),
             ("m.compose(str, int)('ff', base=16)", "'255'"),
             ("m.compose(lambda x: x * 2, lambda x: x + 1)(5)", "12")))),
    Task("functools-comment", "fresh9/functools.py", "comment",
         ("In functools._make_key there's an early return key[0] that hands back the bare argument instead of a "
          "_HashedSeq. It looks like a bug at first sight. Please put a comment just above that return saying "
          "it's deliberate: a single untyped int or str argument is its own cache key, because those types "
          "already cache their hash, so wrapping them would only cost memory and time.",
          "_make_key: add a comment over the return key[0] fast path (lone int/str arg used as the key itself)"),
         Comment("_make_key", above=("return key[0]",)), symbol="_make_key"),
    Task("functools-docstring", "fresh9/functools.py", "docstring",
         ("functools: write a docstring for _unwrap_partial",
          "_unwrap_partial has no docstring. Could you add one saying that it follows .func through nested partial "
          "objects and returns the innermost callable that is not a partial? The code stays as it is."),
         Docstring("_unwrap_partial"), symbol="_unwrap_partial"),
)

TESTING = span("fresh9/bdb.py", "class Tdb(Bdb):\n", "    t.run('import bdb; bdb.foo(10)')\n")
# a fresh debugger d with no breakpoints anywhere, then EXPR on it
_DEBUGGER = "(m.Breakpoint.clearBreakpoints(), (lambda d: {expr})(m.Bdb()))[1]"
# a fresh breakpoint b at app.py:7 stopping only if x > 1, ignore 2, hit 3 times, then EXPR on it
_BP = ("(m.Breakpoint.clearBreakpoints(), (lambda b: (setattr(b, 'ignore', 2), setattr(b, 'hits', 3), {expr})[-1])"
       "(m.Breakpoint('app.py', 7, cond='x > 1')))[1]")

BDB: tuple[Task, ...] = (
    Task("bdb-method", "fresh9/bdb.py", "method",
         ("Our debugger front end can clear all breakpoints in a file with clear_all_file_breaks, but our users "
          "want to switch them off for a while instead. Please add a Bdb method disable_file_breaks(filename) "
          "that disables every breakpoint set in that file without deleting any. Like the other break methods "
          "it should return None when all went well and an error message string when the file has no "
          "breakpoints.",
          "bdb: new Bdb.disable_file_breaks(filename) -- bp.disable() for each breakpoint in the file, keep them; "
          "return an error str if there are none, else None"),
         Behaves(("Bdb.disable_file_breaks",), (
             (_DEBUGGER.format(expr="(d.set_break(m.__file__, 1), d.set_break(m.__file__, 2), "
                                    "d.disable_file_breaks(m.__file__), [b.enabled for b in m.Breakpoint.bpbynumber "
                                    "if b], d.get_file_breaks(m.__file__))[2:]"), "(None, [False, False], [1, 2])"),
             (_DEBUGGER.format(expr="type(d.disable_file_breaks(m.__file__)).__name__"), "'str'"),
             (_DEBUGGER.format(expr="(d.set_break(m.__file__, 1), d.set_break(__import__('os').__file__, 1), "
                                    "d.disable_file_breaks(m.__file__), [b.enabled for b in m.Breakpoint.bpbynumber "
                                    "if b])[3]"), "[False, True]"),
             (_DEBUGGER.format(expr="(d.set_break(m.__file__, 3), d.set_break(m.__file__, 3, cond='x'), "
                                    "d.disable_file_breaks(m.__file__), [b.enabled for b in m.Breakpoint.bpbynumber "
                                    "if b])[3]"), "[False, False]"),
             (_DEBUGGER.format(expr="(d.set_break(m.__file__, 1), d.disable_file_breaks(m.__file__), "
                                    "d.get_break(m.__file__, 1), len(m.Breakpoint.bplist))[2:]"), "(True, 1)"),
             (_DEBUGGER.format(expr="(d.set_break(m.__file__, 1), d.disable_file_breaks('nosuchfile.py'), "
                                    "[b.enabled for b in m.Breakpoint.bpbynumber if b])[2]"), "[True]"))),
         symbol="Bdb"),
    Task("bdb-delete", "fresh9/bdb.py", "delete",
         ("bdb.py: delete the demo code at the bottom (Tdb, foo, bar, test)",
          "At the end of bdb.py there's an old self-test: a Tdb subclass that prints every event, two toy "
          "functions foo and bar, and a test() that runs them. Nothing imports any of it and it shows up in our "
          "API docs. Can you get rid of all that? Leave the Breakpoint class and the effective and checkfuncname "
          "helpers alone."),
         SameAst(((TESTING, ""),))),
    Task("bdb-hints", "fresh9/bdb.py", "hints",
         ("We're adding type annotations to our fork of bdb, starting with the module-level effective(file, line, "
          "frame). file is the canonical filename (str), line an int, frame a frame object (types.FrameType), and "
          "it returns a pair: the Breakpoint to act on or None, and a bool delete flag or None. Please annotate "
          "just that function.",
          "type-annotate bdb.effective(file, line, frame) -> tuple[Breakpoint | None, bool | None]"),
         Hints("effective"), symbol="effective"),
    Task("bdb-param", "fresh9/bdb.py", "param",
         ("Breakpoint.bpformat: add brief=False; brief=True -> only the first line (number, disp, enabled, "
          "file:line), without the cond/ignore/hits lines",
          "When we list breakpoints in our status bar we only want the first line of what bpformat returns, and "
          "right now we split the string ourselves. Could bpformat take an optional brief argument, off by "
          "default, and when it's on return just that headline with the number, keep/del, yes/no and file:line, "
          "leaving out the condition, ignore count and hit count lines?"),
         Behaves(("Breakpoint.bpformat",), (
             (_BP.format(expr="b.bpformat(brief=True)"), "'1   breakpoint   keep yes   at app.py:7'"),
             (_BP.format(expr="b.bpformat()"), "'1   breakpoint   keep yes   at app.py:7\\n\\tstop only if x > 1"
                                               "\\n\\tignore next 2 hits\\n\\tbreakpoint already hit 3 times'"),
             (_BP.format(expr="b.bpformat(brief=False) == b.bpformat()"), "True"),
             (_BP.format(expr="'\\n' in b.bpformat(brief=True)"), "False"),
             ("(m.Breakpoint.clearBreakpoints(), (lambda b: (b.disable(), b.bpformat(brief=True))[1])"
              "(m.Breakpoint('x.py', 2, temporary=True)))[1]", "'1   breakpoint   del  no    at x.py:2'"),
             ("(m.Breakpoint.clearBreakpoints(), m.Breakpoint('y.py', 4).bpformat(brief=True))[1]",
              "'1   breakpoint   keep yes   at y.py:4'"))),
         symbol="Breakpoint.bpformat"),
)

KEYED_REF = span("fresh9/weakref.py", "class KeyedRef(ref):\n", "        super().__init__(ob, callback)\n")
# an instance k of a fresh class C and an empty WeakKeyDictionary d, then EXPR on them
_KEYED = "(lambda C: (lambda k, d: {expr})(C(), m.WeakKeyDictionary()))(type('C', (), {{}}))"

WEAKREF: tuple[Task, ...] = (
    Task("weakref-fix", "fresh9/weakref.py", "fix",
         ("key in d on a WeakKeyDictionary happily returns False for keys that can't be weakly referenced, like "
          "ints or strings, but d.get(key) blows up with TypeError: cannot create weak reference to 'int' object. "
          "We look up mixed keys and would like get to behave like the in check: for such a key just return the "
          "default. d[key] can keep raising.",
          "WeakKeyDictionary.get(): return default instead of raising TypeError when the key isn't weakref-able"),
         Behaves(("WeakKeyDictionary.get",), (
             ("m.WeakKeyDictionary().get(1)", "None"),
             ("m.WeakKeyDictionary().get('name', 'fallback')", "'fallback'"),
             ("m.WeakKeyDictionary().get([1, 2], 0)", "0"),
             (_KEYED.format(expr="(d.__setitem__(k, 'v'), d.get(k), d.get(k, 'x'))[1:]"), "('v', 'v')"),
             (_KEYED.format(expr="(d.__setitem__(k, 'v'), d.get(C(), 'none'))[1]"), "'none'"),
             ("m.WeakKeyDictionary()[1]", "raised TypeError"),
             ("1 in m.WeakKeyDictionary()", "False"))),
         symbol="WeakKeyDictionary.get"),
    Task("weakref-move", "fresh9/weakref.py", "move",
         ("weakref.py: move class KeyedRef up so it comes before WeakValueDictionary, which uses it",
          "Reading weakref.py top to bottom, WeakValueDictionary keeps creating KeyedRef objects long before you "
          "get to see what a KeyedRef is. Could you relocate the KeyedRef class so it's defined just above "
          "WeakValueDictionary instead of after it? Don't touch its body."),
         SameAst(((KEYED_REF, ""), ("class WeakValueDictionary(", KEYED_REF + "\n\nclass WeakValueDictionary(")))),
    Task("weakref-comment", "fresh9/weakref.py", "comment",
         ("Why does WeakKeyDictionary.__len__ subtract len(self._pending_removals)? It took me a while: while the "
          "dict is being iterated, keys that die are queued there instead of being deleted from self.data, so "
          "they are still in data but must not be counted. Please write that down as a comment on the return "
          "line of __len__.",
          "comment the return in WeakKeyDictionary.__len__: why the pending removals are subtracted"),
         Comment("WeakKeyDictionary.__len__", above=("return len(self.data) - len(self._pending_removals)",)),
         symbol="WeakKeyDictionary.__len__"),
    Task("weakref-rename", "fresh9/weakref.py", "rename",
         ("rename WeakKeyDictionary._scrub_removals to _drop_stale_removals (the def and the call in __len__)",
          "The name _scrub_removals in weakref's WeakKeyDictionary doesn't tell me much. What it does is throw "
          "away queued removals for keys that are no longer in the dict. I'd like it to be called "
          "_drop_stale_removals; please update the place that calls it too."),
         Renamed("_scrub_removals", "_drop_stale_removals")),
)

_X9 = "[1, 2, 3, 4, 5, 6, 7, 8, 9]"

STATISTICS: tuple[Task, ...] = (
    Task("statistics-extract", "fresh9/statistics.py", "extract",
         ("covariance and correlation in statistics.py both start with the same three lines computing the mean "
          "of x, the mean of y and the sum of the products of the deviations. Please move those into a private "
          "helper _cross_sum(x, y) that returns the tuple (xbar, ybar, sxy), and call it from both functions. "
          "linear_regression may use it as well if you like, but its results must not change.",
          "statistics: factor xbar/ybar/sxy out of covariance() and correlation() into _cross_sum(x, y) -> "
          "(xbar, ybar, sxy)"),
         Behaves(("covariance", "correlation", "linear_regression", "_cross_sum"), (
             ("m._cross_sum([1, 2, 3], [2, 4, 6])", "(2.0, 4.0, 4.0)"),
             ("m._cross_sum([1, 2, 3, 4], [4, 3, 2, 1])", "(2.5, 2.5, -5.0)"),
             (f"m.covariance({_X9}, [1, 2, 3, 1, 2, 3, 1, 2, 3])", "0.75"),
             (f"m.covariance({_X9}, [9, 8, 7, 6, 5, 4, 3, 2, 1])", "-7.5"),
             (f"m.correlation({_X9}, {_X9})", "1.0"),
             (f"m.correlation({_X9}, [9, 8, 7, 6, 5, 4, 3, 2, 1])", "-1.0"),
             ("m.correlation([1, 2, 3], [5, 5, 5])", "raised StatisticsError"),
             ("m.covariance([1, 2], [1])", "raised StatisticsError"),
             ("m.linear_regression([1, 2, 3], [2, 4, 6])", "LinearRegression(slope=2.0, intercept=0.0)"),
             ("m.linear_regression([1, 2, 3], [2, 4, 6], proportional=True)",
              "LinearRegression(slope=2.0, intercept=0.0)")),
             calls=(("covariance", "_cross_sum"), ("correlation", "_cross_sum")))),
    Task("statistics-param", "fresh9/statistics.py", "param",
         ("statistics.median_low: add key=None, used for the sorting, so it can return a record by one of its "
          "fields (same idea as the key of sorted/min/max)",
          "median_low is handy because it always returns one of the actual data points. I'd like to use it on a "
          "list of records, picking out the one with the median age, so could it take an optional key function "
          "like sorted() and min() do? Without a key it must work exactly as it does now."),
         Behaves(("median_low",), (
             ("m.median_low([('b', 3), ('a', 1), ('c', 2)], key=lambda t: t[1])", "('c', 2)"),
             ("m.median_low([('b', 3), ('a', 1), ('c', 2), ('d', 4)], key=lambda t: t[1])", "('c', 2)"),
             ("m.median_low(['bb', 'a', 'ccc', 'dddd'], key=len)", "'bb'"),
             ("m.median_low([3, 1, 2], key=lambda v: -v)", "2"),
             ("m.median_low(iter([4, -2, 9]), key=abs)", "4"),
             ("m.median_low([5, 1, 3, 2])", "2"),
             ("m.median_low([5, 1, 3, 2], key=None)", "2"),
             ("m.median_low([], key=len)", "raised StatisticsError"))),
         symbol="median_low"),
    Task("statistics-rename", "fresh9/statistics.py", "rename",
         ("_fail_neg in statistics.py is a cryptic name for a generator that passes values through and raises "
          "StatisticsError on a negative one. Could we rename it to _reject_negatives? harmonic_mean uses it in "
          "two places, those need to follow.",
          "statistics.py: _fail_neg -> _reject_negatives"),
         Renamed("_fail_neg", "_reject_negatives")),
    Task("statistics-hints", "fresh9/statistics.py", "hints",
         ("add annotations to NormalDist.zscore (x: float, returns float)",
          "mypy flags every call to NormalDist.zscore in our code as untyped. Could you put type hints on that "
          "method in statistics.py? It takes a number x and returns a float; nothing else in the file should "
          "change."),
         Hints("NormalDist.zscore"), symbol="NormalDist.zscore"),
)

DUMP_REGISTRY = span("fresh9/_py_abc.py", "    def _dump_registry(cls, file=None):\n",
                     '                print(f"{name}: {value!r}", file=file)\n')
_ABSTRACT = "__import__('abc').abstractmethod(lambda s: 0)"

PY_ABC: tuple[Task, ...] = (
    Task("py_abc-extract", "fresh9/_py_abc.py", "extract",
         ("In _py_abc, ABCMeta.__new__ mixes two things: working out which abstract methods a new class still "
          "has, and setting up the registry and caches. I'd like the first part as a module-level function "
          "_abstract_names(cls, namespace, bases) returning the frozenset of names, so I can reuse it when a "
          "class is patched after creation. __new__ should then just assign its result to "
          "cls.__abstractmethods__.",
          "_py_abc: extract the abstract-method scan of ABCMeta.__new__ into _abstract_names(cls, namespace, "
          "bases) -> frozenset"),
         Behaves(("ABCMeta.__new__", "_abstract_names"), (
             (f"m.ABCMeta('A', (), {{'f': {_ABSTRACT}, 'g': lambda s: 1}}).__abstractmethods__", "frozenset({'f'})"),
             (f"(lambda A: m.ABCMeta('B', (A,), {{}}).__abstractmethods__)(m.ABCMeta('A', (), {{'f': {_ABSTRACT}}}))",
              "frozenset({'f'})"),
             (f"(lambda A: m.ABCMeta('B', (A,), {{'f': lambda s: 2}}).__abstractmethods__)"
              f"(m.ABCMeta('A', (), {{'f': {_ABSTRACT}}}))", "frozenset()"),
             (f"m._abstract_names(type('X', (), {{}}), {{'h': {_ABSTRACT}, 'k': 3}}, ())", "frozenset({'h'})"),
             (f"(lambda A: m._abstract_names(type('Y', (A,), {{}}), {{}}, (A,)))"
              f"(m.ABCMeta('A', (), {{'f': {_ABSTRACT}}}))", "frozenset({'f'})"),
             (f"m.ABCMeta('A', (), {{'f': {_ABSTRACT}}})()", "raised TypeError"),
             ("type(m.ABCMeta('A', (), {})._abc_registry).__name__", "'WeakSet'"),
             ("m.ABCMeta('A', (), {})._abc_negative_cache_version == m.get_cache_token()", "True")),
             calls=(("ABCMeta.__new__", "_abstract_names"),))),
    Task("py_abc-delete", "fresh9/_py_abc.py", "delete",
         ("remove the _dump_registry debug helper from _py_abc.ABCMeta",
          "We ship _py_abc in a sandbox where printing isn't allowed, and the only method that prints is "
          "ABCMeta._dump_registry, a debugging aid nobody calls. Please take that method out. The two "
          "_abc_*_clear helpers next to it should stay."),
         SameAst(((DUMP_REGISTRY, ""),))),
    Task("py_abc-docstring", "fresh9/_py_abc.py", "docstring",
         ("Every method of ABCMeta in _py_abc has a docstring except __new__, which is the one doing the most "
          "work. Please add one: it creates the class, computes __abstractmethods__ from the namespace and the "
          "bases, and gives the class an empty registry, positive and negative caches and a negative cache "
          "version.",
          "docstring on ABCMeta.__new__ (_py_abc.py)"),
         Docstring("ABCMeta.__new__"), symbol="ABCMeta.__new__"),
    Task("py_abc-rename", "fresh9/_py_abc.py", "rename",
         ("_py_abc: rename ABCMeta._abc_invalidation_counter -> _abc_generation everywhere",
          "The class attribute _abc_invalidation_counter on _py_abc's ABCMeta is really a generation number for "
          "the ABC caches. Can you rename it to _abc_generation throughout the module, including get_cache_token "
          "and the cache checks?"),
         Renamed("_abc_invalidation_counter", "_abc_generation")),
)

FRESH9: tuple[Task, ...] = FUNCTOOLS + BDB + WEAKREF + STATISTICS + PY_ABC + BUGS
