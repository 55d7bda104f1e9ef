"""Locating what a plan changes: a named symbol's region, and the regions of a file that use some names.

The uses are one region per def, the statements between defs grouped into blocks: what a rename
sends to the model, and what a deletion leaves to it (a caller, an ``__all__`` entry).
"""

from __future__ import annotations

from coder.edit.plan.steps import Step
from coder.edit.source.regions import Region
from coder.edit.source.units import leaves, name_rows, next_leaf, units


def regions_using(rel: str, text: str, names: set[str], why: str) -> list[Step]:
    """One step per def that uses ``names``; statements that do are grouped into blocks."""
    found = leaves(units(text))
    rows = name_rows(text, names)
    hit = [u for u in found if any(u.start <= r <= u.end for r in rows)]
    steps: list[Step] = []
    for u in hit:
        last = steps[-1] if steps else None
        adjacent = (last is not None and last.symbol is None and u.kind == "statement"
                    and next_leaf(found, last.end) is u)
        if adjacent and last is not None:
            steps[-1] = Step(rel, last.start, u.end, f"lines {last.start}-{u.end}", why)
        elif u.kind == "function":
            steps.append(Step(rel, u.start, u.end, u.label, why, symbol=u.symbol))
        else:
            steps.append(Step(rel, u.start, u.end, f"lines {u.start}-{u.end}", why))
    return steps


def lookup(symbols: dict[str, Region], name: str) -> tuple[str, Region] | None:
    """The one symbol ``name`` (qualified, or bare and unique), else None."""
    if name in symbols:
        return name, symbols[name]
    hits = [(q, r) for q, r in symbols.items() if q.endswith("." + name)]
    return hits[0] if len(hits) == 1 else None


def region_of(symbols: dict[str, Region], name: str) -> tuple[str, int, int, str] | None:
    """(qualified name, start, end, label) of the one symbol ``name``, else None."""
    found = lookup(symbols, name)
    if found is None:
        return None
    qual, region = found
    return qual, region.start, region.end, region.label
