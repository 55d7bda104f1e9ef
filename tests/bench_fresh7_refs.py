"""Hand-written results for the tasks of ``--set fresh7`` (:mod:`coder.bench.edits.tasks_fresh7`): a correct result
of each task whose check does not give one, and plausible wrong results, as edits on the task's original."""

from __future__ import annotations

from bench_sets import Edits

from coder.bench.edits.tasks_fresh7 import GET_SPEC, GRAIL, GRAIL_REGISTER, IMP_LOADER, IPCONFIG, NETBIOS

_VERSION = "    @property\n    def version(self):\n"
_IS_NIL = ('    def is_nil(self):\n        """True for the nil UUID, all 128 bits zero."""\n'
           '        return self.int == 0\n\n')
_UUID3 = "def uuid3(namespace, name):\n"
_NEAR = "_find_mac_near_keyword("
_CALLS = ("        mac = _find_mac_near_keyword('ifconfig'", "    mac = _find_mac_near_keyword('ip'",
          "[os.fsencode(ip_addr)], lambda i: -1)", "[os.fsencode(ip_addr)], lambda i: i+1)",
          "    mac = _find_mac_near_keyword('arp', '-an', [os.fsencode('(%s)'")
_RENAMED_BUT_LANSCAN: Edits = (("def _find_mac_near_keyword(", "def _scan_for_mac("),
                               *((c, c.replace("_find_mac_near_keyword", "_scan_for_mac")) for c in _CALLS[:2]),
                               ("    mac = _find_mac_near_keyword('arp', '-an', [os.fsencode(ip_addr)], lambda i: -1)",
                                "    mac = _scan_for_mac('arp', '-an', [os.fsencode(ip_addr)], lambda i: -1)"),
                               ("    mac = _find_mac_near_keyword('arp', '-an', [os.fsencode(ip_addr)], lambda i: i+1)",
                                "    mac = _scan_for_mac('arp', '-an', [os.fsencode(ip_addr)], lambda i: i+1)"),
                               (_CALLS[4], _CALLS[4].replace("_find_mac_near_keyword", "_scan_for_mac")))
_LANSCAN = "    return _find_mac_near_keyword('lanscan'"

_BASE_OPEN_TAB = "    def open_new_tab(self, url):\n        return self.open(url, 2)\n"
_REPR = "\n    def __repr__(self):\n        return f'{type(self).__name__}({self.name!r})'\n"
_AUDIT = '        sys.audit("webbrowser.open", url)\n'
_CMD = ('        cmdline = [self.name] + [arg.replace("%s", url)\n'
        '                                 for arg in self.args]\n')
_CALL = "        cmdline = self._command_line(url)\n"
_BASENAME = "        self.basename = os.path.basename(self.name)\n"
_COMMAND_LINE = ('\n    def _command_line(self, url):\n'
                 '        """The program and its arguments, url put in for %s."""\n'
                 '        return [self.name] + [arg.replace("%s", url) for arg in self.args]\n')
_OPEN_TAB = "def open_new_tab(url):\n"
_OPEN_2 = "    return open(url, 2)\n"

_CONTAINS = "    def __contains__(self, key):\n        return key.encode(self.keyencoding) in self.dict\n"
_CONTAINS_FIXED = ("    def __contains__(self, key):\n        if not isinstance(key, str):\n            return False\n"
                   "        return key.encode(self.keyencoding) in self.dict\n")
_DBF = ("    def __init__(self, filename, flag='c', protocol=None, writeback=False):\n        import dbm\n"
        "        Shelf.__init__(self, dbm.open(filename, flag), protocol, writeback)\n")
_DBF_KEYS = ("    def __init__(self, filename, flag='c', protocol=None, writeback=False, keyencoding='utf-8'):\n"
             "        import dbm\n"
             "        Shelf.__init__(self, dbm.open(filename, flag), protocol, writeback, keyencoding)\n")
