"""Hand-written results for the tasks of ``--set fresh10`` (:mod:`coder.bench.edits.tasks_fresh10`): a correct result
of each task whose check does not give one, and plausible wrong results, as edits on the task's original."""

from __future__ import annotations

from bench_sets import Edits

from coder.bench.edits.tasks_fresh10 import MAIN, MATCH_ABBREV, MS_BRANCH, MS_CLOSE, OPTION_PARSER, TEST_PROGRAM

# secrets
_TOKEN_HEX = "def token_hex(nbytes=None):\n"
_TOKEN_HEX_HINTED = "def token_hex(nbytes: int | None = None) -> str:\n"
_DEFAULT = "DEFAULT_ENTROPY = 32  # number of bytes to return by default\n"
_RANDINT = ("def randint(a, b):\n    if b < a:\n        raise ValueError('empty range for randint')\n"
            "    return a + randbelow(b - a + 1)\n\n")
_ALL = "           'compare_digest',\n           ]\n"
_ALL_RANDINT = "           'compare_digest', 'randint',\n           ]\n"
_URLSAFE_RET = "    return base64.urlsafe_b64encode(tok).rstrip(b'=').decode('ascii')\n"
_URLSAFE_TOK = "    tok = token_bytes(nbytes)\n"
_DEFAULT_USE = "        nbytes = DEFAULT_ENTROPY\n"
_BYTES_BUG = "        nbytes = DEFAULT_ENTROPY // 2\n"

# _markupbase
_SCAN_NAME = "    def _scan_name(self, i, declstartpos):\n"
_PE_BRANCH = ('            elif c == "%":\n                # parameter entity reference\n'
              "                if (j + 1) == n:\n                    # end of buffer; incomplete\n"
              "                    return -1\n                s, j = self._scan_name(j + 1, declstartpos)\n"
              "                if j < 0:\n                    return j\n"
              '                if rawdata[j] == ";":\n                    j = j + 1\n')
_PE_CALL = ('            elif c == "%":\n                # parameter entity reference\n'
            "                j = self._scan_pe_reference(j, declstartpos)\n                if j < 0:\n"
            "                    return j\n")
_ELEMENT = "    # Internal -- scan past <!ELEMENT declarations\n"
_PE_METHOD = ("    def _scan_pe_reference(self, i, declstartpos):\n        rawdata = self.rawdata\n"
              "        if (i + 1) == len(rawdata):\n            # end of buffer; incomplete\n            return -1\n"
              "        s, j = self._scan_name(i + 1, declstartpos)\n        if j < 0:\n            return j\n"
              '        if rawdata[j] == ";":\n            j = j + 1\n        return j\n\n')
_SCAN_CALLS = ("        sectName, j = self._scan_name( i+3, i )\n", "            decltype, j = self._scan_name(j, i)\n")
_COMMENT_BUG = "            self.handle_comment(rawdata[i+4: j+1])\n"

# random
_GETSTATE = ('    def getstate(self):\n        """Return internal state; can be passed to setstate() later."""\n'
             "        return self.VERSION, super().getstate(), self.gauss_next\n\n")
_CLONE = ("    def clone(self):\n        new = type(self)()\n        new.setstate(self.getstate())\n"
          "        return new\n\n")
_RANDINT_DEF = "    def randint(self, a, b):\n"
_RANDINT_RET = "        return self.randrange(a, b+1)\n"
_EXPO_RET = "        return -_log(1.0 - self.random()) / lambd\n"
_EXPO_CHECK = "        if lambd == 0:\n            raise ValueError('lambd must be non-zero')\n"
_FORK = '    _os.register_at_fork(after_in_child=_inst.seed)\n'
_UNIFORM_BUG = "        return a + b * self.random()\n"

# optparse
_CVT = '_builtin_cvt = { "int" : (_parse_int, _("integer")),\n'
_CVT_USE = "    (cvt, what) = _builtin_cvt[option.type]\n"
_PARSE_NUM = "def _parse_num(val, type):\n"
_PARSE_INT = "def _parse_int(val):\n"
_DVAL = "                if dval is not None:\n"
_DICT_ATTR = "            if attr in dict:\n"
_LOOSE = "        self.__dict__.update(dict)\n"
_OPTION_GROUP = "class OptionGroup (OptionContainer):\n"
_ABBREV_BUG = "        if len(possibilities) >= 1:\n"

