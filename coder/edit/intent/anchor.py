"""Where the instruction puts a change: after or before a symbol, above it, inside it, the file's top or end.

One reading for the spec's :class:`~coder.edit.intent.spec.Anchor`, which the planner (moves) and the
placement check (:mod:`coder.edit.checks.placement`) hold the change to.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from coder import lazy
from coder.edit.intent.spec import Action, Anchor, Symbol, Where

if TYPE_CHECKING:
    from coder.edit.intent.names import Mention

AFTER_WORDS = frozenset({"after", "below", "under", "following", "follows", "follow", "behind"})
BEFORE_WORDS = frozenset({"before", "above", "preceding", "precedes", "precede"})
_END = lazy.regex(r"\b(?:end|bottom)\s+of\s+(?:the\s+)?(?:file|module)\b|\bat\s+the\s+(?:very\s+)?(?:end|bottom)\b",
                  re.I)
# "a comment on top of f" is above f, "on top of the file" is the file's top
_ON_TOP_OF = lazy.regex(r"\bon\s+top\s+of\b(?!\s+(?:the\s+)?(?:file|module)\b)", re.I)
_TOP = lazy.regex(r"\b(?:top|start|beginning|head)\s+of\s+(?:the\s+)?(?:file|module)\b", re.I)
# "a comment as the first line in the body of _v", "at the start (top) of _v": inside the def, not above it
# ("on top of _v" is above it: read first)
_IN_BODY = lazy.regex(r"\bbody\s+of\b|\b(?:start|beginning|top)\s+of\s+(?!(?:the\s+)?(?:file|module)\b)|"
                      r"\bfirst\s+line\s+(?:in|of)\b", re.I)
_ASIDE = lazy.regex(r"(?<=\s)\([^()]*\)")  # "(b'' at end of file)", not a call's arguments "f(x)"
# "immediately before", "right after", "directly precede": the nearer of two relations said for one move
_CLOSE = lazy.regex(r"\b(?:immediately|right|just|directly)\s+(\w+)\s+(?:(?:the|a)\s+)?"
                    r"(?:(?:function|method|class|def)\s+)?`?([\w.]+)", re.I)
_AFTER_IMPORTS = lazy.regex(r"\b(?:after|below|under)\s+(?:the\s+|all\s+the\s+)?imports\b", re.I)


def anchor_of(instruction: str, mentions: list[Mention], chosen: dict[int, Symbol], action: Action) -> Anchor | None:
    """Where the change goes: after/before a symbol, the file's top or end, after the imports.

    Above and below stay apart from before and after only for a comment or docstring (a comment
    above f is outside f; for a move, "below g" is "after g").
    """
    if _AFTER_IMPORTS.search(instruction):
        return Anchor("after_imports")
    # "a comment above each loop in f": f is where, the loop is what it is above
    rel = relations(instruction, mentions)
    related = [m for m in mentions if m.index in chosen and rel.get(m.index, "") in AFTER_WORDS | BEFORE_WORDS]
    # "after _siftup_max and immediately precede merge": the relation said closest is where the block lands
    for m in sorted(related, key=lambda m: not _close(instruction, m)) if action == "move" else related:
        word = rel[m.index]
        where: Where = "after" if word in AFTER_WORDS else "before"
        if word in ("above", "below", "under") and action in ("comment", "docstring"):
            where = "above" if where == "before" else "below"
        # "after dedent and indent": after the last of them; "before f and g": before the first
        group = [chosen[o.index] for o in related if rel[o.index] == word and _group(o, m, related)]
        last = max(group, key=lambda s: s.start) if where in ("after", "below") else min(group, key=lambda s: s.start)
        return Anchor(where, last)
    if chosen and action in ("comment", "docstring") and _ON_TOP_OF.search(instruction):
        return Anchor("above", max(chosen.values(), key=lambda s: s.qualname.count(".")))  # C.m over C
    if chosen and action == "comment" and _IN_BODY.search(instruction):
        # seen on the H200: asked for "the first line in the body of _v", the 1.5B put it above the def
        return Anchor("inside", max(chosen.values(), key=lambda s: s.qualname.count(".")))
    # "which returns b'' (at end of file)": an aside says when, not where the change goes
    said = _ASIDE.sub(" ", instruction)
    if _END.search(said):
        return Anchor("end")
    if _TOP.search(said):
        return Anchor("top")
    return None


def landmarks(instruction: str, mentions: list[Mention], chosen: dict[int, Symbol]) -> set[Symbol]:
    """The symbols said after a relation word ("after g", "precede merge", "between f and g", "after f and g"):
    never what moves."""
    # "the helpers sit between heapify and ...": where the moved defs are now
    said = relations(instruction, mentions)
    return {chosen[m.index] for m in mentions
            if m.index in chosen and said.get(m.index, "") in AFTER_WORDS | BEFORE_WORDS | {"between"}}


_BOTH = lazy.regex(r"\b(after|below|following|before|above|preceding)\s+(?:both|either)\b", re.I)


def relations(instruction: str, mentions: list[Mention]) -> dict[int, str]:
    """The relation word each mention stands after, carried along a coordination: "after dedent and indent" says
    "after" of both (the second stands after "and"), "after both f and g" of both."""
    out: dict[int, str] = {}
    both = [m.group(1).lower() for m in _BOTH.finditer(instruction)]
    prev: Mention | None = None
    for m in mentions:
        word = m.before
        if word in ("both", "either") and len(both) == 1:
            word = both[0]
        elif word in ("and", "or", ",", "nor") and prev is not None and m.index - prev.index <= 3:
            word = out.get(prev.index, prev.before)
        out[m.index] = word
        prev = m
    return out


def _group(a: Mention, b: Mention, related: list[Mention]) -> bool:
    """``a`` and ``b`` are one coordination: no other mention of ``related`` apart from them by more than 3
    tokens stands between."""
    lo, hi = sorted((a.index, b.index))
    inside = sorted(o.index for o in related if lo <= o.index <= hi)
    return all(y - x <= 3 for x, y in itertools.pairwise(inside))


def _close(instruction: str, mention: Mention) -> bool:
    """The mention follows "immediately", "right" or "just" and its relation word."""
    return any(c.group(1).lower() == mention.before and c.group(2) == mention.word
               for c in _CLOSE.finditer(instruction))
