"""A move to another file, in words: which file it goes to, where there, and whether the source imports it back.

"Move f from a.py to the end of b.py, and import it in a.py", "f belongs in b.py: move it to the end
of that file and add it as the last name of the from .b import (...) list", "move f to b.py right
after g". The edited file's symbols are all the reading has, so the anchor def of the other file is
kept as the word the instruction spells (:class:`~coder.edit.intent.spec.Destination`); the planner
finds it in that file.
"""

from __future__ import annotations

import re

from coder import lazy
from coder.edit.intent import words
from coder.edit.intent.spec import Destination
from coder.edit.intent.vocab import NOT_NAMES

_AFTER = frozenset({"after", "below", "under", "following"})
_PLACE = r"(after|below|under|following|before|above)"
_DEF = r"(?:the\s+)?(?:(?:function|class|def)\s+)?`?([A-Za-z_]\w*)`?(?:\(\))?(?:\s+(?:function|class))?"
_IN = r"\s+(?:in|of|inside|within)\s+(?:the\s+file\s+)?`?"
# "import it in a.py", "add it as the last name of the from .b import (...) list", "and import them"
# (a dot before a word is a module's, "from ._re", not a full stop)
_IMPORT_BACK = lazy.regex(r"\bimport\s+(?:it|them)\b"
                          r"|\b(?:add|append|put|list)\s+(?:it|them)\b(?:[^.;]|\.(?=\w))*?\bimport\b", re.I)
_NOT_A_DEF = NOT_NAMES | {"end", "bottom", "top", "start", "imports", "last", "first"}


def _same_file(written: str, rel: str) -> bool:
    """``written`` ("_re.py", "tomllib/_re.py") names the file ``rel`` (compared as path suffixes)."""
    return written == rel or rel.endswith("/" + written) or written.endswith("/" + rel)


def _relation(instruction: str, dest: str) -> tuple[str, str] | None:
    """(after|before, def) of "after g in b.py" or "to b.py, right after g"; None: no def of that file named."""
    f = re.escape(dest)
    for pattern in (re.compile(r"\b" + _PLACE + r"\s+" + _DEF + _IN + f, re.I),
                    re.compile(r"\b(?:to|into|in)\s+`?" + f + r"`?,?\s+(?:(?:right|just|directly|immediately)\s+)?"
                               + _PLACE + r"\s+" + _DEF, re.I)):
        m = pattern.search(instruction)
        if m and m.group(2).lower() not in _NOT_A_DEF:
            return ("after" if m.group(1).lower() in _AFTER else "before"), m.group(2)
    return None


def destination(instruction: str, home: str) -> Destination | None:
    """Where a move of ``home``'s def goes when it goes to another file (None: it stays in ``home``).

    The other file is the one file the instruction names besides ``home``; "from b.py" names where
    the def comes from, so a move that names ``home`` as its destination is not one from ``home``.
    """
    others = [f for f in words.named_files(instruction) if not _same_file(f, home)]
    if len(others) != 1 or re.search(r"\bfrom\s+`?" + re.escape(others[0]), instruction):
        return None
    dest = others[0]
    imports = bool(_IMPORT_BACK.search(instruction))
    rel = _relation(instruction, dest)
    if rel is None:  # "to the end of b.py", "move it to b.py": a def moved into a file goes last
        return Destination(dest, "end", None, imports)
    where, name = rel
    return Destination(dest, "after" if where == "after" else "before", name, imports)
