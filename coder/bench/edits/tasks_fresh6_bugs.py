"""The bug tasks of ``coder bench --edits --set fresh6``: one bug put in by hand in each of its five modules.

Each runs on a copy under ``files/fresh6/bugs/`` and is judged by calling the code
(:class:`~coder.bench.edits.behaviour.Behaves`). They are reported the way users report bugs: what they saw,
sometimes naming a function, never the line, and the function named is not always the one with the bug.
:mod:`coder.bench.edits.tasks_fresh6` says how the set was written and that nothing may be tuned on it.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task

# the interpreter's own hmac and hashlib: the reference a case compares the file's MAC with
REF_HMAC = "__import__('hmac')"
HASHLIB = "__import__('hashlib')"
_NESTED = "(1, (2, (3, (4, (5, 6)))))"

BUGS: tuple[Task, ...] = (
    Task("bug-pprint-depth", "fresh6/bugs/pprint.py", "bugfix",
         ("pformat(depth=1) isn't limiting tuples and lists properly. pprint.pformat((1, (2, (3, (4,)))), depth=1) "
          "gives me '(1, (2, (...)))' where I expected '(1, (...))'. dicts get cut at the right level, only "
          "sequences show one level too many",
          "The depth option of pprint seems to be off by one for lists and tuples: whatever depth I ask for, "
          "nested sequences are printed one level deeper before the '...' placeholder appears. Nested dicts with "
          "the same depth are truncated where I'd expect. Could you make lists and tuples respect depth the same "
          "way dicts do?"),
         Behaves(("PrettyPrinter._safe_repr",), (
             (f"m.pformat({_NESTED}, depth=1)", "'(1, (...))'"),
             (f"m.pformat({_NESTED}, depth=2)", "'(1, (2, (...)))'"),
             ("m.pformat([1, [2, [3, [4]]]], depth=1)", "'[1, [...]]'"),
             ("m.pformat([[1]], depth=1)", "'[[...]]'"),
             ("m.pformat({'a': {'b': {}}}, depth=1)", "\"{'a': {...}}\""),
             ("m.pformat({'a': [1, [2]]}, depth=2)", "\"{'a': [1, [...]]}\""),
             (f"m.pformat({_NESTED})", "'(1, (2, (3, (4, (5, 6)))))'"),
             ("m.saferepr([1, (2, [3])])", "'[1, (2, [3])]'"))),
         symbol="PrettyPrinter._safe_repr"),
    Task("bug-contextlib-suppress", "fresh6/bugs/contextlib.py", "bugfix",
         ("with suppress(KeyError, IndexError): [][0] -- the IndexError isn't swallowed, it propagates. only the "
          "first exception type I pass to suppress seems to count. and suppress() with nothing in it blows up "
          "with IndexError when the block ends",
          "contextlib.suppress ignores every exception class after the first one. Suppressing a single type "
          "works, but with two or more types listed only the first is caught, and an empty suppress() crashes "
          "on leaving the with block even when nothing was raised. Please make it honour all the types given."),
         Behaves(("suppress.__exit__",), (
             ("m.suppress(KeyError, IndexError).__exit__(IndexError, IndexError(), None)", "True"),
             ("m.suppress(KeyError, IndexError).__exit__(KeyError, KeyError(), None)", "True"),
             ("m.suppress(KeyError).__exit__(LookupError, LookupError(), None)", "False"),
             ("m.suppress(LookupError).__exit__(KeyError, KeyError(), None)", "True"),
             ("m.suppress().__exit__(ValueError, ValueError(), None)", "False"),
             ("m.suppress().__exit__(None, None, None)", "False"),
             ("m.suppress(KeyError, TypeError).__exit__(None, None, None)", "False"),
             ("m.suppress(OSError, (KeyError, ValueError)).__exit__(ValueError, ValueError(), None)", "True"))),
         symbol="suppress.__exit__"),
    Task("bug-hmac-short-key", "fresh6/bugs/hmac.py", "bugfix",
         ("hmac.new(key, msg, hashlib.blake2b).digest() doesn't match hmac.digest(key, msg, hashlib.blake2b) for "
          "the same key and message, and neither our partner's implementation. With digestmod='sha256' the two "
          "agree. I think it only goes wrong for keys shorter than the hash's block size, a long key was fine",
          "HMAC objects give wrong MACs whenever the digest isn't handled by OpenSSL (blake2b, or a module passed "
          "as digestmod): the result differs from the one-shot hmac.digest() and from other libraries. Please "
          "make them agree again."),
         Behaves(("HMAC._init_old",), (
             (f"m.new(b'key', b'msg', {HASHLIB}.blake2b).digest() == m.digest(b'key', b'msg', {HASHLIB}.blake2b)",
              "True"),
             (f"m.new(b'key', b'msg', {HASHLIB}.blake2b).hexdigest() == "
              f"{REF_HMAC}.new(b'key', b'msg', {HASHLIB}.blake2b).hexdigest()", "True"),
             (f"(lambda h: (h._init_old(b'Jefe', b'what do ya want', 'sha256'), h.hexdigest())[1])"
              f"(m.HMAC.__new__(m.HMAC)) == {REF_HMAC}.new(b'Jefe', b'what do ya want', 'sha256').hexdigest()",
              "True"),
             (f"m.new(b'k' * 300, b'msg', {HASHLIB}.blake2s).digest() == "
              f"{REF_HMAC}.digest(b'k' * 300, b'msg', {HASHLIB}.blake2s)", "True"),
             (f"m.new(b'key', b'msg', 'sha256').digest() == {REF_HMAC}.digest(b'key', b'msg', 'sha256')", "True"))),
         symbol="HMAC._init_old"),
    Task("bug-calendar-timegm", "fresh6/bugs/calendar.py", "bugfix",
         ("calendar.timegm((1970, 1, 1, 0, 0, 0)) returns 86400 instead of 0. Looks like every timestamp it "
          "computes is exactly one day late, so time.gmtime(calendar.timegm(t)) no longer gives t back.",
          "timegm is off by a day (24h too far in the future), pls fix"),
         Behaves(("timegm",), (
             ("m.timegm((1970, 1, 1, 0, 0, 0))", "0"),
             ("m.timegm((2000, 1, 1, 0, 0, 0))", "946684800"),
             ("m.timegm((1969, 12, 31, 23, 59, 59))", "-1"),
             ("(lambda t: tuple(__import__('time').gmtime(m.timegm(t)))[:6] == t)((2024, 2, 29, 12, 30, 15))",
              "True"),
             ("m.timegm((2024, 3, 1, 0, 0, 0, 4, 61, 0))", "1709251200"))),
         symbol="timegm"),
    Task("bug-fractions-round-ties", "fresh6/bugs/fractions.py", "bugfix",
         ("round(Fraction(5, 2)) gives 3, but round(2.5) and round(Decimal('2.5')) both give 2. The docstring of "
          "Fraction.__round__ even says it rounds half toward even, yet 7/2 comes out as 3 as well. Non-halves "
          "look fine.",
          "fractions: round() on an exact half goes to the odd neighbour instead of the even one"),
         Behaves(("Fraction.__round__",), (
             ("round(m.Fraction(5, 2))", "2"),
             ("round(m.Fraction(7, 2))", "4"),
             ("round(m.Fraction(-5, 2))", "-2"),
             ("round(m.Fraction(3, 2))", "2"),
             ("round(m.Fraction(1, 3))", "0"),
             ("round(m.Fraction(7, 10))", "1"),
             ("round(m.Fraction(1, 4), 1)", "Fraction(1, 5)"),
             ("round(m.Fraction(35, 100), 1)", "Fraction(2, 5)"),
             ("type(round(m.Fraction(9, 2))).__name__", "'int'"))),
         symbol="Fraction.__round__"),
)
