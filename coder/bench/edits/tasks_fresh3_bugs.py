"""The bug tasks of ``coder bench --edits --set fresh3``: one bug put in by hand in each of its five modules.

Each runs on a copy under ``files/fresh3/bugs/`` and is judged by calling the code
(:class:`~coder.bench.edits.behaviour.Behaves`). They are reported the way users report bugs: what they saw,
sometimes naming the function, never the line. :mod:`coder.bench.edits.tasks_fresh3` says how the set was
written and that nothing may be tuned on it.
"""

from __future__ import annotations

import struct
import zlib

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task


def mo_file(catalog: dict[str, str]) -> bytes:
    """A little-endian GNU .mo file holding ``catalog`` (msgid to msgstr; ``ctx\\x04id``: with a context,
    ``one\\x00many``: plural forms), as msgfmt writes one."""
    keys = sorted(catalog)
    ids, strs = [k.encode() for k in keys], [catalog[k].encode() for k in keys]
    start = 28 + 16 * len(keys)  # the header and the two tables of (length, offset)
    id_table, str_table, data, offset = [], [], b"", start
    for blob in ids:
        id_table.append((len(blob), offset))
        data, offset = data + blob + b"\0", offset + len(blob) + 1
    for blob in strs:
        str_table.append((len(blob), offset))
        data, offset = data + blob + b"\0", offset + len(blob) + 1
    head = struct.pack("<7I", 0x950412de, 0, len(keys), 28, 28 + 8 * len(keys), 0, 0)
    tables = b"".join(struct.pack("<2I", n, o) for n, o in (*id_table, *str_table))
    return head + tables + data


def gzip_member(text: bytes, extra: bytes, name: bytes = b"") -> bytes:
    """One gzip member of ``text`` whose header has the FEXTRA field ``extra`` (and FNAME ``name`` if given)."""
    flags = 4 | (8 if name else 0)
    head = struct.pack("<BBBBIBBH", 0x1f, 0x8b, 8, flags, 0, 0, 255, len(extra)) + extra
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = raw.compress(text) + raw.flush()
    return head + (name + b"\0" if name else b"") + body + struct.pack("<II", zlib.crc32(text), len(text))


# the header entry of a catalog: UTF-8, two plural forms
MO_HEADER = "Content-Type: text/plain; charset=UTF-8\nPlural-Forms: nplurals=2; plural=n != 1;\n"
_MO = mo_file({"": MO_HEADER, "Open": "Offen", "menu\x04Open": "Öffnen", "menu\x04file\x00files": "Datei\x00Dateien",
               "verb\x04Close": "Schließen"})
# CPython's test_gzip's member with a 5-byte extra field, holding b'Test'
_WITH_EXTRA = (b"\x1f\x8b\x08\x04\xb2\x17cQ\x02\xff\x05\x00Extra\x0bI-.\x01\x002\xd1Mx\x04\x00\x00\x00")
_LONG_EXTRA = gzip_member(b"hello", b"BC\x02\x00" + bytes(296))
_NAMED = gzip_member(b"named", b"ab", b"n.txt")


def _translations(expr: str) -> str:
    """EXPR with t bound to the GNUTranslations of the catalog _MO."""
    return f"(lambda t: {expr})(m.GNUTranslations(__import__('io').BytesIO({_MO!r})))"


def said(expr: str, made: str = "m.InteractiveConsole()") -> str:
    """All that the console c (``made``) writes while EXPR runs, its write method replaced by a list's append."""
    return f"(lambda c, out: (setattr(c, 'write', out.append), {expr}, ''.join(out))[-1])({made}, [])"


