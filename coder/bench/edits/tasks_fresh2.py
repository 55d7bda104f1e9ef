"""The second fresh set of ``coder bench --edits --set fresh2``: the unseen measure once the fresh set is read.

The suite, the held-out set and the fresh set (:mod:`coder.bench.edits.tasks_fresh`) have all been read by
the people tuning coder's instruction reader, so none of them measures any longer how coder does on
wordings nobody tuned for. These tasks were written on 2026-12-04 by someone who had not read
``coder/edit/``, coder's CLI (other than ``coder/cli/bench_edits.py``, to register the set) or any bench
result, on five CPython 3.11.7 modules no other set uses (``codeop``, ``linecache``, ``getpass``,
``fileinput``, ``mimetypes``; shipped under ``files/fresh2/``, ``files/SOURCES.md`` lists them). Each task has two
wordings, typed once the way two different people would type the request into an assistant, and never
tried on coder or a model. Nothing may be tuned on this set (no reading rule, prompt or repair written to
pass one of its tasks), or it becomes one more suite.

The bug tasks are in :mod:`coder.bench.edits.tasks_fresh2_bugs`; the rest reuse the suite's checks, and a
change of behaviour is judged by calling the code (:class:`~coder.bench.edits.behaviour.Behaves`).
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_fresh2_bugs import ANNOTATED, BUGS, ENV

_IS_SYNTAX_ERROR = """def _is_syntax_error(err1, err2):
    rep1 = repr(err1)
    rep2 = repr(err2)
    if "was never closed" in rep1 and "was never closed" in rep2:
        return False
    if rep1 == rep2:
        return True
    return False

