"""The tenth fresh set of ``coder bench --edits --set fresh10``: the unseen measure once the ninth fresh set exists.

The suite, the held-out set and the nine fresh sets (:mod:`coder.bench.edits.tasks_fresh` to
:mod:`coder.bench.edits.tasks_fresh9`) may all have been read by the people tuning coder's instruction reader, so
none of them can be trusted to measure how coder does on wordings nobody tuned for. These tasks were written on
2026-12-05 by someone who had not read ``coder/edit/``, coder's CLI (other than ``coder/cli/bench_edits.py``, to
register the set), the benchmark pages or any bench result, on five CPython 3.11.7 modules no other set uses
(``secrets``, ``_markupbase``, ``random``, ``optparse``, ``difflib``; shipped under ``files/fresh10/``,
``files/SOURCES.md`` lists them). Each task has two wordings, typed once the way two different people would type
the request into an assistant, and never tried on coder or a model (nor on coder's planner). Nothing may be tuned
on this set (no reading rule, prompt or repair written to pass one of its tasks), or it becomes one more suite.
Its first run is still to be recorded.

The bug tasks are in :mod:`coder.bench.edits.tasks_fresh10_bugs`; the rest reuse the suite's checks, and a
change of behaviour is judged by calling the code (:class:`~coder.bench.edits.behaviour.Behaves`). A new public
function of a module with an ``__all__`` may be listed there or not (:class:`Exported`). No case starts a process,
opens a socket or reads a file but the module's own; the random cases draw from seeded generators, or from the
system's source only where every outcome they accept is certain but for odds below 2**-100.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks_fresh10_bugs import BUGS, PARSED, span


def _all_of(tree: ast.Module) -> ast.Assign | None:
    """The module-level ``__all__ = [...]`` of ``tree``."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "__all__"):
            return node
    return None


@dataclass(frozen=True)
class Exported:
    """``check`` on the new file, which may also list the new public ``names`` in ``__all__`` (or not): where its
    ``__all__`` is the original's plus some of ``names``, the original's is put back before ``check`` judges it."""

    check: Behaves
    names: tuple[str, ...]

    def __call__(self, old: str, new: str) -> tuple[bool, str]:
        """The wrapped check, ``__all__`` free for ``names``."""
        try:
            was, now = _all_of(ast.parse(old)), _all_of(ast.parse(new))
        except SyntaxError:
            return False, "does not parse"
        if was is not None and now is not None:
            try:
                before, after = ast.literal_eval(was.value), ast.literal_eval(now.value)
            except ValueError:
                before, after = None, None
            if (isinstance(before, list | tuple) and isinstance(after, list | tuple)
                    and list(before) == [n for n in after if n not in self.names]):
                lines = new.splitlines(keepends=True)
                original = "".join(old.splitlines(keepends=True)[was.lineno - 1:was.end_lineno])
                new = "".join([*lines[:now.lineno - 1], original, *lines[now.end_lineno or now.lineno:]])
        return self.check(old, new)


SECRETS: tuple[Task, ...] = (
    Task("secrets-hints", "fresh10/secrets.py", "hints",
         ("add type hints to secrets.token_hex: nbytes is an int or None, and it returns a str",
          "Our strict mypy run complains that token_hex in secrets.py is untyped. Can you annotate its parameter "
          "(an optional int that defaults to None) and its return type? Don't touch the other token functions."),
         Hints("token_hex"), symbol="token_hex"),
    Task("secrets-function", "fresh10/secrets.py", "function",
         ("We keep writing secrets.randbelow(hi - lo + 1) + lo all over our code base. Please add a randint(a, b) "
          "function to the secrets module that returns a secure random integer N with a <= N <= b, both ends "
          "included, like random.randint but drawn from the system's source. If b is smaller than a it should "
          "raise ValueError.",
          "secrets: new function randint(a, b) -> int in [a, b] inclusive, built on randbelow; ValueError when b < a"),
         Exported(Behaves(("randint",), (
             ("m.randint(3, 3)", "3"),
             ("all(2 <= m.randint(2, 5) <= 5 for _ in range(300))", "True"),
             ("sorted({m.randint(0, 2) for _ in range(300)})", "[0, 1, 2]"),
             ("sorted({m.randint(-2, -1) for _ in range(300)})", "[-2, -1]"),
             ("m.randint(5, 4)", "raised ValueError"),
             ("type(m.randint(0, 10**30)).__name__", "'int'"),
             ("10**20 <= m.randint(10**20, 10**20 + 1) <= 10**20 + 1", "True"))), ("randint",))),
    Task("secrets-rename", "fresh10/secrets.py", "rename",
         ("rename DEFAULT_ENTROPY in secrets.py to DEFAULT_NBYTES (it's a byte count, not entropy in bits)",
          "The constant called DEFAULT_ENTROPY in the secrets module is misleading: it is the number of bytes "
          "token_bytes uses when you don't pass nbytes. Could you call it DEFAULT_NBYTES instead, everywhere it's "
          "used?"),
         Renamed("DEFAULT_ENTROPY", "DEFAULT_NBYTES")),
    Task("secrets-comment", "fresh10/secrets.py", "comment",
         ("In secrets.token_urlsafe, please add a comment above the return line explaining why the = padding is "
          "stripped off the base64 output.",
          "token_urlsafe: comment on the rstrip(b'=') line -- padding is dropped so the token can go into a URL "
          "without escaping"),
         Comment("token_urlsafe", above=("return base64.urlsafe_b64encode(tok).rstrip(b'=').decode('ascii')",)),
         symbol="token_urlsafe"),
)

