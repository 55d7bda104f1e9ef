"""The fresh set of ``coder bench --edits --set fresh``: a second unseen measure, now that the held-out one is read.

The held-out set (:mod:`coder.bench.edits.tasks_heldout`) has been read by the people tuning coder's
instruction reader, so it no longer measures wordings nobody tuned for. These tasks were written on
2026-12-04 by someone who had not read ``coder/edit/``, coder's CLI or any bench result, on five
CPython 3.11.7 modules neither other set uses (``base64``, ``cmd``, ``filecmp``, ``rlcompleter``,
``zipapp``; shipped under ``files/fresh/``, ``files/SOURCES.md`` lists them). Each has two wordings,
typed once as people type requests into an assistant and never tried on coder or a model. Nothing
here may be tuned on: a reading rule written to pass one of these wordings makes the set worthless.

The bug tasks are in :mod:`coder.bench.edits.tasks_fresh_bugs`; the rest reuse the suite's checks,
and a change of behaviour is judged by calling the code (:class:`~coder.bench.edits.behaviour.Behaves`).
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves, Callers
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks_fresh_bugs import BUGS, COLUMNIZE

_COMPLETE_HELP = """    def complete_help(self, *args):
        commands = set(self.completenames(*args))
        topics = set(a[5:] for a in self.get_names()
                     if a.startswith('help_' + args[0]))
        return list(commands | topics)

"""
_DEMO = """

# Demonstration and testing.
#
def demo():
    import sys
    import getopt
    options, args = getopt.getopt(sys.argv[1:], 'r')
    if len(args) != 2:
        raise getopt.GetoptError('need exactly two args', None)
    dd = dircmp(args[0], args[1])
    if ('-r', '') in options:
        dd.report_full_closure()
    else:
        dd.report()

if __name__ == '__main__':
    demo()
"""
_CLASS_MEMBERS = """def get_class_members(klass):
    ret = dir(klass)
    if hasattr(klass,'__bases__'):
        for base in klass.__bases__:
            ret = ret + get_class_members(base)
    return ret

