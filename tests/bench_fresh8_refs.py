"""Hand-written results for the tasks of ``--set fresh8`` (:mod:`coder.bench.edits.tasks_fresh8`): a correct result
of each task whose check does not give one, and plausible wrong results, as edits on the task's original."""

from __future__ import annotations

from bench_sets import Edits

from coder.bench.edits.tasks_fresh8 import CONSTRUCTOR, MASTER_OPEN, PICKLE_DEF, UNIX_ALL, UNIX_CLASSES

_HASH = "    def __hash__(self):\n        return hash(self.data)\n"
_LT = ("\n    def __lt__(self, other):\n        if not isinstance(other, UID):\n            return NotImplemented\n"
       "        return self.data < other.data\n")
_NEWLINES = ('    text = text.replace("\\r\\n", "\\n")       # convert DOS line endings\n'
             '    text = text.replace("\\r", "\\n")         # convert Mac line endings\n')
_ESCAPE = "def _escape(text):\n"
_NORMALIZE = ('def _normalize_newlines(text):\n    """text with DOS and Mac line endings made \\\\n."""\n'
              '    text = text.replace("\\r\\n", "\\n")\n    return text.replace("\\r", "\\n")\n\n')
_DUMPS = "def dumps(value, *, fmt=FMT_XML, skipkeys=False, sort_keys=True):\n"
_DUMPS_HINTED = ("def dumps(value: object, *, fmt: PlistFormat = FMT_XML, skipkeys: bool = False,\n"
                 "          sort_keys: bool = True) -> bytes:\n")
_DATE_USE = "    gd = _dateParser.match(s).groupdict()\n"

_READ = '''def _read(fd):
    """Default read function."""
    return os.read(fd, 1024)
'''
_READ_SIZED = _READ.replace("(fd, 1024)", "(fd, size)").replace("(fd):", "(fd, size=1024):")
_WATER = "    high_waterlevel = 4096\n"
_OPENPTY_USE = "    master_fd, slave_name = _open_terminal()\n"

_PICKLE_CHECK = ("    if not callable(pickle_function):\n"
                 '        raise TypeError("reduction functions must be callable")\n')
_TYPE_CHECK = '    if not isinstance(ob_type, type):\n        raise TypeError("ob_type must be a class")\n'
_CLEAR = "def clear_extension_cache():\n"
_CODE_OF = ('def extension_code(module, name):\n    """The code registered for (module, name), or None."""\n'
            "    return _extension_registry.get((module, name))\n\n")
_ADD_EXT = "def add_extension(module, name, code):\n"

_SNAP = ("            nc = 0\n            for callcnt in callers.values():\n                nc += callcnt\n")
_SNAP_CALL = "            nc = _total_calls(callers)\n"
_MAIN = "def main():\n"
_TOTAL = ('def _total_calls(callers):\n    """The sum of the call counts in callers."""\n    nc = 0\n'
          "    for callcnt in callers.values():\n        nc += callcnt\n    return nc\n\n")
_DUMP = "    def dump_stats(self, file):\n"
_DUMP_DOC = _DUMP + '        """Finish the timings and marshal the stats into file, for pstats."""\n'
_PRINT = "    def dump_stats(self, file):\n"
_TEXT = ("    def stats_text(self, sort=-1):\n        import pstats\n        out = io.StringIO()\n"
         "        pstats.Stats(self, stream=out).strip_dirs().sort_stats(sort).print_stats()\n"
         "        return out.getvalue()\n\n")

_SHUTDOWN = "    def shutdown(self):\n"
_WAIT = "        self.__is_shut_down.wait()\n"
_SETDEFAULT = "            vars(self).setdefault('_threads', _Threads())\n"
_UDP_GET = "    def get_request(self):\n        data, client_addr = self.socket.recvfrom(self.max_packet_size)\n"
_UDP_DOC = _UDP_GET.replace("(self):\n",
                            '(self):\n        """Receive one datagram: ((data, socket), client_address)."""\n')

