"""The sixth fresh set of ``coder bench --edits --set fresh6``: the unseen measure once the fifth fresh set is read.

The suite, the held-out set and the five fresh sets (:mod:`coder.bench.edits.tasks_fresh` to
:mod:`coder.bench.edits.tasks_fresh5`) may all have been read by the people tuning coder's instruction reader, so
none of them can be trusted to measure how coder does on wordings nobody tuned for. These tasks were written on
2026-12-05 by someone who had not read ``coder/edit/``, coder's CLI (other than ``coder/cli/bench_edits.py``, to
register the set), the benchmark pages or any bench result, on five CPython 3.11.7 modules no other set uses
(``pprint``, ``contextlib``, ``hmac``, ``calendar``, ``fractions``; shipped under ``files/fresh6/``,
``files/SOURCES.md`` lists them). Each task has two wordings, typed once the way two different people would type
the request into an assistant, and never tried on coder or a model (nor on coder's planner). Nothing may be tuned
on this set (no reading rule, prompt or repair written to pass one of its tasks), or it becomes one more suite.

The bug tasks are in :mod:`coder.bench.edits.tasks_fresh6_bugs`; the rest reuse the suite's checks, and a
change of behaviour is judged by calling the code (:class:`~coder.bench.edits.behaviour.Behaves`). hmac's cases
compare the file's MACs with those of the interpreter's own ``hmac``
(:data:`~coder.bench.edits.tasks_fresh6_bugs.REF_HMAC`).
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks_fresh6_bugs import BUGS, HASHLIB, REF_HMAC

# pprint's byte-string wrapper, near the end of the file (before the __main__ block)
WRAP_BYTES = ("def _wrap_bytes_repr(object, width, allowance):\n    current = b''\n"
              "    last = len(object) // 4 * 4\n    for i in range(0, len(object), 4):\n"
              "        part = object[i: i+4]\n        candidate = current + part\n        if i == last:\n"
              "            width -= allowance\n        if len(repr(candidate)) > width:\n            if current:\n"
              "                yield repr(current)\n            current = part\n        else:\n"
              "            current = candidate\n    if current:\n        yield repr(current)\n")
PRINTER_CLASS = "class PrettyPrinter:\n"
PERFCHECK = ('def _perfcheck(object=None):\n    import time\n    if object is None:\n'
             '        object = [("string", (1, 2), [3, 4], {5: 6, 7: 8})] * 100000\n    p = PrettyPrinter()\n'
             '    t1 = time.perf_counter()\n    p._safe_repr(object, {}, None, 0, True)\n'
             '    t2 = time.perf_counter()\n    p.pformat(object)\n    t3 = time.perf_counter()\n'
             '    print("_safe_repr:", t2 - t1)\n    print("pformat:", t3 - t2)\n')
MAIN_BLOCK = 'if __name__ == "__main__":\n    _perfcheck()\n'

PPRINT: tuple[Task, ...] = (
    Task("pprint-rename", "fresh6/pprint.py", "rename",
         ("pprint.py: class _safe_key -> _SafeKey",
          "Our linter flags the helper class _safe_key in pprint because class names should be CapWords. Could "
          "you change its name to _SafeKey, and update every place that refers to it (the sort keys and "
          "_safe_tuple)? The _safe_tuple function itself should keep the name it has."),
         Renamed("_safe_key", "_SafeKey")),
    Task("pprint-move", "fresh6/pprint.py", "move",
         ("I'd like all of pprint's module-level helpers grouped at the top. Take _wrap_bytes_repr, which "
          "currently sits near the bottom of the file, and put it directly above the PrettyPrinter class "
          "definition (so right after _safe_tuple). Don't change its body.",
          "relocate _wrap_bytes_repr in pprint up to just before class PrettyPrinter"),
         SameAst(((WRAP_BYTES, ""), (PRINTER_CLASS, WRAP_BYTES + "\n" + PRINTER_CLASS)))),
    Task("pprint-delete", "fresh6/pprint.py", "delete",
         ("get rid of _perfcheck in pprint, plus the if __name__ == '__main__' at the bottom that runs it",
          "pprint.py still carries _perfcheck, an old timing routine that is only run when the module is "
          "executed as a script. Nobody uses it and it even calls _safe_repr with the wrong number of "
          "arguments. Remove that function together with the __main__ guard that invokes it."),
         SameAst(((PERFCHECK, ""), (MAIN_BLOCK, "")))),
    Task("pprint-docstring", "fresh6/pprint.py", "docstring",
         ("PrettyPrinter._safe_repr only has a one-line comment saying what it returns. Replace that with a "
          "proper docstring: it builds the single-line repr of object, descending into dicts, lists and tuples "
          "and stopping at maxlevels, and returns a triple (repr string, whether it is readable by eval, "
          "whether a recursive reference was found). context holds the ids of the containers being expanded.",
          "docstring for _safe_repr in pprint's PrettyPrinter pls"),
         Docstring("PrettyPrinter._safe_repr"), symbol="PrettyPrinter._safe_repr"),
)

# a new folder (its real path: os.getcwd() gives that) and a chdir into it entered, then left
_OS = "__import__('os')"
_NEW_DIR = f"{_OS}.path.realpath(__import__('tempfile').mkdtemp())"
_ENTER_LEAVE = (f"(lambda d: (lambda here, cm: [cm.__enter__() == here, {_OS}.getcwd() == d, "
                f"cm.__exit__(None, None, None), {_OS}.getcwd() == here])({_OS}.getcwd(), m.chdir(d)))({_NEW_DIR})")
_NESTED_CHDIR = (f"(lambda a, b: (lambda outer, inner: [outer.__enter__(), inner.__enter__() == a, "
                 f"inner.__exit__(None, None, None), outer.__exit__(None, None, None)][1])"
                 f"(m.chdir(a), m.chdir(b)))({_NEW_DIR}, {_NEW_DIR})")
_REENTER = (f"(lambda a: (lambda cm: [cm.__enter__(), cm.__enter__() == a, cm.__exit__(None, None, None), "
            f"{_OS}.getcwd() == a, cm.__exit__(None, None, None)][1:4:2])(m.chdir(a)))({_NEW_DIR})")

CONTEXTLIB: tuple[Task, ...] = (
    Task("contextlib-rename", "fresh6/contextlib.py", "rename",
         ("contextlib: _RedirectStream -> _StreamRedirector",
          "The private base class behind redirect_stdout and redirect_stderr is called _RedirectStream, which "
          "reads like a verb phrase rather than a thing. I'd prefer _StreamRedirector; please rename the class "
          "and the two subclasses' base accordingly."),
         Renamed("_RedirectStream", "_StreamRedirector")),
    Task("contextlib-fix", "fresh6/contextlib.py", "fix",
         ("with contextlib.chdir(path) as prev: -- prev is always None. have __enter__ return the directory we "
          "were in before switching, so I can log it",
          "contextlib.chdir's __enter__ currently returns nothing, so 'with chdir(target) as x' binds None. It "
          "would be far more useful if it handed back the working directory that was current before the "
          "switch (the one that gets restored on exit). That also has to hold when the same chdir object is "
          "entered again while already active."),
         Behaves(("chdir.__enter__",), (
             (_ENTER_LEAVE, "[True, True, None, True]"),
             (_NESTED_CHDIR, "True"),
             (_REENTER, "[True, True]"),
             (f"(lambda here: (lambda cm: (cm.__enter__(), cm.__exit__(None, None, None))[0] == here)"
              f"(m.chdir({_OS}.curdir)))({_OS}.getcwd())", "True"))),
         symbol="chdir"),
    Task("contextlib-comment", "fresh6/contextlib.py", "comment",
         ("In _RedirectStream.__exit__, please put a comment above the setattr that pops _old_targets. It should "
          "say that the stream saved by the matching __enter__ is restored, last in first out, which is why one "
          "redirect_stdout object can be nested inside itself.",
          "comment on the pop() line in contextlib's redirect base __exit__: LIFO restore -> reentrant"),
         Comment("_RedirectStream.__exit__", above=("setattr(sys, self._stream, self._old_targets.pop())",)),
         symbol="_RedirectStream.__exit__"),
    Task("contextlib-hints", "fresh6/contextlib.py", "hints",
         ("suppress.__init__ in contextlib: add hints (*exceptions are exception classes, returns None)",
          "Can you annotate the constructor of contextlib.suppress? Each positional argument is an exception "
          "class, a subclass of BaseException, and like any __init__ it returns None."),
         Hints("suppress.__init__"), symbol="suppress.__init__"),
)

_NS = "__import__('types').SimpleNamespace"
_SHA256 = f"{REF_HMAC}.new(b'k', b'msg', 'sha256')"

HMAC: tuple[Task, ...] = (
    Task("hmac-extract", "fresh6/hmac.py", "extract",
         ("HMAC._init_old and the module-level digest() both contain the same if/elif/else that turns digestmod "
          "into a constructor (use it if it's callable, go through hashlib.new for a name, call .new on a "
          "module). Pull that into one private function _hash_constructor(digestmod) that returns the "
          "constructor, and call it from both places.",
          "hmac.py: dedupe the digest_cons logic into _hash_constructor(digestmod), used by _init_old and digest"),
         Behaves(("HMAC._init_old", "digest", "_hash_constructor"), (
             (f"m._hash_constructor('sha256')(b'abc').digest() == {HASHLIB}.sha256(b'abc').digest()", "True"),
             ("m._hash_constructor('md5')().name", "'md5'"),
             (f"m._hash_constructor({HASHLIB}.sha1)(b'x').digest() == {HASHLIB}.sha1(b'x').digest()", "True"),
             (f"m._hash_constructor({_NS}(new={HASHLIB}.sha512))(b'y').digest() == {HASHLIB}.sha512(b'y').digest()",
              "True"),
             (f"m._hash_constructor({_NS}(new={HASHLIB}.sha512))().name", "'sha512'"),
             (f"m.new(b'k', b'msg', {HASHLIB}.blake2b).digest() == {REF_HMAC}.new(b'k', b'msg', {HASHLIB}.blake2b)"
              ".digest()", "True"),
             (f"m.new(b'k', b'msg', {_NS}(new={HASHLIB}.sha256)).hexdigest() == {_SHA256}.hexdigest()", "True"),
             (f"m.digest(b'k' * 200, b'msg', {HASHLIB}.blake2s) == {REF_HMAC}.digest(b'k' * 200, b'msg', "
              f"{HASHLIB}.blake2s)", "True"),
             (f"m.digest(b'k', b'msg', {_NS}(new={HASHLIB}.sha256)) == {_SHA256}.digest()", "True")),
             calls=(("HMAC._init_old", "_hash_constructor"), ("digest", "_hash_constructor")))),
    Task("hmac-method", "fresh6/hmac.py", "method",
         ("add a verify(signature) method to hmac.HMAC: True if signature equals digest(), compared with "
          "compare_digest so it's constant time",
          "Every caller of ours writes hmac.compare_digest(h.digest(), received) by hand, and someone once used "
          "== instead. I'd like the HMAC class to offer a verify method taking the expected MAC as bytes and "
          "returning whether it matches this object's digest, using the module's compare_digest for the "
          "comparison. It must not change the object's state, so more data can be fed afterwards."),
         Behaves(("HMAC.verify",), (
             (f"m.new(b'k', b'msg', 'sha256').verify({_SHA256}.digest())", "True"),
             ("m.new(b'k', b'msg', 'sha256').verify(b'0' * 32)", "False"),
             ("m.new(b'k', b'msg', 'sha256').verify(b'')", "False"),
             (f"m.new(b'k', b'msg', 'sha256').verify(bytearray({_SHA256}.digest()))", "True"),
             (f"m.new(b'k', b'msg', {HASHLIB}.blake2b).verify({REF_HMAC}.new(b'k', b'msg', {HASHLIB}.blake2b)"
              ".digest())", "True"),
             (f"(lambda h: (h.verify(b'x'), h.update(b'more'), h.hexdigest() == "
              f"{REF_HMAC}.new(b'k', b'msgmore', 'sha256').hexdigest())[2])(m.new(b'k', b'msg', 'sha256'))", "True")),
             calls=(("HMAC.verify", "compare_digest"),)),
         symbol="HMAC"),
    Task("hmac-hints", "fresh6/hmac.py", "hints",
         ("HMAC.update: annotate it, msg is bytes and it returns None",
          "Could you add type annotations to the update method of hmac's HMAC class? The data it is fed is a "
          "bytes object and the method gives nothing back, so the return should be marked as None."),
         Hints("HMAC.update"), symbol="HMAC.update"),
    Task("hmac-param", "fresh6/hmac.py", "param",
         ("We print MACs as colon-separated fingerprints (ab:cd:ef...). bytes.hex() can do that with its sep "
          "argument, so please let HMAC.hexdigest take an optional sep, default None, with the same meaning: "
          "hexdigest(':') puts a colon between every byte, and without sep the output stays exactly as it is "
          "today.",
          "hexdigest() in hmac should accept sep=None like bytes.hex, e.g. h.hexdigest('-')"),
         Behaves(("HMAC.hexdigest",), (
             (f"m.new(b'k', b'msg', 'sha256').hexdigest(':') == {_SHA256}.digest().hex(':')", "True"),
             (f"m.new(b'k', b'msg', 'sha256').hexdigest() == {_SHA256}.hexdigest()", "True"),
             (f"m.new(b'k', b'msg', 'sha256').hexdigest(None) == {_SHA256}.hexdigest()", "True"),
             ("m.new(b'k', b'msg', 'md5').hexdigest(sep='-').count('-')", "15"),
             (f"m.new(b'k', b'msg', {HASHLIB}.blake2b).hexdigest(' ') == "
              f"{REF_HMAC}.new(b'k', b'msg', {HASHLIB}.blake2b).digest().hex(' ')", "True"),
             ("len(m.new(b'k', b'msg', 'sha1').hexdigest())", "40"))),
         symbol="HMAC.hexdigest"),
)

PRWEEK = ('    def prweek(self, theweek, width):\n        """\n        Print a single week (no newline).\n'
          '        """\n        print(self.formatweek(theweek, width), end=\'\')\n\n')
