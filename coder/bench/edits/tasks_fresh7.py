"""The seventh fresh set of ``coder bench --edits --set fresh7``: the unseen measure once the sixth fresh set is read.

The suite, the held-out set and the six fresh sets (:mod:`coder.bench.edits.tasks_fresh` to
:mod:`coder.bench.edits.tasks_fresh6`) may all have been read by the people tuning coder's instruction reader, so
none of them can be trusted to measure how coder does on wordings nobody tuned for. These tasks were written on
2026-12-05 by someone who had not read ``coder/edit/``, coder's CLI (other than ``coder/cli/bench_edits.py``, to
register the set), the benchmark pages or any bench result, on five CPython 3.11.7 modules no other set uses
(``uuid``, ``webbrowser``, ``shelve``, ``pkgutil``, ``selectors``; shipped under ``files/fresh7/``,
``files/SOURCES.md`` lists them). Each task has two wordings, typed once the way two different people would type
the request into an assistant, and never tried on coder or a model (nor on coder's planner). Nothing may be tuned
on this set (no reading rule, prompt or repair written to pass one of its tasks), or it becomes one more suite.

The bug tasks are in :mod:`coder.bench.edits.tasks_fresh7_bugs`; the rest reuse the suite's checks, and a
change of behaviour is judged by calling the code (:class:`~coder.bench.edits.behaviour.Behaves`). webbrowser's
cases never start a browser: they give the module a recording browser or a stand-in for ``subprocess.Popen``.
"""

from __future__ import annotations

from coder.bench.edits.behaviour import Behaves
from coder.bench.edits.checks import Comment, Docstring, Hints, Renamed, SameAst
from coder.bench.edits.taskdef import Task, source
from coder.bench.edits.tasks_fresh7_bugs import BUGS, OS, PIPE


def span(file: str, start: str, end: str) -> str:
    """The text of ``file`` from the line starting ``start`` through the first ``end`` after it."""
    text = source(file)
    a = text.index(start)
    return text[a:text.index(end, a) + len(end)]


IPCONFIG = span("fresh7/uuid.py", "def _ipconfig_getnode():\n", "    return _windll_getnode()\n")
NETBIOS = span("fresh7/uuid.py", "def _netbios_getnode():\n", "    return _windll_getnode()\n")

UUID: tuple[Task, ...] = (
    Task("uuid-rename", "fresh7/uuid.py", "rename",
         ("uuid.py: _find_mac_near_keyword -> _scan_for_mac",
          "The helper _find_mac_near_keyword in uuid.py has a name that is long and a bit misleading, since the "
          "MAC it returns is not always next to the keyword. Please call it _scan_for_mac instead and fix up the "
          "getnode helpers that use it. _find_mac_under_heading stays as it is."),
         Renamed("_find_mac_near_keyword", "_scan_for_mac")),
    Task("uuid-method", "fresh7/uuid.py", "method",
         ("I keep writing u.int == 0 to detect the nil UUID (00000000-0000-0000-0000-000000000000) that our "
          "database uses as a placeholder. Could the UUID class get an is_nil() method that returns True for that "
          "value and False for any other UUID?",
          "add UUID.is_nil() -> bool, true only for the all-zero uuid"),
         Behaves(("UUID.is_nil",), (
             ("m.UUID(int=0).is_nil()", "True"),
             ("m.UUID('00000000-0000-0000-0000-000000000000').is_nil()", "True"),
             ("m.UUID(bytes=bytes(16)).is_nil()", "True"),
             ("m.UUID(int=1).is_nil()", "False"),
             ("m.UUID('12345678-1234-5678-1234-000000000000').is_nil()", "False"),
             ("m.NAMESPACE_DNS.is_nil()", "False"),
             ("m.UUID(int=1 << 127).is_nil()", "False"),
             ("type(m.UUID(int=0).is_nil()).__name__", "'bool'"))),
         symbol="UUID"),
    Task("uuid-delete", "fresh7/uuid.py", "delete",
         ("remove the deprecated _ipconfig_getnode and _netbios_getnode from uuid.py",
          "uuid.py still has two Windows shims, _ipconfig_getnode and _netbios_getnode, both marked DEPRECATED "
          "and doing nothing but calling _windll_getnode since bpo-40501. Nothing in the module refers to them "
          "any more. Please delete both functions; _windll_getnode itself has to stay."),
         SameAst(((IPCONFIG, ""), (NETBIOS, "")))),
    Task("uuid-hints", "fresh7/uuid.py", "hints",
         ("Please add type hints to uuid3 in uuid.py. The namespace argument is a UUID instance (one of the "
          "NAMESPACE_* constants usually), name is a str, and the function returns a UUID.",
          "type-annotate uuid.uuid3(namespace, name)"),
         Hints("uuid3"), symbol="uuid3"),
)

