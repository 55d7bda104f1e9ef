"""The fifth fresh set of ``coder bench --edits --set fresh5``: the unseen measure once the fourth fresh set is read.

The suite, the held-out set and the four fresh sets (:mod:`coder.bench.edits.tasks_fresh` to
:mod:`coder.bench.edits.tasks_fresh4`) have all been read by the people tuning coder's instruction reader, so
none of them measures any longer how coder does on wordings nobody tuned for. These tasks were written on
2026-12-05 by someone who had not read ``coder/edit/``, coder's CLI (other than ``coder/cli/bench_edits.py``, to
register the set) or any bench result, on five CPython 3.11.7 modules no other set uses (``heapq``,
``operator``, ``bz2``, ``modulefinder``, ``stringprep``; shipped under ``files/fresh5/``, ``files/SOURCES.md``
lists them). Each task has two wordings, typed once the way two different people would type the request into an
assistant, and never tried on coder or a model. Nothing may be tuned on this set (no reading rule, prompt or
repair written to pass one of its tasks), or it becomes one more suite.

The bug tasks are in :mod:`coder.bench.edits.tasks_fresh5_bugs`; the rest reuse the suite's checks, and a
change of behaviour is judged by calling the code (:class:`~coder.bench.edits.behaviour.Behaves`). operator.py
hands its names to the C module ``_operator`` at its end, so its cases call the file's own code with that module
blocked (:data:`~coder.bench.edits.tasks_fresh5_bugs.PY_OPERATOR`).
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks_fresh5_bugs import BUGS, PY_OPERATOR, TMP, finder

# heapq's three max-heap helpers, between heapify and the comment above _siftdown
MAX_HELPERS = ('def _heappop_max(heap):\n    """Maxheap version of a heappop."""\n'
               "    lastelt = heap.pop()    # raises appropriate IndexError if heap is empty\n"
               "    if heap:\n        returnitem = heap[0]\n        heap[0] = lastelt\n"
               "        _siftup_max(heap, 0)\n        return returnitem\n    return lastelt\n\n"
               'def _heapreplace_max(heap, item):\n    """Maxheap version of a heappop followed by a heappush."""\n'
               "    returnitem = heap[0]    # raises appropriate IndexError if heap is empty\n"
               "    heap[0] = item\n    _siftup_max(heap, 0)\n    return returnitem\n\n"
               'def _heapify_max(x):\n    """Transform list into a maxheap, in-place, in O(len(x)) time."""\n'
               "    n = len(x)\n    for i in reversed(range(n//2)):\n        _siftup_max(x, i)\n\n")
MERGE_DEF = "def merge(*iterables, key=None, reverse=False):"

HEAPQ: tuple[Task, ...] = (
    Task("heapq-rename", "fresh5/heapq.py", "rename",
         ("_siftdown in heapq moves an item up towards the root, which confuses everyone who reads it. Call it "
          "_bubble_up instead, in the def and wherever it is called. The max-heap variant _siftdown_max keeps its "
          "name.",
          "heapq.py: _siftdown -> _bubble_up (just that one, not the _max version)"),
         Renamed("_siftdown", "_bubble_up")),
    Task("heapq-move", "fresh5/heapq.py", "move",
         ("move _heappop_max, _heapreplace_max and _heapify_max further down, right before merge",
          "In heapq.py the three private max-heap helpers sit between heapify and the sift functions, so they call "
          "_siftup_max before it is defined further down. Please relocate all three, unchanged and in the same "
          "order, so that they come after _siftup_max and immediately precede the merge function."),
         SameAst(((MAX_HELPERS, ""), (MERGE_DEF, MAX_HELPERS + MERGE_DEF)))),
    Task("heapq-docstring", "fresh5/heapq.py", "docstring",
         ("Give _siftup in heapq a docstring. Say that it expects the children of pos to be heaps already, walks "
          "the smaller child up level by level until it reaches a leaf, and then calls _siftdown to move the item "
          "that started at pos back up to where it belongs. Mention that it does this instead of stopping early "
          "because it needs fewer comparisons on average.",
          "heapq _siftup: no docstring, add one (the big comment above it explains what it does)"),
         Docstring("_siftup"), symbol="_siftup"),
    Task("heapq-comment", "fresh5/heapq.py", "comment",
         ("why is it order * direction in merge? put a comment above the first h_append saying so",
          "Could you document, as a comment just before the line in merge that appends [next(), order * "
          "direction, next] to the heap, what the middle entry is for? It breaks ties between equal values so "
          "that earlier inputs win and the merge stays stable, and it is negated when reverse=True because the "
          "max-heap then picks the larger one."),
         Comment("merge", above=("h_append([next(), order * direction, next])",)), symbol="merge"),
)

_LIST_ITER = "iter([7, 8, 7, 8])"
# a value that is not equal to itself: found by identity only
_NAN = "float('nan')"

OPERATOR: tuple[Task, ...] = (
    Task("operator-docstring", "fresh5/operator.py", "docstring",
         ("methodcaller.__reduce__ -- docstring please",
          "In the pure-Python operator module, add a docstring to the pickling hook of the methodcaller class. "
          "It should say that without keyword arguments the class is rebuilt from the method name and the "
          "positional arguments, and that otherwise a functools.partial carrying the keywords is returned, since "
          "__reduce__ cannot pass keyword arguments to a constructor."),
         Docstring("methodcaller.__reduce__"), symbol="methodcaller.__reduce__"),
    Task("operator-hints", "fresh5/operator.py", "hints",
         ("I'd like length_hint in operator.py to have type hints: the object can be anything, the fallback value "
          "is an int defaulting to 0, and it always returns an int.",
          "type-annotate length_hint"),
         Hints("length_hint"), symbol="length_hint"),
    Task("operator-extract", "fresh5/operator.py", "extract",
         ("countOf and indexOf both test 'is b or == b' inline. make a helper _matches(item, value) for that test "
          "and use it in both",
          "Two of the sequence functions in operator.py, the one that counts occurrences and the one that finds "
          "the first position, each spell out the same comparison: identity first, then equality (so a NaN "
          "object still finds itself). Factor that comparison into a private module function "
          "_matches(item, value) returning a bool, and have both functions call it."),
         Behaves(("countOf", "indexOf", "_matches"), (
             (f"{PY_OPERATOR}.countOf([1, 1.0, True, 2], 1)", "3"),
             (f"(lambda n: {PY_OPERATOR}.countOf([n, n, 1.5], n))({_NAN})", "2"),
             (f"{PY_OPERATOR}.indexOf('abc', 'c')", "2"),
             (f"(lambda n: {PY_OPERATOR}.indexOf([0, n], n))({_NAN})", "1"),
             (f"{PY_OPERATOR}.indexOf([1, 2], 5)", "raised ValueError"),
             (f"{PY_OPERATOR}._matches(2, 2.0)", "True"),
             (f"(lambda n: {PY_OPERATOR}._matches(n, n))({_NAN})", "True"),
             (f"{PY_OPERATOR}._matches({_NAN}, {_NAN})", "False"),
             (f"{PY_OPERATOR}._matches('a', 'b')", "False")),
             calls=(("countOf", "_matches"), ("indexOf", "_matches")))),
    Task("operator-param", "fresh5/operator.py", "param",
         ("operator.indexOf should accept a start argument the way list.index does: indexOf(a, b, start=0) skips "
          "the first start items but still reports the position counted from the beginning. Keep it working on "
          "plain iterators and generators too, so no slicing of a.",
          "add optional start (default 0) to indexOf, e.g. indexOf([1, 2, 1], 1, 1) == 2"),
         Behaves(("indexOf",), (
             (f"{PY_OPERATOR}.indexOf([1, 2, 1, 2], 1, 1)", "2"),
             (f"{PY_OPERATOR}.indexOf([1, 2, 1, 2], 2)", "1"),
             (f"{PY_OPERATOR}.indexOf([1, 2, 1, 2], 1, start=0)", "0"),
             (f"{PY_OPERATOR}.indexOf({_LIST_ITER}, 7, start=1)", "2"),
             (f"{PY_OPERATOR}.indexOf((x for x in 'abcabc'), 'b', 2)", "4"),
             (f"{PY_OPERATOR}.indexOf([1, 2, 1], 2, 2)", "raised ValueError"),
             (f"{PY_OPERATOR}.indexOf([3], 3, 0)", "0"))),
         symbol="indexOf"),
)

_BYTES_IO = "__import__('io').BytesIO"

BZ2: tuple[Task, ...] = (
    Task("bz2-rename", "fresh5/bz2.py", "rename",
         ("in bz2 rename the alias _builtin_open to _open_file",
          "The bz2 module imports the built-in open under the private name _builtin_open so that its own open() "
          "does not shadow it. I find that name clumsy; make it _open_file, both in the import line and where "
          "BZ2File's constructor opens a path."),
         Renamed("_builtin_open", "_open_file")),
    Task("bz2-method", "fresh5/bz2.py", "method",
         ("Regular file objects have a .name, BZ2File doesn't. Can you give it a read-only name property that just "
          "hands back the name of the underlying file? If it was opened from a path that's the path I passed, and "
          "if it wraps an open file object it's that object's name.",
          "BZ2File.name property pls (return the wrapped file's .name)"),
         Behaves(("BZ2File.__init__", "BZ2File.name"), (
             (f"(lambda p: (lambda f: (f.name, f.close())[0])(m.BZ2File(p, 'w')) == p)({TMP})", "True"),
             (f"(lambda p: m.BZ2File(open(p, 'wb'), 'w').name == p)({TMP})", "True"),
             (f"(lambda p: (lambda f: (f.write(b'x'), f.close(), m.BZ2File(p).name == p)[-1])(m.BZ2File(p, 'w')))"
              f"({TMP})", "True"),
             ("isinstance(m.BZ2File.name, property)", "True"),
             (f"(lambda b: (lambda f: (f.write(b'q'), f.close(), m.decompress(b.getvalue()))[-1])"
              f"(m.BZ2File(b, 'w')))({_BYTES_IO}())", "b'q'"))),
         symbol="BZ2File"),
    Task("bz2-extract", "fresh5/bz2.py", "extract",
         ("BZ2File.__init__ has a long if/elif chain turning the mode string into the normalised mode and one of "
          "the _MODE_* codes. I want that chain in a module-level function _parse_mode(mode) which returns the "
          "pair (mode, mode_code), e.g. 'w' gives ('wb', _MODE_WRITE) and '' gives ('rb', _MODE_READ), and raises "
          "the same ValueError for a mode it does not know. The constructor should call it and still create the "
          "compressor itself when writing.",
          "split the mode parsing of BZ2File's constructor out into _parse_mode(mode) -> (mode, mode_code)"),
         Behaves(("BZ2File.__init__", "_parse_mode"), (
             ("m._parse_mode('')", "('rb', 1)"),
             ("m._parse_mode('r')", "('rb', 1)"),
             ("m._parse_mode('w')", "('wb', 3)"),
             ("m._parse_mode('xb')", "('xb', 3)"),
             ("m._parse_mode('a')", "('ab', 3)"),
             ("m._parse_mode('rw')", "raised ValueError"),
             (f"(lambda b: (lambda f: (f.write(b'abc'), f.close(), m.decompress(b.getvalue()))[-1])"
              f"(m.BZ2File(b, 'a', compresslevel=1)))({_BYTES_IO}())", "b'abc'"),
             (f"m.BZ2File({_BYTES_IO}(m.compress(b'z'))).read()", "b'z'"),
             (f"m.BZ2File({_BYTES_IO}(), 'wt')", "raised ValueError"),
             (f"m.BZ2File({_BYTES_IO}(), 'w', compresslevel=0)", "raised ValueError")),
             calls=(("BZ2File.__init__", "_parse_mode"),))),
    Task("bz2-comment", "fresh5/bz2.py", "comment",
         ("Add a comment in bz2.decompress on the line that sets data to decomp.unused_data, explaining that "
          "bzip2 files may hold several streams back to back and that the loop starts a new decompressor on "
          "whatever follows the end of the current one.",
          "comment the unused_data line in decompress() pls - it's what makes concatenated streams work"),
         Comment("decompress", above=("data = decomp.unused_data",)), symbol="decompress"),
)

_NOT_MISSING = {"main.py": "import nosuchmod\nimport helper\n", "helper.py": "import nosuchmod\nimport other\n",
                "other.py": ""}

MODULEFINDER: tuple[Task, ...] = (
    Task("modulefinder-delete", "fresh5/modulefinder.py", "delete",
         ("scan_code in modulefinder has code = co.co_code that's never used, delete it",
          "There is a dead assignment at the top of ModuleFinder.scan_code: it copies the code object's raw "
          "bytecode into a local variable that nothing reads since the scan moved to dis. Remove that one "
          "statement and leave the rest of the method as it is."),
         SameAst((("        code = co.co_code\n", ""),)), symbol="ModuleFinder.scan_code"),
    Task("modulefinder-docstring", "fresh5/modulefinder.py", "docstring",
         ("Write a class docstring for Module in modulefinder.py. It is the record ModuleFinder keeps for every "
          "module it finds: the name, the file and, for a package, the path, plus the compiled code, the global "
          "names the module assigns and the star imports that could not be resolved.",
          "Module class needs a docstring"),
         Docstring("Module"), symbol="Module"),
    Task("modulefinder-method", "fresh5/modulefinder.py", "method",
         ("give ModuleFinder an importers_of(name) method: the sorted list of modules that tried to import the "
          "missing module name (what report() prints after 'imported from'), [] if that name never failed",
          "When a module can't be found, ModuleFinder remembers who asked for it, but the only way to see that is "
          "the printed report. Add a method importers_of(name) that returns those importers' names as a sorted "
          "list, exactly as report() lists them (the script run by run_script appears as __main__, a top-level "
          "request as '-'), and an empty list when name is not among the bad modules."),
         Behaves(("ModuleFinder.importers_of",), (
             ("(lambda f: (f._add_badmodule('x', m.Module('b')), f._add_badmodule('x', m.Module('a')), "
              "f.importers_of('x'))[-1])(m.ModuleFinder())", "['a', 'b']"),
             ("(lambda f: (f._add_badmodule('y', None), f._add_badmodule('y', m.Module('c')), "
              "f.importers_of('y'))[-1])(m.ModuleFinder())", "['-', 'c']"),
             ("m.ModuleFinder().importers_of('never')", "[]"),
             (f"{finder(_NOT_MISSING)}.importers_of('nosuchmod')", "['__main__', 'helper']"),
             (f"{finder(_NOT_MISSING)}.importers_of('other')", "[]"),
             (f"{finder(_NOT_MISSING)}.any_missing()", "['nosuchmod']"))),
         symbol="ModuleFinder"),
    Task("modulefinder-fix", "fresh5/modulefinder.py", "fix",
         ("If AddPackagePath is called twice with the same package and path (two plugins registering the same "
          "folder, in my case), the path ends up twice in packagePathMap and the package gets scanned twice. "
          "Registering a path that is already there should do nothing; different paths still accumulate in the "
          "order they were added.",
          "AddPackagePath shouldnt add duplicates"),
         Behaves(("AddPackagePath",), (
             ("(m.AddPackagePath('p1', '/a'), m.AddPackagePath('p1', '/a'), m.packagePathMap['p1'])[-1]", "['/a']"),
             ("(m.AddPackagePath('p2', '/b'), m.AddPackagePath('p2', '/a'), m.AddPackagePath('p2', '/b'), "
              "m.packagePathMap['p2'])[-1]", "['/b', '/a']"),
             ("(m.AddPackagePath('p3', '/a'), m.AddPackagePath('p4', '/a'), m.packagePathMap['p3'], "
              "m.packagePathMap['p4'])[2:]", "(['/a'], ['/a'])"),
             ("m.AddPackagePath('p5', '/c')", "None"),
             ("(m.AddPackagePath('p6', '/c'), type(m.packagePathMap['p6']))[-1]", "<class 'list'>"))),
         symbol="AddPackagePath"),
)

_SETS = ("b1_set", "c22_specials", "c6_set", "c7_set", "c8_set", "c9_set")
FROZEN = tuple((f"{name} = set(", f"{name} = frozenset(") for name in _SETS)

STRINGPREP: tuple[Task, ...] = (
    Task("stringprep-rename", "fresh5/stringprep.py", "rename",
         ("c22_specials is the odd one out among the lookup tables in stringprep, all the others are called "
          "something_set. Rename it to c22_set, updating both functions that read it.",
          "stringprep: c22_specials => c22_set"),
         Renamed("c22_specials", "c22_set")),
    Task("stringprep-transform", "fresh5/stringprep.py", "transform",
         ("make the set tables in stringprep frozensets so nobody can mutate them by accident",
          "Nothing in stringprep.py ever changes its module-level code point tables (the one for B.1, the C.2.2 "
          "specials and the ones for C.6 to C.9), yet they are built as mutable sets. Build each of them as a "
          "frozenset instead, from the same contents. The B.3 exceptions dict stays a dict."),
         SameAst(FROZEN)),
    Task("stringprep-hints", "fresh5/stringprep.py", "hints",
         ("Add annotations to in_table_c22: it takes a one-character string and returns a bool.",
          "hints for stringprep in_table_c22 please"),
         Hints("in_table_c22"), symbol="in_table_c22"),
    Task("stringprep-function", "fresh5/stringprep.py", "function",
         ("RFC 3491 (nameprep) prohibits the code points of tables C.1.2, C.2.2, C.3, C.4, C.5, C.6, C.7, C.8 "
          "and C.9. Add a function is_prohibited(code) to stringprep that tells whether a character is in any of "
          "those, reusing the existing in_table_* checks. Note that an ASCII space (C.1.1) and ASCII control "
          "characters (C.2.1) are not on that list.",
          "new stringprep func is_prohibited(ch) -> True if ch is in c12, c22, c3, c4, c5, c6, c7, c8 or c9"),
         Behaves(("is_prohibited",), (
             ("m.is_prohibited('\\xa0')", "True"),
             ("m.is_prohibited(' ')", "False"),
             ("m.is_prohibited('\\x07')", "False"),
             ("m.is_prohibited('\\x85')", "True"),
             ("m.is_prohibited('\\ue000')", "True"),
             ("m.is_prohibited('\\ufdd0')", "True"),
             ("m.is_prohibited('\\ud800')", "True"),
             ("m.is_prohibited('\\ufff9')", "True"),
             ("m.is_prohibited('\\u2ff0')", "True"),
             ("m.is_prohibited('\\u200e')", "True"),
             ("m.is_prohibited('\\U000e0001')", "True"),
             ("m.is_prohibited('a')", "False"),
             ("m.is_prohibited('\\u05be')", "False")))),
)

FRESH5: tuple[Task, ...] = HEAPQ + OPERATOR + BZ2 + MODULEFINDER + STRINGPREP + BUGS
