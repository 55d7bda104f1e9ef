"""The bug tasks of ``coder bench --edits --set fresh5``: one bug put in by hand in each of its five modules.

Each runs on a copy under ``files/fresh5/bugs/`` and is judged by calling the code
(:class:`~coder.bench.edits.behaviour.Behaves`). They are reported the way users report bugs: what they saw,
sometimes naming a function, never the line, and the function named is not always the one with the bug.
:mod:`coder.bench.edits.tasks_fresh5` says how the set was written and that nothing may be tuned on it.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task

# operator.py ends in `from _operator import *`, which replaces its pure-Python code by the C one: this is the
# module run again with _operator blocked, so that a case calls the code of the file
PY_OPERATOR = ("(lambda s, u: (s.modules.__setitem__('_operator', None), (lambda mod: (m.__spec__.loader"
               ".exec_module(mod), mod)[1])(u.module_from_spec(m.__spec__)))[1])"
               "(__import__('sys'), __import__('importlib.util').util)")
_NS = "__import__('types').SimpleNamespace"
# an object with a.b.c == 1, a.b.d.e == 'deep' and x == 2
_OBJ = f"{_NS}(a={_NS}(b={_NS}(c=1, d={_NS}(e='deep'))), x=2)"

# a new folder under the cwd (the checks' runner works in a temporary folder of its own, removed after it)
_NEW_DIR = "__import__('os').path.abspath(__import__('tempfile').mkdtemp(dir='.'))"
# a fresh path in a new folder (no file there yet), and one that already holds a file
TMP = f"__import__('os').path.join({_NEW_DIR}, 'f.bz2')"
_TAKEN = f"(lambda p: (open(p, 'wb').close(), p)[1])({TMP})"


def tree(files: dict[str, str]) -> str:
    """A new folder holding ``files`` (relative path: text); the expression gives its path."""
    os_ = "__import__('os')"
    return (f"(lambda d: ([({os_}.makedirs({os_}.path.dirname({os_}.path.join(d, p)), exist_ok=True), "
            f"open({os_}.path.join(d, p), 'w').write(s)) for p, s in {files!r}.items()], d)[1])"
            f"({_NEW_DIR})")


def finder(files: dict[str, str]) -> str:
    """A ModuleFinder searching only the folder of ``files``, after it ran that folder's main.py."""
    return f"(lambda d: (lambda f: (f.run_script(d + '/main.py'), f)[1])(m.ModuleFinder([d])))({tree(files)})"


_PROJECT = {"pkg/__init__.py": "VERSION = 1\n", "pkg/real.py": "",
            "star/__init__.py": "from sys import *\n",
            "main.py": "from pkg import VERSION, real, gone\nfrom star import thing\nimport nowhere\n"}
_F = finder(_PROJECT)