MS_CLOSE = "_msmarkedsectionclose = re.compile(r']\\s*>')\n"
MS_BRANCH = ('        elif sectName in {"if", "else", "endif"}:\n            # look for MS Office ]> ending\n'
             "            match= _msmarkedsectionclose.search(rawdata, i+3)\n")

MARKUPBASE: tuple[Task, ...] = (
    Task("markupbase-docstring", "fresh10/_markupbase.py", "docstring",
         ("_markupbase: give ParserBase._scan_name a docstring (the comment above it says roughly what it does)",
          "Could you document the _scan_name method of ParserBase in _markupbase.py with a proper docstring? It "
          "reads a name token at position i and returns it lowercased together with the index after the name and "
          "any whitespace following it, returns (None, -1) when the buffer runs out, and raises AssertionError "
          "when there is no name at i."),
         Docstring("ParserBase._scan_name"), symbol="ParserBase._scan_name"),
    Task("markupbase-extract", "fresh10/_markupbase.py", "extract",
         ("In _markupbase's ParserBase._parse_doctype_subset, please pull the handling of parameter entity "
          "references (the branch for '%') out into its own method, _scan_pe_reference(self, i, declstartpos), "
          "where i is the index of the '%'. It should return the index just past the reference, including a "
          "trailing ';' if there is one, or -1 when the buffer ends first. _parse_doctype_subset then calls it and "
          "returns as soon as it gets a negative index.",
          "refactor _markupbase: move the %name; scanning out of _parse_doctype_subset into a method "
          "ParserBase._scan_pe_reference(i, declstartpos) -> index after it, or -1 (i = position of the %)"),
         Behaves(("ParserBase._parse_doctype_subset", "ParserBase._scan_pe_reference"), (
             (PARSED.format(raw="%abc; x", call="p._scan_pe_reference(0, 0)"), "(5, [])"),
             (PARSED.format(raw="%abc x", call="p._scan_pe_reference(0, 0)"), "(5, [])"),
             (PARSED.format(raw="%abc;", call="p._scan_pe_reference(0, 0)"), "(5, [])"),
             (PARSED.format(raw="%", call="p._scan_pe_reference(0, 0)"), "(-1, [])"),
             (PARSED.format(raw="%abc", call="p._scan_pe_reference(0, 0)"), "(-1, [])"),
             (PARSED.format(raw="xx%q;]", call="p._scan_pe_reference(2, 0)"), "(5, [])"),
             (PARSED.format(raw='<!DOCTYPE x [ %ents; <!ENTITY a "b"> ]>', call="p._parse_doctype_subset(13, 0)"),
              "(38, [])"),
             (PARSED.format(raw="<!DOCTYPE x [ %ents ]>", call="p._parse_doctype_subset(13, 0)"), "(21, [])"),
             (PARSED.format(raw="<!DOCTYPE x [ %", call="p._parse_doctype_subset(13, 0)"), "(-1, [])"),
             (PARSED.format(raw="<!DOCTYPE x [ %ents", call="p._parse_doctype_subset(13, 0)"), "(-1, [])"),
             (PARSED.format(raw="<!DOCTYPE x [ %e; ]>", call="p.parse_declaration(0)"),
              "(20, [('doctype', 'DOCTYPE x [ %e; ]')])")),
             calls=(("ParserBase._parse_doctype_subset", "_scan_pe_reference"),))),
    Task("markupbase-rename", "fresh10/_markupbase.py", "rename",
         ("_markupbase.py: rename the method _scan_name to _scan_token and update all the places that call it",
          "ParserBase._scan_name -> ParserBase._scan_token (every self._scan_name(...) call too)"),
         Renamed("_scan_name", "_scan_token")),
    Task("markupbase-delete", "fresh10/_markupbase.py", "delete",
         ("Drop the MS Word/Office conditional marked section support from _markupbase: the _msmarkedsectionclose "
          "regex and the if/else/endif branch in ParserBase.parse_marked_section. After that an <![if ...]> "
          "section should hit the unknown status keyword error like any other unknown keyword.",
          "We only ever parse XHTML, never Office 'Save as Web' output. Please delete the special case for "
          "<![if]> and <![endif]> sections in parse_marked_section, along with the regular expression that only "
          "that branch uses."),
         SameAst(((MS_CLOSE, ""), (MS_BRANCH, "")))),
)

