"""Substitutions a change spec asks for (its ``renames`` and ``values``), checked line by line.

A line explained by a substitution differs from its original only by those whole tokens
(identifiers, or numbers not inside longer ones), compared by regular expression.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coder.edit.intent.spec import ChangeSpec
    from coder.edit.source.regions import Region

def mentions_value(text: str, value: str) -> bool:
    """``text`` holds ``value`` as a whole token (``None`` in ``if x is None:``, not in ``NoneType``)."""
    return re.search(_occurrence(value), text) is not None


def _occurrence(value: str) -> str:
    """A whole-token pattern for ``value``: an identifier, or a number not inside a longer one."""
    before = r"(?<![\w.])" if value[:1].isdigit() or value[:1] == "." else r"(?<!\w)"
    after = r"(?!\w|\.\d)" if value[-1:].isalnum() or value[-1:] == "_" else ""
    return before + re.escape(value) + after


def renamed_only(old: str, new: str, pairs: list[tuple[str, str]]) -> bool:
    """True when ``new`` is ``old`` with some whole tokens X replaced by Y for (X, Y) in ``pairs``."""
    olds = sorted({a for a, _ in pairs}, key=len, reverse=True)
    found = re.compile("|".join(f"({_occurrence(a)})" for a in olds))
    parts, pos = [], 0
    for m in found.finditer(old):
        parts.append(re.escape(old[pos:m.start()]))
        alts = [m.group(0), *(b for a, b in pairs if a == m.group(0))]
        parts.append("(?:" + "|".join(map(re.escape, alts)) + ")")
        pos = m.end()
    parts.append(re.escape(old[pos:]))
    return re.fullmatch("".join(parts), new) is not None


def confinement(defs: Sequence[tuple[str, Region]], spec: ChangeSpec) -> Callable[[tuple[int, int, int, int]], bool]:
    """Whether a change (old lines i1..i2) lies in the one function the spec confines it to.

    Always true when the spec names no confinement, or the name is not one def of the file.
    """
    name = spec.facts.confined
    # "fill" is textwrap's function and TextWrapper.fill: the qualified name said first, its last part only then
    found = ([r for n, r in defs if name and n == name]
             or [r for n, r in defs if name and n.rsplit(".", 1)[-1] == name])
    if len(found) != 1:
        return lambda span: True
    region = found[0]
    return lambda span: region.start <= span[0] + 1 and span[1] <= region.end