BUGS: tuple[Task, ...] = (
    Task("bug-heapq-merge-key", "fresh5/bugs/heapq.py", "bugfix",
         ("heapq.merge(['dog', 'horse'], ['cat', 'fish', 'kangaroo'], key=len) blows up with TypeError: '<' not "
          "supported between instances of 'str' and 'int' -- the example straight from its own docstring. "
          "without key= it works",
          "When I pass a key function to heapq's merge, the first item of each input comes out fine, but as soon as "
          "it moves on to the next element of an input it crashes comparing a str with an int (or a tuple with a "
          "str, depending on the data). It looks like the sort key of the later elements gets lost somewhere. "
          "Merging with key=None is not affected."),
         Behaves(("merge",), (
             ("list(m.merge(['dog', 'horse'], ['cat', 'fish', 'kangaroo'], key=len))",
              "['dog', 'cat', 'fish', 'horse', 'kangaroo']"),
             ("list(m.merge(['a', 'bb'], ['ccc'], key=len))", "['a', 'bb', 'ccc']"),
             ("list(m.merge([(3, 'a'), (1, 'b')], [(2, 'c')], key=lambda t: t[1]))", "[(3, 'a'), (1, 'b'), (2, 'c')]"),
             ("list(m.merge([3, -2, 1], [-4], key=abs, reverse=True))", "[-4, 3, -2, 1]"),
             ("list(m.merge([1, 3, 5], [2, 4, 6], []))", "[1, 2, 3, 4, 5, 6]"),
             ("list(m.merge([5, 3], [4], reverse=True))", "[5, 4, 3]"))),
         symbol="merge"),
    Task("bug-operator-attrgetter", "fresh5/bugs/operator.py", "bugfix",
         ("Dotted names in the pure-Python attrgetter only work one level deep. attrgetter('a.b')(obj) is fine, but "
          "attrgetter('a.b.c')(obj) raises AttributeError: 'SimpleNamespace' object has no attribute 'b.c', as if "
          "everything after the first dot were treated as a single attribute name.",
          "operator.py attrgetter: 3+ part paths like 'user.address.city' broken, AttributeError about 'address.city'"),
         Behaves(("attrgetter.__init__",), (
             (f"{PY_OPERATOR}.attrgetter('a.b.c')({_OBJ})", "1"),
             (f"{PY_OPERATOR}.attrgetter('a.b.d.e')({_OBJ})", "'deep'"),
             (f"{PY_OPERATOR}.attrgetter('x', 'a.b.c')({_OBJ})", "(2, 1)"),
             (f"{PY_OPERATOR}.attrgetter('a.b')({_OBJ}).c", "1"),
             (f"{PY_OPERATOR}.attrgetter('x')({_OBJ})", "2"),
             (f"{PY_OPERATOR}.attrgetter('a.b.zz')({_OBJ})", "raised AttributeError"),
             (f"{PY_OPERATOR}.attrgetter(1)", "raised TypeError"))),
         symbol="attrgetter"),
    Task("bug-bz2-exclusive", "fresh5/bugs/bz2.py", "bugfix",
         ("bz2.open(path, 'x') is supposed to fail with FileExistsError when the file is already there (that's the "
          "whole point of x), but it just truncates the existing file and writes over it. Same with BZ2File and "
          "'xb'. Writing to a new path with 'x' works.",
          "exclusive-create mode in bz2 overwrites files that exist instead of raising. pls fix"),
         Behaves(("BZ2File.__init__",), (
             (f"m.BZ2File({_TAKEN}, 'x')", "raised FileExistsError"),
             (f"m.open({_TAKEN}, 'xb')", "raised FileExistsError"),
             (f"m.open({_TAKEN}, 'xt')", "raised FileExistsError"),
             (f"(lambda p: (lambda f: (f.write(b'hi'), f.close(), m.decompress(open(p, 'rb').read()))[-1])"
              f"(m.BZ2File(p, 'x')))({TMP})", "b'hi'"),
             (f"(lambda p: (lambda f: (f.write(b'new'), f.close(), m.decompress(open(p, 'rb').read()))[-1])"
              f"(m.BZ2File(p, 'w')))({_TAKEN})", "b'new'"),
             (f"(lambda p: (lambda f: (f.write(b'one'), f.close(), m.BZ2File(p, 'a').close(), "
              f"m.decompress(open(p, 'rb').read()))[-1])(m.BZ2File(p, 'xb')))({TMP})", "b'one'"))),
         symbol="BZ2File.__init__"),
    Task("bug-modulefinder-globals", "fresh5/bugs/modulefinder.py", "bugfix",
         ("ModuleFinder.any_missing() now lists pkg.VERSION for a script doing from pkg import VERSION, even though "
          "VERSION = 1 is right there in pkg/__init__.py. Names defined in a package used to be recognised as not "
          "missing; real missing submodules should of course still be reported.",
          "modulefinder reports every 'from package import some_global' as a missing module (e.g. pkg.VERSION). "
          "It should know that it's a global of the package, not a submodule"),
         Behaves(("ModuleFinder.any_missing_maybe",), (
             (f"{_F}.any_missing()", "['nowhere', 'pkg.gone', 'star.thing']"),
             (f"{_F}.any_missing_maybe()", "(['nowhere', 'pkg.gone'], ['star.thing'])"),
             (f"sorted({_F}.badmodules)", "['nowhere', 'pkg.VERSION', 'pkg.gone', 'star.thing']"),
             (f"sorted(k for k in {_F}.modules if k != 'sys')", "['__main__', 'pkg', 'pkg.real', 'star']"))),
         symbol="ModuleFinder.any_missing_maybe"),
    Task("bug-stringprep-controls", "fresh5/bugs/stringprep.py", "bugfix",
         ("stringprep.in_table_c21_c22 returns False for ordinary control characters like '\\x07' or '\\x9f'. "
          "It's meant to be the union of table C.2.1 (ASCII controls) and C.2.2 (non-ASCII controls), and "
          "in_table_c21('\\x07') on its own does say True.",
          "the combined C.2 check in stringprep misses almost everything, only a few code points ever come back "
          "True. looks like it wants a char to be in both tables at once"),
         Behaves(("in_table_c21_c22",), (
             ("m.in_table_c21_c22('\\x07')", "True"),
             ("m.in_table_c21_c22('\\x9f')", "True"),
             ("m.in_table_c21_c22('\\u200d')", "True"),
             ("m.in_table_c21_c22('\\ufeff')", "True"),
             ("m.in_table_c21_c22('\\x7f')", "True"),
             ("m.in_table_c21_c22('a')", "False"),
             ("m.in_table_c21_c22('\\xa0')", "False"))),
         symbol="in_table_c21_c22"),
)