# t.py (in the check's own temporary cwd) holding x = 1, then EXPR
_SOURCE = "(lambda p: (p.write_text('x = 1\\n'), {})[-1])(__import__('pathlib').Path('t.py'))"
# the flags word of the header of the .pyc file {!r}
_FLAGS = "int.from_bytes(open({!r}, 'rb').read()[4:8], 'little')"
# the snapshot taken before and the one after (raw traces: domain, size, frames most recent first, frame count)
_OLD = "m.Snapshot([(0, 66, (('b.py', 1),), 1), (0, 10, (('a.py', 2),), 1), (0, 7, (('a.py', 3),), 1)], 1)"
_NEW = "m.Snapshot([(0, 30, (('a.py', 2),), 1), (0, 400, (('c.py', 5),), 1)], 1)"
_DIFF = "[(str(s.traceback), s.size, s.size_diff, s.count, s.count_diff) for s in {}.compare_to({}, {!r})]"


def _compiled(mode: str, cfile: str) -> str:
    """t.py compiled to ``cfile`` with the invalidation mode ``mode``: (the returned path, the header's flags)."""
    return _SOURCE.format(f"(m.compile('t.py', {cfile!r}, invalidation_mode=m.PycInvalidationMode.{mode}), "
                         f"{_FLAGS.format(cfile)})")


