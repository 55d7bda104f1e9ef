"""A new or changed def that never refers to what the instruction told it to use.

The spec's :attr:`~coder.edit.intent.spec.Facts.uses` are module-level names of the edited file the instruction
tells the change to use ("compared with compare_digest"; :mod:`coder.edit.intent.uses`). When the result adds or
changes defs and none of them refers to any of those names, the change is not the one asked, whatever it returns:
seen applied on the 2-core CPU (run 20), a ``verify`` that compared with ``==``.
"""

from __future__ import annotations

import ast

from coder.edit.intent.spec import ChangeSpec
from coder.edit.source.trees import defs_by_name

_ACTIONS = frozenset({"add_method", "add_function", "add_parameter", "change", "extract"})


def _refers(dump: str, names: tuple[str, ...]) -> bool:
    return any(f"id='{n}'" in dump or f"attr='{n}'" in dump for n in names)


def unused_asked(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why the defs the result adds or changes use none of the names the instruction told them to (None: they do,
    none were named, or nothing changed)."""
    uses = spec.facts.uses
    if not uses or spec.action not in _ACTIONS:
        return None
    olds, news = defs_by_name(old), defs_by_name(new)
    if olds is None or news is None:
        return None
    before = {q: ast.dump(fn) for q, fn in olds.items()}
    after = {q: ast.dump(fn) for q, fn in news.items()}
    changed = [q for q, dump in after.items() if before.get(q) != dump]
    uses = tuple(n for n in uses if n not in {q.rpartition(".")[2] for q in changed})  # a def is no use of itself
    if not changed or not uses or any(_refers(after[q], uses) for q in changed):
        return None
    said = " or ".join(uses)
    where = ", ".join(changed[:3]) + (" ..." if len(changed) > 3 else "")
    return f"the instruction says to use {said}, and {where} never refers to it"


def uncalled_said(old: str, new: str, spec: ChangeSpec) -> str | None:
    """Why a new method never calls a method of its class that the instruction says it uses
    (:attr:`~coder.edit.intent.spec.Facts.calls`; None: it calls each, or none was said)."""
    if spec.action != "add_method" or spec.owner is None or not spec.facts.calls:
        return None
    news = defs_by_name(new)
    olds = defs_by_name(old) or {}
    if news is None:
        return None
    for name in spec.new_names:
        fn = news.get(f"{spec.owner.qualname}.{name}")
        if fn is None or f"{spec.owner.qualname}.{name}" in olds:
            continue
        used = {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)}
        missing = [c for c in spec.facts.calls if c not in used]
        if missing:
            said = ", ".join(f"{c}()" for c in missing)
            return f"the instruction says {name} uses {said}, and {spec.owner.qualname}.{name} never calls it"
    return None