PRWEEK_ALIAS = "prweek = c.prweek\n"


def _page(call: str) -> str:
    """The expression of an HTML year page, formatyearpage called with ``call``'s arguments."""
    return f"m.HTMLCalendar().formatyearpage({call})"


_TITLED = _page("2024, title='Team holidays'")
_TITLED_X = _page("2024, title='X'")
_POSITIONAL = _page("2023, 3, 'x.css', 'ascii', 'T'")


CALENDAR: tuple[Task, ...] = (
    Task("calendar-param", "fresh6/calendar.py", "param",
         ("HTMLCalendar.formatyearpage always titles the page 'Calendar for <year>'. Give it a new last "
          "parameter, title, defaulting to None: when given, that string becomes the text of the <title> "
          "element; when left out the title stays 'Calendar for <year>' as before.",
          "formatyearpage: allow a custom page title (title=None -> keep the current 'Calendar for YEAR')"),
         Behaves(("HTMLCalendar.formatyearpage",), (
             (f"b'<title>Team holidays</title>' in {_TITLED}",
              "True"),
             (f"b'<title>Calendar for 2024</title>' in {_page('2024')}", "True"),
             (f"b'Calendar for' in {_TITLED_X}", "False"),
             (f"{_POSITIONAL}.count(b'<title>T</title>')",
              "1"),
             (f"b'<title>Calendar for 1999</title>' in {_page('1999, title=None')}", "True"),
             (f"{_page('2024')}.count(b'<table')", "13"))),
         symbol="HTMLCalendar.formatyearpage"),
    Task("calendar-function", "fresh6/calendar.py", "function",
         ("calendar needs nth_weekday(year, month, weekday, n): the day of the month of the n-th given weekday, "
          "n starting at 1, e.g. nth_weekday(2024, 11, THURSDAY, 4) == 28. ValueError if that month has no "
          "n-th one",
          "Please add a module-level function nth_weekday(year, month, weekday, n) to calendar.py for things "
          "like 'the fourth Thursday of November'. weekday uses the module's MONDAY..SUNDAY numbering, n counts "
          "from 1, and it returns the day number within the month. When the month has fewer than n such days "
          "(a fifth Friday in most Februaries, say) it should raise ValueError. The module's firstweekday "
          "setting must not affect the answer."),
         Behaves(("nth_weekday",), (
             ("m.nth_weekday(2024, 11, m.THURSDAY, 4)", "28"),
             ("m.nth_weekday(2024, 3, m.FRIDAY, 5)", "29"),
             ("m.nth_weekday(2024, 2, m.FRIDAY, 5)", "raised ValueError"),
             ("m.nth_weekday(2023, 1, m.MONDAY, 1)", "2"),
             ("m.nth_weekday(2023, 1, m.SUNDAY, 1)", "1"),
             ("m.nth_weekday(2021, 2, m.MONDAY, 4)", "22"),
             ("m.nth_weekday(2024, 12, m.TUESDAY, 5)", "31"),
             ("m.nth_weekday(2021, 2, m.MONDAY, 5)", "raised ValueError"),
             ("(m.setfirstweekday(m.SUNDAY), m.nth_weekday(2024, 11, m.THURSDAY, 4))[1]", "28")))),
    Task("calendar-delete", "fresh6/calendar.py", "delete",
         ("drop TextCalendar.prweek from calendar.py along with the module level prweek = c.prweek alias",
          "prweek is the last of TextCalendar's print-a-week leftovers and we never call it; it is not even in "
          "__all__. Please delete the method from the TextCalendar class, and also the line near the bottom "
          "that exposes it as the module function calendar.prweek. Keep formatweek, which it wraps."),
         SameAst(((PRWEEK, ""), (PRWEEK_ALIAS, "")))),
    Task("calendar-comment", "fresh6/calendar.py", "comment",
         ("In calendar.weekday, there is a line that replaces an out-of-range year with 2000 + year % 400. Put a "
          "comment directly above that line explaining why this is valid: the Gregorian calendar repeats "
          "every 400 years, so such a year falls on the same weekdays as the mapped one, which datetime can "
          "handle.",
          "weekday(): comment the 'year = 2000 + year % 400' trick (400-year cycle)"),
         Comment("weekday", above=("year = 2000 + year % 400",)), symbol="weekday"),
)