# difflib
_HEADERS_U = ("            fromdate = '\\t{}'.format(fromfiledate) if fromfiledate else ''\n"
              "            todate = '\\t{}'.format(tofiledate) if tofiledate else ''\n"
              "            yield '--- {}{}{}'.format(fromfile, fromdate, lineterm)\n"
              "            yield '+++ {}{}{}'.format(tofile, todate, lineterm)\n")
_HEADERS_C = ("            fromdate = '\\t{}'.format(fromfiledate) if fromfiledate else ''\n"
              "            todate = '\\t{}'.format(tofiledate) if tofiledate else ''\n"
              "            yield '*** {}{}{}'.format(fromfile, fromdate, lineterm)\n"
              "            yield '--- {}{}{}'.format(tofile, todate, lineterm)\n")
_USE_U = ("            yield _format_file_header('---', fromfile, fromfiledate, lineterm)\n"
          "            yield _format_file_header('+++', tofile, tofiledate, lineterm)\n")
_USE_C = ("            yield _format_file_header('***', fromfile, fromfiledate, lineterm)\n"
          "            yield _format_file_header('---', tofile, tofiledate, lineterm)\n")
_UNIFIED = "def unified_diff(a, b, fromfile='', tofile='', fromfiledate='',\n"
_HEADER_FN = ("def _format_file_header(marker, filename, filedate, lineterm):\n"
              "    date = '\\t{}'.format(filedate) if filedate else ''\n"
              "    return '{} {}{}{}'.format(marker, filename, date, lineterm)\n\n")
_RANGE_CONTEXT = "def _format_range_context(start, stop):\n"
_RANGE_UNIFIED = "def _format_range_unified(start, stop):\n"
_REAL_QUICK = "    def real_quick_ratio(self):\n"
_SIMILAR = ("    def is_similar(self, cutoff=0.6):\n        return (self.real_quick_ratio() >= cutoff and\n"
            "                self.quick_ratio() >= cutoff and\n                self.ratio() >= cutoff)\n\n")
_CLOSE_DEF = "def get_close_matches(word, possibilities, n=3, cutoff=0.6):\n"
_CLOSE_SEQ2 = "    s.set_seq2(word)\n"
_CLOSE_SEQ1 = "        s.set_seq1(x)\n"
_RANGE_BUG = "    length = stop - start + 1\n"
_RANGE_FIXED_LINES = ("    beginning = start + 1     # lines start numbering with one\n    length = stop - start + 1\n"
                      "    if length == 1:\n")

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "secrets-hints": ((_TOKEN_HEX, _TOKEN_HEX_HINTED),),
    "secrets-function": ((_DEFAULT, _RANDINT + _DEFAULT),),
    "secrets-comment": ((_URLSAFE_RET, "    # base64 pads with '=', which would need escaping in a URL\n"
                         + _URLSAFE_RET),),
    "markupbase-docstring": ((_SCAN_NAME, _SCAN_NAME + '        """The lowercased name at i and the index after it, '
                              'or (None, -1) at the end."""\n'),),
    "markupbase-extract": ((_PE_BRANCH, _PE_CALL), (_ELEMENT, _PE_METHOD + _ELEMENT)),
    "random-method": ((_GETSTATE, _GETSTATE + _CLONE),),
    "random-param": ((_RANDINT_DEF, "    def randint(self, a, b, step=1):\n"),
                     (_RANDINT_RET, "        return self.randrange(a, b+1, step)\n")),
    "random-fix": ((_EXPO_RET, _EXPO_CHECK + _EXPO_RET),),
    "optparse-docstring": ((_PARSE_NUM, _PARSE_NUM + '    """Parse val as an integer: 0x hex, 0b binary, 0 octal, '
                            'else decimal."""\n'),),
    "optparse-comment": ((_DVAL, "                # None means not given: keep the value already there\n"
                          + _DVAL),),
    "difflib-extract": ((_HEADERS_U, _USE_U), (_HEADERS_C, _USE_C), (_UNIFIED, _HEADER_FN + _UNIFIED)),
    "difflib-hints": ((_RANGE_CONTEXT, "def _format_range_context(start: int, stop: int) -> str:\n"),),
    "difflib-method": ((_REAL_QUICK, _SIMILAR + _REAL_QUICK),),
    "difflib-param": ((_CLOSE_DEF, "def get_close_matches(word, possibilities, n=3, cutoff=0.6, ignore_case=False):\n"),
                      (_CLOSE_SEQ2, "    s.set_seq2(word.lower() if ignore_case else word)\n"),
                      (_CLOSE_SEQ1, "        s.set_seq1(x.lower() if ignore_case else x)\n")),
}

