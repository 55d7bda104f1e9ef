"""The held-out set of ``coder bench --edits --set heldout``: tasks nobody tuning coder's reading wrote or saw.

Issue 34 asks for the correct rate on "tasks that nobody here wrote, worded as users word them".
The suite's tasks (:mod:`coder.bench.edits.tasks`) were written next to the instruction reader they
measure; these were written without reading ``coder/edit/``, on six CPython 3.11.7 modules the
suite does not use (``reprlib``, ``quopri``, ``string``, ``copy``, ``tabnanny``, ``timeit``; shipped
under ``files/heldout/``, ``files/SOURCES.md`` lists them). Each task has two wordings as people type
them into an assistant: plain names, lowercase, terse or chatty, commit-message style. Nothing here
may be tuned on: a reading rule written to pass one of these wordings turns the set into the suite.

The bug tasks run on a copy with one bug put in by hand (``files/heldout/bugs/``) and are judged by
calling the code (:class:`~coder.bench.edits.behaviour.Behaves`); the rest reuse the suite's checks.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves, Callers
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task

_REPR_PIECES = """            pieces = [repr1(elem, newlevel) for elem in islice(x, maxiter)]
            if n > maxiter:
                pieces.append(self.fillvalue)
            s = ', '.join(pieces)
"""
_REPR_ARRAY = """    def repr_array(self, x, level):
        if not x:
            return "array('%s')" % x.typecode
        header = "array('%s', [" % x.typecode
        return self._repr_iterable(x, level, header, '])', self.maxarray)

"""
_IS_VALID = """    def is_valid(self):
        for mo in self.pattern.finditer(self.template):
            if mo.group('invalid') is not None:
                return False
            if (mo.group('named') is None
                and mo.group('braced') is None
                and mo.group('escaped') is None):
                # If all the groups are None, there must be
                # another group we're not expecting
                raise ValueError('Unrecognized named group in pattern',
                    self.pattern)
        return True