TEST_PROGRAM = span("fresh10/random.py", "def _test_generator(n, func, args):\n",
                    "    _test_generator(N, triangular, (0.0, 1.0, 1.0 / 3.0))\n")
MAIN = "\n\nif __name__ == '__main__':\n    _test()\n"
# a generator seeded SEED, then EXPR on it as r
_SEEDED = "(lambda r: {expr})(m.Random({seed}))"

RANDOM: tuple[Task, ...] = (
    Task("random-delete", "fresh10/random.py", "delete",
         ("random.py: remove the test program at the end (_test_generator, _test and the __main__ block that runs "
          "it)",
          "Nobody runs python -m random to time the distributions any more. Could you delete the little benchmark "
          "demo at the bottom of random.py, both of its functions and the if __name__ == '__main__' part? Keep "
          "the fork hook that reseeds the generator."),
         SameAst(((TEST_PROGRAM, ""), (MAIN, "\n")))),
    Task("random-method", "fresh10/random.py", "method",
         ("Please add a clone() method to random.Random that returns a new generator of the same class in exactly "
          "the same state, so that the original and the clone produce the same numbers from that point on but "
          "advance independently of each other.",
          "Random.clone(self): new instance of type(self) with self's getstate() copied into it"),
         Behaves(("Random.clone",), (
             (_SEEDED.format(seed=5, expr="(lambda c: [c.random() for _ in range(3)] == [r.random() for _ in "
                                          "range(3)])(r.clone())"), "True"),
             (_SEEDED.format(seed=9, expr="(r.random(), r.clone().random() == r.random())[1]"), "True"),
             (_SEEDED.format(seed=4, expr="(lambda c: (c.random(), c.random(), r.random() == "
                                          "m.Random(4).random())[2])(r.clone())"), "True"),
             (_SEEDED.format(seed=2, expr="(r.gauss(), r.clone().gauss() == r.gauss())[1]"), "True"),
             (_SEEDED.format(seed=1, expr="r.clone() is r"), "False"),
             ("type(type('R', (m.Random,), {})(3).clone()).__name__", "'R'"),
             (_SEEDED.format(seed=6, expr="r.clone().getstate() == r.getstate()"), "True"))),
         symbol="Random"),
    Task("random-param", "fresh10/random.py", "param",
         ("Could random.randint take an optional step, the way randrange does? randint(0, 10, 2) would return one "
          "of 0, 2, 4, 6, 8 or 10, b staying inclusive whenever the steps land on it. With the default step of 1 "
          "it must give exactly the same numbers as today for the same seed.",
          "add step=1 to Random.randint(a, b) -> randrange(a, b + 1, step)"),
         Behaves(("Random.randint",), (
             (_SEEDED.format(seed=1, expr="sorted({r.randint(0, 10, 2) for _ in range(400)})"), "[0, 2, 4, 6, 8, 10]"),
             (_SEEDED.format(seed=2, expr="sorted({r.randint(1, 10, 3) for _ in range(400)})"), "[1, 4, 7, 10]"),
             (_SEEDED.format(seed=3, expr="sorted({r.randint(0, 9, 4) for _ in range(400)})"), "[0, 4, 8]"),
             (_SEEDED.format(seed=7, expr="[r.randint(1, 100) for _ in range(5)]"), "[42, 20, 51, 84, 7]"),
             (_SEEDED.format(seed=7, expr="[r.randint(1, 100, step=1) for _ in range(5)]"), "[42, 20, 51, 84, 7]"),
             ("m.Random(0).randint(5, 5, 3)", "5"),
             ("all(m.randint(0, 4, 2) in (0, 2, 4) for _ in range(50))", "True"),
             ("m.Random(0).randint(3, 1)", "raised ValueError"),
             ("m.Random(0).randint(0, 4, 0)", "raised ValueError"))),
         symbol="Random.randint"),
    Task("random-fix", "fresh10/random.py", "fix",
         ("random.expovariate(0) blows up with a bare ZeroDivisionError from inside the formula. Could it check "
          "its argument and raise a ValueError saying lambd must be non-zero instead? Negative values should keep "
          "working as they do now.",
          "Random.expovariate: raise ValueError, not ZeroDivisionError, when lambd == 0"),
         Behaves(("Random.expovariate",), (
             ("m.Random(1).expovariate(0)", "raised ValueError"),
             ("m.Random(1).expovariate(0.0)", "raised ValueError"),
             ("m.expovariate(0)", "raised ValueError"),
             ("m.Random(1).expovariate(2.0)", "0.0721455320547546"),
             ("m.Random(1).expovariate(1)", "0.1442910641095092"),
             ("m.Random(1).expovariate(-1.5)", "-0.0961940427396728"),
             ("m.Random(5).expovariate(float('inf'))", "0.0"))),
         symbol="Random.expovariate"),
)