GRAIL = span("fresh7/webbrowser.py", "class Grail(BaseBrowser):\n", "        return ok\n")
GRAIL_REGISTER = ('    # Grail, the Python browser. Does anybody still use it?\n    if shutil.which("grail"):\n'
                  '        register("grail", Grail, None)\n')

# a stand-in for subprocess.Popen that records each command line, then CALL's result and the commands
_POPEN = ("(lambda calls: (setattr(m.subprocess, 'Popen', lambda cmd, **kw: calls.append(cmd) or "
          "__import__('types').SimpleNamespace(wait=lambda: 0, poll=lambda: None)), {call}, calls)[1:])([])")
# a browser that records what it is asked to open, registered as the only one, then CALL's result and the records
_RECORDED = ("(lambda rec: (setattr(m, '_tryorder', []), m.register('rec', None, type('Rec', (m.BaseBrowser,), "
             "{{'open': lambda self, url, new=0, autoraise=True: rec.append((url, new, autoraise)) or True}})('rec')), "
             "{call}, rec)[2:])([])")

WEBBROWSER: tuple[Task, ...] = (
    Task("webbrowser-method", "fresh7/webbrowser.py", "method",
         ("webbrowser: give BaseBrowser a __repr__ that shows class + name, e.g. GenericBrowser('lynx')",
          "When I print webbrowser.get() or look at the registered browsers in a debugger I only see "
          "<webbrowser.GenericBrowser object at 0x7f...>. Could BaseBrowser define a __repr__ returning the class "
          "name followed by the browser's name attribute in parentheses, quoted the way repr quotes strings, so "
          "that every subclass shows up like Chrome('google-chrome')?"),
         Behaves(("BaseBrowser.__repr__",), (
             ("repr(m.GenericBrowser('lynx'))", "\"GenericBrowser('lynx')\""),
             ("repr(m.GenericBrowser('/usr/bin/firefox'))", "\"GenericBrowser('/usr/bin/firefox')\""),
             ("repr(m.Chrome('google-chrome'))", "\"Chrome('google-chrome')\""),
             ("repr(m.BackgroundBrowser(['mosaic', '-x', '%s']))", "\"BackgroundBrowser('mosaic')\""),
             ("repr(m.BaseBrowser())", "\"BaseBrowser('')\""),
             ("repr([m.Elinks('elinks')])", "\"[Elinks('elinks')]\""))),
         symbol="BaseBrowser"),
    Task("webbrowser-extract", "fresh7/webbrowser.py", "extract",
         ("GenericBrowser.open and BackgroundBrowser.open both build the command by putting the URL in place of "
          "%s in each argument after the program name. Move that into a method _command_line(self, url) on "
          "GenericBrowser that returns the list, and have both open methods call it instead of repeating the "
          "list comprehension.",
          "webbrowser.py: factor the cmdline building of the two open()s into GenericBrowser._command_line(url)"),
         Behaves(("GenericBrowser.open", "BackgroundBrowser.open", "GenericBrowser._command_line"), (
             ("m.GenericBrowser(['b', '--new', '%s'])._command_line('http://x')", "['b', '--new', 'http://x']"),
             ("m.GenericBrowser('lynx')._command_line('u')", "['lynx', 'u']"),
             ("m.BackgroundBrowser(['b', '-a', 'x%sy'])._command_line('U')", "['b', '-a', 'xUy']"),
             ("m.GenericBrowser(['b', '-v'])._command_line('u')", "['b', '-v']"),
             (_POPEN.format(call="m.GenericBrowser(['b', '%s', '-x']).open('u')"), "(True, [['b', 'u', '-x']])"),
             (_POPEN.format(call="m.BackgroundBrowser('bg').open('http://y')"), "(True, [['bg', 'http://y']])")),
             calls=(("GenericBrowser.open", "_command_line"), ("BackgroundBrowser.open", "_command_line")))),
    Task("webbrowser-param", "fresh7/webbrowser.py", "param",
         ("open_new_tab(url, autoraise=True) in webbrowser, passed on to open()",
          "webbrowser.open takes autoraise, but the open_new_tab shortcut does not, so I can't open a tab in the "
          "background without going back to open(url, 2, False). Please add an autoraise parameter to "
          "open_new_tab, True by default as in open, and hand it on when it calls open."),
         Behaves(("open_new_tab",), (
             (_RECORDED.format(call="m.open_new_tab('http://a', autoraise=False)"), "(True, [('http://a', 2, False)])"),
             (_RECORDED.format(call="m.open_new_tab('http://a')"), "(True, [('http://a', 2, True)])"),
             (_RECORDED.format(call="m.open_new_tab('u', False)"), "(True, [('u', 2, False)])"),
             (_RECORDED.format(call="m.open_new('u')"), "(True, [('u', 1, True)])"))),
         symbol="open_new_tab"),
    Task("webbrowser-delete", "fresh7/webbrowser.py", "delete",
         ("Grail has been dead for over twenty years. Please take the Grail class out of webbrowser.py, and the "
          "lines in register_X_browsers that register it when a grail executable is found.",
          "drop Grail support from webbrowser (class + registration)"),
         SameAst(((GRAIL, ""), (GRAIL_REGISTER, "")))),
)

