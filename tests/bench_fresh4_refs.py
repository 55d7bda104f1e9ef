"""Hand-written results for the tasks of ``--set fresh4`` (:mod:`coder.bench.edits.tasks_fresh4`): a correct result
of each task whose check does not give one, and plausible wrong results, as edits on the task's original."""

from __future__ import annotations

from bench_sets import Edits

from coder.bench.edits.tasks_fresh4 import _F_STRINGS, _THREAD_DICT, CACHE

_FACTORY = "class SymbolTableFactory:\n"
_IS_CELL = ('    def is_cell(self):\n        """Return *True* if the symbol is a cell variable."""\n'
            "        return bool(self.__scope == CELL)\n\n")
_IS_IMPORTED = "    def is_imported(self):\n"
_SYMTABLE_DEF = "def symtable(code, filename, compile_type):"
_RESOLVED = "    resolved_bases = resolve_bases(bases)\n"
_SHIFT = "            shift += len(new_base) - 1\n"
_PREPARE_DEF = "def prepare_class(name, bases=(), kwds=None):"
_PREPARE_HINTS = ("def prepare_class(name: str, bases: tuple[type, ...] = (), kwds: dict[str, object] | None = None"
                  ") -> tuple[type, dict[str, object], dict[str, object]]:")
_WRAPPER = "class _GeneratorWrapper:\n"
_Z_BLOCK = """                if z[3] == ':':
                    z = z[:3] + z[4:]
                    if len(z) > 5:
                        if z[5] != ':':
                            msg = f"Inconsistent use of : in {found_dict['z']}"
                            raise ValueError(msg)
                        z = z[:5] + z[6:]
                hours = int(z[1:3])
                minutes = int(z[3:5])
                seconds = int(z[5:7] or 0)
                gmtoff = (hours * 60 * 60) + (minutes * 60) + seconds
                gmtoff_remainder = z[8:]
                # Pad to always return microseconds.
                gmtoff_remainder_padding = "0" * (6 - len(gmtoff_remainder))
                gmtoff_fraction = int(gmtoff_remainder + gmtoff_remainder_padding)
                if z.startswith("-"):
                    gmtoff = -gmtoff
                    gmtoff_fraction = -gmtoff_fraction
"""
# the block as a function of its own (found_dict['z'] is the argument it was given)
_PARSE_OFFSET = ("def _parse_offset(z):\n    given = z\n"
                 + "".join(line[12:] + "\n" for line in _Z_BLOCK.splitlines()).replace("found_dict['z']", "given")
                 + "    return gmtoff, gmtoff_fraction\n\n\n")
_STRPTIME_DEF = "def _strptime(data_string, format="
_USE_OFFSET = "                gmtoff, gmtoff_fraction = _parse_offset(z)\n"
_V_DEF = "def _calc_julian_from_V(iso_year, iso_week, iso_weekday):"
_V_HINTS = "def _calc_julian_from_V(iso_year: int, iso_week: int, iso_weekday: int) -> tuple[int, int]:"
_INIT_AGAIN = "        self.__init__(*args, **kw)\n"
_REFUSE = """        if name == '__dict__':
            raise AttributeError(
                "%r object attribute '__dict__' is read-only"
                % self.__class__.__name__)
"""
_CHECK = """def _check_dict_name(obj, name):
    if name == '__dict__':
        raise AttributeError(
            "%r object attribute '__dict__' is read-only"
            % obj.__class__.__name__)


"""
_SETATTR = "    def __setattr__(self, name, value):\n"
_DELATTR = "    def __delattr__(self, name):\n"
_LOCAL = "class local:\n"
_DECOMPRESS_DEF = "def decompress(data, format=FORMAT_AUTO, memlimit=None, filters=None):"
_STRICT_DEF = "def decompress(data, format=FORMAT_AUTO, memlimit=None, filters=None, *, strict=False):"
_LEFTOVER = "            if results:\n                break"
_OPEN_DEF = ('def open(filename, mode="rb", *,\n         format=None, check=-1, preset=None, filters=None,\n'
             "         encoding=None, errors=None, newline=None):")
_OPEN_HINTS = ('def open(filename: str | bytes | os.PathLike[str] | io.IOBase, mode: str = "rb", *,\n'
               "         format: int | None = None, check: int = -1, preset: int | None = None,\n"
               "         filters: list[dict[str, int]] | None = None, encoding: str | None = None,\n"
               "         errors: str | None = None, newline: str | None = None) -> LZMAFile | io.TextIOWrapper:")
