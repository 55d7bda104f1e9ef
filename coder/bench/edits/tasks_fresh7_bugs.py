"""The bug tasks of ``coder bench --edits --set fresh7``: one bug put in by hand in each of its five modules.

Each runs on a copy under ``files/fresh7/bugs/`` and is judged by calling the code
(:class:`~coder.bench.edits.behaviour.Behaves`). They are reported the way users report bugs: what they saw,
sometimes naming a function, never the line, and the function named is not always the one with the bug.
:mod:`coder.bench.edits.tasks_fresh7` says how the set was written and that nothing may be tuned on it.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.taskdef import Task

OS = "__import__('os')"
PIPE = f"{OS}.pipe()"


def _asked(browser: str, new: int) -> str:
    """The remote command lines ``browser`` runs for ``open('u', new)`` (its _invoke recorded, nothing started)."""
    return (f"(lambda rec, b: (setattr(b, '_invoke', lambda args, remote, autoraise, url=None: rec.append(args) or "
            f"True), b.open('u', {new}), rec)[2])([], m.{browser})")


def _ready(selector: str, call: str) -> str:
    """``call`` on ``selector`` ``s`` and a fresh pipe ``r``, ``w``, then (data, events) of each ready key."""
    return f"(lambda s, r, w: ({call}, sorted((k.data, e) for k, e in s.select(0)))[-1])(m.{selector}(), *{PIPE})"


# a package made on the fly (f7pkg: __init__.py, res.txt, sub/x.dat), put first on sys.path, then CALL's result
_PKG = ("(lambda d: ({OS}.mkdir(d + '/f7pkg'), open(d + '/f7pkg/__init__.py', 'w').close(), "
        "{OS}.mkdir(d + '/f7pkg/sub'), open(d + '/f7pkg/res.txt', 'wb').write(b'hello'), "
        "open(d + '/f7pkg/sub/x.dat', 'wb').write(b'xy'), __import__('sys').path.insert(0, d), {call})[-1])"
        "(__import__('tempfile').mkdtemp())")
# a list stored by a plain shelf, appended to through a writeback shelf that is then closed, read back plainly
_WRITEBACK = ("(lambda d: (m.Shelf(d).__setitem__('k', [1]), (lambda s: (s['k'].append(2), s.close()))"
              "(m.Shelf(d, writeback=True)), m.Shelf(d)['k'])[2])({})")

BUGS: tuple[Task, ...] = (
    Task("bug-uuid-clock-seq", "fresh7/bugs/uuid.py", "bugfix",
         ("uuid1(clock_seq=5).clock_seq gives me 32773, not 5. NAMESPACE_DNS.clock_seq is 32948 but the RFC "
          "says 0x00b4 = 180. looks like the variant bits end up in the value",
          "The clock_seq property of UUID objects returns numbers that are too large: the 14-bit clock sequence "
          "I pass to uuid1 doesn't come back out, and for standard RFC 4122 UUIDs the result is always 32768 "
          "higher than it should be. The other fields (time, node, version) look right. Could you fix it?"),
         Behaves(("UUID.clock_seq",), (
             ("m.uuid1(node=1, clock_seq=5).clock_seq", "5"),
             ("m.uuid1(node=1, clock_seq=0x3fff).clock_seq", "16383"),
             ("m.NAMESPACE_DNS.clock_seq", "180"),
             ("m.UUID('a8098c1a-f86e-11da-bd1a-00112444be1e').clock_seq", "15642"),
             ("m.UUID(fields=(0, 0, 0x1000, 0x80 | 0x12, 0x34, 0)).clock_seq", "4660"),
             ("m.UUID(int=0).clock_seq", "0"),
             ("m.UUID('00000000-0000-0000-c012-000000000000').clock_seq", "18"),
             ("m.NAMESPACE_DNS.clock_seq_hi_variant", "128"))),
         symbol="UUID.clock_seq"),
    Task("bug-webbrowser-new-tab", "fresh7/bugs/webbrowser.py", "bugfix",
         ("webbrowser.open_new_tab() opens a new firefox window instead of a tab. with BROWSER=firefox I can see "
          "it runs 'firefox -new-window URL'. open_new() (new window) is fine, and the tab thing used to work",
          "Asking webbrowser for a new tab (open_new_tab, or open with new=2) makes Unix browsers like Firefox, "
          "Chrome or elinks open a new window, as if new=1 had been passed. Browsers that don't support tabs "
          "should still fall back to a window, but the ones that do support them should get a tab."),
         Behaves(("UnixBrowser.open",), (
             (_asked("Mozilla('firefox')", 2), "[['-new-tab', 'u']]"),
             (_asked("Mozilla('firefox')", 1), "[['-new-window', 'u']]"),
             (_asked("Mozilla('firefox')", 0), "[['u']]"),
             (_asked("Chrome('chromium')", 2), "[['u']]"),
             (_asked("Elinks('elinks')", 2), "[['-remote', 'openURL(u,new-tab)']]"),
             (_asked("Galeon('galeon')", 2), "[['-w', 'u']]"))),
         symbol="UnixBrowser.open"),
    Task("bug-shelve-writeback", "fresh7/bugs/shelve.py", "bugfix",
         ("Two things with shelve that I think are the same bug. With writeback=True, db['todo'].append('x') is "
          "lost: after closing and reopening, the list doesn't have the new item, although the docs say that's "
          "what writeback is for. And without writeback, reading db['todo'] twice gives me the very same list "
          "object, so my local changes show up in later reads even though nothing was saved.",
          "shelve: writeback=True doesn't persist in-place mutations any more, while plain shelves cache what "
          "they read"),
         Behaves(("Shelf.__getitem__",), (
             (_WRITEBACK, "[1, 2]"),
             ("(lambda s: (s.__setitem__('k', [1]), s['k'].append(2), s['k'])[2])(m.Shelf({}))", "[1]"),
             ("(lambda s: (s.__setitem__('k', 'v'), s['k'], len(s.cache))[1:])(m.Shelf({}))", "('v', 0)"),
             ("(lambda s: (s.__setitem__('k', 'v'), s.cache.clear(), s['k'], len(s.cache))[2:])"
              "(m.Shelf({}, writeback=True))", "('v', 1)"),
             ("m.Shelf({}).get('nope', 7)", "7"))),
         symbol="Shelf.__getitem__"),
    Task("bug-pkgutil-get-data", "fresh7/bugs/pkgutil.py", "bugfix",
         ("pkgutil.get_data('mypkg', 'templates/base.html') fails with NotADirectoryError: [Errno 20] Not a "
          "directory: '/srv/app/mypkg/__init__.py/templates/base.html'. the file is definitely there next to "
          "__init__.py",
          "get_data from pkgutil can't read any resource of a regular package any more: the path it builds has "
          "the package's __init__.py in it as if it were a folder, so opening the resource fails. Packages that "
          "can't be found should still give None."),
         Behaves(("get_data",), (
             (_PKG.format(OS=OS, call="m.get_data('f7pkg', 'res.txt')"), "b'hello'"),
             (_PKG.format(OS=OS, call="m.get_data('f7pkg', 'sub/x.dat')"), "b'xy'"),
             ("m.get_data('json', '__init__.py') == open(__import__('json').__file__, 'rb').read()", "True"),
             ("m.get_data('no_such_package_f7', 'x.txt')", "None"),
             ("m.get_data('json', 'no-such-resource.txt')", "raised FileNotFoundError"))),
         symbol="get_data"),
    Task("bug-selectors-writable", "fresh7/bugs/selectors.py", "bugfix",
         ("Our event loop is built on selectors.PollSelector, and select() gives me (key, 0) "
          "for a pipe or socket registered with EVENT_WRITE, so my 'if mask & EVENT_WRITE' branch never runs and "
          "the client hangs. With EpollSelector or SelectSelector the mask is EVENT_WRITE as expected.",
          "PollSelector.select reports writable fds with an empty event mask"),
         Behaves(("_PollLikeSelector.select",), (
             (_ready("PollSelector", "s.register(w, m.EVENT_WRITE, 'w')"), "[('w', 2)]"),
             (_ready("EpollSelector", "s.register(w, m.EVENT_WRITE, 'w')"), "[('w', 2)]"),
             (_ready("PollSelector", f"{OS}.write(w, b'x'), s.register(r, m.EVENT_READ, 'r'), "
                                     "s.register(w, m.EVENT_WRITE, 'w')"), "[('r', 1), ('w', 2)]"),
             (_ready("PollSelector", f"{OS}.write(w, b'x'), s.register(r, m.EVENT_READ, 'r')"), "[('r', 1)]"),
             (_ready("PollSelector", "s.register(r, m.EVENT_READ, 'r')"), "[]"),
             (_ready("PollSelector", "s.register(w, m.EVENT_READ | m.EVENT_WRITE, 'rw')"), "[('rw', 2)]"),
             (_ready("SelectSelector", "s.register(w, m.EVENT_WRITE, 'w')"), "[('w', 2)]"))),
         symbol="_PollLikeSelector.select"),
)
