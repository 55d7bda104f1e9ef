"""The second fresh set of ``coder bench --edits --set fresh2``: the unseen measure once the fresh set is read.

The suite, the held-out set and the fresh set (:mod:`coder.bench.edits.tasks_fresh`) have all been read by
the people tuning coder's instruction reader, so none of them measures any longer how coder does on
wordings nobody tuned for. These tasks were written on 2026-12-04 by someone who had not read
``coder/edit/``, coder's CLI (other than ``coder/cli/bench_edits.py``, to register the set) or any bench
result, on five CPython 3.11.7 modules no other set uses (``codeop``, ``uu``, ``xdrlib``, ``fileinput``,
``mimetypes``; shipped under ``files/fresh2/``, ``files/SOURCES.md`` lists them). Each task has two
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
from coder.bench.edits.tasks_fresh2_bugs import BUGS, UU_ENCODE

_IS_SYNTAX_ERROR = """def _is_syntax_error(err1, err2):
    rep1 = repr(err1)
    rep2 = repr(err2)
    if "was never closed" in rep1 and "was never closed" in rep2:
        return False
    if rep1 == rep2:
        return True
    return False

"""
_UU = source("fresh2/uu.py")
_DECODE = _UU[_UU.index("def decode(in_file"):_UU.index("def test():")]  # the function and the blank line below
_MIMETYPES = source("fresh2/mimetypes.py")
_MAIN = _MIMETYPES[_MIMETYPES.index("\n\ndef _main():"):]  # _main and the __main__ guard, to the end
_DATA_URL = """            if semi >= 0:
                type = url[:semi]
            else:
                type = url[:comma]
            if '=' in type or '/' not in type:
                type = 'text/plain'
            return type, None"""

# an Unpacker over the bytes {} (a list of ints), bound to u, then EXPR
_UNPACK = "(lambda u: {})(m.Unpacker(bytes({})))"
# values packed by m.Packer (p) with the calls {}, unpacked by EXPR on an Unpacker u of the result
_ROUND = "(lambda p: ({}, (lambda u: {})(m.Unpacker(p.get_buffer())))[-1])(m.Packer())"
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
)

UU: tuple[Task, ...] = (
    Task("uu-fstrings", "fresh2/uu.py", "transform",
         ("switch uu.py from % formatting to f-strings",
          "Modernise the string formatting in the uu module: wherever a string is built with the % operator, "
          "use an f-string instead that produces exactly the same text."),
         SameAst((("out_file.write(('begin %o %s\\n' % ((mode & 0o777), name)).encode(\"ascii\"))",
                   "out_file.write(f'begin {mode & 0o777:o} {name}\\n'.encode(\"ascii\"))"),
                  ('sys.stderr.write("Warning: %s\\n" % v)', 'sys.stderr.write(f"Warning: {v}\\n")')))),
    Task("uu-param", "fresh2/uu.py", "param",
         ("add a bytes_per_line option to uu.encode (default 45) so i can get shorter lines",
          "encode always puts 45 input bytes on each encoded line. Let the caller choose that number with a "
          "keyword argument named bytes_per_line, keeping 45 as the default, e.g. "
          "encode(src, dst, bytes_per_line=30)."),
         Behaves(("encode",), ((UU_ENCODE.format("b'abcdefg'", ", bytes_per_line=3"),
                                "b'begin 666 -\\n#86)C\\n#9&5F\\n!9P  \\n \\nend\\n'"),
                               (UU_ENCODE.format("b'abcdefg'", ", bytes_per_line=4, backtick=True"),
                                "b'begin 666 -\\n$86)C9```\\n#969G\\n`\\nend\\n'"),
                               (f"len({UU_ENCODE.format('bytes(100)', ', bytes_per_line=10')}.splitlines())", "13"),
                               (f"len({UU_ENCODE.format('bytes(100)', '')}.splitlines())", "6"),
                               (f"{UU_ENCODE.format('bytes(50)', '')}.splitlines()[2]", "b'%        '"))),
         symbol="encode"),
    Task("uu-move", "fresh2/uu.py", "move",
         ("move decode above encode in uu.py",
          "I'd like the decoder to come first in the uu module: put the decode function before encode, right "
          "after the Error class. Don't change any code, it's just reordering."),
         SameAst(((_DECODE, ""), ("def encode(in_file", _DECODE + "def encode(in_file")))),
    Task("uu-docstring", "fresh2/uu.py", "docstring",
         ("give uu.Error a docstring",
          "The exception class Error in uu isn't documented at all. Write a short docstring for it saying it is "
          "raised when decoding fails (no begin line, truncated input, an output file that already exists...)."),
         Docstring("Error"), symbol="Error"),
)

XDRLIB: tuple[Task, ...] = (
    Task("xdrlib-rename-list", "fresh2/xdrlib.py", "rename",
         ("stop shadowing the builtin list in xdrlib - every variable or parameter called list should be items",
          "Several Packer and Unpacker methods (pack_list, pack_farray, pack_array, unpack_list, unpack_farray) "
          "use list as a name, which hides the builtin. Rename it to items in all of them."),
         Renamed("list", "items")),
    Task("xdrlib-method", "fresh2/xdrlib.py", "method",
         ("add unpack_optional(unpack_item) to Unpacker: read a bool, if its true return unpack_item(), "
          "otherwise None",
          "XDR has optional data: a 4-byte flag (0 or 1) followed by the value only when the flag is 1. Give "
          "xdrlib.Unpacker a method unpack_optional that takes the item unpacker, like unpack_list does, and "
          "returns the value, or None when the flag is 0."),
         Behaves(("Unpacker.unpack_optional",), (
             (_UNPACK.format("(u.unpack_optional(u.unpack_int), u.get_position())", [0, 0, 0, 1, 0, 0, 0, 5]),
              "(5, 8)"),
             (_UNPACK.format("(u.unpack_optional(u.unpack_int), u.get_position())", [0, 0, 0, 0, 0, 0, 0, 5]),
              "(None, 4)"),
             (_UNPACK.format("(u.unpack_optional(u.unpack_string), u.unpack_uint())",
                             [0, 0, 0, 1, 0, 0, 0, 2, 104, 105, 0, 0, 0, 0, 0, 7]), "(b'hi', 7)"),
             (_UNPACK.format("u.unpack_optional(u.unpack_int)", [0, 0, 0, 1]), "raised EOFError"))),
         symbol="Unpacker"),
    Task("xdrlib-hints", "fresh2/xdrlib.py", "hints",
         ("annotate Packer.pack_fstring (n is an int, s is bytes)",
          "please add type hints to the pack_fstring method of xdrlib's Packer class"),
         Hints("Packer.pack_fstring"), symbol="Packer.pack_fstring"),
    Task("xdrlib-extract", "fresh2/xdrlib.py", "extract",
         ("unpack_uint, unpack_int, unpack_float and unpack_double all repeat the same read-n-bytes-or-EOFError "
          "code. pull it out into Unpacker._take(n), which returns the next n bytes and moves the position past "
          "them, and use it in those four",
          "Refactor xdrlib's Unpacker: the fixed-size unpack methods each slice the next 4 (or 8) bytes out of "
          "the buffer, advance the position and raise EOFError if there weren't enough. Factor that into one "
          "helper method, _take(self, n), returning the bytes, and make the four of them call it."),
         Behaves(("Unpacker._take", "Unpacker.unpack_uint", "Unpacker.unpack_int", "Unpacker.unpack_float",
                  "Unpacker.unpack_double"), (
             (_UNPACK.format("(u._take(4), u._take(2), u.get_position())", list(range(8))),
              "(b'\\x00\\x01\\x02\\x03', b'\\x04\\x05', 6)"),
             (_UNPACK.format("u._take(4)", [1, 2, 3]), "raised EOFError"),
             (_UNPACK.format("(u.unpack_int(), u.unpack_uint(), u.get_position())", [255] * 8),
              "(-1, 4294967295, 8)"),
             (_ROUND.format("p.pack_double(1.5), p.pack_float(2.5), p.pack_int(-3)",
                            "(u.unpack_double(), u.unpack_float(), u.unpack_int(), u.get_position())"),
              "(1.5, 2.5, -3, 16)"),
             (_UNPACK.format("u.unpack_double()", [0] * 7), "raised EOFError"),
             (_UNPACK.format("u.unpack_float()", [0] * 3), "raised EOFError")),
             calls=(("Unpacker.unpack_uint", "_take"), ("Unpacker.unpack_int", "_take"),
                    ("Unpacker.unpack_float", "_take"), ("Unpacker.unpack_double", "_take"))),
         symbol="Unpacker"),
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
)

FRESH2: tuple[Task, ...] = CODEOP + UU + XDRLIB + FILEINPUT + MIMETYPES + BUGS