_DB = "__import__('tempfile').mkdtemp() + '/db'"


def _stored_keys(call: str) -> str:
    """The keys stored on disk after setting 'é' in the shelf that ``call`` opens."""
    return f"(lambda s: (s.__setitem__('é', 1), sorted(s.dict.keys()), s.close())[1])({call})"


SHELVE: tuple[Task, ...] = (
    Task("shelve-rename", "fresh7/shelve.py", "rename",
         ("The placeholder that a shelf's dict becomes after close() is called _ClosedDict, but it's not a dict, it "
          "is a MutableMapping that raises on every access. Rename the class to _ClosedMapping throughout "
          "shelve.py please.",
          "shelve: rename _ClosedDict to _ClosedMapping"),
         Renamed("_ClosedDict", "_ClosedMapping")),
    Task("shelve-fix", "fresh7/shelve.py", "fix",
         ("shelve: '5 in shelf' blows up with AttributeError: 'int' object has no attribute 'encode'. a key that "
          "isn't a str can't be in a shelf, so just return False",
          "Shelf.__contains__ assumes the key is a string and calls encode on it, so checking membership of an "
          "int, None or a tuple crashes instead of answering. Since shelf keys are always strings, anything that "
          "is not a str should simply be reported as not present; string keys must keep working as now, "
          "including with a custom keyencoding."),
         Behaves(("Shelf.__contains__",), (
             ("5 in m.Shelf({b'5': b''})", "False"),
             ("'5' in m.Shelf({b'5': b''})", "True"),
             ("'x' in m.Shelf({})", "False"),
             ("None in m.Shelf({})", "False"),
             ("b'5' in m.Shelf({b'5': b''})", "False"),
             ("('a',) in m.Shelf({})", "False"),
             ("'é' in m.Shelf({'é'.encode('latin-1'): b''}, keyencoding='latin-1')", "True"))),
         symbol="Shelf.__contains__"),
    Task("shelve-param", "fresh7/shelve.py", "param",
         ("Shelf already supports a keyencoding argument, but shelve.open and DbfilenameShelf don't let me pass "
          "one, so every file-backed shelf stores its keys as UTF-8. Please add keyencoding='utf-8' as the last "
          "parameter of both and pass it through to Shelf.",
          "shelve.open(..., keyencoding='utf-8') -> forwarded via DbfilenameShelf to Shelf"),
         Behaves(("open", "DbfilenameShelf.__init__"), (
             (_stored_keys(f"m.open({_DB}, keyencoding='latin-1')"), "[b'\\xe9']"),
             (_stored_keys(f"m.open({_DB})"), "[b'\\xc3\\xa9']"),
             (_stored_keys(f"m.DbfilenameShelf({_DB}, 'c', None, False, 'latin-1')"), "[b'\\xe9']"),
             (f"(lambda s: (s.keyencoding, s.writeback, s.close())[:2])(m.open({_DB}, 'c', None, True, 'utf-16'))",
              "('utf-16', True)"),
             (f"(lambda s: (s.keyencoding, s.close())[0])(m.DbfilenameShelf({_DB}))", "'utf-8'"),
             (f"(lambda p: (m.open(p, keyencoding='latin-1').__setitem__('ü', [1]), (lambda s: (list(s), s.close())"
              f"[0])(m.open(p, 'r', keyencoding='latin-1')))[1])({_DB})", "['ü']"))),
         symbol="open"),
    Task("shelve-comment", "fresh7/shelve.py", "comment",
         ("shelve Shelf.sync: comment the 'self.writeback = False' line, it's there so self[key] = entry writes "
          "straight through instead of going back into the cache we're iterating",
          "In Shelf.sync there's a line that switches self.writeback off before the cached entries are written "
          "back, and it looks like a mistake until you think about it. Could you add a comment right above it "
          "saying that writeback is disabled for the loop so that the assignments go to the database and don't "
          "touch self.cache while it is being iterated, and that it's turned back on afterwards?"),
         Comment("Shelf.sync", above=("self.writeback = False",)), symbol="Shelf.sync"),
)

