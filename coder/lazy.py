"""Module-level regular expressions compiled when first used, not when their module is imported.

``coder edit`` imports every module of the instruction reader (``coder.edit.intent``) and the
checks, which hold a few hundred patterns; compiling them all at import was ~50 ms of every edit
while one edit's wording reaches a few dozen of them. ``lazy.regex(source, flags)`` stands where
``re.compile`` stood at module level and is used the same way (``search``, ``finditer``,
``pattern`` ...). The first call compiles (``re.compile``, so the ``re`` module's own cache is
shared) and puts the compiled pattern's bound methods on the instance, so every later call goes
straight to them: nothing is added per match.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator

# the re.Pattern methods this stands in for; each is replaced on the instance by the compiled one's
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub")


class LazyPattern:
    """A pattern compiled on its first use (see the module docstring); ``pattern``/``flags`` are as given."""

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0) -> None:
        self.pattern = pattern
        self.flags = int(flags)

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now, if no method has been used yet)."""
        compiled = re.compile(self.pattern, self.flags)
        # instance attributes shadow the methods below (plain functions): later calls skip this class
        for name in _METHODS:
            self.__dict__[name] = getattr(compiled, name)
        return compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """:meth:`re.Pattern.search`."""
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """:meth:`re.Pattern.match`."""
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """:meth:`re.Pattern.fullmatch`."""
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        """:meth:`re.Pattern.finditer`."""
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[str]:
        """:meth:`re.Pattern.findall`: strings, as for every pattern here (of one group at most; more give tuples)."""
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        """:meth:`re.Pattern.sub`."""
        return self.compiled.sub(repl, string, count)

    def __repr__(self) -> str:
        return f"lazy.regex({self.pattern!r}, {self.flags})"


def regex(pattern: str, flags: int | re.RegexFlag = 0) -> LazyPattern:
    """A :class:`LazyPattern`: ``re.compile(pattern, flags)`` on first use."""
    return LazyPattern(pattern, flags)
