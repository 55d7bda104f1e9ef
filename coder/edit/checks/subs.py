"""Substitutions an instruction asks for: renames (``rename X to Y``, ``X -> Y``) and values (``from 70 to 80``).

A line explained by a substitution differs from its original only by those whole tokens
(identifiers, or numbers not inside longer ones), compared by regular expression.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coder.edit.source.regions import Region

_IDENT = r"`?([A-Za-z_][\w.]*)`?"
_RENAME_PAIR = re.compile(
    r"\brenam(?:e|ing)\s+(?:the\s+)?(?:(?:module|module-level|local|instance|class|global)\s+)?"
    r"(?:(?:function|method|class|variable|attribute|parameter|argument|constant|field|name)\s+)?" + _IDENT
    # "the method `m` of `C` to `n`": the owner is named, not renamed
    + r"(?:\s+of\s+(?:the\s+)?(?:class\s+)?`?[A-Za-z_][\w.]*`?)?"
    r"(?:\s+everywhere)?\s+(?:to|into|as)\s+" + _IDENT, re.I)
_AND_PAIR = re.compile(r"\band\s+" + _IDENT + r"\s+(?:to|into)\s+" + _IDENT, re.I)
_ARROW_PAIR = re.compile(_IDENT + r"\s*(?:->|→|=>)\s*" + _IDENT)
_LITERAL = r"(-?\d+(?:\.\d+)?|'[^']*'|\"[^\"]*\"|`[^`]+`)"
_FROM_TO = re.compile(r"\bfrom\s+" + _LITERAL + r"\s+(?:to|into)\s+" + _LITERAL)


def rename_pairs(instruction: str) -> list[tuple[str, str]]:
    """The (old, new) identifier pairs of a rename instruction; dotted names keep their last part."""
    pairs: list[tuple[str, str]] = []
    found = list(_RENAME_PAIR.finditer(instruction))
    if found:
        found += list(_AND_PAIR.finditer(instruction, found[0].end()))
    found += list(_ARROW_PAIR.finditer(instruction))
    for m in found:
        old, new = (g.rstrip(".").rsplit(".", 1)[-1] for g in (m.group(1), m.group(2)))
        if old != new and (old, new) not in pairs:
            pairs.append((old, new))
    return pairs


def value_pairs(instruction: str) -> list[tuple[str, str]]:
    """(old, new) literal pairs of "change ... from 70 to 80" (numbers, quoted strings, `code`)."""
    out = []
    for m in _FROM_TO.finditer(instruction):
        a, b = (g[1:-1] if g.startswith("`") else g for g in (m.group(1), m.group(2)))
        if a != b:
            out.append((a, b))
    return out


_HANDLE = re.compile(r"\bhandl(?:e|es|ing)\b", re.I)


def handles_value(instruction: str) -> bool:
    """The instruction asks for code that deals with the new value ("... to `None`, and handle `None`")."""
    return _HANDLE.search(instruction) is not None


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


# "in the function `getline` only", "only in `getline`", "the local variable x in getline": one function
_CONFINED = (
    re.compile(r"\bin\s+(?:the\s+)?(?:function|method)\s+" + _IDENT + r"\s+only\b", re.I),
    re.compile(r"\bin\s+" + _IDENT + r"\s+only\b", re.I),
    re.compile(r"\bonly\s+in\s+(?:the\s+)?(?:function|method\s+)?" + _IDENT, re.I),
    re.compile(r"\blocal\s+(?:variable|name|parameter)\s+`?\w+`?\s+(?:of|in)\s+(?:the\s+)?(?:function|method)?\s*"
               + _IDENT, re.I),
)


def confined_to(instruction: str) -> str | None:
    """The one function or method an instruction confines its change to ("in the function X only"), else None."""
    for pattern in _CONFINED:
        if m := pattern.search(instruction):
            return m.group(1).rstrip(".")
    return None


def confinement(defs: Sequence[tuple[str, Region]], instruction: str) -> Callable[[tuple[int, int, int, int]], bool]:
    """Whether a change (old lines i1..i2) lies in the one function the instruction confines it to.

    Always true when the instruction names no confinement, or the name is not one def of the file.
    """
    name = confined_to(instruction)
    found = [r for n, r in defs if name and (n == name or n.rsplit(".", 1)[-1] == name)]
    if len(found) != 1:
        return lambda span: True
    region = found[0]
    return lambda span: region.start <= span[0] + 1 and span[1] <= region.end
