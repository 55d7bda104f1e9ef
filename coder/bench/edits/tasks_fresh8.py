"""The eighth fresh set of ``coder bench --edits --set fresh8``: the unseen measure once the seventh fresh set is read.

The suite, the held-out set and the seven fresh sets (:mod:`coder.bench.edits.tasks_fresh` to
:mod:`coder.bench.edits.tasks_fresh7`) may all have been read by the people tuning coder's instruction reader, so
none of them can be trusted to measure how coder does on wordings nobody tuned for. These tasks were written on
2026-12-05 by someone who had not read ``coder/edit/``, coder's CLI (other than ``coder/cli/bench_edits.py``, to
register the set), the benchmark pages or any bench result, on five CPython 3.11.7 modules no other set uses
(``plistlib``, ``pty``, ``copyreg``, ``profile``, ``socketserver``; shipped under ``files/fresh8/``,
``files/SOURCES.md`` lists them). Each task has two wordings, typed once the way two different people would type
the request into an assistant, and never tried on coder or a model (nor on coder's planner). Nothing may be tuned
on this set (no reading rule, prompt or repair written to pass one of its tasks), or it becomes one more suite.
Its first run was run 22's (``docs/benchmarks/2026-12-05-h100-edits-run22.md``, both machines frozen at one commit);
the rules found on it after that run are listed there, and since then it is read like the sets before it.

The bug tasks are in :mod:`coder.bench.edits.tasks_fresh8_bugs`; the rest reuse the suite's checks, and a
change of behaviour is judged by calling the code (:class:`~coder.bench.edits.behaviour.Behaves`). pty's and
socketserver's cases use pipes, a socket pair and a server on 127.0.0.1 only; none starts a child process.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task
from coder.bench.edits.tasks_fresh8_bugs import BUGS, OS, span

PLISTLIB: tuple[Task, ...] = (
    Task("plistlib-rename", "fresh8/plistlib.py", "rename",
         ("rename _dateParser to _date_pattern in plistlib.py",
          "In plistlib the module-level regex that matches ISO 8601 dates is called _dateParser, which made me "
          "look for a parser class that doesn't exist. Can you rename it to _date_pattern everywhere it's used? "
          "It's only the name that should change."),
         Renamed("_dateParser", "_date_pattern")),
    Task("plistlib-method", "fresh8/plistlib.py", "method",
         ("I collect the UID values out of an NSKeyedArchiver plist and want to sort them, but sorted() dies with "
          "TypeError: '<' not supported between instances of 'UID' and 'UID'. Could the UID class get a __lt__ "
          "that orders them by their integer value? Comparing a UID with a plain int or anything else that isn't "
          "a UID should keep raising TypeError.",
          "plistlib: make UID objects orderable -- __lt__ on .data, NotImplemented for non-UIDs"),
         Behaves(("UID.__lt__",), (
             ("m.UID(1) < m.UID(2)", "True"),
             ("m.UID(2) < m.UID(1)", "False"),
             ("m.UID(3) < m.UID(3)", "False"),
             ("m.UID(2) > m.UID(1)", "True"),
             ("sorted([m.UID(5), m.UID(0), m.UID(2)])", "[UID(0), UID(2), UID(5)]"),
             ("max([m.UID(7), m.UID(9), m.UID(8)])", "UID(9)"),
             ("m.UID(1) < 2", "raised TypeError"),
             ("m.UID(1) < 'x'", "raised TypeError"),
             ("m.UID(1) == m.UID(1)", "True"))),
         symbol="UID"),
    Task("plistlib-extract", "fresh8/plistlib.py", "extract",
         ("_escape in plistlib does two jobs: it turns DOS and old Mac line endings into \\n, and then escapes & < >. "
          "I need the first part on its own for some keys we compare, so please move the two line-ending "
          "replacements into a new module-level function _normalize_newlines(text) that returns the converted "
          "string, and have _escape call it.",
          "split the CRLF/CR -> LF conversion out of plistlib._escape into _normalize_newlines(text)"),
         Behaves(("_escape", "_normalize_newlines"), (
             ("m._normalize_newlines('a\\r\\nb\\rc\\nd')", "'a\\nb\\nc\\nd'"),
             ("m._normalize_newlines('\\r\\r\\n')", "'\\n\\n'"),
             ("m._normalize_newlines('<&>')", "'<&>'"),
             ("m._normalize_newlines('')", "''"),
             ("m._escape('x\\r\\n<y>&')", "'x\\n&lt;y&gt;&amp;'"),
             ("m._escape('\\rz')", "'\\nz'"),
             ("m._escape('bad\\x01')", "raised ValueError"),
             ("m.loads(m.dumps('l1\\r\\nl2'))", "'l1\\nl2'")),
             calls=(("_escape", "_normalize_newlines"),))),
    Task("plistlib-hints", "fresh8/plistlib.py", "hints",
         ("plistlib.dumps needs type hints -- value: object, fmt: PlistFormat, skipkeys/sort_keys: bool, -> bytes",
          "We run mypy in strict mode over a vendored copy of plistlib and dumps is the one function we call. "
          "Could you annotate it? The value can be anything plistlib knows how to serialise, fmt is one of the "
          "PlistFormat members, the two flags are booleans, and it returns the encoded plist as bytes."),
         Hints("dumps"), symbol="dumps"),
)

MASTER_OPEN = span("fresh8/pty.py", "def master_open():\n", "    return _open_terminal()\n")

_PIPED = f"(lambda r, w: ({OS}.write(w, {{data}}), {{call}})[1])(*{OS}.pipe())"

PTY: tuple[Task, ...] = (
    Task("pty-delete", "fresh8/pty.py", "delete",
         ("delete master_open from pty.py, it's deprecated and unused",
          "pty.master_open has told people to use openpty() instead for as long as I can remember, and nothing in "
          "our code or in the module calls it. Please remove that function. slave_open and _open_terminal have to "
          "stay, openpty still falls back on them on systems without os.openpty."),
         SameAst(((MASTER_OPEN, ""),))),
    Task("pty-rename", "fresh8/pty.py", "rename",
         ("The name _open_terminal in pty.py is confusing: it doesn't open a terminal, it scans the old BSD "
          "/dev/ptyXY devices for a free master. I'd like it called _open_bsd_pty, with both places that call it "
          "updated.",
          "pty: _open_terminal => _open_bsd_pty"),
         Renamed("_open_terminal", "_open_bsd_pty")),
    Task("pty-param", "fresh8/pty.py", "param",
         ("give pty._read a size param (default 1024) instead of the hardcoded 1024",
          "The default reader in pty, _read(fd), always asks os.read for 1024 bytes. I'd like to wrap it with "
          "functools.partial to read bigger chunks from a chatty child, so please give it a second parameter "
          "size that defaults to 1024 and is what gets passed to os.read."),
         Behaves(("_read",), (
             (_PIPED.format(data="b'abcdef'", call="m._read(r, 4)"), "b'abcd'"),
             (_PIPED.format(data="b'abcdef'", call="m._read(r, size=1)"), "b'a'"),
             (_PIPED.format(data="b'q' * 3000", call="len(m._read(r))"), "1024"),
             (_PIPED.format(data="b'q' * 3000", call="len(m._read(r, size=2500))"), "2500"),
             (_PIPED.format(data="b'hi'", call="m._read(r)"), "b'hi'"))),
         symbol="_read"),
    Task("pty-comment", "fresh8/pty.py", "comment",
         ("pty _copy: put a comment on high_waterlevel = 4096 saying what it's for",
          "In pty's _copy loop there is a high_waterlevel = 4096 that is easy to miss. Could you add a comment just "
          "above it explaining that it caps how much unwritten data each direction may buffer: once a buffer "
          "holds that much we stop reading from its source until the other side has caught up?"),
         Comment("_copy", above=("high_waterlevel = 4096",)), symbol="_copy"),
)

CONSTRUCTOR = ("def constructor(object):\n    if not callable(object):\n"
               "        raise TypeError(\"constructors must be callable\")\n\n")
PICKLE_DEF = "def pickle(ob_type, pickle_function, constructor_ob=None):\n"

COPYREG: tuple[Task, ...] = (
    Task("copyreg-fix", "fresh8/copyreg.py", "fix",
         ("I called copyreg.pickle(Point(1, 2), reduce_point) by mistake, passing an instance instead of the "
          "class, and it just stored it in dispatch_table without complaint, so nothing happened when pickling "
          "Points. pickle already refuses a reduction function that isn't callable; it should also raise "
          "TypeError when the first argument is not a class. Real classes must keep working.",
          "copyreg.pickle(): TypeError if ob_type isn't a type"),
         Behaves(("pickle",), (
             ("m.pickle(3, str)", "raised TypeError"),
             ("m.pickle('int', str)", "raised TypeError"),
             ("m.pickle(None, repr)", "raised TypeError"),
             ("(m.pickle(int, str), m.dispatch_table[int] is str)", "(None, True)"),
             ("(lambda c: (m.pickle(c, repr), m.dispatch_table[c] is repr)[1])(type('C', (), {}))", "True"),
             ("m.pickle(int, None)", "raised TypeError"),
             ("m.dispatch_table[type(int | str)] is m.pickle_union", "True"),
             ("m.dispatch_table[complex] is m.pickle_complex", "True"))),
         symbol="pickle"),
    Task("copyreg-function", "fresh8/copyreg.py", "function",
         ("add copyreg.extension_code(module, name): the code registered for that pair, None if there isn't one",
          "There's add_extension and remove_extension in copyreg but no public way to ask which code a "
          "(module, name) pair got, short of poking at _extension_registry. Please add a function "
          "extension_code(module, name) that returns the registered extension code, or None when that pair "
          "isn't registered."),
         Behaves(("extension_code",), (
             ("(m.add_extension('f8mod', 'thing', 300), m.extension_code('f8mod', 'thing'))[1]", "300"),
             ("m.extension_code('f8mod', 'missing')", "None"),
             ("(m.add_extension('f8mod', 'gone', 301), m.remove_extension('f8mod', 'gone', 301), "
              "m.extension_code('f8mod', 'gone'))[2]", "None"),
             ("(m.add_extension('a', 'b', 302), m.extension_code('b', 'a'))[1]", "None"),
             ("(m.add_extension('x', 'y', 303), m.extension_code(name='y', module='x'))[1]", "303"),
             ("m.extension_code('copyreg', 'pickle')", "None")))),
    Task("copyreg-hints", "fresh8/copyreg.py", "hints",
         ("type hints for copyreg.add_extension please: module and name are str, code is an int, returns None",
          "annotate add_extension (copyreg)"),
         Hints("add_extension"), symbol="add_extension"),
    Task("copyreg-move", "fresh8/copyreg.py", "move",
         ("In copyreg.py, pickle() calls constructor() but constructor is defined after it, which reads oddly. "
          "Please move the constructor function up so it sits right before def pickle, without changing it.",
          "copyreg.py: move def constructor above def pickle"),
         SameAst(((CONSTRUCTOR, ""), (PICKLE_DEF, CONSTRUCTOR + "\n" + PICKLE_DEF)))),
)

# a fresh profiler that has run sorted([3, 1, 2]), then CALL on it as p
_PROFILED = "(lambda p: (p.runcall(sorted, [3, 1, 2]), {call})[1])(m.Profile())"

PROFILE: tuple[Task, ...] = (
    Task("profile-rename", "fresh8/profile.py", "rename",
         ("profile.py: rename Profile._calibrate_inner to _measure_overhead",
          "_calibrate_inner in the profile module is the part of calibrate() that actually times a test function "
          "with and without profiling and returns the overhead per event. Could you rename the method to "
          "_measure_overhead, including where calibrate calls it?"),
         Renamed("_calibrate_inner", "_measure_overhead")),
    Task("profile-extract", "fresh8/profile.py", "extract",
         ("Profile.snapshot_stats has a little loop that adds up the counts in a function's callers dict. We want "
          "the same total in our own reporting code, so please pull that loop out into a top-level function "
          "_total_calls(callers) in profile.py (not a method) that returns the sum, and use it in snapshot_stats.",
          "extract the nc summing loop of Profile.snapshot_stats into module function _total_calls(callers)"),
         Behaves(("Profile.snapshot_stats", "_total_calls"), (
             ("m._total_calls({('a', 1, 'f'): 2, ('b', 2, 'g'): 3})", "5"),
             ("m._total_calls({})", "0"),
             ("m._total_calls({'x': 7})", "7"),
             ("(lambda p: (setattr(p, 'timings', {('f', 1, 'x'): (1, 0, 0.5, 0.75, {('a', 1, 'b'): 2, "
              "('c', 2, 'd'): 3})}), p.snapshot_stats(), p.stats)[2])(m.Profile())",
              "{('f', 1, 'x'): (1, 5, 0.5, 0.75, {('a', 1, 'b'): 2, ('c', 2, 'd'): 3})}"),
             ("(lambda c, p: (setattr(p, 'timings', {'k': (1, 0, 0, 0, c)}), p.snapshot_stats(), "
              "p.stats['k'][4] is c, p.stats['k'][4] == c)[2:])({'a': 1}, m.Profile())", "(False, True)"),
             ("(lambda p: (setattr(p, 'timings', {'k': (0, 0, 0, 0, {})}), p.snapshot_stats(), p.stats)[2])"
              "(m.Profile())", "{'k': (0, 0, 0, 0, {})}")),
             calls=(("Profile.snapshot_stats", "_total_calls"),))),
    Task("profile-docstring", "fresh8/profile.py", "docstring",
         ("docstring for Profile.dump_stats in profile.py",
          "Profile.dump_stats has no docstring and I always forget what format it writes. Please document it: "
          "it finishes the pending timings, builds the stats and writes them to the given file name with "
          "marshal, in the form pstats.Stats can load."),
         Docstring("Profile.dump_stats"), symbol="Profile.dump_stats"),
    Task("profile-method", "fresh8/profile.py", "method",
         ("I'd like to send profile results to our logger instead of stdout. Could the Profile class get a method "
          "stats_text(sort=-1) that returns, as a string, exactly the report print_stats(sort) prints, without "
          "printing anything?",
          "profile.Profile: new stats_text(self, sort=-1) -> str (print_stats' report, returned not printed)"),
         Behaves(("Profile.stats_text",), (
             (_PROFILED.format(call="type(p.stats_text()).__name__"), "'str'"),
             (_PROFILED.format(call="'function calls' in p.stats_text()"), "True"),
             (_PROFILED.format(call="':0(sorted)' in p.stats_text()"), "True"),
             (_PROFILED.format(call="'Ordered by: standard name' in p.stats_text()"), "True"),
             (_PROFILED.format(call="'Ordered by: call count' in p.stats_text('calls')"), "True"),
             (_PROFILED.format(call="'Ordered by: cumulative time' in p.stats_text(sort='cumulative')"), "True"),
             ("(lambda g: (exec('import io, contextlib\\nb = io.StringIO()\\nwith contextlib.redirect_stdout(b):\\n"
              "    t = p.stats_text()', g), g['b'].getvalue(), 'ncalls' in g['t'])[1:])"
              "({'p': (lambda p: (p.runcall(sorted, [3, 1, 2]), p)[1])(m.Profile())})", "('', True)"))),
         symbol="Profile"),
)

UNIX_ALL = ('if hasattr(socket, "AF_UNIX"):\n    __all__.extend(["UnixStreamServer","UnixDatagramServer",\n'
            '                    "ThreadingUnixStreamServer",\n                    "ThreadingUnixDatagramServer"])\n')
UNIX_CLASSES = span("fresh8/socketserver.py", "if hasattr(socket, 'AF_UNIX'):\n",
                    "class ThreadingUnixDatagramServer(ThreadingMixIn, UnixDatagramServer): pass\n")
_SERVED = ("(lambda s, threading: (threading.Thread(target=s.serve_forever, args=(0.01,)).start(), {call}, "
           "s.server_close(), 'stopped')[-1])(m.TCPServer(('127.0.0.1', 0), m.BaseRequestHandler), "
           "__import__('threading'))")

SOCKETSERVER: tuple[Task, ...] = (
    Task("socketserver-delete", "fresh8/socketserver.py", "delete",
         ("Our vendored socketserver only ever runs on Windows, so the Unix domain socket servers are dead weight. "
          "Please take out UnixStreamServer, UnixDatagramServer and their two Threading variants, along with the "
          "lines that add those names to __all__. The overview in the module docstring can stay as it is.",
          "socketserver.py: drop the AF_UNIX server classes + their __all__.extend"),
         SameAst(((UNIX_ALL, ""), (UNIX_CLASSES, "")))),
    Task("socketserver-param", "fresh8/socketserver.py", "param",
         ("BaseServer.shutdown(timeout=None) -> hand it to the Event wait so shutdown can give up",
          "If serve_forever has already died, calling server.shutdown() blocks my process forever because it "
          "waits on an event nobody will set. Could shutdown take an optional timeout (None by default, meaning "
          "wait as long as it takes, like now) that is passed on to that wait, so it returns after at most that "
          "many seconds?"),
         Behaves(("BaseServer.shutdown",), (
             ("(m.BaseServer(None, None).shutdown(timeout=0.05), 'returned')[1]", "'returned'"),
             ("(m.BaseServer(None, None).shutdown(0.05), 'returned')[1]", "'returned'"),
             ("(lambda t: (m.BaseServer(None, None).shutdown(timeout=0.3), __import__('time').monotonic() - t >= "
              "0.25)[1])(__import__('time').monotonic())", "True"),
             (_SERVED.format(call="s.shutdown()"), "'stopped'"),
             (_SERVED.format(call="s.shutdown(timeout=5)"), "'stopped'"),
             ("__import__('inspect').signature(m.BaseServer.shutdown).parameters['timeout'].default", "None"))),
         symbol="BaseServer.shutdown"),
    Task("socketserver-comment", "fresh8/socketserver.py", "comment",
         ("comment the vars(self).setdefault('_threads', _Threads()) line in ThreadingMixIn.process_request",
          "In ThreadingMixIn.process_request the line with vars(self).setdefault(...) took me a while. Please "
          "add a comment above it: the class attribute _threads is a shared do-nothing _NoThreads, and when "
          "block_on_close is set each server gets its own _Threads list on first use, so that server_close can "
          "join the threads it started."),
         Comment("ThreadingMixIn.process_request", above=("vars(self).setdefault('_threads', _Threads())",)),
         symbol="ThreadingMixIn.process_request"),
    Task("socketserver-docstring", "fresh8/socketserver.py", "docstring",
         ("UDPServer.get_request is the only get_request without a docstring, and it returns something different "
          "from TCPServer's. Please write one saying it receives one datagram of at most max_packet_size bytes "
          "and returns ((data, socket), client_address), the request being the data together with the server's "
          "socket.",
          "socketserver: document UDPServer.get_request"),
         Docstring("UDPServer.get_request"), symbol="UDPServer.get_request"),
)

FRESH8: tuple[Task, ...] = PLISTLIB + PTY + COPYREG + PROFILE + SOCKETSERVER + BUGS
