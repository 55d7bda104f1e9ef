"""Names said beside the targets that the change must leave alone: the module itself, a def to keep, a def the
target calls.

Seen on the sixth fresh set's first run (2-core CPU, run 20): "get rid of _perfcheck in pprint" read the module
``pprint`` as its function ``pprint`` too, and "relocate _wrap_bytes_repr in pprint up to ..." moved it; "delete
the method ... Keep formatweek, which it wraps" deleted formatweek as well (applied wrong); "Nobody uses it and it
even calls _safe_repr" made ``_safe_repr`` a second def to delete.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING

from coder.edit.intent.names import VERBS

if TYPE_CHECKING:
    from coder.edit.intent.names import Mention, Tok
    from coder.edit.intent.spec import Action, Symbol

_MODULE_RELATIONS = frozenset({"in", "from", "of", "inside", "within"})
_KEEP = frozenset({"keep", "keeps", "leave", "leaves", "preserve", "preserves", "spare", "except", "untouched"})
# ("called" is no use: "delete f and the helper called g" names g to delete)
_USE = frozenset({"calls", "call", "calling", "uses", "use", "using", "invokes", "invoking", "wraps", "wrapping",
                  "runs", "imports"})


def not_meant(picked: list[tuple[Mention, Symbol]], toks: list[Tok], home: str,
              action: Action) -> list[tuple[Mention, Symbol]]:
    """``picked`` without the mentions said to stay: the module by its name after "in", a def after "keep", and for a
    delete or a move a def after "calls" or "uses"; unchanged when that would leave no target."""
    # "tells people to use openpty() instead": the def to use in its place stays, wherever else it is said
    instead = {s for m, s in picked if any(t.text.lower() == "instead" for t in toks[m.index + m.size:m.index + 4])}
    left = [(m, s) for m, s in picked if not (
        (action in ("delete", "move") and s in instead) or _the_module(m, toks, home, {p.index for p, _ in picked})
        or m.before in _KEEP or _stays(m, toks) or _left_alone(m, toks)
        or (action in ("delete", "move") and (m.before in _USE or _its_caller(m, toks))))]
    return left if left else picked


# "its only caller is g", "the callers are g and h", "called from g", "used by g": where it is used, not what goes
_CALLER = (("caller", "is"), ("callers", "are"), ("called", "from"), ("called", "by"), ("used", "by"), ("used", "in"),
           ("user", "is"), ("users", "are"))


def _its_caller(m: Mention, toks: list[Tok]) -> bool:
    before = [t.text.lower() for t in toks[max(0, m.index - 2):m.index]]
    return tuple(before) in _CALLER


_LEAVE = frozenset({"keep", "leave", "preserve", "spare"})
_CLAUSE = frozenset({".", ";", ":", "!", "?", "alone", "untouched", "intact", "but", "then"})


def _left_alone(m: Mention, toks: list[Tok]) -> bool:
    """"Leave the Breakpoint class and the effective and checkfuncname helpers alone": every name of the clause a
    verb of keeping opens is kept, not only the first (ninth fresh set, run 23: the two helpers were deleted)."""
    for t in reversed(toks[:m.index]):
        low = t.text.lower()
        if low in _LEAVE:
            return True
        if low in _CLAUSE or (t.word and not t.code and low in VERBS):
            return False
    return False


_STAY = frozenset({"stay", "stays", "remain", "remains", "kept"})


def _stays(m: Mention, toks: list[Tok]) -> bool:
    """"_windll_getnode itself has to stay", "g must remain", "h stays": the name is said to be left as it is
    (seventh set, run 21: it was deleted with the two shims around it)."""
    after = [t.text.lower() for t in toks[m.index + m.size:m.index + m.size + 8] if t.word]
    after = after[1:] if after[:1] == ["itself"] else after
    while after[:1] in (["and"], ["or"]) and len(after) > 1:  # "slave_open and _open_terminal have to stay"
        after = after[2:]
    after = [w for w in after if w not in ("has", "have", "must", "should", "is", "needs", "to", "will", "be", "can")]
    return bool(after) and after[0] in _STAY


def _the_module(m: Mention, toks: list[Tok], home: str, picked: set[int]) -> bool:
    """"_perfcheck in pprint, plus ...": the file's own name, bare, right after "in" and a def said before it, and
    not one of several defs ("longopts in getopt and gnu_getopt" names the function)."""
    i = m.index
    if m.word != PurePath(home).stem or toks[i].code or i < 2 or toks[i - 1].text.lower() not in _MODULE_RELATIONS:
        return False
    after = toks[i + 1].text.lower() if i + 1 < len(toks) else ""
    return (i - 2) in picked and after not in ("and", "or", "nor")
