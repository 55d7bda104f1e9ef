"""The bug tasks of ``coder bench --edits --set fresh8``: one bug put in by hand in each of its five modules.

Each runs on a copy under ``files/fresh8/bugs/`` and is judged by calling the code
(:class:`~coder.bench.edits.behaviour.Behaves`). They are reported the way users report bugs: what they saw,
sometimes naming a function, never the line, and the function named is not always the one with the bug.
:mod:`coder.bench.edits.tasks_fresh8` says how the set was written and that nothing may be tuned on it.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task, source

OS = "__import__('os')"


def span(file: str, start: str, end: str) -> str:
    """The text of ``file`` from the line starting ``start`` through the first ``end`` after it."""
    text = source(file)
    a = text.index(start)
    return text[a:text.index(end, a) + len(end)]


# stdout a pipe, stdin a pipe holding b'typed' then closed, master a socket pair end always readable; _copy run
# with a reader handing out CHUNKS, then (what reached stdout, what the other end of master got by then)
_COPIED = ("(lambda out, inp, pair, chunks: (setattr(m, 'STDOUT_FILENO', out[1]), setattr(m, 'STDIN_FILENO', "
           f"inp[0]), {OS}.write(inp[1], b'typed'), {OS}.close(inp[1]), pair[1].send(b'x'), "
           f"m._copy(pair[0].fileno(), lambda fd: chunks.pop(0)), {OS}.close(out[1]), {OS}.read(out[0], 999), "
           "pair[1].recv(999) if __import__('select').select([pair[1]], [], [], 0)[0] else b'')[-2:])"
           f"({OS}.pipe(), {OS}.pipe(), __import__('socket').socketpair(), {{chunks}})")
# the slot names of a class made on the fly with __slots__ SLOTS (and BASES)
_SLOTS = "m._slotnames(type({name!r}, {bases}, {{'__slots__': {slots}}}))"
# profile stats by function name after a profiler whose clock ticks once a call has run outer() (outer calls inner
# twice, inner calls abs): name -> (primitive calls, total calls, tottime, cumtime)
_TIMED = ("(lambda g, it: (exec('def inner():\\n    return abs(-1)\\ndef outer():\\n    return inner() + inner()', g), "
          "(lambda p: (p.runcall(g['outer']), p.create_stats(), "
          "{k[2]: v[:4] for k, v in p.stats.items() if k[2] in ('outer', 'inner', 'abs')})[2])"
          "(m.Profile(lambda: next(it))))[1])({}, __import__('itertools').count())")
# a threading server on BaseServer whose handler sleeps 0.2 s and then records 1; process one request, close it
_CLOSED = ("(lambda done: (lambda s: (s.process_request(None, None), s.server_close(), list(done))[2])"
           "(type('S', (m.ThreadingMixIn, m.BaseServer), {{'block_on_close': {block}}})(None, lambda r, a, srv: "
           "(__import__('time').sleep(0.2), done.append(1)))))([])")

BUGS: tuple[Task, ...] = (
    Task("bug-plistlib-gt", "fresh8/bugs/plistlib.py", "bugfix",
         ("plistlib.dumps mangles '>' in strings. I saved {'rule': 'a -> b'} and loads() gives me back "
          "'a -< b'. Binary format is fine, only XML does it.",
          "Every '>' character in a string comes back as '<' after a round trip through the XML plist format: "
          "the file plistlib writes already has the wrong entity in it, so other tools reading our plists see "
          "it too. '<' and '&' survive fine. Could you find and fix it?"),
         Behaves(("_escape",), (
             ("m.loads(m.dumps({'rule': 'a -> b'}))", "{'rule': 'a -> b'}"),
             ("b'<string>&lt;x&gt;</string>' in m.dumps('<x>')", "True"),
             ("m._escape('1 > 0 & 0 < 1')", "'1 &gt; 0 &amp; 0 &lt; 1'"),
             ("m.loads(m.dumps(['>>', '<<', '&']))", "['>>', '<<', '&']"),
             ("m.loads(m.dumps('a>b', fmt=m.FMT_BINARY))", "'a>b'"),
             ("m._escape('\\x00')", "raised ValueError"))),
         symbol="_escape"),
    Task("bug-pty-repeats", "fresh8/bugs/pty.py", "bugfix",
         ("Since we moved to this copy of pty, pty.spawn() repeats the child's output: each time the program "
          "prints something, what it printed before is shown again in front of it, so a progress bar turns into "
          "a wall of text. Typing into the child works normally.",
          "pty.spawn: child output gets written to stdout over and over (old output resent with every new "
          "chunk)"),
         Behaves(("_copy",), (
             (_COPIED.format(chunks="[b'ab', b'cd', b'']"), "(b'abcd', b'typed')"),
             (_COPIED.format(chunks="[b'one ', b'two ', b'three', b'']"), "(b'one two three', b'typed')"),
             (_COPIED.format(chunks="[b'only', b'']"), "(b'only', b'')"),
             (_COPIED.format(chunks="[b'']"), "(b'', b'')"))),
         symbol="_copy"),
    Task("bug-copyreg-weakref-slot", "fresh8/bugs/copyreg.py", "bugfix",
         ("copy.copy() of an instance of a class with __slots__ = ('x', '__weakref__') fails with AttributeError: "
          "attribute '__weakref__' of 'Node' objects is not writable. copyreg._slotnames(Node) returns "
          "['x', '__weakref__'], shouldn't it be just ['x']?",
          "copyreg's _slotnames lists __weakref__ as if it were a real slot, so copying or pickling (protocol 2+) "
          "objects of slotted classes that allow weak references breaks. __dict__ is already left out as it "
          "should be."),
         Behaves(("_slotnames",), (
             (_SLOTS.format(name="Node", bases="()", slots="('x', '__weakref__')"), "['x']"),
             (_SLOTS.format(name="W", bases="()", slots="('__weakref__',)"), "[]"),
             (_SLOTS.format(name="D", bases="()", slots="('__dict__', 'b')"), "['b']"),
             (_SLOTS.format(name="P", bases="()", slots="('__x', 'y')"), "['_P__x', 'y']"),
             (_SLOTS.format(name="S", bases="()", slots="'one'"), "['one']"),
             ("m._slotnames(type('N', (), {}))", "[]"))),
         symbol="_slotnames"),
    Task("bug-profile-cumtime", "fresh8/bugs/profile.py", "bugfix",
         ("profile.run() output: cumtime is always the same as tottime. A main() that only calls other functions "
          "shows 0.000 cumulative, which makes the report useless for finding the slow path. cProfile shows "
          "sensible numbers for the same script.",
          "In the pure-Python profiler the cumulative time of a function no longer includes the time spent in "
          "the functions it calls; it equals its own internal time. Primitive call counts and internal times "
          "look right."),
         Behaves(("Profile.trace_dispatch_return",), (
             (f"(lambda s: s['outer'][3] > s['outer'][2])({_TIMED})", "True"),
             (f"(lambda s: s['outer'][3] == s['outer'][2] + s['inner'][3])({_TIMED})", "True"),
             (f"(lambda s: s['inner'][3] > s['inner'][2])({_TIMED})", "True"),
             (f"(lambda s: (s['outer'][:2], s['inner'][:2], s['abs'][:2]))({_TIMED})", "((1, 1), (2, 2), (2, 2))"),
             (f"(lambda s: s['abs'][3] == s['abs'][2])({_TIMED})", "True"))),
         symbol="Profile.trace_dispatch_return"),
    Task("bug-socketserver-block-on-close", "fresh8/bugs/socketserver.py", "bugfix",
         ("ThreadingTCPServer.server_close() returns while handler threads are still running, though "
          "block_on_close is True by default and should make it wait for them. Oddly, setting "
          "block_on_close = False makes it wait.",
          "socketserver: with ThreadingMixIn, server_close doesn't join the request threads any more, so our "
          "test suite tears the database down under handlers that are still running"),
         Behaves(("ThreadingMixIn.process_request",), (
             (_CLOSED.format(block="True"), "[1]"),
             (_CLOSED.format(block="False"), "[]"),
             ("(lambda s: (s.process_request(None, None), type(s._threads).__name__)[1])(type('S', "
              "(m.ThreadingMixIn, m.BaseServer), {})(None, lambda r, a, srv: None))", "'_Threads'"),
             ("type(m.ThreadingMixIn._threads).__name__", "'_NoThreads'"))),
         symbol="ThreadingMixIn.process_request"),
)
