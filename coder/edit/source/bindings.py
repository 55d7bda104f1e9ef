"""What a def needs from the module around it, and what a module binds: whether a def may move to another file.

Found with :mod:`symtable`, the compiler's own scope analysis, not by walking names: a name a
nested def or a comprehension binds is local there, a ``nonlocal`` is not free, and a class body's
names are not seen by its methods, exactly as Python resolves them.
"""

from __future__ import annotations

import ast
import builtins
import symtable

# names every module has without binding them
_MODULE_DUNDERS = frozenset({"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__",
                             "__builtins__", "__path__", "__annotations__", "__dict__"})
BUILTINS = frozenset(dir(builtins)) | _MODULE_DUNDERS


def free_names(source: str) -> set[str]:
    """The module-level names ``source`` (one def or class, alone) reads: decorators, defaults, annotations
    and its body's globals; the names it binds at module level itself are not among them."""
    top = symtable.symtable(source, "<moved>", "exec")
    needed = {s.get_name() for s in top.get_symbols()
              if s.is_referenced() and not (s.is_assigned() or s.is_imported())}
    todo = list(top.get_children())
    while todo:
        table = todo.pop()
        needed |= {s.get_name() for s in table.get_symbols() if s.is_referenced() and s.is_global()}
        todo += table.get_children()
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    return needed - bound


def module_names(text: str) -> tuple[set[str], bool]:
    """(the names ``text`` binds at module level: defs, classes, assignments, imports; whether it has a
    ``from m import *``, whose names nobody can list)."""
    top = symtable.symtable(text, "<module>", "exec")
    names = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    star = any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in ast.parse(text).body)
    return names, star


def import_target(importer: str, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The paths (without ``.py``, ``/``-separated) the modules of an import statement in the file
    ``importer`` may be: a relative import is resolved against ``importer``'s folder."""
    if isinstance(node, ast.Import):
        return [a.name.replace(".", "/") for a in node.names]
    module = (node.module or "").replace(".", "/")
    if node.level == 0:
        return [module]
    folder = importer.replace("\\", "/").split("/")[:-1]
    up = node.level - 1
    if up > len(folder):
        return []
    base = folder[:len(folder) - up]
    return ["/".join([*base, module] if module else base)]


def names_module(path: str, rel: str) -> bool:
    """An import's module ``path`` (from :func:`import_target`) is the file ``rel``: as a path suffix,
    since an absolute import is spelled from the package root, which need not be the repository's."""
    stem = rel.replace("\\", "/").rsplit(".", 1)[0]
    return bool(path) and (stem == path or stem.endswith("/" + path))