_OPEN = "def open(filename, flag='c', protocol=None, writeback=False):\n"
_OPEN_KEYS = "def open(filename, flag='c', protocol=None, writeback=False, keyencoding='utf-8'):\n"
_OPEN_RETURN = "    return DbfilenameShelf(filename, flag, protocol, writeback)\n"
_OPEN_RETURN_KEYS = "    return DbfilenameShelf(filename, flag, protocol, writeback, keyencoding)\n"
_WB_OFF = "            self.writeback = False\n"

_READ_CODE = "def read_code(stream):\n"
_GET_DATA = "def get_data(package, resource):\n"
_NAME_PATTERN = "_NAME_PATTERN = None\n"
_SUBMODULES = ('def list_submodules(package):\n    """Sorted names of the modules directly inside package."""\n'
               "    path = getattr(package, '__path__', None)\n    if path is None:\n"
               "        raise ValueError(f'{package.__name__} is not a package')\n"
               "    return sorted(info.name for info in iter_modules(path))\n\n\n")

_MODIFY = ('    def modify(self, fileobj, events, data=None):\n        try:\n'
           '            key = self._fd_to_key[self._fileobj_lookup(fileobj)]\n        except KeyError:\n'
           '            raise KeyError("{!r}')
_MODIFY_DOC = _MODIFY.replace("data=None):\n", 'data=None):\n        """Change the events or data of a registered '
                              'file object; return its key."""\n')
_REGISTER_EVENTS = ("        poller_events = 0\n        if events & EVENT_READ:\n"
                    "            poller_events |= self._EVENT_READ\n"
                    "        if events & EVENT_WRITE:\n            poller_events |= self._EVENT_WRITE\n")
_MODIFY_EVENTS = ("            selector_events = 0\n            if events & EVENT_READ:\n"
                  "                selector_events |= self._EVENT_READ\n            if events & EVENT_WRITE:\n"
                  "                selector_events |= self._EVENT_WRITE\n")
_POLLER_INIT = "        self._selector = self._selector_cls()\n"
_POLLER_EVENTS = ('\n    def _poller_events(self, events):\n        """The poller\'s mask for a selectors mask."""\n'
                  "        poller_events = 0\n        if events & EVENT_READ:\n"
                  "            poller_events |= self._EVENT_READ\n"
                  "        if events & EVENT_WRITE:\n            poller_events |= self._EVENT_WRITE\n"
                  "        return poller_events\n")
_APPEND = ("            key = self._key_from_fd(fd)\n            if key:\n"
           "                ready.append((key, events & key.events))\n        return ready\n\n\n"
           "class _PollLikeSelector")
_APPEND_NOTE = "                # report only the events registered for (select may report others)\n"
_NEWWIN = "                action = self.remote_action_newwin\n"
_NEWTAB = "                action = self.remote_action_newtab\n"
_KEY_CALLERS: Edits = (("                events |= EVENT_WRITE\n\n            key = self._key_from_fd(fd)",
                        "                events |= EVENT_WRITE\n\n            key = self._find_key(fd)"),
                       ("                events |= EVENT_READ\n\n            key = self._key_from_fd(fd)",
                        "                events |= EVENT_READ\n\n            key = self._find_key(fd)"))

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "uuid-method": ((_VERSION, _IS_NIL + _VERSION),),
    "uuid-hints": ((_UUID3, "def uuid3(namespace: UUID, name: str) -> UUID:\n"),),
    "webbrowser-method": ((_BASE_OPEN_TAB, _BASE_OPEN_TAB + _REPR),),
    "webbrowser-extract": ((_AUDIT + _CMD, _AUDIT + _CALL), (_CMD + _AUDIT, _CALL + _AUDIT),
                           (_BASENAME, _BASENAME + _COMMAND_LINE)),
    "webbrowser-param": ((_OPEN_TAB, "def open_new_tab(url, autoraise=True):\n"),
                         (_OPEN_2, "    return open(url, 2, autoraise)\n")),
    "shelve-fix": ((_CONTAINS, _CONTAINS_FIXED),),
    "shelve-param": ((_DBF, _DBF_KEYS), (_OPEN, _OPEN_KEYS), (_OPEN_RETURN, _OPEN_RETURN_KEYS)),
    "shelve-comment": ((_WB_OFF, "            # off while writing back: self[key] = ... must not refill the cache\n"
                        + _WB_OFF),),
    "pkgutil-docstring": ((_READ_CODE, _READ_CODE + '    """The code object of a .pyc stream, or None for another '
                           'magic number."""\n'),),
    "pkgutil-hints": ((_GET_DATA, "def get_data(package: str, resource: str) -> bytes | None:\n"),),
    "pkgutil-function": ((_NAME_PATTERN, _SUBMODULES + _NAME_PATTERN),),
    "selectors-docstring": ((_MODIFY, _MODIFY_DOC),),
    "selectors-extract": ((_REGISTER_EVENTS, "        poller_events = self._poller_events(events)\n"),
                          (_MODIFY_EVENTS, "            selector_events = self._poller_events(events)\n"),
                          (_POLLER_INIT, _POLLER_INIT + _POLLER_EVENTS)),
    "selectors-comment": ((_APPEND, _APPEND.replace("            if key:\n", "            if key:\n" + _APPEND_NOTE)),),
}

