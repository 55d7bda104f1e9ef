"""The bug tasks of ``coder bench --edits --set fresh10``: one bug put in by hand in each of its five modules.

Each runs on a copy under ``files/fresh10/bugs/`` and is judged by calling the code
(:class:`~coder.bench.edits.behaviour.Behaves`). They are reported the way users report bugs: what they saw,
sometimes naming a function, never the line, and the function named is not always the one with the bug.
:mod:`coder.bench.edits.tasks_fresh10` says how the set was written and that nothing may be tuned on it.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task, source


def span(file: str, start: str, end: str) -> str:
    """The text of ``file`` from the line starting ``start`` through the first ``end`` after it."""
    text = source(file)
    a = text.index(start)
    return text[a:text.index(end, a) + len(end)]


# a fresh subclass p of ParserBase whose handlers record what they get in p.seen, fed the text RAW, then CALL on it:
# (what CALL returned, what the handlers saw)
PARSED = ("(lambda p: (setattr(p, 'rawdata', {raw!r}), setattr(p, 'seen', []), p.reset(), {call}, p.seen)[3:])"
          "(type('P', (m.ParserBase,), {{'handle_comment': lambda s, d: s.seen.append(d), "
          "'unknown_decl': lambda s, d: s.seen.append(('decl', d)), "
          "'handle_decl': lambda s, d: s.seen.append(('doctype', d))}})())")
# 2000 draws of Random(SEED).uniform(A, B): (all within [min, max] of A and B, the largest above 90% of the way)
_SPREAD = ("(lambda r, a, b: (lambda xs: (all(min(a, b) <= x <= max(a, b) for x in xs), "
           "max(xs) > min(a, b) + 0.9 * abs(b - a)))([r.uniform(a, b) for _ in range(2000)]))"
           "(m.Random({seed}), {a}, {b})")
_LONG_OPTS = "{'--verbose': 1, '--version': 2, '--quiet': 3}"

BUGS: tuple[Task, ...] = (
    Task("bug-secrets-default", "fresh10/bugs/secrets.py", "bugfix",
         ("secrets.token_bytes() with no argument returns 16 bytes, but DEFAULT_ENTROPY is 32 and the docstring says "
          "a reasonable default is used. token_hex() without an argument is only 32 characters long as well, "
          "instead of 64.",
          "Tokens from our copy of the secrets module are half as long as they should be when we don't pass a size: "
          "token_urlsafe() gives 22 characters where we expected about 43. Passing nbytes explicitly gives the right "
          "length."),
         Behaves(("token_bytes",), (
             ("len(m.token_bytes())", "32"),
             ("len(m.token_bytes(None))", "32"),
             ("len(m.token_hex())", "64"),
             ("len(m.token_urlsafe())", "43"),
             ("len(m.token_bytes(7))", "7"),
             ("len(m.token_bytes(0))", "0"),
             ("(setattr(m, 'DEFAULT_ENTROPY', 8), len(m.token_bytes()))[1]", "8"))),
         symbol="token_bytes"),
    Task("bug-markupbase-comment", "fresh10/bugs/_markupbase.py", "bugfix",
         ("Since we updated the vendored _markupbase, every comment our HTMLParser subclass gets in handle_comment "
          "ends with a stray dash: for <!-- menu --> we receive ' menu -' instead of ' menu '.",
          "html comments come out one character too long. ParserBase hands handle_comment the text plus the first "
          "'-' of the closing -->. Marked sections and doctype declarations are reported correctly."),
         Behaves(("ParserBase.parse_comment",), (
             (PARSED.format(raw="<!-- menu -->", call="p.parse_comment(0)"), "(13, [' menu '])"),
             (PARSED.format(raw="<!---->", call="p.parse_comment(0)"), "(7, [''])"),
             (PARSED.format(raw="<!-- a -- >x", call="p.parse_comment(0)"), "(11, [' a '])"),
             (PARSED.format(raw="<!-- quiet -->", call="p.parse_comment(0, report=0)"), "(14, [])"),
             (PARSED.format(raw="<!-- open", call="p.parse_comment(0)"), "(-1, [])"),
             (PARSED.format(raw="<!--x--><b>", call="p.parse_comment(0)"), "(8, ['x'])"),
             (PARSED.format(raw="<!--", call="p.parse_comment(0)"), "(-1, [])"),
             (PARSED.format(raw="<!--a--->", call="p.parse_comment(0)"), "(9, ['a-'])"))),
         symbol="ParserBase.parse_comment"),
    Task("bug-random-uniform", "fresh10/bugs/random.py", "bugfix",
         ("random.uniform(10, 20) gives me numbers above 20, up to almost 30. With 0 as the lower bound it looks "
          "fine, which is probably why nobody noticed.",
          "Since we vendored random.py the temperatures we simulate with Random.uniform(low, high) overshoot: the "
          "upper end seems to be low + high instead of high. randint, random() and gauss are fine."),
         Behaves(("Random.uniform",), (
             (_SPREAD.format(seed=1, a=10, b=20), "(True, True)"),
             (_SPREAD.format(seed=2, a=-5, b=5), "(True, True)"),
             (_SPREAD.format(seed=3, a=20, b=10), "(True, True)"),
             ("m.Random(4).uniform(2, 6) == 2 + 4 * m.Random(4).random()", "True"),
             ("m.Random(3).uniform(0, 1) == m.Random(3).random()", "True"),
             ("m.Random(3).uniform(5, 5)", "5.0"),
             ("all(100 <= m.uniform(100, 101) <= 101 for _ in range(500))", "True"))),
         symbol="Random.uniform"),
    Task("bug-optparse-ambiguous", "fresh10/bugs/optparse.py", "bugfix",
         ("optparse no longer reports ambiguous abbreviations. Our tool defines both --verbose and --version, and "
          "--ver is quietly taken as one of them instead of failing with 'ambiguous option: --ver (--verbose, "
          "--version?)'.",
          "OptionParser.parse_args accepts a long option prefix that matches several options and just uses the "
          "first one it finds. Exact names and unique prefixes still work, and unknown options are still rejected."),
         Behaves(("_match_abbrev",), (
             (f"m._match_abbrev('--ver', {_LONG_OPTS})", "raised AmbiguousOptionError"),
             (f"m._match_abbrev('--v', {_LONG_OPTS})", "raised AmbiguousOptionError"),
             (f"m._match_abbrev('--verb', {_LONG_OPTS})", "'--verbose'"),
             (f"m._match_abbrev('--q', {_LONG_OPTS})", "'--quiet'"),
             (f"m._match_abbrev('--version', {_LONG_OPTS})", "'--version'"),
             (f"m._match_abbrev('--x', {_LONG_OPTS})", "raised BadOptionError"),
             ("m._match_abbrev('--ab', {'--ab': 1, '--abc': 2})", "'--ab'"),
             ("(lambda p: (p.add_option('--verbose', action='store_true'), p.add_option('--version-file'), "
              "p.parse_args(['--verb'])[0].verbose)[-1])(m.OptionParser())", "True"),
             ("(lambda p: (p.add_option('--verbose', action='store_true'), p.add_option('--version-file'), "
              "p._match_long_opt('--ver'))[-1])(m.OptionParser())", "raised AmbiguousOptionError"))),
         symbol="_match_abbrev"),
    Task("bug-difflib-hunk-length", "fresh10/bugs/difflib.py", "bugfix",
         ("The hunk headers from difflib.unified_diff have wrong line counts. Diffing ['a', 'b', 'c'] against "
          "['a', 'x', 'c'] gives @@ -1,4 +1,4 @@ though the hunk has three lines on each side, and patch refuses "
          "the file as malformed.",
          "unified diffs made with our difflib don't apply with git apply: every range in the @@ lines claims one "
          "line more than the hunk has, and a one-line range comes out as 3,2 rather than 3. context_diff output "
          "is correct."),
         Behaves(("_format_range_unified",), (
             ("list(m.unified_diff(['a', 'b', 'c'], ['a', 'x', 'c'], lineterm=''))",
              "['--- ', '+++ ', '@@ -1,3 +1,3 @@', ' a', '-b', '+x', ' c']"),
             ("''.join(m.unified_diff(['a\\n'], ['b\\n'], 'x', 'y'))", "'--- x\\n+++ y\\n@@ -1 +1 @@\\n-a\\n+b\\n'"),
             ("list(m.unified_diff(['a'], [], lineterm=''))[2]", "'@@ -1 +0,0 @@'"),
             ("[m._format_range_unified(3, 5), m._format_range_unified(3, 4), m._format_range_unified(3, 3), "
              "m._format_range_unified(0, 0)]", "['4,2', '4', '3,0', '0,0']"),
             ("list(m.unified_diff(['p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x'], "
              "['p', 'q', 'r', 's', 'T', 'u', 'v', 'w', 'x'], n=1, lineterm=''))[2]", "'@@ -4,3 +4,3 @@'"),
             ("list(m.context_diff(['a'], ['b'], lineterm=''))",
              "['*** ', '--- ', '***************', '*** 1 ****', '! a', '--- 1 ----', '! b']"))),
         symbol="_format_range_unified"),
)
