"""A builtin called on an object runs its class's special method: "round(x) gives 3" is a report on x's
``__round__`` (sixth fresh set, run 21)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coder.edit.intent.names import Mention

# a builtin called on an object runs its class's special method: "round(x)" is a report on x's __round__
BUILTIN_DUNDERS = {"round": "__round__", "len": "__len__", "repr": "__repr__", "str": "__str__", "bool": "__bool__",
                   "hash": "__hash__", "abs": "__abs__", "int": "__int__", "float": "__float__", "iter": "__iter__",
                   "next": "__next__", "format": "__format__", "bytes": "__bytes__", "reversed": "__reversed__",
                   "divmod": "__divmod__", "complex": "__complex__", "math.floor": "__floor__",
                   "math.ceil": "__ceil__", "math.trunc": "__trunc__", "copy.copy": "__copy__",
                   "copy.deepcopy": "__deepcopy__"}


def builtin_calls(out: list[Mention], dunders: list[int]) -> list[Mention]:
    """A builtin's call said beside other names: "round(Fraction(5, 2)) gives 3" is Fraction's __round__, so the
    class that owns the special method yields to it; "use len() in count_items" names its target, and the builtin is
    only part of the change."""
    owners = {h.qualname.rpartition(".")[0] for k in dunders for h in out[k].hits}
    others = [m for k, m in enumerate(out) if k not in dunders]
    if any(m.sure and not {h.qualname for h in m.hits} <= owners for m in others):
        return others
    return [m for k, m in enumerate(out) if k in dunders or not {h.qualname for h in m.hits} <= owners]
