"""Hand-written results for the tasks of ``--set fresh6`` (:mod:`coder.bench.edits.tasks_fresh6`): a correct result
of each task whose check does not give one, and plausible wrong results, as edits on the task's original."""

from __future__ import annotations

from bench_sets import Edits

from coder.bench.edits.tasks_fresh6 import MAIN_BLOCK, PERFCHECK, PRINTER_CLASS, PRWEEK, PRWEEK_ALIAS, WRAP_BYTES

_SAFE_REPR = ("    def _safe_repr(self, object, context, maxlevels, level):\n"
              "        # Return triple (repr_string, isreadable, isrecursive).\n")
_SAFE_REPR_DOC = ('    def _safe_repr(self, object, context, maxlevels, level):\n'
                  '        """Return (repr, readable, recursive) for object, cut at maxlevels."""\n')
_CHDIR_ENTER = "        self._old_cwd.append(os.getcwd())\n        os.chdir(self.path)\n"
_POP = "        setattr(sys, self._stream, self._old_targets.pop())\n"
_SUPPRESS_INIT = "    def __init__(self, *exceptions):\n"
_CONS = ("        if callable(digestmod):\n            digest_cons = digestmod\n"
         "        elif isinstance(digestmod, str):\n"
         "            digest_cons = lambda d=b'': _hashlib.new(digestmod, d)\n"
         "        else:\n            digest_cons = lambda d=b'': digestmod.new(d)\n")
_CONS_DIGEST = ("    if callable(digest):\n        digest_cons = digest\n    elif isinstance(digest, str):\n"
                "        digest_cons = lambda d=b'': _hashlib.new(digest, d)\n    else:\n"
                "        digest_cons = lambda d=b'': digest.new(d)\n")
_CLASS_HMAC = "class HMAC:\n"
_HASH_CONS = ('def _hash_constructor(digestmod):\n    """A callable making a new hash object of digestmod."""\n'
              "    if callable(digestmod):\n        return digestmod\n    if isinstance(digestmod, str):\n"
              "        return lambda d=b'': _hashlib.new(digestmod, d)\n"
              "    return lambda d=b'': digestmod.new(d)\n\n\n")
_UPDATE = "    def update(self, msg):\n"
_HEXDIGEST = ('    def hexdigest(self):\n'
              '        """Like digest(), but returns a string of hexadecimal digits instead.\n'
              '        """\n        h = self._current()\n        return h.hexdigest()\n')
_HEXDIGEST_SEP = ('    def hexdigest(self, sep=None):\n        """Like digest(), but returns a string of hexadecimal '
                  'digits instead.\n        """\n        if sep is not None:\n'
                  '            return self.digest().hex(sep)\n'
                  '        h = self._current()\n        return h.hexdigest()\n')
_VERIFY = ('    def verify(self, signature):\n        """True when signature is this object\'s digest."""\n'
           "        return compare_digest(self.digest(), signature)\n\n")
_PAGE_DEF = "    def formatyearpage(self, theyear, width=3, css='calendar.css', encoding=None):\n"
_PAGE_TITLE = "        a('<title>Calendar for %d</title>\\n' % theyear)\n"
_TITLE_SET = ("        if title is None:\n            title = 'Calendar for %d' % theyear\n"
              "        a('<title>%s</title>\\n' % title)\n")
_TIMEGM_DEF = "def timegm(tuple):\n"
_NTH = ('def nth_weekday(year, month, weekday, n):\n    """The day of the month of its n-th weekday."""\n'
        "    first, ndays = monthrange(year, month)\n    day = 1 + (weekday - first) % 7 + 7 * (n - 1)\n"
        "    if n < 1 or day > ndays:\n        raise ValueError('no such day')\n    return day\n\n\n")
_CYCLE = "        year = 2000 + year % 400\n"
_COPY = "    def __copy__(self):\n"
_DEEPCOPY = "    def __deepcopy__(self, memo):\n"
_IS_INTEGER = ('    def is_integer(self):\n        """True for a whole number."""\n'
               "        return self._denominator == 1\n\n")
