"""The grown part of the ``coder bench --edits`` suite: longer files, structural edits, behaviour, cross-file.

Files: CPython 3.11.7 stdlib modules (``graphlib``, ``getopt``, ``glob``, ``netrc``, ``tomllib``,
``wsgiref``) and ``packaging`` 26.4 (Apache-2.0 OR BSD-2-Clause), byte-copies listed in
``files/SOURCES.md``. Behaviour checks import the edited module in a subprocess (module ``m``).
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves, Callers
from coder.bench.edits.checks import Comment, Docstring, Hints, MethodDocstrings, Renamed, SameAst
from coder.bench.edits.taskdef import Task

_SIG = "__import__('inspect').signature(m.{}).parameters['longopts'].default"
_GETOPT_MAIN = """
if __name__ == '__main__':
    import sys
    print(getopt(sys.argv[1:], "a:b", ["alpha=", "beta"]))
"""
_GLOB01 = """# Following functions are not public but can be used by third-party code.

def glob0(dirname, pattern):
    return _glob0(dirname, pattern, None, False)

def glob1(dirname, pattern):
    return _glob1(dirname, pattern, None, False)

"""
_ESCAPE = '''def escape(pathname):
    """Escape all special characters.
    """
    # Escaping is done by wrapping any of "*?[" between square brackets.
    # Metacharacters do not work in the drive part and shouldn't be escaped.
    drive, pathname = os.path.splitdrive(pathname)
    if isinstance(pathname, bytes):
        pathname = magic_check_bytes.sub(br'[\\1]', pathname)
    else:
        pathname = magic_check.sub(r'[\\1]', pathname)
    return drive + pathname
'''
_UNICODE = """def is_unicode_scalar_value(codepoint: int) -> bool:
    return (0 <= codepoint <= 55295) or (57344 <= codepoint <= 1114111)
