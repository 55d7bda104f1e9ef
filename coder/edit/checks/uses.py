"""A new or changed def that never refers to what the instruction told it to use.

The spec's :attr:`~coder.edit.intent.spec.Facts.uses` are module-level names of the edited file the instruction
tells the change to use ("compared with compare_digest"; :mod:`coder.edit.intent.uses`). When the result adds or
changes defs and none of them refers to any of those names, the change is not the one asked, whatever it returns:
seen applied on the 2-core CPU (run 20), a ``verify`` that compared with ``==``.
"""

from __future__ import annotations

import ast

from coder.edit.intent.spec import ChangeSpec

_ACTIONS = frozenset({"add_method", "add_function", "add_parameter", "change", "extract"})


def _defs(text: str) -> dict[str, str] | None:
    """qualified name -> the def's dump, for every def and method of ``text`` (None: it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    out: dict[str, str] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out[prefix + node.name] = ast.dump(node)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")

    walk(tree.body, "")
    return out


def _refers(dump: str, names: tuple[str, ...]) -> bool:
    return any(f"id='{n}'" in dump or f"attr='{n}'" in dump for n in names)


def unused_asked(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why the defs the result adds or changes use none of the names the instruction told them to (None: they do,
    none were named, or nothing changed)."""
    uses = spec.facts.uses
    if not uses or spec.action not in _ACTIONS:
        return None
    before, after = _defs(old), _defs(new)
    if before is None or after is None:
        return None
    changed = [q for q, dump in after.items() if before.get(q) != dump]
    uses = tuple(n for n in uses if n not in {q.rpartition(".")[2] for q in changed})  # a def is no use of itself
    if not changed or not uses or any(_refers(after[q], uses) for q in changed):
        return None
    said = " or ".join(uses)
    where = ", ".join(changed[:3]) + (" ..." if len(changed) > 3 else "")
    return f"the instruction says to use {said}, and {where} never refers to it"