_INT_BODY = ('        """int(a)"""\n        if a._numerator < 0:\n'
             "            return _index(-(-a._numerator // a._denominator))\n        else:\n"
             "            return _index(a._numerator // a._denominator)\n")
_TRUNC_BODY = ('        """math.trunc(a)"""\n        if a._numerator < 0:\n'
               "            return -(-a._numerator // a._denominator)\n        else:\n"
               "            return a._numerator // a._denominator\n")
_TRUNCATED = ('\n    def _truncated(self):\n        """The integer part, rounded toward zero."""\n'
              "        if self._numerator < 0:\n            return -(-self._numerator // self._denominator)\n"
              "        return self._numerator // self._denominator\n")

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "pprint-docstring": ((_SAFE_REPR, _SAFE_REPR_DOC),),
    "contextlib-fix": ((_CHDIR_ENTER, _CHDIR_ENTER + "        return self._old_cwd[-1]\n"),),
    "contextlib-comment": ((_POP, "        # restore what the matching __enter__ saved (LIFO)\n" + _POP),),
    "contextlib-hints": ((_SUPPRESS_INIT, "    def __init__(self, *exceptions: type[BaseException]) -> None:\n"),),
    "hmac-extract": ((_CONS, "        digest_cons = _hash_constructor(digestmod)\n"),
                     (_CONS_DIGEST, "    digest_cons = _hash_constructor(digest)\n"),
                     (_CLASS_HMAC, _HASH_CONS + _CLASS_HMAC)),
    "hmac-method": ((_HEXDIGEST, _HEXDIGEST + "\n" + _VERIFY.rstrip("\n") + "\n"),),
    "hmac-hints": ((_UPDATE, "    def update(self, msg: bytes) -> None:\n"),),
    "hmac-param": ((_HEXDIGEST, _HEXDIGEST_SEP),),
    "calendar-param": ((_PAGE_DEF, _PAGE_DEF.replace("encoding=None)", "encoding=None, title=None)")),
                       (_PAGE_TITLE, _TITLE_SET)),
    "calendar-function": ((_TIMEGM_DEF, _NTH + _TIMEGM_DEF),),
    "calendar-comment": ((_CYCLE, "        # weekdays repeat every 400 years: map into datetime's range\n" + _CYCLE),),
    "fractions-docstring": ((_COPY, _COPY + '        """The same object if exact, else a rebuilt subclass."""\n'),),
    "fractions-method": ((_DEEPCOPY, _IS_INTEGER + _DEEPCOPY),),
    "fractions-extract": ((_INT_BODY, '        """int(a)"""\n        return _index(a._truncated())\n'),
                          (_TRUNC_BODY, '        """math.trunc(a)"""\n        return a._truncated()\n' + _TRUNCATED)),
}

