"""The mutable-default idiom in a wording: "change the default of P from [] to None", "take P=None".

Read into :attr:`coder.edit.intent.spec.Facts.none_default`, which the planner turns into a change it
makes itself (:mod:`coder.edit.plan.none_default`): the default becomes None and the body starts with
``if P is None: P = <the old default>``. Seen on the H200 (run 8, getopt-default, all three wordings):
the 1.5B changed the default and never handled None, or handled it and lost a ``return``.

The reading is strict because the change it leads to is made without the model: every word of the
instruction must be a name, a literal, a word of this idiom, or what None means, and what None means
must be "nothing" ("as no long options", "None meaning an empty list"). Anything more ("... and log a
warning", "None meaning all options") leaves the instruction to the model, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from coder import lazy

_NAME = r"`?([A-Za-z_]\w*)`?"
_NONE = r"`?None`?"
# "the default of P ... to None", "P=None", "P defaults to None", "default P to None"
_ASKS = (lazy.regex(r"\bdefault(?:\s+value)?\s+(?:of|for)\s+(?:the\s+)?(?:parameter\s+|argument\s+)?" + _NAME
                    + r"[^.;:]*?\bto\s+" + _NONE, re.I),
         lazy.regex(r"`?([A-Za-z_]\w*)\s*=\s*None\b`?"),
         lazy.regex(_NAME + r"\s+(?:should\s+|to\s+|now\s+)?default(?:s|ing)?\s+to\s+" + _NONE, re.I),
         lazy.regex(r"\bdefault\s+" + _NAME + r"\s+to\s+" + _NONE, re.I))
# what None means: "as no long options", "None meaning an empty list" (the rest of its clause goes with it)
_MEANS = lazy.regex(r"\b(?:as|meaning|means|to\s+mean|stands?\s+for|standing\s+for)\s+(?:an?\s+|the\s+)?"
                    r"(?P<what>\S+)[^.;,)]*", re.I)
_NOTHING = frozenset({"no", "empty", "nothing", "none", "before", "old", "original", "previous", "[]", "{}"})
# the idiom's own words: nothing else may be asked beside it
_WORDS = frozenset({
    "change", "changes", "make", "set", "switch", "use", "using", "uses", "take", "takes", "accept", "accepts",
    "should", "must", "now", "instead", "so", "that", "default", "defaults", "value", "values", "parameter",
    "parameters", "argument", "arguments", "mutable", "literal", "idiom", "of", "for", "in", "to", "from",
    "and", "both", "each", "their", "its", "it", "them", "the", "a", "an", "as", "with", "be", "is", "are",
    "not", "do", "don't", "dont", "handle", "handles", "handling", "treat", "treats", "treating", "check",
    "bodies", "body", "function", "functions", "method", "methods", "meaning", "means", "mean", "stands",
    "stand", "standing", "none"
})
_WORD = lazy.regex(r"`[^`]*`|[A-Za-z_'][\w']*|\[\]|\{\}|\(\)")


def none_default(instruction: str, defined: Callable[[str], object]) -> str | None:
    """P when ``instruction`` asks only that P default to None (the mutable-default idiom), else None.

    ``defined`` says whether a word names a symbol of the files (``SymbolTable.lookup``): such names may
    stand anywhere ("in getopt and gnu_getopt").
    """
    asked = {m.group(1) for pattern in _ASKS for m in pattern.finditer(instruction)} - {"None"}
    if len(asked) != 1:
        return None
    param = asked.pop()
    rest = instruction
    for m in list(_MEANS.finditer(instruction))[::-1]:
        if m.group("what").lower().strip("`") not in _NOTHING:
            return None  # "None meaning all options": not the old, empty default
        rest = rest[:m.start()] + rest[m.end():]
    for word in _WORD.findall(rest):
        bare = word.strip("`")
        if word.startswith("`") or bare in ("[]", "{}", "()", param) or word.lower() in _WORDS or defined(bare):
            continue
        return None
    return param