# A correct result for each task whose check does not say it: edits on the task's original.
SOLUTIONS: dict[str, Edits] = {
    "plistlib-method": ((_HASH, _HASH + _LT),),
    "plistlib-extract": ((_NEWLINES, "    text = _normalize_newlines(text)\n"), (_ESCAPE, _NORMALIZE + _ESCAPE)),
    "plistlib-hints": ((_DUMPS, _DUMPS_HINTED),),
    "pty-param": ((_READ, _READ_SIZED),),
    "pty-comment": ((_WATER, "    # most bytes buffered per direction before we stop reading its source\n" + _WATER),),
    "copyreg-fix": ((_PICKLE_CHECK, _TYPE_CHECK + _PICKLE_CHECK),),
    "copyreg-function": ((_CLEAR, _CODE_OF + _CLEAR),),
    "copyreg-hints": ((_ADD_EXT, "def add_extension(module: str, name: str, code: int) -> None:\n"),),
    "profile-extract": ((_SNAP, _SNAP_CALL), (_MAIN, _TOTAL + _MAIN)),
    "profile-docstring": ((_DUMP, _DUMP_DOC),),
    "profile-method": ((_PRINT, _TEXT + _PRINT),),
    "socketserver-param": ((_SHUTDOWN, "    def shutdown(self, timeout=None):\n"),
                           (_WAIT, "        self.__is_shut_down.wait(timeout)\n")),
    "socketserver-comment": ((_SETDEFAULT, "            # each server its own list, so server_close joins its threads\n"
                              + _SETDEFAULT),),
    "socketserver-docstring": ((_UDP_GET, _UDP_DOC),),
}

