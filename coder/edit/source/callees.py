"""What code of a Python file a set of its defs may run: the defs they name, directly or through module tables.

``deepcopy`` never calls ``_deepcopy_dict`` by name: it reads ``_deepcopy_dispatch``, a module-level dict that
``d = _deepcopy_dispatch = {}`` and ``d[dict] = _deepcopy_dict`` fill. A def reaches every def of the file
that its body names (``f(...)``, ``self.m(...)``, ``key=f``), and every def named in the module-level
assignments to a name it reads, aliases included. :mod:`coder.edit.run.locate` moves a fix only to where the
function the instruction names may lead, never back to its callers.

This over-approximates (a name read is not a call made) and misses what only ``getattr`` with a built string
finds; the trace of a failing example (:mod:`coder.edit.checks.behaviour`) adds what actually ran.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Collection, Iterable

_Def = ast.FunctionDef | ast.AsyncFunctionDef


def reachable(text: str, start: Iterable[str]) -> set[str]:
    """The qualified names of the file's defs that the defs ``start`` (qualified names) may run, ``start`` not
    included unless reached again; empty when ``text`` does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    defs: dict[str, tuple[_Def, str]] = {}  # qualified name -> (node, its class or "")
    for node in tree.body:
        if isinstance(node, _Def):
            defs[node.name] = (node, "")
        elif isinstance(node, ast.ClassDef):
            defs.update({f"{node.name}.{m.name}": (m, node.name) for m in node.body if isinstance(m, _Def)})
    methods: defaultdict[str, set[str]] = defaultdict(set)
    for qual, (_, cls) in defs.items():
        if cls:
            methods[qual.rsplit(".", 1)[1]].add(qual)
    tables = _tables(tree)
    seen: set[str] = set()
    todo = [q for q in start if q in defs]
    while todo:
        node, cls = defs[todo.pop()]
        for name, attr in _names(node):
            found = ({name} if name in defs else _through(name, tables, defs.keys())) if attr is None else (
                {f"{cls}.{attr}"} & defs.keys() or methods.get(attr, set()))
            todo.extend(q for q in found - seen)
            seen |= found
    return seen


def _names(node: _Def) -> Iterable[tuple[str, str | None]]:
    """``(name, None)`` for each name the def reads, ``("", attr)`` for each attribute it reads."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            yield sub.id, None
        elif isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Load):
            yield "", sub.attr


def _tables(tree: ast.Module) -> dict[str, set[str]]:
    """Module-level name -> the names its assignments read; the targets of one assignment are aliases."""
    reads: defaultdict[str, set[str]] = defaultdict(set)
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        names = {n for t in targets if (n := _target(t))}
        read = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
        for name in names:
            reads[name] |= read | (names - {name})
    return reads


def _target(node: ast.expr) -> str:
    """The module-level name an assignment target writes: ``d`` of ``d`` and of ``d[dict]``; else ""."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _through(name: str, tables: dict[str, set[str]], defs: Collection[str]) -> set[str]:
    """The defs named in the module-level assignments to ``name``, followed through the names they read."""
    found, seen, todo = set(), {name}, [name]
    while todo:
        for read in tables.get(todo.pop(), ()):
            if read in defs:
                found.add(read)
            elif read not in seen:
                seen.add(read)
                todo.append(read)
    return found


def makers(text: str, classes: Iterable[str]) -> set[str]:
    """The file's defs that make an instance of one of ``classes`` (call ``C(...)`` by name), and their
    ``__init__``: where the state a method reads comes from (``module_scope=`` of ``Symbol(...)`` in
    ``SymbolTable.lookup`` decides what ``Symbol.is_global`` says). Empty when ``text`` does not parse."""
    wanted = set(classes)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    found: set[str] = set()
    for node in tree.body:
        members = [(f"{node.name}.{m.name}", m) for m in node.body if isinstance(m, _Def)] if isinstance(
            node, ast.ClassDef) else [(node.name, node)] if isinstance(node, _Def) else []
        init = isinstance(node, ast.ClassDef) and node.name in wanted
        found.update(qual for qual, fn in members if (init and fn.name == "__init__") or any(
            isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in wanted for c in ast.walk(fn)))
    return found


def lineage(text: str, classes: Iterable[str]) -> set[str]:
    """The methods of ``classes`` and of the bases the file defines for them (followed up), by qualified name:
    where a fault seen through one method of a class may sit when nothing it calls holds it (socketserver's
    ``ThreadingMixIn.server_close`` joins the threads that ``process_request`` kept only under its condition).
    Empty when ``text`` does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    defined = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    todo, seen = [c for c in classes if c in defined], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [b.id for b in defined[name].bases if isinstance(b, ast.Name) and b.id in defined]
    return {f"{c}.{m.name}" for c in seen for m in defined[c].body if isinstance(m, _Def)}
