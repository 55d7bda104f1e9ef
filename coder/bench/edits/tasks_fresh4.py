"""The fourth fresh set of ``coder bench --edits --set fresh4``: the unseen measure once the third fresh set is read.

The suite, the held-out set and the three fresh sets (:mod:`coder.bench.edits.tasks_fresh`,
:mod:`coder.bench.edits.tasks_fresh2`, :mod:`coder.bench.edits.tasks_fresh3`) have all been read by the people
tuning coder's instruction reader, so none of them measures any longer how coder does on wordings nobody tuned
for. These tasks were written on 2026-12-04 by someone who had not read ``coder/edit/``, coder's CLI (other than
``coder/cli/bench_edits.py``, to register the set) or any bench result, on five CPython 3.11.7 modules no other
set uses (``symtable``, ``types``, ``_strptime``, ``_threading_local``, ``lzma``; shipped under
``files/fresh4/``, ``files/SOURCES.md`` lists them). Each task has two wordings, typed once the way two different
people would type the request into an assistant, and never tried on coder or a model. Nothing may be tuned on
this set (no reading rule, prompt or repair written to pass one of its tasks), or it becomes one more suite.

The bug tasks are in :mod:`coder.bench.edits.tasks_fresh4_bugs`; the rest reuse the suite's checks, and a
change of behaviour is judged by calling the code (:class:`~coder.bench.edits.behaviour.Behaves`).
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks_fresh4_bugs import BUGS, ST

# the cache state of _strptime, between class TimeRE and the julian-day helpers
CACHE = ("_cache_lock = _thread_allocate_lock()\n"
         "# DO NOT modify _TimeRE_cache or _regex_cache without acquiring the cache lock\n# first!\n"
         "_TimeRE_cache = TimeRE()\n"
         "_CACHE_MAX_SIZE = 5 # Max number of regexes stored in _regex_cache\n"
         "_regex_cache = {}\n")
_STRPTIME_DEF = "def _strptime(data_string, format="
_NESTED = "def f():\n    x = 1\n    def g():\n        return x\n    return g\n"
_DT = "__import__('datetime').datetime"
_BYTES_IO = "__import__('io').BytesIO"
_THREAD_DICT = "                dct = local.dicts.pop(idt)\n"
# the message of the AttributeError raised by setting ({}) on the local L (made by {})
_REFUSED = ("(lambda ns: (exec('try:\\n    {}\\nexcept AttributeError as e:\\n    r = str(e)', ns), ns['r'])[1])"
            "({{'L': {}}})")

SYMTABLE: tuple[Task, ...] = (
    Task("symtable-rename", "fresh4/symtable.py", "rename",
         ("rename _newSymbolTable to _new_symbol_table (snake case like the rest of the module)",
          "In symtable.py the module-level SymbolTableFactory instance has a camelCase name. Please call it "
          "_new_symbol_table and update every place that calls it."),
         Renamed("_newSymbolTable", "_new_symbol_table")),
    Task("symtable-docstring", "fresh4/symtable.py", "docstring",
         ("SymbolTableFactory has no docstring, can u add one",
          "Document the factory class in symtable that turns the raw tables of _symtable into Function, Class or "
          "plain SymbolTable objects. It remembers what it made per (table, filename) in a weak-value dict, so "
          "asking twice for the same table gives back the same object."),
         Docstring("SymbolTableFactory"), symbol="SymbolTableFactory"),
    Task("symtable-method", "fresh4/symtable.py", "method",
         ("Add an is_cell() method to symtable.Symbol that returns True when the name is a cell variable, i.e. a "
          "local of a function that some inner function closes over. Symbol already has is_free and is_local; "
          "this is the missing one.",
          "can Symbol get an is_cell method? e.g. in def f(): x = 1; return lambda: x  -- f's x should say True, "
          "the lambda's x False"),
         Behaves(("Symbol.is_cell",), (
             (ST.format(_NESTED) + ".get_children()[0].lookup('x').is_cell()", "True"),
             (ST.format(_NESTED) + ".get_children()[0].get_children()[0].lookup('x').is_cell()", "False"),
             (ST.format(_NESTED) + ".lookup('f').is_cell()", "False"),
             (ST.format("def h(a):\n    return lambda: a\n") + ".get_children()[0].lookup('a').is_cell()", "True"),
             (ST.format("def k():\n    y = 2\n    return y\n") + ".get_children()[0].lookup('y').is_cell()",
              "False"))),
         symbol="Symbol"),
    Task("symtable-default", "fresh4/symtable.py", "default",
         ("make compile_type in symtable.symtable() default to 'exec', that's what i pass 99% of the time",
          "Could the module-level symtable function treat its last argument as optional? When the caller leaves "
          "it out it should behave like compile()'s 'exec' mode, so that symtable(src, 'mod.py') just works."),
         Behaves(("symtable",), (
             ("m.symtable('x = 1', 'a.py').get_type()", "'module'"),
             ("m.symtable('x = 1', 'a.py').lookup('x').is_assigned()", "True"),
             ("sorted(m.symtable('y + 1', 'b.py', 'eval').get_identifiers())", "['y']"),
             ("m.symtable('z = 2', 'c.py', compile_type='exec').lookup('z').is_assigned()", "True"),
             ("m.symtable('def q(): pass', 'd.py').get_children()[0].get_name()", "'q'"))),
         symbol="symtable"),
)

TYPES: tuple[Task, ...] = (
    Task("types-fix", "fresh4/types.py", "fix",
         ("types.new_class('Foo', [Base]) crashes with TypeError: type.__new__() argument 2 must be tuple, not "
          "list. A class statement obviously never hits this, but I build the list of bases at runtime. Please "
          "make new_class accept a list (or any other sequence) of bases, not just a tuple.",
          "new_class chokes when bases is a list instead of a tuple -> fix that pls, an empty list too"),
         Behaves(("new_class", "resolve_bases"), (
             ("m.new_class('A', [int]).__bases__", "(<class 'int'>,)"),
             ("m.new_class('B', [dict], exec_body=lambda ns: ns.update(x=1)).x", "1"),
             ("m.new_class('C', []).__bases__", "(<class 'object'>,)"),
             ("m.new_class('D', __import__('collections').UserList([int, object])).__mro__[1:]",
              "(<class 'int'>, <class 'object'>)"),
             ("(lambda T: m.new_class('E', [__import__('typing').Generic[T]]).__parameters__)"
              "(__import__('typing').TypeVar('T'))", "(~T,)"),
             ("(m.new_class('F', (int,)).__bases__, '__orig_bases__' in m.new_class('G', (int,)).__dict__)",
              "((<class 'int'>,), False)"),
             ("(lambda b: m.resolve_bases(b) is b)((int, str))", "True"))),
         symbol="new_class"),
    Task("types-comment", "fresh4/types.py", "comment",
         ("add a comment on the shift line in resolve_bases explaining why it's len - 1",
          "The shift bookkeeping in types.resolve_bases is hard to follow. Above the statement that increases "
          "shift, write a comment saying that one base may be replaced by several (or by none), so later indices "
          "into new_bases move by the length of the replacement minus the one entry it took the place of."),
         Comment("resolve_bases", above=("shift += len(new_base) - 1",)), symbol="resolve_bases"),
    Task("types-hints", "fresh4/types.py", "hints",
         ("type hints for types.prepare_class please",
          "Annotate prepare_class in types.py: name is a str, bases a tuple of classes (default ()), kwds an "
          "optional dict of keyword arguments for the metaclass. It returns the 3-tuple (metaclass, namespace, "
          "kwds)."),
         Hints("prepare_class"), symbol="prepare_class"),
    Task("types-docstring", "fresh4/types.py", "docstring",
         ("give _GeneratorWrapper a class docstring",
          "The private wrapper class that types.coroutine puts around generator-like objects which aren't real "
          "generators (Cython ones, say) only has a TODO comment. Write it a docstring: it forwards send, throw, "
          "close and the gi_* attributes to the wrapped object and offers them under the cr_* names as well, so "
          "that the object can be awaited."),
         Docstring("_GeneratorWrapper"), symbol="_GeneratorWrapper"),
)

STRPTIME: tuple[Task, ...] = (
    Task("strptime-extract", "fresh4/_strptime.py", "extract",
         ("_strptime() is huge. Move the code that turns a %z match such as '+01:30' or '-013015.5' into a number "
          "of seconds into its own module-level function _parse_offset(z), returning (gmtoff, gmtoff_fraction), "
          "both negative for a minus sign, and raising the same ValueError for an inconsistent colon. _strptime "
          "keeps handling 'Z' itself and calls the new function for everything else.",
          "pull the numeric utc offset parsing out of _strptime into a helper _parse_offset(z) -> (gmtoff, "
          "gmtoff_fraction)"),
         Behaves(("_strptime", "_parse_offset"), (
             ("m._parse_offset('+0130')", "(5400, 0)"),
             ("m._parse_offset('-01:30')", "(-5400, 0)"),
             ("m._parse_offset('+01:02:03.5')", "(3723, 500000)"),
             ("m._parse_offset('-010203.000250')", "(-3723, -250)"),
             ("m._parse_offset('+01:0203')", "raised ValueError"),
             (f"m._strptime_datetime({_DT}, '2021-03-04 10:00 -0230', '%Y-%m-%d %H:%M %z').utcoffset()"
              ".total_seconds()", "-9000.0"),
             ("m._strptime('12 Z', '%H %z')[0][-1]", "0"),
             ("m._strptime('12 +01:00:30.25', '%H %z')[0][-1:] + m._strptime('12 +01:00:30.25', '%H %z')[2:]",
              "(3630, 250000)"),
             ("m._strptime('12', '%H')[0][-1]", "None")),
             calls=(("_strptime", "_parse_offset"),))),
    Task("strptime-rename", "fresh4/_strptime.py", "rename",
         ("TimeRE.__seqToRE -> __seq_to_re",
          "Please rename the private method of TimeRE that builds an alternation regex out of a list of names "
          "(longest first). Its camelCase name __seqToRE should become __seq_to_re, and its calls in __init__ "
          "need updating."),
         Renamed("__seqToRE", "__seq_to_re")),
    Task("strptime-hints", "fresh4/_strptime.py", "hints",
         ("add type annotations to _calc_julian_from_V, all ints in, returns (year, day of year)",
          "Could you put type hints on the helper in _strptime that converts an ISO year, week and weekday into a "
          "year and a julian day? All three arguments are ints and it returns a tuple of two ints."),
         Hints("_calc_julian_from_V"), symbol="_calc_julian_from_V"),
    Task("strptime-move", "fresh4/_strptime.py", "move",
         ("move the regex cache globals (_cache_lock, _TimeRE_cache, _CACHE_MAX_SIZE, _regex_cache) down so "
          "they sit directly above def _strptime",
          "In _strptime.py the module-level cache state is defined between the TimeRE class and the julian-day "
          "helpers, far from the only function that uses it. Relocate those four assignments, with their "
          "comment, to just before the _strptime function. No other change."),
         SameAst(((CACHE, ""), (_STRPTIME_DEF, CACHE + "\n" + _STRPTIME_DEF)))),
)

THREADING_LOCAL: tuple[Task, ...] = (
    Task("threading_local-rename", "fresh4/_threading_local.py", "rename",
         ("rename _patch to _use_thread_dict in _threading_local.py",
          "The context manager in _threading_local that swaps the calling thread's dict into the local object "
          "before each attribute access has a vague name, _patch. Call it _use_thread_dict instead and change "
          "the three places in local that use it."),
         Renamed("_patch", "_use_thread_dict")),
    Task("threading_local-comment", "fresh4/_threading_local.py", "comment",
         ("comment the self.__init__ call in _patch: first time a thread touches the local it gets a fresh dict "
          "and __init__ runs again with the original args",
          "Could you explain with a comment in _threading_local._patch why __init__ is called there? It happens "
          "when the current thread has no dict yet: a new one is created and the subclass's __init__ is re-run "
          "with the arguments given at construction, so every thread starts from the same state."),
         Comment("_patch", above=("self.__init__(*args, **kw)",)), symbol="_patch"),
    Task("threading_local-delete", "fresh4/_threading_local.py", "delete",
         ("There's a pointless variable in _localimpl.create_dict: the inner callback that runs when a thread "
          "goes away stores the popped dict in dct, which nothing ever reads. Please remove that name; the entry "
          "must still be popped from local.dicts.",
          "thread_deleted assigns dct and never uses it. get rid of dct but keep the pop"),
         # `del local.dicts[idt]` pops it too (and raises KeyError alike): counted wrong in run 18's first run, a
         # check that judged the spelling (fixed after it, said on its page)
         SameAst(((_THREAD_DICT, _THREAD_DICT.replace("dct = ", "")),),
                 (((_THREAD_DICT, _THREAD_DICT.replace("dct = local.dicts.pop(idt)", "del local.dicts[idt]")),),)),
         symbol="_localimpl.create_dict"),
    Task("threading_local-extract", "fresh4/_threading_local.py", "extract",
         ("__setattr__ and __delattr__ of local both have the same if name == '__dict__': raise AttributeError "
          "(read-only) block. factor it out into a module level function _check_dict_name(obj, name) and call "
          "that from both",
          "In _threading_local, local.__setattr__ and local.__delattr__ repeat the check that refuses to replace "
          "or delete __dict__. I'd like it in one place: a module-level helper _check_dict_name(obj, name) which "
          "raises the same AttributeError (naming obj's class) when name is '__dict__' and does nothing "
          "otherwise. Use it in both methods."),
         Behaves(("local.__setattr__", "local.__delattr__", "_check_dict_name"), (
             ("(lambda L: (setattr(L, 'a', 1), L.a)[-1])(m.local())", "1"),
             ("(lambda L: (setattr(L, 'b', 2), delattr(L, 'b'), hasattr(L, 'b'))[-1])(m.local())", "False"),
             (_REFUSED.format("L.__dict__ = {}", "m.local()"), '"\'local\' object attribute \'__dict__\' is '
                                                               'read-only"'),
             (_REFUSED.format("del L.__dict__", "type('Sub', (m.local,), {})()"),
              '"\'Sub\' object attribute \'__dict__\' is read-only"'),
             ("m._check_dict_name(m.local(), 'x')", "None"),
             ("m._check_dict_name(m.local(), '__dict__')", "raised AttributeError")),
             calls=(("local.__setattr__", "_check_dict_name"), ("local.__delattr__", "_check_dict_name")))),
)

_F_STRINGS = (('raise ValueError("Invalid mode: {!r}".format(mode))', 'raise ValueError(f"Invalid mode: {mode!r}")'),
              ('raise ValueError("Invalid mode: %r" % (mode,))', 'raise ValueError(f"Invalid mode: {mode!r}")'))
_XZ = "m.compress({!r})"

LZMA: tuple[Task, ...] = (
    Task("lzma-param", "fresh4/lzma.py", "param",
         ("lzma.decompress silently drops garbage after the last stream. add a keyword-only strict=False; with "
          "strict=True trailing data that isn't a valid stream should raise LZMAError instead. concatenated "
          "streams must still work",
          "I want lzma.decompress to be able to tell me when there is junk after the compressed data. Add a "
          "strict flag, off by default so nothing changes for existing callers: when it is on, leftover bytes "
          "that don't form another valid .xz or .lzma stream raise LZMAError. Several valid streams back to back "
          "still decompress to their concatenation."),
         Behaves(("decompress",), (
             (f"m.decompress({_XZ.format(b'abc')} + b'junk')", "b'abc'"),
             (f"m.decompress({_XZ.format(b'abc')} + b'junk', strict=True)", "raised LZMAError"),
             (f"m.decompress({_XZ.format(b'ab')} + {_XZ.format(b'cd')}, strict=True)", "b'abcd'"),
             (f"m.decompress({_XZ.format(b'ab')} + {_XZ.format(b'cd')} + b'x', strict=False)", "b'abcd'"),
             ("m.decompress(b'junk')", "raised LZMAError"),
             ("m.decompress(m.compress(b'old', format=m.FORMAT_ALONE), strict=True)", "b'old'"),
             (f"m.decompress({_XZ.format(b'abc')}[:-4], strict=True)", "raised LZMAError"))),
         symbol="decompress"),
    Task("lzma-hints", "fresh4/lzma.py", "hints",
         ("add type hints to lzma.open",
          "Please annotate the module-level open() of lzma.py: filename is a path (str, bytes or os.PathLike) or "
          "a file object, mode a str, format, check and preset ints (format and preset may be None), filters an "
          "optional list of filter dicts, encoding, errors and newline optional strs. It returns an LZMAFile in "
          "binary mode and an io.TextIOWrapper in text mode."),
         Hints("open"), symbol="open"),
    Task("lzma-transform", "fresh4/lzma.py", "transform",
         ("convert the .format() and % string formatting in lzma.py to f-strings",
          "Modernize the string formatting in lzma: the two 'Invalid mode' error messages are built with "
          "str.format in LZMAFile.__init__ and with % in open(). Make both of them f-strings that still show the "
          "mode with its repr."),
         SameAst(_F_STRINGS)),
    Task("lzma-method", "fresh4/lzma.py", "method",
         ("LZMAFile should have a mode attribute like a regular file object: 'rb' when it was opened for reading "
          "and 'wb' when opened for writing (any of w, a or x), the way the objects open() returns have one. Some of "
          "my code checks f.mode before deciding what to do.",
          "give LZMAFile a read-only mode property -> 'rb' or 'wb'"),
         Behaves(("LZMAFile.__init__", "LZMAFile.mode"), (
             (f"m.LZMAFile({_BYTES_IO}(), 'w').mode", "'wb'"),
             (f"m.LZMAFile({_BYTES_IO}(), 'ab').mode", "'wb'"),
             (f"m.LZMAFile({_BYTES_IO}(), 'x').mode", "'wb'"),
             (f"m.LZMAFile({_BYTES_IO}({_XZ.format(b'q')})).mode", "'rb'"),
             (f"m.LZMAFile({_BYTES_IO}({_XZ.format(b'q')}), 'r').read()", "b'q'"),
             (f"(lambda b: (lambda f: (f.write(b'hi'), f.close(), m.decompress(b.getvalue()))[-1])"
              f"(m.LZMAFile(b, 'w')))({_BYTES_IO}())", "b'hi'"),
             (f"m.LZMAFile({_BYTES_IO}(), 'wt')", "raised ValueError"))),
         symbol="LZMAFile"),
)

FRESH4: tuple[Task, ...] = SYMTABLE + TYPES + STRPTIME + THREADING_LOCAL + LZMA + BUGS
