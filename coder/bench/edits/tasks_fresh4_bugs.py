"""The bug tasks of ``coder bench --edits --set fresh4``: one bug put in by hand in each of its five modules.

Each runs on a copy under ``files/fresh4/bugs/`` and is judged by calling the code
(:class:`~coder.bench.edits.behaviour.Behaves`). They are reported the way users report bugs: what they saw,
sometimes naming a function, never the line, and the function named is not always the one with the bug.
:mod:`coder.bench.edits.tasks_fresh4` says how the set was written and that nothing may be tuned on it.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task

# the top symbol table of the source {!r} (compiled as x.py)
ST = "m.symtable({!r}, 'x.py', 'exec')"
_SRC = "x = 1\nimport os\ndef f(a):\n    y = a\n    global g\n    g = 2\n    return os\n"
_TOP = ST.format(_SRC)
_F = _TOP + ".get_children()[0]"


def _scope(table: str, name: str) -> str:
    """(is_global, is_local) of ``name`` in the symbol table ``table``."""
    return f"(lambda s: (s.is_global(), s.is_local()))({table}.lookup({name!r}))"


# objects whose __mro_entries__ gives (int,), (dict, object) and ()
_ONE = "type('One', (), {'__mro_entries__': lambda self, bases: (int,)})()"
_TWO = "type('Two', (), {'__mro_entries__': lambda self, bases: (dict, object)})()"
_NONE = "type('No', (), {'__mro_entries__': lambda self, bases: ()})()"
_DT = "__import__('datetime').datetime"


def _day(text: str, fmt: str) -> str:
    """The ISO date that _strptime_datetime reads from ``text`` in the format ``fmt``."""
    return f"m._strptime_datetime({_DT}, {text!r}, {fmt!r}).date().isoformat()"


# a subclass of local whose __init__ needs an argument x (y is optional): it stores (x, y) as v
_SUB = "type('Conn', (m.local,), {'__init__': lambda self, x, y=1: setattr(self, 'v', (x, y))})"
# the list of what {} (an expression on L) gives in a new thread
_IN_THREAD = ("(lambda out: (lambda t: (t.start(), t.join(), out)[-1])"
              "(__import__('threading').Thread(target=lambda: out.append({}))))([])")
_BYTES_IO = "__import__('io').BytesIO"
_W = f"m.LZMAFile({_BYTES_IO}(), 'w')"

BUGS: tuple[Task, ...] = (
    Task("bug-symtable-global", "fresh4/bugs/symtable.py", "bugfix",
         ("symtable thinks every variable assigned in a function is global. for def f(a): y = a, the Symbol for "
          "y says is_global() True even though is_local() is True as well. and at module level x = 1 now gives "
          "is_global() False",
          "Symbol.is_global() has gone backwards in symtable: names bound at module level report False, while "
          "parameters and plain locals inside a function report True. Function.get_globals() still lists the "
          "right names, it's only the per-symbol answers that are wrong."),
         Behaves(("SymbolTable.lookup",), (
             (_scope(_TOP, "x"), "(True, True)"),
             (_scope(_TOP, "f"), "(True, True)"),
             (_scope(_F, "y"), "(False, True)"),
             (_scope(_F, "a"), "(False, True)"),
             (_scope(_F, "g"), "(True, False)"),
             (_scope(_F, "os"), "(True, False)"),
             (f"({_F}.get_globals(), {_F}.get_locals())", "(('g', 'os'), ('a', 'y'))"))),
         symbol="SymbolTable.lookup"),
    Task("bug-types-mro-entries", "fresh4/bugs/types.py", "bugfix",
         ("types.new_class falls over as soon as two of the bases define __mro_entries__: the second object "
          "itself stays in the bases and I get TypeError: metaclass conflict. With a single such base it works.",
          "resolve_bases((a, b)) gives (int, <B object>, dict, object) when a.__mro_entries__ returns (int,) and "
          "b's returns (dict, object). the B instance should have been replaced, expected (int, dict, object)"),
         Behaves(("resolve_bases",), (
             (f"m.resolve_bases(({_ONE}, {_TWO}))", "(<class 'int'>, <class 'dict'>, <class 'object'>)"),
             (f"m.resolve_bases(({_TWO}, {_ONE}))", "(<class 'dict'>, <class 'object'>, <class 'int'>)"),
             (f"m.resolve_bases(({_TWO}, str, {_ONE}))",
              "(<class 'dict'>, <class 'object'>, <class 'str'>, <class 'int'>)"),
             (f"m.resolve_bases(({_NONE}, {_ONE}, {_ONE}))", "(<class 'int'>, <class 'int'>)"),
             (f"m.new_class('X', ({_NONE}, {_ONE})).__bases__", "(<class 'int'>,)"),
             (f"m.new_class('Y', ({_TWO}, {_NONE})).__mro__[1:]", "(<class 'dict'>, <class 'object'>)"),
             ("(lambda b: m.resolve_bases(b) is b)((int, str))", "True"))),
         symbol="resolve_bases"),
    Task("bug-strptime-week", "fresh4/bugs/_strptime.py", "bugfix",
         ("datetime.strptime('2024 01 1', '%Y %W %w') gives 2024-01-08, but 2024 starts on a Monday, so the "
          "Monday of week 1 is Jan 1. Same with %U in years that start on a Sunday (2006, 2017).",
          "Parsing week numbers is off by a whole week in some years: strptime with %U or %W plus a weekday "
          "returns a date 7 days too late whenever January 1st is itself the first day of the week (a Sunday "
          "for %U, a Monday for %W). Every other year comes out right."),
         Behaves(("_calc_julian_from_U_or_W",), (
             (_day("2024 01 1", "%Y %W %w"), "'2024-01-01'"),
             (_day("2024 05 3", "%Y %W %w"), "'2024-01-31'"),
             (_day("2006 01 0", "%Y %U %w"), "'2006-01-01'"),
             (_day("2017 02 Tue", "%Y %U %a"), "'2017-01-10'"),
             (_day("2023 10 3", "%Y %W %w"), "'2023-03-08'"),
             (_day("2022 00 6", "%Y %U %w"), "'2022-01-01'"),
             ("m._calc_julian_from_U_or_W(2024, 1, 0, True)", "1"))),
         symbol="_calc_julian_from_U_or_W"),
    Task("bug-threading_local-init", "fresh4/bugs/_threading_local.py", "bugfix",
         ("My subclass of _threading_local.local takes constructor arguments (class Conn(local): def "
          "__init__(self, url): ...). Worker threads blow up the first time they touch the object: TypeError: "
          "__init__() missing 1 required positional argument: 'url'. The thread that created it is fine.",
          "local subclasses whose __init__ needs args break in every thread except the one that made them. each "
          "new thread is supposed to get __init__ run again with the original args"),
         Behaves(("_patch",), (
             (f"(lambda L: {_IN_THREAD.format('L.v')})({_SUB}(5, y=7))", "[(5, 7)]"),
             (f"(lambda L: {_IN_THREAD.format('L.v')})({_SUB}(x=3))", "[(3, 1)]"),
             (f"{_SUB}(5).v", "(5, 1)"),
             (f"(lambda L: ({_IN_THREAD.format('setattr(L, chr(118), 0)')}, L.v)[-1])({_SUB}(4))", "(4, 1)"),
             (f"(lambda L: (setattr(L, 'a', 1), {_IN_THREAD.format('hasattr(L, chr(97))')})[-1])(m.local())",
              "[False]"))),
         symbol="_patch"),
    Task("bug-lzma-tell", "fresh4/bugs/lzma.py", "bugfix",
         ("LZMAFile.tell() is wrong when writing: after f.write(b'abc'); f.write(b'de') it says 2 instead of 5, "
          "as if it only counted the last write",
          "In write mode, lzma's file object reports the wrong position: tell() returns only the size of the "
          "most recent write instead of the total number of uncompressed bytes written so far. Reading is fine."),
         Behaves(("LZMAFile.write",), (
             (f"(lambda f: (f.write(b'abc'), f.write(b'de'), f.tell())[-1])({_W})", "5"),
             (f"(lambda f: (f.write(b'abc'), f.tell())[-1])({_W})", "3"),
             (f"(lambda f: (f.write(b'x'), f.write(__import__('array').array('I', [1, 2])), f.tell())[1:])({_W})",
              "(8, 9)"),
             (f"(lambda b: (lambda f: (f.write(b'abc'), f.write(b'de'), f.close(), m.decompress(b.getvalue()))[-1])"
              f"(m.LZMAFile(b, 'w')))({_BYTES_IO}())", "b'abcde'"),
             (f"(lambda f: (f.read(2), f.tell())[-1])(m.LZMAFile({_BYTES_IO}(m.compress(b'hello'))))", "2"))),
         symbol="LZMAFile.write"),
)