# Plausible wrong results, two or more per task: each must fail the task's check.
WRONG: dict[str, tuple[Edits, ...]] = {
    "plistlib-rename": (
        (("_dateParser = re.compile(", "_date_pattern = re.compile("),),  # the use left: NameError
        ((_DATE_USE, _DATE_USE.replace("_dateParser", "_date_pattern")),),  # the definition left
        (("_dateParser = re.compile(", "_date_pattern = re.compile("),
         (_DATE_USE, _DATE_USE.replace("_dateParser", "_date_pattern")),
         ("_controlCharPat = re.compile(", "_control_char_pattern = re.compile("),
         ("    m = _controlCharPat.search(text)", "    m = _control_char_pattern.search(text)")),),  # one more renamed
    "plistlib-method": (
        ((_HASH, _HASH + _LT.replace("        if not isinstance(other, UID):\n            return NotImplemented\n",
                                     "").replace("other.data", "int(other)")),),  # UID(1) < 2 works
        ((_HASH, _HASH + _LT.replace("self.data < other.data", "self.data <= other.data")),),
        ((_HASH, _HASH + _LT.replace("return NotImplemented", "return False")),),),
    "plistlib-extract": (
        ((_ESCAPE, _NORMALIZE + _ESCAPE),),  # _escape keeps its copy, never calls it
        ((_NEWLINES, "    _normalize_newlines(text)\n"), (_ESCAPE, _NORMALIZE + _ESCAPE)),  # result dropped
        ((_NEWLINES, "    text = _normalize_newlines(text)\n"),
         (_ESCAPE, _NORMALIZE.replace('    text = text.replace("\\r\\n", "\\n")\n', "") + _ESCAPE)),  # CRLF -> 2 LF
        ((_NEWLINES, "    text = _normalize_newlines(text)\n"),
         (_ESCAPE, _NORMALIZE.replace('return text.replace("\\r", "\\n")', 'return text.replace("\\r", "\\n")'
                                      '.replace("&", "&amp;")') + _ESCAPE)),),  # escapes twice
    "plistlib-hints": (
        ((_DUMPS, "def dumps(value: object, *, fmt: PlistFormat = FMT_XML, skipkeys=False,\n"
                  "          sort_keys=True) -> bytes:\n"),),
        ((_DUMPS, "def dumps(value: Any, *, fmt: PlistFormat = FMT_XML, skipkeys: bool = False,\n"
                  "          sort_keys: bool = True) -> bytes:\n"),),  # Any never imported
        ((_DUMPS, _DUMPS_HINTED.replace("sort_keys: bool = True", "sort_keys: bool = False")),),),
    "pty-delete": (
        ((MASTER_OPEN, ""), ("def slave_open(tty_name):", "def _slave_open_unused(tty_name):")),
        ((MASTER_OPEN, "def master_open():\n    raise NotImplementedError\n"),),  # a stub left
        ((MASTER_OPEN, ""), ('__all__ = ["openpty", "fork", "spawn"]', '__all__ = ["openpty", "fork"]')),),
    "pty-rename": (
        (("def _open_terminal():", "def _open_bsd_pty():"),),
        (("def _open_terminal():", "def _open_bsd_pty():"),
         (_OPENPTY_USE, _OPENPTY_USE.replace("_open_terminal", "_open_bsd_pty"))),),  # master_open's call left
    "pty-param": (
        ((_READ, _READ.replace("(fd):", "(fd, size=1024):")),),  # never used
        ((_READ, _READ_SIZED.replace("size=1024", "size=4096")),),
        ((_READ, _READ_SIZED.replace("(fd, size=1024)", "(fd, *, size=1024)")),),),  # keyword-only: _read(r, 4)
    "pty-comment": (
        (("    stdin_avail = master_fd != STDIN_FILENO\n",
          "    # caps the buffers\n    stdin_avail = master_fd != STDIN_FILENO\n"),),  # below, not above
        ((_WATER, "    # cap per buffer\n    high_waterlevel = 8192\n"),),),  # the value changed
    "copyreg-fix": (
        ((_PICKLE_CHECK, _TYPE_CHECK.replace("not isinstance(ob_type, type)", "isinstance(ob_type, int)")
          + _PICKLE_CHECK),),  # only ints refused
        ((_PICKLE_CHECK, _PICKLE_CHECK + "    if not isinstance(ob_type, type):\n        return\n"),),  # silent
        ((_PICKLE_CHECK, _TYPE_CHECK.replace("TypeError", "ValueError") + _PICKLE_CHECK),),),
    "copyreg-function": (
        ((_CLEAR, _CODE_OF.replace("_extension_registry.get((module, name))", "_extension_registry[(module, name)]")
          + _CLEAR),),  # KeyError when missing
        ((_CLEAR, _CODE_OF.replace("(module, name))", "(name, module))") + _CLEAR),),
        ((_CLEAR, _CODE_OF.replace("(module, name):\n", "(name, module):\n") + _CLEAR),),),  # keywords swapped
    "copyreg-hints": (
        ((_ADD_EXT, "def add_extension(module: str, name: str, code: int):\n"),),
        ((_ADD_EXT, "def add_extension(module, name, code: int) -> None:\n"),),
        ((_ADD_EXT, "def add_extension(module: str, name: str, code: int) -> None:\n"),
         ("    code = int(code)\n", "")),),  # the conversion dropped
    "copyreg-move": (
        ((CONSTRUCTOR, ""),),  # gone
        ((CONSTRUCTOR, ""), (PICKLE_DEF, CONSTRUCTOR.replace("object", "obj") + "\n" + PICKLE_DEF)),  # rewritten
        ((CONSTRUCTOR, ""), ('__all__ = ["pickle",', CONSTRUCTOR + '__all__ = ["pickle",')),),  # above __all__
    "profile-rename": (
        (("    def _calibrate_inner(self, m, verbose):", "    def _measure_overhead(self, m, verbose):"),),
        (("            return self._calibrate_inner(m, verbose)",
          "            return self._measure_overhead(m, verbose)"),),),
    "profile-extract": (
        ((_MAIN, _TOTAL + _MAIN),),  # nothing calls it
        ((_SNAP, "            nc = self._total_calls(callers)\n"),
         ("    def print_stats(self, sort=-1):\n", "    def _total_calls(self, callers):\n"
          "        return sum(callers.values())\n\n    def print_stats(self, sort=-1):\n")),  # a method
        ((_SNAP, _SNAP_CALL), (_MAIN, _TOTAL.replace("nc += callcnt", "nc += 1") + _MAIN)),  # counts callers
        ((_SNAP, _SNAP_CALL), (_MAIN, _TOTAL + _MAIN),
         ("            callers = callers.copy()\n", "")),),  # the copy dropped
    "profile-docstring": (
        ((_DUMP, _DUMP + "        # marshal the stats into file\n"),),
        (("    def create_stats(self):\n", '    def create_stats(self):\n        """Build self.stats."""\n'),),),
    "profile-method": (
        ((_PRINT, _TEXT.replace("        return out.getvalue()\n", "        print(out.getvalue())\n"
                                "        return out.getvalue()\n") + _PRINT),),  # prints too
        ((_PRINT, _TEXT.replace("sort_stats(sort)", "sort_stats(-1)") + _PRINT),),  # sort ignored
        ((_PRINT, _TEXT.replace("(self, sort=-1)", "(self, sort)") + _PRINT),),  # sort required
        ((_PRINT, _TEXT.replace("        return out.getvalue()\n", "        return out\n") + _PRINT),),),
    "socketserver-delete": (
        ((UNIX_CLASSES, ""),),  # __all__ still names them
        ((UNIX_ALL, ""),),
        ((UNIX_ALL, ""), (UNIX_CLASSES, ""),
         ("\nclass ThreadingUDPServer(ThreadingMixIn, UDPServer): pass\nclass ThreadingTCPServer",
          "\nclass ThreadingTCPServer")),),  # one too many
    "socketserver-param": (
        ((_SHUTDOWN, "    def shutdown(self, timeout=None):\n"),
         (_WAIT, "        self.__is_shut_down.wait(0)\n")),  # never waits
        ((_SHUTDOWN, "    def shutdown(self, *, timeout=None):\n"),
         (_WAIT, "        self.__is_shut_down.wait(timeout)\n")),  # shutdown(0.05) refused
        ((_SHUTDOWN, "    def shutdown(self, timeout=0.5):\n"),
         (_WAIT, "        self.__is_shut_down.wait(timeout)\n")),),
    "socketserver-comment": (
        (("        t = threading.Thread(target = self.process_request_thread,\n",
          "        # start the thread\n        t = threading.Thread(target = self.process_request_thread,\n"),),
        ((_SETDEFAULT, "            # per-server list\n            vars(self).setdefault('_threads', _Threads())\n"
                       "            self._threads.reap()\n"),),),
    "socketserver-docstring": (
        ((_UDP_GET, _UDP_GET.replace("(self):\n", "(self):\n        # ((data, socket), client_address)\n")),),
        (("    def get_request(self):\n        \"\"\"Get the request and client address from the socket.",
          "    def get_request(self):\n        \"\"\"Accept a connection: (socket, client_address)."),),),
    "bug-plistlib-gt": (
        (('    text = text.replace(">", "&lt;")', '    text = text.replace(">", ">")'),),  # not escaped at all
        (('    text = text.replace(">", "&lt;")',
          '    text = text.replace(">", "&gt;").replace("&gt;", "&amp;gt;")'),),),
    "bug-pty-repeats": (
        (("                o_buf = o_buf[:n]\n", "                o_buf = o_buf[n:]\n"),
         ("    return os.read(fd, 1024)\n", "    return os.read(fd, 4096)\n")),  # and _read changed too
        (("                o_buf = o_buf[:n]\n", "                o_buf = o_buf[1:]\n"),),),
    "bug-copyreg-weakref-slot": (
        (('                    if name == "__dict__":\n', '                    if name == "__weakref__":\n'),),
        (('                    if name == "__dict__":\n', '                    if name.startswith("__"):\n'),),),
    "bug-profile-cumtime": (
        (("            ct = ct + rit\n", "            ct = ct + ret\n"),),  # subcalls only
        (("            ct = ct + rit\n", "            ct = ct + rit + frame_total\n"),),),
    "bug-socketserver-block-on-close": (
        (("        if not self.block_on_close:\n", "        if True:\n"),),  # always waits
        (("        if not self.block_on_close:\n            vars(self).setdefault('_threads', _Threads())\n",
          "        if self.block_on_close:\n            self._threads = _NoThreads()\n"),),),
}