"""
# a subclass of Cmd with commands go and add and a help topic x
_SUBCMD = ("type('C', (m.Cmd,), {'do_go': lambda s, a: None, 'do_add': lambda s, a: None, "
           "'help_x': lambda s: None})()")
# a reader whose reads come back short, as a pipe's do
_SHORT = "type('R', (), {'parts': [b'ab', b'cd'], 'read': lambda self, n: self.parts.pop(0) if self.parts else b''})()"
# two new folders a and b (in the check's own temporary cwd) with these entries (name: text, None: a folder),
# then EXPR with a and b bound to their paths
_DIRS = ("(lambda P, t: (lambda a, b: ([(P(d, n).mkdir() if s is None else P(d, n).write_text(s)) "
         "for d, f in ((a, {!r}), (b, {!r})) for n, s in f.items()], {})[1])"
         "(t.mkdtemp(dir='.'), t.mkdtemp(dir='.')))(__import__('pathlib').Path, __import__('tempfile'))")

# the bytes m._write_file_prefix writes for the interpreter {!r}
_PREFIX = "(lambda o: (m._write_file_prefix(o, {!r}), o.getvalue())[1])(__import__('io').BytesIO())"


def _identical(left: dict[str, str | None], right: dict[str, str | None]) -> str:
    """The expression asking ``dircmp(a, b).is_identical()`` of two folders with these entries."""
    return _DIRS.format(left, right, "m.dircmp(a, b).is_identical()")


CMD: tuple[Task, ...] = (
    Task("cmd-rename-method", "fresh/cmd.py", "rename",
         ("rename completenames to matching_commands in Cmd, and fix the places that call it",
          "completenames -> matching_commands pls"),
         Renamed("completenames", "matching_commands")),
    Task("cmd-docstring", "fresh/cmd.py", "docstring",
         ("print_topics could use a docstring",
          "can you document Cmd.print_topics? say what header, cmds, cmdlen and maxcol are"),
         Docstring("Cmd.print_topics"), symbol="Cmd.print_topics"),
    Task("cmd-hints", "fresh/cmd.py", "hints",
         ("add type hints to parseline. line is a str and it returns (command, args, line), the first two can be "
          "None",
          "annotate Cmd.parseline"),
         Hints("Cmd.parseline"), symbol="Cmd.parseline"),
    Task("cmd-method", "fresh/cmd.py", "method",
         ("add a commands() method to Cmd that returns the sorted names of all the commands, i.e. the do_ methods "
          "without the do_ prefix",
          "Cmd needs a way to list its commands. something like commands(self) -> sorted list of names, so a "
          "subclass with do_add gets ['add', 'help']"),
         Behaves(("Cmd.commands",), (("m.Cmd().commands()", "['help']"),
                                     (f"{_SUBCMD}.commands()", "['add', 'go', 'help']"),
                                     (COLUMNIZE.format("['a', 'b']"), "'a  b\\n'"))),
         symbol="Cmd"),
    Task("cmd-delete", "fresh/cmd.py", "delete",
         ("get rid of complete_help, we don't do tab completion for help topics",
          "drop the complete_help method from Cmd"),
         SameAst(((_COMPLETE_HELP, ""),)), symbol="Cmd.complete_help"),
    Task("cmd-param", "fresh/cmd.py", "param",
         ("columnize should take a sep argument (default two spaces) for what goes between the columns, and use its "
          "length when it works out whether the columns fit",
          "let me pick the column separator in Cmd.columnize, e.g. columnize(names, sep=' | '). default stays two "
          "spaces and the lines still have to fit in displaywidth"),
         Behaves(("Cmd.columnize",), ((COLUMNIZE.format("['a', 'bb', 'c']"), "'a  bb  c\\n'"),
                                      (COLUMNIZE.format("['a', 'bb', 'c'], sep=' | '"), "'a | bb | c\\n'"),
                                      (COLUMNIZE.format("['aaaa', 'bbbb'], 10, sep=' | '"), "'aaaa\\nbbbb\\n'"),
                                      (COLUMNIZE.format("['aaaa', 'bbbb'], 11, sep=' | '"), "'aaaa | bbbb\\n'"),
                                      (COLUMNIZE.format("['aaaa', 'bbbb'], 10"), "'aaaa  bbbb\\n'"))),
         symbol="Cmd.columnize"),
)

BASE64: tuple[Task, ...] = (
    Task("base64-rename", "fresh/base64.py", "rename",
         ("rename _bytes_from_decode_data to _as_bytes everywhere",
          "_bytes_from_decode_data is way too long a name. call it _as_bytes and update all the callers"),
         Renamed("_bytes_from_decode_data", "_as_bytes")),
    Task("base64-docstring", "fresh/base64.py", "docstring",
         ("turn the comment at the top of _85encode into a real docstring",
          "_85encode needs a docstring explaining chars/chars2 and the pad, foldnuls and foldspaces flags"),
         Docstring("_85encode"), symbol="_85encode"),
    Task("base64-callers", "fresh/base64.py", "callers",
         ("give _b32encode a pad=True parameter; when it's false, leave the = padding off the end. have b32encode "
          "and b32hexencode pass pad=True explicitly",
          "add an optional pad flag to _b32encode (default True, False strips the trailing '=' signs) and update "
          "both callers to pass pad=True"),
         Callers("_b32encode", "pad", True, "pad=True")),
    Task("base64-extract", "fresh/base64.py", "extract",
         ("pull the loop in encode that keeps reading until it has a full MAXBINSIZE chunk out into its own "
          "function, _read_chunk(input), which returns the bytes (b'' at end of file), and have encode call it",
          "refactor base64.encode: extract _read_chunk(input) -> bytes that does the read-until-MAXBINSIZE part"),
         Behaves(("encode", "_read_chunk"), (
             ("len(m._read_chunk(__import__('io').BytesIO(bytes(100))))", "57"),
             ("m._read_chunk(__import__('io').BytesIO(b''))", "b''"),
             (f"m._read_chunk({_SHORT})", "b'abcd'"),
             ("(lambda o: (m.encode(__import__('io').BytesIO(b'x' * 60), o), o.getvalue())[1])"
              "(__import__('io').BytesIO())",
              "b'" + "eHh4" * 19 + "\\neHh4\\n'"),  # a full line of 57 bytes (76 characters), then 3
             (f"(lambda o: (m.encode({_SHORT}, o), o.getvalue())[1])(__import__('io').BytesIO())", "b'YWJjZA==\\n'")),
             calls=(("encode", "_read_chunk"),))),
)

RLCOMPLETER: tuple[Task, ...] = (
    Task("rlcompleter-rename-local", "fresh/rlcompleter.py", "rename",
         ("in global_matches rename n to prefix_len. attr_matches has its own n, leave that one alone",
          "Completer.global_matches: n -> prefix_len"),
         SameAst((("        n = len(text)\n", "        prefix_len = len(text)\n"),
                  ("            if word[:n] == text:\n", "            if word[:prefix_len] == text:\n"),
                  ("                if word[:n] == text and word not in seen:\n",
                   "                if word[:prefix_len] == text and word not in seen:\n"))),
         symbol="Completer.global_matches"),
    Task("rlcompleter-hints-all", "fresh/rlcompleter.py", "hints",
         ("add type hints to all the methods of Completer",
          "type-annotate every method in the Completer class (namespace is a dict or None, text is a str, state an "
          "int, complete returns a str or None)"),
         Hints("Completer"), symbol="Completer"),
    Task("rlcompleter-comment", "fresh/rlcompleter.py", "comment",
         ('why does global_matches start with seen = {"__builtins__"}? add a comment there saying why',
          "comment the line in global_matches that puts __builtins__ into seen: it keeps the __builtins__ entry of "
          "the namespace out of the matches"),
         Comment("Completer.global_matches", above=('seen = {"__builtins__"}',)), symbol="Completer.global_matches"),
    Task("rlcompleter-move", "fresh/rlcompleter.py", "move",
         ("move get_class_members up so it's defined before the Completer class",
          "get_class_members should sit above class Completer (right after __all__), not below it"),
         SameAst(((_CLASS_MEMBERS, ""), ("class Completer:\n", _CLASS_MEMBERS + "class Completer:\n")))),
)

FILECMP: tuple[Task, ...] = (
    Task("filecmp-rename", "fresh/filecmp.py", "rename",
         ("rename _sig to _stat_signature",
          "_sig isn't a great name, call it _stat_signature (and update cmp, which uses it)"),
         Renamed("_sig", "_stat_signature")),
    Task("filecmp-method", "fresh/filecmp.py", "method",
         ("add an is_identical() method to dircmp: true when both directories have the same entries and no files "
          "that differ or couldn't be compared. only this level, don't recurse into subdirectories",
          "dircmp.is_identical() please. false if anything is only on one side, a common file differs, or there are "
          "funny cases (type mismatch, can't compare). top level only"),
         Behaves(("dircmp.is_identical",), ((_identical({"x": "1"}, {"x": "1"}), "True"),
                                            (_identical({"x": "1", "y": "2"}, {"x": "1"}), "False"),
                                            (_identical({"x": "1"}, {"x": "1", "y": "2"}), "False"),
                                            (_identical({"x": "1"}, {"x": "22"}), "False"),
                                            (_identical({"x": "1"}, {"x": None}), "False"),
                                            (_identical({"x": "1", "CVS": None}, {"x": "1"}), "True"),
                                            (_identical({"d": None, "d/f": "1"}, {"d": None, "d/f": "22"}),
                                             "True"))),
         symbol="dircmp"),
    Task("filecmp-delete", "fresh/filecmp.py", "delete",
         ("drop the demo() function and the if __name__ == '__main__' block at the end of filecmp, it isn't a script",
          "get rid of filecmp's demo code at the bottom (demo and the main guard that calls it)"),
         SameAst(((_DEMO, "\n"),))),
)

ZIPAPP: tuple[Task, ...] = (
    Task("zipapp-rename-local", "fresh/zipapp.py", "rename",
         ("rename first_2 to head in _copy_archive",
          "first_2 -> head (the local variable in _copy_archive)"),
         Renamed("first_2", "head"), symbol="_copy_archive"),
    Task("zipapp-comment", "fresh/zipapp.py", "comment",
         ("add a comment in get_interpreter noting that it returns None when the archive has no shebang line",
          "get_interpreter just falls off the end when there's no #! line. comment that so nobody thinks it's a bug"),
         Comment("get_interpreter"), symbol="get_interpreter"),
    Task("zipapp-fix", "fresh/zipapp.py", "fix",
         ("passing interpreter='#!/usr/bin/python3' to create_archive gives a #!#! shebang. _write_file_prefix "
          "should accept the interpreter with or without the leading #!",
          "make _write_file_prefix tolerate an interpreter that already starts with #! (don't write it twice)"),
         Behaves(("_write_file_prefix",), ((_PREFIX.format("/usr/bin/env python3"), "b'#!/usr/bin/env python3\\n'"),
                                           (_PREFIX.format("#!/usr/bin/python3"), "b'#!/usr/bin/python3\\n'"),
                                           (_PREFIX.format(None), "b''"),
                                           ("(lambda o: (m.create_archive(__import__('io').BytesIO(b'#!old\\nDATA'), "
                                            "o, interpreter='#!/bin/py'), o.getvalue())[1])"
                                            "(__import__('io').BytesIO())", "b'#!/bin/py\\nDATA'"))),
         symbol="_write_file_prefix"),
)

FRESH: tuple[Task, ...] = CMD + BASE64 + RLCOMPLETER + FILECMP + ZIPAPP + BUGS