"""
_LINECACHE = source("fresh2/linecache.py")
_LAZYCACHE = _LINECACHE[_LINECACHE.index("def lazycache("):]  # the last function, to the end
_MIMETYPES = source("fresh2/mimetypes.py")
_MAIN = _MIMETYPES[_MIMETYPES.index("\n\ndef _main():"):]  # _main and the __main__ guard, to the end
_DATA_URL = """            if semi >= 0:
                type = url[:semi]
            else:
                type = url[:comma]
            if '=' in type or '/' not in type:
                type = 'text/plain'
            return type, None"""

# a new folder (absolute, in the check's own temporary cwd) put first on sys.path, holding zz_probe.py; then EXPR
_PROBE = ("(lambda d: (__import__('sys').path.insert(0, d), open(__import__('os').path.join(d, 'zz_probe.py'), 'w')"
          ".write('a = 1\\nb = 2\\n'), {})[-1])"
          "(__import__('os').path.abspath(__import__('tempfile').mkdtemp(dir='.')))")
# the same with zz_late.py in a folder put last on sys.path
_LATE = _PROBE.replace("path.insert(0, d)", "path.append(d)").replace("zz_probe", "zz_late")
# a file t.txt (in the check's own temporary cwd) holding the bytes {!r}, read back whole through openhook {}
_HOOK = ("(lambda p: (p.write_bytes({!r}), (lambda f: (f.read(), f.close())[0])({}(str(p), 'r')))[1])"
         "(__import__('pathlib').Path('t.txt'))")


def _added(call: str, lookups: str) -> str:
    """``call`` (an add_type) on a new MimeTypes bound to d, then the tuple ``lookups`` of it."""
    return f"(lambda d: ({call}, ({lookups}))[1])(m.MimeTypes())"


CODEOP: tuple[Task, ...] = (
    Task("codeop-rename", "fresh2/codeop.py", "rename",
         ("rename _maybe_compile -> _try_compile, and the two places that call it",
          "In codeop, the helper called _maybe_compile should be named _try_compile. Please rename it and "
          "update its callers (compile_command and CommandCompiler.__call__) to match."),
         Renamed("_maybe_compile", "_try_compile")),
    Task("codeop-delete", "fresh2/codeop.py", "delete",
         ("_is_syntax_error isnt used anywhere anymore, delete it",
          "There's a dead function in codeop that compares the reprs of two syntax errors; nothing calls it. "
          "Remove it."),
         SameAst(((_IS_SYNTAX_ERROR, ""),))),
    Task("codeop-hints-class", "fresh2/codeop.py", "hints",
         ("type hints for every method of the Compile class pls",
          "Could you annotate codeop.Compile fully? __init__ takes nothing, __call__ gets source, filename and "
          "symbol as strings plus keyword flags such as incomplete_input, and returns a code object."),
         Hints("Compile"), symbol="Compile"),
    Task("codeop-comment", "fresh2/codeop.py", "comment",
         ("in Compile.__call__ add a comment above the for loop over _features saying its how __future__ imports "
          "get remembered",
          "Explain with a comment placed right before the loop that walks _features in Compile's __call__: any "
          "future feature the code just compiled turned on is added to self.flags, so later compiles keep it."),
         Comment("Compile.__call__", above=("for feature in _features:",)), symbol="Compile.__call__"),
    Task("codeop-method", "fresh2/codeop.py", "method",
         ("add a reset() method to CommandCompiler that makes it forget the __future__ imports it has seen",
          "My REPL keeps one codeop.CommandCompiler per session. When the user starts over I'd like to clear the "
          "future statements it remembered without building a new object, so please give it a reset() method "
          "that puts it back the way it was when created."),
         Behaves(("CommandCompiler.reset",), (
             (f"(lambda c: (c('from __future__ import annotations'), c.reset(), {ANNOTATED})[-1])"
              "(m.CommandCompiler())", "{'x': <class 'int'>}"),
             (f"(lambda c: (c('from __future__ import annotations'), {ANNOTATED})[-1])(m.CommandCompiler())",
              "{'x': 'int'}"),
             ("(lambda c: (c('from __future__ import barry_as_FLUFL'), c.reset(), c('1 != 2') is not None)[-1])"
              "(m.CommandCompiler())", "True"),
             ("(lambda c: (c('from __future__ import annotations'), c.reset(), c('if 1:'))[-1])(m.CommandCompiler())",
              "None"),
             ("m.CommandCompiler().reset()", "None"))),
         symbol="CommandCompiler"),
)

LINECACHE: tuple[Task, ...] = (
    Task("linecache-move", "fresh2/linecache.py", "move",
         ("move lazycache above updatecache in linecache.py (updatecache calls it)",
          "Reorder linecache so that lazycache is defined before updatecache, between checkcache and updatecache. "
          "Nothing else should change."),
         SameAst((("\n\n" + _LAZYCACHE, "\n"), ("def updatecache(", _LAZYCACHE + "\n\ndef updatecache(")))),
    Task("linecache-extract", "fresh2/linecache.py", "extract",
         ("pull the loop in updatecache that searches sys.path out into a function _find_on_path(basename) that "
          "returns (fullname, stat) for the first match or None if there isn't one, and call it from updatecache",
          "Refactor linecache.updatecache: move the part that looks through the module search path into a helper "
          "named _find_on_path. It takes the base name and gives back a tuple of the full path and its os.stat "
          "result for the first sys.path entry that has the file, or None when no entry does."),
         Behaves(("updatecache", "_find_on_path"), (
             (_PROBE.format("(lambda r: (__import__('os').path.basename(r[0]), r[1].st_size))"
                            "(m._find_on_path('zz_probe.py'))"), "('zz_probe.py', 12)"),
             (_PROBE.format("m._find_on_path('zz_probe.py')[0] == __import__('os').path.join(d, 'zz_probe.py')"),
              "True"),
             ("m._find_on_path('zz_no_such_module.py')", "None"),
             (_PROBE.format("(m.getline('zz_probe.py', 2), m.cache['zz_probe.py'][0], "
                            "m.cache['zz_probe.py'][3] == __import__('os').path.join(d, 'zz_probe.py'))"),
              "('b = 2\\n', 12, True)"),
             (_LATE.format("(m._find_on_path('zz_late.py')[0] == __import__('os').path.join(d, 'zz_late.py'), "
                           "m.getline('zz_late.py', 1))"), "(True, 'a = 1\\n')"),
             ("m.getlines('zz_no_such_module.py')", "[]"),
             ("m.getlines('/no/such/dir/zz.py')", "[]")),
             calls=(("updatecache", "_find_on_path"),))),
    Task("linecache-hints", "fresh2/linecache.py", "hints",
         ("add type hints to linecache.getline",
          "getline(filename, lineno, module_globals=None) should be annotated: the filename is a str, lineno an "
          "int, module_globals an optional dict, and it returns the line as a str."),
         Hints("getline"), symbol="getline"),
)

GETPASS: tuple[Task, ...] = (
    Task("getpass-param", "fresh2/getpass.py", "param",
         ("getuser should take the environment variables to look at as an argument, env_vars, defaulting to "
          "LOGNAME, USER, LNAME, USERNAME like now",
          "I want to tell getpass.getuser() which environment variables to check, e.g. "
          "getuser(env_vars=['GIT_AUTHOR_NAME', 'USER']). Add that parameter; called without it, the lookup must "
          "stay exactly as it is."),
         Behaves(("getuser",), ((ENV.format({"ZZ_NAME": "zed", "LOGNAME": "lo"}, "m.getuser(env_vars=['ZZ_NAME'])"),
                                 "'zed'"),
                                (ENV.format({"ZZ_NAME": "zed"}, "m.getuser(env_vars=('USER', 'ZZ_NAME'))"), "'zed'"),
                                (ENV.format({"ZZ_NAME": "zed", "LOGNAME": "lo"},
                                            "m.getuser(env_vars=['LOGNAME', 'ZZ_NAME'])"), "'lo'"),
                                (ENV.format({"USER": "us", "LOGNAME": "lo"}, "m.getuser()"), "'lo'"),
                                (ENV.format({"USERNAME": "un"}, "m.getuser()"), "'un'"))),
         symbol="getuser"),
    Task("getpass-docstring", "fresh2/getpass.py", "docstring",
         ("fallback_getpass has no docstring, add one",
          "Document getpass.fallback_getpass: it's what getpass falls back to when echo can't be turned off. It "
          "issues a GetPassWarning, prints a warning line on the stream and then reads the password with echo on."),
         Docstring("fallback_getpass"), symbol="fallback_getpass"),
    Task("getpass-rename", "fresh2/getpass.py", "rename",
         ("rename _raw_input to _read_line and update its callers",
          "The private helper in getpass that prompts and reads one line is called _raw_input, which sounds like "
          "the Python 2 builtin. Please call it _read_line everywhere it's used."),
         Renamed("_raw_input", "_read_line")),
)

FILEINPUT: tuple[Task, ...] = (
    Task("fileinput-rename-global", "fresh2/fileinput.py", "rename",
         ("rename the module global _state in fileinput to _active. it's used in all the module-level functions, "
          "get every one",
          "_state -> _active everywhere in fileinput.py pls (global statements too)"),
         Renamed("_state", "_active")),
    Task("fileinput-docstring", "fresh2/fileinput.py", "docstring",
         ("hook_compressed needs a docstring",
          "Document fileinput.hook_compressed: it is an openhook for FileInput that opens .gz and .bz2 files "
          "through gzip and bz2 (wrapped for text mode) and anything else with plain open()."),
         Docstring("hook_compressed"), symbol="hook_compressed"),
    Task("fileinput-param", "fresh2/fileinput.py", "param",
         ("hook_encoded should also take newline=None and pass it on to open()",
          "I need to read files through fileinput with their \\r\\n line endings intact. Extend "
          "hook_encoded(encoding, errors=None) with a third parameter, newline, defaulting to None, which the "
          "openhook it returns hands to open()."),
         Behaves(("hook_encoded",), ((_HOOK.format(b"a\r\nb\n", "m.hook_encoded('utf-8', newline='')"),
                                      "'a\\r\\nb\\n'"),
                                     (_HOOK.format(b"a\r\nb\n", "m.hook_encoded('utf-8')"), "'a\\nb\\n'"),
                                     (_HOOK.format(b"a\rb", "m.hook_encoded('utf-8', newline='\\r')"), "'a\\rb'"),
                                     (_HOOK.format(b"\xe9\r\n", "m.hook_encoded('ascii', 'replace', newline='')"),
                                      "'\ufffd\\r\\n'"),
                                     (_HOOK.format(b"\xe9\n", "m.hook_encoded('latin-1')"), "'é\\n'"))),
         symbol="hook_encoded"),
    Task("fileinput-comment", "fresh2/fileinput.py", "comment",
         ("comment the _write_mode line in FileInput.__init__ (r -> w, rb -> wb, for the inplace output file)",
          "In the FileInput constructor, add a comment above the line that derives self._write_mode from mode, "
          "saying it's the mode the in-place output file is opened with ('w' or 'wb')."),
         Comment("FileInput.__init__", above=("self._write_mode = mode.replace('r', 'w')",)),
         symbol="FileInput.__init__"),
)

MIMETYPES: tuple[Task, ...] = (
    Task("mimetypes-fix", "fresh2/mimetypes.py", "fix",
         ("MimeTypes.add_type('text/x-foo', 'foo') registers 'foo' without the dot, so guess_type never finds "
          "it. make add_type put the leading dot on when it's missing",
          "Both mimetypes.add_type and the MimeTypes method of the same name should accept an extension written "
          "without the dot: 'md' means '.md'. Extensions that already start with a dot stay as they are."),
         Behaves(("MimeTypes.add_type", "add_type"), (
             (_added("d.add_type('text/x-qq', 'qqz')", "d.guess_type('a.qqz'), d.guess_all_extensions('text/x-qq')"),
              "(('text/x-qq', None), ['.qqz'])"),
             (_added("d.add_type('text/x-qq', '.qqy')", "d.guess_type('a.qqy'), d.guess_all_extensions('text/x-qq')"),
              "(('text/x-qq', None), ['.qqy'])"),
             (_added("d.add_type('text/x-qq', 'qqx', False)",
                     "d.guess_type('a.qqx'), d.guess_type('a.qqx', strict=False)"),
              "((None, None), ('text/x-qq', None))"),
             ("(m.add_type('text/x-qw', 'qqw'), m.guess_type('b.qqw'), m.guess_extension('text/x-qw'))[1:]",
              "(('text/x-qw', None), '.qqw')"))),
         symbol="MimeTypes.add_type"),
    Task("mimetypes-delete", "fresh2/mimetypes.py", "delete",
         ("remove the command line interface from mimetypes (_main and the if __name__ == '__main__' part)",
          "we never run mimetypes.py as a script, so drop _main() and the main guard at the bottom of the file"),
         SameAst(((_MAIN, "\n"),))),
    Task("mimetypes-docstring", "fresh2/mimetypes.py", "docstring",
         ("write a docstring for mimetypes.init()",
          "init has no docstring. Add one explaining that it (re)builds the module's database from knownfiles "
          "plus any extra files passed in, and rebinds types_map, suffix_map, encodings_map and common_types."),
         Docstring("init"), symbol="init"),
    Task("mimetypes-rename-local", "fresh2/mimetypes.py", "rename",
         ("in MimeTypes.guess_type rename the local var type to mime_type, it shadows the builtin. only there",
          "The data: URL branch of MimeTypes.guess_type assigns to a variable named type; call it mime_type "
          "instead. Leave the type parameters of the other methods alone."),
         SameAst(((_DATA_URL, _DATA_URL.replace("type", "mime_type")),)), symbol="MimeTypes.guess_type"),
    Task("mimetypes-bools", "fresh2/mimetypes.py", "transform",
         ("mimetypes uses 1 and 0 as booleans in a few places (while 1, strict = 1, ...). use True/False instead",
          "Small clean-up for mimetypes.py: wherever an int stands in for a boolean, write True or False instead. "
          "That's the flags in _main and the endless loop in readfp. No change in behaviour."),
         SameAst((("        while 1:\n", "        while True:\n"),
                  ("    strict = 1\n    extension = 0\n", "    strict = True\n    extension = False\n"),
                  ("            strict = 0\n", "            strict = False\n"),
                  ("            extension = 1\n", "            extension = True\n")))),
)

FRESH2: tuple[Task, ...] = CODEOP + LINECACHE + GETPASS + FILEINPUT + MIMETYPES + BUGS
