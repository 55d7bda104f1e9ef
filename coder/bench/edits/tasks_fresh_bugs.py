"""The bug tasks of ``coder bench --edits --set fresh``: one bug put in by hand in each of its five modules.

Each runs on a copy under ``files/fresh/bugs/`` and is judged by calling the code
(:class:`~coder.bench.edits.behaviour.Behaves`). One wording describes the symptom as a user sees it,
the other names the function. :mod:`coder.bench.edits.tasks_fresh` says how the set was written and
that nothing may be tuned on it.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task

# m.Cmd().columnize(...) with its output caught: the text it wrote
COLUMNIZE = "(lambda o: (m.Cmd(stdout=o).columnize({}), o.getvalue())[1])(__import__('io').StringIO())"
# a folder (in the check's own temporary cwd) with these entries (name: text, None: a folder), packed by
# m.create_archive into memory ({} are more arguments): the names in the archive, sorted
_ARCHIVE = ("(lambda P, d, o: ([(P(d, n).mkdir() if s is None else P(d, n).write_text(s)) for n, s in {!r}.items()], "
            "m.create_archive(d, o{}), sorted(__import__('zipfile').ZipFile(o).namelist()))[-1])"
            "(__import__('pathlib').Path, __import__('tempfile').mkdtemp(dir='.'), __import__('io').BytesIO())")
# two files a and b in a new folder (in the check's own temporary cwd), with the given texts and mtimes,
# compared by m.cmp: the stat signatures differ where the mtimes do
_CMP = ("(lambda P, d: (P(d, 'a').write_text({!r}), P(d, 'b').write_text({!r}), __import__('os').utime(P(d, 'a'), "
        "({m1}, {m1})), __import__('os').utime(P(d, 'b'), ({m2}, {m2})), m.cmp(str(P(d, 'a')), str(P(d, 'b')), "
        "shallow={shallow}))[-1])(__import__('pathlib').Path, __import__('tempfile').mkdtemp(dir='.'))")


def cmp_case(a: str, b: str, m1: int, m2: int, shallow: bool) -> str:
    """The expression comparing files of texts ``a`` and ``b`` and mtimes ``m1``, ``m2`` with filecmp's ``cmp``."""
    return _CMP.format(a, b, m1=m1, m2=m2, shallow=shallow)


BUGS: tuple[Task, ...] = (
    Task("bug-base64-b85", "fresh/bugs/base64.py", "bugfix",
         ("b85decode(b85encode(b'abcd')) gives me b'' back. looks like anything whose encoded length is a multiple "
          "of 5 decodes to nothing",
          "base64.b85decode throws away the whole result when no padding was needed, pls fix"),
         Behaves(("b85decode",), (("m.b85decode(m.b85encode(b'abcd'))", "b'abcd'"),
                                  ("m.b85decode(m.b85encode(b'hello'))", "b'hello'"),
                                  ("m.b85decode(b'')", "b''"),
                                  ("m.b85decode(m.b85encode(bytes(8)))", "b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00'"),
                                  ("m.b85decode(m.b85encode(b'abcd', pad=True))", "b'abcd'"))),
         symbol="b85decode"),
    Task("bug-cmd-columnize", "fresh/bugs/cmd.py", "bugfix",
         ("the help listing wraps too early. Cmd().columnize(['aaaa', 'bbbb'], 10) prints them on two lines even "
          "though 'aaaa  bbbb' is exactly 10 characters wide",
          "off by one in columnize: a row that is exactly displaywidth long gets split into more rows"),
         Behaves(("Cmd.columnize",), ((COLUMNIZE.format("['aaaa', 'bbbb'], 10"), "'aaaa  bbbb\\n'"),
                                      (COLUMNIZE.format("['aaaa', 'bbbb'], 9"), "'aaaa\\nbbbb\\n'"),
                                      (COLUMNIZE.format("['ab', 'c', 'de'], 9"), "'ab  c  de\\n'"),
                                      (COLUMNIZE.format("[str(i) for i in range(20)], 10"),
                                       "'0  7   14\\n1  8   15\\n2  9   16\\n3  10  17\\n4  11  18\\n5  12  19\\n"
                                       "6  13\\n'"),
                                      (COLUMNIZE.format("['x']"), "'x\\n'"))),
         symbol="Cmd.columnize"),
    Task("bug-filecmp-size", "fresh/bugs/filecmp.py", "bugfix",
         ("filecmp.cmp(a, b, shallow=False) says two files differ when they have exactly the same bytes but were "
          "modified at different times",
          "fix cmp in filecmp: a copy with identical content but another mtime is reported as different"),
         Behaves(("cmp",), ((cmp_case("same text", "same text", 1000, 2000, False), "True"),
                            (cmp_case("same text", "same text", 1000, 2000, True), "True"),
                            (cmp_case("abc", "abd", 1000, 1000, False), "False"),
                            (cmp_case("abc", "abcd", 1000, 1000, False), "False"),
                            (cmp_case("abc", "abcd", 1000, 2000, False), "False"))),
         symbol="cmp"),
    Task("bug-rlcompleter-dupes", "fresh/bugs/rlcompleter.py", "bugfix",
         ("tab completion shows a name twice when one of my variables shadows a builtin: with len = 5, completing "
          "len offers both len and len(",
          "Completer.global_matches returns duplicates for names that are in the namespace and in builtins too"),
         Behaves(("Completer.global_matches",), (("m.Completer({'len': 5}).global_matches('len')", "['len']"),
                                                 ("m.Completer({'print': 1}).global_matches('prin')", "['print']"),
                                                 ("m.Completer({'zzq': len}).global_matches('zz')", "['zzq(']"),
                                                 ("m.Completer({'abs': abs}).global_matches('abs')", "['abs(']"),
                                                 ("m.Completer({'if': 1}).global_matches('if')", "['if ']"))),
         symbol="Completer.global_matches"),
    Task("bug-zipapp-names", "fresh/bugs/zipapp.py", "bugfix",
         ("the .pyz i build from a folder with zipapp.create_archive has every file stored under its whole path "
          "(tmp/app/__main__.py) instead of at the top, so python can't find __main__.py in it",
          "create_archive in zipapp puts the wrong names into the zip: they should be relative to the source folder"),
         Behaves(("create_archive",), (
             (_ARCHIVE.format({"__main__.py": "print(1)"}, ""), "['__main__.py']"),
             (_ARCHIVE.format({"__main__.py": "", "pkg": None, "pkg/mod.py": ""}, ""),
              "['__main__.py', 'pkg/', 'pkg/mod.py']"),
             (_ARCHIVE.format({"pkg": None, "pkg/mod.py": ""}, ", main='pkg.mod:run'"),
              "['__main__.py', 'pkg/', 'pkg/mod.py']"),
             (_ARCHIVE.format({"__main__.py": "", "notes.txt": ""}, ", filter=lambda p: p.suffix == '.py'"),
              "['__main__.py']"))),
         symbol="create_archive"),
)