# Plausible wrong results, one or more per task: each must fail the task's check.
WRONG: dict[str, tuple[Edits, ...]] = {
    "pprint-rename": (
        (("class _safe_key:", "class _SafeKey:"),),  # the uses left
        (("class _safe_key:", "class _SafeKey:"), ("    return _safe_key(t[0]), _safe_key(t[1])",
                                                   "    return _SafeKey(t[0]), _SafeKey(t[1])"),
         ('def _safe_tuple(t):', 'def _SafeTuple(t):')),),  # _safe_tuple renamed too
    "pprint-move": (
        ((WRAP_BYTES, ""), ("class _safe_key:\n", WRAP_BYTES + "\nclass _safe_key:\n")),  # above _safe_key
        ((WRAP_BYTES, ""), (PRINTER_CLASS, WRAP_BYTES + "\n" + PRINTER_CLASS), (MAIN_BLOCK, "")),),  # main gone
    "pprint-delete": (
        ((PERFCHECK, ""),),  # the __main__ block left
        ((PERFCHECK, ""), (MAIN_BLOCK, ""), (WRAP_BYTES, "")),),  # a used helper deleted too
    "pprint-docstring": (
        ((_SAFE_REPR, _SAFE_REPR.replace("# Return", "# Build the repr; return")),),  # a comment, no docstring
        ((_SAFE_REPR, _SAFE_REPR_DOC), ("        if issubclass(typ, int) and r is int.__repr__:\n",
                                        "        if issubclass(typ, int):\n")),),
    "contextlib-rename": (
        (("class _RedirectStream(AbstractContextManager):", "class _StreamRedirector(AbstractContextManager):"),),
        (("class _RedirectStream(AbstractContextManager):", "class _StreamRedirector(AbstractContextManager):"),
         ("class redirect_stdout(_RedirectStream):", "class redirect_stdout(_StreamRedirector):"),
         ("class redirect_stderr(_RedirectStream):", "class stderr_redirector(_StreamRedirector):")),),
    "contextlib-fix": (
        ((_CHDIR_ENTER, _CHDIR_ENTER + "        return os.getcwd()\n"),),  # the new directory
        ((_CHDIR_ENTER, _CHDIR_ENTER + "        return self.path\n"),),),
    "contextlib-comment": (
        (("        self._old_targets.append(getattr(sys, self._stream))\n",
          "        # saved for __exit__, last in first out\n"
          "        self._old_targets.append(getattr(sys, self._stream))\n"),),
        ((_POP, _POP + "        # LIFO: reentrant\n"),),),  # below the line
    "contextlib-hints": (
        ((_SUPPRESS_INIT, "    def __init__(self, *exceptions: type[BaseException]):\n"),),
        ((_SUPPRESS_INIT, "    def __init__(self, *exceptions: Type[BaseException]) -> None:\n"),),),  # no import
    "hmac-extract": (
        ((_CONS, "        digest_cons = _hash_constructor(digestmod)\n"),
         (_CONS_DIGEST, "    digest_cons = _hash_constructor(digest)\n"),
         (_CLASS_HMAC, _HASH_CONS.replace("    if callable(digestmod):\n        return digestmod\n", "")
          .replace("    return lambda d=b'': digestmod.new(d)\n", "    return digestmod\n")
          + _CLASS_HMAC)),  # modules taken for constructors
        ((_CONS, "        digest_cons = _hash_constructor(digestmod)\n"),
         (_CLASS_HMAC, _HASH_CONS + _CLASS_HMAC)),),  # digest() keeps its copy
    "hmac-method": (
        ((_HEXDIGEST, _HEXDIGEST + "\n" + _VERIFY.replace("compare_digest(self.digest(), signature)",
                                                          "self.digest() == signature").rstrip("\n") + "\n"),),
        ((_HEXDIGEST, _HEXDIGEST + "\n" + _VERIFY.replace("self.digest()", "self.hexdigest()").rstrip("\n")
          + "\n"),),),  # a str against bytes
    "hmac-hints": (
        ((_UPDATE, "    def update(self, msg: bytes):\n"),),
        ((_UPDATE, "    def update(self, msg: ReadableBuffer) -> None:\n"),),),  # never imported
    "hmac-param": (
        ((_HEXDIGEST, _HEXDIGEST_SEP.replace("sep=None", "sep=''").replace("if sep is not None", "if True")),),
        ((_HEXDIGEST, _HEXDIGEST_SEP.replace("self.digest().hex(sep)", "sep.join(h.hexdigest())")
          .replace("        if sep is not None:\n", "        h = self._current()\n        if sep is not None:\n")),),),
    "calendar-param": (
        ((_PAGE_DEF, _PAGE_DEF.replace("encoding=None)", "encoding=None, title=None)")),
         (_PAGE_TITLE, "        a('<title>%s</title>\\n' % title)\n")),  # None printed
        ((_PAGE_DEF, _PAGE_DEF.replace("encoding=None)", "encoding=None, title=None)")),
         (_PAGE_TITLE, "        a('<title>Calendar for %d %s</title>\\n' % (theyear, title or ''))\n")),),
    "calendar-function": (
        ((_TIMEGM_DEF, _NTH.replace("7 * (n - 1)", "7 * n") + _TIMEGM_DEF),),  # one week late
        ((_TIMEGM_DEF, _NTH.replace("    if n < 1 or day > ndays:\n        raise ValueError('no such day')\n", "")
          + _TIMEGM_DEF),),  # past the month's end
        ((_TIMEGM_DEF, _NTH.replace("first, ndays = monthrange(year, month)",
                                    "first, ndays = monthrange(year, month)\n"
                                    "    first = (first - c.firstweekday) % 7") + _TIMEGM_DEF),),),
    "calendar-delete": (
        ((PRWEEK, ""),),  # the alias left, now broken
        ((PRWEEK, ""), (PRWEEK_ALIAS, ""), ("week = c.formatweek\n", "")),),
    "calendar-comment": (
        (("    if not datetime.MINYEAR <= year <= datetime.MAXYEAR:\n",
          "    # 400-year cycle\n    if not datetime.MINYEAR <= year <= datetime.MAXYEAR:\n"),),
        (("    day1 = weekday(year, month, 1)\n",
          "    # the 400-year cycle of weekday()\n    day1 = weekday(year, month, 1)\n"),),),
    "fractions-rename": (
        (("    def _richcmp(self, other, op):", "    def _compare(self, other, op):"),),),
    "fractions-docstring": (
        ((_DEEPCOPY, _DEEPCOPY + '        """Copies are the same object."""\n'),),
        ((_COPY + "        if type(self) == Fraction:\n", _COPY + '        """Copy."""\n'
          "        if type(self) is Fraction:\n"),),),
    "fractions-method": (
        ((_DEEPCOPY, _IS_INTEGER.replace("self._denominator == 1", "float(self).is_integer()") + _DEEPCOPY),),
        ((_DEEPCOPY, _IS_INTEGER.replace("self._denominator == 1",
                                         "self._numerator / self._denominator == int(self)") + _DEEPCOPY),),),
    "fractions-extract": (
        ((_INT_BODY, '        """int(a)"""\n        return _index(a._truncated())\n'),
         (_TRUNC_BODY, '        """math.trunc(a)"""\n        return a._truncated()\n'
          '\n    def _truncated(self):\n        return self._numerator // self._denominator\n')),  # floors
        ((_TRUNC_BODY, '        """math.trunc(a)"""\n        return a._truncated()\n' + _TRUNCATED),),),  # __int__
    "bug-pprint-depth": (
        (("            if maxlevels and level > maxlevels:\n                return format",
          "            if maxlevels and level + 1 > maxlevels:\n                return format"),
         ("            if maxlevels and level >= maxlevels:\n                return \"{...}\"",
          "            if maxlevels and level + 1 >= maxlevels:\n                return \"{...}\"")),),
    "bug-contextlib-suppress": (
        (("issubclass(exctype, self._exceptions[0])", "exctype in self._exceptions"),),  # subclasses missed
        (("issubclass(exctype, self._exceptions[0])", "issubclass(exctype, self._exceptions[-1])"),),),
    "bug-hmac-short-key": (
        (("        key = key.rjust(blocksize, b'\\0')\n", "        key = key.ljust(self.blocksize, b'\\0')\n"),),),
    "bug-calendar-timegm": (
        (("    days = datetime.date(year, month, 1).toordinal() - _EPOCH_ORD + day\n",
          "    days = datetime.date(year, month, day).toordinal() - _EPOCH_ORD - 1\n"),),),
    "bug-fractions-round-ties": (
        (("            elif floor % 2 == 1:\n", "            elif floor % 2 == 1 or floor < 0:\n"),),
        (("            elif floor % 2 == 1:\n", "            elif True:\n"),),),
}
