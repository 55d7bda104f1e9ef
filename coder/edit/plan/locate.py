"""Locating what a plan changes: a named symbol's region, and the regions of a file that use some names.

The uses are one region per def, the statements between defs grouped into blocks: what a rename
sends to the model, and what a deletion leaves to it (a caller, an ``__all__`` entry).
"""

from __future__ import annotations

from coder.edit.plan.steps import Step
from coder.edit.source.regions import Region
from coder.edit.source.units import leaves, name_rows, next_leaf, units


def regions_using(rel: str, text: str, names: set[str], why: str, rows: set[int] | None = None) -> list[Step]:
    """One step per def that uses ``names`` (on ``rows``, when given; else every row that spells one of them);
    statements that do are grouped into blocks."""
    found = leaves(units(text))
    rows = name_rows(text, names) if rows is None else rows
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


def symbol_rows(text: str, name: str, *, member: bool) -> set[int] | None:
    """Rows that use the def ``name`` itself (None: the file does not parse, use every row that spells it).

    A member (a method or property) is used as an attribute, ``x.name``; a module-level def by its bare name,
    where no enclosing function binds the name itself, and in ``__all__``. A parameter, a local or a call's
    keyword of the same name is no use: deleting the property ``GzipFile.filename`` sent ``open``'s and
    ``__init__``'s ``filename`` parameters to the model, which rewrote them (run 17, applied wrong).
    """
    import ast

    from coder.edit.plan.rename_scope import collect

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    rows: set[int] = set()
    if member:
        return {n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == name}
    for use in collect(tree, name):
        own = any(name in _bound(f) for f in use.funcs)
        if use.kind in ("name", "import", "global") and not own:
            rows.add(getattr(use.node, "lineno", 0))
    for node in ast.walk(tree):  # "__all__ = [..., 'name', ...]"
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            rows |= {c.lineno for c in ast.walk(node.value) if isinstance(c, ast.Constant) and c.value == name}
    return rows - {0}


def _bound(fn: object) -> set[str]:
    """The names a function or lambda binds itself: its parameters and what it assigns or imports."""
    import ast

    if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return set()
    a = fn.args
    out = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None}
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
    return out
