"""The bug tasks of ``coder bench --edits --set fresh2``: one bug put in by hand in each of its five modules.

Each runs on a copy under ``files/fresh2/bugs/`` and is judged by calling the code
(:class:`~coder.bench.edits.behaviour.Behaves`). They are reported the way users report bugs: the symptom,
sometimes with the function, sometimes not. :mod:`coder.bench.edits.tasks_fresh2` says how the set was
written and that nothing may be tuned on it.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task

# the __annotations__ of running 'x: int = 1' compiled by the CommandCompiler c
ANNOTATED = "(lambda ns: (exec(c('x: int = 1'), ns), ns['__annotations__'])[1])({})"
# EXPR with the user-name environment variables unset, then those of the dict {!r} set
ENV = ("(lambda e: ([e.pop(k, None) for k in ('LOGNAME', 'USER', 'LNAME', 'USERNAME', 'ZZ_NAME')], e.update({!r}), "
       "{})[-1])(__import__('os').environ)")
# the file f.txt (in the check's own temporary cwd) holding the text {!r}, then EXPR
_TEXT = "(lambda p: (p.write_text({!r}), {})[-1])(__import__('pathlib').Path('f.txt'))"
# three files a, b, c (in the check's own temporary cwd) of 1, 2 and 3 lines, read through EXPR
_FILES = ("(lambda P: ([P(n).write_text('x\\n' * k) for n, k in (('a', 1), ('b', 2), ('c', 3))], {})[1])"
          "(__import__('pathlib').Path)")
# (lineno, filelineno) of each line of a, b, c (and again the files named {}) read with FileInput, then after the end
_LINENOS = _FILES.format("(lambda f: ([(f.lineno(), f.filelineno()) for _ in f], f.lineno()))"
                         "(m.FileInput({}, encoding='utf-8'))")
BUGS: tuple[Task, ...] = (
    Task("bug-codeop-future", "fresh2/bugs/codeop.py", "bugfix",
         ("my repl is built on codeop.CommandCompiler, and after the user types from __future__ import annotations "
          "the next lines still get their annotations evaluated, as if the import never happened. it's supposed to "
          "remember future statements",
          "Compile in codeop no longer carries __future__ flags over to later calls: after compiling "
          "'from __future__ import barry_as_FLUFL', compiling '1 <> 2' raises SyntaxError. please fix"),
         Behaves(("Compile.__call__",), (
             (f"(lambda c: (c('from __future__ import annotations'), {ANNOTATED})[1])(m.CommandCompiler())",
              "{'x': 'int'}"),
             (f"(lambda c: {ANNOTATED})(m.CommandCompiler())", "{'x': <class 'int'>}"),
             ("(lambda c: (c('from __future__ import barry_as_FLUFL'), c('1 <> 2') is not None)[1])"
              "(m.CommandCompiler())", "True"),
             ("(lambda c: (c('from __future__ import barry_as_FLUFL', '<input>', 'exec'), "
              "c('1 <> 2', '<input>', 'eval') is not None)[1])(m.Compile())", "True"),
             ("(lambda c: (c('from __future__ import annotations'), c('x = 1'), c('if 1:'))[2])(m.CommandCompiler())",
              "None"))),
         symbol="Compile.__call__"),
    Task("bug-linecache-last", "fresh2/bugs/linecache.py", "bugfix",
         ("linecache.getline(path, n) returns '' when n is the last line of the file. every other line comes back "
          "fine",
          "off-by-one in getline: asking for the final line of a file gives an empty string"),
         Behaves(("getline",), ((_TEXT.format("one\ntwo\nthree\n", "m.getline('f.txt', 3)"), "'three\\n'"),
                                (_TEXT.format("one\ntwo\nthree\n", "m.getline('f.txt', 1)"), "'one\\n'"),
                                (_TEXT.format("one\ntwo\nthree\n", "m.getline('f.txt', 4)"), "''"),
                                (_TEXT.format("one\ntwo\nthree\n", "m.getline('f.txt', 0)"), "''"),
                                (_TEXT.format("one\ntwo\nthree\n", "m.getline('f.txt', -1)"), "''"),
                                (_TEXT.format("x\ny", "(m.checkcache(), m.getline('f.txt', 2))[1]"), "'y\\n'"))),
         symbol="getline"),
    Task("bug-getpass-user", "fresh2/bugs/getpass.py", "bugfix",
         ("getpass.getuser() returns None on our CI box. LOGNAME isn't set there but USER is",
          "getuser gives up after the first environment variable: when LOGNAME is missing it returns None instead "
          "of going on to USER, LNAME, USERNAME and then the password database"),
         Behaves(("getuser",), ((ENV.format({"USER": "us"}, "m.getuser()"), "'us'"),
                                (ENV.format({"LOGNAME": "lo", "USER": "us"}, "m.getuser()"), "'lo'"),
                                (ENV.format({"LNAME": "ln"}, "m.getuser()"), "'ln'"),
                                (ENV.format({"USERNAME": "un"}, "m.getuser()"), "'un'"),
                                (ENV.format({"LOGNAME": "", "USER": "us"}, "m.getuser()"), "'us'"),
                                (ENV.format({}, "m.getuser() == __import__('pwd').getpwuid("
                                                "__import__('os').getuid())[0]"), "True"))),
         symbol="getuser"),
    Task("bug-fileinput-lineno", "fresh2/bugs/fileinput.py", "bugfix",
         ("fileinput.lineno() goes wrong once it gets to the third file. with three files of 3 lines each, the "
          "first line of the third file says lineno 4 and not 7",
          "The cumulative line count of FileInput breaks when it reads more than two files: it seems to restart "
          "from the previous file's own count. lineno() should keep counting across all the files."),
         Behaves(("FileInput._readline",), (
             (_LINENOS.format("['a', 'b', 'c']"), "([(1, 1), (2, 1), (3, 2), (4, 1), (5, 2), (6, 3)], 6)"),
             (_LINENOS.format("['c', 'c', 'b', 'a']"),
              "([(1, 1), (2, 2), (3, 3), (4, 1), (5, 2), (6, 3), (7, 1), (8, 2), (9, 1)], 9)"),
             (_FILES.format("(lambda f: [(f.readline(), f.lineno(), f.isfirstline()) for _ in range(4)][-1])"
                            "(m.FileInput(['b', 'a', 'a'], encoding='utf-8'))"), "('x\\n', 4, True)"),
             (_FILES.format("(lambda f: [f.lineno() for _ in f if f.isfirstline()])"
                            "(m.input(['a', 'a', 'a', 'b'], encoding='utf-8'))"), "[1, 2, 3, 4]"))),
         symbol="FileInput._readline"),
    Task("bug-mimetypes-case", "fresh2/bugs/mimetypes.py", "bugfix",
         ("mimetypes.guess_type('REPORT.PDF') returns (None, None), lowercase report.pdf works fine. the type "
          "extensions should match whatever the case (the encoding ones like .Z are case sensitive, that's fine)",
          "guess_type has become case sensitive about file extensions: 'photo.JPG' isn't recognised any more. "
          "Looks like a regression, can you fix it?"),
         Behaves(("MimeTypes.guess_type",), (("m.MimeTypes().guess_type('REPORT.PDF')", "('application/pdf', None)"),
                                             ("m.MimeTypes().guess_type('photo.JPG')", "('image/jpeg', None)"),
                                             ("m.MimeTypes().guess_type('a.Html')", "('text/html', None)"),
                                             ("m.MimeTypes().guess_type('x.TAR.gz')", "('application/x-tar', 'gzip')"),
                                             ("m.MimeTypes().guess_type('x.tar.GZ')", "(None, None)"),
                                             ("m.MimeTypes().guess_type('a.Z')", "(None, 'compress')"),
                                             ("m.MimeTypes().guess_type('A.RTF', strict=False)",
                                              "('application/rtf', None)"),
                                             ("m.MimeTypes().guess_type('A.RTF')", "(None, None)"))),
         symbol="MimeTypes.guess_type"),
)
