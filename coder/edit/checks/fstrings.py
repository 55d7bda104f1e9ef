"""An f-string with nothing to format, new in the result: the ``f`` changes nothing, so it was not what was asked.

Seen on the 2-core CPU (run 18, fresh4 lzma-transform w1, one region per named def): asked to make the two
"Invalid mode" messages f-strings, the 1.5B made both right and prefixed every other literal of
``LZMAFile.__init__`` with ``f`` as well. The program is the same, the diff is not what the user asked, and no
other check saw it. pyflakes reports such literals (F541); only those beyond the original's count are refused.
"""

from __future__ import annotations

from pyflakes import messages

from coder.edit.checks.flakes import flake_messages


def _empty_fstrings(text: str) -> list[int] | None:
    found = flake_messages(text)
    return None if found is None else [int(m.lineno) for m in found
                                       if isinstance(m, messages.FStringMissingPlaceholders)]


def empty_fstrings(old: str, new: str) -> str | None:
    """Why ``new`` gains f-strings that format nothing (None: it gains none)."""
    before, after = _empty_fstrings(old), _empty_fstrings(new)
    if before is None or after is None or len(after) <= len(before):
        return None
    rows = [r for r in after if r not in before] or after  # lines shift: where they are now, for the message
    shown = ", ".join(str(r) for r in rows[:4]) + (" ..." if len(rows) > 4 else "")
    return (f"the result makes f-strings that format nothing (line {shown}): the f changes nothing there, and it was "
            "not asked")