# Plausible wrong results, two or more per task: each must fail the task's check.
WRONG: dict[str, tuple[Edits, ...]] = {
    "uuid-rename": (
        (("def _find_mac_near_keyword(", "def _scan_for_mac("),),  # the callers left
        _RENAMED_BUT_LANSCAN,  # one caller missed
        (*_RENAMED_BUT_LANSCAN, (_LANSCAN, "    return _scan_for_mac('lanscan'"),
         ("def _find_mac_under_heading(", "def _scan_under_heading("),
         ("    return _find_mac_under_heading('netstat'", "    return _scan_under_heading('netstat'")),),
    "uuid-method": (
        ((_VERSION, _IS_NIL.replace("self.int == 0", "not self.version") + _VERSION),),  # any non-RFC UUID is nil
        ((_VERSION, _IS_NIL.replace("self.int == 0", "self.node == 0") + _VERSION),),
        ((_VERSION, _IS_NIL.replace("self.int == 0", "self.int == 0 or None") + _VERSION),),),  # None, not False
    "uuid-delete": (
        ((IPCONFIG, ""),),  # one left
        ((IPCONFIG, ""), (NETBIOS, ""), ("def _windll_getnode():", "def _windll_getnode_unused():")),),
    "uuid-hints": (
        ((_UUID3, "def uuid3(namespace: UUID, name: str):\n"),),  # no return
        ((_UUID3, "def uuid3(namespace: uuid.UUID, name: str) -> uuid.UUID:\n"),),),  # the module's own name
    "webbrowser-method": (
        ((_BASE_OPEN_TAB, _BASE_OPEN_TAB + _REPR.replace("self.name!r", "self.basename!r")),),
        ((_BASE_OPEN_TAB, _BASE_OPEN_TAB + _REPR.replace("{type(self).__name__}", "BaseBrowser")),),
        ((_BASE_OPEN_TAB, _BASE_OPEN_TAB + _REPR.replace("__repr__", "__str__")),),),
    "webbrowser-extract": (
        ((_AUDIT + _CMD, _AUDIT + _CALL), (_BASENAME, _BASENAME + _COMMAND_LINE)),  # Background keeps its copy
        ((_AUDIT + _CMD, _AUDIT + _CALL), (_CMD + _AUDIT, _CALL + _AUDIT),
         (_BASENAME, _BASENAME + _COMMAND_LINE.replace('arg.replace("%s", url)', "arg"))),  # url never put in
        ((_AUDIT + _CMD, _AUDIT + _CALL), (_CMD + _AUDIT, _CALL + _AUDIT),
         (_BASENAME, _BASENAME + _COMMAND_LINE.replace("[self.name] + ", ""))),),  # the program dropped
    "webbrowser-param": (
        ((_OPEN_TAB, "def open_new_tab(url, autoraise=True):\n"),),  # never passed on
        ((_OPEN_TAB, "def open_new_tab(url, autoraise=True):\n"), (_OPEN_2, "    return open(url, autoraise)\n")),
        ((_OPEN_TAB, "def open_new_tab(url, *, autoraise=True):\n"),
         (_OPEN_2, "    return open(url, 2, autoraise)\n")),),  # keyword-only: open_new_tab('u', False) fails
    "webbrowser-delete": (
        ((GRAIL, ""),),  # the registration left, now a NameError when grail is installed
        ((GRAIL_REGISTER, ""),),
        ((GRAIL, ""), (GRAIL_REGISTER, ""), ('    if shutil.which("mosaic"):\n', "    if False:\n")),),
    "shelve-rename": (
        (("class _ClosedDict(", "class _ClosedMapping("),),
        (("                self.dict = _ClosedDict()", "                self.dict = _ClosedMapping()"),),
        (("class _ClosedDict(", "class _ClosedMapping("),
         ("                self.dict = _ClosedDict()", "                self.dict = _ClosedMapping()"),
         ("'<Closed Dictionary>'", "'<Closed Mapping>'")),),
    "shelve-fix": (
        ((_CONTAINS, _CONTAINS.replace("key.encode(self.keyencoding)", "str(key).encode(self.keyencoding)")),),
        ((_CONTAINS, _CONTAINS_FIXED.replace("not isinstance(key, str)", "isinstance(key, int)")),),
        ((_CONTAINS, _CONTAINS_FIXED.replace("not isinstance(key, str)", "isinstance(key, bytes)")),),),
    "shelve-param": (
        ((_DBF, _DBF_KEYS), (_OPEN, _OPEN_KEYS)),  # open takes it but drops it
        ((_OPEN, _OPEN_KEYS), (_OPEN_RETURN, _OPEN_RETURN_KEYS)),  # DbfilenameShelf never got it
        ((_DBF, _DBF_KEYS.replace("writeback, keyencoding)", "keyencoding, writeback)")), (_OPEN, _OPEN_KEYS),
         (_OPEN_RETURN, _OPEN_RETURN_KEYS)),),
    "shelve-comment": (
        ((_WB_OFF + "            for key, entry in self.cache.items():\n",
          _WB_OFF + "            # write the cache back\n            for key, entry in self.cache.items():\n"),),
        (("            self.writeback = True\n",
          "            # writeback back on\n            self.writeback = True\n"),),),
    "pkgutil-docstring": (
        ((_READ_CODE, _READ_CODE + "    # Return the code object of a .pyc stream, or None.\n"),),
        ((_READ_CODE, _READ_CODE + '    """Read a code object."""\n'),
         ("    stream.read(12) # Skip rest of the header\n", "    stream.read(8)\n")),),
    "pkgutil-hints": (
        ((_GET_DATA, "def get_data(package: str, resource: str):\n"),),
        ((_GET_DATA, "def get_data(package: str, resource: str) -> Optional[bytes]:\n"),),),  # never imported
    "pkgutil-move": (
        ((GET_SPEC, ""), ("class ImpImporter:\n", GET_SPEC + "\n\nclass ImpImporter:\n")),  # above the wrong class
        ((GET_SPEC, ""),),  # gone
        ((GET_SPEC, ""), (IMP_LOADER, GET_SPEC.replace("    # Works with legacy finders.\n    try:\n"
                                                       "        find_spec = finder.find_spec\n",
                                                       "    try:\n        find_spec = finder.find_spec\n"
                                                       "        return find_spec(name)\n") + "\n\n" + IMP_LOADER)),),
    "pkgutil-function": (
        ((_NAME_PATTERN, _SUBMODULES.replace("    if path is None:\n        raise ValueError(f'{package.__name__} is "
                                             "not a package')\n", "") + _NAME_PATTERN),),  # AttributeError
        ((_NAME_PATTERN, _SUBMODULES.replace("info.name for info in iter_modules(path)",
                                             "info.name for info in iter_modules(path) if not info.ispkg")
          + _NAME_PATTERN),),
        ((_NAME_PATTERN, _SUBMODULES.replace("iter_modules(path)", "iter_modules(path, package.__name__ + '.')")
          + _NAME_PATTERN),),),  # full names
    "selectors-rename": (
        (("    def _key_from_fd(self, fd):", "    def _find_key(self, fd):"),),
        (("    def _key_from_fd(self, fd):", "    def _find_key(self, fd):"), *_KEY_CALLERS),),  # epoll, kqueue left
    "selectors-docstring": (
        ((_MODIFY, _MODIFY.replace("data=None):\n",
                                   "data=None):\n        # Change events or data; return the key.\n")),),
        ((_MODIFY, _MODIFY_DOC), ("        elif data != key.data:\n", "        else:\n")),),
    "selectors-extract": (
        ((_REGISTER_EVENTS, "        poller_events = self._poller_events(events)\n"),
         (_POLLER_INIT, _POLLER_INIT + _POLLER_EVENTS)),  # modify keeps its copy
        ((_REGISTER_EVENTS, "        poller_events = self._poller_events(events)\n"),
         (_MODIFY_EVENTS, "            selector_events = self._poller_events(events)\n"),
         (_POLLER_INIT, _POLLER_INIT + "\n    def _poller_events(self, events):\n        return events\n")),
        ((_REGISTER_EVENTS, "        poller_events = self._poller_events(events)\n"),
         (_MODIFY_EVENTS, "            selector_events = self._poller_events(events)\n"),
         (_POLLER_INIT, _POLLER_INIT + _POLLER_EVENTS.replace("if events & EVENT_WRITE",
                                                              "elif events & EVENT_WRITE"))),),
    "selectors-comment": (
        (("        timeout = None if timeout is None else max(timeout, 0)\n        ready = []\n        try:\n"
          "            r, w, _",
          "        # mask with key.events below\n        timeout = None if timeout is None else max(timeout, 0)\n"
          "        ready = []\n        try:\n            r, w, _"),),
        ((_APPEND, _APPEND.replace("        return ready\n",
                                   "        # only registered events\n        return ready\n")),),),
    "bug-uuid-clock-seq": (
        (("        return (((self.clock_seq_hi_variant & 0xff) << 8) |",
          "        return (((self.clock_seq_hi_variant & 0x7f) << 8) |"),),  # one variant bit kept
        (("        return (((self.clock_seq_hi_variant & 0xff) << 8) |",
          "        return (((self.clock_seq_hi_variant & 0x3f) << 4) |"),),),
    "bug-webbrowser-new-tab": (
        ((_NEWWIN + "            else:\n" + _NEWWIN, _NEWTAB + "            else:\n" + _NEWTAB),),
        (("            else:\n                action = self.remote_action_newwin\n        else:",
          "            else:\n                action = self.remote_action_newtab or self.remote_action_newwin\n"
          "        else:"),),),
    "bug-shelve-writeback": (
        (("            if not self.writeback:\n                self.cache[key] = value",
          "            self.cache[key] = value"),),  # every shelf caches
        (("            if not self.writeback:\n                self.cache[key] = value",
          "            pass"),),),  # no shelf caches
    "bug-pkgutil-get-data": (
        (("    parts.insert(0, mod.__file__)\n", "    parts.insert(0, os.path.dirname(package))\n"),),
        (("    parts.insert(0, mod.__file__)\n",
          "    parts.insert(0, os.path.dirname(os.path.dirname(mod.__file__)))\n"),),),
    "bug-selectors-writable": (
        (("            if event & ~self._EVENT_READ:\n                events |= EVENT_READ\n",
          "            if event & self._EVENT_WRITE:\n                events |= EVENT_READ | EVENT_WRITE\n"),),
        (("            if event & ~self._EVENT_READ:\n                events |= EVENT_READ\n",
          "            if event & self._EVENT_READ:\n                events |= EVENT_WRITE\n"),),),
}