BUGS: tuple[Task, ...] = (
    Task("bug-py_compile-hash", "fresh3/bugs/py_compile.py", "bugfix",
         ("py_compile: CHECKED_HASH and UNCHECKED_HASH look swapped. a pyc compiled with "
          "invalidation_mode=PycInvalidationMode.CHECKED_HASH has 0b01 in the flags field of its header, and the "
          "unchecked one gets 0b11",
          "Since the last update our reproducible builds (SOURCE_DATE_EPOCH is set) produce .pyc files that Python "
          "never validates against the source: the header marks them as unchecked hash-based pycs. They should "
          "be checked ones. Could you track this down in py_compile and fix it?"),
         Behaves(("compile",), (
             (_compiled("CHECKED_HASH", "c1.pyc"), "('c1.pyc', 3)"),
             (_compiled("UNCHECKED_HASH", "c2.pyc"), "('c2.pyc', 1)"),
             (_compiled("TIMESTAMP", "c3.pyc"), "('c3.pyc', 0)"),
             (_SOURCE.format("(__import__('os').environ.__setitem__('SOURCE_DATE_EPOCH', '1'), m.compile('t.py', "
                            f"'c4.pyc'), {_FLAGS.format('c4.pyc')}, "
                            "__import__('os').environ.pop('SOURCE_DATE_EPOCH'))[1:3]"), "('c4.pyc', 3)"),
             (_SOURCE.format("(__import__('os').environ.pop('SOURCE_DATE_EPOCH', None), m.compile('t.py', 'c5.pyc'), "
                            f"{_FLAGS.format('c5.pyc')})[1:]"), "('c5.pyc', 0)"))),
         symbol="compile"),
    Task("bug-code-traceback", "fresh3/bugs/code.py", "bugfix",
         ("every traceback in my InteractiveConsole starts with a frame from code.py itself (the exec line in "
          "runcode) before the <console> one. it didn't use to show that",
          "When a command typed into code.InteractiveConsole raises, the printed traceback includes the "
          "interpreter's own runcode frame. Only the frames of the user's code should appear, the way the real "
          "REPL does it."),
         Behaves(("InteractiveInterpreter.showtraceback",), (
             (said("c.push('1/0')") + ".splitlines()",
              "['Traceback (most recent call last):', '  File \"<console>\", line 1, in <module>', "
              "'ZeroDivisionError: division by zero']"),
             (said("[c.push(x) for x in ('def f():', '    return 1/0', '', 'f()')]") + ".count('  File ')", "2"),
             (said("c.push('1/0')") + ".count('module_under_test')", "0"),
             (said("c.runsource('1/0', 'x.py')", "m.InteractiveInterpreter()") + ".splitlines()[1]",
              "'  File \"x.py\", line 1, in <module>'"),
             (said("c.push('raise KeyError(7)')") + ".splitlines()[-1]", "'KeyError: 7'"))),
         symbol="InteractiveInterpreter.showtraceback"),
    Task("bug-tracemalloc-freed", "fresh3/bugs/tracemalloc.py", "bugfix",
         ("Snapshot.compare_to shows memory that was freed as growth. a line that only allocated in the old "
          "snapshot comes out with size_diff +66 instead of -66 (count_diff is -1 though)",
          "The tracemalloc diff is misleading: comparing two snapshots, the tracebacks that are gone from the new "
          "one are listed as if they had grown by their old size. Their size difference ought to be negative."),
         Behaves(("_compare_grouped_stats",), (
             (_DIFF.format(_NEW, _OLD, "lineno"),
              "[('c.py:5', 400, 400, 1, 1), ('b.py:1', 0, -66, 0, -1), ('a.py:2', 30, 20, 1, 0), "
              "('a.py:3', 0, -7, 0, -1)]"),
             (_DIFF.format(_NEW, _OLD, "filename"),
              "[('c.py:0', 400, 400, 1, 1), ('b.py:0', 0, -66, 0, -1), ('a.py:0', 30, 13, 1, -1)]"),
             (_DIFF.format(_OLD, _NEW, "lineno"),
              "[('c.py:5', 0, -400, 0, -1), ('b.py:1', 66, 66, 1, 1), ('a.py:2', 10, -20, 1, 0), "
              "('a.py:3', 7, 7, 1, 1)]"),
             (f"str({_NEW}.compare_to({_OLD}, 'lineno')[1])", "'b.py:1: size=0 B (-66 B), count=0 (-1)'"),
             (f"{_OLD}.compare_to({_OLD}, 'filename')[0].size_diff", "0"))),
         symbol="_compare_grouped_stats"),
    Task("bug-gettext-context", "fresh3/bugs/gettext.py", "bugfix",
         ("pgettext never translates anything for me. t.pgettext('menu', 'Open') gives back 'Open' even though "
          "the .mo has msgctxt \"menu\" msgid \"Open\" in it. npgettext with the same context works",
          "GNUTranslations.pgettext always falls through to the untranslated message (or to the fallback), even "
          "for entries with a context that are definitely in the catalog; gettext() and npgettext() on the same "
          "file behave. Please fix it."),
         Behaves(("GNUTranslations.pgettext",), (
             (_translations("t.pgettext('menu', 'Open')"), "'Öffnen'"),
             (_translations("t.pgettext('verb', 'Close')"), "'Schließen'"),
             (_translations("t.pgettext('verb', 'Open')"), "'Open'"),
             (_translations("(t.gettext('Open'), t.npgettext('menu', 'file', 'files', 2))"), "('Offen', 'Dateien')"),
             (_translations("(t.add_fallback(m.NullTranslations()), t.pgettext('nope', 'Quit'))[1]"), "'Quit'"))),
         symbol="GNUTranslations.pgettext"),
    Task("bug-gzip-extra", "fresh3/bugs/gzip.py", "bugfix",
         ("gzip can't read files with an FEXTRA field in the header (bgzip output for example): gzip.decompress "
          "raises EOFError: Compressed file ended before the end-of-stream marker was reached. plain .gz files "
          "are fine",
          "Reading a .gz member whose header carries the optional extra field fails in gzip.open(...).read() and "
          "in gzip.decompress() alike, with an EOFError as if the file were truncated. The same data without the "
          "extra field reads fine."),
         Behaves(("_read_gzip_header",), (
             (f"m.decompress({_WITH_EXTRA!r})", "b'Test'"),
             (f"m.GzipFile(fileobj=__import__('io').BytesIO({_WITH_EXTRA!r})).read()", "b'Test'"),
             (f"m.decompress({_LONG_EXTRA!r})", "b'hello'"),
             (f"m.decompress({_WITH_EXTRA + _LONG_EXTRA!r})", "b'Testhello'"),
             (f"m.GzipFile(fileobj=__import__('io').BytesIO({_NAMED!r})).read()", "b'named'"),
             ("m.decompress(m.compress(b'abc'))", "b'abc'"))),
         symbol="_read_gzip_header"),
)