MATCH_ABBREV = span("fresh10/optparse.py", "def _match_abbrev(s, wordmap):\n",
                    "            raise AmbiguousOptionError(s, possibilities)\n")
OPTION_PARSER = "class OptionParser (OptionContainer):\n"

OPTPARSE: tuple[Task, ...] = (
    Task("optparse-rename", "fresh10/optparse.py", "rename",
         ("optparse: rename _builtin_cvt to _builtin_converters",
          "The dict in optparse that maps the option types int, long, float and complex to a converter and a "
          "description has the unreadable name _builtin_cvt. I'd like it called _builtin_converters; "
          "check_builtin has to use the new name of course."),
         Renamed("_builtin_cvt", "_builtin_converters")),
    Task("optparse-docstring", "fresh10/optparse.py", "docstring",
         ("Add a docstring to optparse's _parse_num describing the prefixes it understands (0x for hex, 0b for "
          "binary, a leading 0 for octal, decimal otherwise) and that it returns type(val, radix).",
          "docstring for _parse_num in optparse.py please"),
         Docstring("_parse_num"), symbol="_parse_num"),
    Task("optparse-comment", "fresh10/optparse.py", "comment",
         ("In optparse's Values._update_careful, put a comment above the if dval is not None test saying that a "
          "None in the dict never overwrites a value the Values object already has.",
          "comment in Values._update_careful on the 'dval is not None' check: None means not given, so it mustn't "
          "clobber an existing value"),
         Comment("Values._update_careful", above=("if dval is not None:",)), symbol="Values._update_careful"),
    Task("optparse-move", "fresh10/optparse.py", "move",
         ("optparse.py: _match_abbrev is defined at the very end of the module but only OptionParser uses it. "
          "Please move the function up so that it sits right before the OptionParser class. The function itself "
          "stays as it is.",
          "move def _match_abbrev from the bottom of optparse to just above class OptionParser"),
         SameAst(((MATCH_ABBREV, ""), (OPTION_PARSER, MATCH_ABBREV + "\n\n" + OPTION_PARSER)))),
)

# SequenceMatcher(None, A, B).is_similar(ARGS)
_SIMILAR = "m.SequenceMatcher(None, {a!r}, {b!r}).is_similar({args})"
_WORDS = "['ape', 'apple', 'peach', 'puppy']"

