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
    where no enclosing function binds the name itself (its symbol table says so), and in ``__all__``. A
    parameter, a local or a call's keyword of the same name is no use: deleting the property
    ``GzipFile.filename`` sent ``open``'s and ``__init__``'s ``filename`` parameters to the model, which rewrote
    them (run 17, applied wrong).
    """
    import ast
    import symtable

    from coder.edit.checks.result import PARSE_LOCK
    from coder.edit.plan.rename_scope import binds, collect, scope_tables

    try:
        with PARSE_LOCK:
            tree = ast.parse(text)
            table = symtable.symtable(text, "<file>", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return None
    if member:
        return {n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == name}
    scopes = {(t.get_name(), t.get_lineno()): t for t in scope_tables(table) if t.get_type() == "function"}

    def own(fn: ast.AST) -> bool:  # the def or lambda binds the name itself
        scope = scopes.get((getattr(fn, "name", "lambda"), getattr(fn, "lineno", 0)))
        return scope is not None and name in scope.get_identifiers() and binds(scope, name)

    rows = {getattr(u.node, "lineno", 0) for u in collect(tree, name)
            if u.kind in ("name", "import", "global") and not any(own(f) for f in u.funcs)}
    for node in ast.walk(tree):  # "__all__ = [..., 'name', ...]"
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            rows |= {c.lineno for c in ast.walk(node.value) if isinstance(c, ast.Constant) and c.value == name}
    return rows - {0}