"""


def _netrc(host: str) -> str:
    """An expression: ``authenticators(host)`` on a netrc object holding one host, example.com."""
    return ("(lambda n: (setattr(n, 'hosts', {'example.com': ('u', None, 'p')}), "
            f"n.authenticators({host!r}))[1])(object.__new__(m.netrc))")



GROWN: tuple[Task, ...] = (
    # graphlib.py (250 lines)
    Task("graphlib-rename-method", "graphlib.py", "rename",
         ("Rename the method `_get_nodeinfo` of `TopologicalSorter` to `_node_info` everywhere in this file.",
          "rename the _get_nodeinfo method of TopologicalSorter to _node_info",
          "TopologicalSorter._get_nodeinfo -> _node_info, update every call in the file"),
         Renamed("_get_nodeinfo", "_node_info")),
    Task("graphlib-rename-class", "graphlib.py", "rename",
         ("Rename the class `_NodeInfo` to `_Node` everywhere in this file.",
          "rename the class _NodeInfo to _Node",
          "Rename _NodeInfo to _Node throughout graphlib.py"), Renamed("_NodeInfo", "_Node")),
    Task("graphlib-rename-attribute", "graphlib.py", "rename",
         ("Rename the attribute `_npassedout` of `TopologicalSorter` to `_n_passed_out` everywhere in this file.",
          "rename the _npassedout attribute of TopologicalSorter to _n_passed_out",
          "Rename self._npassedout to self._n_passed_out everywhere in the file"),
         Renamed("_npassedout", "_n_passed_out")),
    Task("graphlib-method", "graphlib.py", "method",
         ("Add a method `node_count(self)` to the class `TopologicalSorter` that returns how many nodes the "
          "graph has (every node added, predecessors included).",
          "add a node_count(self) method to TopologicalSorter that returns how many nodes the graph has, "
          "predecessors included",
          "TopologicalSorter needs a node_count method: return the number of nodes in the graph (every node added, "
          "including predecessors)"),
         Behaves(("TopologicalSorter.node_count",), (("m.TopologicalSorter({1: [2, 3]}).node_count()", "3"),
                                                     ("m.TopologicalSorter().node_count()", "0"))),
         symbol="TopologicalSorter"),
    Task("graphlib-fix", "graphlib.py", "fix",
         ("Make `TopologicalSorter.__init__` also accept the graph as an iterable of (node, predecessors) "
          "pairs, not only as a mapping.",
          "make TopologicalSorter.__init__ accept the graph as an iterable of (node, predecessors) pairs as well as "
          "a mapping",
          "TopologicalSorter([(1, [2])]) fails: the constructor should also take a list of (node, predecessors) "
          "pairs, not just a dict"),
         Behaves(("TopologicalSorter.__init__",), (
             ("list(m.TopologicalSorter([(1, [2])]).static_order())", "[2, 1]"),
             ("list(m.TopologicalSorter({1: [2]}).static_order())", "[2, 1]"),
             ("list(m.TopologicalSorter().static_order())", "[]"))),
         symbol="TopologicalSorter.__init__"),
    Task("graphlib-delete", "graphlib.py", "delete", ("Delete the method `TopologicalSorter.__bool__`.",
                                                      "delete the __bool__ method of TopologicalSorter",
                                                      "Remove __bool__ from the class TopologicalSorter"),
         SameAst((("    def __bool__(self):\n        return self.is_active()\n\n", ""),)),
         symbol="TopologicalSorter.__bool__"),
    Task("graphlib-class-docstrings", "graphlib.py", "class",
         ("Add a docstring to every method of the class `TopologicalSorter` that has none.",
          "add a docstring to every method of TopologicalSorter that doesn't have one",
          "Document the undocumented methods of the class TopologicalSorter with docstrings"),
         MethodDocstrings("TopologicalSorter"), symbol="TopologicalSorter"),
    Task("graphlib-comment", "graphlib.py", "comment",
         ("Add a comment above `for node in n2i:` in `TopologicalSorter._find_cycle` saying that it starts a "
          "depth-first search from every node.",
          "add a comment above for node in n2i: in _find_cycle saying it starts a depth-first search from every node",
          "In TopologicalSorter._find_cycle, explain the for node in n2i loop with a comment above it: a depth-first "
          "search starts from each node"),
         Comment("TopologicalSorter._find_cycle", ("for node in n2i:",)), symbol="TopologicalSorter._find_cycle"),
    # queue.py (326 lines; the first tasks use it too)
    Task("queue-method", "queue.py", "method",
         ("Add a method `clear(self)` to the class `Queue` that removes every item from the queue, holding "
          "`self.mutex`.",
          "add a clear(self) method to Queue that removes every item from the queue while holding self.mutex",
          "Queue should have a clear method: empty the queue, with self.mutex held"),
         Behaves(("Queue.clear",), (
             ("(lambda q: (q.put(1), q.put(2), q.clear(), q.qsize(), q.empty())[3:])(m.Queue())", "(0, True)"),
             ("(lambda q: (q.put(3), q.clear(), q.put(4), q.get())[3])(m.LifoQueue())", "4"))),
         symbol="Queue"),
    # getopt.py (215 lines)
    Task("getopt-rename", "getopt.py", "rename",
         ("Rename the function `long_has_args` to `long_option_info` everywhere in this file.",
          "rename long_has_args to long_option_info",
          "Rename the helper long_has_args to long_option_info (definition and calls)"),
         Renamed("long_has_args", "long_option_info")),
    Task("getopt-default", "getopt.py", "default",
         ("Change the default of `longopts` in `getopt` and `gnu_getopt` from `[]` to `None`, and handle "
          "`None` in their bodies as no long options.",
          "change the default of longopts in getopt and gnu_getopt from [] to None and treat None as no long options",
          "Don't use a mutable default: getopt and gnu_getopt should take longopts=None (None meaning no long "
          "options)"),
         Behaves(("getopt", "gnu_getopt"), (
             (_SIG.format("getopt"), "None"), (_SIG.format("gnu_getopt"), "None"),
             ("m.getopt(['-a', 'x'], 'a')", "([('-a', '')], ['x'])"),
             ("m.gnu_getopt(['x', '-a'], 'a')", "([('-a', '')], ['x'])"),
             ("m.getopt(['--beta'], '', ['beta'])", "([('--beta', '')], [])"),
             ("m.gnu_getopt(['--alpha=1'], '', 'alpha=')", "([('--alpha', '1')], [])"))),
         lines="56-147"),
    Task("getopt-extract", "getopt.py", "extract",
         ("Extract the code in `getopt` and `gnu_getopt` that turns `longopts` into a list into a new "
          "function `_longopts_list(longopts)` that returns the list, and call it from both.",
          "extract the code in getopt and gnu_getopt that turns longopts into a list into a new function "
          "_longopts_list(longopts), and call it from both",
          "getopt and gnu_getopt both convert longopts to a list the same way; move that into a helper "
          "_longopts_list(longopts) returning the list and use it in both"),
         Behaves(("getopt", "gnu_getopt", "_longopts_list"), (
             ("m._longopts_list('alpha=')", "['alpha=']"), ("m._longopts_list(('a', 'b'))", "['a', 'b']"),
             ("m.getopt(['--alpha=1', 'x'], '', 'alpha=')", "([('--alpha', '1')], ['x'])"),
             ("m.gnu_getopt(['x', '--beta'], '', ['beta'])", "([('--beta', '')], ['x'])")),
             calls=(("getopt", "_longopts_list"), ("gnu_getopt", "_longopts_list")))),
    Task("getopt-class-hints", "getopt.py", "class",
         ("Add type hints to every method of the class `GetoptError` (msg and opt are str).",
          "add type hints to every method of GetoptError (msg and opt are strings)",
          "Annotate the methods of the class GetoptError; msg and opt are str"),
         Hints("GetoptError"), symbol="GetoptError"),
    Task("getopt-delete-main", "getopt.py", "delete",
         ("Delete the `if __name__ == '__main__':` block at the end of the file.",
          "drop the if __name__ == '__main__' demo at the end of getopt.py",
          "Remove the main block at the bottom of getopt.py"),
         SameAst(((_GETOPT_MAIN, "\n"),)), lines="212-215"),
    Task("getopt-move", "getopt.py", "move",
         ("Move the function `short_has_arg` so that it comes right before `do_shorts`.",
          "move short_has_arg so it sits right before do_shorts",
          "Put the function short_has_arg directly above do_shorts"),
         SameAst((("def short_has_arg(", "def _was_here("),
                  ("def do_shorts(", "def short_has_arg(opt, shortopts):\n    for i in range(len(shortopts)):\n"
                   "        if opt == shortopts[i] != ':':\n            return shortopts.startswith(':', i+1)\n"
                   "    raise GetoptError(_('option -%s not recognized') % opt, opt)\n\ndef do_shorts("),
                  ("def _was_here(opt, shortopts):\n    for i in range(len(shortopts)):\n"
                   "        if opt == shortopts[i] != ':':\n            return shortopts.startswith(':', i+1)\n"
                   "    raise GetoptError(_('option -%s not recognized') % opt, opt)\n", "")),
                 ), lines="192-211"),
    Task("getopt-docstring", "getopt.py", "docstring",
         ("Add a docstring to the function `do_shorts` saying what it parses and returns.",
          "add a docstring to do_shorts saying what it parses and what it returns",
          "do_shorts has no docstring; write one that says what it parses and returns"),
         Docstring("do_shorts"), symbol="do_shorts"),
    # glob.py (251 lines)
    Task("glob-rename-variable", "glob.py", "rename",
         ("Rename the module variable `magic_check` to `_magic_re` everywhere in this file "
          "(not `magic_check_bytes`).",
          "rename magic_check to _magic_re everywhere in this file, but leave magic_check_bytes alone",
          "Rename the module-level regex magic_check to _magic_re (magic_check_bytes keeps its name)"),
         Renamed("magic_check", "_magic_re")),
    Task("glob-rename-function", "glob.py", "rename",
         ("Rename the function `_iterdir` to `_scandir_names` everywhere in this file.",
          "rename _iterdir to _scandir_names",
          "Change the name of _iterdir to _scandir_names and fix its callers"),
         Renamed("_iterdir", "_scandir_names")),
    Task("glob-callers", "glob.py", "callers",
         ("Add a parameter `include_hidden=True` to `_listdir`: when it is false, leave out names that "
          "`_ishidden` says are hidden. Pass `include_hidden=include_hidden` at its calls in `_glob1` and "
          "`_rlistdir`.",
          "add an include_hidden=True parameter to _listdir; when it's false, leave out the names _ishidden says are "
          "hidden. pass include_hidden=include_hidden where _glob1 and _rlistdir call it",
          "_listdir should skip hidden names unless include_hidden (new parameter, default True); update its calls "
          "in _glob1 and _rlistdir to pass include_hidden=include_hidden"),
         Callers("_listdir", "include_hidden", True, "include_hidden=include_hidden"),
         lines="105-189"),
    Task("glob-fix", "glob.py", "fix",
         ("Make `_ishidden` return False for an empty path instead of raising IndexError.",
          "_ishidden crashes with IndexError on an empty path; it should just return False",
          "Fix _ishidden: _ishidden('') raises IndexError, it should return False"),
         Behaves(("_ishidden",), (("m._ishidden('')", "False"), ("m._ishidden(b'')", "False"),
                                  ("m._ishidden('.a')", "True"), ("m._ishidden(b'.a')", "True"),
                                  ("m._ishidden('a')", "False"))), symbol="_ishidden"),
    Task("glob-move", "glob.py", "move", ("Move the function `escape` so that it comes right after `iglob`.",
                                          "move escape so it comes right after iglob",
                                          "Reorder glob.py: the function escape should come directly after iglob"),
         SameAst(((_ESCAPE, ""), ("def _iglob(", _ESCAPE + "\ndef _iglob("))), lines="31-248"),
    Task("glob-delete", "glob.py", "delete",
         ("Delete the functions `glob0` and `glob1` and the comment line above them.",
          "delete glob0 and glob1 and the comment line above them",
          "Get rid of the legacy helpers glob0 and glob1, together with the comment that introduces them"),
         SameAst(((_GLOB01, ""),)), lines="122-129"),
    Task("glob-hints", "glob.py", "hints",
         ("Add type hints to `_join`: dirname and basename are str and it returns str.",
          "_join takes two str (dirname, basename) and returns a str, add the type hints",
          "Annotate _join (dirname: str, basename: str) -> str"),
         Hints("_join"), symbol="_join"),
    # netrc.py (192 lines)
    Task("netrc-class-hints", "netrc.py", "class",
         ("Add type hints to every method of the class `NetrcParseError`.",
          "add type hints to every method of NetrcParseError",
          "Type-annotate the methods of the class NetrcParseError"),
         Hints("NetrcParseError"), symbol="NetrcParseError"),
    Task("netrc-class-docstrings", "netrc.py", "class",
         ("Add a docstring to every method of the class `_netrclex`.",
          "add a docstring to every method of _netrclex",
          "Each method of the class _netrclex should get a docstring"),
         MethodDocstrings("_netrclex"), symbol="_netrclex"),
    Task("netrc-fix", "netrc.py", "fix",
         ("Make `netrc.authenticators` find the host case-insensitively (host names are not case-sensitive).",
          "make netrc.authenticators look up the host case-insensitively",
          "authenticators('Example.COM') returns None even though example.com is in the file: host names aren't "
          "case-sensitive, fix the lookup"),
         Behaves(("netrc.authenticators",), ((_netrc("Example.COM"), "('u', None, 'p')"),
                                             (_netrc("example.com"), "('u', None, 'p')"),
                                             (_netrc("other.org"), "None"))),
         symbol="netrc.authenticators"),
    Task("netrc-comment", "netrc.py", "comment",
         ("Add a comment above `if ch == '\"':` in `_netrclex.get_token` saying that a quoted token may "
          "hold whitespace.",
          "in _netrclex.get_token, put a comment over the if ch == '\"': line explaining that quoted tokens may "
          "contain whitespace",
          "In get_token of the class _netrclex, explain the quote branch (if ch == '\"':) with a comment above it: "
          "quoted tokens can contain whitespace"),
         Comment("_netrclex.get_token", ("if ch == '\"':",)), symbol="_netrclex.get_token"),
    # wsgiref/handlers.py (570 lines)
    Task("handlers-rename-attribute", "wsgiref/handlers.py", "rename",
         ("Rename the attribute `bytes_sent` to `sent_length` everywhere in this file.",
          "rename bytes_sent to sent_length everywhere in this file",
          "Rename the bytes_sent attribute to sent_length (every use)"),
         Renamed("bytes_sent", "sent_length")),
    Task("handlers-rename-class", "wsgiref/handlers.py", "rename",
         ("Rename the class `BaseCGIHandler` to `CGIBaseHandler` everywhere in this file.",
          "rename BaseCGIHandler to CGIBaseHandler",
          "Rename the class BaseCGIHandler to CGIBaseHandler, including where other classes subclass it"),
         Renamed("BaseCGIHandler", "CGIBaseHandler")),
    Task("handlers-docstring", "wsgiref/handlers.py", "docstring",
         ("Add a docstring to the method `SimpleHandler._write` saying what it does on a partial write.",
          "add a docstring to SimpleHandler._write saying what it does on a partial write",
          "Document the _write method of SimpleHandler: what happens when only part of the data is written"),
         Docstring("SimpleHandler._write"), symbol="SimpleHandler._write"),
    # tomllib/_parser.py (691 lines)
    Task("toml-rename-variable", "tomllib/_parser.py", "rename",
         ("Rename the module constant `ASCII_CTRL` to `ASCII_CONTROL_CHARS` everywhere in this file.",
          "rename the constant ASCII_CTRL to ASCII_CONTROL_CHARS",
          "ASCII_CTRL -> ASCII_CONTROL_CHARS, rename it and every use in the parser"),
         Renamed("ASCII_CTRL", "ASCII_CONTROL_CHARS")),
    Task("toml-rename-function", "tomllib/_parser.py", "rename",
         ("Rename the function `skip_comment` to `skip_one_comment` everywhere in this file.",
          "rename skip_comment to skip_one_comment everywhere in this file",
          "Rename the function skip_comment to skip_one_comment and update its call sites"),
         Renamed("skip_comment", "skip_one_comment")),
    Task("toml-docstring", "tomllib/_parser.py", "docstring",
         ("Add a docstring to the function `skip_comment` saying what it returns.",
          "add a docstring to skip_comment saying what it returns",
          "skip_comment needs a docstring describing its return value"),
         Docstring("skip_comment"), symbol="skip_comment"),
    # packaging/_parser.py (507 lines)
    Task("packaging-rename", "packaging/_parser.py", "rename",
         ("Rename the function `_parse_marker_op` to `_parse_marker_operator` everywhere in this file.",
          "rename _parse_marker_op to _parse_marker_operator",
          "Rename the function _parse_marker_op to _parse_marker_operator throughout the file"),
         Renamed("_parse_marker_op", "_parse_marker_operator")),
    Task("packaging-docstring", "packaging/_parser.py", "docstring",
         ("Add a docstring to the function `process_env_var` saying what it maps.",
          "add a docstring to process_env_var saying what it maps",
          "Write a docstring for process_env_var that says what it maps to what"),
         Docstring("process_env_var"), symbol="process_env_var"),
    # cross-file: the request names the first file, the others are edited too
    Task("xfile-toml-rename", "tomllib/_re.py", "cross-file",
         ("Rename the function `match_to_number` to `number_from_match` in tomllib/_re.py and everywhere it "
          "is used in tomllib/_parser.py.",
          "rename match_to_number to number_from_match in tomllib/_re.py and everywhere it's used in "
          "tomllib/_parser.py",
          "Rename the function match_to_number (tomllib/_re.py) to number_from_match, and update its uses in "
          "tomllib/_parser.py"), Renamed("match_to_number", "number_from_match"),
         also=(("tomllib/_parser.py", Renamed("match_to_number", "number_from_match")),)),
    Task("xfile-toml-constant", "tomllib/_re.py", "cross-file",
         ("Rename the constant `RE_NUMBER` to `NUMBER_RE` in tomllib/_re.py and everywhere it is used in "
          "tomllib/_parser.py.",
          "rename the constant RE_NUMBER to NUMBER_RE in tomllib/_re.py and wherever tomllib/_parser.py uses it",
          "RE_NUMBER should be called NUMBER_RE: rename it in tomllib/_re.py and in tomllib/_parser.py"),
         Renamed("RE_NUMBER", "NUMBER_RE"),
         also=(("tomllib/_parser.py", Renamed("RE_NUMBER", "NUMBER_RE")),)),
    Task("xfile-toml-move", "tomllib/_parser.py", "cross-file",
         ("Move the function `is_unicode_scalar_value` from tomllib/_parser.py to the end of tomllib/_re.py, "
          "and import it in tomllib/_parser.py as the last name of the `from ._re import (...)` list.",
          "move is_unicode_scalar_value from tomllib/_parser.py to the end of tomllib/_re.py and import it in "
          "tomllib/_parser.py as the last name in the from ._re import (...) list",
          "is_unicode_scalar_value belongs in tomllib/_re.py: move it to the end of that file and add it as the last "
          "name of the from ._re import (...) list in tomllib/_parser.py"),
         SameAst((("\n\n" + _UNICODE, ""), ("    match_to_number,\n)", "    match_to_number,\n"
                                                                       "    is_unicode_scalar_value,\n)"))),
         also=(("tomllib/_re.py", SameAst((("    return int(match.group(), 0)\n",
                                             "    return int(match.group(), 0)\n\n\n" + _UNICODE),))),)),
    Task("xfile-wsgiref-function", "wsgiref/util.py", "cross-file",
         ("Rename the function `is_hop_by_hop` to `is_hop_by_hop_header` in wsgiref/util.py and everywhere it "
          "is used in wsgiref/handlers.py.",
          "rename is_hop_by_hop to is_hop_by_hop_header in wsgiref/util.py and everywhere wsgiref/handlers.py uses "
          "it",
          "Rename wsgiref/util.py's is_hop_by_hop to is_hop_by_hop_header, updating the callers in "
          "wsgiref/handlers.py"), Renamed("is_hop_by_hop", "is_hop_by_hop_header"),
         also=(("wsgiref/handlers.py", Renamed("is_hop_by_hop", "is_hop_by_hop_header")),)),
    Task("xfile-wsgiref-class", "wsgiref/util.py", "cross-file",
         ("Rename the class `FileWrapper` to `FileStreamWrapper` in wsgiref/util.py and everywhere it is used "
          "in wsgiref/handlers.py.",
          "rename the FileWrapper class to FileStreamWrapper in wsgiref/util.py and everywhere in "
          "wsgiref/handlers.py",
          "FileWrapper -> FileStreamWrapper in wsgiref/util.py, and fix the references in wsgiref/handlers.py"),
         Renamed("FileWrapper", "FileStreamWrapper"),
         also=(("wsgiref/handlers.py", Renamed("FileWrapper", "FileStreamWrapper")),)),
    Task("xfile-packaging-class", "packaging/_tokenizer.py", "cross-file",
         ("Rename the class `Tokenizer` to `TokenStream` in packaging/_tokenizer.py and everywhere it is used "
          "in packaging/_parser.py.",
          "rename Tokenizer to TokenStream in packaging/_tokenizer.py and everywhere packaging/_parser.py uses it",
          "Rename the class Tokenizer (packaging/_tokenizer.py) to TokenStream and update packaging/_parser.py to "
          "match"), Renamed("Tokenizer", "TokenStream"),
         also=(("packaging/_parser.py", Renamed("Tokenizer", "TokenStream")),)),
    Task("xfile-packaging-method", "packaging/_tokenizer.py", "cross-file",
         ("Rename the method `Tokenizer.raise_syntax_error` to `syntax_error` in packaging/_tokenizer.py and "
          "at every call in packaging/_parser.py.",
          "rename the raise_syntax_error method of Tokenizer to syntax_error in packaging/_tokenizer.py and at every "
          "call in packaging/_parser.py",
          "Rename Tokenizer.raise_syntax_error to syntax_error; packaging/_parser.py calls it in many places, update "
          "them all"), Renamed("raise_syntax_error", "syntax_error"),
         also=(("packaging/_parser.py", Renamed("raise_syntax_error", "syntax_error")),)),
    Task("xfile-packaging-constant", "packaging/_tokenizer.py", "cross-file",
         ("Rename the constant `DEFAULT_RULES` to `TOKEN_RULES` in packaging/_tokenizer.py and everywhere it "
          "is used in packaging/_parser.py.",
          "rename DEFAULT_RULES to TOKEN_RULES in packaging/_tokenizer.py and everywhere packaging/_parser.py uses "
          "it",
          "Change the name of the DEFAULT_RULES constant to TOKEN_RULES, in packaging/_tokenizer.py and in "
          "packaging/_parser.py"), Renamed("DEFAULT_RULES", "TOKEN_RULES"),
         also=(("packaging/_parser.py", Renamed("DEFAULT_RULES", "TOKEN_RULES")),)),
)