_TRUNCATED = "(lambda F: [int(F(-7, 2)), int(F(7, 2)), __import__('math').trunc(F(-7, 2)), int(F(-1, 3))])"

FRACTIONS: tuple[Task, ...] = (
    Task("fractions-rename", "fresh6/fractions.py", "rename",
         ("rename Fraction._richcmp to _compare (fractions.py), all call sites too",
          "The comparison helper of Fraction is called _richcmp, a leftover from the C API that confuses "
          "newcomers. I would like it to be called _compare instead; the four ordering operators that call it "
          "need to follow."),
         Renamed("_richcmp", "_compare")),
    Task("fractions-docstring", "fresh6/fractions.py", "docstring",
         ("Fraction.__copy__ needs a docstring",
          "In fractions.py the __copy__ method of Fraction has no docstring, only an inline remark. Document it: "
          "an exact Fraction is immutable, so copying returns the very same object, whereas an instance of a "
          "subclass is rebuilt from its numerator and denominator, since a subclass might carry mutable "
          "state."),
         Docstring("Fraction.__copy__"), symbol="Fraction.__copy__"),
    Task("fractions-method", "fresh6/fractions.py", "method",
         ("float has is_integer() and I need the same on Fraction: a method returning True exactly when the "
          "fraction is a whole number (denominator 1 after normalisation). Please don't go through float, our "
          "fractions are too big for that.",
          "Fraction.is_integer() method, returns a bool"),
         Behaves(("Fraction.is_integer",), (
             ("m.Fraction(4, 2).is_integer()", "True"),
             ("m.Fraction(1, 3).is_integer()", "False"),
             ("m.Fraction(-6, 3).is_integer()", "True"),
             ("m.Fraction(0).is_integer()", "True"),
             ("m.Fraction('1.5').is_integer()", "False"),
             ("m.Fraction(10**30 + 1, 10**30).is_integer()", "False"),
             ("m.Fraction(10**40, 5).is_integer()", "True"),
             ("type(m.Fraction(3).is_integer()).__name__", "'bool'"))),
         symbol="Fraction"),
    Task("fractions-extract", "fresh6/fractions.py", "extract",
         ("Fraction.__int__ and __trunc__ repeat the same branch on the sign of the numerator to divide "
          "towards zero. Factor that into a private method _truncated(self) returning the int, and have both "
          "dunder methods call it (__int__ still passes the result through _index).",
          "fractions: pull the round-toward-zero division shared by __int__/__trunc__ out into a "
          "Fraction._truncated() helper"),
         Behaves(("Fraction.__int__", "Fraction.__trunc__", "Fraction._truncated"), (
             (f"{_TRUNCATED}(m.Fraction)", "[-3, 3, -3, 0]"),
             ("__import__('math').trunc(m.Fraction(7, 2))", "3"),
             ("m.Fraction(-7, 2)._truncated()", "-3"),
             ("m.Fraction(9, 3)._truncated()", "3"),
             ("m.Fraction(-1, 3)._truncated()", "0"),
             ("type(int(m.Fraction(5, 2))).__name__", "'int'"),
             ("int(m.Fraction(-10**30 - 1, 10**10))", "-100000000000000000000")),
             calls=(("Fraction.__int__", "_truncated"), ("Fraction.__trunc__", "_truncated")))),
)

FRESH6: tuple[Task, ...] = PPRINT + CONTEXTLIB + HMAC + CALENDAR + FRACTIONS + BUGS