"""
_CAPWORDS = '''def capwords(s, sep=None):
    """capwords(s [,sep]) -> string

    Split the argument into words using split, capitalize each
    word using capitalize, and join the capitalized words using
    join.  If the optional second argument sep is absent or None,
    runs of whitespace characters are replaced by a single space
    and leading and trailing whitespace are removed, otherwise
    sep is used to split and join the words.

    """
    return (sep or ' ').join(map(str.capitalize, s.split(sep)))
'''
_REINDENT = '''def reindent(src, indent):
    """Helper to reindent a multi-line statement."""
    return src.replace("\\n", "\\n" + " " * indent)


'''
# a Repr with a few limits changed, then reset: the limits __init__ sets
_RESET = ("(lambda r: (setattr(r, 'maxlist', 1), setattr(r, 'maxstring', 3), setattr(r, 'fillvalue', '+'), "
          "r.reset(), (r.maxlist, r.maxstring, r.fillvalue, r.maxlevel))[4])(m.Repr())")
_NEW = "type('{}', (), {})()"  # a fresh instance of a plain class, for copy's state tests
_QP_PURE = "(setattr(m, 'a2b_qp', None), m.decodestring({}))[1]"  # decode without binascii: quopri's own loop


REPRLIB: tuple[Task, ...] = (
    Task("reprlib-rename-local", "heldout/reprlib.py", "rename",
         ("in _repr_iterable rename the local variable pieces to parts, only inside that method (repr_dict keeps "
          "its own pieces)",
          "pieces -> parts in Repr._repr_iterable. don't touch the other methods"),
         SameAst(((_REPR_PIECES, _REPR_PIECES.replace("pieces", "parts")),)), symbol="Repr._repr_iterable"),
    Task("reprlib-docstring", "heldout/reprlib.py", "docstring",
         ("the Repr class has no docstring, can you add one explaining what it does and what the max* attributes "
          "are for",
          "docstring for class Repr please"),
         Docstring("Repr"), symbol="Repr"),
    Task("reprlib-method", "heldout/reprlib.py", "method",
         ("add a reset() method to Repr that puts all the limits (maxlist, maxstring, fillvalue etc) back to "
          "their defaults",
          "I keep tweaking maxlevel/maxlist on a Repr object and want a way back. give Repr a reset method that "
          "restores the values __init__ sets"),
         Behaves(("Repr.reset",), ((_RESET, "(6, 30, '...', 6)"),
                                   ("(lambda r: (r.reset(), r.repr(list(range(9))))[1])(m.Repr())",
                                    "'[0, 1, 2, 3, 4, 5, ...]'"))),
         symbol="Repr"),
    Task("reprlib-comment", "heldout/reprlib.py", "comment",
         ("add a comment above the if ' ' in typename: line in repr1 explaining why spaces in the type name get "
          "replaced",
          "explain with a comment in repr1 why the type name is split and joined with underscores"),
         Comment("Repr.repr1"), symbol="Repr.repr1"),
    Task("reprlib-delete", "heldout/reprlib.py", "delete",
         ("get rid of repr_array in Repr, we never format arrays",
          "remove the repr_array method from the Repr class"),
         SameAst(((_REPR_ARRAY, ""),)), symbol="Repr.repr_array"),
)

QUOPRI: tuple[Task, ...] = (
    Task("quopri-rename", "heldout/quopri.py", "rename",
         ("rename ishex to is_hex_digit everywhere",
          "ishex is a cryptic name, call it is_hex_digit (and update the calls in decode)"),
         Renamed("ishex", "is_hex_digit")),
    Task("quopri-hints", "heldout/quopri.py", "hints",
         ("add type hints to unhex: it takes bytes and returns an int",
          "type-annotate unhex(s) -> int, s is bytes"),
         Hints("unhex"), symbol="unhex"),
    Task("quopri-docstring", "heldout/quopri.py", "docstring",
         ("write a docstring for encodestring",
          "encodestring needs a docstring (what it takes and what it returns; quotetabs and header mean the same "
          "as in encode)"),
         Docstring("encodestring"), symbol="encodestring"),
    Task("quopri-comment", "heldout/quopri.py", "comment",
         ("at the top of decode, add a comment saying the pure-python loop further down only runs when binascii "
          "has no a2b_qp",
          "put a comment at the start of decode's body noting that the line-by-line loop is just a fallback for "
          "when binascii.a2b_qp is missing"),
         Comment("decode", ("if a2b_qp is not None:",)), symbol="decode"),
    Task("quopri-param", "heldout/quopri.py", "param",
         ("let quote take a lowercase=False flag that makes it emit lowercase hex (=ff instead of =FF)",
          "quote(): optional lowercase argument, default False; when it's true the two hex digits come out in "
          "lower case"),
         Behaves(("quote",), (("m.quote(b'\\xff')", "b'=FF'"), ("m.quote(b'\\xff', lowercase=True)", "b'=ff'"),
                              ("m.quote(b'\\n', lowercase=True)", "b'=0a'"), ("m.quote(b'=')", "b'=3D'"))),
         symbol="quote"),
)

STRING: tuple[Task, ...] = (
    Task("string-rename-local", "heldout/string.py", "rename",
         ("in Template._invalid rename i to start",
          "_invalid of Template: the variable i should be called start"),
         SameAst((("        i = mo.start('invalid')\n        lines = self.template[:i]",
                   "        start = mo.start('invalid')\n        lines = self.template[:start]"),
                  ("            colno = i - len(", "            colno = start - len("))),
         symbol="Template._invalid"),
    Task("string-comment", "heldout/string.py", "comment",
         ("add a comment above the return in capwords saying that split(None) also drops leading and trailing "
          "whitespace",
          "capwords: comment the return line, note that with sep=None runs of whitespace collapse into one space"),
         Comment("capwords", near=("return (sep or ' ').join(map(str.capitalize, s.split(sep)))",)), symbol="capwords"),
    Task("string-method", "heldout/string.py", "method",
         ("give Template a __repr__ so printing one shows Template('hello $name') instead of <string.Template "
          "object at 0x...>",
          "add __repr__ to the Template class, format: Template(<repr of the template string>)"),
         Behaves(("Template.__repr__",), (("repr(m.Template('hi $who'))", "\"Template('hi $who')\""),
                                          ("repr(m.Template(''))", "\"Template('')\""),
                                          ("m.Template('$a').substitute(a=1)", "'1'"))),
         symbol="Template"),
    Task("string-delete", "heldout/string.py", "delete",
         ("delete Template.is_valid, nobody calls it",
          "get rid of the is_valid method of Template"),
         SameAst(((_IS_VALID, ""),)), symbol="Template.is_valid"),
    Task("string-move", "heldout/string.py", "move",
         ("move capwords to the bottom of the file, after the Formatter class",
          "capwords should come last in string.py, put it after Formatter"),
         SameAst(((_CAPWORDS, ""), ("        return obj, first\n", "        return obj, first\n\n\n" + _CAPWORDS)))),
)

COPY: tuple[Task, ...] = (
    Task("copy-rename", "heldout/copy.py", "rename",
         ("rename _reconstruct to _rebuild everywhere",
          "_reconstruct -> _rebuild (the definition and the calls in copy and deepcopy)"),
         Renamed("_reconstruct", "_rebuild")),
    Task("copy-docstring", "heldout/copy.py", "docstring",
         ("add a docstring to _reconstruct explaining its arguments (they come from __reduce_ex__)",
          "document _reconstruct with a docstring"),
         Docstring("_reconstruct"), symbol="_reconstruct"),
    Task("copy-extract", "heldout/copy.py", "extract",
         ("pull the part of _reconstruct that puts state onto y (the __setstate__ / __dict__ / slots handling) "
          "out into a helper _apply_state(y, state) and call it from _reconstruct. keep the deepcopy of state "
          "where it is",
          "Extract _apply_state(y, state) from _reconstruct: everything that applies state to the new object "
          "goes there"),
         Behaves(("_reconstruct", "_apply_state"), (
             (f"(lambda o: (m._apply_state(o, {{'a': 1}}), o.a)[1])({_NEW.format('O', {})})", "1"),
             (f"(lambda o: (m._apply_state(o, (None, {{'b': 2}})), o.b)[1])({_NEW.format('S', {'__slots__': ('b',)})})",
              "2"),
             (f"(lambda o: (setattr(o, 'x', [1]), (lambda c: (c.x, c.x is o.x))(m.deepcopy(o)))[1])"
              f"({_NEW.format('C', {})})", "([1], False)"),
             (f"(lambda o: (setattr(o, 'x', [1]), m.copy(o).x is o.x)[1])({_NEW.format('C', {})})", "True"),
             # its items, not its repr: OrderedDict's repr differs between Python 3.11 and 3.12 (the H200's)
             ("(lambda d: (type(d).__name__, list(d.items())))(m.deepcopy(__import__('collections').OrderedDict("
              "a=[1])))", "('OrderedDict', [('a', [1])])")),
             calls=(("_reconstruct", "_apply_state"),))),
    Task("copy-hints", "heldout/copy.py", "hints",
         ("add type hints to _keep_alive (x can be anything, memo is the dict deepcopy passes around, returns None)",
          "type hints for _keep_alive please"),
         Hints("_keep_alive"), symbol="_keep_alive"),
)

TABNANNY: tuple[Task, ...] = (
    Task("tabnanny-hints-all", "heldout/tabnanny.py", "hints",
         ("add type hints to all of NannyNag's methods (lineno is an int, msg and line are str)",
          "annotate every method in the NannyNag class"),
         Hints("NannyNag"), symbol="NannyNag"),
    Task("tabnanny-rename", "heldout/tabnanny.py", "rename",
         ("rename format_witnesses to describe_witnesses",
          "format_witnesses -> describe_witnesses, both calls in process_tokens too"),
         Renamed("format_witnesses", "describe_witnesses")),
    Task("tabnanny-rename-method", "heldout/tabnanny.py", "rename",
         ("rename the less method of Whitespace to less_than and update the call in process_tokens",
          "Whitespace.less -> less_than"),
         Renamed("less", "less_than")),
    Task("tabnanny-docstring", "heldout/tabnanny.py", "docstring",
         ("Whitespace has a big comment block describing its members, turn it into a proper class docstring",
          "add a docstring to the Whitespace class saying what it represents (the leading whitespace of a line, "
          "normalised)"),
         Docstring("Whitespace"), symbol="Whitespace"),
    Task("tabnanny-method", "heldout/tabnanny.py", "method",
         ("add an is_mixed method to Whitespace that returns True when the leading whitespace has both tabs and "
          "spaces",
          "Whitespace needs is_mixed(self) -> bool: does the indentation mix tabs and spaces?"),
         Behaves(("Whitespace.is_mixed",), (("m.Whitespace('\\t  ').is_mixed()", "True"),
                                            ("m.Whitespace('  \\tx = 1').is_mixed()", "True"),
                                            ("m.Whitespace('    ').is_mixed()", "False"),
                                            ("m.Whitespace('\\t\\t').is_mixed()", "False"),
                                            ("m.Whitespace('').is_mixed()", "False"),
                                            ("m.Whitespace('\\tx = 1').is_mixed()", "False"))),
         symbol="Whitespace"),
    Task("tabnanny-comment", "heldout/tabnanny.py", "comment",
         ("add a comment above if not indents[-1].less(thisguy): in process_tokens explaining that a new indent "
          "must be deeper than the previous one at every tab size",
          "in process_tokens, comment the INDENT branch's check: the new indentation has to be strictly greater "
          "than the enclosing one for all tab sizes"),
         Comment("process_tokens", near=("if not indents[-1].less(thisguy):",)), symbol="process_tokens"),
)

TIMEIT: tuple[Task, ...] = (
    Task("timeit-param", "heldout/timeit.py", "callers",
         ("reindent should take the fill character as a parameter too: add char=' ' and use it instead of the "
          "hard-coded space. have both calls in Timer.__init__ pass char=' ' explicitly",
          "add a char parameter (default ' ') to reindent, used for the indentation, and pass char=' ' from the "
          "two places that call it"),
         Callers("reindent", "char", " ", "char=' '")),
    Task("timeit-behaviour", "heldout/timeit.py", "fix",
         ("make Timer.repeat return the timings sorted, fastest first",
          "repeat() should hand back its list of results in ascending order so that r[0] is the best time"),
         Behaves(("Timer.repeat",), (("m.Timer(timer=iter([0, 3, 0, 1, 0, 2]).__next__).repeat(3, 1)", "[1, 2, 3]"),
                                     ("m.repeat(timer=iter([0, 5, 0, 4]).__next__, repeat=2, number=1)", "[4, 5]"),
                                     ("m.Timer(timer=iter([0, 1]).__next__).repeat(1, 1)", "[1]"))),
         symbol="Timer.repeat"),
    Task("timeit-move", "heldout/timeit.py", "move",
         ("move reindent so that it comes right after the Timer class",
          "reindent belongs below Timer, move it there (just before the module-level timeit function)"),
         SameAst(((_REINDENT, ""), ("            i *= 10\n\n\n", "            i *= 10\n\n\n" + _REINDENT)))),
)

BUGS: tuple[Task, ...] = (
    Task("bug-reprlib-fill", "heldout/bugs/reprlib.py", "bugfix",
         ("reprlib.repr([1, 2, 3, 4, 5, 6]) prints '[1, 2, 3, 4, 5, 6, ...]' even though nothing got cut off. "
          "the ... should only show up when items were actually dropped",
          "Fix off-by-one in reprlib: a list with exactly maxlist items gets a trailing ..."),
         Behaves(("Repr._repr_iterable",), (("m.repr([1, 2, 3, 4, 5, 6])", "'[1, 2, 3, 4, 5, 6]'"),
                                            ("m.repr(list(range(7)))", "'[0, 1, 2, 3, 4, 5, ...]'"),
                                            ("m.repr((1,))", "'(1,)'"),
                                            ("m.repr(set(range(6)))", "'{0, 1, 2, 3, 4, 5}'"))),
         symbol="Repr._repr_iterable"),
    Task("bug-quopri-unhex", "heldout/bugs/quopri.py", "bugfix",
         ("decoding quoted-printable with lowercase hex is broken when binascii isn't used: unhex(b'ff') returns "
          "85 instead of 255",
          "Fix unhex: lowercase digits a-f give wrong values (uppercase works)"),
         Behaves(("unhex",), (("m.unhex(b'ff')", "255"), ("m.unhex(b'1a')", "26"), ("m.unhex(b'FF')", "255"),
                              ("m.unhex(b'09')", "9"), (_QP_PURE.format("b'caf=c3=a9'"), "b'caf\\xc3\\xa9'"))),
         symbol="unhex"),
    Task("bug-string-capwords", "heldout/bugs/string.py", "bugfix",
         ("capwords ignores sep when joining: capwords('hello-world', '-') gives 'Hello World' instead of "
          "'Hello-World'",
          "Fix capwords: words should be joined back with sep when one is given, not with a space"),
         Behaves(("capwords",), (("m.capwords('hello-world', '-')", "'Hello-World'"),
                                 ("m.capwords('  aBc  dEf ')", "'Abc Def'"),
                                 ("m.capwords('a,b,,c', ',')", "'A,B,,C'"))),
         symbol="capwords"),
    Task("bug-copy-dict", "heldout/bugs/copy.py", "bugfix",
         ("deepcopy of a dict doesn't copy the values: after e = deepcopy({'a': [1]}), e['a'] is still the same "
          "list as the original",
          "Fix deepcopy for dicts: nested lists/dicts inside a dict are shared with the original instead of "
          "copied"),
         Behaves(("_deepcopy_dict",), (("(lambda d: m.deepcopy(d)['a'] is d['a'])({'a': [1]})", "False"),
                                       ("(lambda d: (m.deepcopy(d)['a'].append(2), d)[1])({'a': [1]})", "{'a': [1]}"),
                                       ("m.deepcopy({'k': (1, 2)})", "{'k': (1, 2)}"),
                                       ("(lambda d: (d.__setitem__('me', d), (lambda e: e['me'] is e)(m.deepcopy(d)))"
                                        "[1])({})", "True"))),
         symbol="_deepcopy_dict"),
    Task("bug-tabnanny-level", "heldout/bugs/tabnanny.py", "bugfix",
         ("Whitespace('\\t').indent_level(8) gives 1 but a tab at tab size 8 is 8 columns",
          "tabnanny's indent_level is wrong whenever there are tabs, the tab count isn't multiplied by the tab "
          "size"),
         Behaves(("Whitespace.indent_level",), (("m.Whitespace('\\t').indent_level(8)", "8"),
                                                ("m.Whitespace('  \\t').indent_level(4)", "4"),
                                                ("m.Whitespace('\\t  ').indent_level(4)", "6"),
                                                ("m.Whitespace('    ').indent_level(8)", "4"),
                                                ("m.Whitespace('        \\t').indent_level(4)", "12"))),
         symbol="Whitespace.indent_level"),
    Task("bug-timeit-reindent", "heldout/bugs/timeit.py", "bugfix",
         ("multi-line statements break timeit: Timer('x = 1\\ny = 2') raises IndentationError",
          "Fix reindent, it indents continuation lines one space short"),
         Behaves(("reindent",), (("m.reindent('a\\nb', 4)", "'a\\n    b'"), ("m.reindent('x', 8)", "'x'"),
                                 ("type(m.Timer('x = 1\\ny = x').timeit(3)).__name__", "'float'"),
                                 ("type(m.Timer('pass', 'a = 1\\nb = 2').timeit(1)).__name__", "'float'"))),
         symbol="reindent"),
)

HELDOUT: tuple[Task, ...] = REPRLIB + QUOPRI + STRING + COPY + TABNANNY + TIMEIT + BUGS