DIFFLIB: tuple[Task, ...] = (
    Task("difflib-extract", "fresh10/difflib.py", "extract",
         ("unified_diff and context_diff in difflib both build their two file header lines the same way: the "
          "marker ('---' and '+++', or '***' and '---'), a space, the file name, a tab and the date if there is "
          "one, then lineterm. Please pull that into one helper function, _format_file_header(marker, filename, "
          "filedate, lineterm), which returns one such line, and use it in both functions.",
          "difflib: extract _format_file_header(marker, filename, filedate, lineterm) -> str from the header code "
          "of unified_diff and context_diff, and call it from both"),
         Behaves(("unified_diff", "context_diff", "_format_file_header"), (
             ("''.join(m.unified_diff(['a\\n', 'b\\n'], ['a\\n', 'c\\n'], 'x.txt', 'y.txt', 'Mon', 'Tue'))",
              "'--- x.txt\\tMon\\n+++ y.txt\\tTue\\n@@ -1,2 +1,2 @@\\n a\\n-b\\n+c\\n'"),
             ("''.join(m.unified_diff(['a\\n'], ['b\\n'], 'x', 'y'))", "'--- x\\n+++ y\\n@@ -1 +1 @@\\n-a\\n+b\\n'"),
             ("''.join(m.context_diff(['a\\n', 'b\\n'], ['a\\n', 'c\\n'], 'x.txt', 'y.txt', 'Mon', 'Tue'))",
              "'*** x.txt\\tMon\\n--- y.txt\\tTue\\n***************\\n*** 1,2 ****\\n  a\\n! b\\n--- 1,2 ----\\n"
              "  a\\n! c\\n'"),
             ("list(m.context_diff(['a'], ['b'], lineterm=''))",
              "['*** ', '--- ', '***************', '*** 1 ****', '! a', '--- 1 ----', '! b']"),
             ("list(m.unified_diff(['a'], ['a']))", "[]"),
             ("m._format_file_header('---', 'a.py', '2024-01-01', '\\n')", "'--- a.py\\t2024-01-01\\n'"),
             ("m._format_file_header('***', 'b.py', '', '')", "'*** b.py'")),
             calls=(("unified_diff", "_format_file_header"), ("context_diff", "_format_file_header")))),
    Task("difflib-hints", "fresh10/difflib.py", "hints",
         ("type hints for difflib._format_range_context please: start and stop are ints, it returns a str",
          "I'm adding annotations to the private helpers of our difflib copy one at a time. Please annotate "
          "_format_range_context, the one context_diff uses for its '*** 1,4 ****' ranges, and leave "
          "_format_range_unified as it is for now."),
         Hints("_format_range_context"), symbol="_format_range_context"),
    Task("difflib-method", "fresh10/difflib.py", "method",
         ("Add a method is_similar(cutoff=0.6) to difflib.SequenceMatcher that returns True when ratio() is at "
          "least cutoff. It should try real_quick_ratio() and quick_ratio() first and give up early when one of "
          "them is already below the cutoff, the same way get_close_matches does.",
          "new SequenceMatcher.is_similar(self, cutoff=0.6) -> bool: ratio() >= cutoff, with the cheap upper "
          "bounds checked first"),
         Behaves(("SequenceMatcher.is_similar",), (
             (_SIMILAR.format(a="apple", b="appel", args=""), "True"),
             (_SIMILAR.format(a="abcd", b="abcx", args=""), "True"),
             (_SIMILAR.format(a="apple", b="peach", args=""), "False"),
             (_SIMILAR.format(a="abcd", b="abxy", args="0.5"), "True"),
             (_SIMILAR.format(a="abcd", b="abxy", args="0.51"), "False"),
             (_SIMILAR.format(a="abcd", b="abxy", args="cutoff=0.5"), "True"),
             (_SIMILAR.format(a="", b="", args="1.0"), "True"),
             (_SIMILAR.format(a="abc", b="xyz", args="0.0"), "True"),
             (_SIMILAR.format(a="abc", b="xyz", args=""), "False"))),
         symbol="SequenceMatcher"),
    Task("difflib-param", "fresh10/difflib.py", "param",
         ("difflib.get_close_matches: add ignore_case=False; when it's true, compare the lowercased strings but "
          "return the possibilities exactly as they were given",
          "Our command-not-found helper uses get_close_matches to suggest commands, but GTI doesn't suggest git "
          "because the case differs. Could get_close_matches take an ignore_case flag, off by default? The "
          "suggestions it returns should still be spelled the way they are in the list."),
         Behaves(("get_close_matches",), (
             (f"m.get_close_matches('APPEL', {_WORDS}, ignore_case=True)", "['apple', 'ape']"),
             (f"m.get_close_matches('APPEL', {_WORDS})", "[]"),
             (f"m.get_close_matches('appel', {_WORDS}, ignore_case=False)", "['apple', 'ape']"),
             ("m.get_close_matches('GTI', ['git', 'gist', 'grep'], ignore_case=True)", "['git']"),
             ("m.get_close_matches('Python', ['PYTHON', 'jython', 'cy'], n=1, ignore_case=True)", "['PYTHON']"),
             ("m.get_close_matches('x', ['X'], cutoff=1.0, ignore_case=True)", "['X']"),
             ("m.get_close_matches('a', ['A'], n=0, ignore_case=True)", "raised ValueError"))),
         symbol="get_close_matches"),
)

FRESH10: tuple[Task, ...] = SECRETS + MARKUPBASE + RANDOM + OPTPARSE + DIFFLIB + BUGS