_CLOSED = "    @property\n    def closed(self):\n"
_MODE = "    @property\n    def mode(self):\n        return 'wb' if self._mode == _MODE_WRITE else 'rb'\n\n"
_MODE_CODE = "        if isinstance(filename, (str, bytes, os.PathLike)):\n"

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "symtable-docstring": ((_FACTORY, _FACTORY + '    """Makes and remembers the wrapper of each raw table."""\n'),),
    "symtable-method": ((_IS_IMPORTED, _IS_CELL + _IS_IMPORTED),),
    "symtable-default": ((_SYMTABLE_DEF, _SYMTABLE_DEF.replace("compile_type)", 'compile_type="exec")')),),
    "types-fix": ((_RESOLVED, "    bases = tuple(bases)\n" + _RESOLVED),),
    "types-comment": ((_SHIFT, "            # one base became len(new_base) bases: later ones moved by the rest\n"
                       + _SHIFT),),
    "types-hints": ((_PREPARE_DEF, _PREPARE_HINTS),),
    "types-docstring": ((_WRAPPER, _WRAPPER + '    """A generator-like object made awaitable."""\n'),),
    "strptime-extract": ((_Z_BLOCK, _USE_OFFSET), (_STRPTIME_DEF, _PARSE_OFFSET + _STRPTIME_DEF)),
    "strptime-hints": ((_V_DEF, _V_HINTS),),
    "threading_local-comment": ((_INIT_AGAIN, "        # a thread's first use: __init__ fills its new dict\n"
                                 + _INIT_AGAIN),),
    "threading_local-extract": ((_SETATTR + _REFUSE, _SETATTR + "        _check_dict_name(self, name)\n"),
                                (_DELATTR + _REFUSE, _DELATTR + "        _check_dict_name(self, name)\n"),
                                (_LOCAL, _CHECK + _LOCAL)),
    "lzma-param": ((_DECOMPRESS_DEF, _STRICT_DEF),
                   (_LEFTOVER, _LEFTOVER.replace("results:", "results and not strict:"))),
    "lzma-hints": ((_OPEN_DEF, _OPEN_HINTS),),
    "lzma-method": ((_CLOSED, _MODE + _CLOSED),),
}

