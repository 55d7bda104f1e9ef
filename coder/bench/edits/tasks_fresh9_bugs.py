"""The bug tasks of ``coder bench --edits --set fresh9``: one bug put in by hand in each of its five modules.

Each runs on a copy under ``files/fresh9/bugs/`` and is judged by calling the code
(:class:`~coder.bench.edits.behaviour.Behaves`). They are reported the way users report bugs: what they saw,
sometimes naming a function, never the line, and the function named is not always the one with the bug.
:mod:`coder.bench.edits.tasks_fresh9` says how the set was written and that nothing may be tuned on it.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task, source


def span(file: str, start: str, end: str) -> str:
    """The text of ``file`` from the line starting ``start`` through the first ``end`` after it."""
    text = source(file)
    a = text.index(start)
    return text[a:text.index(end, a) + len(end)]


# a class V ordered by total_ordering from __lt__ and __eq__ on its attribute v, then EXPR on it
_ORDERED = ("(lambda V: {expr})(m.total_ordering(type('V', (), {{'__init__': lambda s, v: setattr(s, 'v', v), "
            "'__lt__': lambda s, o: s.v < o.v, '__eq__': lambda s, o: s.v == o.v}})))")
# a fresh breakpoint b at app.py:5 (condition COND) with ignore count IGNORE, effective() asked N times for a frame
# at that line where x is 1: (whether each answer was b, the ignore count left, the hits counted)
_IGNORED = ("(m.Breakpoint.clearBreakpoints(), (lambda b, f: (setattr(b, 'ignore', {ignore}), "
            "[m.effective('app.py', 5, f)[0] is b for _ in range({n})], b.ignore, b.hits)[1:])"
            "(m.Breakpoint('app.py', 5, cond={cond!r}), "
            "__import__('types').SimpleNamespace(f_lineno=5, f_globals={{}}, f_locals={{'x': 1}})))[1]")
# two instances o and p of a class with two methods a and b, then EXPR on them
_BOUND = ("(lambda C: (lambda o, p: {expr})(C(), C()))"
          "(type('C', (), {{'a': lambda s: 1, 'b': lambda s: 2}}))")
# a fresh ABC A (the module's ABCMeta) and a plain class B, then EXPR on them
_ABC = "(lambda A, B: {expr})(m.ABCMeta('A', (), {{}}), type('B', (), {{}}))"

BUGS: tuple[Task, ...] = (
    Task("bug-functools-le", "fresh9/bugs/functools.py", "bugfix",
         ("functools.total_ordering gives wrong <= results. My Version class defines only __eq__ and __lt__, and "
          "Version('1.0') <= Version('2.0') is False although Version('1.0') < Version('2.0') is True. Even "
          "Version('1.0') <= Version('1.0') says False.",
          "After updating our vendored functools, a <= b is never true for classes decorated with total_ordering "
          "that define __lt__ and __eq__, whether a is smaller or equal. >, >= and < look right."),
         Behaves(("_le_from_lt",), (
             (_ORDERED.format(expr="(V(1) <= V(2), V(2) <= V(2), V(3) <= V(2))"), "(True, True, False)"),
             (_ORDERED.format(expr="(V(1) > V(2), V(3) > V(2), V(2) >= V(2), V(1) >= V(2))"),
              "(False, True, True, False)"),
             (_ORDERED.format(expr="[x.v for x in sorted([V(3), V(1), V(2)])]"), "[1, 2, 3]"),
             (_ORDERED.format(expr="V.__le__.__name__"), "'__le__'"),
             (_ORDERED.format(expr="V(1).__le__(V(1))"), "True"))),
         symbol="_le_from_lt"),
    Task("bug-bdb-ignore", "fresh9/bugs/bdb.py", "bugfix",
         ("bdb: the ignore count is off by one. I set ignore 2 on a breakpoint through our Bdb subclass and it "
          "stops on the second hit instead of the third. With ignore 1 it doesn't skip anything at all.",
          "Breakpoints with an ignore count stop one hit too early: 'ignore the next N crossings' only skips N-1 "
          "of them. It only happens for breakpoints without a condition; conditional ones count correctly."),
         Behaves(("effective",), (
             (_IGNORED.format(ignore=2, n=4, cond=None), "([False, False, True, True], 0, 4)"),
             (_IGNORED.format(ignore=1, n=3, cond=None), "([False, True, True], 0, 3)"),
             (_IGNORED.format(ignore=0, n=2, cond=None), "([True, True], 0, 2)"),
             (_IGNORED.format(ignore=1, n=3, cond="x > 0"), "([False, True, True], 0, 3)"),
             (_IGNORED.format(ignore=0, n=1, cond="x > 5"), "([False], 0, 1)"),
             ("(m.Breakpoint.clearBreakpoints(), m.effective('a.py', 3, __import__('types').SimpleNamespace("
              "f_lineno=3, f_globals={}, f_locals={}))[1] if m.Breakpoint('a.py', 3) else None)[1]", "True"))),
         symbol="effective"),
    Task("bug-weakref-weakmethod-eq", "fresh9/bugs/weakref.py", "bugfix",
         ("Our event bus keeps handlers in a set of weakref.WeakMethod objects, and subscribing obj.on_save and "
          "then obj.on_load leaves only one of them in the set. WeakMethod(obj.on_save) == "
          "WeakMethod(obj.on_load) is True, yet != says True as well.",
          "weakref.WeakMethod compares equal too easily: WeakMethod(a.f) == WeakMethod(a.g) and "
          "WeakMethod(a.f) == WeakMethod(b.f) both come out True, though they are different bound methods. "
          "Only a.f against b.g is unequal."),
         Behaves(("WeakMethod.__eq__",), (
             (_BOUND.format(expr="m.WeakMethod(o.a) == m.WeakMethod(o.b)"), "False"),
             (_BOUND.format(expr="m.WeakMethod(o.a) == m.WeakMethod(p.a)"), "False"),
             (_BOUND.format(expr="m.WeakMethod(o.a) == m.WeakMethod(o.a)"), "True"),
             (_BOUND.format(expr="m.WeakMethod(o.a) == m.WeakMethod(p.b)"), "False"),
             (_BOUND.format(expr="len({m.WeakMethod(o.a), m.WeakMethod(o.b), m.WeakMethod(o.a)})"), "2"),
             (_BOUND.format(expr="m.WeakMethod(o.a) != m.WeakMethod(o.b)"), "True"),
             (_BOUND.format(expr="m.WeakMethod(o.a) == o.a"), "False"))),
         symbol="WeakMethod.__eq__"),
    Task("bug-statistics-covariance", "fresh9/bugs/statistics.py", "bugfix",
         ("statistics.covariance(x, x) doesn't match statistics.variance(x): for [1, 2, 3, 4] I get 1.25 against "
          "1.6666666666666667, and numpy.cov agrees with variance. Is it computing the population covariance "
          "instead of the sample one?",
          "The covariance function in statistics returns values that are too small. The example in its own "
          "docstring, x = 1..9 and y = 1, 2, 3 repeated, should give 0.75 but I get 0.6666666666666666. "
          "correlation and linear_regression are fine."),
         Behaves(("covariance",), (
             ("m.covariance([1, 2, 3, 4], [1, 2, 3, 4]) == m.variance([1, 2, 3, 4])", "True"),
             ("m.covariance([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 1, 2, 3, 1, 2, 3])", "0.75"),
             ("m.covariance([1, 2, 3, 4, 5, 6, 7, 8, 9], [9, 8, 7, 6, 5, 4, 3, 2, 1])", "-7.5"),
             ("m.covariance([1, 2], [3, 5])", "1.0"),
             ("m.covariance([1], [2])", "raised StatisticsError"),
             ("m.covariance([1, 2, 3], [1, 2])", "raised StatisticsError"))),
         symbol="covariance"),
    Task("bug-py-abc-negative-cache", "fresh9/bugs/_py_abc.py", "bugfix",
         ("With the pure-Python ABCMeta from _py_abc, registering a class has no effect once isinstance has been "
          "asked about it: isinstance(b, A) is False, then A.register(B), and isinstance(b, A) is still False. "
          "If I register first it's True as expected.",
          "_py_abc: stale negative cache. Once issubclass(B, A) has returned False it stays False for good, even "
          "after A.register(B) has changed the cache token. The C abc module doesn't do this."),
         Behaves(("ABCMeta.__subclasscheck__",), (
             (_ABC.format(expr="(issubclass(B, A), A.register(B) is B, issubclass(B, A))"), "(False, True, True)"),
             (_ABC.format(expr="(isinstance(B(), A), A.register(B), isinstance(B(), A))[::2]"), "(False, True)"),
             (_ABC.format(expr="(lambda C: (issubclass(C, A), A.register(B), issubclass(C, A))[::2])"
                               "(type('C', (B,), {}))"), "(False, True)"),
             (_ABC.format(expr="(lambda X: (issubclass(X, A), A.register(B), issubclass(X, A))[::2])"
                               "(type('X', (), {}))"), "(False, False)"),
             (_ABC.format(expr="(A.register(B), issubclass(B, A))[1]"), "True"),
             ("(lambda t: (m.ABCMeta('A', (), {}).register(int), m.get_cache_token() > t)[1])(m.get_cache_token())",
              "True"))),
         symbol="ABCMeta.__subclasscheck__"),
)
