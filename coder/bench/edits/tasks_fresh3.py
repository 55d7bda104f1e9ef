"""The third fresh set of ``coder bench --edits --set fresh3``: the unseen measure once the second fresh set is read.

The suite, the held-out set and the two fresh sets (:mod:`coder.bench.edits.tasks_fresh`,
:mod:`coder.bench.edits.tasks_fresh2`) have all been read by the people tuning coder's instruction reader, so
none of them measures any longer how coder does on wordings nobody tuned for. These tasks were written on
2026-12-04 by someone who had not read ``coder/edit/``, coder's CLI (other than ``coder/cli/bench_edits.py``, to
register the set) or any bench result, on five CPython 3.11.7 modules no other set uses (``py_compile``,
``code``, ``tracemalloc``, ``gettext``, ``gzip``; shipped under ``files/fresh3/``, ``files/SOURCES.md`` lists
them). Each task has two wordings, typed once the way two different people would type the request into an
assistant, and never tried on coder or a model. Nothing may be tuned on this set (no reading rule, prompt or
repair written to pass one of its tasks), or it becomes one more suite.

The bug tasks are in :mod:`coder.bench.edits.tasks_fresh3_bugs`; the rest reuse the suite's checks, and a
change of behaviour is judged by calling the code (:class:`~coder.bench.edits.behaviour.Behaves`).
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_fresh3_bugs import BUGS, mo_file

_TRACEMALLOC = source("fresh3/tracemalloc.py")
# _compare_grouped_stats and the blank lines after it
_COMPARE = _TRACEMALLOC[_TRACEMALLOC.index("def _compare_grouped_stats("):_TRACEMALLOC.index("@total_ordering")]
_FILENAME = '''    @property
    def filename(self):
        import warnings
        warnings.warn("use the name attribute", DeprecationWarning, 2)
        if self.mode == WRITE and self.name[-3:] != ".gz":
            return self.name + ".gz"
        return self.name

'''


def _one_of_two(head: str, indent: str, what: str) -> tuple[str, str]:
    """The ``if n == 1`` statement under ``head`` (at ``indent``) that ``what``s msgid1 or msgid2, as one line."""
    inner = indent + "    "
    old = f"{head}\n{indent}if n == 1:\n{inner}{what}msgid1\n{indent}else:\n{inner}{what}msgid2\n"
    return old, f"{head}\n{indent}{what}msgid1 if n == 1 else msgid2\n"


_ONE_LINERS = (_one_of_two("            return self._fallback.ngettext(msgid1, msgid2, n)", " " * 8, "return "),
               _one_of_two("            return self._fallback.npgettext(context, msgid1, msgid2, n)", " " * 8,
                           "return "),
               _one_of_two("                return self._fallback.ngettext(msgid1, msgid2, n)", " " * 12, "tmsg = "),
               _one_of_two("                return self._fallback.npgettext(context, msgid1, msgid2, n)", " " * 12,
                           "tmsg = "),
               _one_of_two("def dngettext(domain, msgid1, msgid2, n):\n    try:\n"
                           "        t = translation(domain, _localedirs.get(domain, None))\n    except OSError:",
                           " " * 8, "return "),
               _one_of_two("def dnpgettext(domain, context, msgid1, msgid2, n):\n    try:\n"
                           "        t = translation(domain, _localedirs.get(domain, None))\n    except OSError:",
                           " " * 8, "return "))

_OS = "__import__('os')"
_MO_PATH = f"{_OS}.path.join(d, 'de', 'LC_MESSAGES', 'app.mo')"
_EMPTY_MO = mo_file({"": "Content-Type: text/plain; charset=UTF-8\n"})


def _locale(expr: str) -> str:
    """EXPR with d bound to a locale folder loc/ (in the check's own temporary cwd) holding de/LC_MESSAGES/app.mo."""
    return (f"(lambda d: ({_OS}.makedirs({_OS}.path.join(d, 'de', 'LC_MESSAGES'), exist_ok=True), "
            f"open({_MO_PATH}, 'wb').write({_EMPTY_MO!r}), {expr})[-1])({_OS}.path.abspath('loc'))")


# the .pyc that compiling {!r} in place writes
_CACHED = "__import__('os').path.isfile(__import__('importlib.util').util.cache_from_source({!r}))"
# the files {!r} (in the check's own temporary cwd) holding x = 1, then EXPR
_FILES = "(lambda P: ([P(n).write_text('x = 1\\n') for n in {!r}], {})[-1])(__import__('pathlib').Path)"
_ARGV = "__import__('sys').argv.__setitem__(slice(None), {!r})"
# code.interact run on the lines {!r} (then end of input) in the namespace ns, with more arguments {}: the file
# name the console compiled them under
_INTERACT = ("(lambda ns, it: (m.interact('', lambda prompt: (lambda s: (_ for _ in ()).throw(EOFError()) "
             "if s is None else s)(next(it)), ns, ''{}), ns['where'])[1])({{}}, iter({!r} + [None]))")
_WHERE = ["where = __import__('sys')._getframe().f_code.co_filename"]
_CONSOLE = "(lambda c: {})(m.InteractiveConsole())"
# a snapshot with frames in a.py, b.py and c.py (raw traces: domain, size, frames most recent first, frame count)
_SNAP = ("m.Snapshot([(0, 10, (('a.py', 2), ('b.py', 1)), 2), (0, 30, (('a.py', 2), ('c.py', 9)), 2), "
         "(0, 5, (('b.py', 1),), 1)], 2)")
_STATS = "[(str(s.traceback), s.size, s.count) for s in " + _SNAP + ".statistics({!r}{})]"

PY_COMPILE: tuple[Task, ...] = (
    Task("py_compile-rename", "fresh3/py_compile.py", "rename",
         ("rename _get_default_invalidation_mode to _default_invalidation_mode, it's called in compile too",
          "I'd like the private helper that picks TIMESTAMP or CHECKED_HASH depending on whether "
          "SOURCE_DATE_EPOCH is set to be called _default_invalidation_mode instead. Update the place that uses "
          "it as well."),
         Renamed("_get_default_invalidation_mode", "_default_invalidation_mode")),
    Task("py_compile-hints", "fresh3/py_compile.py", "hints",
         ("Could you annotate the signature of compile() in py_compile.py? file, cfile and dfile are paths as "
          "str (cfile and dfile may be None), doraise is a bool, optimize an int, invalidation_mode a "
          "PycInvalidationMode or None, quiet an int. It returns the path of the .pyc it wrote, or None when "
          "compiling failed.",
          "add type hints to py_compile.compile pls. returns the pyc path or None"),
         Hints("compile"), symbol="compile"),
    Task("py_compile-docstring", "fresh3/py_compile.py", "docstring",
         ("PycInvalidationMode needs a docstring",
          "Please document the enum in py_compile that says how a .pyc gets checked for staleness: TIMESTAMP "
          "compares the source's mtime and size recorded in the header, CHECKED_HASH stores a hash of the source "
          "that is verified on import, and UNCHECKED_HASH stores the hash but Python doesn't verify it."),
         Docstring("PycInvalidationMode"), symbol="PycInvalidationMode"),
    Task("py_compile-param", "fresh3/py_compile.py", "param",
         ("make py_compile's main() take an optional argv list (None = use sys.argv like now) so i can call it "
          "from my own code",
          "The command-line entry point of py_compile always parses sys.argv. Can you let callers hand it the "
          "arguments themselves, as in main(['-q', 'a.py', 'b.py'])? Called with nothing it has to keep reading "
          "the real command line."),
         Behaves(("main",), (
             (_FILES.format(["a.py", "zz.py"], f"({_ARGV.format(['py_compile', 'zz.py'])}, m.main(['a.py']), "
                                               f"{_CACHED.format('a.py')}, {_CACHED.format('zz.py')})[1:]"),
              "(None, True, False)"),  # the list given, not the command line (zz.py)
             (_FILES.format(["b.py", "c.py"], f"(m.main(['-q', 'b.py', 'c.py']), {_CACHED.format('b.py')}, "
                                              f"{_CACHED.format('c.py')})"), "(None, True, True)"),
             (_FILES.format(["d.py"], f"({_ARGV.format(['py_compile', 'd.py'])}, m.main(), "
                                      f"{_CACHED.format('d.py')})[1:]"), "(None, True)"))),
         symbol="main"),
)

CODE: tuple[Task, ...] = (
    Task("code-rename", "fresh3/code.py", "rename",
         ("InteractiveConsole.resetbuffer -> reset_buffer, and fix the calls",
          "Can you rename the console's resetbuffer method to reset_buffer (PEP 8 style)? It gets called from "
          "__init__, interact and push, so those need to change with it."),
         Renamed("resetbuffer", "reset_buffer")),
    Task("code-method", "fresh3/code.py", "method",
         ("I'm driving code.InteractiveConsole from a script and keep writing the same loop over console.push. "
          "Could the console get a method pushlines that takes a list (or any iterable) of lines, feeds them to "
          "push one after another, and tells me whether it's still waiting for more input after the last one? "
          "With no lines at all it should just say False.",
          "add a pushlines(lines) method to InteractiveConsole that pushes each line in turn and returns what the "
          "last push returned (False if lines is empty)"),
         Behaves(("InteractiveConsole.pushlines",), (
             (_CONSOLE.format("(c.pushlines(['x = 1', 'y = x + 1']), c.locals['y'])"), "(False, 2)"),
             (_CONSOLE.format("(c.pushlines(['def f():', '    return 5']), c.push(''), c.locals['f']())"),
              "(True, False, 5)"),
             (_CONSOLE.format("c.pushlines([])"), "False"),
             (_CONSOLE.format("(c.pushlines(iter(['z = 3'])), c.locals['z'], c.buffer)"), "(False, 3, [])"),
             (_CONSOLE.format("(c.pushlines(('if 1:', '    w = 4')), c.buffer)"), "(True, ['if 1:', '    w = 4'])"))),
         symbol="InteractiveConsole"),
    Task("code-comment", "fresh3/code.py", "comment",
         ("comment the join line in push, say the whole buffer gets recompiled every time",
          "In InteractiveConsole.push, put a short comment above the line that builds source from self.buffer, "
          "explaining that all the lines typed so far are compiled together, which is how the console notices "
          "that a multi-line statement is complete."),
         Comment("InteractiveConsole.push", above=('source = "\\n".join(self.buffer)',)),
         symbol="InteractiveConsole.push"),
    Task("code-param", "fresh3/code.py", "param",
         ("code.interact() has no way to set the file name that shows up in tracebacks, it's always <console>. "
          "give it a filename param defaulting to '<console>' and hand it to the InteractiveConsole it makes",
          "I'd like the module-level interact function in code.py to accept a filename keyword, default "
          "\"<console>\", which is passed on to the console so tracebacks show my own name."),
         Behaves(("interact",), ((_INTERACT.format(", filename='<repl>'", _WHERE), "'<repl>'"),
                                 (_INTERACT.format("", _WHERE), "'<console>'"),
                                 (_INTERACT.format(", filename='x.py'", ["y = 2", *_WHERE]), "'x.py'"))),
         symbol="interact"),
)

TRACEMALLOC: tuple[Task, ...] = (
    Task("tracemalloc-delete", "fresh3/tracemalloc.py", "delete",
         ("There's a redundant line in tracemalloc's Filter constructor: BaseFilter.__init__ already stores "
          "inclusive, and Filter then sets self.inclusive again right after calling it. Please remove that "
          "duplicate assignment.",
          "Filter.__init__ assigns self.inclusive twice, super() already does it. drop the extra one"),
         SameAst((("        super().__init__(inclusive)\n        self.inclusive = inclusive\n",
                   "        super().__init__(inclusive)\n"),)),
         symbol="Filter.__init__"),
    Task("tracemalloc-docstring", "fresh3/tracemalloc.py", "docstring",
         ("docstring for Traceback.format pls",
          "The format method of the Traceback class in tracemalloc is undocumented. Add a docstring saying it "
          "returns a list of lines laid out like a Python traceback (a '  File \"x.py\", line N' line, then the "
          "source line when linecache has it), that limit keeps only that many frames (the most recent ones, "
          "or the oldest for a negative limit), and that most_recent_first reverses the order."),
         Docstring("Traceback.format"), symbol="Traceback.format"),
    Task("tracemalloc-move", "fresh3/tracemalloc.py", "move",
         ("move _compare_grouped_stats down to right above class Snapshot, nothing else uses it",
          "In tracemalloc.py the helper that diffs two dicts of grouped statistics sits between StatisticDiff and "
          "Frame. Since only Snapshot.compare_to uses it, I'd like it relocated to directly before the Snapshot "
          "class definition. Don't touch its code."),
         SameAst(((_COMPARE, ""), ("class Snapshot:", _COMPARE + "class Snapshot:")))),
    Task("tracemalloc-extract", "fresh3/tracemalloc.py", "extract",
         ("Snapshot._group_by has the same try/except KeyError block twice for adding a trace to stats. pull it "
          "out into a module level fn _add_to_stats(stats, traceback, size) and call it in both spots",
          "Snapshot._group_by in tracemalloc duplicates the code that adds one trace's size to the Statistic kept "
          "for a traceback, creating that Statistic the first time. Factor it into a module-level function "
          "_add_to_stats(stats, traceback, size) which updates the stats dict in place, and use it in both the "
          "cumulative and the non-cumulative branch."),
         Behaves(("Snapshot._group_by", "_add_to_stats"), (
             ("(lambda s: (m._add_to_stats(s, 'k', 10), m._add_to_stats(s, 'k', 5), m._add_to_stats(s, 'j', 1), "
              "sorted((k, v.size, v.count) for k, v in s.items()))[-1])({})", "[('j', 1, 1), ('k', 15, 2)]"),
             (_STATS.format("lineno", ""), "[('a.py:2', 40, 2), ('b.py:1', 5, 1)]"),
             (_STATS.format("filename", ""), "[('a.py:0', 40, 2), ('b.py:0', 5, 1)]"),
             (_STATS.format("traceback", ""), "[('c.py:9', 30, 1), ('b.py:1', 10, 1), ('b.py:1', 5, 1)]"),
             (_STATS.format("lineno", ", cumulative=True"),
              "[('a.py:2', 40, 2), ('c.py:9', 30, 1), ('b.py:1', 15, 2)]"),
             (_STATS.format("filename", ", cumulative=True"),
              "[('a.py:0', 40, 2), ('c.py:0', 30, 1), ('b.py:0', 15, 2)]"),
             (f"[s.size_diff for s in {_SNAP}.compare_to(m.Snapshot([], 1), 'lineno')]", "[40, 5]")),
             calls=(("Snapshot._group_by", "_add_to_stats"),))),
)

GETTEXT: tuple[Task, ...] = (
    Task("gettext-rename", "fresh3/gettext.py", "rename",
         ("The last parameter of gettext.find is named all, which hides the built-in all() inside the function. "
          "I'd like it called all_files instead. translation() calls find with all=True, so that call has to "
          "change along with it.",
          "rename the all param of find() to all_files pls"),
         Renamed("all", "all_files")),
    Task("gettext-comment", "fresh3/gettext.py", "comment",
         ("add a comment to the while loop in _as_int - it skips gettext's own frames so the DeprecationWarning "
          "points at the user's code",
          "In gettext's _as_int helper there's a loop that walks up the stack from sys._getframe, bumping "
          "stacklevel. Please explain it with a comment right above that loop: it climbs past every frame that "
          "belongs to the gettext module itself, so the warning gets reported at the caller's line."),
         Comment("_as_int", above=("while frame.f_back is not None and frame.f_globals.get('__name__') == __name__:",)),
         symbol="_as_int"),
    Task("gettext-transform", "fresh3/gettext.py", "transform",
         ("gettext.py has the same 4 line if n == 1 / else block picking singular or plural in like 6 places. "
          "collapse each one into a one-liner (x if n == 1 else y)",
          "Style cleanup for gettext: wherever the code chooses between msgid1 and msgid2 with an if n == 1 / else "
          "statement, write it as a single conditional expression instead, i.e. return msgid1 if n == 1 else "
          "msgid2, or the same assigned to tmsg in GNUTranslations. Behaviour must stay the same."),
         SameAst(_ONE_LINERS)),
    Task("gettext-fix", "fresh3/gettext.py", "fix",
         ("I keep calling gettext.translation(domain, localedir, languages='fr') and getting FileNotFoundError "
          "although locale/fr/LC_MESSAGES/domain.mo exists; it only works with languages=['fr']. Could find() "
          "accept a single language code given as a string, same as a one-element list?",
          "gettext.find('app', 'locale', 'de') treats 'de' like the list ['d', 'e'] and finds nothing. make a "
          "plain string work as one language"),
         Behaves(("find",), ((_locale(f"m.find('app', d, 'de') == {_MO_PATH}"), "True"),
                             (_locale(f"m.find('app', d, ['de']) == {_MO_PATH}"), "True"),
                             (_locale("m.find('app', d, 'fr')"), "None"),
                             (_locale(f"m.find('app', d, 'de', all=True) == [{_MO_PATH}]"), "True"),
                             (_locale(f"m.find('app', d, 'de_AT') == {_MO_PATH}"), "True"),
                             (_locale(f"m.find('app', d, ('fr', 'de')) == {_MO_PATH}"), "True"),
                             (_locale("type(m.translation('app', d, 'de')).__name__"), "'GNUTranslations'"))),
         symbol="find"),
)

GZIP: tuple[Task, ...] = (
    Task("gzip-rename", "fresh3/gzip.py", "rename",
         ("rename write32u to _write_u32 everywhere in gzip.py",
          "The little helper near the top of gzip.py that packs a 32-bit unsigned int little-endian onto a file "
          "should be private and clearer: name it _write_u32. It's used by the header writer and in close()."),
         Renamed("write32u", "_write_u32")),
    Task("gzip-delete", "fresh3/gzip.py", "delete",
         ("We're dropping the old filename attribute of GzipFile, the property that only warns 'use the name "
          "attribute' and returns the name with .gz tacked on. Delete it (just that property).",
          "remove the deprecated GzipFile.filename property, everyone uses .name now"),
         SameAst(((_FILENAME, ""),))),
    Task("gzip-hints", "fresh3/gzip.py", "hints",
         ("type-annotate gzip.compress (bytes in, bytes out)",
          "Please add annotations to gzip's compress function: data is the bytes to compress, compresslevel an "
          "int from 0 to 9, the keyword-only mtime an optional float timestamp, and it returns bytes."),
         Hints("compress"), symbol="compress"),
    Task("gzip-docstring", "fresh3/gzip.py", "docstring",
         ("GzipFile.write has no docstring. Document that it compresses and writes any bytes-like object "
          "(anything with the buffer protocol), returns the number of uncompressed bytes written, and raises "
          "OSError when the file was opened for reading.",
          "add a docstring to GzipFile.write"),
         Docstring("GzipFile.write"), symbol="GzipFile.write"),
)

FRESH3: tuple[Task, ...] = PY_COMPILE + CODE + TRACEMALLOC + GETTEXT + GZIP + BUGS