GET_SPEC = span("fresh7/pkgutil.py", "def _get_spec(finder, name):\n", "        return find_spec(name)\n")
IMP_LOADER = "class ImpLoader:\n"

PKGUTIL: tuple[Task, ...] = (
    Task("pkgutil-docstring", "fresh7/pkgutil.py", "docstring",
         ("pkgutil.read_code: write a docstring",
          "read_code in pkgutil is a public function (it's in __all__) but has only a comment. Please give it a "
          "docstring: it reads a compiled module from a binary stream positioned at the start of a .pyc file, "
          "returns None if the magic number doesn't match the running interpreter, and otherwise skips the rest "
          "of the header and returns the unmarshalled code object."),
         Docstring("read_code"), symbol="read_code"),
    Task("pkgutil-hints", "fresh7/pkgutil.py", "hints",
         ("Can you annotate pkgutil.get_data? package is the dotted name of a package as a string, resource is "
          "a '/'-separated relative path (also a str), and it gives back the resource's contents as bytes, or "
          "None when the package can't be found or its loader has no get_data.",
          "get_data in pkgutil.py: add annotations, (str, str) -> bytes | None"),
         Hints("get_data"), symbol="get_data"),
    Task("pkgutil-move", "fresh7/pkgutil.py", "move",
         ("move _get_spec in pkgutil.py down to just above class ImpLoader",
          "_get_spec sits at the very top of pkgutil but its only caller is ImpLoader._get_delegate, hundreds of "
          "lines further down. To keep it near where it's used, please cut the function and paste it directly "
          "before the ImpLoader class definition, leaving its code as is."),
         SameAst(((GET_SPEC, ""), (IMP_LOADER, GET_SPEC + "\n\n" + IMP_LOADER)))),
    Task("pkgutil-function", "fresh7/pkgutil.py", "function",
         ("I'd like a small convenience function in pkgutil, list_submodules(package), that takes an imported "
          "package module and returns a sorted list with the names of the modules and subpackages directly "
          "inside it (just the last part of each name, like 'decoder' for json.decoder; no recursion into "
          "subpackages). If the module passed in isn't a package it should raise ValueError.",
          "new pkgutil.list_submodules(pkg): sorted names of pkg's direct submodules (iter_modules over "
          "pkg.__path__), ValueError for a plain module"),
         Behaves(("list_submodules",), (
             ("m.list_submodules(__import__('json'))", "['decoder', 'encoder', 'scanner', 'tool']"),
             ("m.list_submodules(__import__('concurrent'))", "['futures']"),
             ("'mime' in m.list_submodules(__import__('email'))", "True"),
             ("m.list_submodules(__import__('email.mime').mime)",
              "['application', 'audio', 'base', 'image', 'message', 'multipart', 'nonmultipart', 'text']"),
             ("m.list_submodules(__import__('shelve'))", "raised ValueError"),
             ("type(m.list_submodules(__import__('json'))).__name__", "'list'")))),
)