# The correct results some checks must also take (a new function listed in __all__, a comment at the line's end).
ALSO_RIGHT: dict[str, tuple[Edits, ...]] = {
    "secrets-function": (((_DEFAULT, _RANDINT + _DEFAULT), (_ALL, _ALL_RANDINT)),
                         ((_DEFAULT, _RANDINT.replace("    if b < a:\n        raise ValueError('empty range for "
                                                      "randint')\n", "") + _DEFAULT),)),
    "secrets-comment": (((_URLSAFE_RET, _URLSAFE_RET.rstrip("\n") + "  # no '=' padding: safe in URLs\n"),),),
    "markupbase-delete": (((MS_CLOSE, ""), (MS_BRANCH, ""),
                           ("# An analysis of the MS-Word extensions is available at\n"
                            "# http://www.planetpublish.com/xmlarena/xap/Thursday/WordtoXML.pdf\n", "")),),
    "random-fix": (((_EXPO_RET, "        try:\n            return -_log(1.0 - self.random()) / lambd\n"
                                "        except ZeroDivisionError:\n"
                                "            raise ValueError('lambd must be non-zero') from None\n"),),),
}

# Plausible wrong results, two or more per task: each must fail the task's check.
WRONG: dict[str, tuple[Edits, ...]] = {
    "secrets-hints": (
        ((_TOKEN_HEX, "def token_hex(nbytes: int | None = None):\n"),),
        ((_TOKEN_HEX, "def token_hex(nbytes=None) -> str:\n"),),
        ((_TOKEN_HEX, "def token_hex(nbytes: Optional[int] = None) -> str:\n"),),  # Optional never imported
        ((_TOKEN_HEX, _TOKEN_HEX_HINTED),
         ("def token_bytes(nbytes=None):\n", "def token_bytes(nbytes: int | None = None) -> bytes:\n")),),
    "secrets-function": (
        ((_DEFAULT, _RANDINT.replace("randbelow(b - a + 1)", "randbelow(b - a)") + _DEFAULT),),  # b never drawn
        ((_DEFAULT, _RANDINT.replace("a + randbelow(b - a + 1)", "randbelow(b + 1)") + _DEFAULT),),
        ((_DEFAULT, _RANDINT.replace("    if b < a:\n", "    if b <= a:\n") + _DEFAULT),),  # randint(3, 3) raises
        ((_DEFAULT, _RANDINT + _DEFAULT), (_ALL, "           'rand_int',\n           ]\n")),  # __all__ wrong
        ((_DEFAULT, _RANDINT + _DEFAULT), ("randbits = _sysrand.getrandbits\n", "randbits = _sysrand.randbits\n")),),
    "secrets-rename": (
        ((_DEFAULT, _DEFAULT.replace("DEFAULT_ENTROPY", "DEFAULT_NBYTES")),),
        ((_DEFAULT_USE, _DEFAULT_USE.replace("DEFAULT_ENTROPY", "DEFAULT_NBYTES")),),
        ((_DEFAULT, _DEFAULT.replace("DEFAULT_ENTROPY", "DEFAULT_NBYTES") + "DEFAULT_ENTROPY = DEFAULT_NBYTES\n"),
         (_DEFAULT_USE, _DEFAULT_USE.replace("DEFAULT_ENTROPY", "DEFAULT_NBYTES"))),),  # the old name kept
    "secrets-comment": (
        ((_URLSAFE_TOK, "    # padding is stripped below so the token is URL-safe\n" + _URLSAFE_TOK),),
        (("    return binascii.hexlify(token_bytes(nbytes)).decode('ascii')\n",
          "    # no padding in hex\n    return binascii.hexlify(token_bytes(nbytes)).decode('ascii')\n"),),
        ((_URLSAFE_RET, "    # strip the padding for URLs\n"
                        "    return base64.urlsafe_b64encode(tok).decode('ascii').replace('=', '')\n"),),),
    "markupbase-docstring": (
        ((_SCAN_NAME, _SCAN_NAME + "        # returns (name, end) or (None, -1)\n"),),
        (('    """Parser base class which provides some common support methods used\n',
          '    """Parser base class; _scan_name reads a name token. Support methods used\n'),),
        ((_SCAN_NAME, _SCAN_NAME + '        """Scan a name token."""\n'),
         ("            return name.lower(), m.end()\n", "            return name, m.end()\n")),),
    "markupbase-extract": (
        ((_ELEMENT, _PE_METHOD + _ELEMENT),),  # the branch keeps its copy
        ((_PE_BRANCH, _PE_CALL), (_ELEMENT, _PE_METHOD.replace('        if rawdata[j] == ";":\n'
                                                               "            j = j + 1\n", "") + _ELEMENT)),  # ';' kept
        ((_PE_BRANCH, _PE_CALL.replace("self._scan_pe_reference(j, declstartpos)",
                                       "self._scan_pe_reference(j + 1, declstartpos)")),
         (_ELEMENT, _PE_METHOD.replace("(i + 1) == len(rawdata)", "i == len(rawdata)")
          .replace("self._scan_name(i + 1, declstartpos)", "self._scan_name(i, declstartpos)") + _ELEMENT)),
        ((_PE_BRANCH, _PE_CALL.replace("self._scan_pe_reference(j,", "_scan_pe_reference(self, j,")),
         ("class ParserBase:\n", _PE_METHOD.replace("\n    ", "\n").replace("    def ", "def ", 1)
          + "\nclass ParserBase:\n")),),  # a module function
    "markupbase-rename": (
        ((_SCAN_NAME, "    def _scan_token(self, i, declstartpos):\n"),),
        ((_SCAN_CALLS[0], _SCAN_CALLS[0].replace("_scan_name", "_scan_token")),
         (_SCAN_CALLS[1], _SCAN_CALLS[1].replace("_scan_name", "_scan_token"))),
        ((_SCAN_NAME, "    def _scan_token(self, i, declstartpos):\n"),
         (_SCAN_CALLS[0], _SCAN_CALLS[0].replace("_scan_name", "_scan_token")),
         (_SCAN_CALLS[1], _SCAN_CALLS[1].replace("_scan_name", "_scan_token"))),),  # the doctype parsers' calls left
    "markupbase-delete": (
        ((MS_BRANCH, ""),),  # the pattern left
        ((MS_CLOSE, ""),),  # the branch left, a NameError waiting
        ((MS_CLOSE, ""), (MS_BRANCH, ""), ("_markedsectionclose = re.compile(r']\\s*]\\s*>')\n", "")),
        ((MS_CLOSE, ""), (MS_BRANCH, '        elif sectName in {"if", "else", "endif"}:\n'
                                     "            return -1\n")),),
    "random-delete": (
        ((TEST_PROGRAM, ""),),  # the __main__ block left, calling a missing _test
        ((MAIN, "\n"),),
        ((TEST_PROGRAM, ""), (MAIN, "\n"), ("if hasattr(_os, \"fork\"):\n" + _FORK, "")),  # the fork hook too
        ((TEST_PROGRAM, ""), (MAIN, "\n"), ("from itertools import accumulate as _accumulate, repeat as _repeat\n",
                                            "from itertools import accumulate as _accumulate\n")),),  # still used
    "random-method": (
        ((_GETSTATE, _GETSTATE + "    def clone(self):\n        return self\n\n"),),
        ((_GETSTATE, _GETSTATE + _CLONE.replace("type(self)()", "Random()")),),
        ((_GETSTATE, _GETSTATE + _CLONE.replace("new.setstate(self.getstate())",
                                                "new.seed(self.getrandbits(64))")),),
        ((_GETSTATE, _GETSTATE + _CLONE.replace("new.setstate(self.getstate())",
                                                "new.setstate((self.VERSION, super().getstate(), None))")),),),
    "random-param": (
        ((_RANDINT_DEF, "    def randint(self, a, b, step=1):\n"),),  # step ignored
        ((_RANDINT_DEF, "    def randint(self, a, b, step=1):\n"),
         (_RANDINT_RET, "        return self.randrange(a, b, step)\n")),  # b excluded
        ((_RANDINT_DEF, "    def randint(self, a, b, step=1):\n"),
         (_RANDINT_RET, "        return self.randrange(a, b + step, step)\n")),
        ((_RANDINT_DEF, "    def randint(self, a, b, step=1):\n"),
         (_RANDINT_RET, "        return a + step * self._randbelow((b - a) // step + 1)\n")),),  # other numbers
    "random-fix": (
        ((_EXPO_RET, "        if not lambd:\n            raise ZeroDivisionError('lambd must be non-zero')\n"
                     + _EXPO_RET),),
        ((_EXPO_RET, "        if lambd <= 0:\n            raise ValueError('lambd must be positive')\n"
                     + _EXPO_RET),),  # negative rates refused
        ((_EXPO_RET, "        return -_log(1.0 - self.random()) / (lambd or 1.0)\n"),),),
    "optparse-rename": (
        ((_CVT, _CVT.replace("_builtin_cvt", "_builtin_converters")),),
        ((_CVT_USE, _CVT_USE.replace("_builtin_cvt", "_builtin_converters")),),
        ((_CVT, _CVT.replace("_builtin_cvt", "_builtin_converters")),
         (_CVT_USE, "    (converter, what) = _builtin_converters[option.type]\n"),
         ("        return cvt(value)\n", "        return converter(value)\n")),),  # a local renamed as well
    "optparse-docstring": (
        ((_PARSE_INT, _PARSE_INT + '    """Parse val as an int: 0x, 0b, 0 prefixes understood."""\n'),),
        ((_PARSE_NUM, _PARSE_NUM + "    # 0x hex, 0b binary, 0 octal, else decimal\n"),),
        ((_PARSE_NUM, _PARSE_NUM + '    """Parse val in the base its prefix says."""\n'),
         ('    elif val[:1] == "0":                # octal\n', '    elif val[:2] == "0o":               # octal\n')),),
    "optparse-comment": (
        ((_DICT_ATTR, "            # None never overwrites an existing value\n" + _DICT_ATTR),),
        (("                    setattr(self, attr, dval)\n",
          "                    # None never overwrites an existing value\n"
          "                    setattr(self, attr, dval)\n"),),
        ((_LOOSE, "        # None never overwrites an existing value\n" + _LOOSE),),
        ((_DVAL, "                # None means not given\n                if dval:\n"),),),
    "optparse-move": (
        ((OPTION_PARSER, MATCH_ABBREV + "\n\n" + OPTION_PARSER),),  # copied, not moved
        ((MATCH_ABBREV, ""), (_OPTION_GROUP, MATCH_ABBREV + "\n\n" + _OPTION_GROUP)),  # above OptionGroup
        ((MATCH_ABBREV, ""), ("class OptParseError (Exception):\n",
                              MATCH_ABBREV + "\n\nclass OptParseError (Exception):\n")),  # to the top
        ((MATCH_ABBREV, ""), (OPTION_PARSER, MATCH_ABBREV.replace("    if s in wordmap:\n        return s\n"
                                                                  "    else:\n", "    if True:\n")
                              + "\n\n" + OPTION_PARSER)),),  # changed on the way
    "difflib-extract": (
        ((_HEADERS_U, _USE_U), (_UNIFIED, _HEADER_FN + _UNIFIED)),  # context_diff keeps its copy
        ((_HEADERS_U, _USE_U), (_HEADERS_C, _USE_C),
         (_UNIFIED, _HEADER_FN.replace("'\\t{}'", "' {}'") + _UNIFIED)),  # a space for the tab
        ((_HEADERS_U, _USE_U), (_HEADERS_C, _USE_C.replace("'***', fromfile", "'---', fromfile")
                                .replace("'---', tofile", "'***', tofile")), (_UNIFIED, _HEADER_FN + _UNIFIED)),
        ((_HEADERS_U, _USE_U), (_HEADERS_C, _USE_C),
         (_UNIFIED, _HEADER_FN.replace("    return '{} {}{}{}'.format(marker, filename, date, lineterm)\n",
                                       "    return '{} {}{}'.format(marker, filename, lineterm)\n") + _UNIFIED)),),
    "difflib-hints": (
        ((_RANGE_UNIFIED, "def _format_range_unified(start: int, stop: int) -> str:\n"),),
        ((_RANGE_CONTEXT, "def _format_range_context(start: int, stop: int) -> str:\n"),
         (_RANGE_UNIFIED, "def _format_range_unified(start: int, stop: int) -> str:\n")),
        ((_RANGE_CONTEXT, "def _format_range_context(start: int, stop: int):\n"),),),
    "difflib-method": (
        ((_REAL_QUICK, _SIMILAR.replace(">= cutoff)", "> cutoff)") + _REAL_QUICK),),
        ((_REAL_QUICK, _SIMILAR.replace("cutoff=0.6", "cutoff=0.8") + _REAL_QUICK),),
        ((_REAL_QUICK, "    def is_similar(self, cutoff=0.6):\n        return self.ratio() if self.ratio() >= cutoff "
                       "else False\n\n" + _REAL_QUICK),),
        ((_REAL_QUICK, _SIMILAR.replace("self.ratio() >= cutoff)", "self.quick_ratio() >= cutoff)")
          + _REAL_QUICK),),),  # only the upper bounds
    "difflib-param": (
        ((_CLOSE_DEF, "def get_close_matches(word, possibilities, n=3, cutoff=0.6, ignore_case=False):\n"),),
        ((_CLOSE_DEF, "def get_close_matches(word, possibilities, n=3, cutoff=0.6, ignore_case=False):\n"),
         (_CLOSE_SEQ2, "    s.set_seq2(word.lower() if ignore_case else word)\n")),  # the candidates keep their case
        ((_CLOSE_DEF, "def get_close_matches(word, possibilities, n=3, cutoff=0.6, ignore_case=False):\n"),
         (_CLOSE_SEQ2, "    s.set_seq2(word.lower() if ignore_case else word)\n"),
         ("    for x in possibilities:\n        s.set_seq1(x)\n",
          "    for x in possibilities:\n        if ignore_case:\n            x = x.lower()\n"
          "        s.set_seq1(x)\n")),  # returns them lowercased
        ((_CLOSE_DEF, "def get_close_matches(word, possibilities, n=3, cutoff=0.6, ignore_case=True):\n"),
         (_CLOSE_SEQ2, "    s.set_seq2(word.lower() if ignore_case else word)\n"),
         (_CLOSE_SEQ1, "        s.set_seq1(x.lower() if ignore_case else x)\n")),),  # on by default
    "bug-secrets-default": (
        ((_BYTES_BUG, "        nbytes = 32\n"),),
        ((_BYTES_BUG, "        nbytes = DEFAULT_ENTROPY * 2\n"),),
        (("    if nbytes is None:\n" + _BYTES_BUG, "    if not nbytes:\n        nbytes = DEFAULT_ENTROPY\n"),),
        (("    return binascii.hexlify(token_bytes(nbytes)).decode('ascii')\n",
          "    return binascii.hexlify(token_bytes(nbytes or DEFAULT_ENTROPY)).decode('ascii')\n"),),),
    "bug-markupbase-comment": (
        ((_COMMENT_BUG, "            self.handle_comment(rawdata[i+4: j-1])\n"),),
        ((_COMMENT_BUG, "            self.handle_comment(rawdata[i+4: j+1].rstrip('-'))\n"),),  # '<!---->' loses
        ((_COMMENT_BUG, "            self.handle_comment(rawdata[i+4: match.end(0) - 3])\n"),),  # '-- >' breaks
        ((_COMMENT_BUG, "            self.handle_comment(rawdata[i+3: j])\n"),),),
    "bug-random-uniform": (
        ((_UNIFORM_BUG, "        return (b - a) * self.random()\n"),),
        ((_UNIFORM_BUG, "        return min(a + b * self.random(), b)\n"),),
        ((_UNIFORM_BUG, "        return a + (b - a) * self.random() + a\n"),),
        ((_UNIFORM_BUG, "        return a + abs(b - a) * self.random()\n"),),),  # swapped bounds overshoot
    "bug-optparse-ambiguous": (
        ((_ABBREV_BUG, "        if len(possibilities) <= 1:\n"),),  # no match: IndexError
        ((_ABBREV_BUG, "        if len(possibilities) == 2:\n"),),
        ((_ABBREV_BUG, "        if possibilities:\n"),),
        (("    if s in wordmap:\n        return s\n", "    if s in wordmap and False:\n        return s\n"),
         (_ABBREV_BUG, "        if len(possibilities) == 1:\n")),),  # exact names now ambiguous
    "bug-difflib-hunk-length": (
        ((_RANGE_BUG, "    length = stop - start - 1\n"),),
        ((_RANGE_FIXED_LINES, _RANGE_FIXED_LINES.replace("length == 1", "length == 2")),),
        ((_RANGE_BUG, "    length = stop - start\n"),
         ("    if not length:\n        beginning -= 1        # empty ranges begin at line just before the range\n"
          "    return '{},{}'.format(beginning, length)\n\ndef unified_diff",
          "    return '{},{}'.format(beginning, length)\n\ndef unified_diff")),),  # empty ranges off
}