# Plausible wrong results, one or more per task: each must fail the task's check.
WRONG: dict[str, tuple[Edits, ...]] = {
    "symtable-rename": (
        (("_newSymbolTable = SymbolTableFactory()", "_new_symbol_table = SymbolTableFactory()"),),  # calls left
        (("_newSymbolTable = SymbolTableFactory()", "_new_symbol_table = SymbolTableFactory()"),
         ("    return _newSymbolTable(top, filename)", "    return _new_symbol_table(top, filename)"),
         ("        return [_newSymbolTable(st, self._filename)\n                for st in self._table.children\n"
          "                if", "        return [_new_symbol_table(st, self._filename)\n"
          "                for st in self._table.children\n                if")),),  # get_children's left
    "symtable-docstring": (
        (("    def new(self, table, filename):\n",
          '    def new(self, table, filename):\n        """The wrapper."""\n'),),
        ((_FACTORY, _FACTORY + '    """Memoizing factory."""\n'),
         ("weakref.WeakValueDictionary()", "{}")),),  # and the memo made a plain dict
    "symtable-method": (
        ((_IS_IMPORTED, _IS_CELL.replace("== CELL", "== FREE") + _IS_IMPORTED),),
        ((_IS_IMPORTED, _IS_CELL.replace("== CELL", "in (LOCAL, CELL)") + _IS_IMPORTED),),),
    "symtable-default": (
        ((_SYMTABLE_DEF, _SYMTABLE_DEF.replace("compile_type)", "compile_type='eval')")),),
        ((_SYMTABLE_DEF, _SYMTABLE_DEF.replace("compile_type)", "mode='exec')")),
         ("_symtable.symtable(code, filename, compile_type)", "_symtable.symtable(code, filename, mode)")),),
    "types-fix": (
        ((_RESOLVED, "    if isinstance(bases, list):\n        bases = tuple(bases)\n" + _RESOLVED),),  # lists only
        ((_RESOLVED, _RESOLVED + "    if not isinstance(bases, tuple):\n        bases = tuple(bases)\n"),),),  # late
    "types-comment": (
        (("            new_bases[i+shift:i+shift+1] = new_base\n",
          "            # bases after this one move\n            new_bases[i+shift:i+shift+1] = new_base\n"),),
        (("    if not updated:\n        return bases\n",
          "    if not updated:  # the shift\n        return bases\n"),),),
    "types-hints": (
        ((_PREPARE_DEF, _PREPARE_HINTS.split(" -> ")[0] + ":"),),  # no return annotation
        ((_PREPARE_DEF, _PREPARE_HINTS.replace("object]", "Any]")),),),  # Any never imported
    "types-docstring": (
        (("    def __init__(self, gen):\n", '    def __init__(self, gen):\n        """Wrap gen."""\n'),),),
    "strptime-extract": (
        ((_Z_BLOCK, _USE_OFFSET), (_STRPTIME_DEF, _PARSE_OFFSET.replace(
            "        gmtoff_fraction = -gmtoff_fraction\n", "") + _STRPTIME_DEF)),  # the fraction keeps its sign
        ((_STRPTIME_DEF, _PARSE_OFFSET + _STRPTIME_DEF),),),  # the helper is there, _strptime does not use it
    "strptime-rename": (
        (("    def __seqToRE(self, to_convert, directive):", "    def __seq_to_re(self, to_convert, directive):"),),
        (*((f"self.__seqToRE({arg}", f"self._seq_to_re({arg}") for arg in
             ("self.locale_time.f_weekday", "self.locale_time.a_weekday", "self.locale_time.f_month",
              "self.locale_time.a_month", "self.locale_time.am_pm", "(tz")),
         ("    def __seqToRE(self", "    def _seq_to_re(self")),),  # one underscore: no longer private
    "strptime-hints": (
        ((_V_DEF, _V_DEF.replace("):", ") -> tuple[int, int]:")),),
        ((_V_DEF, _V_HINTS), ("    if ordinal < 1:\n", "    if ordinal <= 1:\n")),),
    "strptime-move": (
        ((CACHE, ""), ("def _strptime_time(", CACHE + "\n" + "def _strptime_time(")),  # below _strptime
        ((CACHE, CACHE.split("# DO")[0]), (_STRPTIME_DEF, CACHE.split("\n", 1)[1] + "\n" + _STRPTIME_DEF)),),
    "threading_local-rename": (
        (("def _patch(self):", "def _use_thread_dict(self):"),),
        (("def _patch(self):", "def _use_thread_dict(self):"),
         ("    def __getattribute__(self, name):\n        with _patch(self):",
          "    def __getattribute__(self, name):\n        with _use_thread_dict(self):")),),
    "threading_local-comment": (
        (("    with impl.locallock:\n", "    # run __init__ again for a new thread\n    with impl.locallock:\n"),),
        ((_INIT_AGAIN, '        """a new thread: __init__ again"""\n' + _INIT_AGAIN),),),
    "threading_local-delete": (
        ((_THREAD_DICT, ""),),  # the pop went with it (and the if lost its body)
        ((_THREAD_DICT, _THREAD_DICT.replace("dct = ", "").replace("(idt)", "(idt, None)")),),),
    "threading_local-extract": (
        ((_SETATTR + _REFUSE, _SETATTR + "        _check_dict_name(self, name)\n"), (_LOCAL, _CHECK + _LOCAL)),
        ((_SETATTR + _REFUSE, _SETATTR + "        _check_dict_name(self, name)\n"),
         (_DELATTR + _REFUSE, _DELATTR + "        _check_dict_name(self, name)\n"),
         (_LOCAL, _CHECK.replace('"%r object', '"\'local\' object')
          .replace("\n            % obj.__class__.__name__", "") + _LOCAL)),),  # the class name written in
    "lzma-param": (
        ((_DECOMPRESS_DEF, _STRICT_DEF.replace("=False", "=True")),
         (_LEFTOVER, _LEFTOVER.replace("results:", "results and not strict:"))),
        ((_DECOMPRESS_DEF, _STRICT_DEF),
         ("        data = decomp.unused_data\n",
          "        data = decomp.unused_data\n        if strict and data:\n"
          "            raise LZMAError('trailing data')\n")),),  # refuses a second stream too
    "lzma-hints": (
        ((_OPEN_DEF, _OPEN_HINTS.replace("filename: str | bytes | os.PathLike[str] | io.IOBase", "filename")),),
        ((_OPEN_DEF, _OPEN_HINTS.replace(" -> LZMAFile | io.TextIOWrapper:", ":")),),),
    "lzma-transform": (
        (_F_STRINGS[0],),
        tuple((old, new.replace("!r", "")) for old, new in _F_STRINGS),),
    "lzma-method": (
        ((_MODE_CODE, "        self.mode = mode\n" + _MODE_CODE),),
        ((_MODE_CODE, "        self.mode = mode if 'b' in mode else mode + 'b'\n" + _MODE_CODE),),),
    "bug-symtable-global": (
        (('module_scope = (self._table.name != "top")', "module_scope = True"),),),
    "bug-types-mro-entries": (
        (("new_bases[i+shift:i+shift+1] = new_base", "new_bases[i:i+1] = new_base"),),),
    "bug-strptime-week": (
        (("        return 1 + days_to_week + day_of_week", "        return 1 + days_to_week + day_of_week - 7"),),),
    "bug-threading_local-init": (
        (("        self.__init__()\n", "        self.__init__(*args)\n"),),),
    "bug-lzma-tell": (
        (("        self._pos = length\n", "        self._pos += len(data)\n"),),),
}