def _polled(call: str) -> str:
    """``call`` on a PollSelector ``s`` and a fresh pipe ``r``, ``w``, then (data, events) of each ready key."""
    return (f"(lambda s, r, w: ({call}, sorted((k.data, e) for k, e in s.select(0)))[-1])"
            f"(m.PollSelector(), *{PIPE})")


SELECTORS: tuple[Task, ...] = (
    Task("selectors-rename", "fresh7/selectors.py", "rename",
         ("selectors: _key_from_fd -> _find_key (def + all callers)",
          "In selectors.py I'd like the private method _key_from_fd renamed to _find_key. It is defined on "
          "_BaseSelectorImpl and called from the select() of every selector class, so all of those calls need "
          "to change with it."),
         Renamed("_key_from_fd", "_find_key")),
    Task("selectors-docstring", "fresh7/selectors.py", "docstring",
         ("The modify method of _BaseSelectorImpl has no docstring. Please document what it does: it raises "
          "KeyError if the file object isn't registered, re-registers it when the events mask changes, and when "
          "only the data differs it just swaps the data in the stored key; either way it returns the key.",
          "selectors.py: docstring on _BaseSelectorImpl.modify"),
         Docstring("_BaseSelectorImpl.modify"), symbol="_BaseSelectorImpl.modify"),
    Task("selectors-extract", "fresh7/selectors.py", "extract",
         ("_PollLikeSelector: register() and modify() both turn EVENT_READ/EVENT_WRITE into poller flags with the "
          "same two ifs -> pull out a _poller_events(self, events) method and use it in both",
          "register and modify in _PollLikeSelector each have their own copy of the code that converts the "
          "selectors event mask into the underlying poll/epoll/devpoll mask (_EVENT_READ, _EVENT_WRITE). "
          "Please extract it into a method _poller_events(events) on that class that returns the converted "
          "mask, and call it from both places."),
         Behaves(("_PollLikeSelector.register", "_PollLikeSelector.modify", "_PollLikeSelector._poller_events"), (
             ("m.PollSelector()._poller_events(m.EVENT_READ) == __import__('select').POLLIN", "True"),
             ("m.PollSelector()._poller_events(m.EVENT_WRITE) == __import__('select').POLLOUT", "True"),
             ("(lambda s: s.POLLIN | s.POLLOUT)(__import__('select')) == "
              "m.PollSelector()._poller_events(m.EVENT_READ | m.EVENT_WRITE)", "True"),
             ("(lambda s: s.EPOLLIN | s.EPOLLOUT)(__import__('select')) == "
              "m.EpollSelector()._poller_events(m.EVENT_READ | m.EVENT_WRITE)", "True"),
             ("m.PollSelector()._poller_events(0)", "0"),
             (_polled(f"{OS}.write(w, b'a'), s.register(r, m.EVENT_READ, 'r')"), "[('r', 1)]"),
             (_polled("s.register(w, m.EVENT_READ), s.modify(w, m.EVENT_WRITE, 'd')"), "[('d', 2)]"),
             (_polled("s.register(w, m.EVENT_WRITE, 'w'), s.modify(w, m.EVENT_WRITE, 'x')"), "[('x', 2)]")),
             calls=(("_PollLikeSelector.register", "_poller_events"), ("_PollLikeSelector.modify", "_poller_events")))),
    Task("selectors-comment", "fresh7/selectors.py", "comment",
         ("Please add a comment in SelectSelector.select, on the line above ready.append(...), explaining why the "
          "events are ANDed with key.events: select() can report a file descriptor for a condition the caller "
          "never asked for (on Windows the exceptional set is folded into the writers), and only the registered "
          "events should be reported back.",
          "SelectSelector.select: comment why we mask with key.events before appending"),
         Comment("SelectSelector.select", above=("ready.append((key, events & key.events))",)),
         symbol="SelectSelector.select"),
)

FRESH7: tuple[Task, ...] = UUID + WEBBROWSER + SHELVE + PKGUTIL + SELECTORS + BUGS
