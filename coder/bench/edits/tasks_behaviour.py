"""Tasks of ``coder bench --edits`` judged by running the code: bugs put in by hand, new methods, extractions.

Each bug task's file is a copy of a shipped file with one bug put in by hand (``files/bugs/``;
``files/SOURCES.md`` says what was changed). Its wordings describe the symptom the way a user
reports it, most without naming the function that holds the bug; the fix is judged by calling the
code in a subprocess (:class:`~coder.bench.edits.behaviour.Behaves`): the buggy copy fails at least
one case, a fixed one passes them all, and code outside the named definitions must not change.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task

_SCHED_CANCEL = ("(lambda s: (lambda es: (s.cancel(es[{}]), [e.time for e in s.queue])[1])"
                 "([s.enterabs(t, 1, print) for t in (1, 5, 2, 6, 7, 3, 4)]))(m.scheduler())")
_QUEUE_GETS = "(lambda q: ([q.put(x) for x in {}], [q.get() for _ in range({})])[1])(m.{}())"
_HUE = "tuple(round(v, 9) for v in m.{}({}))"

BUGS: tuple[Task, ...] = (
    Task("bug-colorsys-hue", "bugs/colorsys.py", "bugfix",
         ("Fix `rgb_to_hls`: for some colours it returns a negative hue, e.g. `rgb_to_hls(1.0, 0.0, 0.5)` gives "
          "about -0.083; the hue must be in [0, 1).",
          "rgb_to_hls(1.0, 0.0, 0.5) returns a negative hue (-0.083), hues should always be between 0 and 1",
          "Negative hue from the RGB to HLS conversion: converting pink (1, 0, 0.5) gives h = -0.083 instead of "
          "0.917"),
         Behaves(("rgb_to_hls",), (("round(m.rgb_to_hls(1.0, 0.0, 0.5)[0], 4)", "0.9167"),
                                   ("m.rgb_to_hls(1.0, 0.0, 0.0)", "(0.0, 0.5, 1.0)"),
                                   ("round(m.rgb_to_hls(0.2, 0.4, 0.8)[0], 4)", "0.6111"),
                                   ("round(m.rgb_to_hls(0.5, 0.1, 0.3)[0], 4)", "0.9167"))),
         symbol="rgb_to_hls"),
    Task("bug-shlex-quote", "bugs/shlex.py", "bugfix",
         ("Fix `quote`: `quote('')` returns an empty string, so an empty argument disappears from the command "
          "line; it should return `''` (two single quotes).",
          "quote('') gives back an empty string instead of '' so empty arguments vanish when the command is run "
          "by a shell",
          "Empty arguments get lost: join(['ls', '']) gives 'ls ' because quoting the empty string returns "
          "nothing"),
         Behaves(("quote",), (("m.quote('')", "\"''\""), ("m.quote('abc')", "'abc'"),
                              ("m.quote('a b')", "\"'a b'\""), ("m.join(['ls', ''])", "\"ls ''\""))),
         symbol="quote"),
    Task("bug-textwrap-indent", "bugs/textwrap.py", "bugfix",
         ("Fix `indent`: without a predicate it also adds the prefix to lines that hold only whitespace; its "
          "docstring says those are left alone.",
          "indent('a\\n\\nb', '+') prefixes the empty line too, it should only prefix lines that aren't blank",
          "Blank lines get the prefix when I call indent without a predicate. Whitespace-only lines should stay "
          "as they are, as documented"),
         Behaves(("indent",), (("m.indent('a\\n  \\nb\\n', '> ')", "'> a\\n  \\n> b\\n'"),
                               ("m.indent('a\\n\\nb', '+')", "'+a\\n\\n+b'"), ("m.indent('', '+')", "''"),
                               ("m.indent('x\\n', '-', lambda line: True)", "'-x\\n'"),
                               # a predicate given decides alone, blank lines too (the H200's fix of
                               # 2026-12-03 kept them unprefixed, and CPython's test_indent_explicit_default fails)
                               ("m.indent('x\\n \\n', '-', lambda line: True)", "'-x\\n- \\n'"))),
         symbol="indent"),
    Task("bug-getopt-equals", "bugs/getopt.py", "bugfix",
         ("Fix `do_longs`: `getopt(['--alpha=1'], '', ['alpha='])` returns `('--alpha', '=1')`; the value must "
          "not keep the `=`.",
          "long options given as --name=value come back with the equals sign in the value: getopt(['--alpha=1'], "
          "'', ['alpha=']) gives '=1' instead of '1'",
          "Bug: --alpha=1 is parsed with the value '=1'. The value after the = should be just 1"),
         Behaves(("do_longs",), (("m.getopt(['--alpha=1'], '', ['alpha='])", "([('--alpha', '1')], [])"),
                                 ("m.getopt(['--beta', 'x'], '', ['beta'])", "([('--beta', '')], ['x'])"),
                                 ("m.gnu_getopt(['x', '--alpha=2'], '', ['alpha='])", "([('--alpha', '2')], ['x'])"),
                                 ("m.getopt(['--alpha', '3'], '', ['alpha='])", "([('--alpha', '3')], [])"))),
         symbol="do_longs"),
    Task("bug-glob-hidden", "bugs/glob.py", "bugfix",
         ("Fix `_ishidden`: it returns False for bytes paths such as `b'.git'`, so `glob(b'*')` lists hidden "
          "files.",
          "glob(b'*') includes hidden files like b'.git' while glob('*') skips them; _ishidden doesn't handle "
          "bytes",
          "Hidden files show up when globbing with a bytes pattern, b'.git' is not seen as hidden"),
         Behaves(("_ishidden",), (("m._ishidden(b'.git')", "True"), ("m._ishidden('.git')", "True"),
                                  ("m._ishidden(b'git')", "False"), ("m._ishidden('git')", "False"))),
         symbol="_ishidden"),
    Task("bug-graphlib-order", "bugs/graphlib.py", "bugfix",
         ("Fix `TopologicalSorter.done`: with `{'b': ['a']}`, `static_order()` yields only `['a']`; `b` never "
          "becomes ready.",
          "list(TopologicalSorter({'b': ['a']}).static_order()) returns ['a'] and b is missing; a node whose "
          "predecessors are all done never gets ready",
          "static_order drops nodes: the chain c -> b -> a only gives ['a']. Looks like done() marks successors "
          "ready at the wrong count"),
         Behaves(("TopologicalSorter.done",), (
             ("list(m.TopologicalSorter({'b': ['a']}).static_order())", "['a', 'b']"),
             ("list(m.TopologicalSorter({'c': ['b'], 'b': ['a']}).static_order())", "['a', 'b', 'c']"),
             ("list(m.TopologicalSorter({'d': ['b', 'c'], 'b': ['a'], 'c': ['a']}).static_order())",
              "['a', 'b', 'c', 'd']"))),
         symbol="TopologicalSorter.done"),
    Task("bug-sched-cancel", "bugs/sched.py", "bugfix",
         ("Fix `scheduler.cancel`: after an event is cancelled, `scheduler.queue` is no longer in time order and "
          "`run` can run events in the wrong order.",
          "after cancel() the events of a scheduler are no longer sorted by time, the queue property lists them "
          "out of order",
          "Cancelling the first event breaks the order of the remaining ones (run() then runs them out of order)"),
         Behaves(("scheduler.cancel",), ((_SCHED_CANCEL.format(0), "[2, 3, 4, 5, 6, 7]"),
                                         (_SCHED_CANCEL.format(2), "[1, 3, 4, 5, 6, 7]"))),
         symbol="scheduler.cancel"),
    Task("bug-queue-priority", "bugs/queue.py", "bugfix",
         ("Fix `PriorityQueue`: `get()` does not return the lowest entry first; after putting 3, 1 and 2 it "
          "returns 1, 3, 2.",
          "PriorityQueue.get() doesn't hand out the smallest entry first: put 3, 1, 2 then get three times gives "
          "1, 3, 2",
          "Priority order is broken in the priority queue, items come out as 1, 3, 2 instead of 1, 2, 3"),
         Behaves(("PriorityQueue._get",), ((_QUEUE_GETS.format("(3, 1, 2)", 3, "PriorityQueue"), "[1, 2, 3]"),
                                           (_QUEUE_GETS.format("(5, 4, 9, 1)", 2, "PriorityQueue"), "[1, 4]"),
                                           (_QUEUE_GETS.format("(3, 1)", 2, "Queue"), "[3, 1]"))),
         symbol="PriorityQueue"),
    Task("bug-wsgiref-hop", "bugs/wsgiref/util.py", "bugfix",
         ("Fix `is_hop_by_hop`: `is_hop_by_hop('Connection')` returns False; header names are "
          "case-insensitive.",
          "is_hop_by_hop('Connection') is False but is_hop_by_hop('connection') is True, header names should "
          "match in any case",
          "Hop-by-hop detection is case-sensitive: 'Transfer-Encoding' isn't recognised, only "
          "'transfer-encoding'"),
         Behaves(("is_hop_by_hop",), (("m.is_hop_by_hop('Connection')", "True"),
                                      ("m.is_hop_by_hop('connection')", "True"),
                                      ("m.is_hop_by_hop('Transfer-Encoding')", "True"),
                                      ("m.is_hop_by_hop('Content-Type')", "False"))),
         symbol="is_hop_by_hop"),
    Task("bug-fnmatch-negate", "bugs/fnmatch.py", "bugfix",
         ("Fix `translate`: a negated set like `[!a]` matches the listed characters instead of the others, so "
          "`fnmatch('b', '[!a]')` is False.",
          "[!a] patterns are not negated: fnmatch('a', '[!a]') is True and fnmatch('b', '[!a]') is False",
          "Negation in character classes doesn't work. filter(['a', 'b', 'c'], '[!ab]') returns ['a', 'b'] "
          "instead of ['c']"),
         Behaves(("translate",), (("m.fnmatch('b', '[!a]')", "True"), ("m.fnmatch('a', '[!a]')", "False"),
                                  ("m.filter(['a', 'b', 'c'], '[!ab]')", "['c']"),
                                  ("m.fnmatchcase('x.py', '[!_]*.py')", "True"))),
         symbol="translate"),
)

ADDED: tuple[Task, ...] = (
    Task("sched-method", "sched.py", "method",
         ("Add a method `clear(self)` to the class `scheduler` that cancels every pending event.",
          "add a clear method to scheduler that drops every event still in the queue",
          "Give the scheduler class a clear() method; afterwards empty() should be True"),
         Behaves(("scheduler.clear",), (
             ("(lambda s: (s.enter(5, 1, print), s.enter(6, 1, print), s.clear(), s.empty(), s.queue)[3:])"
              "(m.scheduler())", "(True, [])"),
             ("(lambda s: (s.clear(), s.empty())[1])(m.scheduler())", "True"))),
         symbol="scheduler"),
    Task("shlex-method", "shlex.py", "method",
         ("Add a method `tokens(self)` to the class `shlex` that returns every remaining token as a list.",
          "add a tokens method to shlex that returns the rest of the tokens as a list",
          "It would help if a shlex object could give me all its remaining tokens at once: add tokens(self) "
          "returning them as a list"),
         Behaves(("shlex.tokens",), (("m.shlex('a b \"c d\"', posix=True).tokens()", "['a', 'b', 'c d']"),
                                     ("m.shlex('').tokens()", "[]"),
                                     ("(lambda x: (x.get_token(), x.tokens())[1])(m.shlex('x y z'))", "['y', 'z']"))),
         symbol="shlex"),
    Task("colorsys-extract", "colorsys.py", "extract",
         ("Extract the hue computation that `rgb_to_hls` and `rgb_to_hsv` share (from `rc = ...` to "
          "`h = (h/6.0) % 1.0`) into a new function `_hue(r, g, b, maxc, rangec)` that returns h, and call it "
          "from both.",
          "rgb_to_hls and rgb_to_hsv compute the hue with the same code; pull it out into a helper _hue(r, g, b, "
          "maxc, rangec) that returns h and use it in both",
          "Deduplicate the hue calculation: a new function _hue(r, g, b, maxc, rangec) returning the hue, called "
          "from rgb_to_hls and from rgb_to_hsv"),
         Behaves(("rgb_to_hls", "rgb_to_hsv", "_hue"), (
             ("round(m._hue(1.0, 0.0, 0.5, 1.0, 1.0), 9)", "0.916666667"),
             (_HUE.format("rgb_to_hls", "0.2, 0.4, 0.8"), "(0.611111111, 0.5, 0.6)"),
             (_HUE.format("rgb_to_hsv", "0.2, 0.4, 0.8"), "(0.611111111, 0.75, 0.8)"),
             (_HUE.format("rgb_to_hsv", "1.0, 0.0, 0.5"), "(0.916666667, 1.0, 1.0)"),
             (_HUE.format("rgb_to_hls", "0.9, 0.6, 0.1"), "(0.104166667, 0.5, 0.8)"),
             ("m.rgb_to_hls(0.5, 0.5, 0.5)", "(0.0, 0.5, 0.0)")),
             calls=(("rgb_to_hls", "_hue"), ("rgb_to_hsv", "_hue")))),
)
